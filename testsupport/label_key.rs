//! SM2 test keys from labels, for the test PKIs of the TLS crates (`rustls/tests/common/pki.rs`,
//! `tlcp/tests/common/mod.rs`; each links this file): the same label gives the same key on
//! every run, so the recorded conversations keep their keys.

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
