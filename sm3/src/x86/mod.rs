//! x86-64 engines.
//!
//! Single stream: the message expansion runs in 128-bit registers four words at a time,
//! interleaved with the previous block's rounds so the out-of-order core overlaps the two,
//! while the 64 rounds run on scalar registers compiled with BMI1/BMI2 (`rorx`, `andn`).
//! Multi-buffer: the generic rounds on 8 (AVX2) or 16 (AVX-512) messages at once, one
//! message per 32-bit lane.

mod expand;
mod lanes;

use crate::rounds::rounds_with;
use expand::{ExpandNext, Groups, Xmm, expand};
pub(crate) use lanes::{many_avx2, many_avx512};

/// The expanded message of one block.
struct Schedule {
    w: [u32; 68],
    wp: [u32; 64],
}

/// Compresses `blocks`, expanding block i+1 between the rounds of block i.
#[inline(always)]
fn compress_pipelined<X: Xmm>(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let Some(first) = blocks.first() else {
        return;
    };
    let k = core::hint::black_box(&crate::consts::K);
    let mut bufs = [
        Schedule {
            w: [0; 68],
            wp: [0; 64],
        },
        Schedule {
            w: [0; 68],
            wp: [0; 64],
        },
    ];
    expand::<X>(first, &mut bufs[0].w, &mut bufs[0].wp);
    for (i, _) in blocks.iter().enumerate() {
        let (a, b) = bufs.split_at_mut(1);
        let (cur, nxt) = if i % 2 == 0 {
            (&a[0], &mut b[0])
        } else {
            (&b[0], &mut a[0])
        };
        // Keep W and W' in memory (`black_box`): otherwise LLVM turns the vector stores
        // into `vpextrd`s, which cost more than the loads the rounds fold into their adds.
        let (w, wp) = (
            core::hint::black_box(&cur.w),
            core::hint::black_box(&cur.wp),
        );
        match blocks.get(i + 1) {
            Some(next) => {
                let mut work = ExpandNext::<X> {
                    g: Groups::new(),
                    next,
                    w: &mut nxt.w,
                    wp: &mut nxt.wp,
                    x: core::marker::PhantomData,
                };
                rounds_with(state, w, wp, k, &mut work)
            }
            None => rounds_with(state, w, wp, k, &mut ()),
        }
    }
}

/// Compresses `blocks` into `state` (AVX2 + BMI engine).
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(crate) fn compress_avx2(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    compress_pipelined::<expand::ShiftRotate>(state, blocks)
}

/// Compresses `blocks` into `state` (AVX-512 + BMI engine).
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2")]
pub(crate) fn compress_avx512(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    compress_pipelined::<expand::Vprold>(state, blocks)
}
