//! Portable constant-time engine: a bitsliced boolean circuit for the S-box.
//!
//! The S-box is S(x) = A·inv(A·x + 0xD3) + 0xD3 with inv in GF(2^8) mod
//! x^8+x^7+x^6+x^5+x^4+x^2+1 (Liu et al., "Analysis of the SMS4 block cipher", ACISP 2007).
//! The inversion runs in the isomorphic tower field GF((2^4)^2) (the idea of Canright's
//! compact AES S-box), so the whole S-box is XOR/AND/NOT on bit planes: no table, no
//! branch, no secret-dependent address. Sixteen blocks share one evaluation: the sixteen
//! T-words (64 bytes) are transposed into eight 64-bit bit planes, run through the circuit
//! and transposed back; the linear layer L stays in ordinary word form.

use cipher::{Block, inout::InOutBuf};

use crate::key::RoundKeys;

/// Blocks per circuit evaluation.
pub(crate) const PAR_BLOCKS: usize = 16;

/// Rows of the input map: SM4's affine A (with 0xD3) followed by the change of basis into
/// the tower field (generator 0x8E of the tower field, lambda = w^3 + 1). Row i lists the
/// input bits whose XOR gives output bit i. Derived by `tools/derive_sbox.py` and checked
/// exhaustively against the GB/T 32907 table by the tests.
const TOP_ROWS: [u8; 8] = [0xf0, 0x72, 0xd6, 0x18, 0x93, 0x40, 0xc4, 0x7f];
const TOP_CONST: u8 = 0xaf;
/// Rows of the output map: back from the tower field, then A and 0xD3.
const BOTTOM_ROWS: [u8; 8] = [0x33, 0x65, 0x14, 0xb5, 0x8a, 0x2a, 0x07, 0x29];
const BOTTOM_CONST: u8 = 0xd3;

type Planes = [u64; 8];
type Nibble = [u64; 4];

/// An affine map over bit planes; `rows` and `konst` are public constants, so the loop
/// unrolls into a fixed XOR network.
#[inline(always)]
fn affine(rows: &[u8; 8], konst: u8, x: &Planes) -> Planes {
    let mut out = [0u64; 8];
    for (i, o) in out.iter_mut().enumerate() {
        let mut acc = 0u64.wrapping_sub(u64::from((konst >> i) & 1));
        for (j, xj) in x.iter().enumerate() {
            if (rows[i] >> j) & 1 == 1 {
                acc ^= xj;
            }
        }
        *o = acc;
    }
    out
}

/// Product in GF(2^4) = GF(2)[w]/(w^4 + w + 1).
#[inline(always)]
fn mul16(a: &Nibble, b: &Nibble) -> Nibble {
    let c0 = a[0] & b[0];
    let c1 = (a[0] & b[1]) ^ (a[1] & b[0]);
    let c2 = (a[0] & b[2]) ^ (a[1] & b[1]) ^ (a[2] & b[0]);
    let c3 = (a[0] & b[3]) ^ (a[1] & b[2]) ^ (a[2] & b[1]) ^ (a[3] & b[0]);
    let c4 = (a[1] & b[3]) ^ (a[2] & b[2]) ^ (a[3] & b[1]);
    let c5 = (a[2] & b[3]) ^ (a[3] & b[2]);
    let c6 = a[3] & b[3];
    [c0 ^ c4, c1 ^ c4 ^ c5, c2 ^ c5 ^ c6, c3 ^ c6]
}

/// Square in GF(2^4) (a linear map).
#[inline(always)]
fn square16(a: &Nibble) -> Nibble {
    [a[0] ^ a[2], a[2], a[1] ^ a[3], a[3]]
}

/// Product with lambda = w^3 + 1 (a linear map).
#[inline(always)]
fn mul_lambda(a: &Nibble) -> Nibble {
    [a[0] ^ a[1], a[2], a[3], a[0]]
}

/// Inverse in GF(2^4) (0 maps to 0), as the algebraic normal form of a^14 (derived by
/// `tools/derive_sbox.py`; `field_maps_are_what_they_claim` checks it): 10 AND, 23 XOR.
#[inline(always)]
fn inv16(a: &Nibble) -> Nibble {
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

/// Inverse in GF((2^4)^2) = GF(2^4)[Y]/(Y^2 + Y + lambda), 0 maps to 0:
/// (a1·Y + a0)^-1 = (a1·Y + a0 + a1) / (lambda·a1^2 + a1·a0 + a0^2).
#[inline(always)]
fn inv256(x: &Planes) -> Planes {
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

/// The S-box on every byte of eight words (64 bytes at once).
#[inline(always)]
fn sbox_planes(mut q: Planes) -> Planes {
    ortho(&mut q);
    let t = affine(&TOP_ROWS, TOP_CONST, &q);
    let mut s = affine(&BOTTOM_ROWS, BOTTOM_CONST, &inv256(&t));
    ortho(&mut s);
    s
}

/// tau: the S-box on each byte of sixteen words.
#[inline(always)]
fn tau16(t: &[u32; PAR_BLOCKS]) -> [u32; PAR_BLOCKS] {
    let mut q = [0u64; 8];
    for (k, qk) in q.iter_mut().enumerate() {
        *qk = u64::from(t[k]) | (u64::from(t[k + 8]) << 32);
    }
    let s = sbox_planes(q);
    let mut out = [0u32; PAR_BLOCKS];
    for (k, sk) in s.iter().enumerate() {
        out[k] = *sk as u32;
        out[k + 8] = (*sk >> 32) as u32;
    }
    out
}

/// tau on a single word (key expansion).
pub(crate) fn tau(a: u32) -> u32 {
    let mut t = [0u32; PAR_BLOCKS];
    t[0] = a;
    tau16(&t)[0]
}

/// L: B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24).
#[inline(always)]
fn l(b: u32) -> u32 {
    b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24)
}

/// One round: `a ^= L(tau(b ^ c ^ d ^ k))` for sixteen blocks.
#[inline(always)]
fn round(
    a: &mut [u32; PAR_BLOCKS],
    b: &[u32; PAR_BLOCKS],
    c: &[u32; PAR_BLOCKS],
    d: &[u32; PAR_BLOCKS],
    k: u32,
) {
    let t: [u32; PAR_BLOCKS] = core::array::from_fn(|j| b[j] ^ c[j] ^ d[j] ^ k);
    for (aj, sj) in a.iter_mut().zip(tau16(&t)) {
        *aj ^= l(sj);
    }
}

/// 32 rounds on sixteen blocks held as four arrays of words.
fn rounds(rk: &RoundKeys, x: &mut [[u32; PAR_BLOCKS]; 4]) {
    let [x0, x1, x2, x3] = x;
    for k in rk.chunks_exact(4) {
        round(x0, x1, x2, x3, k[0]);
        round(x1, x2, x3, x0, k[1]);
        round(x2, x3, x0, x1, k[2]);
        round(x3, x0, x1, x2, k[3]);
    }
}

/// Encrypts (or, with reversed round keys, decrypts) up to sixteen blocks.
fn crypt_chunk(rk: &RoundKeys, mut blocks: InOutBuf<'_, '_, Block<crate::Sm4>>) {
    let mut x = [[0u32; PAR_BLOCKS]; 4];
    for (j, block) in blocks.get_in().iter().enumerate() {
        for (i, xi) in x.iter_mut().enumerate() {
            xi[j] = u32::from_be_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ]);
        }
    }
    rounds(rk, &mut x);
    for (j, block) in blocks.get_out().iter_mut().enumerate() {
        for i in 0..4 {
            block[4 * i..4 * i + 4].copy_from_slice(&x[3 - i][j].to_be_bytes());
        }
    }
}

/// Encrypts (or, with reversed round keys, decrypts) any number of blocks.
pub(crate) fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<crate::Sm4>>) {
    let mut rest = blocks;
    while !rest.is_empty() {
        let n = rest.len().min(PAR_BLOCKS);
        let (head, tail) = rest.split_at(n);
        crypt_chunk(rk, head);
        rest = tail;
    }
}

/// XORs `blocks` with E(ctr), E(ctr + 1), … counting in the last word only (mod 2^32),
/// and advances `ctr`.
pub(crate) fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<crate::Sm4>]) {
    for chunk in blocks.chunks_mut(PAR_BLOCKS) {
        let mut x = [
            [ctr[0]; PAR_BLOCKS],
            [ctr[1]; PAR_BLOCKS],
            [ctr[2]; PAR_BLOCKS],
            [ctr[3]; PAR_BLOCKS],
        ];
        for (j, w) in x[3].iter_mut().enumerate() {
            *w = w.wrapping_add(j as u32);
        }
        rounds(rk, &mut x);
        for (j, block) in chunk.iter_mut().enumerate() {
            for i in 0..4 {
                for (b, k) in block[4 * i..4 * i + 4]
                    .iter_mut()
                    .zip(x[3 - i][j].to_be_bytes())
                {
                    *b ^= k;
                }
            }
        }
        ctr[3] = ctr[3].wrapping_add(chunk.len() as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_maps_are_what_they_claim() {
        // square16 and mul_lambda must agree with mul16 on every element.
        for a in 0u64..16 {
            let x: Nibble = core::array::from_fn(|i| 0u64.wrapping_sub((a >> i) & 1));
            assert_eq!(square16(&x), mul16(&x, &x), "square of {a}");
            let lambda: Nibble = [!0, 0, 0, !0];
            assert_eq!(mul_lambda(&x), mul16(&x, &lambda), "lambda times {a}");
            // a * a^-1 = 1 for a != 0, and 0 maps to 0.
            let one: Nibble = if a == 0 { [0; 4] } else { [!0, 0, 0, 0] };
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
