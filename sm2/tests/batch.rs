//! `sm2::batch`: every item's result equals the one-at-a-time API's (verification and
//! ECDH), at lengths around the eight-lane groups (0, 1, 7, 8, 9, 16, 17: full groups on
//! the lanes where the CPU has them, remainders on the scalar path), with bad items at
//! every position flagged alone.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use proptest::prelude::*;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::signature::{Signer, Verifier};
use shangmi_sm2::{Error, SecretKey, batch, ecdh};

/// Lengths around the groups of eight.
const LENGTHS: [usize; 7] = [0, 1, 7, 8, 9, 16, 17];

/// A deterministic secret for `i` (never zero, below n).
fn secret_bytes(i: usize, salt: u8) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (j, x) in b.iter_mut().enumerate() {
        *x = (i as u8)
            .wrapping_mul(37)
            .wrapping_add(j as u8)
            .wrapping_mul(salt | 1)
            ^ salt;
    }
    b[0] &= 0x7F;
    b[31] |= 1;
    b
}

/// `n` signers (identifiers alternating between the default and another), their
/// messages and signatures.
fn signed(n: usize) -> (Vec<VerifyingKey>, Vec<Vec<u8>>, Vec<Signature>) {
    let signers: Vec<SigningKey> = (0..n)
        .map(|i| {
            let d = secret_bytes(i, 0x5A).into();
            if i % 3 == 2 {
                SigningKey::from_bytes_with_id(&d, b"alice@example.com").unwrap()
            } else {
                SigningKey::from_bytes(&d).unwrap()
            }
        })
        .collect();
    let msgs: Vec<Vec<u8>> = (0..n).map(|i| vec![i as u8; i * 7]).collect();
    let sigs = signers.iter().zip(&msgs).map(|(s, m)| s.sign(m)).collect();
    let keys = signers.iter().map(|s| s.verifying_key().clone()).collect();
    (keys, msgs, sigs)
}

/// The batch results, and the one-at-a-time ones.
fn both(keys: &[VerifyingKey], msgs: &[Vec<u8>], sigs: &[Signature]) -> (Vec<bool>, Vec<bool>) {
    let items: Vec<(&VerifyingKey, &[u8], &Signature)> = keys
        .iter()
        .zip(msgs)
        .zip(sigs)
        .map(|((k, m), s)| (k, &m[..], s))
        .collect();
    let got = batch::verify(&items).iter().map(Result::is_ok).collect();
    let want = items
        .iter()
        .map(|(k, m, s)| k.verify(m, s).is_ok())
        .collect();
    (got, want)
}

#[test]
fn batch_verify_flags_exactly_the_bad_items() {
    for n in LENGTHS {
        let (keys, msgs, sigs) = signed(n);
        let (got, want) = both(&keys, &msgs, &sigs);
        assert_eq!(got, vec![true; n], "all good, n = {n}");
        assert_eq!(want, got);
        for bad in 0..n {
            // Another message, another key, a signature of another item: each fails alone.
            let mut m = msgs.clone();
            m[bad].push(1);
            let (got, want) = both(&keys, &m, &sigs);
            let expect: Vec<bool> = (0..n).map(|i| i != bad).collect();
            assert_eq!(got, expect, "message changed at {bad} of {n}");
            assert_eq!(want, expect);
            let mut k = keys.clone();
            k.swap(bad, (bad + 1) % n);
            let (got, want) = both(&k, &msgs, &sigs);
            assert_eq!(got, want, "keys swapped at {bad} of {n}");
            let mut s = sigs.clone();
            s[bad] = sigs[(bad + 3) % n];
            let (got, want) = both(&keys, &msgs, &s);
            assert_eq!(got, want, "signature replaced at {bad} of {n}");
        }
    }
}

#[test]
fn batch_verify_repeated_and_precomputed_keys() {
    let (keys, msgs, sigs) = signed(10);
    // One key for every item (the tables of its lanes are the same point's), and a key
    // with its table built: both verify what they verify alone.
    let signer = SigningKey::from_bytes(&secret_bytes(99, 3).into()).unwrap();
    let vk = signer.verifying_key().clone().precomputed();
    let own: Vec<Signature> = msgs.iter().map(|m| signer.sign(m)).collect();
    let same = vec![vk.clone(); 10];
    let (got, want) = both(&same, &msgs, &own);
    assert_eq!((got, want), (vec![true; 10], vec![true; 10]));
    let (got, want) = both(&same, &msgs, &sigs);
    assert_eq!((got, want), (vec![false; 10], vec![false; 10]));
    let mut mixed = keys.clone();
    mixed[4] = vk;
    let (got, _) = both(&mixed, &msgs, &sigs);
    assert_eq!(got, (0..10).map(|i| i != 4).collect::<Vec<_>>());
}

#[test]
fn batch_verify_prehash_and_lengths() {
    let (keys, msgs, sigs) = signed(9);
    let es: Vec<[u8; 32]> = keys
        .iter()
        .zip(&msgs)
        .map(|(k, m)| k.hash_message(m))
        .collect();
    let mut items: Vec<(&VerifyingKey, &[u8; 32], &Signature)> = keys
        .iter()
        .zip(&es)
        .zip(&sigs)
        .map(|((k, e), s)| (k, e, s))
        .collect();
    let wrong = [0x11u8; 32];
    items[8].1 = &wrong;
    let mut out = vec![Ok(()); 9];
    batch::verify_prehash_into(&items, &mut out).unwrap();
    let expect: Vec<Result<(), Error>> = (0..9)
        .map(|i| {
            if i == 8 {
                Err(Error::Verification)
            } else {
                Ok(())
            }
        })
        .collect();
    assert_eq!(out, expect);
    // An output slice of another length: an error, nothing written.
    let mut short = vec![Err(Error::Encoding); 8];
    assert_eq!(
        batch::verify_prehash_into(&items, &mut short),
        Err(Error::BatchLength)
    );
    assert_eq!(short, vec![Err(Error::Encoding); 8]);
    let pairs: Vec<(&SecretKey, &[u8])> = Vec::new();
    let mut none = vec![Err(Error::Encoding)];
    assert_eq!(
        batch::diffie_hellman_into(&pairs, &mut none),
        Err(Error::BatchLength)
    );
}

/// Peer shares: valid points, and at `bad` positions broken ones of every kind.
fn shares(n: usize, bad: &[usize]) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let peer = SecretKey::from_bytes(&secret_bytes(i, 0x77).into()).unwrap();
            let mut p = ecdh::public_point_uncompressed(&peer).to_vec();
            if bad.contains(&i) {
                match i % 5 {
                    0 => p[64] ^= 1,          // off the curve
                    1 => p[0] = 2,            // not uncompressed
                    2 => p.truncate(33),      // too short
                    3 => p[1..33].fill(0xFF), // x not below p
                    _ => p = vec![0; 0],      // empty
                }
            }
            p
        })
        .collect()
}

/// Batch ECDH against `ecdh::diffie_hellman_sec1` item by item.
fn check_ecdh(secrets: &[SecretKey], peers: &[Vec<u8>]) {
    let pairs: Vec<(&SecretKey, &[u8])> = secrets
        .iter()
        .zip(peers)
        .map(|(s, p)| (s, &p[..]))
        .collect();
    let got = batch::diffie_hellman(&pairs);
    assert_eq!(got.len(), pairs.len());
    for (i, ((s, p), g)) in pairs.iter().zip(&got).enumerate() {
        match (ecdh::diffie_hellman_sec1(s, p), g) {
            (Ok(w), Ok(g)) => assert_eq!(w.as_bytes(), g.as_bytes(), "item {i}"),
            (Err(w), Err(g)) => assert_eq!(w, *g, "item {i}"),
            (w, g) => panic!("item {i}: {w:?} against {g:?}"),
        }
    }
}

#[test]
fn batch_ecdh_matches_single() {
    for n in LENGTHS {
        let secrets: Vec<SecretKey> = (0..n)
            .map(|i| SecretKey::from_bytes(&secret_bytes(i, 0x13).into()).unwrap())
            .collect();
        check_ecdh(&secrets, &shares(n, &[]));
        // Broken shares, alone and several in a group.
        for bad in 0..n {
            check_ecdh(&secrets, &shares(n, &[bad]));
        }
        check_ecdh(&secrets, &shares(n, &(0..n).step_by(3).collect::<Vec<_>>()));
    }
    // Edge secrets: 1, 2, n - 1, n - 2, n - 6 (the last window's doubling), one secret
    // for every pair, and each against the generator and its negation.
    let n_minus = |d: u8| {
        let mut b =
            hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
        b[31] -= d;
        b
    };
    let mut edge: Vec<[u8; 32]> = vec![[0; 32], [0; 32]];
    edge[0][31] = 1;
    edge[1][31] = 2;
    for d in [1, 2, 4, 6, 30, 32] {
        edge.push(n_minus(d));
    }
    edge.push([0x55; 32]);
    let secrets: Vec<SecretKey> = edge
        .iter()
        .map(|b| SecretKey::from_bytes(&(*b).into()).unwrap())
        .collect();
    let one = SecretKey::from_bytes(&edge[0].into()).unwrap();
    let minus_one = SecretKey::from_bytes(&n_minus(1).into()).unwrap();
    for peer in [&one, &minus_one] {
        let g = ecdh::public_point_uncompressed(peer).to_vec();
        check_ecdh(&secrets, &vec![g; secrets.len()]);
    }
    // One secret against many peers.
    let same = vec![secrets[3].clone(); 8];
    check_ecdh(&same, &shares(8, &[5]));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn batch_ecdh_random(d in proptest::array::uniform8(any::<[u8; 32]>()), q in proptest::array::uniform8(any::<[u8; 32]>())) {
        let secrets: Vec<SecretKey> = d.iter().filter_map(|b| SecretKey::from_bytes(&(*b).into()).ok()).collect();
        let peers: Vec<Vec<u8>> = q
            .iter()
            .take(secrets.len())
            .map(|b| match SecretKey::from_bytes(&(*b).into()) {
                Ok(s) => ecdh::public_point_uncompressed(&s).to_vec(),
                Err(_) => b.to_vec(),
            })
            .collect();
        check_ecdh(&secrets[..peers.len()], &peers);
    }

    #[test]
    fn batch_verify_random(d in proptest::array::uniform8(any::<[u8; 32]>()), flip in 0usize..512, which in 0usize..8) {
        let signers: Vec<SigningKey> = d.iter().filter_map(|b| SigningKey::from_bytes(&(*b).into()).ok()).collect();
        let msgs: Vec<Vec<u8>> = (0..signers.len()).map(|i| vec![i as u8; 3]).collect();
        let keys: Vec<VerifyingKey> = signers.iter().map(|s| s.verifying_key().clone()).collect();
        let mut sigs: Vec<Signature> = signers.iter().zip(&msgs).map(|(s, m)| s.sign(m)).collect();
        if let Some(sig) = sigs.get_mut(which) {
            let mut b = sig.to_bytes();
            b[flip / 8] ^= 1 << (flip % 8);
            if let Ok(t) = Signature::from_bytes(&b) {
                *sig = t;
            }
        }
        let (got, want) = both(&keys, &msgs, &sigs);
        prop_assert_eq!(got, want);
    }
}
