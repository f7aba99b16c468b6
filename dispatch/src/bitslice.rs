//! Gates on bit planes that the S-box circuits share (SM4's `soft` engine and ZUC's S1):
//! plane k holds bit k of many bytes, so one AND or XOR of planes is that gate on every
//! byte at once, and nothing is indexed by a secret.

use core::ops::{BitAnd, BitXor};

/// Product in GF(2^4) = GF(2)\[z\]/(z^4 + z + 1) of two elements given as four bit planes
/// (plane i: the coefficient of z^i): 16 AND, 15 XOR. Both SM4's and ZUC's tower fields
/// have this ground field (their circuits come from `tools/derive_sbox.py`).
///
/// ```
/// use shangmi_dispatch::bitslice::gf16_mul;
/// // z · z^3 = z^4 = z + 1, on one-bit planes.
/// assert_eq!(gf16_mul(&[0u8, 1, 0, 0], &[0, 0, 0, 1]), [1, 1, 0, 0]);
/// ```
#[inline(always)]
pub fn gf16_mul<W>(a: &[W; 4], b: &[W; 4]) -> [W; 4]
where
    W: Copy + BitAnd<Output = W> + BitXor<Output = W>,
{
    let c0 = a[0] & b[0];
    let c1 = (a[0] & b[1]) ^ (a[1] & b[0]);
    let c2 = (a[0] & b[2]) ^ (a[1] & b[1]) ^ (a[2] & b[0]);
    let c3 = (a[0] & b[3]) ^ (a[1] & b[2]) ^ (a[2] & b[1]) ^ (a[3] & b[0]);
    let c4 = (a[1] & b[3]) ^ (a[2] & b[2]) ^ (a[3] & b[1]);
    let c5 = (a[2] & b[3]) ^ (a[3] & b[2]);
    let c6 = a[3] & b[3];
    // z^4 = z + 1, z^5 = z^2 + z, z^6 = z^3 + z^2.
    [c0 ^ c4, c1 ^ c4 ^ c5, c2 ^ c5 ^ c6, c3 ^ c6]
}
