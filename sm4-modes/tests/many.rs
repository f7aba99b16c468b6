//! Many messages at once (`cbc_encrypt_many`, `cbc_encrypt_many_in_place`, `cmac_many`):
//! every message's output equals the one-message mode ([`Sm4CbcEnc`], [`Sm4Cmac`], and
//! RustCrypto's `cbc`/`cmac` over its independent `sm4` crate) on every engine the machine
//! has, for batches of 0..=40 messages of random lengths and for batches larger than the
//! lane count; published vectors run as lanes of a batch; bad batches are refused whole.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use cipher::{BlockModeEncrypt, InnerIvInit, KeyIvInit, block_padding::NoPadding};
use cmac::digest::{Mac, common::InnerInit};
use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{
    ManyError, Sm4CbcEnc, Sm4Cmac, cbc_encrypt_many, cbc_encrypt_many_in_place, cmac_many,
    many::LANES,
};

type TheirCbcEnc = cbc::Encryptor<rustcrypto_sm4::Sm4>;
type TheirCmac = cmac::Cmac<rustcrypto_sm4::Sm4>;

#[path = "support/draft_ribose.rs"]
mod draft_ribose;
#[path = "support/engines.rs"]
mod engines;
use engines::ciphers;

fn cbc_one(c: &Sm4, iv: &[u8; 16], msg: &[u8]) -> Vec<u8> {
    let mut b = msg.to_vec();
    Sm4CbcEnc::inner_iv_init(c.clone(), &(*iv).into())
        .encrypt_padded::<NoPadding>(&mut b, msg.len())
        .unwrap();
    b
}

fn cmac_one(c: &Sm4, msg: &[u8]) -> [u8; 16] {
    let mut m = Sm4Cmac::inner_init(c.clone());
    m.update(msg);
    m.finalize().into_bytes().into()
}

/// Runs the three batch entries on `c` and checks each message against the one-message
/// modes (and, for `check_theirs`, RustCrypto's).
fn check_batch(
    name: &str,
    key: &[u8; 16],
    c: &Sm4,
    ivs: &[[u8; 16]],
    msgs: &[Vec<u8>],
    check_theirs: bool,
) {
    let whole: Vec<Vec<u8>> = msgs
        .iter()
        .map(|m| m[..m.len() / 16 * 16].to_vec())
        .collect();
    let refs: Vec<&[u8]> = whole.iter().map(|m| m.as_slice()).collect();
    let mut outs: Vec<Vec<u8>> = whole.iter().map(|m| vec![0xA5; m.len()]).collect();
    let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
    cbc_encrypt_many(c, ivs, &refs, &mut out_refs).unwrap();
    let mut inplace = whole.clone();
    let mut inplace_refs: Vec<&mut [u8]> = inplace.iter_mut().map(|o| o.as_mut_slice()).collect();
    cbc_encrypt_many_in_place(c, ivs, &mut inplace_refs).unwrap();
    for (i, (m, iv)) in whole.iter().zip(ivs).enumerate() {
        let want = cbc_one(c, iv, m);
        assert_eq!(
            outs[i],
            want,
            "cbc {name} msg {i} of {} len {}",
            whole.len(),
            m.len()
        );
        assert_eq!(
            inplace[i],
            want,
            "cbc in place {name} msg {i} len {}",
            m.len()
        );
        if check_theirs {
            let theirs =
                TheirCbcEnc::new(&(*key).into(), &(*iv).into()).encrypt_padded_vec::<NoPadding>(m);
            assert_eq!(want, theirs, "cbc vs RustCrypto msg {i}");
        }
    }

    let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    let mut tags = vec![[0x5Au8; 16]; msgs.len()];
    cmac_many(c, &refs, &mut tags).unwrap();
    for (i, m) in msgs.iter().enumerate() {
        let want = cmac_one(c, m);
        assert_eq!(
            tags[i],
            want,
            "cmac {name} msg {i} of {} len {}",
            msgs.len(),
            m.len()
        );
        if check_theirs {
            let mut theirs = <TheirCmac as cmac::KeyInit>::new(&(*key).into());
            theirs.update(m);
            assert_eq!(
                want[..],
                theirs.finalize().into_bytes()[..],
                "cmac vs RustCrypto"
            );
        }
    }
}

#[test]
fn draft_ribose_cbc_vector_as_a_lane() {
    // draft-ribose-cfrg-sm4-10 Appendix A.2.2.1 (CBC, example 1), as message 3 of 7 whose
    // other lanes are longer, shorter and empty, so it runs among busy lanes.
    use draft_ribose::{CBC_CT as CT, IV, KEY, PT};
    let others: Vec<Vec<u8>> = [64usize, 16, 0, 0, 160, 48, 32]
        .iter()
        .map(|&n| vec![0x3C; n])
        .collect();
    for (name, c) in ciphers(&KEY) {
        for pos in [0, 3, 6] {
            let mut msgs = others.clone();
            msgs[pos] = PT.to_vec();
            let ivs: Vec<[u8; 16]> = (0..msgs.len())
                .map(|i| if i == pos { IV } else { [i as u8; 16] })
                .collect();
            let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
            let mut outs: Vec<Vec<u8>> = msgs.iter().map(|m| vec![0; m.len()]).collect();
            let mut out_refs: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
            cbc_encrypt_many(&c, &ivs, &refs, &mut out_refs).unwrap();
            assert_eq!(outs[pos], CT, "{name} lane {pos}");
            // Alone: the single-message path of the scheduler.
            let mut one = [0u8; 32];
            cbc_encrypt_many(&c, &[IV], &[&PT], &mut [&mut one]).unwrap();
            assert_eq!(one, CT, "{name} alone");
        }
    }
}

#[test]
fn gbt_15852_1_cmac_vectors_as_lanes() {
    // GB/T 15852.1-2020 Appendix B, MAC algorithm 5 (CMAC) with SM4, as quoted in
    // emmansun/gmsm's cbcmac/cbcmac_test.go: empty (K2 path), 32 bytes (K1), 25 bytes (K2),
    // all three in one batch, then each alone.
    let key = hex!("0123456789abcdeffedcba9876543210");
    let text = b"This is the test message for mac";
    let msgs: [&[u8]; 3] = [b"", text, &text[..25]];
    let want = [
        hex!("29e154322e5c7bd8ee6a25ba549b24bc"),
        hex!("692c437100f3b5ee2b8abcef373d990c"),
        hex!("4738a6c760b280fc0c8a8af3886e9f5d"),
    ];
    for (name, c) in ciphers(&key) {
        let mut tags = [[0u8; 16]; 3];
        cmac_many(&c, &msgs, &mut tags).unwrap();
        assert_eq!(tags, want, "{name}");
        for (m, w) in msgs.iter().zip(&want) {
            let mut tag = [[0u8; 16]];
            cmac_many(&c, &[m], &mut tag).unwrap();
            assert_eq!(&tag[0], w, "{name} alone, len {}", m.len());
        }
    }
}

#[test]
fn more_messages_than_lanes() {
    // 3 × LANES + 5 messages of uneven lengths: lanes refill as messages end.
    let key = [0x42u8; 16];
    let n = 3 * LANES + 5;
    let msgs: Vec<Vec<u8>> = (0..n)
        .map(|i| (0..(i * 37) % 700).map(|j| (i * 7 + j) as u8).collect())
        .collect();
    let ivs: Vec<[u8; 16]> = (0..n).map(|i| [(i as u8) ^ 0x99; 16]).collect();
    for (name, c) in ciphers(&key) {
        check_batch(name, &key, &c, &ivs, &msgs, false);
    }
}

#[test]
fn bad_batches_are_refused_whole() {
    let c = Sm4::with_backend(&[1u8; 16].into(), Backend::Soft).unwrap();
    let (a, b) = ([1u8; 32], [2u8; 20]);
    let (mut x, mut y) = ([0u8; 32], [0u8; 20]);
    let ivs = [[0u8; 16]; 2];

    let mut out: [&mut [u8]; 2] = [&mut x, &mut y];
    assert_eq!(
        cbc_encrypt_many(&c, &ivs, &[&a, &b], &mut out),
        Err(ManyError::NotBlockMultiple { index: 1 })
    );
    assert_eq!(
        cbc_encrypt_many(&c, &ivs[..1], &[&a, &b], &mut out),
        Err(ManyError::CountMismatch)
    );
    assert_eq!(
        cbc_encrypt_many(&c, &ivs, &[&a, &a[..16]], &mut out),
        Err(ManyError::OutputLength { index: 1 })
    );
    assert_eq!(
        cbc_encrypt_many(&c, &ivs, &[&a], &mut out[..1]),
        Err(ManyError::CountMismatch)
    );
    assert!(out.iter().all(|o| o.iter().all(|&v| v == 0)), "written");

    let (mut p, mut q) = (a, b);
    let mut bufs: [&mut [u8]; 2] = [&mut p, &mut q];
    assert_eq!(
        cbc_encrypt_many_in_place(&c, &ivs, &mut bufs),
        Err(ManyError::NotBlockMultiple { index: 1 })
    );
    assert_eq!(
        cbc_encrypt_many_in_place(&c, &ivs[..1], &mut bufs),
        Err(ManyError::CountMismatch)
    );
    assert_eq!((p, q), (a, b), "changed");

    let mut tags = [[7u8; 16]; 1];
    assert_eq!(
        cmac_many(&c, &[&a, &b], &mut tags),
        Err(ManyError::CountMismatch)
    );
    assert_eq!(tags, [[7u8; 16]]);
    // The empty batch is fine.
    assert_eq!(cbc_encrypt_many(&c, &[], &[], &mut []), Ok(()));
    assert_eq!(cmac_many(&c, &[], &mut []), Ok(()));
    assert!(
        ManyError::NotBlockMultiple { index: 4 }
            .to_string()
            .contains('4')
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn each_message_equals_one_at_a_time(
        key in any::<[u8; 16]>(),
        seed in any::<u8>(),
        lens in proptest::collection::vec(0usize..600, 0..=40),
    ) {
        let msgs: Vec<Vec<u8>> = lens
            .iter()
            .enumerate()
            .map(|(i, &n)| (0..n).map(|j| (j as u8).wrapping_mul(13) ^ seed ^ i as u8).collect())
            .collect();
        let ivs: Vec<[u8; 16]> = (0..msgs.len()).map(|i| [seed.wrapping_add(i as u8); 16]).collect();
        for (name, c) in ciphers(&key) {
            check_batch(name, &key, &c, &ivs, &msgs, name == "soft");
        }
    }
}
