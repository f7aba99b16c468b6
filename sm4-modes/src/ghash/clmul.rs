//! POLYVAL on the x86 carry-less multiply, one generic step for three register widths:
//! PCLMULQDQ on 128-bit registers (8 blocks per reduction), VPCLMULQDQ on 256-bit AVX2
//! registers (16 blocks) and on 512-bit AVX-512 registers (32 blocks).
//!
//! Each step multiplies block i of n by H^(n-i), sums the products unreduced (aggregated
//! reduction, Gueron & Kounavis, "Intel Carry-Less Multiplication Instruction and its Usage
//! for Computing the GCM Mode", 2010) and reduces once with the two-multiplication
//! Montgomery step by x^128 + x^127 + x^126 + x^121 + 1 (constant 0xc2…01, RFC 8452).

use core::arch::x86_64::*;

use super::{POWERS, Powers};

/// The POLYVAL reduction constant: x^127 + x^126 + x^121 (high word) and 1 (low word).
const POLY_HI: u64 = 0xc200_0000_0000_0000;

/// One register of 128-bit lanes, each lane one block. Every method is an intrinsic of the
/// engine's features, reached only from the `#[target_feature]` entries below.
trait Lanes: Copy {
    /// Blocks per register.
    const BLOCKS: usize;
    /// Loads `BLOCKS` blocks from `p`.
    ///
    /// # Safety
    /// `p` must be valid for `16 * BLOCKS` bytes, and the CPU must have the engine's features.
    unsafe fn load(p: *const u8) -> Self;
    /// Byte-reverses each lane.
    fn bswap(self) -> Self;
    /// Swaps the two 64-bit words of each lane.
    fn swap(self) -> Self;
    fn xor(self, o: Self) -> Self;
    /// The carry-less products of the lanes' 64-bit words chosen by `IMM` (as PCLMULQDQ's).
    fn clmul<const IMM: i32>(self, o: Self) -> Self;
    fn zero() -> Self;
    /// `x` in lane 0, the other lanes zero.
    fn low(x: __m128i) -> Self;
    /// The XOR of all lanes.
    fn fold(self) -> __m128i;
}

const REV: [i8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// The [`Lanes`] impl of one register type: `load`, `swap`, `xor`, `clmul` and `zero` are
/// that width's intrinsics of the same meaning; `bswap`, `low` and `fold` are given as
/// bodies on the value named in their parentheses.
///
/// SAFETY (every `unsafe` block of the three impls, the bodies given included): the
/// intrinsics need PCLMULQDQ, SSSE3 and SSE4.1 (`__m128i`), AVX2 and VPCLMULQDQ
/// (`__m256i`), AVX-512F/BW and VPCLMULQDQ (`__m512i`); each impl is used only by the
/// `update_*` entry of its width, whose `#[target_feature]` enables them and whose caller
/// holds the engine's probe result.
macro_rules! lanes {
    (
        $T:ty, $blocks:literal: $load:ident, $swap:ident, $xor:ident, $clmul:ident, $zero:ident;
        bswap($b:ident) $bswap:block
        low($l:ident) $low:block
        fold($f:ident) $fold:block
    ) => {
        impl Lanes for $T {
            const BLOCKS: usize = $blocks;
            #[inline(always)]
            unsafe fn load(p: *const u8) -> Self {
                // SAFETY: the caller's promise.
                unsafe { $load(p.cast()) }
            }
            #[inline(always)]
            fn bswap(self) -> Self {
                let $b = self;
                $bswap
            }
            #[inline(always)]
            fn swap(self) -> Self {
                // SAFETY: see the macro comment.
                unsafe { $swap::<0x4e>(self) }
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                // SAFETY: see the macro comment.
                unsafe { $xor(self, o) }
            }
            #[inline(always)]
            fn clmul<const IMM: i32>(self, o: Self) -> Self {
                // SAFETY: see the macro comment.
                unsafe { $clmul::<IMM>(self, o) }
            }
            #[inline(always)]
            fn zero() -> Self {
                // SAFETY: see the macro comment.
                unsafe { $zero() }
            }
            #[inline(always)]
            fn low($l: __m128i) -> Self $low
            #[inline(always)]
            fn fold(self) -> __m128i {
                let $f = self;
                $fold
            }
        }
    };
}

lanes! {
    __m128i, 1: _mm_loadu_si128, _mm_shuffle_epi32, _mm_xor_si128, _mm_clmulepi64_si128,
        _mm_setzero_si128;
    bswap(v) {
        // SAFETY: see the macro comment.
        unsafe { _mm_shuffle_epi8(v, _mm_loadu_si128(REV.as_ptr().cast())) }
    }
    low(x) { x }
    fold(v) { v }
}

lanes! {
    __m256i, 2: _mm256_loadu_si256, _mm256_shuffle_epi32, _mm256_xor_si256,
        _mm256_clmulepi64_epi128, _mm256_setzero_si256;
    bswap(v) {
        // SAFETY: see the macro comment.
        unsafe {
            let rev = _mm256_broadcastsi128_si256(_mm_loadu_si128(REV.as_ptr().cast()));
            _mm256_shuffle_epi8(v, rev)
        }
    }
    low(x) {
        // SAFETY: see the macro comment.
        unsafe { _mm256_zextsi128_si256(x) }
    }
    fold(v) {
        // SAFETY: see the macro comment.
        unsafe { _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v)) }
    }
}

lanes! {
    __m512i, 4: _mm512_loadu_si512, _mm512_shuffle_epi32, _mm512_xor_si512,
        _mm512_clmulepi64_epi128, _mm512_setzero_si512;
    bswap(v) {
        // SAFETY: see the macro comment.
        unsafe {
            let rev = _mm512_broadcast_i32x4(_mm_loadu_si128(REV.as_ptr().cast()));
            _mm512_shuffle_epi8(v, rev)
        }
    }
    low(x) {
        // SAFETY: see the macro comment.
        unsafe { _mm512_zextsi128_si512(x) }
    }
    fold(v) {
        // SAFETY: see the macro comment.
        unsafe {
            let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
        }
    }
}

/// `x` as a register (low 64 bits first).
#[inline(always)]
fn to_reg(x: u128) -> __m128i {
    // SAFETY: SSE2, part of the x86-64 baseline.
    unsafe { _mm_set_epi64x((x >> 64) as i64, x as i64) }
}

#[inline(always)]
fn from_reg(x: __m128i) -> u128 {
    let mut out = [0u8; 16];
    // SAFETY: SSE2, part of the x86-64 baseline; `out` is 16 bytes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
    u128::from_le_bytes(out)
}

/// Products of `x` and `h`, summed into (lo, mid, hi).
#[inline(always)]
fn mul_add<L: Lanes>(x: L, h: L, acc: &mut (L, L, L)) {
    acc.0 = acc.0.xor(x.clmul::<0x00>(h));
    acc.2 = acc.2.xor(x.clmul::<0x11>(h));
    acc.1 = acc.1.xor(x.clmul::<0x01>(h)).xor(x.clmul::<0x10>(h));
}

/// Karatsuba products of `x` and `h` summed into (lo, mid', hi), where `hk` holds h0 ⊕ h1
/// in the low word of each lane: mid' = (x0 ⊕ x1)·(h0 ⊕ h1), so the middle product is
/// mid' ⊕ lo ⊕ hi once the sums are complete (three multiplications per block, not four).
#[inline(always)]
fn mul_add_karatsuba<L: Lanes>(x: L, h: L, hk: L, acc: &mut (L, L, L)) {
    acc.0 = acc.0.xor(x.clmul::<0x00>(h));
    acc.2 = acc.2.xor(x.clmul::<0x11>(h));
    acc.1 = acc.1.xor(x.xor(x.swap()).clmul::<0x00>(hk));
}

/// Reduces lo + mid·x^64 + hi·x^128 to (that)·x^-128 mod P.
///
/// Each Montgomery step adds L0·P (P ≡ 1 mod x^64) to clear the low 64 bits and divides by
/// x^64: lo ← swap(lo) ⊕ clmul(L0, 0xc2…).
#[inline(always)]
fn finish(lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: PCLMULQDQ is enabled by every entry that reaches this (see the impl comment);
    // the rest is SSE2.
    unsafe {
        let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
        let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
        let poly = _mm_set_epi64x(POLY_HI as i64, 1);
        let t = _mm_clmulepi64_si128::<0x10>(lo, poly);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        let t = _mm_clmulepi64_si128::<0x10>(lo, poly);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        _mm_xor_si128(lo, hi)
    }
}

/// Absorbs `data` (whole blocks) into `acc`, `K` registers of `L` per reduction.
#[inline(always)]
fn update<L: Lanes, const K: usize, const REV: bool>(p: &Powers, acc: u128, data: &[u8]) -> u128 {
    let step = K * L::BLOCKS;
    let prep = |x: L| if REV { x.bswap() } else { x };
    let mut acc = to_reg(acc);
    let mut chunks = data.chunks_exact(16 * step);
    // The wide registers only for data that has a whole step (short updates, as GCM's
    // length block, skip loading the powers).
    if data.len() >= 16 * step {
        // The powers H^step … H^1, as K registers.
        // SAFETY: `step` ≤ 32 powers of 16 bytes each, read from the end of `p`.
        let pw: [L; K] = core::array::from_fn(|r| unsafe {
            L::load(p[POWERS - step + r * L::BLOCKS..].as_ptr().cast())
        });
        // Up to 16 blocks per step the accumulator joins as its own product acc·H^step,
        // added after the lanes are folded: the chain from one step's accumulator to the
        // next is then one 128-bit multiplication and the reduction, while the step's data
        // products (independent of it) overlap the previous step's chain. A 32-block step
        // is long enough to hide the longer chain of adding the accumulator to block 0
        // (its product summed last), which saves those four multiplications: the
        // multiplier is what bounds this loop (GMAC 8 KiB 22.2 -> 23.9 GB/s on Zen 5).
        let fold_acc = step >= 32;
        let h_top = to_reg(p[POWERS - step]);
        let pk: [L; K] = core::array::from_fn(|r| pw[r].xor(pw[r].swap()));
        for chunk in &mut chunks {
            let mut sums = (L::zero(), L::zero(), L::zero());
            for (r, (h, hk)) in pw.iter().zip(&pk).enumerate().skip(1) {
                // SAFETY: `chunk` holds `step` blocks; register r reads blocks r·BLOCKS
                // onwards.
                let x = prep(unsafe { L::load(chunk[16 * r * L::BLOCKS..].as_ptr()) });
                mul_add_karatsuba(x, *h, *hk, &mut sums);
            }
            // SAFETY: as above, register 0.
            let x = prep(unsafe { L::load(chunk.as_ptr()) });
            if fold_acc {
                mul_add_karatsuba(x.xor(L::low(acc)), pw[0], pk[0], &mut sums);
                let (lo, hi) = (sums.0.fold(), sums.2.fold());
                acc = finish(lo, sums.1.fold().xor(lo).xor(hi), hi);
            } else {
                mul_add_karatsuba(x, pw[0], pk[0], &mut sums);
                let (lo, hi) = (sums.0.fold(), sums.2.fold());
                let mut folded = (lo, sums.1.fold().xor(lo).xor(hi), hi);
                mul_add(acc, h_top, &mut folded);
                acc = finish(folded.0, folded.1, folded.2);
            }
        }
    }
    // Fewer than `step` blocks left: block i of n times H^(n-i), one reduction.
    let rest = chunks.remainder();
    let n = rest.len() / 16;
    if n > 0 {
        let mut sums = (__m128i::zero(), __m128i::zero(), __m128i::zero());
        for (i, block) in rest.chunks_exact(16).enumerate() {
            // SAFETY: `block` is 16 bytes.
            let mut x = unsafe { __m128i::load(block.as_ptr()) };
            if REV {
                x = x.bswap();
            }
            if i == 0 {
                x = x.xor(acc);
            }
            mul_add(x, to_reg(p[POWERS - n + i]), &mut sums);
        }
        acc = finish(sums.0, sums.1, sums.2);
    }
    from_reg(acc)
}

/// POLYVAL's dot(a, b) = a·b·x^-128 mod P.
///
/// # Safety
/// The CPU must have PCLMULQDQ, SSSE3 and SSE4.1.
#[target_feature(enable = "pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn dot(a: u128, b: u128) -> u128 {
    let mut sums = (__m128i::zero(), __m128i::zero(), __m128i::zero());
    mul_add(to_reg(a), to_reg(b), &mut sums);
    from_reg(finish(sums.0, sums.1, sums.2))
}

/// [`update`] on PCLMULQDQ: 8 blocks per reduction.
///
/// # Safety
/// The CPU must have PCLMULQDQ, SSSE3 and SSE4.1.
#[target_feature(enable = "pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn update_pclmulqdq<const REV: bool>(p: &Powers, acc: u128, data: &[u8]) -> u128 {
    update::<__m128i, 8, REV>(p, acc, data)
}

/// [`update`] on VPCLMULQDQ with AVX2: 16 blocks per reduction.
///
/// # Safety
/// The CPU must have AVX2, VPCLMULQDQ, PCLMULQDQ, SSSE3 and SSE4.1.
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn update_vpclmulqdq_avx2<const REV: bool>(
    p: &Powers,
    acc: u128,
    data: &[u8],
) -> u128 {
    update::<__m256i, 8, REV>(p, acc, data)
}

/// [`update`] on VPCLMULQDQ with AVX-512: 32 blocks per reduction.
///
/// # Safety
/// The CPU must have AVX-512F/BW/VL, VPCLMULQDQ, PCLMULQDQ, SSSE3 and SSE4.1.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn update_vpclmulqdq_avx512<const REV: bool>(
    p: &Powers,
    acc: u128,
    data: &[u8],
) -> u128 {
    update::<__m512i, 8, REV>(p, acc, data)
}

/// GHASH's running state between SM4's rounds (`shangmi_sm4::CtrHook`): 64 blocks per
/// step of the cipher, absorbed 8 blocks at a time, reduced every 32 blocks with the
/// accumulator added to their first block. Schoolbook products (four multiplies per
/// register, the powers as memory operands): inside the cipher's rounds the multiplier is
/// idle and every other instruction is what costs, and schoolbook needs no operand
/// preparation.
#[derive(Clone, Copy)]
pub(super) struct Fused<'k> {
    powers: &'k Powers,
    acc: __m128i,
    sums: (__m512i, __m512i, __m512i),
}

impl<'k> Fused<'k> {
    /// The state for `acc` with key powers `powers`.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn new(powers: &'k Powers, acc: u128) -> Self {
        let z = _mm512_setzero_si512();
        Fused {
            powers,
            acc: to_reg(acc),
            sums: (z, z, z),
        }
    }

    /// The accumulator (whole steps absorbed).
    pub(super) fn acc(&self) -> u128 {
        from_reg(self.acc)
    }

    /// Absorbs blocks 8i..8i+8 of the 64 blocks `data` (nothing if `data` is empty).
    ///
    /// # Safety
    /// Runs only inlined into code with AVX-512F/BW, VPCLMULQDQ, PCLMULQDQ, SSSE3 and SSE4.1
    /// enabled (a `#[target_feature]` entry), on a CPU that has them.
    #[inline(always)]
    pub(super) unsafe fn step(&mut self, i: usize, data: &[u8]) {
        if data.len() < 64 * 16 || i >= 8 {
            return;
        }
        let j = i % 4;
        let at = &data[128 * i..128 * i + 128];
        // SAFETY: `at` holds 8 blocks: 4 from its start, 4 from byte 64.
        let (mut x0, x1) = unsafe {
            (
                __m512i::load(at.as_ptr()).bswap(),
                __m512i::load(at[64..].as_ptr()).bswap(),
            )
        };
        // The powers of blocks 8j..8j+8 of the 32: H^(32-8j) … H^(25-8j).
        let p = &self.powers[POWERS - 32 + 8 * j..POWERS - 24 + 8 * j];
        // SAFETY: `p` holds 8 powers of 16 bytes.
        let (h0, h1) = unsafe {
            (
                __m512i::load(p.as_ptr().cast()),
                __m512i::load(p[4..].as_ptr().cast()),
            )
        };
        if j == 0 {
            x0 = x0.xor(__m512i::low(self.acc));
            self.sums = (__m512i::zero(), __m512i::zero(), __m512i::zero());
        }
        mul_add(x0, h0, &mut self.sums);
        mul_add(x1, h1, &mut self.sums);
        if j == 3 {
            self.acc = finish(self.sums.0.fold(), self.sums.1.fold(), self.sums.2.fold());
        }
    }
}

/// [`Fused::step`] out of line, for steps that do not run between the rounds.
///
/// # Safety
/// The CPU must have AVX-512F/BW/VL, VPCLMULQDQ, PCLMULQDQ, SSSE3 and SSE4.1.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn fused_step(f: &mut Fused<'_>, i: usize, data: &[u8]) {
    // SAFETY: this entry enables the features, and the caller's promise says they are here.
    unsafe { f.step(i, data) }
}
