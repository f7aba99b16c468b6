//! x86-64 engines.
//!
//! Single stream: the message expansion runs in 128-bit registers four words at a time
//! (the W_{j-3} dependency inside a group of four is patched afterwards, using that P1 is
//! linear, as in Intel's SM3 AVX paper and the Linux kernel's sm3-avx), while the 64
//! rounds run on scalar registers compiled with BMI2 so every constant rotate is a
//! non-destructive `rorx`. Multi-buffer: the generic rounds on 8 (AVX2) or 16 (AVX-512)
//! messages at once, one message per 32-bit lane.

mod expand;
mod lanes;

use crate::rounds::rounds;
pub(crate) use lanes::{many_avx2, many_avx512};

/// Compresses `blocks` into `state` (AVX2 + BMI2 engine).
#[target_feature(enable = "avx2,bmi2")]
pub(crate) fn compress_avx2(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut w = [0u32; 68];
    let mut wp = [0u32; 64];
    for block in blocks {
        expand::expand::<expand::ShiftRotate>(block, &mut w, &mut wp);
        rounds(state, &w, &wp);
    }
}

/// Compresses `blocks` into `state` (AVX-512 + BMI2 engine).
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi2")]
pub(crate) fn compress_avx512(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut w = [0u32; 68];
    let mut wp = [0u32; 64];
    for block in blocks {
        expand::expand::<expand::Vprold>(block, &mut w, &mut wp);
        rounds(state, &w, &wp);
    }
}
