//! Legacy PKCS#12 read (RFC 7292 Appendix B KDF over SHA-1, Appendix C PBE schemes, an
//! HMAC-SHA-1 MAC), from files Debian's OpenSSL 3.0.19 wrote here with `openssl pkcs12
//! -export -legacy -passout pass:legacy` (its defaults then: certificates under
//! pbeWithSHA1And40BitRC2-CBC, the key under pbeWithSHA1And3-KeyTripleDES-CBC, SHA-1 MAC,
//! 2048 iterations): an SM2 key with its certificate (the signer of
//! `openssl_cms_*.der`, the key of `openssl36_pbkdf2_hmacsm3_sm4cbc.pem`), and an EC P-256
//! key with a self-signed certificate (`/CN=legacy p256`), returned as PKCS#8 DER by
//! `import_bags`. The 3DES key takes two SHA-1 blocks of the KDF, so its second-block
//! update of I is exercised.
#![allow(clippy::unwrap_used)]

use der::Encode;
use shangmi_pki::pem::certificates;
use shangmi_pki::{Error, pkcs12};

const SM2_P12: &[u8] = include_bytes!("data/openssl_legacy_sm2.p12");
const P256_P12: &[u8] = include_bytes!("data/openssl_legacy_p256.p12");

#[test]
fn legacy_sm2_file_imports() {
    let got = pkcs12::import(SM2_P12, "legacy").unwrap();
    let cert = certificates(include_bytes!("data/openssl_cms_signer.pem")).unwrap();
    assert_eq!(got.cert, cert[0]);
    assert!(got.chain.is_empty());
    let key = shangmi_pki::pkcs8::secret_key_from_pem(
        include_bytes!("data/openssl36_pbkdf2_hmacsm3_sm4cbc.pem"),
        b"secret",
    )
    .unwrap();
    assert_eq!(got.key.to_bytes(), key.to_bytes());
    // a wrong password fails the SHA-1 MAC
    assert_eq!(
        pkcs12::import(SM2_P12, "legacz").unwrap_err(),
        Error::Decryption
    );
    // so does one changed byte of the authenticated content
    let mut bad = SM2_P12.to_vec();
    let at = bad.len() / 2;
    bad[at] ^= 0x01;
    assert!(pkcs12::import(&bad, "legacy").is_err());
}

#[test]
fn legacy_p256_file_as_bags() {
    let bags = pkcs12::import_bags(P256_P12, "legacy").unwrap();
    assert_eq!(bags.keys.len(), 1);
    assert_eq!(bags.certs.len(), 1);
    let cert = &bags.certs[0];
    assert!(
        cert.tbs_certificate()
            .subject()
            .to_string()
            .contains("legacy p256")
    );
    let key = &bags.keys[0];
    // PrivateKeyInfo with id-ecPublicKey and prime256v1 (1.2.840.10045.3.1.7)
    let p256 = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
    assert!(key.windows(p256.len()).any(|w| w == p256));
    // it holds the certificate's public point
    let point = cert
        .tbs_certificate()
        .subject_public_key_info()
        .subject_public_key
        .raw_bytes()
        .to_vec();
    assert_eq!(point.len(), 65);
    assert!(key.windows(point.len()).any(|w| w == point));
    // not an SM2 key: the SM2 import refuses it with a typed error
    assert!(pkcs12::import(P256_P12, "legacy").is_err());
    assert_eq!(
        pkcs12::import_bags(P256_P12, "").unwrap_err(),
        Error::Decryption
    );
    let _ = cert.to_der().unwrap();
}
