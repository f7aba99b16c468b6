//! The SM3 message expansion on 128-bit registers, four words per step.
//!
//! Group G_m = W_{4m..4m+4} is computed from G_{m-4..m-1}: the windows W_{j-13}, W_{j-9},
//! W_{j-6} come from `palignr`, W_{j-3} from a byte shift that leaves lane 3 zero. Lane 3
//! really needs W_j (lane 0 of the result); since P1 is linear, adding
//! P1(W_j <<< 15) to lane 3 afterwards fixes it (the technique of Intel's SM3 AVX code
//! and the Linux kernel's sm3-avx). The steps are separate so the engines can interleave
//! them with the previous block's rounds.

use core::arch::x86_64::*;

/// How a rotate and a three-way XOR are done on 128-bit registers.
pub(crate) trait Xmm {
    /// Lane-wise rotate left by `N`.
    fn rotl<const N: i32>(x: __m128i) -> __m128i;
    /// `a ^ b ^ c`.
    fn xor3(a: __m128i, b: __m128i, c: __m128i) -> __m128i;
}

/// Rotates from two shifts and an OR (AVX2 engine).
pub(crate) struct ShiftRotate;

impl Xmm for ShiftRotate {
    #[inline(always)]
    fn rotl<const N: i32>(x: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64; only called from the AVX2 engine's entry.
        unsafe {
            _mm_or_si128(
                _mm_slli_epi32::<N>(x),
                _mm_srl_epi32(x, _mm_cvtsi32_si128(32 - N)),
            )
        }
    }
    #[inline(always)]
    fn xor3(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_xor_si128(_mm_xor_si128(a, b), c) }
    }
}

/// `vprold` rotates and `vpternlogd` XORs (AVX-512F + VL engine).
pub(crate) struct Vprold;

impl Xmm for Vprold {
    #[inline(always)]
    fn rotl<const N: i32>(x: __m128i) -> __m128i {
        // SAFETY: only called from `compress_avx512`, which runs only after the probe
        // confirmed AVX-512F and AVX-512VL.
        unsafe { _mm_rol_epi32::<N>(x) }
    }
    #[inline(always)]
    fn xor3(a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: as for `rotl` (AVX-512F + VL confirmed by the probe).
        unsafe { _mm_ternarylogic_epi32::<0x96>(a, b, c) }
    }
}

/// P1(x) = x ^ (x <<< 15) ^ (x <<< 23).
#[inline(always)]
fn p1<X: Xmm>(x: __m128i) -> __m128i {
    X::xor3(x, X::rotl::<15>(x), X::rotl::<23>(x))
}

/// The 17 groups of four W words of one block, computed step by step.
pub(crate) struct Groups(pub(crate) [__m128i; 17]);

impl Groups {
    /// Empty groups.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        // SAFETY: SSE2 is part of x86-64.
        Self([unsafe { _mm_setzero_si128() }; 17])
    }

    /// G_0..G_3: the block's words, big-endian, also stored into `w[..16]`.
    #[inline(always)]
    pub(crate) fn load(&mut self, block: &[u8; 64], w: &mut [u32; 68]) {
        // SAFETY: the callers are `target_feature` entries with at least AVX2 (so SSSE3
        // for `pshufb`), confirmed by the CPU probe; each load reads 16 bytes inside
        // `block` (offsets 0, 16, 32, 48), each store writes words 4m..4m+4 < 16 of `w`.
        unsafe {
            let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
            for (m, gm) in self.0.iter_mut().take(4).enumerate() {
                let raw = _mm_loadu_si128(block.as_ptr().add(16 * m).cast());
                *gm = _mm_shuffle_epi8(raw, bswap);
                _mm_storeu_si128(w.as_mut_ptr().add(4 * m).cast(), *gm);
            }
        }
    }

    /// G_m for 4 <= m < 17, from G_{m-4}..G_{m-1}; stores G_m into `w` and
    /// W'_{4(m-4)..4(m-3)} = G_{m-4} ^ G_{m-3} into `wp`. Storing each group as soon as it
    /// exists (not all at the end) gives the stores time to retire before the rounds load
    /// single words from them (no store-to-load forwarding from vector stores).
    #[inline(always)]
    pub(crate) fn step<X: Xmm>(&mut self, m: usize, w: &mut [u32; 68], wp: &mut [u32; 64]) {
        let g = &mut self.0;
        // SAFETY: SSSE3/SSE2 instructions, inside `target_feature` entries with at least
        // AVX2 confirmed by the CPU probe. 4 <= m < 17, so the store into `w` covers words
        // 4m..4m+4 <= 68 and the ones into `wp` words 4(m-4)..4(m-3) <= 52 and, at m = 16,
        // 52..64.
        unsafe {
            let (g4, g3, g2, g1) = (g[m - 4], g[m - 3], g[m - 2], g[m - 1]);
            let w13 = _mm_alignr_epi8::<12>(g3, g4);
            let w9 = _mm_alignr_epi8::<12>(g2, g3);
            let w6 = _mm_alignr_epi8::<8>(g1, g2);
            let w3 = _mm_srli_si128::<4>(g1);
            let x = p1::<X>(X::xor3(g4, w9, X::rotl::<15>(w3)));
            let r = X::xor3(x, X::rotl::<7>(w13), w6);
            let fix = X::rotl::<15>(_mm_slli_si128::<12>(r));
            let gm = _mm_xor_si128(r, p1::<X>(fix));
            g[m] = gm;
            _mm_storeu_si128(w.as_mut_ptr().add(4 * m).cast(), gm);
            _mm_storeu_si128(
                wp.as_mut_ptr().add(4 * (m - 4)).cast(),
                _mm_xor_si128(g4, g3),
            );
            if m == 16 {
                for k in 13..16 {
                    _mm_storeu_si128(
                        wp.as_mut_ptr().add(4 * k).cast(),
                        _mm_xor_si128(g[k], g[k + 1]),
                    );
                }
            }
        }
    }
}

/// Expands `block` into W_0..W_67 (`w`) and W'_0..W'_63 (`wp`) in one go.
#[inline(always)]
pub(crate) fn expand<X: Xmm>(block: &[u8; 64], w: &mut [u32; 68], wp: &mut [u32; 64]) {
    let mut g = Groups::new();
    g.load(block, w);
    for m in 4..17 {
        g.step::<X>(m, w, wp);
    }
}

/// The work `rounds_with` interleaves after round group `i` (0..16) of the current block:
/// the next block's load and its 13 expansion steps, written into `w`, `wp`.
pub(crate) struct ExpandNext<'a, X: Xmm> {
    /// The groups being computed.
    pub(crate) g: Groups,
    /// The next block.
    pub(crate) next: &'a [u8; 64],
    /// Where its W goes.
    pub(crate) w: &'a mut [u32; 68],
    /// Where its W' goes.
    pub(crate) wp: &'a mut [u32; 64],
    /// The rotate flavour.
    pub(crate) x: core::marker::PhantomData<X>,
}

impl<X: Xmm> crate::rounds::Between for ExpandNext<'_, X> {
    #[inline(always)]
    fn after(&mut self, i: usize) {
        match i {
            0 => self.g.load(self.next, self.w),
            1..=13 => self.g.step::<X>(i + 3, self.w, self.wp),
            _ => {}
        }
    }
}
