//! A CBC chain (CBC-MAC, CCM, CMAC: state = E(state ⊕ block), block after block) on GFNI,
//! with a shorter round than the generic single-block path.
//!
//! The latency of one round is what counts here. The generic round runs XOR, the S-box's
//! input affine map, the inversion with its output affine map, then L's rotations and XORs.
//! This one keeps the state as y = P·x, P the linear part of the S-box's input map, so
//! the input affine map folds into the state (P is bytewise linear, so P·(x1 ⊕ x2 ⊕ x3 ⊕ rk)
//! is y1 ⊕ y2 ⊕ y3 ⊕ P·rk); and it folds P·L(S(·)) into four `gf2p8affineinvqb` of the same
//! input: L commutes with byte rotation, so L = Σ_d rot_{8d} ∘ C_d with bytewise 8×8
//! matrices C_d, and P·C_d·(post-map) is one matrix. The round is then one XOR, one
//! `gf2p8affineinvqb`, one byte rotation and two XOR levels (about 6 cycles, against 9).
//! The state leaves the y domain by P⁻¹ once at the end. (Our construction; the domain
//! change is the usual "merge linear layers into the S-box tables" of table-based AES.)

use core::arch::x86_64::*;

use cipher::Block;

use crate::{Sm4, key::RoundKeys};

use super::sbox::{GFNI_POST, GFNI_PRE, GFNI_PRE_C};

/// `gf2p8affineqb` on one byte: output bit i is the parity of `x` and byte 7 − i of `a`.
const fn apply(a: u64, x: u8) -> u8 {
    let mut r = 0u8;
    let mut i = 0;
    while i < 8 {
        let row = (a >> (8 * (7 - i))) as u8;
        if (row & x).count_ones() & 1 == 1 {
            r |= 1 << i;
        }
        i += 1;
    }
    r
}

/// The matrix (Intel layout) of the bytewise linear map sending bit k to `img[k]`.
const fn matrix(img: [u8; 8]) -> u64 {
    let mut a = 0u64;
    let mut i = 0;
    while i < 8 {
        let mut row = 0u8;
        let mut k = 0;
        while k < 8 {
            row |= ((img[k] >> i) & 1) << k;
            k += 1;
        }
        a |= (row as u64) << (8 * (7 - i));
        i += 1;
    }
    a
}

/// C_d: what L sends from byte i of a word to byte i + d (L = Σ_d rot_{8d} ∘ C_d; from its
/// rotations by 0, 2, 10, 18 and 24 bits).
const fn c(d: usize, v: u8) -> u8 {
    match d {
        0 => v ^ (v << 2),
        1 | 2 => (v >> 6) ^ (v << 2),
        _ => (v >> 6) ^ v,
    }
}

const PRE: u64 = GFNI_PRE as u64;
const POST: u64 = GFNI_POST as u64;
/// The S-box's output constant (`GFNI_POST_C`).
const POST_C: u8 = 0xd3;

/// P·C_d·POST, the matrix taking inv(u) to P·C_d·S's output.
const fn g(d: usize) -> u64 {
    let mut img = [0u8; 8];
    let mut k = 0;
    while k < 8 {
        img[k] = apply(PRE, c(d, apply(POST, 1 << k)));
        k += 1;
    }
    matrix(img)
}

/// P·C_d·0xD3, the constant that goes with [`g`].
const fn gc(d: usize) -> i32 {
    apply(PRE, c(d, POST_C)) as i32
}

/// P⁻¹ (P is invertible: it is T·A of two invertible maps).
const fn pre_inverse() -> u64 {
    let mut img = [0u8; 8];
    let mut k = 0;
    while k < 8 {
        let mut v = 0u16;
        while v < 256 {
            if apply(PRE, v as u8) == 1 << k {
                img[k] = v as u8;
            }
            v += 1;
        }
        k += 1;
    }
    matrix(img)
}

const G0: u64 = g(0);
const G1: u64 = g(1);
const G3: u64 = g(3);
const G0_C: i32 = gc(0);
const G1_C: i32 = gc(1);
const G3_C: i32 = gc(3);
const PRE_INV: u64 = pre_inverse();
const _: () = assert!(g(1) == g(2) && gc(1) == gc(2));

const BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
const ROTL8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
const ROTL16: [u8; 16] = [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13];
const ROTL24: [u8; 16] = [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12];

/// The registers the chain needs, loaded once.
struct Consts {
    bswap: __m128i,
    rot8: __m128i,
    rot16: __m128i,
    rot24: __m128i,
    pre: __m128i,
    g0: __m128i,
    g1: __m128i,
    g3: __m128i,
    zero: __m128i,
}

// SAFETY (every `unsafe` block below): reached only from the `chain` entries of the
// `gfni-avx2` and `gfni-avx512` kernels (`simd_kernel!`: `chain_body::<Vex>` and
// `chain_body::<Evex>`), whose `target_feature` sets (GFNI, AVX2, and for the latter
// AVX-512F/VL) include every intrinsic used and which run only on the kernel's token, made
// after the CPU probe found those features; loads and stores go through references of the
// right size.

#[inline(always)]
fn splat64(v: u64) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_set1_epi64x(v as i64) }
}

#[inline(always)]
fn bytes(v: [u8; 16]) -> __m128i {
    // SAFETY: see above (16 bytes from a 16-byte array).
    unsafe { _mm_loadu_si128(v.as_ptr().cast()) }
}

#[inline(always)]
fn xor(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_xor_si128(a, b) }
}

#[inline(always)]
fn shuffle(a: __m128i, idx: __m128i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_shuffle_epi8(a, idx) }
}

/// The block's four big-endian words, each broadcast to a register, mapped by P.
#[inline(always)]
fn lanes_p(k: &Consts, block: &[u8; 16]) -> [__m128i; 4] {
    let v = shuffle(bytes(*block), k.bswap);
    // SAFETY: see above.
    unsafe {
        [
            _mm_gf2p8affine_epi64_epi8::<0>(_mm_shuffle_epi32::<0x00>(v), k.pre),
            _mm_gf2p8affine_epi64_epi8::<0>(_mm_shuffle_epi32::<0x55>(v), k.pre),
            _mm_gf2p8affine_epi64_epi8::<0>(_mm_shuffle_epi32::<0xaa>(v), k.pre),
            _mm_gf2p8affine_epi64_epi8::<0>(_mm_shuffle_epi32::<0xff>(v), k.pre),
        ]
    }
}

/// Three-way XOR: `vpternlogq` where AVX-512VL is enabled, two `vpxor` elsewhere.
pub(super) trait Xor3 {
    fn xor3(a: __m128i, b: __m128i, c: __m128i) -> __m128i;
}

/// VEX encodings only (the `gfni-avx2` engine).
pub(super) struct Vex;
impl Xor3 for Vex {
    #[inline(always)]
    fn xor3(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        xor(xor(a, b), c)
    }
}

/// EVEX encodings (the `gfni-avx512` engine).
pub(super) struct Evex;
impl Xor3 for Evex {
    #[inline(always)]
    fn xor3(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: see above (AVX-512F/VL enabled by `chain_avx512`, the only caller).
        unsafe { _mm_ternarylogic_epi64::<0x96>(a, b, c) }
    }
}

/// Round `I` (mod 4): `y[I] ^= P·L(S(u))`, and `u` becomes the next round's S-box input.
///
/// P·L(S(u)) = r0 ⊕ rot8(r1) ⊕ rot16(r1) ⊕ rot24(r3) with r_d = P·C_d·S(u) (C_1 = C_2).
/// `u` is carried as (the two older words ⊕ next key ⊕ old `y[I]` ⊕ r0) ⊕ the three
/// rotated terms, explicitly grouped (two three-way XORs after the rotations) so that only
/// the newest terms wait for this round.
#[inline(always)]
fn round<X: Xor3, const I: usize>(
    k: &Consts,
    y: &mut [__m128i; 4],
    u: &mut __m128i,
    next_key: __m128i,
) {
    // SAFETY: see above.
    let (r0, r1, r3) = unsafe {
        (
            _mm_gf2p8affineinv_epi64_epi8::<G0_C>(*u, k.g0),
            _mm_gf2p8affineinv_epi64_epi8::<G1_C>(*u, k.g1),
            _mm_gf2p8affineinv_epi64_epi8::<G3_C>(*u, k.g3),
        )
    };
    let (a, b, c) = (
        shuffle(r1, k.rot8),
        shuffle(r1, k.rot16),
        shuffle(r3, k.rot24),
    );
    let others = X::xor3(y[(I + 2) % 4], y[(I + 3) % 4], xor(next_key, y[I]));
    *u = X::xor3(X::xor3(xor(others, r0), a, b), c, k.zero);
    y[I] = X::xor3(X::xor3(y[I], r0, a), b, c);
}

/// The chain body: for each block, `state = E(state ⊕ block)`, written to `out[i]` too for
/// each i < `out.len()` (off the chain's critical path).
#[inline(always)]
pub(super) fn chain_body<X: Xor3>(
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    let k = Consts {
        bswap: bytes(BSWAP32),
        rot8: bytes(ROTL8),
        rot16: bytes(ROTL16),
        rot24: bytes(ROTL24),
        pre: splat64(PRE),
        g0: splat64(G0),
        g1: splat64(G1),
        g3: splat64(G3),
        zero: splat64(0),
    };
    // P·rk ⊕ the input map's constant, per round.
    // SAFETY: see above.
    let keys: [__m128i; 32] = core::array::from_fn(|r| unsafe {
        _mm_gf2p8affine_epi64_epi8::<GFNI_PRE_C>(_mm_set1_epi32(rk[r] as i32), k.pre)
    });
    let mut y = lanes_p(&k, &(*state).into());
    let mut out = out.iter_mut();
    for block in blocks {
        let m = lanes_p(&k, &(*block).into());
        for (y, m) in y.iter_mut().zip(m) {
            *y = xor(*y, m);
        }
        let mut u = xor(xor(y[1], y[2]), xor(keys[0], y[3]));
        for r in (0..32).step_by(4) {
            round::<X, 0>(&k, &mut y, &mut u, keys[r + 1]);
            round::<X, 1>(&k, &mut y, &mut u, keys[r + 2]);
            round::<X, 2>(&k, &mut y, &mut u, keys[r + 3]);
            round::<X, 3>(&k, &mut y, &mut u, keys[(r + 4) % 32]);
        }
        y = [y[3], y[2], y[1], y[0]];
        if let Some(o) = out.next() {
            *o = leave_p(&k, &y);
        }
    }
    *state = leave_p(&k, &y);
}

/// The block whose words are P⁻¹ of `y`'s lanes (leaving the P domain).
#[inline(always)]
fn leave_p(k: &Consts, y: &[__m128i; 4]) -> Block<Sm4> {
    let pre_inv = splat64(PRE_INV);
    // SAFETY: see above.
    let x = unsafe {
        [
            _mm_gf2p8affine_epi64_epi8::<0>(y[0], pre_inv),
            _mm_gf2p8affine_epi64_epi8::<0>(y[1], pre_inv),
            _mm_gf2p8affine_epi64_epi8::<0>(y[2], pre_inv),
            _mm_gf2p8affine_epi64_epi8::<0>(y[3], pre_inv),
        ]
    };
    // SAFETY: see above.
    let out = unsafe {
        _mm_unpacklo_epi64(
            _mm_unpacklo_epi32(x[0], x[1]),
            _mm_unpacklo_epi32(x[2], x[3]),
        )
    };
    let out = shuffle(out, k.bswap);
    let mut bytes_out = [0u8; 16];
    // SAFETY: see above (16 bytes into a 16-byte array).
    unsafe { _mm_storeu_si128(bytes_out.as_mut_ptr().cast(), out) };
    bytes_out.into()
}
