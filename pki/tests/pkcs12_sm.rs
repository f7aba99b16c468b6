//! PKCS#12 written with the ShangMi scheme (`pkcs12::Scheme::Sm`: PBES2 PBKDF2-HMAC-SM3 +
//! SM4-CBC, HMAC-SM3 MAC): our reading of our writing, the OIDs in the file, wrong
//! passwords and a corrupted MAC as typed errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_pki::name::parse_dn;
use shangmi_pki::pkcs12::{self, Scheme};
use shangmi_pki::{Certificate, Error, SecretKey, generate_key};

#[path = "support/issue.rs"]
mod issuing;
use issuing::issue_new;

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// A new key and its self-signed CA certificate named `dn`, valid for 30 days.
fn self_signed_ca(dn: &str) -> (SecretKey, Certificate) {
    let key = generate_key().unwrap();
    let params = CertParams::new(parse_dn(dn).unwrap(), Profile::Ca { path_len: None }, 30);
    let cert = issue::self_signed(&key, &params).unwrap();
    (key, cert)
}

#[test]
fn sm_scheme_round_trip() {
    let (ca_key, ca) = self_signed_ca("/CN=P12 CA");
    let (key, leaf) = issue_new(&ca, &ca_key, "/CN=leaf", Profile::TlsClient, 30);
    let p12 =
        pkcs12::export_with(&leaf, &key, std::slice::from_ref(&ca), "口令pw", Scheme::Sm).unwrap();
    // hmacWithSM3 as OpenSSL 3.x names it (1.2.156.10197.1.401.3.1), not GmSSL's
    // 1.2.156.10197.1.401.2, SM4-CBC (1.2.156.10197.1.104.2) and the MAC's SM3
    // (1.2.156.10197.1.401) with its NULL parameters; nothing of AES/SHA-256
    assert!(contains(
        &p12,
        &[
            0x06, 0x0a, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x03, 0x01
        ]
    ));
    assert!(!contains(
        &p12,
        &[
            0x06, 0x09, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x02
        ]
    ));
    assert!(contains(
        &p12,
        &[0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x68, 0x02]
    ));
    assert!(contains(
        &p12,
        &[
            0x30, 0x0c, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x05, 0x00
        ]
    ));
    assert!(!contains(&p12, &[0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04]));
    let c = pkcs12::import(&p12, "口令pw").unwrap();
    assert_eq!(c.key.to_bytes(), key.to_bytes());
    assert_eq!(c.cert, leaf);
    assert_eq!(c.chain, vec![ca]);
    assert_eq!(pkcs12::import(&p12, "pw").unwrap_err(), Error::Decryption);
    // the default scheme is still OpenSSL's
    let p12 = pkcs12::export(&leaf, &key, &[], "pw").unwrap();
    assert!(!contains(
        &p12,
        &[0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11]
    ));
    assert_eq!(pkcs12::import(&p12, "pw").unwrap().cert, leaf);
}

#[test]
fn sm_scheme_corrupted_mac_and_truncation() {
    let (key, cert) = self_signed_ca("/CN=self");
    let p12 = pkcs12::export_with(&cert, &key, &[], "pw", Scheme::Sm).unwrap();
    // the MAC digest sits before the 8-byte salt and the iteration count at the end
    let mut bad = p12.clone();
    let n = bad.len();
    bad[n - 20] ^= 1;
    assert_eq!(pkcs12::import(&bad, "pw").unwrap_err(), Error::Decryption);
    for cut in (0..p12.len()).step_by(7) {
        assert!(pkcs12::import(&p12[..cut], "pw").is_err());
    }
}

/// A PKCS#12 file written by Tongsuo 8.5.0-pre2 (built by hand under /tmp, never committed)
/// from a `shangmi cert tlcp-pair` sign key and certificate with our CA certificate:
/// `openssl pkcs12 -export -in sign.crt -inkey sign.key -certfile ca.crt -keypbe SM4-CBC
/// -certpbe SM4-CBC -macalg SM3 -passout pass:secret -out ts.p12`. Tongsuo writes PBES2 with
/// PBKDF2-HMAC-SHA-256 and SM4-CBC under an HMAC-SM3 MAC (it has no OID for an HMAC-SM3
/// PRF: it read our `Scheme::Sm` MAC but stopped at "unsupported prf" when that named
/// GmSSL's 1.2.156.10197.1.401.2; OpenSSL 3.x's 1.2.156.10197.1.401.3.1, written now, is
/// not in its object table either).
#[test]
fn tongsuo_sm4_cbc_sm3_mac_file() {
    let p12 = include_bytes!("data/tongsuo_sm4cbc_sm3mac.p12");
    let c = pkcs12::import(p12, "secret").unwrap();
    assert_eq!(c.key.to_bytes().as_slice(), &SIGN_KEY[..]);
    assert_eq!(c.chain.len(), 1);
    assert_eq!(
        pkcs12::import(p12, "Secret").unwrap_err(),
        Error::Decryption
    );
}

/// The sign key's scalar (`openssl pkey -in sign.key -text`).
const SIGN_KEY: [u8; 32] =
    hex_literal::hex!("f60d4733825ba349c3a5a0a07e6f911bb5fb90a79db86986c784c0d9e51784ab");
