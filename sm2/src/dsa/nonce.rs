//! Deterministic nonces after RFC 6979 §3.2 with HMAC-SM3 (qlen = hlen = 256), and hedged
//! nonces by feeding extra random input as RFC 6979 §3.6 "additional data".

use crate::Scalar;
use crate::arith::limbs;
use crate::arith::scalar::N;
use crate::hash::HmacSm3;
use digest::{KeyInit, Mac};
use zeroize::Zeroize;

/// The HMAC_DRBG-like state (K, V) of RFC 6979 §3.2. K is kept as a keyed HMAC (its inner
/// and outer padded-key states), so each HMAC under the same K costs only the message blocks:
/// with the MAC under the initial K kept by the signing key, a signature takes 15 SM3
/// compressions for its nonce instead of 26.
pub(crate) struct NonceGen {
    mac: HmacSm3,
    v: [u8; 32],
}

/// HMAC-SM3 of `parts` under an already keyed MAC.
fn tag(mac: &HmacSm3, parts: &[&[u8]]) -> [u8; 32] {
    let mut m = mac.clone();
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

/// A MAC keyed with `k`; the bytes of `k` are wiped.
fn keyed(k: &mut [u8; 32]) -> HmacSm3 {
    let mac = <HmacSm3 as KeyInit>::new_from_slice(k).unwrap_or_else(|_| unreachable!());
    k.zeroize();
    mac
}

impl NonceGen {
    /// The MAC under step c's K = 0x00…00.
    pub(crate) fn initial_mac() -> HmacSm3 {
        keyed(&mut [0u8; 32])
    }

    /// Steps b–g of RFC 6979 §3.2 for secret `x` and message representative `h`
    /// (already reduced mod n), with optional additional data.
    /// `mac0` is [`NonceGen::initial_mac`] (kept by the signing key).
    pub(crate) fn new(mac0: &HmacSm3, x: &[u8; 32], h: &[u8; 32], extra: &[u8]) -> Self {
        let mut v = [1u8; 32];
        let mac = keyed(&mut tag(mac0, &[&v, &[0], x, h, extra]));
        v = tag(&mac, &[&v]);
        let mac = keyed(&mut tag(&mac, &[&v, &[1], x, h, extra]));
        v = tag(&mac, &[&v]);
        NonceGen { mac, v }
    }

    /// Step h: the next candidate in [1, n-1].
    pub(crate) fn next(&mut self) -> Scalar {
        loop {
            self.v = tag(&self.mac, &[&self.v]);
            let t = limbs::from_be_bytes(&self.v);
            let ok = limbs::lt_mask(&t, &N) & !limbs::is_zero_mask(&t);
            if ok != 0 {
                return Scalar::from_canonical(&t);
            }
            self.reject();
        }
    }

    /// Moves on after a candidate was rejected by the signing equation.
    pub(crate) fn reject(&mut self) {
        self.mac = keyed(&mut tag(&self.mac, &[&self.v, &[0]]));
        self.v = tag(&self.mac, &[&self.v]);
    }
}

/// The MAC states wipe themselves (SM3 zeroizes its chaining value on drop); V is wiped here.
impl Drop for NonceGen {
    fn drop(&mut self) {
        self.v.zeroize();
    }
}
