//! The portable engine: scalar message expansion and the shared unrolled rounds
//! (`crate::rounds`). It is the reference every other engine is tested against.

use crate::rounds::{expand, rounds};

/// Loads the 16 big-endian words of `block` into `w[..16]`.
#[inline(always)]
pub(crate) fn load_block(block: &[u8; 64], w: &mut [u32; 68]) {
    for (wi, chunk) in w.iter_mut().zip(block.chunks_exact(4)) {
        *wi = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
}

/// Compresses `blocks` into `state` one after another.
pub(crate) fn compress(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut w = [0u32; 68];
    let mut wp = [0u32; 64];
    for block in blocks {
        load_block(block, &mut w);
        expand(&mut w, &mut wp);
        rounds(state, &w, &wp);
    }
}
