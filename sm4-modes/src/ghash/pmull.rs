//! POLYVAL on the aarch64 carry-less multiply (PMULL/PMULL2, FEAT_PMULL), 8 blocks per
//! reduction: the same aggregated reduction and Montgomery step as the x86 engine
//! (`clmul.rs`), on NEON registers.

use core::arch::aarch64::*;

use super::{POWERS, Powers};

/// The POLYVAL reduction constant's high word: x^127 + x^126 + x^121.
const POLY_HI: u64 = 0xc200_0000_0000_0000;

/// Blocks per reduction.
const STEP: usize = 8;

// SAFETY (every `unsafe` block below): the intrinsics need NEON and FEAT_PMULL ("aes"), which
// the `#[target_feature]` entries `dot` and `update` enable and whose callers hold the
// engine's probe result; every function here is inlined into them.

#[inline(always)]
fn to_reg(x: u128) -> uint64x2_t {
    // SAFETY: see the comment above.
    unsafe { vcombine_u64(vcreate_u64(x as u64), vcreate_u64((x >> 64) as u64)) }
}

#[inline(always)]
fn from_reg(x: uint64x2_t) -> u128 {
    // SAFETY: see the comment above.
    unsafe { u128::from(vgetq_lane_u64::<0>(x)) | (u128::from(vgetq_lane_u64::<1>(x)) << 64) }
}

/// The carry-less product of 64-bit words `a[I]` and `b[J]`. `#[inline]` with its feature
/// (not `inline(always)`): it inlines once the callers are inlined into the entries below,
/// which enable PMULL.
#[target_feature(enable = "aes")]
#[inline]
unsafe fn pmull<const I: i32, const J: i32>(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<I>(a), vgetq_lane_u64::<J>(b)))
}

#[inline(always)]
fn clmul<const I: i32, const J: i32>(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    // SAFETY: see the comment above (PMULL enabled by the entries).
    unsafe { pmull::<I, J>(a, b) }
}

#[inline(always)]
fn xor(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    // SAFETY: see the comment above.
    unsafe { veorq_u64(a, b) }
}

/// Products of `x` and `h`, summed into (lo, mid, hi).
#[inline(always)]
fn mul_add(x: uint64x2_t, h: uint64x2_t, s: &mut (uint64x2_t, uint64x2_t, uint64x2_t)) {
    s.0 = xor(s.0, clmul::<0, 0>(x, h));
    s.2 = xor(s.2, clmul::<1, 1>(x, h));
    s.1 = xor(s.1, xor(clmul::<0, 1>(x, h), clmul::<1, 0>(x, h)));
}

/// Reduces lo + mid·x^64 + hi·x^128 to (that)·x^-128 mod P (see `clmul.rs`).
#[inline(always)]
fn finish(s: (uint64x2_t, uint64x2_t, uint64x2_t)) -> uint64x2_t {
    // SAFETY: see the comment above.
    unsafe {
        let zero = vdupq_n_u64(0);
        let lo = xor(s.0, vextq_u64::<1>(zero, s.1));
        let hi = xor(s.2, vextq_u64::<1>(s.1, zero));
        let poly = vdupq_n_u64(POLY_HI);
        let t = clmul::<0, 0>(lo, poly);
        let lo = xor(vextq_u64::<1>(lo, lo), t);
        let t = clmul::<0, 0>(lo, poly);
        let lo = xor(vextq_u64::<1>(lo, lo), t);
        xor(lo, hi)
    }
}

/// Loads a block, byte-reversed for GHASH (`REV`).
#[inline(always)]
fn load<const REV: bool>(block: &[u8; 16]) -> uint64x2_t {
    // SAFETY: see the comment above; `block` is 16 bytes.
    unsafe {
        let b = vld1q_u8(block.as_ptr());
        let b = if REV {
            let r = vrev64q_u8(b);
            vextq_u8::<8>(r, r)
        } else {
            b
        };
        vreinterpretq_u64_u8(b)
    }
}

/// POLYVAL's dot(a, b) = a·b·x^-128 mod P.
///
/// # Safety
/// The CPU must have NEON and FEAT_PMULL.
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn dot(a: u128, b: u128) -> u128 {
    let z = to_reg(0);
    let mut s = (z, z, z);
    mul_add(to_reg(a), to_reg(b), &mut s);
    from_reg(finish(s))
}

/// Absorbs `data` (whole blocks) into `acc`, [`STEP`] blocks per reduction.
///
/// # Safety
/// The CPU must have NEON and FEAT_PMULL.
#[target_feature(enable = "neon,aes")]
pub(super) unsafe fn update<const REV: bool>(p: &Powers, acc: u128, data: &[u8]) -> u128 {
    let pw: [uint64x2_t; STEP] = core::array::from_fn(|i| to_reg(p[POWERS - STEP + i]));
    let mut acc = to_reg(acc);
    let (blocks, _) = data.as_chunks::<16>();
    let mut steps = blocks.chunks_exact(STEP);
    let z = to_reg(0);
    for step in &mut steps {
        let mut s = (z, z, z);
        for (i, (b, h)) in step.iter().zip(&pw).enumerate() {
            let mut x = load::<REV>(b);
            if i == 0 {
                x = xor(x, acc);
            }
            mul_add(x, *h, &mut s);
        }
        acc = finish(s);
    }
    let rest = steps.remainder();
    if !rest.is_empty() {
        let n = rest.len();
        let mut s = (z, z, z);
        for (i, b) in rest.iter().enumerate() {
            let mut x = load::<REV>(b);
            if i == 0 {
                x = xor(x, acc);
            }
            mul_add(x, to_reg(p[POWERS - n + i]), &mut s);
        }
        acc = finish(s);
    }
    from_reg(acc)
}
