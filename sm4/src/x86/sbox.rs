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
use crate::key::RoundKeys;
use crate::simd::aes_chain::{self, AesEnc};
use crate::simd::{AesLast, AesMix, Sbox, generic_rounds, pdomain};

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
    /// One or two groups of 128- or 256-bit registers in the P domain with the chain's
    /// round (`super::gfni_chain::group_rounds`); wider or more groups as every S-box.
    #[inline(always)]
    fn rounds<const N: usize>(cpu: W::Cpu, rk: &crate::key::RoundKeys, x: &mut [[W; 4]; N]) {
        if W::BLOCKS <= 2 && N <= 2 {
            super::gfni_chain::group_rounds(cpu, rk, x);
        } else {
            generic_rounds::<W, Self, N>(cpu, rk, x);
        }
    }
}

/// One `asm!` of register-only (`pure`, `nomem`, `nostack`) vector code with its operands
/// named by role, every one an `xmm_reg`: `inout` registers carry values in and out,
/// `spent` ones carry a value in and are overwritten, `input` ones are only read and
/// `scratch` ones only written.
macro_rules! xmm_asm {
    (
        $($line:literal,)+ ;
        inout: $($io:ident),+ ;
        spent: $($sp:ident),+ ;
        input: $($i:ident),+ ;
        scratch: $($o:ident),+ ;
    ) => {
        core::arch::asm!(
            $($line,)+
            $($io = inout(xmm_reg) $io,)+
            $($sp = inout(xmm_reg) $sp => _,)+
            $($i = in(xmm_reg) $i,)+
            $($o = out(xmm_reg) _,)+
            options(pure, nomem, nostack, preserves_flags),
        )
    };
}

impl<F: words::Aes> AesLast for X128<F> {
    #[inline(always)]
    fn aes_last(self) -> Self {
        // SAFETY: see the module comment (AES-NI).
        self.with(unsafe { _mm_aesenclast_si128(self.raw(), _mm_setzero_si128()) })
    }
    /// One or two groups (a short pass: up to eight blocks).
    #[inline(always)]
    fn mix_rounds<const N: usize>(cpu: F, rk: &RoundKeys, x: &mut [[Self; 4]; N]) -> bool {
        if N > 2 {
            return false;
        }
        aes_chain::group_rounds(cpu, rk, x);
        true
    }
}

impl<F: words::Aes> AesEnc for X128<F> {
    #[inline(always)]
    fn aes_enc(self) -> Self {
        // SAFETY: see the module comment (AES-NI).
        self.with(unsafe { _mm_aesenc_si128(self.raw(), _mm_setzero_si128()) })
    }
}

impl<F: words::Aes + Avx2> AesMix for X128<F> {
    #[inline(always)]
    fn xor_kept(self, b: Self) -> Self {
        let (mut a, b) = (self.raw(), b.raw());
        // SAFETY: registers only; AVX (VEX encoding), which the kernel token `F` proves
        // (`Avx2`).
        unsafe {
            core::arch::asm!(
                "vpxor {a}, {a}, {b}",
                a = inout(xmm_reg) a,
                b = in(xmm_reg) b,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        self.with(a)
    }
    #[inline(always)]
    fn blend_words(y: &[Self; 4]) -> Self {
        let [a, b, c, d] = y.map(|r| r.raw());
        // SAFETY: AVX2 (`vpblendd`), which the kernel token `F` proves.
        y[0].with(unsafe {
            _mm_blend_epi32::<0b1100>(
                _mm_blend_epi32::<0b0010>(a, b),
                _mm_blend_epi32::<0b1000>(c, d),
            )
        })
    }
    /// In `asm!` because the order matters on Zen 4: this round's dependency path is 12
    /// cycles (AESENCLAST, the high nibble's shift and mask, its table, the XOR with the
    /// low nibble's, the rotation's shifts, two XORs), and with Q's instructions (on that
    /// path) ahead of R's the round runs in 13.0 cycles alone, against 14.0 in the order
    /// LLVM chose, which also fused the rotation's two shifts into a `vpshufb` (13.3 as
    /// shifts); measured in a loop of the round alone, with the rotation as two shifts
    /// (now one `vpalignr`, see below).
    ///
    /// The chain's bookkeeping (the previous round's word, this round's `partial` and
    /// `others`: three XORs) comes after the AES instructions: placed before them, as the
    /// compiler did, the chain ran 13.8 cycles a round against 13.0–13.3 (a loop of 32
    /// rounds, Zen 4).
    ///
    /// The rotation of q is one `vpalignr` of the whole register (its words are equal, so
    /// a byte rotation of the register rotates each word): with the block's word
    /// broadcasts moved to the load ports (`super::words::Ssse3::LANES_BY_LOADS`), CBC
    /// encryption of 8 KiB went from 13.76 to 13.53 cycles a round and a 1 KiB chain
    /// from 13.62 to 13.35 (Zen 4, best of 400; either change alone gained on one and
    /// lost on the other).
    #[inline(always)]
    fn mix_round(self, pending: Self, ahead: Self, y_i: Self, t: &[Self; 5]) -> [Self; 3] {
        let [mask, r_lo, r_hi, q_lo, q_hi] = t.map(|r| r.raw());
        let (mut u, mut word, mut partial) = (self.raw(), pending.raw(), ahead.raw());
        let others = y_i.raw();
        // SAFETY: registers only (no memory, no stack); AES-NI and AVX (VEX encoding),
        // which the kernel token `F` proves (`Aes`, `Avx2`).
        unsafe {
            xmm_asm!(
                "vpxor {s2}, {s2}, {s2}",
                "vaesenclast {s1}, {u}, {s2}",
                "vaesenc {s2}, {u}, {s2}",
                // The bookkeeping: word = u ⊕ pending, partial = ahead ⊕ word,
                // others = partial ⊕ y_i.
                "vpxor {word}, {word}, {u}",
                "vpxor {partial}, {partial}, {word}",
                "vpxor {others}, {others}, {partial}",
                // Q's lookups, on the critical path: q = Q(AESENCLAST(u)).
                "vpsrlw {qh}, {s1}, 4",
                "vpand {s1}, {s1}, {mask}",
                "vpand {qh}, {qh}, {mask}",
                "vpshufb {s1}, {q_lo}, {s1}",
                "vpshufb {qh}, {q_hi}, {qh}",
                // R's lookups.
                "vpsrlw {rh}, {s2}, 4",
                "vpand {s2}, {s2}, {mask}",
                "vpand {rh}, {rh}, {mask}",
                "vpshufb {s2}, {r_lo}, {s2}",
                "vpshufb {rh}, {r_hi}, {rh}",
                // q rotated left by 24 bits in each word: as the four words are equal,
                // the register rotated right by one byte (`vpalignr`, one instruction
                // where two shifts and an XOR were).
                "vpxor {s1}, {s1}, {qh}",
                "vpalignr {u}, {s1}, {s1}, 1",
                // others ⊕ R ⊕ q, then ⊕ the rotated q.
                "vpxor {s2}, {s2}, {others}",
                "vpxor {s2}, {s2}, {rh}",
                "vpxor {s2}, {s2}, {s1}",
                "vpxor {u}, {u}, {s2}",
                ;
                inout: u, word, partial;
                spent: others;
                input: mask, r_lo, r_hi, q_lo, q_hi;
                scratch: s1, s2, qh, rh;
            );
        }
        [self.with(u), self.with(word), self.with(partial)]
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
