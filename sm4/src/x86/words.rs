//! [`Word`] for 128-, 256- and 512-bit registers.
//!
//! SAFETY (all blocks below): these methods are `#[inline(always)]` and reached only from
//! the engines' `#[target_feature]` entry points (`aesni_avx2`, `gfni_avx2`,
//! `gfni_avx512`), which are called only after the dispatch probe confirmed the features
//! the entry enables; every intrinsic used here needs at most SSSE3/AVX2 (128/256-bit) or
//! AVX-512F/BW (512-bit), which those entries enable. Loads and stores check the length of
//! the slice they touch first.

use core::arch::x86_64::*;

use cipher::Block;

use crate::Sm4;
use crate::simd::{Single, Word};

/// Rotation masks for `pshufb`: rotate each 32-bit lane left by 8, 16, 24 bits.
const ROTL8: u128 = u128::from_le_bytes([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14]);
const ROTL16: u128 = u128::from_le_bytes([2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13]);
const ROTL24: u128 = u128::from_le_bytes([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]);

#[inline(always)]
fn halves(v: u128) -> (i64, i64) {
    ((v >> 64) as u64 as i64, v as u64 as i64)
}

impl Word for __m128i {
    const BLOCKS: usize = 1;
    #[inline(always)]
    fn add32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_add_epi32(self, o) }
    }
    #[inline(always)]
    fn block_index() -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_setr_epi32(0, 1, 2, 3) }
    }
    #[inline(always)]
    fn load(src: &[Block<Sm4>]) -> Self {
        assert!(!src.is_empty());
        // SAFETY: see the module comment; `src` holds at least 16 bytes.
        unsafe { _mm_loadu_si128(src.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, dst: &mut [Block<Sm4>]) {
        assert!(!dst.is_empty());
        // SAFETY: see the module comment; `dst` holds at least 16 bytes.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    fn splat(w: u32) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_set1_epi32(w as i32) }
    }
    #[inline(always)]
    fn bcast128(v: u128) -> Self {
        let (hi, lo) = halves(v);
        // SAFETY: see the module comment.
        unsafe { _mm_set_epi64x(hi, lo) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_xor_si128(self, o) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_and_si128(self, o) }
    }
    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        // SAFETY: see the module comment (SSSE3).
        unsafe { _mm_shuffle_epi8(self, idx) }
    }
    #[inline(always)]
    fn shr4(self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_srli_epi16::<4>(self) }
    }
    #[inline(always)]
    fn l(self) -> Self {
        // L(B) = B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2)
        let t = self.xor3(
            self.shuffle(Self::bcast128(ROTL8)),
            self.shuffle(Self::bcast128(ROTL16)),
        );
        // SAFETY: see the module comment.
        let t2 = unsafe { _mm_or_si128(_mm_slli_epi32::<2>(t), _mm_srli_epi32::<30>(t)) };
        self.xor3(self.shuffle(Self::bcast128(ROTL24)), t2)
    }
    #[inline(always)]
    fn unpack_lo32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_unpacklo_epi32(self, o) }
    }
    #[inline(always)]
    fn unpack_hi32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_unpackhi_epi32(self, o) }
    }
    #[inline(always)]
    fn unpack_lo64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_unpacklo_epi64(self, o) }
    }
    #[inline(always)]
    fn unpack_hi64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm_unpackhi_epi64(self, o) }
    }
}

impl Word for __m256i {
    const BLOCKS: usize = 2;
    #[inline(always)]
    fn add32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_add_epi32(self, o) }
    }
    #[inline(always)]
    fn block_index() -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7) }
    }
    #[inline(always)]
    fn load(src: &[Block<Sm4>]) -> Self {
        assert!(src.len() >= 2);
        // SAFETY: see the module comment; `src` holds at least 32 bytes.
        unsafe { _mm256_loadu_si256(src.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, dst: &mut [Block<Sm4>]) {
        assert!(dst.len() >= 2);
        // SAFETY: see the module comment; `dst` holds at least 32 bytes.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    fn splat(w: u32) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_set1_epi32(w as i32) }
    }
    #[inline(always)]
    fn bcast128(v: u128) -> Self {
        let (hi, lo) = halves(v);
        // SAFETY: see the module comment.
        unsafe { _mm256_broadcastsi128_si256(_mm_set_epi64x(hi, lo)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_xor_si256(self, o) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_and_si256(self, o) }
    }
    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_shuffle_epi8(self, idx) }
    }
    #[inline(always)]
    fn shr4(self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_srli_epi16::<4>(self) }
    }
    #[inline(always)]
    fn l(self) -> Self {
        // L(B) = B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2)
        let t = self.xor3(
            self.shuffle(Self::bcast128(ROTL8)),
            self.shuffle(Self::bcast128(ROTL16)),
        );
        // SAFETY: see the module comment.
        let t2 = unsafe { _mm256_or_si256(_mm256_slli_epi32::<2>(t), _mm256_srli_epi32::<30>(t)) };
        self.xor3(self.shuffle(Self::bcast128(ROTL24)), t2)
    }
    #[inline(always)]
    fn unpack_lo32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_unpacklo_epi32(self, o) }
    }
    #[inline(always)]
    fn unpack_hi32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_unpackhi_epi32(self, o) }
    }
    #[inline(always)]
    fn unpack_lo64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_unpacklo_epi64(self, o) }
    }
    #[inline(always)]
    fn unpack_hi64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm256_unpackhi_epi64(self, o) }
    }
}

impl Word for __m512i {
    const BLOCKS: usize = 4;
    #[inline(always)]
    fn add32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_add_epi32(self, o) }
    }
    #[inline(always)]
    fn block_index() -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15) }
    }
    #[inline(always)]
    fn load(src: &[Block<Sm4>]) -> Self {
        assert!(src.len() >= 4);
        // SAFETY: see the module comment; `src` holds at least 64 bytes.
        unsafe { _mm512_loadu_si512(src.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, dst: &mut [Block<Sm4>]) {
        assert!(dst.len() >= 4);
        // SAFETY: see the module comment; `dst` holds at least 64 bytes.
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    fn splat(w: u32) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_set1_epi32(w as i32) }
    }
    #[inline(always)]
    fn bcast128(v: u128) -> Self {
        let (hi, lo) = halves(v);
        // SAFETY: see the module comment.
        unsafe { _mm512_broadcast_i32x4(_mm_set_epi64x(hi, lo)) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_xor_si512(self, o) }
    }
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        // SAFETY: see the module comment. 0x96 is the truth table of a ^ b ^ c.
        unsafe { _mm512_ternarylogic_epi32::<0x96>(self, b, c) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_and_si512(self, o) }
    }
    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        // SAFETY: see the module comment (AVX-512BW).
        unsafe { _mm512_shuffle_epi8(self, idx) }
    }
    #[inline(always)]
    fn shr4(self) -> Self {
        // SAFETY: see the module comment (AVX-512BW).
        unsafe { _mm512_srli_epi16::<4>(self) }
    }
    #[inline(always)]
    fn l(self) -> Self {
        let [r2, r10, r18, r24] = rotations(self);
        self.xor3(r2, r10).xor3(r18, r24)
    }
    #[inline(always)]
    fn xor_l(self, b: Self) -> Self {
        // Two independent three-way XORs, then one more: depth 3 after the rotates.
        let [r2, r10, r18, r24] = rotations(b);
        b.xor3(r2, r10).xor(self.xor3(r18, r24))
    }
    #[inline(always)]
    fn unpack_lo32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_unpacklo_epi32(self, o) }
    }
    #[inline(always)]
    fn unpack_hi32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_unpackhi_epi32(self, o) }
    }
    #[inline(always)]
    fn unpack_lo64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_unpacklo_epi64(self, o) }
    }
    #[inline(always)]
    fn unpack_hi64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { _mm512_unpackhi_epi64(self, o) }
    }
}

/// B <<< 2, 10, 18, 24 with native rotates (AVX-512F `vprold`).
#[inline(always)]
fn rotations(b: __m512i) -> [__m512i; 4] {
    // SAFETY: see the module comment.
    unsafe {
        [
            _mm512_rol_epi32::<2>(b),
            _mm512_rol_epi32::<10>(b),
            _mm512_rol_epi32::<18>(b),
            _mm512_rol_epi32::<24>(b),
        ]
    }
}

/// A 128-bit register in an AVX-512VL context: native rotates and three-way XORs for the
/// latency-bound single-block path of the `gfni-avx512` engine.
#[derive(Clone, Copy)]
pub(crate) struct Vl128(pub(crate) __m128i);

impl Word for Vl128 {
    const BLOCKS: usize = 1;
    #[inline(always)]
    fn add32(self, o: Self) -> Self {
        Vl128(self.0.add32(o.0))
    }
    #[inline(always)]
    fn block_index() -> Self {
        Vl128(__m128i::block_index())
    }
    #[inline(always)]
    fn load(src: &[Block<Sm4>]) -> Self {
        Vl128(__m128i::load(src))
    }
    #[inline(always)]
    fn store(self, dst: &mut [Block<Sm4>]) {
        self.0.store(dst);
    }
    #[inline(always)]
    fn splat(w: u32) -> Self {
        Vl128(__m128i::splat(w))
    }
    #[inline(always)]
    fn bcast128(v: u128) -> Self {
        Vl128(__m128i::bcast128(v))
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        Vl128(self.0.xor(o.0))
    }
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        // SAFETY: see the module comment (AVX-512F+VL, enabled by the `gfni-avx512` entry).
        Vl128(unsafe { _mm_ternarylogic_epi32::<0x96>(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        Vl128(self.0.and(o.0))
    }
    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        Vl128(self.0.shuffle(idx.0))
    }
    #[inline(always)]
    fn shr4(self) -> Self {
        Vl128(self.0.shr4())
    }
    #[inline(always)]
    fn l(self) -> Self {
        let [r2, r10, r18, r24] = self.rotations();
        self.xor3(r2, r10).xor3(r18, r24)
    }
    #[inline(always)]
    fn xor_l(self, b: Self) -> Self {
        let [r2, r10, r18, r24] = b.rotations();
        b.xor3(r2, r10).xor(self.xor3(r18, r24))
    }
    #[inline(always)]
    fn unpack_lo32(self, o: Self) -> Self {
        Vl128(self.0.unpack_lo32(o.0))
    }
    #[inline(always)]
    fn unpack_hi32(self, o: Self) -> Self {
        Vl128(self.0.unpack_hi32(o.0))
    }
    #[inline(always)]
    fn unpack_lo64(self, o: Self) -> Self {
        Vl128(self.0.unpack_lo64(o.0))
    }
    #[inline(always)]
    fn unpack_hi64(self, o: Self) -> Self {
        Vl128(self.0.unpack_hi64(o.0))
    }
}

impl Vl128 {
    /// B <<< 2, 10, 18, 24 (AVX-512VL `vprold`).
    #[inline(always)]
    fn rotations(self) -> [Self; 4] {
        let b = self.0;
        // SAFETY: see the module comment (AVX-512F+VL).
        unsafe {
            [
                Vl128(_mm_rol_epi32::<2>(b)),
                Vl128(_mm_rol_epi32::<10>(b)),
                Vl128(_mm_rol_epi32::<18>(b)),
                Vl128(_mm_rol_epi32::<24>(b)),
            ]
        }
    }
}

impl Single for __m128i {
    #[inline(always)]
    fn lanes(self) -> [Self; 4] {
        // SAFETY: see the module comment.
        unsafe {
            [
                _mm_shuffle_epi32::<0x00>(self),
                _mm_shuffle_epi32::<0x55>(self),
                _mm_shuffle_epi32::<0xaa>(self),
                _mm_shuffle_epi32::<0xff>(self),
            ]
        }
    }
}

impl Single for Vl128 {
    #[inline(always)]
    fn lanes(self) -> [Self; 4] {
        self.0.lanes().map(Vl128)
    }
}
