//! The deterministic and hedged nonces are those of RFC 6979 §3.2 (with §3.6 additional data)
//! instantiated with HMAC-SM3, checked against a plain transcription of the RFC built on
//! RustCrypto's `sm3` and `hmac` (independent of our SM3 and of our keyed-MAC caching): the
//! signature from `sign_e` must equal the one made with the RFC's k through the hazmat
//! `sign_e_with_nonce`.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use hmac::{KeyInit, Mac, SimpleHmac};
use proptest::prelude::*;
use shangmi_sm2::dsa::SigningKey;

type Hmac = SimpleHmac<rustcrypto_sm3::Sm3>;

/// The order n of the SM2 group (GB/T 32918.5), big-endian.
const N: [u8; 32] =
    hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");

fn hmac(k: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = Hmac::new_from_slice(k).unwrap();
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// e mod n (e < 2^256 < 2n, so at most one subtraction), big-endian.
fn reduce(e: &[u8; 32]) -> [u8; 32] {
    if e[..] < N[..] {
        return *e;
    }
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = i16::from(e[i]) - i16::from(N[i]) - borrow;
        borrow = i16::from(d < 0);
        out[i] = d.rem_euclid(256) as u8;
    }
    out
}

/// RFC 6979 §3.2 steps b–h for qlen = hlen = 256: the first candidate in [1, n-1].
fn rfc6979_k(x: &[u8; 32], e: &[u8; 32], extra: &[u8]) -> [u8; 32] {
    let h = reduce(e);
    let mut v = [1u8; 32];
    let mut k = [0u8; 32];
    k = hmac(&k, &[&v, &[0], x, &h, extra]);
    v = hmac(&k, &[&v]);
    k = hmac(&k, &[&v, &[1], x, &h, extra]);
    v = hmac(&k, &[&v]);
    loop {
        v = hmac(&k, &[&v]);
        if v != [0; 32] && v[..] < N[..] {
            return v;
        }
        k = hmac(&k, &[&v, &[0]]);
        v = hmac(&k, &[&v]);
    }
}

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
