//! What the test PKIs of the TLS crates share (`rustls/tests/common/pki.rs`,
//! `tlcp/tests/common/mod.rs`; each links this file): SM2 keys from labels (the same label
//! gives the same key on every run, so the recorded conversations keep their keys) and the
//! parameters of a certificate for `shangmi_pki::issue`.

use shangmi_pki::issue::{CertParams, Profile, San};
use std::str::FromStr;

/// An SM2 key from a label (SM3 of the label, rehashed on the negligible out-of-range case).
pub fn key(label: &str) -> shangmi_sm2::SecretKey {
    use digest::Digest;
    let mut seed = shangmi_sm3::Sm3::digest(label.as_bytes());
    loop {
        if let Ok(key) = shangmi_sm2::SecretKey::from_bytes(&seed) {
            return key;
        }
        seed = shangmi_sm3::Sm3::digest(seed);
    }
}

/// The parameters of one certificate: `subject` (RFC 4514 string), its profile, a DNS
/// subjectAltName if any, the serial number's bytes and the validity (unix seconds).
pub fn params(
    subject: &str,
    profile: Profile,
    dns: Option<&str>,
    serial: &[u8],
    validity: (u64, u64),
) -> CertParams {
    CertParams {
        subject: x509_cert::name::Name::from_str(subject).expect("subject name"),
        profile,
        sans: dns.map(|d| San::Dns(d.into())).into_iter().collect(),
        not_before: validity.0,
        not_after: validity.1,
        serial: Some(serial.to_vec()),
    }
}
