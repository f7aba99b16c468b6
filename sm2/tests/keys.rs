//! Key encodings: PKCS#8 and SPKI in both OID forms (id-ecPublicKey + SM2 curve, and SM2 +
//! SM2), SEC1 private keys, PEM, compressed and uncompressed points, and OpenSSL's view.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use shangmi_sm2::elliptic_curve::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::keys;
use shangmi_sm2::{PublicKey, SecretKey};

const ALG_EC_SM2: &[u8] = &[
    0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x81, 0x1C,
    0xCF, 0x55, 0x01, 0x82, 0x2D,
];
const ALG_SM2_SM2: &[u8] = &[
    0x30, 0x14, 0x06, 0x08, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D, 0x06, 0x08, 0x2A, 0x81,
    0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D,
];
const ALG_SM2_BARE: &[u8] = &[
    0x30, 0x0A, 0x06, 0x08, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x82, 0x2D,
];

fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    if body.len() < 0x80 {
        out.push(body.len() as u8);
    } else {
        out.extend_from_slice(&[0x81, body.len() as u8]);
    }
    out.extend_from_slice(body);
    out
}

fn pkcs8_with(alg: &[u8], sk: &SecretKey) -> Vec<u8> {
    let sec1 = sk.to_sec1_der().unwrap();
    let mut body = vec![0x02, 0x01, 0x00];
    body.extend_from_slice(alg);
    body.extend(tlv(0x04, &sec1));
    tlv(0x30, &body)
}

fn spki_with(alg: &[u8], pk: &PublicKey, compress: bool) -> Vec<u8> {
    let point = pk.to_sec1_point(compress);
    let mut bits = vec![0x00];
    bits.extend_from_slice(point.as_bytes());
    let mut body = alg.to_vec();
    body.extend(tlv(0x03, &bits));
    tlv(0x30, &body)
}

#[test]
fn pkcs8_both_oid_forms() {
    let sk = SecretKey::from_bytes(&[0x17; 32].into()).unwrap();
    // elliptic-curve's encoding (inner ECPrivateKey without the curve parameter) parses too.
    let standard = pkcs8_with(ALG_EC_SM2, &sk);
    let generic = sk.to_pkcs8_der().unwrap();
    assert_eq!(
        keys::secret_key_from_pkcs8_der(generic.as_bytes())
            .unwrap()
            .to_bytes(),
        sk.to_bytes()
    );
    for alg in [ALG_EC_SM2, ALG_SM2_SM2, ALG_SM2_BARE] {
        let der = pkcs8_with(alg, &sk);
        assert_eq!(
            keys::secret_key_from_pkcs8_der(&der).unwrap().to_bytes(),
            sk.to_bytes()
        );
    }
    // The generic decoder only knows the first form.
    assert!(SecretKey::from_pkcs8_der(&pkcs8_with(ALG_SM2_SM2, &sk)).is_err());
    // Other curves / algorithms are refused.
    let p256 = [
        0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86,
        0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07,
    ];
    assert!(keys::secret_key_from_pkcs8_der(&pkcs8_with(&p256, &sk)).is_err());
    let mut trailing = standard.clone();
    trailing.push(0);
    assert!(keys::secret_key_from_pkcs8_der(&trailing).is_err());
    assert!(keys::secret_key_from_pkcs8_der(&standard[..standard.len() - 1]).is_err());
}

#[test]
fn spki_both_oid_forms_and_point_forms() {
    let pk = SecretKey::from_bytes(&[0x29; 32].into())
        .unwrap()
        .public_key();
    assert_eq!(
        pk.to_public_key_der().unwrap().as_bytes(),
        &spki_with(ALG_EC_SM2, &pk, false)[..]
    );
    for alg in [ALG_EC_SM2, ALG_SM2_SM2, ALG_SM2_BARE] {
        for compress in [false, true] {
            let der = spki_with(alg, &pk, compress);
            assert_eq!(keys::public_key_from_spki_der(&der).unwrap(), pk);
        }
    }
    let mut bad = spki_with(ALG_EC_SM2, &pk, false);
    let last = bad.len() - 1;
    bad[last] ^= 1; // no longer on the curve
    assert!(keys::public_key_from_spki_der(&bad).is_err());
}

#[test]
fn pem_round_trip() {
    use shangmi_sm2::elliptic_curve::pkcs8::LineEnding;
    let sk = SecretKey::from_bytes(&[0x33; 32].into()).unwrap();
    let pem = sk.to_pkcs8_pem(LineEnding::LF).unwrap();
    assert_eq!(
        keys::secret_key_from_pkcs8_pem(&pem).unwrap().to_bytes(),
        sk.to_bytes()
    );
    let pub_pem = sk.public_key().to_public_key_pem(LineEnding::LF).unwrap();
    assert_eq!(
        keys::public_key_from_spki_pem(&pub_pem).unwrap(),
        sk.public_key()
    );
    assert!(keys::secret_key_from_pkcs8_pem(&pub_pem).is_err());
    let sec1_pem = sk.to_sec1_pem(LineEnding::LF).unwrap();
    assert_eq!(
        SecretKey::from_sec1_pem(&sec1_pem).unwrap().to_bytes(),
        sk.to_bytes()
    );
}

#[test]
#[cfg(target_arch = "x86_64")] // OpenSSL is linked on the development host only
fn diff_openssl_reads_and_writes_our_keys() {
    use openssl::pkey::PKey;
    let sk = SecretKey::from_bytes(&[0x45; 32].into()).unwrap();
    let der = sk.to_pkcs8_der().unwrap();
    let ossl = PKey::private_key_from_pkcs8(der.as_bytes()).unwrap();
    // OpenSSL's own PKCS#8 and SPKI encodings parse back to the same key.
    let theirs = ossl.private_key_to_pkcs8().unwrap();
    assert_eq!(
        keys::secret_key_from_pkcs8_der(&theirs).unwrap().to_bytes(),
        sk.to_bytes()
    );
    let spki = ossl.public_key_to_der().unwrap();
    assert_eq!(
        keys::public_key_from_spki_der(&spki).unwrap(),
        sk.public_key()
    );
}

#[test]
fn sec1_parsers_accept_only_compressed_and_uncompressed() {
    // Found by the sm2_parse fuzz target: elliptic-curve's SEC1 decoder also takes the
    // x-only "compact" tag 05, so one key had two encodings; ours take 02/03/04 only.
    use shangmi_sm2::dsa::VerifyingKey;
    use shangmi_sm2::pke::EncryptingKey;
    let pk = SecretKey::from_bytes(&[9u8; 32].into())
        .unwrap()
        .public_key();
    let full = pk.to_sec1_point(false);
    let short = pk.to_sec1_point(true);
    for good in [full.as_bytes(), short.as_bytes()] {
        assert_eq!(keys::public_key_from_sec1(good).unwrap(), pk);
        assert!(VerifyingKey::from_sec1_bytes(good).is_ok());
        assert!(EncryptingKey::from_sec1_bytes(good).is_ok());
    }
    let mut compact = short.as_bytes().to_vec();
    compact[0] = 0x05;
    let mut wrong_len = full.as_bytes().to_vec();
    wrong_len[0] = 0x02;
    for bad in [
        &compact[..],
        &[0u8][..],
        &wrong_len[..],
        &short.as_bytes()[..32],
        &[][..],
    ] {
        assert!(keys::public_key_from_sec1(bad).is_err(), "{bad:02x?}");
        assert!(VerifyingKey::from_sec1_bytes(bad).is_err());
        assert!(EncryptingKey::from_sec1_bytes(bad).is_err());
    }
}

#[test]
fn public_key_from_every_raw_form() {
    let secret = SecretKey::from_slice(&[7u8; 32]).unwrap();
    let public = secret.public_key();
    let uncompressed = public.to_sec1_point(false);
    let compressed = public.to_sec1_point(true);
    let bare = &uncompressed.as_bytes()[1..];
    assert_eq!(bare.len(), 64);
    for form in [uncompressed.as_bytes(), compressed.as_bytes(), bare] {
        assert_eq!(
            keys::public_key_from_bytes(form).unwrap(),
            public,
            "{} bytes",
            form.len()
        );
    }
    // A point off the curve, the identity, the compact form, other lengths.
    let mut off = bare.to_vec();
    off[63] ^= 1;
    assert!(keys::public_key_from_bytes(&off).is_err());
    assert!(keys::public_key_from_bytes(&[0]).is_err());
    assert!(keys::public_key_from_bytes(&[[5u8].as_slice(), &bare[..32]].concat()).is_err());
    for len in [0, 1, 32, 63, 66] {
        assert!(
            keys::public_key_from_bytes(&vec![4u8; len]).is_err(),
            "{len} bytes"
        );
    }
}

/// The pairwise-consistency test (`keys::check_key_pair`, `keys::generate_checked`): a
/// generated key passes; a secret with another key's public key, or with the public key of
/// d + 1, fails; so does d = n - 1, which cannot sign.
#[test]
fn pairwise_consistency_catches_a_mismatched_key() {
    use shangmi_sm2::Error;
    let mut rng = getrandom::SysRng;
    let a = keys::generate_checked(&mut rng).unwrap();
    let b = keys::generate_checked(&mut rng).unwrap();
    keys::check_key_pair(&a, &a.public_key()).unwrap();
    assert_eq!(
        keys::check_key_pair(&a, &b.public_key()),
        Err(Error::PairwiseConsistency)
    );
    let d = hex_literal::hex!("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
    let mut d1 = d;
    d1[31] += 1;
    let sk = SecretKey::from_bytes(&d.into()).unwrap();
    let sk1 = SecretKey::from_bytes(&d1.into()).unwrap();
    assert_eq!(
        keys::check_key_pair(&sk, &sk1.public_key()),
        Err(Error::PairwiseConsistency)
    );
    let n1 = hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54122");
    let top = SecretKey::from_bytes(&n1.into()).unwrap();
    assert_eq!(
        keys::check_key_pair(&top, &top.public_key()),
        Err(Error::PairwiseConsistency)
    );
}
