//! The one place that maps a [`Backend`] to its code. No engine knows about another.

use crate::{Backend, soft};

/// Compresses `blocks` into `state` with `backend`'s code (the soft code where `backend`
/// is not compiled in or, defensively, not present on this CPU).
#[inline]
pub(crate) fn compress(backend: Backend, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    match backend {
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 if backend.is_available() => {
            // SAFETY: `is_available` confirmed (through the cached cpufeatures probe) that
            // the CPU has AVX-512F, AVX-512VL, AVX-512BW, AVX2, BMI1 and BMI2, the features of this entry.
            unsafe { crate::x86::compress_avx512(state, blocks) }
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 if backend.is_available() => {
            // SAFETY: `is_available` confirmed (through the cached cpufeatures probe) that
            // the CPU has AVX2, BMI1 and BMI2, the features of this entry.
            unsafe { crate::x86::compress_avx2(state, blocks) }
        }
        #[cfg(target_arch = "aarch64")]
        Backend::Aarch64Sm3 if backend.is_available() => {
            // SAFETY: `is_available` confirmed (through the cached cpufeatures probe) that
            // the CPU has the SM3 instructions, the feature of this entry.
            unsafe { crate::aarch64::compress(state, blocks) }
        }
        #[cfg(all(
            any(target_arch = "riscv32", target_arch = "riscv64"),
            target_feature = "zksh"
        ))]
        Backend::RiscvZksh => crate::riscv::compress(state, blocks),
        _ => soft::compress(state, blocks),
    }
}
