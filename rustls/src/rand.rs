//! Random generators for the provider: the operating system's, and (feature `test-rng`) a
//! seeded one whose output is reproducible, for tests and transcript replays only.

use rustls::crypto::{GetRandomFailed, SecureRandom};

/// The operating system's random generator, through `getrandom`.
#[derive(Debug)]
pub struct OsRandom;

/// The generator [`crate::provider()`] uses.
pub static OS_RANDOM: OsRandom = OsRandom;

impl SecureRandom for OsRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        getrandom::fill(buf).map_err(|_| GetRandomFailed)
    }
}

/// A deterministic generator: SM3 in counter mode over a seed. **Predictable by design**:
/// it exists so that a test can replay a recorded handshake (its key shares, randoms and
/// nonces come out the same on every run). Never use it for a real connection.
#[cfg(feature = "test-rng")]
#[derive(Debug)]
pub struct SeededRandom {
    seed: [u8; 32],
    counter: std::sync::atomic::AtomicU64,
}

#[cfg(feature = "test-rng")]
impl SeededRandom {
    /// A generator whose whole output stream is a function of `seed`.
    pub const fn new(seed: [u8; 32]) -> Self {
        Self {
            seed,
            counter: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

#[cfg(feature = "test-rng")]
impl SecureRandom for SeededRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        use digest::Digest;
        for chunk in buf.chunks_mut(32) {
            let n = self
                .counter
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let block = shangmi_sm3::Sm3::new()
                .chain_update(self.seed)
                .chain_update(n.to_be_bytes())
                .finalize();
            chunk.copy_from_slice(&block[..chunk.len()]);
        }
        Ok(())
    }
}
