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
/// ML-KEM seeds, session identifiers and tickets) from `random`: a cryptographic module's
/// health-tested DRBG (`shangmi --module` gives it its module's through
/// [`rand::Locked`]), or, in tests that must reproduce a handshake byte for byte, a seeded
/// generator (the interop replay tests). Each ephemeral key is made from one 32-byte draw
/// (no key pool). Each call leaks two small key exchange objects (rustls keeps groups as
/// `&'static`), so build it once per process or test.
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

#[cfg(test)]
mod tests {
    use crate::rand::{Locked, tests::Counting};

    /// Every key exchange group of the provider draws its ephemeral keys (and ML-KEM seeds)
    /// from the provider's generator, and a failing generator fails the key exchange.
    #[test]
    fn key_shares_come_from_the_providers_random() {
        let random: &'static Locked<Counting> = Box::leak(Box::new(Locked::new(Counting {
            requests: 0,
            fail: false,
        })));
        let provider = super::provider_with_random(random);
        assert_eq!(provider.kx_groups.len(), 2);
        for group in &provider.kx_groups {
            let before = random.0.lock().unwrap().requests;
            let kx = group.start().unwrap();
            assert!(!kx.pub_key().is_empty());
            assert!(
                random.0.lock().unwrap().requests > before,
                "{:?}",
                group.name()
            );
        }
        random.0.lock().unwrap().fail = true;
        for group in &provider.kx_groups {
            assert!(group.start().is_err(), "{:?}", group.name());
        }
    }
}
