//! The S-box as a boolean circuit on bit planes (eight words, word k holding bit k of
//! many bytes): SM4's affine map, inversion in the tower field GF((2^4)^2), affine map.
//! The circuit is generic over the plane's word ([`Plane`]): `u64` planes of 64 bytes for
//! sixteen blocks, `u32` planes for one block's four bytes.

use core::ops::{BitAnd, BitXor};

// Product in GF(2^4) = GF(2)[w]/(w^4 + w + 1), shared with ZUC's S1 circuit.
use shangmi_dispatch::bitslice::gf16_mul as mul16;

/// A word the circuit runs on: every gate is bitwise, so bit j of every output plane
/// depends only on bit j of the input planes.
pub(super) trait Plane: Copy + BitAnd<Output = Self> + BitXor<Output = Self> {
    /// All bits clear.
    const ZERO: Self;
    /// All bits set.
    const ONES: Self;
}

impl Plane for u64 {
    const ZERO: Self = 0;
    const ONES: Self = !0;
}

impl Plane for u32 {
    const ZERO: Self = 0;
    const ONES: Self = !0;
}

/// Rows of the input map: SM4's affine A (with 0xD3) followed by the change of basis into
/// the tower field (generator 0x8E of the tower field, lambda = w^3 + 1). Row i lists the
/// input bits whose XOR gives output bit i. Derived by `tools/derive_sbox.py` and checked
/// exhaustively against the GB/T 32907 table by the tests.
const TOP_ROWS: [u8; 8] = [0xf0, 0x72, 0xd6, 0x18, 0x93, 0x40, 0xc4, 0x7f];
const TOP_CONST: u8 = 0xaf;
/// Rows of the output map: back from the tower field, then A and 0xD3.
const BOTTOM_ROWS: [u8; 8] = [0x33, 0x65, 0x14, 0xb5, 0x8a, 0x2a, 0x07, 0x29];
const BOTTOM_CONST: u8 = 0xd3;

/// Eight bit planes.
pub(super) type Planes<W = u64> = [W; 8];
type Nibble<W> = [W; 4];

/// An affine map over bit planes; `rows` and `konst` are public constants, so the loop
/// unrolls into a fixed XOR network.
#[inline(always)]
fn affine<W: Plane>(rows: &[u8; 8], konst: u8, x: &Planes<W>) -> Planes<W> {
    let mut out = [W::ZERO; 8];
    for (i, o) in out.iter_mut().enumerate() {
        let mut acc = if (konst >> i) & 1 == 1 {
            W::ONES
        } else {
            W::ZERO
        };
        for (j, &xj) in x.iter().enumerate() {
            if (rows[i] >> j) & 1 == 1 {
                acc = acc ^ xj;
            }
        }
        *o = acc;
    }
    out
}

/// Square in GF(2^4) (a linear map).
#[inline(always)]
fn square16<W: Plane>(a: &Nibble<W>) -> Nibble<W> {
    [a[0] ^ a[2], a[2], a[1] ^ a[3], a[3]]
}

/// Product with lambda = w^3 + 1 (a linear map).
#[inline(always)]
fn mul_lambda<W: Plane>(a: &Nibble<W>) -> Nibble<W> {
    [a[0] ^ a[1], a[2], a[3], a[0]]
}

/// Inverse in GF(2^4) (0 maps to 0), as the algebraic normal form of a^14 (derived by
/// `tools/derive_sbox.py`; `field_maps_are_what_they_claim` checks it): 10 AND, 23 XOR.
#[inline(always)]
fn inv16<W: Plane>(a: &Nibble<W>) -> Nibble<W> {
    let [x0, x1, x2, x3] = *a;
    let (x01, x02, x03, x12, x13, x23) = (x0 & x1, x0 & x2, x0 & x3, x1 & x2, x1 & x3, x2 & x3);
    let (x012, x123, x013, x023) = (x01 & x2, x12 & x3, x01 & x3, x02 & x3);
    [
        x0 ^ x1 ^ x2 ^ x3 ^ x02 ^ x12 ^ x012 ^ x123,
        x01 ^ x02 ^ x12 ^ x3 ^ x13 ^ x013,
        x01 ^ x2 ^ x02 ^ x3 ^ x03 ^ x023,
        x1 ^ x2 ^ x3 ^ x03 ^ x13 ^ x23 ^ x123,
    ]
}

/// Inverse in GF((2^4)^2) = GF(2^4)\[Y\]/(Y^2 + Y + lambda), 0 maps to 0:
/// (a1·Y + a0)^-1 = (a1·Y + a0 + a1) / (lambda·a1^2 + a1·a0 + a0^2).
#[inline(always)]
fn inv256<W: Plane>(x: &Planes<W>) -> Planes<W> {
    let a0 = [x[0], x[1], x[2], x[3]];
    let a1 = [x[4], x[5], x[6], x[7]];
    let l = mul_lambda(&square16(&a1));
    let m = mul16(&a1, &a0);
    let s = square16(&a0);
    let delta = [
        l[0] ^ m[0] ^ s[0],
        l[1] ^ m[1] ^ s[1],
        l[2] ^ m[2] ^ s[2],
        l[3] ^ m[3] ^ s[3],
    ];
    let d = inv16(&delta);
    let sum = [a0[0] ^ a1[0], a0[1] ^ a1[1], a0[2] ^ a1[2], a0[3] ^ a1[3]];
    let b1 = mul16(&a1, &d);
    let b0 = mul16(&sum, &d);
    [b0[0], b0[1], b0[2], b0[3], b1[0], b1[1], b1[2], b1[3]]
}

/// Swaps the bits of `a` selected by `mask << n` with the bits of `b` selected by `mask`.
#[inline(always)]
fn swap_move(a: &mut u64, b: &mut u64, mask: u64, n: u32) {
    let t = ((*a >> n) ^ *b) & mask;
    *b ^= t;
    *a ^= t << n;
}

/// Transposes the 8x8 bit matrices formed by byte k of each of the eight words: afterwards
/// word i holds bit i of every byte. The transform is its own inverse.
#[inline(always)]
fn ortho(q: &mut Planes) {
    let [q0, q1, q2, q3, q4, q5, q6, q7] = q;
    for (a, b) in [(&mut *q0, &mut *q1), (q2, q3), (q4, q5), (q6, q7)] {
        swap_move(a, b, 0x5555_5555_5555_5555, 1);
    }
    let [q0, q1, q2, q3, q4, q5, q6, q7] = q;
    for (a, b) in [(&mut *q0, &mut *q2), (q1, q3), (q4, q6), (q5, q7)] {
        swap_move(a, b, 0x3333_3333_3333_3333, 2);
    }
    let [q0, q1, q2, q3, q4, q5, q6, q7] = q;
    for (a, b) in [(&mut *q0, &mut *q4), (q1, q5), (q2, q6), (q3, q7)] {
        swap_move(a, b, 0x0f0f_0f0f_0f0f_0f0f, 4);
    }
}

/// The S-box on every byte of eight words (64 bytes at once), transposing to bit planes
/// and back.
#[inline(always)]
pub(super) fn sbox_planes(mut q: Planes) -> Planes {
    ortho(&mut q);
    let mut s = sbox_circuit(&q);
    ortho(&mut s);
    s
}

/// The S-box on bit planes: plane k holds bit k of each byte.
#[inline(always)]
pub(super) fn sbox_circuit<W: Plane>(q: &Planes<W>) -> Planes<W> {
    let t = affine(&TOP_ROWS, TOP_CONST, q);
    affine(&BOTTOM_ROWS, BOTTOM_CONST, &inv256(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_maps_are_what_they_claim() {
        // square16 and mul_lambda must agree with mul16 on every element.
        for a in 0u64..16 {
            let x: Nibble<u64> = core::array::from_fn(|i| 0u64.wrapping_sub((a >> i) & 1));
            assert_eq!(square16(&x), mul16(&x, &x), "square of {a}");
            let lambda: Nibble<u64> = [!0, 0, 0, !0];
            assert_eq!(mul_lambda(&x), mul16(&x, &lambda), "lambda times {a}");
            // a * a^-1 = 1 for a != 0, and 0 maps to 0.
            let one: Nibble<u64> = if a == 0 { [0; 4] } else { [!0, 0, 0, 0] };
            assert_eq!(mul16(&x, &inv16(&x)), one, "inverse of {a}");
        }
    }

    #[test]
    fn ortho_is_an_involution_that_slices_bits() {
        let mut q: Planes =
            core::array::from_fn(|i| 0x0123_4567_89ab_cdefu64.rotate_left(7 * i as u32) ^ i as u64);
        let orig = q;
        ortho(&mut q);
        for (i, plane) in q.iter().enumerate() {
            for k in 0..8 {
                for (j, word) in orig.iter().enumerate() {
                    assert_eq!((plane >> (8 * k + j)) & 1, (word >> (8 * k + i)) & 1);
                }
            }
        }
        ortho(&mut q);
        assert_eq!(q, orig);
    }
}
