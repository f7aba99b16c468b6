//! Continuous health tests: SP 800-90B 4.4's repetition count and adaptive proportion tests
//! on the bytes of an entropy source ([`HealthTested`]), and a continuous test on a
//! generator's output blocks ([`OutputTested`]: no block may repeat the one before it, the
//! continuous random number generator test of GM/T 0028-2014 and FIPS 140-2 4.9.2).
//!
//! Each byte the source returns is one sample. A failure is typed ([`HealthError`]) and
//! latched: once a test has failed, every later request fails with the same error, since a
//! source that got stuck once cannot be trusted again (SP 800-90B 4.3: the failure is
//! reported to the consuming application, which stops using the source).

use core::fmt;
use rand_core::{TryCryptoRng, TryRng};
use zeroize::Zeroize;

/// The false-positive probability of each test per sample: 2^-40, the low end of SP 800-90B's
/// range, so a healthy source in a long-running server practically never trips a test.
const ALPHA_LOG2: u32 = 40;

/// The adaptive proportion test's window for non-binary samples (SP 800-90B 4.4.2: W = 512).
const APT_WINDOW: u16 = 512;

/// The repetition count cutoff C = 1 + ceil(-log2(α) / H) (SP 800-90B 4.4.1) for a claimed
/// min-entropy of `h` bits per sample.
const fn rct_cutoff(h: u32) -> u16 {
    (1 + ALPHA_LOG2.div_ceil(h)) as u16
}

/// The adaptive proportion cutoff C = 1 + CRITBINOM(W, 2^-H, 1 - α) (SP 800-90B 4.4.2): one
/// more than the smallest k with P(X > k) ≤ α for X ~ Binomial(W, 2^-H). Computed at compile
/// time; `apt_cutoffs_match_sp800_90b_table_2` checks the method against the standard's
/// table for α = 2^-20.
const fn apt_cutoff(h: u32, alpha_log2: u32) -> u16 {
    let w = APT_WINDOW as usize;
    let p = 1.0 / (1u64 << h) as f64;
    let alpha = 1.0 / (1u64 << alpha_log2) as f64;
    // The probabilities P(X = k), from P(X = 0) = (1 - p)^W by the ratio of neighbours.
    let mut pmf = [0.0f64; APT_WINDOW as usize + 1];
    let mut first = 1.0;
    let mut i = 0;
    while i < w {
        first *= 1.0 - p;
        i += 1;
    }
    pmf[0] = first;
    let mut k = 0;
    while k < w {
        pmf[k + 1] = pmf[k] * ((w - k) as f64) / ((k + 1) as f64) * p / (1.0 - p);
        k += 1;
    }
    // The upper tail P(X > k), summed from the top (the small terms first).
    let mut tail = 0.0;
    let mut k = w;
    while k > 0 {
        tail += pmf[k]; // now P(X ≥ k) = P(X > k - 1)
        if tail > alpha {
            return (k + 1) as u16;
        }
        k -= 1;
    }
    1
}

/// The cutoffs for 1 to 8 bits of min-entropy per byte.
const RCT_CUTOFFS: [u16; 8] = {
    let mut c = [0; 8];
    let mut h = 0;
    while h < 8 {
        c[h] = rct_cutoff(h as u32 + 1);
        h += 1;
    }
    c
};
const APT_CUTOFFS: [u16; 8] = {
    let mut c = [0; 8];
    let mut h = 0;
    while h < 8 {
        c[h] = apt_cutoff(h as u32 + 1, ALPHA_LOG2);
        h += 1;
    }
    c
};

/// Why a health-tested source or generator refused a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HealthError<E> {
    /// The source itself failed (its own error, not latched).
    Source(E),
    /// The repetition count test failed: the source repeated one byte more often in a row
    /// than its claimed min-entropy allows (SP 800-90B 4.4.1). Latched.
    RepetitionCount,
    /// The adaptive proportion test failed: one byte value took too large a share of a
    /// 512-byte window (SP 800-90B 4.4.2). Latched.
    AdaptiveProportion,
    /// The continuous output test failed: the generator returned the same block twice in
    /// a row (GM/T 0028-2014's continuous random number generator test). Latched.
    RepeatedOutput,
}

impl<E: fmt::Display> fmt::Display for HealthError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HealthError::Source(e) => write!(f, "drbg: entropy source failed: {e}"),
            HealthError::RepetitionCount => {
                f.write_str("drbg: entropy source failed the repetition count test")
            }
            HealthError::AdaptiveProportion => {
                f.write_str("drbg: entropy source failed the adaptive proportion test")
            }
            HealthError::RepeatedOutput => {
                f.write_str("drbg: generator repeated an output block (continuous test)")
            }
        }
    }
}

impl<E: core::error::Error> core::error::Error for HealthError<E> {}

/// The latched failure of a source, without the source's error type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tripped {
    RepetitionCount,
    AdaptiveProportion,
}

impl Tripped {
    fn error<E>(self) -> HealthError<E> {
        match self {
            Tripped::RepetitionCount => HealthError::RepetitionCount,
            Tripped::AdaptiveProportion => HealthError::AdaptiveProportion,
        }
    }
}

/// An entropy source whose every byte passes SP 800-90B 4.4's two continuous health tests
/// (repetition count, adaptive proportion with a 512-sample window) before it is handed
/// on. Use it as the source of [`AutoReseed`](crate::AutoReseed).
///
/// The cutoffs follow from the min-entropy claimed per byte (8 for a conditioned source such
/// as the operating system's generator, less for a raw noise source) and α = 2^-40. The
/// tests run on the bytes as they are drawn, continuously across requests.
///
/// ```
/// use shangmi_drbg::{HealthError, HealthTested};
/// use rand_core::{TryRng, utils};
///
/// // A stuck source: the same word forever.
/// struct Stuck;
/// impl TryRng for Stuck {
///     type Error = core::convert::Infallible;
///     fn try_next_u32(&mut self) -> Result<u32, Self::Error> { Ok(0x1234_5678) }
///     fn try_next_u64(&mut self) -> Result<u64, Self::Error> { utils::next_u64_via_u32(self) }
///     fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
///         utils::fill_bytes_via_next_word(dst, || self.try_next_u32())
///     }
/// }
/// impl rand_core::TryCryptoRng for Stuck {}
///
/// let mut source = HealthTested::new(Stuck);
/// let mut seed = [0u8; 32];
/// assert_eq!(source.startup(), Err(HealthError::AdaptiveProportion));
/// assert_eq!(source.try_fill_bytes(&mut seed), Err(HealthError::AdaptiveProportion));
/// ```
pub struct HealthTested<E> {
    source: E,
    rct_cutoff: u16,
    apt_cutoff: u16,
    /// The last byte and how many times in a row it came.
    rct_last: u8,
    rct_run: u16,
    /// The window's first byte, how often it came, and how many bytes of the window passed.
    apt_first: u8,
    apt_count: u16,
    apt_seen: u16,
    tripped: Option<Tripped>,
}

impl<E> HealthTested<E> {
    /// Tests `source` as a full-entropy source (8 bits of min-entropy per byte: the
    /// operating system's generator, a conditioned hardware generator).
    pub fn new(source: E) -> Self {
        Self::build(source, 8)
    }

    /// Tests `source` for a claimed min-entropy of `bits_per_byte` (1 to 8; `None`
    /// otherwise), as a raw noise source's entropy assessment states it.
    pub fn with_min_entropy(source: E, bits_per_byte: u8) -> Option<Self> {
        (1..=8)
            .contains(&bits_per_byte)
            .then(|| Self::build(source, bits_per_byte))
    }

    fn build(source: E, h: u8) -> Self {
        let i = usize::from(h - 1);
        HealthTested {
            source,
            rct_cutoff: RCT_CUTOFFS[i],
            apt_cutoff: APT_CUTOFFS[i],
            rct_last: 0,
            rct_run: 0,
            apt_first: 0,
            apt_count: 0,
            apt_seen: 0,
            tripped: None,
        }
    }

    /// The source inside.
    pub fn source(&self) -> &E {
        &self.source
    }

    /// The repetition count test's cutoff: this many equal bytes in a row fail it.
    pub fn repetition_cutoff(&self) -> u16 {
        self.rct_cutoff
    }

    /// The adaptive proportion test's cutoff: this many copies of a window's first byte in
    /// its 512 bytes fail it.
    pub fn proportion_cutoff(&self) -> u16 {
        self.apt_cutoff
    }

    /// Whether a test has failed (then every request fails).
    pub fn failed(&self) -> bool {
        self.tripped.is_some()
    }

    /// Runs both tests on every byte of `bytes`. Without branches on the bytes (they are
    /// secret seed material): equality is arithmetic, the failures are accumulated and
    /// looked at once, after the whole buffer (which a failure discards anyway).
    fn scan(&mut self, bytes: &[u8]) -> Result<(), Tripped> {
        // 1 if a == b, else 0.
        let eq = |a: u8, b: u8| u16::from(a ^ b).wrapping_sub(1) >> 15;
        let (mut rct_failed, mut apt_failed) = (false, false);
        for &b in bytes {
            // A run continues (run + 1) or restarts (1); the first byte ever starts one.
            self.rct_run = (eq(b, self.rct_last) * self.rct_run).saturating_add(1);
            self.rct_last = b;
            rct_failed |= self.rct_run >= self.rct_cutoff;
            // The window position is public; only the count depends on the bytes.
            if self.apt_seen == 0 {
                self.apt_first = b;
                self.apt_count = 1;
            } else {
                self.apt_count += eq(b, self.apt_first);
            }
            apt_failed |= self.apt_count >= self.apt_cutoff;
            self.apt_seen += 1;
            if self.apt_seen == APT_WINDOW {
                self.apt_seen = 0;
            }
        }
        if rct_failed {
            Err(Tripped::RepetitionCount)
        } else if apt_failed {
            Err(Tripped::AdaptiveProportion)
        } else {
            Ok(())
        }
    }
}

impl<E: TryRng> HealthTested<E> {
    /// The start-up test (SP 800-90B 4.3): draws 1024 bytes through both tests and discards
    /// them. Call it once before the first use.
    pub fn startup(&mut self) -> Result<(), HealthError<E::Error>> {
        let mut buf = [0u8; 256];
        for _ in 0..4 {
            self.try_fill_bytes(&mut buf)?;
        }
        buf.fill(0);
        Ok(())
    }
}

crate::try_rng_via_fill!(impl[E: TryRng] HealthTested<E>, HealthError<E::Error>, HealthTested::fill);

impl<E: TryRng> HealthTested<E> {
    /// One request from the source, scanned by both tests.
    fn fill(&mut self, dst: &mut [u8]) -> Result<(), HealthError<E::Error>> {
        if let Some(t) = self.tripped {
            return Err(t.error());
        }
        self.source
            .try_fill_bytes(dst)
            .map_err(HealthError::Source)?;
        if let Err(t) = self.scan(dst) {
            self.tripped = Some(t);
            dst.fill(0);
            return Err(t.error());
        }
        Ok(())
    }
}

impl<E: TryCryptoRng> TryCryptoRng for HealthTested<E> {}

impl<E> Drop for HealthTested<E> {
    /// Wipes the two source bytes kept for the tests.
    fn drop(&mut self) {
        self.rct_last.zeroize();
        self.apt_first.zeroize();
    }
}

impl<E> fmt::Debug for HealthTested<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HealthTested")
            .field("rct_cutoff", &self.rct_cutoff)
            .field("apt_cutoff", &self.apt_cutoff)
            .field("failed", &self.failed())
            .finish_non_exhaustive()
    }
}

/// The block size of [`OutputTested`]: one SM4 block, GM/T 0105's request size for the SM4
/// generator.
pub const OUTPUT_BLOCK: usize = 16;

/// A generator whose output is drawn in 16-byte blocks, each compared with the block before
/// it: two equal blocks in a row fail with [`HealthError::RepeatedOutput`] (latched). The
/// first block after construction is kept for the comparison and never handed out (the
/// continuous random number generator test of GM/T 0028-2014 and FIPS 140-2 4.9.2).
///
/// The inner generator's error must convert from [`HealthError`]'s latched form; it is a
/// [`HealthError`] when the inner generator is an [`AutoReseed`](crate::AutoReseed) over a
/// [`HealthTested`] source, the intended stack.
pub struct OutputTested<R> {
    inner: R,
    previous: [u8; OUTPUT_BLOCK],
    primed: bool,
    tripped: bool,
}

impl<R> OutputTested<R> {
    /// Wraps `inner`; the first block is drawn at the first request.
    pub fn new(inner: R) -> Self {
        OutputTested {
            inner,
            previous: [0; OUTPUT_BLOCK],
            primed: false,
            tripped: false,
        }
    }

    /// The generator inside.
    pub fn inner(&self) -> &R {
        &self.inner
    }

    /// Whether the test has failed (then every request fails).
    pub fn failed(&self) -> bool {
        self.tripped
    }
}

impl<R, E> OutputTested<R>
where
    R: TryRng<Error = HealthError<E>>,
{
    /// Draws the next block and compares it with the one before.
    fn next_block(&mut self, block: &mut [u8; OUTPUT_BLOCK]) -> Result<(), HealthError<E>> {
        if !self.primed {
            self.inner.try_fill_bytes(&mut self.previous)?;
            self.primed = true;
        }
        self.inner.try_fill_bytes(block)?;
        // Not secret-dependent timing of consequence: the comparison's result is the only
        // thing that branches, and equality ends the generator's service anyway.
        let mut diff = 0u8;
        for (a, b) in block.iter().zip(&self.previous) {
            diff |= a ^ b;
        }
        if diff == 0 {
            self.tripped = true;
            block.fill(0);
            return Err(HealthError::RepeatedOutput);
        }
        self.previous.copy_from_slice(block);
        Ok(())
    }
}

crate::try_rng_via_fill!(
    impl[R: TryRng<Error = HealthError<E>>, E: core::error::Error] OutputTested<R>,
    HealthError<E>,
    OutputTested::fill
);

impl<R, E> OutputTested<R>
where
    R: TryRng<Error = HealthError<E>>,
    E: core::error::Error,
{
    /// One request in blocks, each compared with the block before it.
    fn fill(&mut self, dst: &mut [u8]) -> Result<(), HealthError<E>> {
        if self.tripped {
            return Err(HealthError::RepeatedOutput);
        }
        let mut block = [0u8; OUTPUT_BLOCK];
        let result = dst.chunks_mut(OUTPUT_BLOCK).try_for_each(|chunk| {
            self.next_block(&mut block)?;
            chunk.copy_from_slice(&block[..chunk.len()]);
            Ok(())
        });
        block.fill(0);
        if result.is_err() {
            dst.fill(0);
        }
        result
    }
}

impl<R, E> TryCryptoRng for OutputTested<R>
where
    R: TryCryptoRng<Error = HealthError<E>>,
    E: core::error::Error,
{
}

impl<R> Drop for OutputTested<R> {
    /// Wipes the block kept for the comparison.
    fn drop(&mut self) {
        self.previous.zeroize();
    }
}

impl<R> fmt::Debug for OutputTested<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputTested")
            .field("failed", &self.tripped)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SP 800-90B Table 2 (adaptive proportion cutoffs, W = 512, α = 2^-20): H = 1, 2, 4, 8
    /// give 311, 177, 62, 13. Our cutoffs use α = 2^-40 by the same computation.
    #[test]
    fn apt_cutoffs_match_sp800_90b_table_2() {
        assert_eq!(apt_cutoff(1, 20), 311);
        assert_eq!(apt_cutoff(2, 20), 177);
        assert_eq!(apt_cutoff(4, 20), 62);
        assert_eq!(apt_cutoff(8, 20), 13);
        assert_eq!(APT_CUTOFFS[7], 19);
        assert_eq!(RCT_CUTOFFS[7], 6);
        assert_eq!(RCT_CUTOFFS[0], 41);
    }
}
