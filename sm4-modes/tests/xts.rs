//! SM4-XTS, both standards: published vectors, errors, and the IEEE flavour against
//! RustCrypto's `xts_mode::Xts128<sm4::Sm4>` on every SM4 engine, every length 16..=300.
//! (OpenSSL 3.0 has no SM4-XTS; it arrived in 3.2 with `xts_standard`.)

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm4::Backend;
use shangmi_sm4_modes::{GbT17964, Ieee1619, Sm4Xts, Sm4XtsGb, Sm4XtsIeee, XtsError, XtsStandard};

#[path = "support/sp800_38a.rs"]
mod sp800_38a;

// OpenSSL test/recipes/30-test_evp_data/evpciph_sm4.txt, "SM4 XTS test vectors, the XTS
// mode is standardized in GB/T 17964-2021 by default" and "... used in IEEE Std 1619-2007".
// Their key is SP 800-38A's key and IV, their plaintext the first 56 bytes of its plaintext.
const KEY: [u8; 32] = sp800_38a::key_then_iv();
const IV: [u8; 16] = hex!("F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF");
const PT: [u8; 56] = sp800_38a::pt_prefix();
const CT_GB: [u8; 56] = hex!(
    "E9538251C71D7B80BBE4483FEF497BD12C5C581BD6242FC51E08964FB4F60FDB"
    "0BA42F63499279213D318D2C11F6886E903BE7F93A1B3479"
);
const CT_IEEE: [u8; 56] = hex!(
    "E9538251C71D7B80BBE4483FEF497BD1B3DB1A3E60408C575D63FF7DB39F8326"
    "0869F9E2585FEC9F0B863BF8FD784B8627D16C0DB6D2CFC7"
);

/// The vector of standard `S` on engine `b`: PT encrypts to `ct` and back.
fn vector<S: XtsStandard>(b: Backend, ct: &[u8]) {
    let x = Sm4Xts::<S>::with_backend(&KEY, b).unwrap();
    let mut buf = PT;
    x.encrypt(&IV, &mut buf).unwrap();
    assert_eq!(buf, ct, "{} {}", core::any::type_name::<S>(), b.name());
    x.decrypt(&IV, &mut buf).unwrap();
    assert_eq!(buf, PT);
}

#[test]
fn openssl_evpciph_sm4_vectors() {
    for b in Backend::available() {
        vector::<GbT17964>(b, &CT_GB);
        vector::<Ieee1619>(b, &CT_IEEE);
    }
}

#[test]
fn errors() {
    assert_eq!(
        Sm4XtsIeee::new(&[7u8; 32]).unwrap_err(),
        XtsError::EqualKeyHalves
    );
    assert_eq!(
        Sm4XtsGb::new(&[7u8; 32]).unwrap_err(),
        XtsError::EqualKeyHalves
    );
    let xts = Sm4XtsIeee::new(&KEY).unwrap();
    for len in 0..16 {
        let mut buf = vec![0x33u8; len];
        assert_eq!(xts.encrypt(&IV, &mut buf), Err(XtsError::DataUnitTooShort));
        assert_eq!(xts.decrypt(&IV, &mut buf), Err(XtsError::DataUnitTooShort));
        assert_eq!(buf, vec![0x33u8; len]);
    }
    let mut big = vec![0u8; (1 << 24) + 1];
    assert_eq!(xts.encrypt(&IV, &mut big), Err(XtsError::DataUnitTooLong));
    assert!(xts.encrypt(&IV, &mut big[..1 << 24]).is_ok());
}

#[test]
fn sector_tweak_is_little_endian() {
    assert_eq!(
        Sm4XtsIeee::sector_tweak(0x0102),
        hex!("02010000000000000000000000000000")
    );
    let xts = Sm4XtsIeee::new(&KEY).unwrap();
    let (mut a, mut b) = ([5u8; 512], [5u8; 512]);
    xts.encrypt_sector(0x0102, &mut a).unwrap();
    xts.encrypt(&hex!("02010000000000000000000000000000"), &mut b)
        .unwrap();
    assert_eq!(a, b);
}

/// GB/T 17964-2021 XTS encryption written from the standard, one block at a time on
/// RustCrypto's SM4: the tweak is a big-endian integer in GCM's reflected bit order,
/// multiplied by α as a right shift with 0xE1 << 120 folded in; ciphertext stealing as in
/// IEEE Std 1619 §5.3.2.
fn gb_reference(key: &[u8; 32], tweak: &[u8; 16], pt: &[u8]) -> Vec<u8> {
    use rustcrypto_sm4::cipher::{BlockCipherEncrypt as _, KeyInit as _};
    let k1 = rustcrypto_sm4::Sm4::new(&<[u8; 16]>::try_from(&key[..16]).unwrap().into());
    let k2 = rustcrypto_sm4::Sm4::new(&<[u8; 16]>::try_from(&key[16..]).unwrap().into());
    let enc = |t: u128, b: &[u8]| -> [u8; 16] {
        let tw = t.to_be_bytes();
        let mut x: [u8; 16] = core::array::from_fn(|i| b[i] ^ tw[i]);
        k1.encrypt_block((&mut x).into());
        core::array::from_fn(|i| x[i] ^ tw[i])
    };
    let mul = |t: u128| (t >> 1) ^ if t & 1 == 1 { 0xe1 << 120 } else { 0 };
    let mut t0 = *tweak;
    k2.encrypt_block((&mut t0).into());
    let mut t = u128::from_be_bytes(t0);
    let (n, r) = (pt.len() / 16, pt.len() % 16);
    let full = if r == 0 { n } else { n - 1 };
    let mut out = Vec::with_capacity(pt.len());
    for i in 0..full {
        out.extend_from_slice(&enc(t, &pt[16 * i..16 * i + 16]));
        t = mul(t);
    }
    if r != 0 {
        let cc = enc(t, &pt[16 * full..16 * full + 16]);
        let mut pp = [0u8; 16];
        pp[..r].copy_from_slice(&pt[16 * n..]);
        pp[r..].copy_from_slice(&cc[r..]);
        out.extend_from_slice(&enc(mul(t), &pp));
        out.extend_from_slice(&cc[..r]);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn diff_rustcrypto_xts_mode_ieee(key in any::<[u8; 32]>(), tweak in any::<[u8; 16]>()) {
        prop_assume!(key[..16] != key[16..]);
        use rustcrypto_sm4::cipher::KeyInit as _;
        let theirs = xts_mode::Xts128::new(
            rustcrypto_sm4::Sm4::new(&<[u8; 16]>::try_from(&key[..16]).unwrap().into()),
            rustcrypto_sm4::Sm4::new(&<[u8; 16]>::try_from(&key[16..]).unwrap().into()),
        );
        let ours: Vec<_> = Backend::available()
            .map(|b| (b.name(), Sm4XtsIeee::with_backend(&key, b).unwrap(), Sm4XtsGb::with_backend(&key, b).unwrap()))
            .collect();
        for len in (16..=300usize).chain([1024, 1040 + 5, 4096, 8191]) {
            let pt: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(7) ^ tweak[0]).collect();
            let mut want = pt.clone();
            theirs.encrypt_sector(&mut want, tweak.into());
            let want_gb = gb_reference(&key, &tweak, &pt);
            for (name, ieee, gb) in &ours {
                let mut buf = pt.clone();
                ieee.encrypt(&tweak, &mut buf).unwrap();
                prop_assert_eq!(&buf, &want, "IEEE {} len {}", name, len);
                ieee.decrypt(&tweak, &mut buf).unwrap();
                prop_assert_eq!(&buf, &pt);
                let mut buf = pt.clone();
                gb.encrypt(&tweak, &mut buf).unwrap();
                prop_assert_eq!(&buf, &want_gb, "GB {} len {}", name, len);
                gb.decrypt(&tweak, &mut buf).unwrap();
                prop_assert_eq!(&buf, &pt);
            }
        }
    }
}
