//! An RFC 8998 crypto provider for [rustls] 0.23: TLS 1.3 with the SM algorithms.
//!
//! | piece | what | codepoint |
//! |---|---|---|
//! | [`suites::TLS13_SM4_GCM_SM3`] | SM4-GCM records, SM3 transcript hash, HKDF-SM3 | 0x00C6 |
//! | [`suites::TLS13_SM4_CCM_SM3`] | SM4-CCM records (16-byte tag), the same SM3 key schedule | 0x00C7 |
//! | [`kx::CURVE_SM2`] | ECDHE on the SM2 curve (RFC 8998 §3.2.1; the secret is x(d·Q)) | 0x0029 |
//! | [`kx::CURVE_SM2_MLKEM768`] | the hybrid curveSM2 + ML-KEM-768 (FIPS 203), classical part first | 0x11EE |
//! | [`sign::SM2_SM3`] scheme | SM2 signatures with SM3, ID `TLSv1.3+GM+Cipher+Suite` in CertificateVerify | 0x0708 |
//! | [`verify::ALGORITHMS`] | certificate chains with ID `1234567812345678`, handshake signatures with the TLS 1.3 ID | |
//! | [`sign::KEY_PROVIDER`] | SM2 private keys from PKCS#8 (both OID forms) and SEC1 | |
//! | [`rand::OS_RANDOM`] | the operating system's generator (`getrandom`) | |
//! | [`ticket::Ticketer`] | stateless session tickets sealed with SM4-GCM, rotating keys | |
//!
//! [`provider()`] puts them together: curveSM2 first (rustls sends a key share for the first
//! group only, so a peer that speaks RFC 8998 needs no HelloRetryRequest), then the hybrid.
//! Every piece is public, so a configuration can mix these suites with another provider's.
//!
//! ```
//! use std::sync::Arc;
//! let provider = Arc::new(shangmi_rustls::provider());
//! let config = rustls::ClientConfig::builder_with_provider(provider)
//!     .with_protocol_versions(&[&rustls::version::TLS13])
//!     .expect("the SM suites are TLS 1.3 suites")
//!     .with_root_certificates(rustls::RootCertStore::empty())
//!     .with_no_client_auth();
//! assert_eq!(config.crypto_provider().cipher_suites.len(), 2);
//! ```
//!
//! What it does not do: TLS 1.2 and TLCP (GB/T 38636, the "national secret" dual-certificate
//! protocol), which rustls does not implement; QUIC keys; kTLS key extraction (rustls 0.23 has
//! no SM4 variant of `ConnectionTrafficSecrets`). RFC 8998 §3 couples the SM suites to
//! curveSM2 and sm2sig_sm3; rustls checks no such coupling, so it holds when the configuration
//! offers nothing else, as [`provider()`] does.

#![deny(unsafe_code)]

pub mod aead;
pub mod hash;
pub mod kx;
pub mod rand;
pub mod sign;
pub mod suites;
pub mod ticket;
pub mod verify;

use rustls::crypto::{CryptoProvider, SecureRandom};

/// The provider with both SM suites, curveSM2 then curveSM2MLKEM768, SM2 signature
/// verification, the SM2 key loader and the operating system's random generator.
pub fn provider() -> CryptoProvider {
    CryptoProvider {
        cipher_suites: suites::ALL.to_vec(),
        kx_groups: kx::ALL.to_vec(),
        signature_verification_algorithms: verify::ALGORITHMS,
        secure_random: &rand::OS_RANDOM,
        key_provider: &sign::KEY_PROVIDER,
    }
}

/// The same provider drawing every random value (client and server randoms, key shares,
/// ML-KEM seeds, session identifiers) from `random`. Meant for tests that must reproduce a
/// handshake byte for byte, with [`rand::SeededRandom`]. Each call leaks two small key
/// exchange objects (rustls keeps groups as `&'static`), so build it once per test.
pub fn provider_with_random(random: &'static dyn SecureRandom) -> CryptoProvider {
    let groups = kx::groups_with_random(random);
    CryptoProvider {
        cipher_suites: suites::ALL.to_vec(),
        kx_groups: groups.to_vec(),
        signature_verification_algorithms: verify::ALGORITHMS,
        secure_random: random,
        key_provider: &sign::KEY_PROVIDER,
    }
}
