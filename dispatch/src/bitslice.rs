//! Bit-level pieces that SM4's and ZUC's S-box code share: gates on bit planes for the
//! circuits of their `soft` engines (plane k holds bit k of many bytes, so one AND or XOR
//! of planes is that gate on every byte at once, and nothing is indexed by a secret), and
//! the byte-map matrices of their GFNI engines.

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

/// The 8×8 GF(2) matrix of the linear byte map that sends bit k to `images[k]` (the images
/// of 1, 2, 4, …, 128), in the layout `gf2p8affineqb` takes: output bit i is the row in
/// byte 7 − i, whose bit k is input bit k's weight. A `const fn`, for the GFNI constants
/// of SM4 and ZUC.
///
/// ```
/// use shangmi_dispatch::bitslice::byte_matrix;
/// // The identity map is Intel's identity matrix.
/// assert_eq!(byte_matrix([1, 2, 4, 8, 16, 32, 64, 128]), 0x0102_0408_1020_4080);
/// ```
pub const fn byte_matrix(images: [u8; 8]) -> u64 {
    let mut a = 0u64;
    let mut i = 0;
    while i < 8 {
        let mut row = 0u8;
        let mut k = 0;
        while k < 8 {
            row |= ((images[k] >> i) & 1) << k;
            k += 1;
        }
        a |= (row as u64) << (8 * (7 - i));
        i += 1;
    }
    a
}
