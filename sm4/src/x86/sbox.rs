//! The SM4 S-box on x86 registers: GFNI, and the AESENCLAST step of the AES-NI technique
//! (`crate::simd::AesSbox`), both constant-time (registers only, no memory lookups).
//!
//! SM4's S-box is A·inv(A·x + 0xD3) + 0xD3 over GF(2^8) mod 0x1F5 (Liu et al., ACISP
//! 2007). A field isomorphism T into the AES field (mod 0x11B) turns it into an affine map,
//! the AES inversion, and another affine map (the idea of Markku-Juhani Saarinen's
//! sm4ni and the Linux sm4-aesni-avx code). The matrices below were derived by
//! `tools/derive_sbox.py` and the tests check every byte against GB/T 32907's table.
//!
//! SAFETY (every intrinsic call): the register's type carries its proof (`super::words`),
//! and the bounds below ask for the features each instruction needs. The GFNI maps are
//! `super::words::GfniAffine`.

use core::arch::x86_64::*;

use super::words::{self, Avx2, GfniAffine, Raw, X128, X256};
use crate::simd::{AesLast, AesMix, Sbox, pdomain};

/// GFNI: `gf2p8affineqb` with T·A and T·0xD3, then `gf2p8affineinvqb` with A·T^-1 and
/// 0xD3. Matrices in Intel's layout (output bit i from byte 7 - i), one per 64-bit lane.
pub(crate) struct Gfni;

const GFNI_PRE: u128 = both_lanes(pdomain::PRE);
const GFNI_PRE_C: i32 = pdomain::PRE_C as i32;
const GFNI_POST: u128 = both_lanes(pdomain::POST);
const GFNI_POST_C: i32 = pdomain::POST_C as i32;

/// A matrix in both 64-bit lanes.
const fn both_lanes(m: u64) -> u128 {
    ((m as u128) << 64) | m as u128
}

impl<W: GfniAffine> Sbox<W> for Gfni {
    #[inline(always)]
    fn sbox(x: W) -> W {
        let cpu = x.cpu();
        let (pre, post) = (W::bcast128(cpu, GFNI_PRE), W::bcast128(cpu, GFNI_POST));
        x.affine::<GFNI_PRE_C>(pre).affine_inv::<GFNI_POST_C>(post)
    }
}

impl<F: words::Aes> AesLast for X128<F> {
    #[inline(always)]
    fn aes_last(self) -> Self {
        // SAFETY: see the module comment (AES-NI).
        self.with(unsafe { _mm_aesenclast_si128(self.raw(), _mm_setzero_si128()) })
    }
}

impl<F: words::Aes> AesMix for X128<F> {
    #[inline(always)]
    fn aes_round(self) -> Self {
        // SAFETY: see the module comment (AES-NI).
        self.with(unsafe { _mm_aesenc_si128(self.raw(), _mm_setzero_si128()) })
    }
    #[inline(always)]
    fn shr32<const N: i32>(self) -> Self {
        // SAFETY: see the module comment (SSE2, part of every x86-64).
        self.with(unsafe { _mm_srli_epi32::<N>(self.raw()) })
    }
    #[inline(always)]
    fn shl32<const N: i32>(self) -> Self {
        // SAFETY: see the module comment (SSE2).
        self.with(unsafe { _mm_slli_epi32::<N>(self.raw()) })
    }
    #[inline(always)]
    fn pin(self) -> Self {
        let mut v = self.raw();
        // SAFETY: an empty asm! block: no instruction, no memory, the register unchanged.
        unsafe {
            core::arch::asm!("/* {0} */", inout(xmm_reg) v, options(pure, nomem, nostack, preserves_flags));
        }
        self.with(v)
    }
}

impl<F: words::Aes + Avx2> AesLast for X256<F> {
    #[inline(always)]
    fn aes_last(self) -> Self {
        let v = self.raw();
        if F::VAES {
            // SAFETY: see the module comment (VAES: `F::VAES` is true only for kernels
            // whose probe found it).
            return self.with(unsafe { _mm256_aesenclast_epi128(v, _mm256_setzero_si256()) });
        }
        // SAFETY: see the module comment (AES-NI and AVX2).
        unsafe {
            let lo = _mm_aesenclast_si128(_mm256_castsi256_si128(v), _mm_setzero_si128());
            let hi = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(v), _mm_setzero_si128());
            self.with(_mm256_set_m128i(hi, lo))
        }
    }
}
