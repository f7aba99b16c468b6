//! SM2 key exchange (GB/T 32918.3-2016 §6.1) on the recommended curve: agreement, the
//! confirmation hashes, and failures on mismatched identifiers, keys and roles. (The
//! standard's Annex example runs on a different 256-bit example curve, which this
//! fixed-curve implementation does not support, so there is no published vector here.)

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use shangmi_sm2::kx::{KeyExchange, Role};
use shangmi_sm2::{Peer, PublicKey, SecretKey};

fn sk(b: u8) -> SecretKey {
    SecretKey::from_bytes(&[b; 32].into()).unwrap()
}

fn eph(b: u8) -> [u8; 32] {
    let mut r = [b; 32];
    r[0] = 0x3C;
    r
}

/// `role`'s side of an exchange with the static key `key`, identifier `id` and the
/// ephemeral secret `eph(e)`.
fn party(role: Role, key: &SecretKey, id: &[u8], e: u8) -> KeyExchange {
    KeyExchange::new_with_ephemeral(role, key, id, &eph(e).into()).unwrap()
}

#[test]
fn parties_agree_and_confirm() {
    let (a, b) = (sk(1), sk(2));
    for klen in [0usize, 1, 16, 32, 33, 100] {
        let alice = party(Role::Initiator, &a, b"ALICE123@YAHOO.COM", 3);
        let bob = party(Role::Responder, &b, b"BILL456@YAHOO.COM", 4);
        let (ra, rb) = (alice.ephemeral_public(), bob.ephemeral_public());
        let mut ka = vec![0u8; klen];
        let mut kb = vec![0u8; klen];
        let (pa, pb) = (a.public_key(), b.public_key());
        let bob_seen = Peer::new(&pb, b"BILL456@YAHOO.COM", &rb);
        let alice_seen = Peer::new(&pa, b"ALICE123@YAHOO.COM", &ra);
        let ca = alice.finish(bob_seen, &mut ka).unwrap();
        let cb = bob.finish(alice_seen, &mut kb).unwrap();
        assert_eq!(ka, kb);
        if klen > 0 {
            assert_ne!(ka, vec![0u8; klen]);
        }
        ca.verify(cb.to_send()).unwrap();
        cb.verify(ca.to_send()).unwrap();
        assert_ne!(ca.to_send(), cb.to_send());
        assert!(ca.verify(ca.to_send()).is_err());
    }
}

#[test]
fn key_prefixes_are_consistent() {
    // The KDF output for a shorter klen is a prefix of a longer one.
    let (a, b) = (sk(5), sk(6));
    let run = |klen: usize| {
        let alice = party(Role::Initiator, &a, b"a", 7);
        let bob = party(Role::Responder, &b, b"b", 8);
        let mut k = vec![0u8; klen];
        let (pb, rb) = (b.public_key(), bob.ephemeral_public());
        let bob_seen = Peer::new(&pb, b"b", &rb);
        alice.finish(bob_seen, &mut k).unwrap();
        k
    };
    let long = run(80);
    assert_eq!(run(16), long[..16]);
    assert_eq!(run(33), long[..33]);
}

#[test]
fn mismatches_fail() {
    let (a, b, c) = (sk(1), sk(2), sk(9));
    // One exchange in which Alice finishes with `bob_public`, `bob_id` and Bob's ephemeral
    // point (or `fake_rb` in its place) and Bob sees Alice as she is: the keys must differ
    // and neither side may accept the other's confirmation.
    let mismatch = |alice: KeyExchange,
                    bob: KeyExchange,
                    bob_public: &PublicKey,
                    bob_id: &[u8],
                    fake_rb: Option<PublicKey>| {
        let (ra, rb) = (alice.ephemeral_public(), bob.ephemeral_public());
        let (mut ka, mut kb) = ([0u8; 32], [0u8; 32]);
        let (pa, rb) = (a.public_key(), fake_rb.unwrap_or(rb));
        let bob_seen = Peer::new(bob_public, bob_id, &rb);
        let alice_seen = Peer::new(&pa, b"alice", &ra);
        let ca = alice.finish(bob_seen, &mut ka).unwrap();
        let cb = bob.finish(alice_seen, &mut kb).unwrap();
        assert_ne!(ka, kb);
        assert!(ca.verify(cb.to_send()).is_err());
        assert!(cb.verify(ca.to_send()).is_err());
    };
    let alice = || party(Role::Initiator, &a, b"alice", 3);
    let bob = || party(Role::Responder, &b, b"bob", 4);
    // Wrong peer identifier on one side.
    mismatch(alice(), bob(), &b.public_key(), b"bob!", None);
    // Wrong static key (a man in the middle with key c).
    mismatch(alice(), bob(), &c.public_key(), b"bob", None);
    // Substituted ephemeral point.
    mismatch(
        alice(),
        bob(),
        &b.public_key(),
        b"bob",
        Some(sk(11).public_key()),
    );
    // Both claim to be the initiator.
    let both_initiators = party(Role::Initiator, &b, b"bob", 4);
    mismatch(alice(), both_initiators, &b.public_key(), b"bob", None);
}

#[test]
fn invalid_ephemeral_secret() {
    let n = hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
    assert!(
        KeyExchange::new_with_ephemeral(Role::Initiator, &sk(1), b"a", &[0; 32].into()).is_err()
    );
    assert!(KeyExchange::new_with_ephemeral(Role::Initiator, &sk(1), b"a", &n.into()).is_err());
}

#[test]
#[cfg(target_arch = "x86_64")] // OpenSSL is linked on the development host only
fn diff_openssl_ecdh() {
    use openssl::derive::Deriver;
    use openssl::pkey::PKey;
    use shangmi_sm2::elliptic_curve::pkcs8::{EncodePrivateKey, EncodePublicKey};
    let (a, b) = (sk(0x21), sk(0x43));
    let ours = shangmi_sm2::ecdh::diffie_hellman(&a, &b.public_key());
    assert_eq!(
        ours.as_bytes(),
        shangmi_sm2::ecdh::diffie_hellman(&b, &a.public_key()).as_bytes()
    );
    let key = PKey::private_key_from_pkcs8(a.to_pkcs8_der().unwrap().as_bytes()).unwrap();
    let peer =
        PKey::public_key_from_der(b.public_key().to_public_key_der().unwrap().as_bytes()).unwrap();
    let derived = Deriver::new(&key).and_then(|mut d| {
        d.set_peer(&peer)?;
        d.derive_to_vec()
    });
    if let Ok(shared) = derived {
        assert_eq!(&shared[..], &ours.as_bytes()[..]);
        return;
    }
    // OpenSSL refused ECDH on SM2 keys: compare with RustCrypto's group arithmetic instead.
    let rc_a = rustcrypto_sm2::SecretKey::from_bytes(&[0x21; 32].into()).unwrap();
    let rc_b = rustcrypto_sm2::SecretKey::from_bytes(&[0x43; 32].into()).unwrap();
    let p = (rustcrypto_sm2::ProjectivePoint::from(*rc_b.public_key().as_affine())
        * *rc_a.to_nonzero_scalar())
    .to_affine();
    use rustcrypto_sm2::elliptic_curve::point::AffineCoordinates;
    assert_eq!(&p.x()[..], &ours.as_bytes()[..]);
}
