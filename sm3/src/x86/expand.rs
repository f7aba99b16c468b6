//! The SM3 message expansion on 128-bit registers, four words per step.
//!
//! Group G_m = W_{4m..4m+4} is computed from G_{m-4..m-1}: the windows W_{j-13}, W_{j-9},
//! W_{j-6} come from `palignr`, W_{j-3} from a byte shift that leaves lane 3 zero. Lane 3
//! really needs W_j (lane 0 of the result); since P1 is linear, adding
//! P1(W_j <<< 15) to lane 3 afterwards fixes it (the technique of Intel's SM3 AVX code
//! and the Linux kernel's sm3-avx). The steps are separate so the engines can interleave
//! them with the rounds.
//!
//! The registers carry their proof: [`V`] holds a kernel token next to the vector, its
//! fields are private to this module, and the functions that make one from nothing take
//! the token. The token's [`Xmm`] implementation (`unsafe`) says that its backend's
//! probe found the instructions used here (SSSE3 and older; for the `avx512` token also
//! AVX-512F/VL, see [`Xmm`]), which is the SAFETY argument of every intrinsic call in this
//! file; loads and stores also take arrays of the exact size they touch.

use core::{arch::x86_64::*, cell::Cell};

/// A kernel token whose backend has SSSE3 (`pshufb`, `palignr`; every x86 SM3 backend has
/// AVX2, which implies it). Its rotation and three-way XOR are SSE2 by default; the
/// `avx512` token's are one `vprold` and one `vpternlogd`, which take a group's step from
/// about 38 vector instructions to about 20. The vector instructions run beside the
/// scalar rounds but share the core's dispatch with them, so fewer of them leave more of
/// each cycle to the rounds (Zen 4, 8 KiB: 497 -> 505 MB/s, together with the feed-forward
/// in general registers, `rounds_asm::rounds`; in an AVX-512 entry without that change LLVM
/// moved the state through vector registers and the kernel ran 2% slower). With the groups
/// of rounds on 64-byte lines as well, the kernel runs 7.00 cycles a round (7.32 before),
/// the same as its rounds alone without the expansion (`benches` example `floors`).
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe found SSSE3.
pub(crate) unsafe trait Xmm: Copy {
    /// Lane-wise rotate left by `N`: two shifts and an OR (SSE2).
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

    /// `a ^ b ^ c`: two XORs (SSE2).
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_xor_si128(_mm_xor_si128(a, b), c) }
    }
}

/// A 128-bit register (four message words) of kernel `X`.
#[derive(Clone, Copy)]
pub(crate) struct V<X>(__m128i, X);

impl<X: Xmm> V<X> {
    /// All zero.
    #[inline(always)]
    fn zero(k: X) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        V(unsafe { _mm_setzero_si128() }, k)
    }

    /// The four big-endian words of `bytes`.
    #[inline(always)]
    fn load_be(k: X, bytes: &[u8; 16]) -> Self {
        // SAFETY: `k` proves SSSE3 (`Xmm`); the load reads the 16 bytes of `bytes`.
        V(
            unsafe {
                let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
                _mm_shuffle_epi8(_mm_loadu_si128(bytes.as_ptr().cast()), bswap)
            },
            k,
        )
    }

    /// Stores the four words into `dst[..4]` (interior mutability: the rounds read the
    /// same words through another shared reference).
    #[inline(always)]
    fn store(self, dst: &[Cell<u32>]) {
        assert!(dst.len() >= 4);
        // SAFETY: SSE2 is part of x86-64; the store writes the 16 bytes of `dst[..4]`
        // (checked above), whose `Cell`s allow writes through a shared reference.
        unsafe { _mm_storeu_si128(dst.as_ptr().cast::<u32>().cast_mut().cast(), self.0) }
    }

    /// `self ^ o`.
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        V(unsafe { _mm_xor_si128(self.0, o.0) }, self.1)
    }

    /// Bytes `N..N + 16` of `lo` followed by `self` (`palignr`).
    #[inline(always)]
    fn align<const N: i32>(self, lo: Self) -> Self {
        // SAFETY: `self` carries a token that proves SSSE3 (`Xmm`).
        V(unsafe { _mm_alignr_epi8::<N>(self.0, lo.0) }, self.1)
    }

    /// Shifted right by `N` bytes, zeros in.
    #[inline(always)]
    fn shr_bytes<const N: i32>(self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        V(unsafe { _mm_srli_si128::<N>(self.0) }, self.1)
    }

    /// Shifted left by `N` bytes, zeros in.
    #[inline(always)]
    fn shl_bytes<const N: i32>(self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        V(unsafe { _mm_slli_si128::<N>(self.0) }, self.1)
    }

    /// Lane-wise rotate left by `N` ([`Xmm::rotl`]).
    #[inline(always)]
    fn rotl<const N: i32>(self) -> Self {
        V(self.1.rotl::<N>(self.0), self.1)
    }

    /// `self ^ b ^ c` ([`Xmm::xor3`]).
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        V(self.1.xor3(self.0, b.0, c.0), self.1)
    }

    /// P1(x) = x ^ (x <<< 15) ^ (x <<< 23).
    #[inline(always)]
    fn p1(self) -> Self {
        self.xor3(self.rotl::<15>(), self.rotl::<23>())
    }
}

/// The 17 groups of four W words of one block, computed step by step.
struct Groups<X>([V<X>; 17]);

impl<X: Xmm> Groups<X> {
    /// Starts `block` on kernel `k`, writing into `scratch`: G_0..G_4, W_0..W_19,
    /// W'_0..W'_15 (what rounds 0..16 read).
    #[inline(always)]
    fn start(k: X, block: &[u8; 64], scratch: &Scratch) -> Self {
        let mut g = Groups::load(k, block, &scratch.w, &scratch.wp);
        g.step(4, &scratch.w, &scratch.wp);
        g
    }

    /// To run after round group `i` (rounds 4i..4i+4), i = 0..16: G_{5+i} while there is
    /// one (W_{20+4i}.., W'_{16+4i}..).
    #[inline(always)]
    fn after(&mut self, i: usize, scratch: &Scratch) {
        if i < 12 {
            self.step(5 + i, &scratch.w, &scratch.wp);
        }
    }

    /// G_0..G_3: the block's words, big-endian, also stored into `w[..16]`, and
    /// W'_0..W'_11 into `wp[..12]`.
    #[inline(always)]
    fn load(k: X, block: &[u8; 64], w: &[Cell<u32>; 68], wp: &[Cell<u32>; 64]) -> Self {
        let mut g = Groups([V::zero(k); 17]);
        let (chunks, _) = block.as_chunks::<16>();
        for (m, (gm, bytes)) in g.0.iter_mut().zip(chunks).enumerate() {
            *gm = V::load_be(k, bytes);
            gm.store(&w[4 * m..]);
        }
        for m in 0..3 {
            g.0[m].xor(g.0[m + 1]).store(&wp[4 * m..]);
        }
        g
    }

    /// G_m for 4 <= m < 17, from G_{m-4}..G_{m-1}; stores G_m into `w` and
    /// W'_{4(m-1)..4m} = G_{m-1} ^ G_m into `wp`. Storing each group as soon as it
    /// exists (not all at the end) gives the stores time to retire before the rounds load
    /// single words from them (no store-to-load forwarding from vector stores).
    #[inline(always)]
    fn step(&mut self, m: usize, w: &[Cell<u32>; 68], wp: &[Cell<u32>; 64]) {
        let g = &mut self.0;
        let (g4, g3, g2, g1) = (g[m - 4], g[m - 3], g[m - 2], g[m - 1]);
        let w13 = g3.align::<12>(g4);
        let w9 = g2.align::<12>(g3);
        let w6 = g1.align::<8>(g2);
        let w3 = g1.shr_bytes::<4>();
        let x = g4.xor3(w9, w3.rotl::<15>()).p1();
        let r = x.xor3(w13.rotl::<7>(), w6);
        let fix = r.shl_bytes::<12>().rotl::<15>();
        let gm = r.xor(fix.p1());
        g[m] = gm;
        gm.store(&w[4 * m..]);
        g1.xor(gm).store(&wp[4 * (m - 1)..]);
    }
}

// SAFETY: the `avx2` backend's probe checks AVX2, which implies SSSE3.
unsafe impl Xmm for super::Avx2 {}

// SAFETY: the `avx512` backend's probe checks AVX2, which implies SSSE3, and
// AVX-512F/VL, which `vprold` and `vpternlogd` on 128-bit registers need.
unsafe impl Xmm for super::Avx512 {
    /// One `vprold`.
    #[inline(always)]
    fn rotl<const N: i32>(self, x: __m128i) -> __m128i {
        // SAFETY: `self` proves AVX-512F and AVX-512VL (the impl's SAFETY comment).
        unsafe { _mm_rol_epi32::<N>(x) }
    }

    /// One `vpternlogd`.
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: `self` proves AVX-512F and AVX-512VL (the impl's SAFETY comment).
        unsafe { _mm_ternarylogic_epi32::<0x96>(a, b, c) }
    }
}

/// The words the rounds read from memory: W_0..W_67 and W'_0..W'_63 of the block in
/// hand, one after the other so that one register addresses both.
#[repr(C)]
pub(crate) struct Scratch {
    w: [Cell<u32>; 68],
    wp: [Cell<u32>; 64],
}

impl Scratch {
    /// Empty words.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Scratch {
            w: [const { Cell::new(0) }; 68],
            wp: [const { Cell::new(0) }; 64],
        }
    }

    /// Where W_0..W_67 start, followed by W'_0..W'_63 at byte offset 272: 132 words.
    #[inline(always)]
    pub(crate) fn words(&self) -> *const u32 {
        const { assert!(core::mem::offset_of!(Scratch, wp) == 272) };
        self.w.as_ptr().cast()
    }
}

/// One block's message schedule computed four rounds ahead of the rounds that use it:
/// G_0..G_4 before round 0, then G_{5+i} after round group i, so the serial expansion
/// runs in the shadow of the serial rounds (also for a single block) and every vector
/// store is long retired when the rounds load single words from it.
pub(crate) struct Ahead<'a, X> {
    g: Groups<X>,
    scratch: &'a Scratch,
}

impl<'a, X: Xmm> Ahead<'a, X> {
    /// Starts `block` on kernel `k`, writing into `scratch`: G_0..G_4, W_0..W_19,
    /// W'_0..W'_15.
    #[inline(always)]
    pub(crate) fn start(k: X, block: &[u8; 64], scratch: &'a Scratch) -> Self {
        Ahead {
            g: Groups::start(k, block, scratch),
            scratch,
        }
    }

    /// [`Groups::after`].
    #[inline(always)]
    pub(crate) fn after(&mut self, i: usize) {
        self.g.after(i, self.scratch);
    }
}
