//! x86-64 kernels.
//!
//! Single stream: the message expansion runs in 128-bit registers four words at a time
//! (`avx512`: with `vprold` and `vpternlogd` on them),
//! interleaved with the same block's rounds and kept four rounds ahead of them, so the
//! out-of-order core overlaps the two, while the 64 rounds run on scalar registers in
//! `asm!` (`rounds_asm`: registers and instruction order fixed, BMI2 `rorx`).
//! Multi-buffer: the generic rounds on 8 (AVX2) or 16 (AVX-512) messages at once, one
//! message per 32-bit lane. Hooked (`avx512`): the single-stream kernel with another
//! kernel's steps between its groups of four rounds (`crate::hazmat::compress_hooked`).
//!
//! The kernel tokens [`Avx2`] and [`Avx512`] are made only from an `Available` backend of
//! their kind, whose probe (`shangmi-dispatch`) found the features their entries enable;
//! the register types of `lanes` (`Y`, `Z`) and of `expand` (`V`) carry one as their
//! proof, and `expand`'s `unsafe impl Xmm` says that each token proves SSSE3.

mod expand;
mod lanes;
#[macro_use]
mod rounds_asm;

use crate::{Backend, engine::Kernel, hazmat::RoundsHook, multi::schedule};
use expand::{Ahead, Scratch, Xmm};

shangmi_dispatch::kernel_token! {
    /// `avx2`: AVX2, BMI1 and BMI2.
    pub(crate) struct Avx2 = Backend::Avx2;
}

shangmi_dispatch::kernel_token! {
    /// `avx512`: AVX-512F/VL/BW, AVX2, BMI1 and BMI2.
    pub(crate) struct Avx512 = Backend::Avx512;
}

/// Compresses `blocks`: each block's rounds in `asm!` blocks of four, its expansion
/// interleaved between them; on the rounds' `lea3` form where
/// [`shangmi_dispatch::fast_three_part_lea`] says so (Intel family 6 model 207: 7.44–7.55
/// cycles a round against 7.89; PERFORMANCE.md, session 58), else on the form measured on
/// AMD's cores.
#[inline(always)]
fn compress<X: Xmm>(x: X, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    if shangmi_dispatch::fast_three_part_lea() {
        compress_on::<X, true>(x, state, blocks)
    } else {
        compress_on::<X, false>(x, state, blocks)
    }
}

/// [`compress`] on one form of the rounds (`rounds_asm::rounds`' `LEA3`).
#[inline(always)]
fn compress_on<X: Xmm, const LEA3: bool>(x: X, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let scratch = Scratch::new();
    let mut s = *state;
    for block in blocks {
        rounds_asm::rounds::<X, LEA3>(
            &mut s,
            state,
            &scratch,
            &mut Ahead::start(x, block, &scratch),
        );
    }
}

impl Kernel for Avx2 {
    #[inline(always)]
    fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
        #[target_feature(enable = "avx2,bmi1,bmi2")]
        fn entry(k: Avx2, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
            compress(k, state, blocks)
        }
        // SAFETY: `self` proves the features `entry` enables (module comment).
        unsafe { entry(self, state, blocks) }
    }
    #[inline]
    fn digest_many(self, msgs: &[&[u8]], out: &mut [[u8; 32]]) {
        schedule::<_, 8>(self, msgs, out, |state, lanes, n| {
            // SAFETY: `self` proves the features `many_avx2` enables (module comment).
            unsafe { lanes::many_avx2(self, state, lanes, n) }
        })
    }
}

impl Kernel for Avx512 {
    #[inline(always)]
    fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
        #[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2")]
        fn entry(k: Avx512, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
            compress(k, state, blocks)
        }
        // SAFETY: `self` proves the features `entry` enables (module comment).
        unsafe { entry(self, state, blocks) }
    }
    #[inline]
    fn digest_many(self, msgs: &[&[u8]], out: &mut [[u8; 32]]) {
        schedule::<_, 16>(self, msgs, out, |state, lanes, n| {
            // SAFETY: `self` proves the features `many_avx512` enables (module comment).
            unsafe { lanes::many_avx512(self, state, lanes, n) }
        })
    }
}

/// What the hooked rounds run after each group of four (`rounds_asm::rounds_rolled`).
pub(super) trait Step {
    /// Runs once after each group.
    fn step(&mut self);
}

/// A hook with its state held here, in the kernel entry's own variable.
struct Hooked<'h, H: RoundsHook> {
    hook: &'h mut H,
    at: H::State,
}

impl<H: RoundsHook> Step for Hooked<'_, H> {
    #[inline(always)]
    fn step(&mut self) {
        self.hook.step(&mut self.at);
    }
}

impl Avx512 {
    /// The compression with `hook` stepped on `at` after every group of four rounds
    /// (`crate::hazmat::compress_hooked`).
    #[inline]
    pub(crate) fn compress_hooked<H: RoundsHook>(
        self,
        state: &mut [u32; 8],
        blocks: &[[u8; 64]],
        hook: &mut H,
        at: &mut H::State,
    ) {
        /// The hook's state copied into a variable of the entry's own, so that it can
        /// live in registers across the rounds.
        #[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2")]
        fn entry<H: RoundsHook>(
            k: Avx512,
            state: &mut [u32; 8],
            blocks: &[[u8; 64]],
            hook: &mut H,
            at: &mut H::State,
        ) {
            let mut here = Hooked { hook, at: *at };
            let scratch = rounds_asm::KScratch::new();
            let mut s = *state;
            for block in blocks {
                rounds_asm::rounds_rolled(
                    &mut s,
                    state,
                    &scratch,
                    &mut Ahead::start(k, block, &scratch.words),
                    &mut here,
                );
            }
            *at = here.at;
        }
        // SAFETY: `self` proves the features `entry` enables (module comment).
        unsafe { entry(self, state, blocks, hook, at) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{consts::IV, soft};
    use shangmi_dispatch::Available;

    extern crate std;

    /// Both forms of the single-stream rounds (`LEA3` or not: every x86-64 CPU runs either,
    /// only their speed depends on the core, so [`compress`] alone would test one form per
    /// machine) on each kernel this CPU has: GB/T 32905-2016 Appendix A.1's "abc" block to
    /// its published digest, and 40 chained blocks of a pseudo-random pattern equal to the
    /// portable compression.
    #[test]
    fn both_round_forms() {
        let (abc, abc_digest) = crate::consts::test_data::ABC;
        let blocks = crate::consts::test_data::test_blocks::<40>();
        let mut want = IV;
        soft::compress(&mut want, &blocks);

        fn forms<X: Xmm>(x: X, blocks: &[[u8; 64]]) -> [[u32; 8]; 2] {
            let (mut a, mut b) = (IV, IV);
            compress_on::<X, false>(x, &mut a, blocks);
            compress_on::<X, true>(x, &mut b, blocks);
            [a, b]
        }
        /// `forms` inside the features the kernel's entries enable.
        #[target_feature(enable = "avx2,bmi1,bmi2")]
        fn on_avx2(k: Avx2, blocks: &[[u8; 64]]) -> [[u32; 8]; 2] {
            forms(k, blocks)
        }
        #[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2")]
        fn on_avx512(k: Avx512, blocks: &[[u8; 64]]) -> [[u32; 8]; 2] {
            forms(k, blocks)
        }

        let mut ran = 0;
        for backend in [Backend::Avx2, Backend::Avx512] {
            let Some(available) = Available::check(backend) else {
                continue;
            };
            let run = |blocks: &[[u8; 64]]| {
                if let Some(k) = Avx2::new(available) {
                    // SAFETY: the token proves the features `on_avx2` enables.
                    unsafe { on_avx2(k, blocks) }
                } else if let Some(k) = Avx512::new(available) {
                    // SAFETY: the token proves the features `on_avx512` enables.
                    unsafe { on_avx512(k, blocks) }
                } else {
                    unreachable!("{backend} has a kernel here")
                }
            };
            assert_eq!(run(&[abc]), [abc_digest; 2], "{backend}: abc");
            assert_eq!(run(&blocks), [want; 2], "{backend}: 40 blocks");
            ran += 1;
        }
        if ran == 0 {
            std::println!("sm3 x86 kernels: neither avx2 nor avx512 on this CPU, skipped");
        }
    }
}
