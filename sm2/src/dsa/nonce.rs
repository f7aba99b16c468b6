//! Deterministic nonces after RFC 6979 §3.2 with HMAC-SM3 (qlen = hlen = 256), and hedged
//! nonces by feeding extra random input as RFC 6979 §3.6 "additional data".

use crate::Scalar;
use crate::arith::limbs;
use crate::arith::scalar::N;
use shangmi_sm3::hazmat::KeyedHmac;
use zeroize::Zeroize;

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

/// HMAC-SM3 keyed with `k` (its two padded-key states, so a tag costs the message's blocks
/// and one block of the outer hash); the bytes of `k` are wiped.
fn keyed(k: &mut [u8; 32]) -> KeyedHmac {
    let mac = KeyedHmac::new(k);
    k.zeroize();
    mac
}

/// The HMAC_DRBG-like state (K, V) of RFC 6979 §3.2. K is kept as a keyed HMAC (its inner
/// and outer padded-key states) and the initial all-zero K as constants, so a signature takes
/// 16 SM3 compressions for its nonce (19 with a MAC that hashes its outer pad per tag).
pub(crate) struct NonceGen {
    mac: KeyedHmac,
    v: [u8; 32],
}

impl NonceGen {
    /// Steps b–g of RFC 6979 §3.2 for secret `x` and message representative `h`
    /// (already reduced mod n), with optional additional data.
    pub(crate) fn new(x: &[u8; 32], h: &[u8; 32], extra: &[u8]) -> Self {
        let mut v = [1u8; 32];
        let [inner, outer] = ZERO_KEY_STATES;
        let zero = KeyedHmac::from_states(inner, outer);
        let mac = keyed(&mut zero.mac([v.as_slice(), &[0], x, h, extra]));
        v = mac.mac([v.as_slice()]);
        let mac = keyed(&mut mac.mac([v.as_slice(), &[1], x, h, extra]));
        v = mac.mac([v.as_slice()]);
        NonceGen { mac, v }
    }

    /// Step h: the next candidate in [1, n-1].
    pub(crate) fn next(&mut self) -> Scalar {
        loop {
            self.v = self.mac.mac([self.v.as_slice()]);
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
        self.mac = keyed(&mut self.mac.mac([self.v.as_slice(), &[0]]));
        self.v = self.mac.mac([self.v.as_slice()]);
    }
}

/// The MAC states wipe themselves (`KeyedHmac` zeroizes on drop); V is wiped here.
impl Drop for NonceGen {
    fn drop(&mut self) {
        self.v.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hmac::{KeyInit, Mac};
    use shangmi_sm3::hazmat;

    #[test]
    fn zero_key_states() {
        let mut states = [hazmat::IV; 2];
        for (s, pad) in states.iter_mut().zip([0x36u8, 0x5c]) {
            hazmat::compress(shangmi_sm3::Backend::Soft, s, &[[pad; 64]])
                .unwrap_or_else(|_| unreachable!("soft runs everywhere"));
        }
        assert_eq!(ZERO_KEY_STATES, states);
        let [inner, outer] = ZERO_KEY_STATES;
        let msg: &[&[u8]] = &[b"sample", &[0; 70], b"x"];
        assert_eq!(
            KeyedHmac::from_states(inner, outer).mac(msg.iter().copied()),
            keyed(&mut [0; 32]).mac(msg.iter().copied())
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
            let mut reference = hmac::Hmac::<crate::hash::Sm3>::new_from_slice(&key)
                .unwrap_or_else(|_| unreachable!());
            reference.update(&msg);
            let expected: [u8; 32] = reference.finalize().into_bytes().into();
            let (a, b) = msg.split_at(msg.len() / 3);
            assert_eq!(keyed(&mut key.clone()).mac([a, b]), expected);
        }
    }
}
