//! Key expansion (GB/T 32907-2016 §7.3), shared by every engine.
//!
//! The expansion needs the S-box, so it takes the engine's constant-time `tau`
//! (the S-box applied to each byte of a word) as a parameter.

use crate::consts::{CK, FK};

/// Round keys in the order one direction uses them.
pub(crate) type RoundKeys = [u32; 32];

/// L' of the key expansion: B ^ (B <<< 13) ^ (B <<< 23).
#[inline(always)]
fn l_prime(b: u32) -> u32 {
    b ^ b.rotate_left(13) ^ b.rotate_left(23)
}

/// Expands a 16-byte key into the encryption round keys rk_0..rk_31.
#[inline(always)]
pub(crate) fn expand(key: &[u8; 16], tau: impl Fn(u32) -> u32) -> RoundKeys {
    let mut k = [0u32; 4];
    for (i, w) in k.iter_mut().enumerate() {
        let mut b = [0u8; 4];
        b.copy_from_slice(&key[4 * i..4 * i + 4]);
        *w = u32::from_be_bytes(b) ^ FK[i];
    }
    let mut rk = [0u32; 32];
    for i in 0..32 {
        let new = k[i % 4]
            ^ l_prime(tau(k[(i + 1) % 4]
                ^ k[(i + 2) % 4]
                ^ k[(i + 3) % 4]
                ^ CK[i]));
        k[i % 4] = new;
        rk[i] = new;
    }
    rk
}

/// The decryption round keys: the encryption ones reversed.
#[inline]
pub(crate) fn reversed(rk: &RoundKeys) -> RoundKeys {
    let mut out = *rk;
    out.reverse();
    out
}
