//! RFC 6979 §3.2 (with §3.6 additional data) instantiated with HMAC-SM3, transcribed plainly
//! on RustCrypto's `sm3` and `hmac` (independent of our SM3 and of our keyed-MAC caching),
//! for the tests that check our nonces against it.
#![allow(dead_code)] // each test uses its part

use hmac::{KeyInit, Mac, SimpleHmac};

type Hmac = SimpleHmac<rustcrypto_sm3::Sm3>;

/// The order n of the SM2 group (GB/T 32918.5), big-endian.
pub const N: [u8; 32] =
    hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");

fn hmac(k: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = Hmac::new_from_slice(k).unwrap();
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// e mod n (e < 2^256 < 2n, so at most one subtraction), big-endian.
pub fn reduce(e: &[u8; 32]) -> [u8; 32] {
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

/// The first `count` outputs in [1, n-1] of the RFC 6979 §3.2 generator (steps b–h, qlen =
/// hlen = 256) for secret x, h and additional data.
pub fn rfc6979_stream(x: &[u8; 32], h: &[u8; 32], extra: &[u8], count: usize) -> Vec<[u8; 32]> {
    let mut v = [1u8; 32];
    let mut k = hmac(&[0u8; 32], &[&v, &[0], x, h, extra]);
    v = hmac(&k, &[&v]);
    k = hmac(&k, &[&v, &[1], x, h, extra]);
    v = hmac(&k, &[&v]);
    let mut out = Vec::new();
    while out.len() < count {
        v = hmac(&k, &[&v]);
        if v != [0; 32] && v[..] < N[..] {
            out.push(v);
        } else {
            k = hmac(&k, &[&v, &[0]]);
            v = hmac(&k, &[&v]);
        }
    }
    out
}

/// RFC 6979's k for secret x, digest e (reduced mod n as the RFC's bits2octets does) and
/// additional data: the first candidate in [1, n-1].
pub fn rfc6979_k(x: &[u8; 32], e: &[u8; 32], extra: &[u8]) -> [u8; 32] {
    rfc6979_stream(x, &reduce(e), extra, 1)[0]
}
