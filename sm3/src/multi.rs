//! Multi-buffer hashing: many independent messages in the lanes of one SIMD register.
//!
//! The scheduler keeps every lane busy (the "multi-buffer manager" of Intel's isa-l_crypto):
//! a lane that finishes its message takes the next one at once, so messages of any length
//! mix. Each step runs the engine for as many blocks as every busy lane still has in its
//! current contiguous segment (the message's full blocks, then the padded tail). Idle
//! lanes hash a dummy block whose result is discarded. When a single message is left it
//! is finished on the single-stream engine.

use shangmi_dispatch::Available;

use crate::{
    Backend,
    consts::IV,
    engine::{self, Kernel, as_blocks, one, to_bytes},
};

/// Hashes `msgs[i]` into `out[i]` on `backend` (as many as both hold).
pub(crate) fn digest_many(backend: Available<Backend>, msgs: &[&[u8]], out: &mut [[u8; 32]]) {
    engine::run(backend, engine::DigestMany(msgs, out));
}

/// A message in flight in one lane.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // the lane scheduler serves the x86 multi-buffer kernels
struct Slot<'a> {
    /// Index into the caller's message and output slices.
    index: usize,
    /// Full blocks not yet hashed (empty once the tail is reached).
    body: &'a [u8],
    /// The padded final block(s): the message's last partial block, 0x80, zeros, the bit
    /// length (GB/T 32905-2016, 5.2).
    tail: [u8; 128],
    /// `tail[tail_pos..tail_end]` is still to hash.
    tail_pos: usize,
    /// 64 or 128.
    tail_end: usize,
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // the lane scheduler serves the x86 multi-buffer kernels
impl<'a> Slot<'a> {
    fn new(index: usize, msg: &'a [u8]) -> Self {
        let full = msg.len() - msg.len() % 64;
        let (tail, tail_end) = engine::pad_tail(&msg[full..], msg.len());
        Slot {
            index,
            body: &msg[..full],
            tail,
            tail_pos: 0,
            tail_end,
        }
    }

    /// The current contiguous segment still to hash (empty when done).
    fn segment(&self) -> &[u8] {
        if self.body.is_empty() {
            &self.tail[self.tail_pos..self.tail_end]
        } else {
            self.body
        }
    }

    /// Marks `blocks` blocks of the current segment hashed; true when the message is done.
    fn advance(&mut self, blocks: usize) -> bool {
        if self.body.is_empty() {
            self.tail_pos += 64 * blocks;
        } else {
            self.body = &self.body[64 * blocks..];
        }
        self.body.is_empty() && self.tail_pos == self.tail_end
    }
}

/// One dummy block for idle lanes.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // the lane scheduler serves the x86 multi-buffer kernels
static IDLE: [u8; 64] = [0; 64];

/// Runs the lane scheduler with `L` lanes; `step(state, lanes, n)` compresses `n` blocks
/// of every lane into the lane-major state (`state[word][lane]`); kernel `k` finishes the
/// last message alone, and runs a single message (or none) without the lanes.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // the lane scheduler serves the x86 multi-buffer kernels
pub(crate) fn schedule<K: Kernel, const L: usize>(
    k: K,
    msgs: &[&[u8]],
    out: &mut [[u8; 32]],
    mut step: impl FnMut(&mut [[u32; L]; 8], &[&[u8]; L], usize),
) {
    let n = msgs.len().min(out.len());
    let (msgs, out) = (&msgs[..n], &mut out[..n]);
    if n < 2 {
        for (m, o) in msgs.iter().zip(out.iter_mut()) {
            *o = one(k, m);
        }
        return;
    }
    let mut state = [[0u32; L]; 8];
    let mut slots: [Option<Slot<'_>>; L] = core::array::from_fn(|_| None);
    let mut next = 0;
    loop {
        for (lane, slot) in slots.iter_mut().enumerate() {
            if slot.is_none() && next < msgs.len() {
                *slot = Some(Slot::new(next, msgs[next]));
                for (row, iv) in state.iter_mut().zip(IV) {
                    row[lane] = iv;
                }
                next += 1;
            }
        }
        let busy = slots.iter().flatten().count();
        if busy == 0 {
            return;
        }
        if busy == 1 && next == msgs.len() {
            // The last message: finish it on the single-stream engine.
            for (lane, slot) in slots.iter().enumerate() {
                if let Some(s) = slot {
                    let mut h: [u32; 8] = core::array::from_fn(|i| state[i][lane]);
                    k.compress(&mut h, as_blocks(s.body));
                    k.compress(&mut h, as_blocks(&s.tail[s.tail_pos..s.tail_end]));
                    out[s.index] = to_bytes(&h);
                }
            }
            return;
        }
        let blocks = slots
            .iter()
            .flatten()
            .map(|s| s.segment().len() / 64)
            .min()
            .unwrap_or(0);
        let mut lanes: [&[u8]; L] = [&IDLE; L];
        for (l, s) in lanes.iter_mut().zip(&slots) {
            if let Some(s) = s {
                *l = s.segment();
            }
        }
        step(&mut state, &lanes, blocks);
        for (lane, slot) in slots.iter_mut().enumerate() {
            if let Some(s) = slot
                && s.advance(blocks)
            {
                out[s.index] = to_bytes(&core::array::from_fn(|i| state[i][lane]));
                *slot = None;
            }
        }
    }
}
