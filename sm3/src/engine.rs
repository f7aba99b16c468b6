//! The map from a [`Backend`] to its code: the single-stream compression function here,
//! the multi-buffer lanes in `multi`. No backend knows about another.

use shangmi_dispatch::Available;

use crate::{Backend, soft};

/// Compresses `blocks` into `state` with `backend`'s code.
#[inline]
pub(crate) fn compress(backend: Available<Backend>, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    match backend.get() {
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 => {
            // SAFETY: `backend` is an `Available` token: dispatch's probe found AVX-512F,
            // AVX-512VL, AVX-512BW, AVX2, BMI1 and BMI2, the features of this entry.
            unsafe { crate::x86::compress_avx512(state, blocks) }
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 => {
            // SAFETY: `backend` is an `Available` token: dispatch's probe found AVX2, BMI1
            // and BMI2, the features of this entry.
            unsafe { crate::x86::compress_avx2(state, blocks) }
        }
        #[cfg(target_arch = "aarch64")]
        Backend::Aarch64Sm3 => {
            // SAFETY: `backend` is an `Available` token: dispatch's probe found the SM3
            // instructions, the feature of this entry.
            unsafe { crate::aarch64::compress(state, blocks) }
        }
        #[cfg(all(
            any(target_arch = "riscv32", target_arch = "riscv64"),
            target_feature = "zksh"
        ))]
        Backend::RiscvZksh => crate::riscv::compress(state, blocks),
        #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
        Backend::RiscvZvksh => {
            // SAFETY: `backend` is an `Available` token: dispatch's probe found V, Zvksh and
            // Zvkb, the features of this entry.
            unsafe { crate::riscv_zvksh::compress(state, blocks) }
        }
        _ => soft::compress(state, blocks),
    }
}
