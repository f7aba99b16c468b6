//! SM3 and SM4 inside the test token (`testdevice/pkcs11`): the published vectors, then
//! any input equal to shangmi's software SM3 (`shangmi-sm3`) and SM4-ECB/CBC
//! (`shangmi-sm4-modes`); typed refusals for partial blocks, missing mechanisms, the wrong
//! kind of key, no login.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use hex_literal::hex;
use proptest::prelude::*;
use shangmi_pkcs11::{
    KeyOptions, Mechanisms, Pkcs11Error, Pkcs11Module, Pkcs11SecretKey, Pkcs11Uri,
};
use shangmi_sm3::Digest;
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyInit, KeyIvInit};
use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc, Sm4EcbDec, Sm4EcbEnc};
use std::sync::OnceLock;
use support::{PIN, label, module, object};

/// GB/T 32907-2016 Appendix A.1: key and plaintext `0123456789abcdeffedcba9876543210`, the
/// token's `sm4-key`.
const KEY: [u8; 16] = hex!("0123456789abcdeffedcba9876543210");

fn sm4_key() -> &'static Pkcs11SecretKey {
    static KEY: OnceLock<Pkcs11SecretKey> = OnceLock::new();
    KEY.get_or_init(|| {
        let m = Pkcs11Module::load(module()).unwrap();
        Pkcs11SecretKey::open(object(&m, 0, &label("sm4-key"), PIN), KeyOptions::default()).unwrap()
    })
}

fn software_ecb(encrypt: bool, data: &[u8]) -> Vec<u8> {
    let mut buf = data.to_vec();
    let blocks = buf.len();
    if encrypt {
        Sm4EcbEnc::new(&KEY.into())
            .encrypt_padded::<shangmi_sm4_modes::cipher::block_padding::NoPadding>(&mut buf, blocks)
            .unwrap()
            .to_vec()
    } else {
        Sm4EcbDec::new(&KEY.into())
            .decrypt_padded::<shangmi_sm4_modes::cipher::block_padding::NoPadding>(&mut buf)
            .unwrap()
            .to_vec()
    }
}

fn software_cbc(encrypt: bool, iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut buf = data.to_vec();
    let blocks = buf.len();
    if encrypt {
        Sm4CbcEnc::new(&KEY.into(), iv.into())
            .encrypt_padded::<shangmi_sm4_modes::cipher::block_padding::NoPadding>(&mut buf, blocks)
            .unwrap()
            .to_vec()
    } else {
        Sm4CbcDec::new(&KEY.into(), iv.into())
            .decrypt_padded::<shangmi_sm4_modes::cipher::block_padding::NoPadding>(&mut buf)
            .unwrap()
            .to_vec()
    }
}

#[test]
fn sm3_in_the_token_gives_the_published_digests() {
    let m = Pkcs11Module::load(module()).unwrap();
    let sansec = Mechanisms::SANSEC;
    // GB/T 32905-2016 Appendix A.1 ("abc") and A.2 ("abcd" × 16).
    assert_eq!(
        m.sm3(0, &sansec, b"abc").unwrap(),
        hex!("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
    );
    assert_eq!(
        m.sm3(0, &sansec, &b"abcd".repeat(16)).unwrap(),
        hex!("debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732")
    );
    // In parts (C_DigestUpdate): the same digests, however the input is cut.
    assert_eq!(
        m.sm3_parts(0, &sansec, [&b"ab"[..], b"", b"c"]).unwrap(),
        hex!("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
    );
    let long = b"abcd".repeat(16);
    assert_eq!(
        m.sm3_parts(0, &sansec, long.chunks(7)).unwrap(),
        hex!("debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732")
    );
    // No login needed; the other token digests too.
    assert_eq!(
        m.sm3(1, &sansec, b"").unwrap(),
        <[u8; 32]>::from(shangmi_sm3::Sm3::digest(b""))
    );
    // A configuration without the mechanism, or with one the token lacks: typed errors.
    let none = Mechanisms {
        sm3: None,
        ..Mechanisms::SANSEC
    };
    assert!(matches!(
        m.sm3(0, &none, b"abc"),
        Err(Pkcs11Error::Unsupported(_))
    ));
    let e = m.sm3(0, &Mechanisms::LUNA, b"abc").unwrap_err();
    assert_eq!(
        e.code().and_then(|c| c.name()),
        Some("CKR_MECHANISM_INVALID"),
        "{e:?}"
    );
}

#[test]
fn sm4_in_the_token_gives_the_published_ciphertexts() {
    let key = sm4_key();
    // GB/T 32907-2016 Appendix A.1: one block.
    let ct = key.encrypt_ecb(&KEY).unwrap();
    assert_eq!(ct, hex!("681edf34d206965e86b3e94f536e4246"));
    assert_eq!(key.decrypt_ecb(&ct).unwrap(), KEY);
    // CBC with a zero IV on one block is ECB of that block.
    assert_eq!(key.encrypt_cbc(&[0; 16], &KEY).unwrap(), ct);
    // draft-ribose-cfrg-sm4-10 A.2.2.1 (SM4-CBC): same key, IV 000102…0f.
    let iv = hex!("000102030405060708090a0b0c0d0e0f");
    let pt = hex!("aaaaaaaabbbbbbbbccccccccddddddddeeeeeeeeffffffffaaaaaaaabbbbbbbb");
    let ct = key.encrypt_cbc(&iv, &pt).unwrap();
    assert_eq!(
        ct,
        hex!("78ebb11cc40b0a48312aaeb2040244cb4cb7016951909226979b0d15dc6a8f6d")
    );
    assert_eq!(key.decrypt_cbc(&iv, &ct).unwrap(), pt);
    assert!(key.encrypt_ecb(&[]).unwrap().is_empty());
}

#[test]
fn sm4_refusals_are_typed() {
    let key = sm4_key();
    for bad in [1, 15, 17, 33] {
        assert!(matches!(
            key.encrypt_ecb(&vec![0; bad]),
            Err(Pkcs11Error::InvalidInput(_))
        ));
        assert!(matches!(
            key.decrypt_cbc(&[0; 16], &vec![0; bad]),
            Err(Pkcs11Error::InvalidInput(_))
        ));
    }
    let m = Pkcs11Module::load(module()).unwrap();
    // The Luna numbers are not this token's: the token refuses the mechanism.
    let luna = Pkcs11SecretKey::open(
        object(&m, 0, &label("sm4-key"), PIN),
        KeyOptions {
            mechanisms: Mechanisms::LUNA,
            sessions: 1,
            ..KeyOptions::default()
        },
    )
    .unwrap();
    let e = luna.encrypt_ecb(&[0; 16]).unwrap_err();
    assert_eq!(
        e.code().and_then(|c| c.name()),
        Some("CKR_MECHANISM_INVALID"),
        "{e:?}"
    );
    let no_cbc = Pkcs11SecretKey::open(
        object(&m, 0, &label("sm4-key"), PIN),
        KeyOptions {
            mechanisms: Mechanisms {
                sm4_cbc: None,
                ..Mechanisms::SANSEC
            },
            sessions: 1,
            ..KeyOptions::default()
        },
    )
    .unwrap();
    assert!(matches!(
        no_cbc.encrypt_cbc(&[0; 16], &[0; 16]),
        Err(Pkcs11Error::Unsupported(_))
    ));
    // An SM2 key is not a secret key; a missing label is not found; a URI naming a
    // private key is refused before the module is asked.
    assert!(matches!(
        Pkcs11SecretKey::open(
            object(&m, 0, &label("tlcp-sign"), PIN),
            KeyOptions::default()
        ),
        Err(Pkcs11Error::NotFound { .. })
    ));
    let uri = |tail: &str| {
        Pkcs11Uri::parse(&format!(
            "pkcs11:token=shangmi-p11;{tail}?module-path={}&pin-value={PIN}",
            module().display()
        ))
        .unwrap()
    };
    assert!(matches!(
        uri("object=tlcp-sign;type=private").open_secret_key(None),
        Err(Pkcs11Error::Uri(_))
    ));
    // By ID through a URI.
    let by_id = uri("id=%10;type=secret-key").open_secret_key(None).unwrap();
    assert_eq!(
        by_id.encrypt_ecb(&KEY).unwrap(),
        hex!("681edf34d206965e86b3e94f536e4246")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sm3_in_the_token_equals_software(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        let m = Pkcs11Module::load(module()).unwrap();
        let want: [u8; 32] = shangmi_sm3::Sm3::digest(&data).into();
        prop_assert_eq!(m.sm3(0, &Mechanisms::SANSEC, &data).unwrap(), want);
        let cut = data.len() / 3;
        prop_assert_eq!(
            m.sm3_parts(0, &Mechanisms::SANSEC, [&data[..cut], &data[cut..]]).unwrap(),
            want
        );
    }

    #[test]
    fn sm4_in_the_token_equals_software(
        blocks in 0usize..12,
        seed in any::<u64>(),
        iv in any::<[u8; 16]>(),
    ) {
        let data: Vec<u8> = (0..blocks * 16)
            .map(|i| (seed.rotate_left(i as u32 % 64) as u8) ^ i as u8)
            .collect();
        let key = sm4_key();
        let ecb = key.encrypt_ecb(&data).unwrap();
        prop_assert_eq!(&ecb, &software_ecb(true, &data));
        prop_assert_eq!(key.decrypt_ecb(&ecb).unwrap(), data.clone());
        prop_assert_eq!(software_ecb(false, &ecb), data.clone());
        let cbc = key.encrypt_cbc(&iv, &data).unwrap();
        prop_assert_eq!(&cbc, &software_cbc(true, &iv, &data));
        prop_assert_eq!(key.decrypt_cbc(&iv, &cbc).unwrap(), data.clone());
        prop_assert_eq!(software_cbc(false, &iv, &cbc), data);
    }
}
