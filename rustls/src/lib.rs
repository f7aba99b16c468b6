#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]

pub mod aead;
pub mod hash;
pub mod kx;
pub mod rand;
pub mod sign;
pub mod suites;
pub mod ticket;
pub mod time;
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
/// handshake byte for byte with a seeded generator (the interop replay tests do). Each
/// call leaks two small key exchange objects (rustls keeps groups as `&'static`), so build
/// it once per test.
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
