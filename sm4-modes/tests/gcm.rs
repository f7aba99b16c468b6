//! SM4-GCM: published vectors, error behaviour, and differential tests against
//! RustCrypto's generic `aes_gcm::AesGcm<sm4::Sm4, U12>` on every SM4 engine.
//!
//! OpenSSL 3.0 (Debian 12) has no SM4-GCM (SM4-GCM arrived in 3.2): the differential test
//! against OpenSSL is in `tests/openssl.rs`, on the vendored OpenSSL 3.6.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use aead::{Aead, AeadInOut, KeyInit, Payload, consts::U16};
use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{GhashBackend, Sm4Gcm, Sm4GcmCustom};

type RustCryptoGcm = aes_gcm::AesGcm<rustcrypto_sm4::Sm4, aes_gcm::aead::consts::U12>;
type RustCryptoGcm16 = aes_gcm::AesGcm<rustcrypto_sm4::Sm4, aes_gcm::aead::consts::U16>;

// RFC 8998 Appendix A.1 (SM4-GCM test vector).
const KEY: [u8; 16] = hex!("0123456789ABCDEFFEDCBA9876543210");
const NONCE: [u8; 12] = hex!("00001234567800000000ABCD");
const AAD: [u8; 20] = hex!("FEEDFACEDEADBEEFFEEDFACEDEADBEEFABADDAD2");
const PT: [u8; 64] = hex!(
    "AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBCCCCCCCCCCCCCCCCDDDDDDDDDDDDDDDD"
    "EEEEEEEEEEEEEEEEFFFFFFFFFFFFFFFFEEEEEEEEEEEEEEEEAAAAAAAAAAAAAAAA"
);
const CT: [u8; 64] = hex!(
    "17F399F08C67D5EE19D0DC9969C4BB7D5FD46FD3756489069157B282BB200735"
    "D82710CA5C22F0CCFA7CBF93D496AC15A56834CBCF98C397B4024A2691233B8D"
);
const TAG: [u8; 16] = hex!("83DE3541E4C2B58177E065A9BF7B62EC");

/// Every (SM4 engine, GHASH engine) pair this CPU runs.
fn all_gcms(key: &[u8; 16]) -> Vec<(String, Sm4Gcm)> {
    let mut v = Vec::new();
    for b in Backend::available() {
        let c = Sm4::with_backend(&(*key).into(), b).unwrap();
        for g in GhashBackend::available() {
            v.push((
                format!("{}+{}", b.name(), g.name()),
                Sm4Gcm::with_ghash_backend(c.clone(), g).unwrap(),
            ));
        }
    }
    v
}

#[test]
fn rfc8998_a1() {
    for (name, gcm) in all_gcms(&KEY) {
        let mut buf = PT;
        let tag = gcm
            .encrypt_inout_detached(&NONCE.into(), &AAD, (&mut buf[..]).into())
            .unwrap();
        assert_eq!(buf, CT, "{name}");
        assert_eq!(tag[..], TAG, "{name}");
        gcm.decrypt_inout_detached(&NONCE.into(), &AAD, (&mut buf[..]).into(), &tag)
            .unwrap();
        assert_eq!(buf, PT, "{name}");
    }
    // The allocating API, tag appended.
    let gcm = Sm4Gcm::new(&KEY.into());
    let sealed = gcm
        .encrypt(
            &NONCE.into(),
            Payload {
                msg: &PT,
                aad: &AAD,
            },
        )
        .unwrap();
    assert_eq!(sealed[..64], CT);
    assert_eq!(sealed[64..], TAG);
}

#[test]
fn wrong_tag_restores_ciphertext() {
    let gcm = Sm4Gcm::new(&KEY.into());
    for len in [0usize, 1, 16, 64, 240, 241, 2048, 5000] {
        let pt: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let mut ct = pt.clone();
        let tag = gcm
            .encrypt_inout_detached(&NONCE.into(), &AAD, (&mut ct[..]).into())
            .unwrap();
        // Flip one bit of the tag, of the AAD, of the ciphertext.
        let mut bad_tag = tag;
        bad_tag[15] ^= 1;
        let mut buf = ct.clone();
        assert!(
            gcm.decrypt_inout_detached(&NONCE.into(), &AAD, (&mut buf[..]).into(), &bad_tag)
                .is_err()
        );
        assert_eq!(buf, ct, "buffer must hold the ciphertext after a failure");
        let mut bad_aad = AAD;
        bad_aad[0] ^= 0x80;
        assert!(
            gcm.decrypt_inout_detached(&NONCE.into(), &bad_aad, (&mut buf[..]).into(), &tag)
                .is_err()
        );
        assert_eq!(buf, ct);
        if len > 0 {
            buf[len / 2] ^= 4;
            let tampered = buf.clone();
            assert!(
                gcm.decrypt_inout_detached(&NONCE.into(), &AAD, (&mut buf[..]).into(), &tag)
                    .is_err()
            );
            assert_eq!(buf, tampered);
        }
        // Separate in and out buffers: the output holds the ciphertext after a failure.
        let mut out = vec![0u8; len];
        let inout = aead::inout::InOutBuf::new(&ct, &mut out).unwrap();
        assert!(
            gcm.decrypt_inout_detached(&NONCE.into(), &AAD, inout, &bad_tag)
                .is_err()
        );
        assert_eq!(out, ct);
    }
}

/// The lengths where the fused loop changes shape: the 63-block tail that shares one engine
/// call with the tag mask, the 64-block tails (1009..=1023 mod 1024) that cannot, and the
/// 2 KiB chunk edges, on every engine pair.
#[test]
fn chunk_edges_match_rustcrypto() {
    let theirs = RustCryptoGcm::new(&KEY.into());
    let gcms = all_gcms(&KEY);
    for base in [0usize, 1024, 2048, 4096, 8192] {
        for d in [0usize, 1, 15, 16, 17, 1007, 1008, 1009, 1016, 1023] {
            let len = base + d;
            let msg: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            let want = theirs
                .encrypt(
                    &NONCE.into(),
                    aes_gcm::aead::Payload {
                        msg: &msg,
                        aad: &AAD,
                    },
                )
                .unwrap();
            for (name, gcm) in &gcms {
                let got = gcm
                    .encrypt(
                        &NONCE.into(),
                        Payload {
                            msg: &msg,
                            aad: &AAD,
                        },
                    )
                    .unwrap();
                assert_eq!(got, want, "{name} len {len}");
                let back = gcm
                    .decrypt(
                        &NONCE.into(),
                        Payload {
                            msg: &got,
                            aad: &AAD,
                        },
                    )
                    .unwrap();
                assert_eq!(back, msg, "{name} len {len}");
            }
        }
    }
}

#[test]
fn too_short_for_a_tag() {
    let gcm = Sm4Gcm::new(&KEY.into());
    for len in 0..16 {
        assert!(gcm.decrypt(&NONCE.into(), &vec![0u8; len][..]).is_err());
    }
}

#[test]
fn nonce_and_tag_sizes_match_rustcrypto() {
    let key = [9u8; 16];
    let ours = Sm4GcmCustom::<U16, aead::consts::U16>::new(&key.into());
    let theirs = RustCryptoGcm16::new(&key.into());
    let nonce = [5u8; 16];
    for len in [0usize, 15, 33, 300] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        let a = ours.encrypt(&nonce.into(), &msg[..]).unwrap();
        let b = theirs.encrypt(&nonce.into(), &msg[..]).unwrap();
        assert_eq!(a, b, "16-byte nonce, len {len}");
    }
    // 12-byte tag: the first 12 bytes of the full tag (SP 800-38D §7.1 step 8).
    let short = Sm4GcmCustom::<aead::consts::U12, aead::consts::U12>::new(&KEY.into());
    let sealed = short
        .encrypt(
            &NONCE.into(),
            Payload {
                msg: &PT,
                aad: &AAD,
            },
        )
        .unwrap();
    assert_eq!(sealed[64..], TAG[..12]);
    assert_eq!(
        short
            .decrypt(
                &NONCE.into(),
                Payload {
                    msg: &sealed,
                    aad: &AAD
                }
            )
            .unwrap(),
        PT
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Every engine pair against RustCrypto's composition, every length 0..=300.
    #[test]
    fn every_engine_matches_rustcrypto(key in any::<[u8; 16]>(), nonce in any::<[u8; 12]>(),
                                       aad in proptest::collection::vec(any::<u8>(), 0..70),
                                       seed in any::<u8>()) {
        let theirs = RustCryptoGcm::new(&key.into());
        let gcms = all_gcms(&key);
        for len in 0..=300usize {
            let msg: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
            let want = theirs.encrypt(&nonce.into(), aes_gcm::aead::Payload { msg: &msg, aad: &aad }).unwrap();
            for (name, gcm) in &gcms {
                let got = gcm.encrypt(&nonce.into(), Payload { msg: &msg, aad: &aad }).unwrap();
                prop_assert_eq!(&got, &want, "{} len {}", name, len);
                let back = gcm.decrypt(&nonce.into(), Payload { msg: &got, aad: &aad }).unwrap();
                prop_assert_eq!(&back, &msg);
            }
        }
    }

    /// Long messages across the fused-chunk boundaries.
    #[test]
    fn long_messages_match_rustcrypto(key in any::<[u8; 16]>(), len in 300usize..9000) {
        let theirs = RustCryptoGcm::new(&key.into());
        let msg: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let want = theirs.encrypt(&[1u8; 12].into(), &msg[..]).unwrap();
        for (name, gcm) in all_gcms(&key) {
            let got = gcm.encrypt(&[1u8; 12].into(), &msg[..]).unwrap();
            prop_assert_eq!(&got, &want, "{} len {}", name, len);
            prop_assert_eq!(gcm.decrypt(&[1u8; 12].into(), &got[..]).unwrap(), msg.clone());
        }
    }
}

#[test]
fn separate_buffers_equal_in_place() {
    let gcm = Sm4Gcm::new(&KEY.into());
    for len in [
        0usize, 5, 16, 240, 241, 255, 256, 4095, 4096, 4097, 8192, 10000,
    ] {
        let pt: Vec<u8> = (0..len).map(|i| (i * 13) as u8).collect();
        let mut in_place = pt.clone();
        let tag = gcm
            .encrypt_inout_detached(&NONCE.into(), &AAD, (&mut in_place[..]).into())
            .unwrap();
        let mut out = vec![0u8; len];
        let tag2 = gcm
            .encrypt_inout_detached(
                &NONCE.into(),
                &AAD,
                aead::inout::InOutBuf::new(&pt, &mut out).unwrap(),
            )
            .unwrap();
        assert_eq!(out, in_place, "len {len}");
        assert_eq!(tag, tag2);
        let mut back = vec![0u8; len];
        gcm.decrypt_inout_detached(
            &NONCE.into(),
            &AAD,
            aead::inout::InOutBuf::new(&out, &mut back).unwrap(),
            &tag,
        )
        .unwrap();
        assert_eq!(back, pt, "len {len}");
    }
}
