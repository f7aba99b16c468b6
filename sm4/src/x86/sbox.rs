//! The SM4 S-box on x86 registers: GFNI, and the AESENCLAST step of the AES-NI technique
//! (`crate::simd::AesSbox`), both constant-time (registers only, no memory lookups).
//!
//! SM4's S-box is A·inv(A·x + 0xD3) + 0xD3 over GF(2^8) mod 0x1F5 (Liu et al., ACISP
//! 2007). A field isomorphism T into the AES field (mod 0x11B) turns it into an affine map,
//! the AES inversion, and another affine map (the idea of Markku-Juhani Saarinen's
//! sm4ni and the Linux sm4-aesni-avx code). The matrices below were derived by
//! `tools/derive_sbox.py` and the tests check every byte against GB/T 32907's table.

use core::arch::x86_64::*;

use crate::simd::{AesLast, Sbox, Word};

/// GFNI: `gf2p8affineqb` with T·A and T·0xD3, then `gf2p8affineinvqb` with A·T^-1 and
/// 0xD3. Matrices in Intel's layout (output bit i from byte 7 - i), one per 64-bit lane.
pub(crate) struct Gfni;

pub(super) const GFNI_PRE: u128 = 0x4c28_7db9_1a22_505d_4c28_7db9_1a22_505d;
pub(super) const GFNI_PRE_C: i32 = 0x3e;
pub(super) const GFNI_POST: u128 = 0xf3ab_34a9_74a6_b589_f3ab_34a9_74a6_b589;
const GFNI_POST_C: i32 = 0xd3;

// SAFETY (the three impls): reached only from `target_feature` entries that enable GFNI
// (and AVX / AVX-512F+BW for the wider registers) after the CPU probe confirmed them.
impl Sbox<__m128i> for Gfni {
    #[inline(always)]
    fn sbox(x: __m128i) -> __m128i {
        let (pre, post) = (__m128i::bcast128(GFNI_PRE), __m128i::bcast128(GFNI_POST));
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
        let (pre, post) = (__m256i::bcast128(GFNI_PRE), __m256i::bcast128(GFNI_POST));
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
        let (pre, post) = (__m512i::bcast128(GFNI_PRE), __m512i::bcast128(GFNI_POST));
        // SAFETY: see above.
        unsafe {
            _mm512_gf2p8affineinv_epi64_epi8::<GFNI_POST_C>(
                _mm512_gf2p8affine_epi64_epi8::<GFNI_PRE_C>(x, pre),
                post,
            )
        }
    }
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
