//! The deterministic and hedged nonces are those of RFC 6979 §3.2 (with §3.6 additional data)
//! instantiated with HMAC-SM3, checked against a plain transcription of the RFC built on
//! RustCrypto's `sm3` and `hmac` (independent of our SM3 and of our keyed-MAC caching): the
//! signature from `sign_e` must equal the one made with the RFC's k through the hazmat
//! `sign_e_with_nonce`.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

#[path = "support/rfc6979.rs"]
mod rfc6979;

use proptest::prelude::*;
use rfc6979::rfc6979_k;
use shangmi_sm2::dsa::SigningKey;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn deterministic_nonce_is_rfc6979(d in any::<[u8; 32]>(), e in any::<[u8; 32]>()) {
        let Ok(key) = SigningKey::from_bytes(&d.into()) else { return Ok(()) };
        let k = rfc6979_k(&d, &e, &[]);
        prop_assert_eq!(key.sign_e(&e), key.sign_e_with_nonce(&e, &k.into()).unwrap());
    }

    #[test]
    fn hedged_nonce_is_rfc6979_with_additional_data(
        d in any::<[u8; 32]>(),
        e in any::<[u8; 32]>(),
        extra in proptest::collection::vec(any::<u8>(), 0..80),
    ) {
        let Ok(key) = SigningKey::from_bytes(&d.into()) else { return Ok(()) };
        let k = rfc6979_k(&d, &e, &extra);
        prop_assert_eq!(key.sign_e_with_extra(&e, &extra), key.sign_e_with_nonce(&e, &k.into()).unwrap());
    }
}

/// e above n exercises the reduction of bits2octets(h1).
#[test]
fn digest_above_the_order() {
    let key = SigningKey::from_bytes(&[7; 32].into()).unwrap();
    let e = [0xFF; 32];
    let k = rfc6979_k(&[7; 32], &e, &[]);
    assert_eq!(
        key.sign_e(&e),
        key.sign_e_with_nonce(&e, &k.into()).unwrap()
    );
}
