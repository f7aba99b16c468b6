//! The continuous health tests (`HealthTested`: SP 800-90B 4.4 on the entropy source's
//! bytes; `OutputTested`: no output block equal to the one before): each trips on a stuck
//! source at its cutoff and not one byte earlier, stays failed, and passes a healthy source
//! and the GM/T 0105 generators stacked on it.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use core::convert::Infallible;
use rand_core::{TryCryptoRng, TryRng, utils};
use shangmi_drbg::{
    AutoReseed, AutoReseedError, Clock, HealthError, HealthTested, OutputTested, Sm4CtrDrbg,
};

#[derive(Clone, Copy)]
struct Fixed;

impl Clock for Fixed {
    fn now_seconds(&self) -> u64 {
        0
    }
}

/// A source that replays `pattern` forever.
struct Pattern {
    pattern: Vec<u8>,
    at: usize,
}

impl Pattern {
    fn new(pattern: &[u8]) -> Self {
        Pattern {
            pattern: pattern.to_vec(),
            at: 0,
        }
    }

    /// The same 32-bit word forever (a stuck hardware generator's register).
    fn word(w: u32) -> Self {
        Self::new(&w.to_le_bytes())
    }
}

impl TryRng for Pattern {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for b in dst {
            *b = self.pattern[self.at % self.pattern.len()];
            self.at += 1;
        }
        Ok(())
    }
}

impl TryCryptoRng for Pattern {}

/// Bytes of a counter through SM3: every value about equally often, no long runs.
fn healthy() -> Pattern {
    use shangmi_sm3::{Digest, Sm3};
    let mut stream = Vec::new();
    for i in 0u32..2048 {
        stream.extend_from_slice(&Sm3::digest(i.to_be_bytes()));
    }
    Pattern::new(&stream)
}

#[test]
fn a_stuck_word_fails_the_adaptive_proportion_test_and_stays_failed() {
    // 0x12345678: no two equal bytes in a row, so only the proportion test can see it.
    let mut source = HealthTested::new(Pattern::word(0x1234_5678));
    assert_eq!(source.startup(), Err(HealthError::AdaptiveProportion));
    assert!(source.failed());
    let mut buf = [0xffu8; 32];
    assert_eq!(
        source.try_fill_bytes(&mut buf),
        Err(HealthError::AdaptiveProportion)
    );
    assert_eq!(buf, [0xff; 32], "a latched failure draws nothing");
}

#[test]
fn a_stuck_byte_fails_the_repetition_count_test_at_its_cutoff() {
    let mut source = HealthTested::new(Pattern::word(0));
    assert_eq!(source.repetition_cutoff(), 6);
    assert_eq!(
        source.try_fill_bytes(&mut [0; 32]),
        Err(HealthError::RepetitionCount)
    );
    // One byte short of the cutoff, then other bytes: passes; a run of exactly the
    // cutoff fails.
    let run = |n: usize| -> Vec<u8> { [7].repeat(n).into_iter().chain(8..40).collect() };
    let mut source = HealthTested::new(Pattern::new(&run(5)));
    source.try_fill_bytes(&mut [0; 37]).unwrap();
    let mut source = HealthTested::new(Pattern::new(&run(6)));
    assert_eq!(
        source.try_fill_bytes(&mut [0; 38]),
        Err(HealthError::RepetitionCount)
    );
}

#[test]
fn the_proportion_cutoff_counts_within_one_window() {
    let source = HealthTested::new(Pattern::word(0));
    let cutoff = usize::from(source.proportion_cutoff());
    assert_eq!(cutoff, 19);
    // A window starting with 0x00 that holds it cutoff - 1 times passes; cutoff times fails.
    let window = |zeros: usize| {
        let mut w: Vec<u8> = (1..=255).cycle().take(512).collect();
        for i in 0..zeros {
            w[i * 20] = 0;
        }
        w
    };
    let mut ok = HealthTested::new(Pattern::new(&window(cutoff - 1)));
    ok.try_fill_bytes(&mut vec![0; 4096]).unwrap();
    let mut bad = HealthTested::new(Pattern::new(&window(cutoff)));
    assert_eq!(
        bad.try_fill_bytes(&mut vec![0; 512]),
        Err(HealthError::AdaptiveProportion)
    );
    // Lower claimed min-entropy, higher cutoffs; 0 and 9 bits per byte are refused.
    let raw = HealthTested::with_min_entropy(Pattern::word(0), 1).unwrap();
    assert_eq!(
        (raw.repetition_cutoff(), raw.proportion_cutoff()),
        (41, 336)
    );
    assert!(HealthTested::with_min_entropy(Pattern::word(0), 0).is_none());
    assert!(HealthTested::with_min_entropy(Pattern::word(0), 9).is_none());
}

#[test]
fn a_healthy_source_and_the_generator_on_it_pass() {
    let mut source = HealthTested::new(healthy());
    source.startup().unwrap();
    source.try_fill_bytes(&mut vec![0; 64 << 10]).unwrap();
    let mut rng = OutputTested::new(
        AutoReseed::<Sm4CtrDrbg<Fixed>, _>::new(HealthTested::new(healthy()), b"", Fixed).unwrap(),
    );
    let mut out = vec![0u8; 100_000];
    rng.try_fill_bytes(&mut out).unwrap();
    assert!(!rng.failed());
    // The first block is kept for the comparison, never handed out: the output is the
    // generator's from its second block on.
    let mut plain =
        AutoReseed::<Sm4CtrDrbg<Fixed>, _>::new(HealthTested::new(healthy()), b"", Fixed).unwrap();
    let mut first = [0u8; 48];
    plain.try_fill_bytes(&mut first).unwrap();
    assert_eq!(&out[..32], &first[16..]);
}

#[test]
fn a_stuck_source_stops_the_generator() {
    let err = AutoReseed::<Sm4CtrDrbg<Fixed>, _>::new(
        HealthTested::new(Pattern::word(0xdead_beef)),
        b"",
        Fixed,
    )
    .err();
    // 48 bytes of entropy and nonce hold 0xef 12 times, under the proportion cutoff of
    // 19: instantiation succeeds, the reseed after 2^20 requests would fail. The start-up
    // test catches it at once.
    assert!(err.is_none());
    let mut source = HealthTested::new(Pattern::word(0xdead_beef));
    assert_eq!(source.startup(), Err(HealthError::AdaptiveProportion));
    let err = AutoReseed::<Sm4CtrDrbg<Fixed>, _>::new(source, b"", Fixed).err();
    assert_eq!(
        err,
        Some(AutoReseedError::Source(HealthError::AdaptiveProportion))
    );
}

/// A generator that repeats one 16-byte block after `good` distinct ones.
struct Repeating {
    good: usize,
    n: u8,
}

impl TryRng for Repeating {
    type Error = HealthError<Infallible>;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        assert_eq!(dst.len(), 16, "drawn block by block");
        if self.good > 0 {
            self.good -= 1;
            self.n += 1;
        }
        dst.fill(self.n);
        Ok(())
    }
}

impl TryCryptoRng for Repeating {}

#[test]
fn a_repeated_output_block_fails_the_continuous_test_and_stays_failed() {
    // Blocks 1, 2, 3 (the first kept for comparison), then 3 again.
    let mut rng = OutputTested::new(Repeating { good: 3, n: 0 });
    let mut out = [0u8; 32];
    rng.try_fill_bytes(&mut out).unwrap();
    assert_eq!(out[..16], [2; 16]);
    assert_eq!(out[16..], [3; 16]);
    let mut out = [0xffu8; 20];
    assert_eq!(
        rng.try_fill_bytes(&mut out),
        Err(HealthError::RepeatedOutput)
    );
    assert_eq!(out, [0; 20], "nothing of a failed request is handed out");
    assert!(rng.failed());
    assert_eq!(rng.try_next_u32(), Err(HealthError::RepeatedOutput));
}
