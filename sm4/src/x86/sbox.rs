//! The SM4 S-box on SIMD registers, by two techniques, both constant-time (no memory
//! lookups: `pshufb` and the AES/GFNI instructions work on registers).
//!
//! SM4's S-box is A·inv(A·x + 0xD3) + 0xD3 over GF(2^8) mod 0x1F5 (Liu et al., ACISP
//! 2007). A field isomorphism T into the AES field (mod 0x11B) turns it into an affine map,
//! the AES inversion, and another affine map (the idea of Markku-Juhani Saarinen's
//! sm4ni and the Linux sm4-aesni-avx code). The matrices below were derived by
//! `tools/derive_sbox.py` and the tests check every byte against GB/T 32907's table.

use core::arch::x86_64::*;

use super::{Sbox, Word};

/// GFNI: `gf2p8affineqb` with T·A and T·0xD3, then `gf2p8affineinvqb` with A·T^-1 and
/// 0xD3. Matrices in Intel's layout (output bit i from byte 7 - i).
pub(crate) struct Gfni;

const GFNI_PRE: u64 = 0x4c28_7db9_1a22_505d;
const GFNI_PRE_C: i32 = 0x3e;
const GFNI_POST: u64 = 0xf3ab_34a9_74a6_b589;
const GFNI_POST_C: i32 = 0xd3;

// SAFETY (the three impls): reached only from `target_feature` entries that enable GFNI
// (and AVX / AVX-512F+BW for the wider registers) after the CPU probe confirmed them.
impl Sbox<__m128i> for Gfni {
    #[inline(always)]
    fn sbox(x: __m128i) -> __m128i {
        let (pre, post) = (__m128i::splat64(GFNI_PRE), __m128i::splat64(GFNI_POST));
        // SAFETY: see above.
        unsafe {
            _mm_gf2p8affineinv_epi64_epi8::<GFNI_POST_C>(
                _mm_gf2p8affine_epi64_epi8::<GFNI_PRE_C>(x, pre),
                post,
            )
        }
    }
}

impl Sbox<super::words::Vl128> for Gfni {
    #[inline(always)]
    fn sbox(x: super::words::Vl128) -> super::words::Vl128 {
        super::words::Vl128(<Gfni as Sbox<__m128i>>::sbox(x.0))
    }
}

impl Sbox<__m256i> for Gfni {
    #[inline(always)]
    fn sbox(x: __m256i) -> __m256i {
        let (pre, post) = (__m256i::splat64(GFNI_PRE), __m256i::splat64(GFNI_POST));
        // SAFETY: see above.
        unsafe {
            _mm256_gf2p8affineinv_epi64_epi8::<GFNI_POST_C>(
                _mm256_gf2p8affine_epi64_epi8::<GFNI_PRE_C>(x, pre),
                post,
            )
        }
    }
}

impl Sbox<__m512i> for Gfni {
    #[inline(always)]
    fn sbox(x: __m512i) -> __m512i {
        let (pre, post) = (__m512i::splat64(GFNI_PRE), __m512i::splat64(GFNI_POST));
        // SAFETY: see above.
        unsafe {
            _mm512_gf2p8affineinv_epi64_epi8::<GFNI_POST_C>(
                _mm512_gf2p8affine_epi64_epi8::<GFNI_PRE_C>(x, pre),
                post,
            )
        }
    }
}

/// AES-NI: the affine maps as two 16-entry nibble tables each (`pshufb`), AESENCLAST with
/// a zero key for the field inversion (after undoing its ShiftRows in advance).
pub(crate) struct AesNi;

/// x -> T·A·x + T·0xD3, low and high nibble halves.
const AES_PRE_LO: u128 = u128::from_le_bytes([
    0x00, 0x8c, 0x30, 0xbc, 0x85, 0x09, 0xb5, 0x39, 0x9f, 0x13, 0xaf, 0x23, 0x1a, 0x96, 0x2a, 0xa6,
]);
const AES_PRE_HI: u128 = u128::from_le_bytes([
    0x3e, 0xe2, 0x10, 0xcc, 0xfb, 0x27, 0xd5, 0x09, 0x36, 0xea, 0x18, 0xc4, 0xf3, 0x2f, 0xdd, 0x01,
]);
/// y -> M·y + M·0x63 + 0xD3 with M = A·T^-1·A_aes^-1 (undoes AES's own affine map).
const AES_POST_LO: u128 = u128::from_le_bytes([
    0x00, 0xb8, 0xca, 0x72, 0x3e, 0x86, 0xf4, 0x4c, 0x67, 0xdf, 0xad, 0x15, 0x59, 0xe1, 0x93, 0x2b,
]);
const AES_POST_HI: u128 = u128::from_le_bytes([
    0x6c, 0x8c, 0x3c, 0xdc, 0xf1, 0x11, 0xa1, 0x41, 0xac, 0x4c, 0xfc, 0x1c, 0x31, 0xd1, 0x61, 0x81,
]);
/// InvShiftRows as a `pshufb` index, so AESENCLAST's ShiftRows leaves bytes in place.
const INV_SHIFT_ROWS: u128 =
    u128::from_le_bytes([0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3]);
const LOW_NIBBLES: u128 = 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f;

/// AESENCLAST with an all-zero round key on every 128-bit lane.
pub(crate) trait AesLast: Word {
    /// ShiftRows(SubBytes(x)) per 128-bit lane.
    fn aes_last(self) -> Self;
}

impl AesLast for __m128i {
    #[inline(always)]
    fn aes_last(self) -> Self {
        // SAFETY: reached only from the `aesni-avx2` entries, which enable AES after the
        // CPU probe confirmed it.
        unsafe { _mm_aesenclast_si128(self, _mm_setzero_si128()) }
    }
}

impl AesLast for __m256i {
    #[inline(always)]
    fn aes_last(self) -> Self {
        // SAFETY: as for `__m128i` (AES and AVX2 enabled by the entry).
        unsafe {
            let lo = _mm256_castsi256_si128(self).aes_last();
            let hi = _mm256_extracti128_si256::<1>(self).aes_last();
            _mm256_set_m128i(hi, lo)
        }
    }
}

/// An affine map given by its nibble tables.
#[inline(always)]
fn nibble_affine<W: Word>(x: W, lo: u128, hi: u128) -> W {
    let mask = W::bcast128(LOW_NIBBLES);
    W::bcast128(lo)
        .shuffle(x.and(mask))
        .xor(W::bcast128(hi).shuffle(x.shr4().and(mask)))
}

impl<W: AesLast> Sbox<W> for AesNi {
    #[inline(always)]
    fn sbox(x: W) -> W {
        let y = nibble_affine(x, AES_PRE_LO, AES_PRE_HI).shuffle(W::bcast128(INV_SHIFT_ROWS));
        nibble_affine(y.aes_last(), AES_POST_LO, AES_POST_HI)
    }
}
