//! Published SM2 vectors on the recommended curve (GB/T 32918.5-2017 parameters).

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use hex_literal::hex;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::signature::{Signer, Verifier, hazmat::PrehashVerifier};

// GB/T 32918.5-2017 / GM/T 0003.5-2012 Annex A (signature example on the recommended curve;
// the same numbers are in OpenSSL's test/sm2_internal_test.c). ID "1234567812345678",
// message "message digest".
const D: [u8; 32] = hex!("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
const QX: [u8; 32] = hex!("09F9DF311E5421A150DD7D161E4BC5C672179FAD1833FC076BB08FF356F35020");
const QY: [u8; 32] = hex!("CCEA490CE26775A52DC6EA718CC1AA600AED05FBF35E084A6632F6072DA9AD13");
const K: [u8; 32] = hex!("59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21");
const ZA: [u8; 32] = hex!("B2E14C5C79C6DF5B85F4FE7ED8DB7A262B9DA7E07CCB0EA9F4747B8CCDA8A4F3");
const E: [u8; 32] = hex!("F0B43E94BA45ACCAACE692ED534382EB17E6AB5A19CE7B31F4486FDFC0D28640");
const R: [u8; 32] = hex!("F5A03B0648D2C4630EEAC513E1BB81A15944DA3827D5B74143AC7EACEEE720B3");
const S: [u8; 32] = hex!("B1B6AA29DF212FD8763182BC0D421CA1BB9038FD1F7F42D4840B69C485BBC1AA");
const MSG: &[u8] = b"message digest";

fn uncompressed() -> [u8; 65] {
    let mut p = [4u8; 65];
    p[1..33].copy_from_slice(&QX);
    p[33..].copy_from_slice(&QY);
    p
}

#[test]
fn gbt32918_5_public_key() {
    let sk = SigningKey::from_bytes(&D.into()).unwrap();
    let enc = sk.verifying_key().to_sec1_point(false);
    assert_eq!(enc.as_bytes(), &uncompressed()[..]);
}

#[test]
fn gbt32918_5_za_and_e() {
    let sk = SigningKey::from_bytes(&D.into()).unwrap();
    assert_eq!(sk.verifying_key().za(), ZA);
    assert_eq!(sk.verifying_key().hash_message(MSG), E);
}

#[test]
fn gbt32918_5_sign_with_published_nonce() {
    let sk = SigningKey::from_bytes(&D.into()).unwrap();
    let sig = sk.sign_e_with_nonce(&E, &K.into()).unwrap();
    assert_eq!(sig.r(), &R);
    assert_eq!(sig.s(), &S);
}

#[test]
fn gbt32918_5_verify() {
    let vk = VerifyingKey::from_sec1_bytes(&uncompressed()).unwrap();
    let sig = Signature::from_scalars(R, S).unwrap();
    vk.verify(MSG, &sig).unwrap();
    vk.verify_prehash(&E, &sig).unwrap();
    assert!(vk.verify(b"message digesT", &sig).is_err());
    let mut bad = sig.to_bytes();
    bad[63] ^= 1;
    assert!(
        vk.verify(MSG, &Signature::from_bytes(&bad).unwrap())
            .is_err()
    );
    // Same key under another identifier: Z_A changes, so the signature fails.
    let other =
        VerifyingKey::from_sec1_bytes_with_id(&uncompressed(), b"1234567812345679").unwrap();
    assert!(other.verify(MSG, &sig).is_err());
}

#[test]
fn compressed_point_round_trip() {
    let sk = SigningKey::from_bytes(&D.into()).unwrap();
    let c = sk.verifying_key().to_sec1_point(true);
    assert_eq!(c.as_bytes().len(), 33);
    let vk = VerifyingKey::from_sec1_bytes(c.as_bytes()).unwrap();
    assert_eq!(vk.to_sec1_point(false).as_bytes(), &uncompressed()[..]);
    let sig = sk.sign(MSG);
    vk.verify(MSG, &sig).unwrap();
}

#[test]
fn tls13_identifier() {
    // RFC 8998 §3.2.1: TLS 1.3 uses the ID "TLSv1.3+GM+Cipher+Suite".
    let sk = SigningKey::from_bytes_with_id(&D.into(), shangmi_sm2::TLS13_ID).unwrap();
    let sig = sk.sign(b"tls transcript");
    let vk =
        VerifyingKey::from_sec1_bytes_with_id(&uncompressed(), b"TLSv1.3+GM+Cipher+Suite").unwrap();
    vk.verify(b"tls transcript", &sig).unwrap();
    let default_vk = VerifyingKey::from_sec1_bytes(&uncompressed()).unwrap();
    assert!(default_vk.verify(b"tls transcript", &sig).is_err());
}

#[test]
fn secret_key_range() {
    use shangmi_sm2::Error;
    let n = hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
    let n1 = hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54122");
    let n2 = hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54121");
    assert_eq!(
        SigningKey::from_bytes(&[0; 32].into()).unwrap_err(),
        Error::InvalidSecretKey
    );
    assert_eq!(
        SigningKey::from_bytes(&n.into()).unwrap_err(),
        Error::InvalidSecretKey
    );
    assert_eq!(
        SigningKey::from_bytes(&n1.into()).unwrap_err(),
        Error::InvalidSecretKey
    );
    assert_eq!(
        SigningKey::from_bytes(&[0xFF; 32].into()).unwrap_err(),
        Error::InvalidSecretKey
    );
    let sk = SigningKey::from_bytes(&n2.into()).unwrap();
    let sig = sk.sign(b"edge");
    sk.verifying_key().verify(b"edge", &sig).unwrap();
    let one = {
        let mut b = [0u8; 32];
        b[31] = 1;
        b
    };
    let sk = SigningKey::from_bytes(&one.into()).unwrap();
    // d = 1: the public key is G itself.
    assert_eq!(
        &sk.verifying_key().to_sec1_point(false).as_bytes()[1..33],
        &hex!("32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7")
    );
}

#[test]
fn id_too_long() {
    let id = vec![0u8; 8192];
    assert!(SigningKey::from_bytes_with_id(&D.into(), &id).is_err());
    assert!(SigningKey::from_bytes_with_id(&D.into(), &id[..8191]).is_ok());
}
