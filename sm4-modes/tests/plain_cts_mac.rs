//! The classic-mode aliases, CBC-CS3 and the MACs: draft-ribose-cfrg-sm4-10 Appendix A.2
//! vectors, OpenSSL 3.0 differentials (SM4-ECB/CBC/CFB/OFB/CTR and CMAC over SM4-CBC exist
//! there), and RustCrypto compositions.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use aead::{AeadInOut, KeyInit};
use cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, StreamCipher};
use cmac::digest::Mac;
#[cfg(target_arch = "x86_64")]
use openssl::symm::{Cipher, Crypter, Mode};
use proptest::prelude::*;
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{
    CtsTooShort, Sm4CbcCts, Sm4CbcDec, Sm4CbcEnc, Sm4CfbDec, Sm4CfbEnc, Sm4Cmac, Sm4Ctr, Sm4EcbEnc,
    Sm4Gcm, Sm4Gmac, Sm4Ofb,
};

// draft-ribose-cfrg-sm4-10 Appendix A.2, example 1 of each mode.
#[path = "support/draft_ribose.rs"]
mod draft_ribose;
use draft_ribose::{CBC_CT, CFB_CT, CTR_CT, CTR_PT, ECB_CT, IV, KEY, OFB_CT, PT};

/// Whole blocks through a block mode's encryption.
fn enc(c: impl BlockModeEncrypt, mut b: [u8; 32]) -> [u8; 32] {
    c.encrypt_padded::<cipher::block_padding::NoPadding>(&mut b, 32)
        .unwrap();
    b
}

/// Whole blocks through a block mode's decryption.
fn dec(c: impl BlockModeDecrypt, mut b: [u8; 32]) -> [u8; 32] {
    c.decrypt_padded::<cipher::block_padding::NoPadding>(&mut b)
        .unwrap();
    b
}

#[test]
fn draft_ribose_a2_vectors() {
    let (key, iv) = (&KEY.into(), &IV.into());
    assert_eq!(enc(Sm4EcbEnc::new(key), PT), ECB_CT);
    assert_eq!(enc(Sm4CbcEnc::new(key, iv), PT), CBC_CT);
    assert_eq!(dec(Sm4CbcDec::new(key, iv), CBC_CT), PT);
    let mut b = PT;
    Sm4Ofb::new(key, iv).apply_keystream(&mut b);
    assert_eq!(b, OFB_CT);
    assert_eq!(enc(Sm4CfbEnc::new(key, iv), PT), CFB_CT);
    assert_eq!(dec(Sm4CfbDec::new(key, iv), CFB_CT), PT);
    let mut b = CTR_PT;
    Sm4Ctr::new(key, iv).apply_keystream(&mut b);
    assert_eq!(b, CTR_CT);
}

#[cfg(target_arch = "x86_64")]
fn openssl(c: Cipher, key: &[u8], iv: Option<&[u8]>, data: &[u8]) -> Vec<u8> {
    let mut cr = Crypter::new(c, Mode::Encrypt, key, iv).unwrap();
    cr.pad(false);
    let mut out = vec![0u8; data.len() + 16];
    let n = cr.update(data, &mut out).unwrap();
    let m = cr.finalize(&mut out[n..]).unwrap();
    out.truncate(n + m);
    out
}

#[cfg(target_arch = "x86_64")]
fn openssl_cmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let pkey = openssl::pkey::PKey::cmac(&Cipher::sm4_cbc(), key).unwrap();
    let mut s = openssl::sign::Signer::new_without_digest(&pkey).unwrap();
    s.update(data).unwrap();
    s.sign_to_vec().unwrap()
}

/// Our SM4-CMAC tag of `data`.
fn cmac_ours(key: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut ours = Sm4Cmac::new(&(*key).into());
    ours.update(data);
    ours.finalize().into_bytes().into()
}

/// CBC-CS3 from its definition (SP 800-38A Addendum): CBC over the zero-padded message,
/// then the last two blocks swapped and the final one cut to the partial length.
fn cs3_model(key: &[u8; 16], iv: &[u8; 16], pt: &[u8]) -> Vec<u8> {
    use rustcrypto_sm4::cipher::{BlockModeEncrypt as _, KeyIvInit as _};
    let n = pt.len().div_ceil(16);
    let r = pt.len() - 16 * (n - 1);
    let mut padded = pt.to_vec();
    padded.resize(16 * n, 0);
    cbc::Encryptor::<rustcrypto_sm4::Sm4>::new(&(*key).into(), &(*iv).into())
        .encrypt_padded::<cipher::block_padding::NoPadding>(&mut padded, 16 * n)
        .unwrap();
    if n == 1 {
        return padded;
    }
    let mut out = padded[..16 * (n - 2)].to_vec();
    out.extend_from_slice(&padded[16 * (n - 1)..]);
    out.extend_from_slice(&padded[16 * (n - 2)..16 * (n - 2) + r]);
    out
}

#[test]
fn cts_errors() {
    let cts = Sm4CbcCts::new(&KEY.into());
    for len in 0..16 {
        let mut b = vec![1u8; len];
        assert_eq!(cts.encrypt(&IV, &mut b), Err(CtsTooShort));
        assert_eq!(cts.decrypt(&IV, &mut b), Err(CtsTooShort));
        assert_eq!(b, vec![1u8; len]);
    }
}

#[test]
fn gmac_is_gcm_with_empty_text() {
    let gmac = Sm4Gmac::new(&KEY.into());
    let gcm = Sm4Gcm::new(&KEY.into());
    let nonce = [3u8; 12];
    for len in [0usize, 1, 16, 100, 1000] {
        let data = vec![0x5au8; len];
        let tag = gmac.compute(&nonce, &data);
        let want = gcm
            .encrypt_inout_detached(&nonce.into(), &data, (&mut [][..]).into())
            .unwrap();
        assert_eq!(tag[..], want[..]);
        // Independent: RustCrypto's composition.
        let rc =
            aes_gcm::AesGcm::<rustcrypto_sm4::Sm4, aes_gcm::aead::consts::U12>::new(&KEY.into());
        let want = aes_gcm::aead::AeadInOut::encrypt_inout_detached(
            &rc,
            &nonce.into(),
            &data,
            (&mut [][..]).into(),
        )
        .unwrap();
        assert_eq!(tag[..], want[..]);
        assert!(gmac.verify(&nonce, &data, &tag).is_ok());
        let mut bad = tag;
        bad[3] ^= 0x10;
        assert!(gmac.verify(&nonce, &data, &bad).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn diff_openssl_plain_modes(key in any::<[u8; 16]>(), iv in any::<[u8; 16]>(), blocks in 0usize..40, extra in 0usize..16) {
        let pt: Vec<u8> = (0..16 * blocks).map(|i| i as u8 ^ key[0]).collect();
        let mut b = pt.clone();
        Sm4EcbEnc::new(&key.into()).encrypt_padded::<cipher::block_padding::NoPadding>(&mut b, pt.len()).unwrap();
        prop_assert_eq!(&b, &openssl(Cipher::sm4_ecb(), &key, None, &pt));
        let mut b = pt.clone();
        Sm4CbcEnc::new(&key.into(), &iv.into()).encrypt_padded::<cipher::block_padding::NoPadding>(&mut b, pt.len()).unwrap();
        prop_assert_eq!(&b, &openssl(Cipher::sm4_cbc(), &key, Some(&iv), &pt));
        // Stream-like modes at any length.
        let pt2: Vec<u8> = (0..16 * blocks + extra).map(|i| i as u8).collect();
        let mut b = pt2.clone();
        Sm4Ctr::new(&key.into(), &iv.into()).apply_keystream(&mut b);
        prop_assert_eq!(&b, &openssl(Cipher::sm4_ctr(), &key, Some(&iv), &pt2));
        let mut b = pt2.clone();
        Sm4Ofb::new(&key.into(), &iv.into()).apply_keystream(&mut b);
        prop_assert_eq!(&b, &openssl(Cipher::sm4_ofb(), &key, Some(&iv), &pt2));
        let mut b = pt.clone();
        Sm4CfbEnc::new(&key.into(), &iv.into()).encrypt_padded::<cipher::block_padding::NoPadding>(&mut b, pt.len()).unwrap();
        prop_assert_eq!(&b, &openssl(Cipher::sm4_cfb128(), &key, Some(&iv), &pt));
    }

    #[cfg(target_arch = "x86_64")] // OpenSSL is linked on the development host only
    #[test]
    fn diff_openssl_cmac(key in any::<[u8; 16]>(), data in proptest::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(&cmac_ours(&key, &data)[..], &openssl_cmac(&key, &data)[..]);
    }

    #[test]
    fn diff_rustcrypto_cmac(key in any::<[u8; 16]>(), data in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut theirs = <cmac::Cmac<rustcrypto_sm4::Sm4> as rustcrypto_sm4::cipher::KeyInit>::new(&key.into());
        cmac::digest::Update::update(&mut theirs, &data);
        prop_assert_eq!(&cmac_ours(&key, &data)[..], &cmac::digest::FixedOutput::finalize_fixed(theirs)[..]);
    }

    #[test]
    fn diff_model_cts_cs3(key in any::<[u8; 16]>(), iv in any::<[u8; 16]>()) {
        let all: Vec<_> = Backend::available()
            .map(|b| (b.name(), Sm4CbcCts::from_cipher(Sm4::with_backend(&key.into(), b).unwrap())))
            .collect();
        for len in (16..=300usize).chain([1024, 1029, 4096 + 7]) {
            let pt: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(3) ^ iv[0]).collect();
            let want = cs3_model(&key, &iv, &pt);
            for (name, cts) in &all {
                let mut b = pt.clone();
                cts.encrypt(&iv, &mut b).unwrap();
                prop_assert_eq!(&b, &want, "{} len {}", name, len);
                cts.decrypt(&iv, &mut b).unwrap();
                prop_assert_eq!(&b, &pt, "{} len {}", name, len);
            }
        }
    }
}
