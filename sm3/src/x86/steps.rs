//! The `avx512` compression in steps of four rounds ([`crate::hazmat::Steps`]), for
//! another kernel's loop to run between its own rounds: SM3's rounds are scalar and keep
//! the general-purpose ALUs busy, a serial SM4 chain waits on the vector units, and one
//! out-of-order window fed from both runs them side by side (a MAC-then-encrypt record:
//! HMAC-SM3 of the plaintext beside SM4-CBC of the same plaintext).
//!
//! A step is one `asm!` group of [`rounds_asm`](super::rounds_asm)'s four rounds, on
//! the words at the group's first round: one template each for the groups of rounds
//! 0–11, 12–15 and 16–63 (the round constants come from memory beside the words, so that
//! one template serves every group of its kind), then the next message group of
//! [`Groups`]. The state lives in the struct between steps (the compiler moves it into
//! r8d–r15d around each group).

use core::cell::Cell;

use super::Avx512;
use super::expand::{Groups, Scratch};
use crate::consts::K;

/// The words the step rounds read: [`Scratch`] (W at 0, W' at 272) and the round
/// constants T_j <<< j at byte offset 528.
#[repr(C)]
struct StepScratch {
    words: Scratch,
    k: [Cell<u32>; 64],
}

/// The compression of `blocks` into a chaining value, four rounds a step.
pub(crate) struct Steps<'a> {
    k: Avx512,
    /// The working variables A..H (after the last group of a block: the chaining value).
    s: [u32; 8],
    /// The chaining value the block in hand started from.
    v: [u32; 8],
    /// GG of the next round.
    gg: u32,
    g: Groups<Avx512>,
    scratch: StepScratch,
    blocks: &'a [[u8; 64]],
    /// Blocks started.
    started: usize,
    /// The next group of the block in hand; 16 when none is in hand.
    group: usize,
}

impl<'a> Steps<'a> {
    /// Steps over `blocks` from the chaining value `state`.
    #[inline]
    pub(crate) fn new(k: Avx512, state: [u32; 8], blocks: &'a [[u8; 64]]) -> Self {
        #[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2")]
        fn entry<'a>(k: Avx512, state: [u32; 8], blocks: &'a [[u8; 64]]) -> Steps<'a> {
            let scratch = StepScratch {
                words: Scratch::new(),
                k: K.map(Cell::new),
            };
            const { assert!(core::mem::offset_of!(StepScratch, k) == 528) };
            // The first block starts here (with no block, a zero block's groups stand in
            // and are never read: `step` starts a block only from `blocks`).
            let (first, started, group) = match blocks.first() {
                Some(block) => (block, 1, 0),
                None => (&[0; 64], 0, 16),
            };
            Steps {
                k,
                s: state,
                v: state,
                gg: state[4] ^ state[5] ^ state[6],
                g: Groups::start(k, first, &scratch.words),
                scratch,
                blocks,
                started,
                group,
            }
        }
        // SAFETY: `k` proves the features `entry` enables (`super`'s module comment).
        unsafe { entry(k, state, blocks) }
    }

    /// Groups of four rounds still to run.
    #[inline(always)]
    pub(crate) fn left(&self) -> usize {
        16 * (self.blocks.len() - self.started) + (16 - self.group)
    }

    /// Runs the next group of four rounds; false when every block is done.
    #[inline(always)]
    #[rustfmt::skip]
    #[allow(unused_assignments)] // the last group computes the GG of a round 64
    pub(crate) fn step(&mut self) -> bool {
        if self.group == 16 {
            let Some(block) = self.blocks.get(self.started) else {
                return false;
            };
            self.started += 1;
            self.v = self.s;
            self.g = Groups::start(self.k, block, &self.scratch.words);
            self.gg = self.s[4] ^ self.s[5] ^ self.s[6];
            self.group = 0;
        }
        let (s, mut gg) = (&mut self.s, self.gg);
        // The group's first words: W_{4i}, W'_{4i} and K_{4i} at 0, 272 and 528 from it.
        let p = self.scratch.words.words().wrapping_add(4 * self.group);
        match self.group {
            0..=2 => group!(@ unaligned, s, gg, p,
                round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 0, T),
                round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 1, T),
                round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 2, T),
                round!(xor, xor3, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 3, T),
            ),
            3 => group!(@ unaligned, s, gg, p,
                round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 0, T),
                round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 1, T),
                round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 2, T),
                round!(xor, ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 3, T),
            ),
            _ => group!(@ unaligned, s, gg, p,
                round!(maj, ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 0, T),
                round!(maj, ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 1, T),
                round!(maj, ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 2, T),
                round!(maj, ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 3, T),
            ),
        }
        self.gg = gg;
        self.g.after(self.group, &self.scratch.words);
        self.group += 1;
        if self.group == 16 {
            for (s, v) in self.s.iter_mut().zip(self.v) {
                *s ^= v;
            }
        }
        true
    }

    /// Runs every step left and returns the chaining value.
    #[inline]
    pub(crate) fn finish(mut self) -> [u32; 8] {
        #[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2")]
        fn entry(steps: &mut Steps<'_>) {
            while steps.step() {}
        }
        // SAFETY: `self.k` proves the features `entry` enables (`super`'s module comment).
        unsafe { entry(&mut self) };
        self.s
    }
}

impl Drop for Steps<'_> {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        {
            use digest::zeroize::Zeroize;
            self.s.zeroize();
            self.v.zeroize();
            self.gg.zeroize();
        }
    }
}
