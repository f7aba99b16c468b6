//! Whole-workspace checks, not published: timing (`tests/dudect.rs`) and concurrency
//! (`tests/concurrency.rs`). The library is the timing checks' statistics and clock.
//!
//! Statistical timing checks in the manner of dudect (Reparaz, Balasch and Verbauwhede,
//! "Dude, is my code constant time?", DATE 2017): inputs of two classes — one fixed secret
//! and fresh random secrets — are timed in random interleaved order, and Welch's t-test
//! compares the two distributions of cycle counts, on all measurements and on the fastest
//! fractions of them (percentile cropping, which removes the long tail that interrupts and
//! the neighbours' load add). A large |t| says the time depends on the secret.
//!
//! It complements the memcheck tests (which see every secret-dependent branch and address
//! but only on the instructions valgrind emulates: no GFNI, AVX-512 or ADX): it runs the
//! real engines on the real CPU, but it can only show a leak that is large enough to
//! measure within the samples taken, on this CPU, for the inputs tried. A pass is evidence,
//! not proof.

use std::time::{Duration, Instant};

/// |t| above this flags a leak.
pub const THRESHOLD: f64 = 10.0;

/// Runs one check (`run(seed)`), prints its line under `name` and says whether it is
/// flagged (|t| above [`THRESHOLD`]). `leaky` is what the check expects (`Some(false)`: a
/// constant-time engine, `Some(true)`: a negative control, `None`: reported only). A second
/// run (`seed + 1`) decides when the first disagrees with the expectation: an engine is
/// flagged when both runs exceed the threshold (a burst of noise rarely comes twice), a
/// control passes when either does.
pub fn flagged(
    name: &str,
    seed: u64,
    leaky: Option<bool>,
    mut run: impl FnMut(u64) -> Outcome,
) -> bool {
    let first = run(seed);
    let second = leaky
        .is_some_and(|leaky| (first.max_t > THRESHOLD) != leaky)
        .then(|| run(seed + 1));
    let flagged = second.map_or(first.max_t > THRESHOLD, |s| s.max_t > THRESHOLD);
    println!(
        "{name:<62} |t| = {:>7.2}{} ({} samples, median {} cycles){}",
        first.max_t,
        second.map_or(String::new(), |s| format!(", again {:.2}", s.max_t)),
        first.samples,
        first.median,
        if flagged { "  LEAK" } else { "" }
    );
    flagged
}

/// Whether timings mean something in this build: true in an optimised build; in a debug
/// build it says so on stdout and returns false, and the calling test returns unchecked.
pub fn timing_build() -> bool {
    if cfg!(debug_assertions) {
        println!("timing checks run in release builds only (cargo test --release)");
        return false;
    }
    true
}

/// Number of cropping levels (dudect's `DUDECT_NUMBER_PERCENTILES`).
const CROPS: usize = 100;

/// A timestamp in CPU cycles (x86-64: `rdtsc` between `lfence`s) or nanoseconds elsewhere.
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_lfence, _rdtsc};
        // SAFETY: `lfence` (SSE2) and `rdtsc` are part of every x86-64 CPU; neither touches
        // memory. (`unused_unsafe`: newer compilers treat these intrinsics as safe.)
        #[allow(unused_unsafe)]
        unsafe {
            _mm_lfence();
            let t = _rdtsc();
            _mm_lfence();
            t
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// A small deterministic generator (SplitMix64) for classes and random inputs: the check
/// needs inputs independent of the code under test, not secrecy.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Fills `out` with random bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Running mean and variance (Welford) of one class at one cropping level.
#[derive(Clone, Copy, Debug, Default)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    fn var(&self) -> f64 {
        if self.n < 2.0 {
            0.0
        } else {
            self.m2 / (self.n - 1.0)
        }
    }
}

/// Welch's t statistic of two classes.
fn welch(a: &Moments, b: &Moments) -> f64 {
    let se = (a.var() / a.n + b.var() / b.n).sqrt();
    if a.n < 2.0 || b.n < 2.0 || se == 0.0 {
        0.0
    } else {
        (a.mean - b.mean) / se
    }
}

/// The outcome of one check.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// The largest |t| over the uncropped test and every cropping level.
    pub max_t: f64,
    /// Measurements taken (both classes).
    pub samples: usize,
    /// Median cycles (nanoseconds off x86-64) of one measurement.
    pub median: u64,
}

/// How much to measure.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Stop after this long (measurement and input preparation).
    pub time: Duration,
    /// Measurements per batch; inputs are prepared a batch at a time.
    pub batch: usize,
    /// Stop after this many measurements.
    pub max_samples: usize,
}

/// Times `op` on inputs of the two classes: `make(fixed, rng)` builds one input (the
/// fixed-secret class when `fixed` is true), a batch at a time before any is measured; the
/// classes interleave at random. The first batch is a warm-up whose times only set the
/// cropping thresholds (as dudect does).
pub fn check<T>(
    budget: Budget,
    seed: u64,
    mut make: impl FnMut(bool, &mut Rng) -> T,
    mut op: impl FnMut(&T),
) -> Outcome {
    let mut rng = Rng::new(seed);
    let started = Instant::now();
    let mut thresholds: Vec<u64> = Vec::new();
    let mut stats = vec![[Moments::default(); 2]; CROPS + 1];
    let mut samples = 0;
    let mut median = 0;
    let mut times = vec![0u64; budget.batch];
    let mut first = true;
    while started.elapsed() < budget.time && samples < budget.max_samples {
        let classes: Vec<bool> = (0..budget.batch).map(|_| rng.next_u64() & 1 == 1).collect();
        let inputs: Vec<T> = classes.iter().map(|&c| make(c, &mut rng)).collect();
        for (t, input) in times.iter_mut().zip(&inputs) {
            let start = now();
            op(std::hint::black_box(input));
            *t = now().wrapping_sub(start);
        }
        drop(inputs);
        if first {
            let mut sorted = times.clone();
            sorted.sort_unstable();
            median = sorted[sorted.len() / 2];
            thresholds = (0..CROPS)
                .map(|i| {
                    let q = 1.0 - 0.5f64.powf(10.0 * (i as f64 + 1.0) / CROPS as f64);
                    sorted[((q * sorted.len() as f64) as usize).min(sorted.len() - 1)]
                })
                .collect();
            first = false;
            continue;
        }
        for (&t, &c) in times.iter().zip(&classes) {
            let class = usize::from(c);
            stats[0][class].push(t as f64);
            for (level, &limit) in stats[1..].iter_mut().zip(&thresholds) {
                if t < limit {
                    level[class].push(t as f64);
                }
            }
        }
        samples += budget.batch;
    }
    let max_t = stats
        .iter()
        .map(|[a, b]| welch(a, b).abs())
        .fold(0.0, f64::max);
    Outcome {
        max_t,
        samples,
        median,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_a_hand_computation() {
        // Class a: 1, 2, 3 (mean 2, variance 1); class b: 4, 6, 8 (mean 6, variance 4):
        // t = (2 - 6) / sqrt(1/3 + 4/3) = -4 / sqrt(5/3) = -3.0984...
        let mut a = Moments::default();
        let mut b = Moments::default();
        [1.0, 2.0, 3.0].into_iter().for_each(|x| a.push(x));
        [4.0, 6.0, 8.0].into_iter().for_each(|x| b.push(x));
        assert!((welch(&a, &b) + 3.098_386_676_965_933_5).abs() < 1e-12);
        assert_eq!(welch(&a, &Moments::default()), 0.0);
    }

    #[test]
    fn rng_is_splitmix64() {
        // SplitMix64 from seed 0: first output 0xE220A8397B1DCDAF (Vigna's reference code).
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }
}
