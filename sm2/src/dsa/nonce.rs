//! Deterministic nonces after RFC 6979 §3.2 with HMAC-SM3 (qlen = hlen = 256), and hedged
//! nonces by feeding extra random input as RFC 6979 §3.6 "additional data".

use crate::arith::limbs;
use crate::arith::scalar::{N, Sc};
use crate::hash::HmacSm3;
use digest::{KeyInit, Mac};
use zeroize::Zeroize;

/// The HMAC_DRBG-like state (K, V) of RFC 6979 §3.2.
pub(crate) struct NonceGen {
    k: [u8; 32],
    v: [u8; 32],
}

fn hmac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    let mut m = <HmacSm3 as KeyInit>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

impl NonceGen {
    /// Steps b–g of RFC 6979 §3.2 for secret `x` and message representative `h`
    /// (already reduced mod n), with optional additional data.
    pub(crate) fn new(x: &[u8; 32], h: &[u8; 32], extra: &[u8]) -> Self {
        let mut v = [1u8; 32];
        let mut k = [0u8; 32];
        k = hmac(&k, &[&v, &[0], x, h, extra]);
        v = hmac(&k, &[&v]);
        k = hmac(&k, &[&v, &[1], x, h, extra]);
        v = hmac(&k, &[&v]);
        NonceGen { k, v }
    }

    /// Step h: the next candidate in [1, n-1].
    pub(crate) fn next(&mut self) -> Sc {
        loop {
            self.v = hmac(&self.k, &[&self.v]);
            let t = limbs::from_be_bytes(&self.v);
            let ok = limbs::lt_mask(&t, &N) & !limbs::is_zero_mask(&t);
            if ok != 0 {
                return Sc::from_canonical(&t);
            }
            self.k = hmac(&self.k, &[&self.v, &[0]]);
            self.v = hmac(&self.k, &[&self.v]);
        }
    }

    /// A secret blinding value derived from the current state without advancing it
    /// (HMAC_K(V ‖ 0x02)), so the signature stays that of RFC 6979.
    pub(crate) fn blinding(&self) -> [u8; 32] {
        hmac(&self.k, &[&self.v, &[2]])
    }

    /// Moves on after a candidate was rejected by the signing equation.
    pub(crate) fn reject(&mut self) {
        self.k = hmac(&self.k, &[&self.v, &[0]]);
        self.v = hmac(&self.k, &[&self.v]);
    }
}

impl Drop for NonceGen {
    fn drop(&mut self) {
        self.k.zeroize();
        self.v.zeroize();
    }
}
