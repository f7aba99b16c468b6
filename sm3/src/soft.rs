//! The portable engine: scalar message expansion computed four rounds ahead of the shared
//! unrolled rounds (`crate::rounds`), interleaved with them in program order (the shape of
//! RustCrypto `sm3`'s on-the-fly schedule). It is the reference every other engine is
//! tested against.

use crate::{
    consts::K,
    rounds::{Message, Word, rounds_with},
};

/// One block's W_0..W_67, computed four words at a time ahead of the rounds.
struct Ahead {
    w: [u32; 68],
}

impl Ahead {
    /// Loads the 16 big-endian words of `block` and computes W_16..W_19.
    #[inline(always)]
    fn start(block: &[u8; 64]) -> Self {
        let mut a = Ahead { w: [0; 68] };
        for (wi, chunk) in a.w.iter_mut().zip(block.chunks_exact(4)) {
            *wi = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        a.expand4(16);
        a
    }

    /// W_j..W_{j+4} (GB/T 32905-2016, 5.3.2).
    #[inline(always)]
    fn expand4(&mut self, j: usize) {
        let w = &mut self.w;
        for j in j..j + 4 {
            w[j] = u32::xor3(
                u32::xor3(w[j - 16], w[j - 9], w[j - 3].rotl::<15>()).p1(),
                w[j - 13].rotl::<7>(),
                w[j - 6],
            );
        }
    }
}

impl Message<u32> for Ahead {
    #[inline(always)]
    fn w(&self, j: usize) -> u32 {
        self.w[j]
    }
    #[inline(always)]
    fn wp(&self, j: usize) -> u32 {
        self.w[j] ^ self.w[j + 4]
    }
    #[inline(always)]
    fn after(&mut self, i: usize) {
        if i < 12 {
            self.expand4(20 + 4 * i);
        }
    }
}

/// Compresses `blocks` into `state` one after another.
pub(crate) fn compress(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    // Through `black_box` so LLVM adds K_j to A <<< 12 before E arrives instead of last.
    let k = core::hint::black_box(&K);
    for block in blocks {
        rounds_with(state, &mut Ahead::start(block), k);
    }
}
