//! x86-64 kernels: AES-NI and GFNI S-boxes on 128-, 256- and 512-bit registers, driven by
//! the generic rounds of `crate::simd`. Each kernel is one `simd_kernel!` entry: its
//! backend, the features its entries enable, its width, S-boxes and registers; the
//! `unsafe impl`s say which register types its token may make (its backend's probe in
//! `shangmi-dispatch` checks those features).

mod gfni_chain;
mod sbox;
mod words;

use cipher::consts::{U32, U64};

use crate::Backend;
use crate::simd::{AesSbox, AesSboxBroadcast, aes_chain};
use sbox::Gfni;
use words::{Aes, Avx2, Avx512bw, Avx512vl, Ssse3, Vl128, X128, X256, X512};

/// The `gfni-avx512` chain in steps of four rounds (`crate::CbcSteps`).
pub(crate) type Stepper<'a> = gfni_chain::Stepper<'a, Vl128<GfniAvx512>>;
pub(crate) use gfni_chain::StepAt;

simd_kernel! {
    /// `gfni-avx512`: GFNI S-box on 512-bit registers, 64 blocks per step in four
    /// interleaved groups; native rotates (`vprold`) and three-way XORs (`vpternlogd`)
    /// for L; the CBC chain, and the passes of up to sixteen blocks (on 256-bit registers,
    /// where a 512-bit group's pass took as long as its wider instructions' throughput),
    /// on the shorter GFNI round (`gfni_chain`).
    GfniAvx512 = GfniAvx512, enable "avx512f,avx512bw,avx512vl,avx2,gfni", par_blocks U64,
    sbox Gfni, one (Vl128, Gfni),
    wide X512, partial Vl128, short X256,
    chain gfni_chain::avx512_chain::<Vl128<GfniAvx512>>,
}

simd_kernel! {
    /// `gfni-avx2`: GFNI S-box on 256-bit registers, 32 blocks per step in four
    /// interleaved groups (for CPUs with GFNI but no AVX-512, e.g. Intel's E-cores and
    /// Alder Lake); passes of up to sixteen blocks on the chain's shorter GFNI round.
    GfniAvx2 = GfniAvx2, enable "avx2,gfni", par_blocks U32,
    sbox Gfni, one (X128, Gfni),
    wide X256, partial X128, short X256,
    chain gfni_chain::chain_body::<X128<GfniAvx2>>,
}

/// The AES-NI S-box kernels on 256-bit registers: one source, compiled for each
/// backend's features (with VAES, the compiler runs AESENCLAST on whole registers).
macro_rules! aes_avx2_kernel {
    ($(#[$doc:meta])* $Kernel:ident, enable $features:literal) => {
        simd_kernel! {
            $(#[$doc])*
            $Kernel = $Kernel, enable $features, par_blocks U32,
            sbox AesSbox, one (X128, AesSboxBroadcast),
            wide X256, partial X128, short X128,
            chain aes_chain::chain_body::<X128<$Kernel>, aes_chain::MixColumns>,
        }
    };
}

aes_avx2_kernel! {
    /// `vaes-avx2`: `aesni-avx2` with the S-box's AESENCLAST on whole 256-bit registers
    /// (VAES) instead of on each 128-bit half: ECB and CTR 1.2-1.3x `aesni-avx2` on Zen 3, the
    /// CPU it is for (VAES, no GFNI).
    VaesAvx2, enable "avx2,aes,vaes"
}

aes_avx2_kernel! {
    /// `aesni-avx2`: the AES-NI S-box (affine maps by `pshufb`, inversion by AESENCLAST)
    /// on 256-bit registers, 32 blocks per step in four interleaved groups (the design
    /// point of the Linux kernel's sm4-aesni-avx2).
    AesniAvx2, enable "avx2,aes"
}

impl GfniAvx512 {
    /// The CBC chain in steps of four rounds (`crate::CbcSteps`) over `blocks` from
    /// `state`, its keys and constants prepared in an entry that enables the kernel's
    /// features.
    pub(crate) fn stepper<'a>(
        self,
        rk: &crate::key::RoundKeys,
        state: &cipher::Block<crate::Sm4>,
        blocks: &'a [cipher::Block<crate::Sm4>],
        out: &'a mut [cipher::Block<crate::Sm4>],
    ) -> (Stepper<'a>, StepAt) {
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
        fn entry<'a>(
            k: GfniAvx512,
            rk: &crate::key::RoundKeys,
            state: &cipher::Block<crate::Sm4>,
            (blocks, out): (
                &'a [cipher::Block<crate::Sm4>],
                &'a mut [cipher::Block<crate::Sm4>],
            ),
        ) -> (Stepper<'a>, StepAt) {
            Stepper::new(k, rk, state, blocks, out)
        }
        // SAFETY: `self` exists only for an `Available` gfni-avx512 backend, whose probe
        // found AVX-512F/BW/VL, AVX2 and GFNI.
        unsafe { entry(self, rk, state, (blocks, out)) }
    }

    /// [`Stepper::rest`] in an entry that enables the kernel's features.
    pub(crate) fn stepper_rest<'a>(
        self,
        stepper: Stepper<'a>,
        at: StepAt,
    ) -> (
        cipher::Block<crate::Sm4>,
        &'a [cipher::Block<crate::Sm4>],
        &'a mut [cipher::Block<crate::Sm4>],
    ) {
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
        fn entry(
            stepper: Stepper<'_>,
            at: StepAt,
        ) -> (
            cipher::Block<crate::Sm4>,
            &[cipher::Block<crate::Sm4>],
            &mut [cipher::Block<crate::Sm4>],
        ) {
            stepper.rest(at)
        }
        // SAFETY: as in `stepper` (`self` is the proof).
        unsafe { entry(stepper, at) }
    }

    /// Counter mode on whole steps of 64 blocks with `hook`'s steps between the rounds, in
    /// an entry that also enables VPCLMULQDQ (proven by `clmul`, the `vpclmulqdq-avx512`
    /// GHASH backend); returns the blocks done (none without that proof) and the hook.
    pub(crate) fn ctr32_hooked<H: crate::CtrHook>(
        self,
        clmul: shangmi_dispatch::Available<shangmi_dispatch::ghash::Backend>,
        rk: &crate::key::RoundKeys,
        ctr: &mut [u32; 4],
        blocks: &mut [cipher::Block<crate::Sm4>],
        hook: H,
        side: &mut [cipher::Block<crate::Sm4>],
    ) -> (usize, H) {
        /// The hook as the rounds' `Between`.
        struct Rounds<H>(H);
        impl<H: crate::CtrHook> crate::simd::Between for Rounds<H> {
            #[inline(always)]
            fn step(
                &mut self,
                i: usize,
                prev: &[cipher::Block<crate::Sm4>],
                cur: &[cipher::Block<crate::Sm4>],
            ) {
                self.0.step(i, prev, cur, true);
            }
        }
        /// The counter steps with `between` run between the rounds; returns the blocks done.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni,vpclmulqdq,pclmulqdq")]
        fn entry(
            k: GfniAvx512,
            rk: &crate::key::RoundKeys,
            ctr: &mut [u32; 4],
            (blocks, side): (
                &mut [cipher::Block<crate::Sm4>],
                &mut [cipher::Block<crate::Sm4>],
            ),
            between: &mut impl crate::simd::Between,
        ) -> usize {
            crate::simd::ctr_groups_between::<
                X512<GfniAvx512>,
                Vl128<GfniAvx512>,
                Gfni,
                { GfniAvx512::GROUPS },
                _,
            >(k, rk, ctr, blocks, 0, between, side)
        }
        if clmul.get() != shangmi_dispatch::ghash::Backend::VpclmulqdqAvx512 {
            return (0, hook);
        }
        let mut between = Rounds(hook);
        // SAFETY: `self` exists only for an `Available` gfni-avx512 backend, whose probe
        // found AVX-512F/BW/VL, AVX2 and GFNI; `clmul` is an `Available` vpclmulqdq-avx512
        // GHASH backend, whose probe found VPCLMULQDQ and PCLMULQDQ.
        let at = unsafe { entry(self, rk, ctr, (blocks, side), &mut between) };
        (at, between.0)
    }
}

// The features each kernel's token proves: its backend's probe (`shangmi-dispatch`,
// `cpu.rs`) checks them, and only an `Available` backend of its kind makes the token. For
// `gfni-avx512` AVX-512F/BW/VL, AVX2 and GFNI; for `gfni-avx2` AVX2 and GFNI; for
// `vaes-avx2` AES-NI, VAES, AVX2 and SSSE3; for
// `aesni-avx2` AES-NI, AVX2 and SSSE3. SSSE3 comes with AVX2 (Rust's `avx2` feature
// implies it, as every AVX2 CPU has it).
macro_rules! proves {
    ($($Kernel:ident: $($Feature:path),+;)*) => {$($(
        // SAFETY: the probe of the kernel's backend checks this feature (see above).
        unsafe impl $Feature for $Kernel {}
    )+)*};
}
proves! {
    GfniAvx512: Ssse3, Avx2, Avx512bw, Avx512vl, words::Gfni;
    GfniAvx2: Ssse3, Avx2, words::Gfni;
    AesniAvx2: Avx2, Aes;
    VaesAvx2: Avx2;
}
// SAFETY: the `aesni-avx2` and `vaes-avx2` probes check AVX2 (see above), which
// `LANES_BY_LOADS` asks for.
unsafe impl Ssse3 for AesniAvx2 {
    const LANES_BY_LOADS: bool = true;
}
// SAFETY: as for `AesniAvx2`.
unsafe impl Ssse3 for VaesAvx2 {
    const LANES_BY_LOADS: bool = true;
}
// SAFETY: the `vaes-avx2` probe checks AES-NI and VAES (see above).
unsafe impl Aes for VaesAvx2 {
    const VAES: bool = true;
}
