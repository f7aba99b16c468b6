//! x86-64 engines.
//!
//! Single stream: the message expansion runs in 128-bit registers four words at a time,
//! interleaved with the same block's rounds and kept four rounds ahead of them, so the
//! out-of-order core overlaps the two, while the 64 rounds run on scalar registers compiled with BMI1/BMI2 (`rorx`, `andn`).
//! Multi-buffer: the generic rounds on 8 (AVX2) or 16 (AVX-512) messages at once, one
//! message per 32-bit lane.

mod expand;
mod lanes;

use crate::rounds::rounds_with;
use core::cell::Cell;
use expand::{Ahead, Xmm};
pub(crate) use lanes::{many_avx2, many_avx512};

/// Compresses `blocks`, each block's expansion interleaved with its own rounds.
#[inline(always)]
fn compress_interleaved<X: Xmm>(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let k = core::hint::black_box(&crate::consts::K);
    let w: [Cell<u32>; 68] = [const { Cell::new(0) }; 68];
    let wp: [Cell<u32>; 64] = [const { Cell::new(0) }; 64];
    for block in blocks {
        rounds_with(state, &mut Ahead::<X>::start(block, &w, &wp), k);
    }
}

/// Compresses `blocks` into `state` (AVX2 + BMI engine).
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(crate) fn compress_avx2(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    compress_interleaved::<expand::ShiftRotate>(state, blocks)
}

/// Compresses `blocks` into `state` (AVX-512 + BMI engine).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx2,bmi1,bmi2")]
pub(crate) fn compress_avx512(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    compress_interleaved::<expand::Vprold>(state, blocks)
}
