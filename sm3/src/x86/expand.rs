//! The SM3 message expansion on 128-bit registers, four words per step.
//!
//! Group G_m = W_{4m..4m+4} is computed from G_{m-4..m-1}: the windows W_{j-13}, W_{j-9},
//! W_{j-6} come from `palignr`, W_{j-3} from a byte shift that leaves lane 3 zero. Lane 3
//! really needs W_j (lane 0 of the result); since P1 is linear, adding
//! P1(W_j <<< 15) to lane 3 afterwards fixes it (the technique of Intel's SM3 AVX code
//! and the Linux kernel's sm3-avx). The steps are separate so the engines can interleave
//! them with the rounds.

use core::{arch::x86_64::*, cell::Cell};

/// A pointer for vector stores into an array of cells (interior mutability: the rounds
/// read the same words through another shared reference).
#[inline(always)]
fn cells_ptr<const N: usize>(a: &[Cell<u32>; N]) -> *mut u32 {
    a.as_ptr().cast::<u32>().cast_mut()
}

/// How a rotate and a three-way XOR are done on 128-bit registers, implemented by the
/// x86 kernel tokens: a value is the proof that the kernel's features (at least AVX2, so
/// SSSE3) are present, which is the SAFETY argument of every intrinsic call in this file.
pub(crate) trait Xmm: Copy {
    /// Lane-wise rotate left by `N`.
    fn rotl<const N: i32>(self, x: __m128i) -> __m128i;
    /// `a ^ b ^ c`.
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i;
}

/// Rotates from two shifts and an OR.
impl Xmm for super::Avx2 {
    #[inline(always)]
    fn rotl<const N: i32>(self, x: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            _mm_or_si128(
                _mm_slli_epi32::<N>(x),
                _mm_srl_epi32(x, _mm_cvtsi32_si128(32 - N)),
            )
        }
    }
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_xor_si128(_mm_xor_si128(a, b), c) }
    }
}

/// `vprold` rotates and `vpternlogd` XORs.
impl Xmm for super::Avx512 {
    #[inline(always)]
    fn rotl<const N: i32>(self, x: __m128i) -> __m128i {
        // SAFETY: `self` proves AVX-512F and AVX-512VL.
        unsafe { _mm_rol_epi32::<N>(x) }
    }
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: `self` proves AVX-512F and AVX-512VL.
        unsafe { _mm_ternarylogic_epi32::<0x96>(a, b, c) }
    }
}

/// P1(x) = x ^ (x <<< 15) ^ (x <<< 23).
#[inline(always)]
fn p1<X: Xmm>(k: X, x: __m128i) -> __m128i {
    k.xor3(x, k.rotl::<15>(x), k.rotl::<23>(x))
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

    /// G_0..G_3: the block's words, big-endian, also stored into `w[..16]`, and
    /// W'_0..W'_11 into `wp[..12]`.
    #[inline(always)]
    pub(crate) fn load<X: Xmm>(
        &mut self,
        _proof: X,
        block: &[u8; 64],
        w: &[Cell<u32>; 68],
        wp: &[Cell<u32>; 64],
    ) {
        let (w, wp) = (cells_ptr(w), cells_ptr(wp));
        // SAFETY: `_proof` is a kernel token with at least AVX2 (so SSSE3 for `pshufb`;
        // see `Xmm`); each load reads 16 bytes inside
        // `block` (offsets 0, 16, 32, 48), each store writes words 4m..4m+4 <= 16 of `w`
        // or `wp`.
        unsafe {
            let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
            for (m, gm) in self.0.iter_mut().take(4).enumerate() {
                let raw = _mm_loadu_si128(block.as_ptr().add(16 * m).cast());
                *gm = _mm_shuffle_epi8(raw, bswap);
                _mm_storeu_si128(w.add(4 * m).cast(), *gm);
            }
            for m in 0..3 {
                let wpm = _mm_xor_si128(self.0[m], self.0[m + 1]);
                _mm_storeu_si128(wp.add(4 * m).cast(), wpm);
            }
        }
    }

    /// G_m for 4 <= m < 17, from G_{m-4}..G_{m-1}; stores G_m into `w` and
    /// W'_{4(m-1)..4m} = G_{m-1} ^ G_m into `wp`. Storing each group as soon as it
    /// exists (not all at the end) gives the stores time to retire before the rounds load
    /// single words from them (no store-to-load forwarding from vector stores).
    #[inline(always)]
    pub(crate) fn step<X: Xmm>(
        &mut self,
        k: X,
        m: usize,
        w: &[Cell<u32>; 68],
        wp: &[Cell<u32>; 64],
    ) {
        let (w, wp) = (cells_ptr(w), cells_ptr(wp));
        let g = &mut self.0;
        // SAFETY: SSSE3/SSE2 instructions; `k` is a kernel token with at least AVX2 (see
        // `Xmm`). 4 <= m < 17, so the store into `w` covers words
        // 4m..4m+4 <= 68 and the one into `wp` words 4(m-1)..4m <= 64.
        unsafe {
            let (g4, g3, g2, g1) = (g[m - 4], g[m - 3], g[m - 2], g[m - 1]);
            let w13 = _mm_alignr_epi8::<12>(g3, g4);
            let w9 = _mm_alignr_epi8::<12>(g2, g3);
            let w6 = _mm_alignr_epi8::<8>(g1, g2);
            let w3 = _mm_srli_si128::<4>(g1);
            let x = p1(k, k.xor3(g4, w9, k.rotl::<15>(w3)));
            let r = k.xor3(x, k.rotl::<7>(w13), w6);
            let fix = k.rotl::<15>(_mm_slli_si128::<12>(r));
            let gm = _mm_xor_si128(r, p1(k, fix));
            g[m] = gm;
            _mm_storeu_si128(w.add(4 * m).cast(), gm);
            _mm_storeu_si128(wp.add(4 * (m - 4)).cast(), _mm_xor_si128(g4, g3));
            if m == 16 {
                for k in 13..16 {
                    _mm_storeu_si128(wp.add(4 * k).cast(), _mm_xor_si128(g[k], g[k + 1]));
                }
            }
        }
    }
}

/// One block's message schedule computed four rounds ahead of the rounds that use it:
/// G_0..G_4 before round 0, then G_{5+i} after round group i, so the serial expansion
/// runs in the shadow of the serial rounds (also for a single block) and every vector
/// store is long retired when the rounds load single words from it.
///
/// The words live in cells written through one reference and read through another that
/// went through `black_box`: LLVM then keeps the scalar loads (which fold into the
/// rounds' adds) instead of forwarding the vector stores into `vpextrd`s.
pub(crate) struct Ahead<'a, X: Xmm> {
    g: Groups,
    w: &'a [Cell<u32>; 68],
    wp: &'a [Cell<u32>; 64],
    w_read: &'a [Cell<u32>; 68],
    wp_read: &'a [Cell<u32>; 64],
    x: X,
}

impl<'a, X: Xmm> Ahead<'a, X> {
    /// Starts `block` with `w`, `wp` as scratch: G_0..G_4, W_0..W_19, W'_0..W'_15.
    #[inline(always)]
    pub(crate) fn start(
        x: X,
        block: &[u8; 64],
        w: &'a [Cell<u32>; 68],
        wp: &'a [Cell<u32>; 64],
    ) -> Self {
        let mut a = Ahead {
            g: Groups::new(),
            w,
            wp,
            w_read: core::hint::black_box(w),
            wp_read: core::hint::black_box(wp),
            x,
        };
        a.g.load(x, block, a.w, a.wp);
        a.g.step(x, 4, a.w, a.wp);
        a
    }
}

impl<X: Xmm> crate::rounds::Message<u32> for Ahead<'_, X> {
    #[inline(always)]
    fn w(&self, j: usize) -> u32 {
        self.w_read[j].get()
    }
    #[inline(always)]
    fn wp(&self, j: usize) -> u32 {
        self.wp_read[j].get()
    }
    #[inline(always)]
    fn after(&mut self, i: usize) {
        if i < 12 {
            self.g.step(self.x, 5 + i, self.w, self.wp);
        }
    }
}
