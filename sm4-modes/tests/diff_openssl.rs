//! Differential tests against OpenSSL (3.6, built from source by the `openssl` crate's
//! `vendored` feature: Debian's OpenSSL 3.0 lacks these modes) for SM4-GCM, SM4-CCM and
//! SM4-XTS in both flavours (OpenSSL's `xts_standard` parameter: "GB", its default, and
//! "IEEE"), on every SM4 engine this CPU runs.
#![cfg(target_arch = "x86_64")]
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use aead::{AeadInOut, KeyInit as _};
use openssl::{cipher::Cipher, cipher_ctx::CipherCtx};
use proptest::prelude::*;
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{Sm4Ccm, Sm4Gcm, Sm4XtsGb, Sm4XtsIeee};

#[path = "support/openssl_xts.rs"]
mod xts_standard;

/// Seals with OpenSSL's `name` ("SM4-GCM" or "SM4-CCM"), 12-byte nonce, 16-byte tag:
/// ciphertext ‖ tag.
fn openssl_seal(name: &str, key: &[u8], nonce: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    let cipher = Cipher::fetch(None, name, None).unwrap();
    let ccm = name.ends_with("CCM");
    let mut ctx = CipherCtx::new().unwrap();
    ctx.encrypt_init(Some(&cipher), None, None).unwrap();
    ctx.set_iv_length(nonce.len()).unwrap();
    if ccm {
        ctx.set_tag_length(16).unwrap();
    }
    ctx.encrypt_init(None, Some(key), Some(nonce)).unwrap();
    if ccm {
        ctx.set_data_len(pt.len()).unwrap();
    }
    let mut out = Vec::new();
    if !aad.is_empty() || !ccm {
        ctx.cipher_update(aad, None).unwrap();
    }
    ctx.cipher_update_vec(pt, &mut out).unwrap();
    ctx.cipher_final_vec(&mut out).unwrap();
    let mut tag = [0u8; 16];
    ctx.tag(&mut tag).unwrap();
    out.extend_from_slice(&tag);
    out
}

/// Encrypts one XTS data unit with OpenSSL's SM4-XTS under `standard` ("GB" or "IEEE").
fn openssl_xts(standard: &str, key: &[u8; 32], tweak: &[u8; 16], pt: &[u8]) -> Vec<u8> {
    let cipher = Cipher::fetch(None, "SM4-XTS", None).unwrap();
    let mut ctx = CipherCtx::new().unwrap();
    ctx.encrypt_init(Some(&cipher), Some(key), Some(tweak))
        .unwrap();
    xts_standard::set_xts_standard(&mut ctx, standard);
    let mut out = Vec::new();
    ctx.cipher_update_vec(pt, &mut out).unwrap();
    ctx.cipher_final_vec(&mut out).unwrap();
    out
}

fn lengths() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..300, Just(1024), Just(4096 + 17), Just(8192)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn diff_openssl_gcm_and_ccm(
        key in any::<[u8; 16]>(),
        nonce in any::<[u8; 12]>(),
        aad in proptest::collection::vec(any::<u8>(), 0..40),
        len in lengths(),
    ) {
        let pt: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(13) ^ key[0]).collect();
        let want_gcm = openssl_seal("SM4-GCM", &key, &nonce, &aad, &pt);
        let want_ccm = openssl_seal("SM4-CCM", &key, &nonce, &aad, &pt);
        for b in Backend::available() {
            let gcm = Sm4Gcm::from_cipher(Sm4::with_backend(&key.into(), b).unwrap());
            let mut buf = pt.clone();
            let tag = gcm.encrypt_inout_detached(&nonce.into(), &aad, (&mut buf[..]).into()).unwrap();
            buf.extend_from_slice(&tag);
            prop_assert_eq!(&buf, &want_gcm, "GCM {} len {}", b.name(), len);

            let ccm = Sm4Ccm::from_cipher(Sm4::with_backend(&key.into(), b).unwrap());
            let mut buf = want_ccm[..len].to_vec();
            let tag = want_ccm[len..].try_into().unwrap();
            prop_assert!(ccm.decrypt_inout_detached(&nonce.into(), &aad, (&mut buf[..]).into(), tag).is_ok(), "CCM open {} len {}", b.name(), len);
            prop_assert_eq!(&buf, &pt);
            let tag = ccm.encrypt_inout_detached(&nonce.into(), &aad, (&mut buf[..]).into()).unwrap();
            buf.extend_from_slice(&tag);
            prop_assert_eq!(&buf, &want_ccm, "CCM {} len {}", b.name(), len);
        }
        // And the default constructor (best engine) opens OpenSSL's GCM output.
        let gcm = Sm4Gcm::new(&key.into());
        let mut buf = want_gcm[..len].to_vec();
        let tag = want_gcm[len..].try_into().unwrap();
        prop_assert!(gcm.decrypt_inout_detached(&nonce.into(), &aad, (&mut buf[..]).into(), tag).is_ok());
        prop_assert_eq!(&buf, &pt);
    }

    #[test]
    fn diff_openssl_xts_both_standards(
        key in any::<[u8; 32]>(),
        tweak in any::<[u8; 16]>(),
        len in prop_oneof![16usize..300, Just(1024), Just(4096 + 5), Just(8192)],
    ) {
        prop_assume!(key[..16] != key[16..]);
        let pt: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(7) ^ tweak[0]).collect();
        let want_gb = openssl_xts("GB", &key, &tweak, &pt);
        let want_ieee = openssl_xts("IEEE", &key, &tweak, &pt);
        if len > 16 {
            // The standards agree on block 0 only: the parameter really took effect.
            prop_assert_ne!(&want_gb, &want_ieee, "len {}", len);
        }
        for b in Backend::available() {
            let mut buf = pt.clone();
            Sm4XtsGb::with_backend(&key, b).unwrap().encrypt(&tweak, &mut buf).unwrap();
            prop_assert_eq!(&buf, &want_gb, "GB {} len {}", b.name(), len);
            let mut buf = pt.clone();
            Sm4XtsIeee::with_backend(&key, b).unwrap().encrypt(&tweak, &mut buf).unwrap();
            prop_assert_eq!(&buf, &want_ieee, "IEEE {} len {}", b.name(), len);
        }
    }
}
