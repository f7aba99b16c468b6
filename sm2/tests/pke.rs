//! SM2 public-key encryption: the GB/T 32918.5 / GM/T 0003.5 Annex vector on the recommended
//! curve, layouts, ASN.1, tampering, and differential tests against RustCrypto `sm2` 0.14 and
//! OpenSSL 3.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use hex_literal::hex;
use proptest::prelude::*;
use rand::{SeedableRng, rngs::StdRng};
use shangmi_sm2::pke::{self, DecryptingKey, EncryptingKey, Layout};

// GB/T 32918.5-2017 / GM/T 0003.5-2012 Annex (recommended curve), message
// "encryption standard", the same key and k as the signature example; the ASN.1 ciphertext is
// the one in OpenSSL's test/sm2_internal_test.c.
const D: [u8; 32] = hex!("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
const K: [u8; 32] = hex!("59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21");
const MSG: &[u8] = b"encryption standard";
const CT_DER: [u8; 126] = hex!(
    "307C"
    "022004EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "022100E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "042059983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "041321886CA989CA9C7D58087307CA93092D651EFA"
);

const LAYOUTS: [Layout; 4] = [
    Layout::C1C3C2,
    Layout::C1C2C3,
    Layout::C1C3C2Raw,
    Layout::C1C2C3Raw,
];

/// A seeded generator: the tests need repeatable randomness, not secrecy.
fn seeded(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

#[test]
fn gbt32918_5_encryption_vector() {
    let dk = DecryptingKey::from_bytes(&D).unwrap();
    let ct = dk
        .encrypting_key()
        .encrypt_with_nonce(&K, MSG, Layout::C1C3C2)
        .unwrap();
    assert_eq!(pke::c1c3c2_to_der(&ct).unwrap(), CT_DER);
    assert_eq!(pke::der_to_c1c3c2(&CT_DER).unwrap(), ct);
    assert_eq!(dk.decrypt_der(&CT_DER).unwrap(), MSG);
    assert_eq!(dk.decrypt(&ct, Layout::C1C3C2).unwrap(), MSG);
}

#[test]
fn all_layouts_round_trip_and_convert() {
    let dk = DecryptingKey::from_bytes(&D).unwrap();
    let mut rng = seeded(7);
    for msg in [
        &b""[..],
        b"a",
        &[0x5Au8; 32][..],
        &[1u8; 33][..],
        &[9u8; 1000][..],
    ] {
        for layout in LAYOUTS {
            let ct = dk.encrypting_key().encrypt(&mut rng, msg, layout).unwrap();
            assert_eq!(dk.decrypt(&ct, layout).unwrap(), msg);
            for other in LAYOUTS {
                let conv = pke::convert(&ct, layout, other).unwrap();
                assert_eq!(dk.decrypt(&conv, other).unwrap(), msg);
                if other != layout && msg.len() > 1 {
                    assert!(dk.decrypt(&conv, layout).is_err());
                }
            }
        }
        let der = dk.encrypting_key().encrypt_der(&mut rng, msg).unwrap();
        assert_eq!(dk.decrypt_der(&der).unwrap(), msg);
    }
}

#[test]
fn rejects_bad_ciphertexts() {
    let dk = DecryptingKey::from_bytes(&D).unwrap();
    let ct = dk
        .encrypting_key()
        .encrypt_with_nonce(&K, MSG, Layout::C1C3C2)
        .unwrap();
    for i in 0..ct.len() {
        let mut bad = ct.clone();
        bad[i] ^= 0x01;
        assert!(dk.decrypt(&bad, Layout::C1C3C2).is_err(), "byte {i}");
    }
    assert!(dk.decrypt(&ct[..96], Layout::C1C3C2).is_err());
    assert!(dk.decrypt(&[], Layout::C1C2C3Raw).is_err());
    // Another key cannot decrypt.
    let other = DecryptingKey::from_bytes(&[3u8; 32]).unwrap();
    assert!(other.decrypt(&ct, Layout::C1C3C2).is_err());
    // Non-minimal DER lengths and trailing bytes.
    let mut trailing = CT_DER.to_vec();
    trailing.push(0);
    assert!(dk.decrypt_der(&trailing).is_err());
    let mut long_form = vec![0x30, 0x81, 0x7C];
    long_form.extend_from_slice(&CT_DER[2..]);
    assert!(dk.decrypt_der(&long_form).is_err());
}

#[test]
fn rustcrypto_interop() {
    use rustcrypto_sm2::pke as rc;
    let dk = DecryptingKey::from_bytes(&D).unwrap();
    let rc_dk = rc::DecryptingKey::from_bytes(&D.into()).unwrap();
    let rc_dk_old = rc::DecryptingKey::new_with_mode(*rc_dk.as_nonzero_scalar(), rc::Mode::C1C2C3);
    let mut rng = seeded(11);
    for len in [1usize, 31, 32, 33, 200] {
        let msg = vec![len as u8; len];
        let ours = dk
            .encrypting_key()
            .encrypt(&mut rng, &msg, Layout::C1C3C2)
            .unwrap();
        assert_eq!(rc_dk.decrypt(&ours).unwrap(), msg);
        let ours_old = dk
            .encrypting_key()
            .encrypt(&mut rng, &msg, Layout::C1C2C3)
            .unwrap();
        assert_eq!(rc_dk_old.decrypt(&ours_old).unwrap(), msg);
        let theirs = rc_dk.encrypting_key().encrypt(&mut rng, &msg).unwrap();
        assert_eq!(dk.decrypt(&theirs, Layout::C1C3C2).unwrap(), msg);
        let theirs_der = rc_dk.encrypting_key().encrypt_der(&mut rng, &msg).unwrap();
        assert_eq!(dk.decrypt_der(&theirs_der).unwrap(), msg);
    }
}

#[test]
#[cfg(target_arch = "x86_64")] // OpenSSL is linked on the development host only
fn openssl_interop() {
    use openssl::pkey::PKey;
    use openssl::pkey_ctx::PkeyCtx;
    use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
    let dk = DecryptingKey::from_bytes(&D).unwrap();
    let secret = shangmi_sm2::SecretKey::from_bytes(&D.into()).unwrap();
    let key = PKey::private_key_from_pkcs8(secret.to_pkcs8_der().unwrap().as_bytes()).unwrap();
    let mut rng = seeded(13);
    for len in [1usize, 32, 77] {
        let msg = vec![0xA5 ^ len as u8; len];
        // OpenSSL encrypts (ASN.1 form), we decrypt.
        let mut ctx = PkeyCtx::new(&key).unwrap();
        ctx.encrypt_init().unwrap();
        let mut ct = Vec::new();
        ctx.encrypt_to_vec(&msg, &mut ct).unwrap();
        assert_eq!(dk.decrypt_der(&ct).unwrap(), msg);
        // We encrypt, OpenSSL decrypts.
        let ours = dk.encrypting_key().encrypt_der(&mut rng, &msg).unwrap();
        let mut ctx = PkeyCtx::new(&key).unwrap();
        ctx.decrypt_init().unwrap();
        let mut pt = Vec::new();
        ctx.decrypt_to_vec(&ours, &mut pt).unwrap();
        assert_eq!(pt, msg);
    }
}

#[test]
fn encrypting_key_from_sec1() {
    let dk = DecryptingKey::from_bytes(&D).unwrap();
    use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
    let enc = dk.encrypting_key().public_key().to_sec1_point(true);
    let ek = EncryptingKey::from_sec1_bytes(enc.as_bytes()).unwrap();
    let ct = ek.encrypt_with_nonce(&K, MSG, Layout::C1C3C2).unwrap();
    assert_eq!(dk.decrypt(&ct, Layout::C1C3C2).unwrap(), MSG);
    assert!(EncryptingKey::from_sec1_bytes(&[4u8; 65]).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn encrypt_decrypt_round_trip(seed in any::<u64>(), msg in proptest::collection::vec(any::<u8>(), 0..300), flip in any::<usize>()) {
        let mut d = [0u8; 32];
        d[..8].copy_from_slice(&seed.to_be_bytes());
        d[31] |= 1;
        let dk = DecryptingKey::from_bytes(&d).unwrap();
        let mut rng = seeded(seed);
        let ct = dk.encrypting_key().encrypt(&mut rng, &msg, Layout::C1C3C2).unwrap();
        prop_assert_eq!(&dk.decrypt(&ct, Layout::C1C3C2).unwrap(), &msg);
        let mut bad = ct.clone();
        let i = flip % bad.len();
        bad[i] ^= 0x80;
        prop_assert!(dk.decrypt(&bad, Layout::C1C3C2).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// What the ASN.1 parser accepts re-encodes to the same bytes (it is strict DER).
    #[test]
    fn der_ciphertext_parser_round_trips(len in 0usize..300, seed in any::<u64>(), cut in any::<usize>()) {
        let dk = DecryptingKey::from_bytes(&D).unwrap();
        let mut rng = seeded(seed);
        let msg = vec![0x42u8; len];
        let der = dk.encrypting_key().encrypt_der(&mut rng, &msg).unwrap();
        let raw = pke::der_to_c1c3c2(&der).unwrap();
        prop_assert_eq!(pke::c1c3c2_to_der(&raw).unwrap(), der.clone());
        let truncated = &der[..cut % der.len()];
        prop_assert!(pke::der_to_c1c3c2(truncated).is_err());
    }
}
