//! Deterministic nonces after RFC 6979 §3.2 with HMAC-SM3 (qlen = hlen = 256), and hedged
//! nonces by feeding extra random input as RFC 6979 §3.6 "additional data".

use crate::Scalar;
use crate::arith::limbs;
use crate::arith::scalar::N;
use crate::hash::Sm3;
use digest::Digest;
use digest::common::hazmat::{SerializableState, SerializedState};
use zeroize::Zeroize;

/// HMAC-SM3 (RFC 2104) under a 32-byte key, kept as its two padded-key states, so a tag costs
/// the message's blocks and one block of the outer hash.
#[derive(Clone)]
struct HmacSm3 {
    inner: Sm3,
    outer: Sm3,
}

/// SM3's chaining value after one block of 0x36 bytes and after one block of 0x5C bytes: the
/// two states of HMAC-SM3 under RFC 6979 §3.2 step c's all-zero K (the test
/// `zero_key_states` recomputes them).
const ZERO_KEY_STATES: [[u32; 8]; 2] = [
    [
        0x8C854854, 0xF66E47EB, 0x0538EA9E, 0x5958A85F, 0x4D789AEF, 0xE8CBB135, 0xB18826CA,
        0xF696D872,
    ],
    [
        0x69F23DB2, 0xB0EFD84C, 0x7DC132E0, 0x2855D81F, 0x43539464, 0x96AF80B2, 0x91CF7B06,
        0x43820BBD,
    ],
];

impl HmacSm3 {
    /// Keyed with `k`; the bytes of `k` are wiped.
    fn new(k: &mut [u8; 32]) -> Self {
        let mut pad = [0x36u8; 64];
        for (p, b) in pad.iter_mut().zip(k.iter()) {
            *p ^= b;
        }
        k.zeroize();
        let inner = Sm3::new_with_prefix(pad);
        for p in &mut pad {
            *p ^= 0x36 ^ 0x5C;
        }
        let outer = Sm3::new_with_prefix(pad);
        pad.zeroize();
        HmacSm3 { inner, outer }
    }

    /// Keyed with the all-zero K, from [`ZERO_KEY_STATES`] (no compression).
    fn zero_key() -> Self {
        let [inner, outer] = ZERO_KEY_STATES.map(|h| {
            // SM3's serialized state: the chaining words, the block count (one), an empty
            // buffer.
            let mut state = SerializedState::<Sm3>::default();
            for (chunk, w) in state.chunks_exact_mut(4).zip(h) {
                chunk.copy_from_slice(&w.to_le_bytes());
            }
            state[32] = 1;
            Sm3::deserialize(&state).unwrap_or_else(|_| unreachable!())
        });
        HmacSm3 { inner, outer }
    }

    /// The tag of the concatenation of `parts`.
    fn tag(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut inner = self.inner.clone();
        for p in parts {
            Digest::update(&mut inner, p);
        }
        let mut outer = self.outer.clone();
        Digest::update(&mut outer, inner.finalize());
        outer.finalize().into()
    }
}

/// The HMAC_DRBG-like state (K, V) of RFC 6979 §3.2. K is kept as a keyed HMAC (its inner
/// and outer padded-key states) and the initial all-zero K as constants, so a signature takes
/// 16 SM3 compressions for its nonce (19 with a MAC that hashes its outer pad per tag).
pub(crate) struct NonceGen {
    mac: HmacSm3,
    v: [u8; 32],
}

impl NonceGen {
    /// Steps b–g of RFC 6979 §3.2 for secret `x` and message representative `h`
    /// (already reduced mod n), with optional additional data.
    pub(crate) fn new(x: &[u8; 32], h: &[u8; 32], extra: &[u8]) -> Self {
        let mut v = [1u8; 32];
        let mac = HmacSm3::new(&mut HmacSm3::zero_key().tag(&[&v, &[0], x, h, extra]));
        v = mac.tag(&[&v]);
        let mac = HmacSm3::new(&mut mac.tag(&[&v, &[1], x, h, extra]));
        v = mac.tag(&[&v]);
        NonceGen { mac, v }
    }

    /// Step h: the next candidate in [1, n-1].
    pub(crate) fn next(&mut self) -> Scalar {
        loop {
            self.v = self.mac.tag(&[&self.v]);
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
        self.mac = HmacSm3::new(&mut self.mac.tag(&[&self.v, &[0]]));
        self.v = self.mac.tag(&[&self.v]);
    }
}

/// The MAC states wipe themselves (SM3 zeroizes its chaining value on drop); V is wiped here.
impl Drop for NonceGen {
    fn drop(&mut self) {
        self.v.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::{KeyInit, Mac};

    /// SM3's chaining value after `block`, as the serialized state gives it.
    fn state_after(block: [u8; 64]) -> [u32; 8] {
        let s = Sm3::new_with_prefix(block).serialize();
        core::array::from_fn(|i| {
            u32::from_le_bytes([s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]])
        })
    }

    #[test]
    fn zero_key_states() {
        assert_eq!(
            ZERO_KEY_STATES,
            [state_after([0x36; 64]), state_after([0x5C; 64])]
        );
        let msg: &[&[u8]] = &[b"sample", &[0; 70], b"x"];
        assert_eq!(
            HmacSm3::zero_key().tag(msg),
            HmacSm3::new(&mut [0; 32]).tag(msg)
        );
    }

    /// Against the `hmac` crate's HMAC over our SM3, for keys and messages of every shape the
    /// nonces use (the RFC 6979 tests in tests/nonce.rs check the whole generator against
    /// RustCrypto's SM3 and HMAC).
    #[test]
    fn tags_match_the_hmac_crate() {
        for seed in 0u8..20 {
            let key: [u8; 32] = core::array::from_fn(|i| seed.wrapping_mul(31) ^ i as u8);
            let msg: std::vec::Vec<u8> = (0..u32::from(seed) * 13).map(|i| i as u8).collect();
            let mut reference =
                hmac::Hmac::<Sm3>::new_from_slice(&key).unwrap_or_else(|_| unreachable!());
            reference.update(&msg);
            let expected: [u8; 32] = reference.finalize().into_bytes().into();
            let (a, b) = msg.split_at(msg.len() / 3);
            assert_eq!(HmacSm3::new(&mut key.clone()).tag(&[a, b]), expected);
        }
    }
}
