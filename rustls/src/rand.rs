//! The provider's random generator: the operating system's. (The tests bring their own,
//! seeded one, through [`crate::provider_with_random`], to replay recorded handshakes.)
//!
//! The generator trait is rustls' own [`SecureRandom`], for this provider and for
//! `shangmi-tlcp` alike (its `SystemRandom` is [`OsRandom`]): one trait, so a seeded or
//! hardware generator written for one serves both. [`Locked`] makes any `rand_core`
//! generator one (a module's health-tested DRBG, `shangmi-selftest`'s `ModuleRng`).

use rustls::crypto::{GetRandomFailed, SecureRandom};
use std::sync::Mutex;

#[cfg(any(target_os = "linux", target_os = "android"))]
#[allow(unsafe_code)] // the pool's page: mmap, madvise and munmap
mod pool;

/// The operating system's random generator, through `getrandom`. On Linux and Android a
/// draw of up to 256 bytes comes from a per-thread pool the kernel refills 1024 bytes at a
/// time (one system call per many draws): each byte is handed out once and cleared when
/// taken, the pool is cleared when its thread ends, and it lives in a page the kernel wipes
/// in a child after `fork` (`MADV_WIPEONFORK`), so a child never repeats its parent's
/// bytes. Where that page cannot be had, every draw is a `getrandom` call.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsRandom;

/// The generator [`crate::provider()`] uses.
pub static OS_RANDOM: OsRandom = OsRandom;

impl SecureRandom for OsRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if buf.len() <= pool::MAX_DRAW {
            return pool::fill(buf);
        }
        getrandom::fill(buf).map_err(|_| GetRandomFailed)
    }
}

/// A rustls [`SecureRandom`] as the `rand_core` generator the SM2 crate draws from (key
/// pools, key exchange): the one adapter of this provider and of `shangmi-tlcp`.
#[derive(Debug)]
pub struct RandCore<'a>(pub &'a dyn SecureRandom);

impl rand_core::TryRng for RandCore<'_> {
    type Error = RandFailed;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.0.fill(dst).map_err(|GetRandomFailed| RandFailed)
    }
}

impl rand_core::TryCryptoRng for RandCore<'_> {}

/// The generator behind a [`RandCore`] failed (rustls' [`GetRandomFailed`] as the `std`
/// error `rand_core` asks of a generator's).
#[derive(Debug)]
pub struct RandFailed;

impl core::fmt::Display for RandFailed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the random generator failed")
    }
}

impl std::error::Error for RandFailed {}

/// Any `rand_core` generator as a rustls [`SecureRandom`], behind a mutex (rustls shares
/// one generator between connections and threads): for a provider
/// ([`crate::provider_with_random`]) and a `shangmi-tlcp` configuration alike to draw every
/// random value from, say, a cryptographic module's DRBG. A failure of the generator, or a
/// lock poisoned by a panic during a draw (the generator's state is then not trusted), is
/// [`GetRandomFailed`]: the handshake that asked fails, nothing panics.
///
/// ```
/// use rustls::crypto::SecureRandom;
/// let random = shangmi_rustls::rand::Locked::new(getrandom::SysRng);
/// let mut buf = [0u8; 32];
/// random.fill(&mut buf).unwrap();
/// ```
pub struct Locked<R>(pub(crate) Mutex<R>);

impl<R> Locked<R> {
    /// `rng` behind the lock.
    pub fn new(rng: R) -> Self {
        Locked(Mutex::new(rng))
    }
}

impl<R> core::fmt::Debug for Locked<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Locked").finish_non_exhaustive()
    }
}

impl<R: rand_core::TryCryptoRng + Send> SecureRandom for Locked<R> {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        let mut rng = self.0.lock().map_err(|_| GetRandomFailed)?;
        rng.try_fill_bytes(buf).map_err(|_| GetRandomFailed)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Counts its requests; fails once `fail` is set.
    pub(crate) struct Counting {
        pub(crate) requests: u32,
        pub(crate) fail: bool,
    }

    impl Counting {
        fn fill(&mut self, dst: &mut [u8]) -> Result<(), RandFailed> {
            if self.fail {
                return Err(RandFailed);
            }
            self.requests += 1;
            dst.fill(0xa5);
            Ok(())
        }
    }

    shangmi_drbg::try_rng_via_fill!(impl[] Counting, RandFailed, Counting::fill);

    impl rand_core::TryCryptoRng for Counting {}

    #[test]
    fn locked_fills_from_its_generator_and_reports_its_failure() {
        let random = Locked::new(Counting {
            requests: 0,
            fail: false,
        });
        let mut buf = [0u8; 40];
        random.fill(&mut buf).unwrap();
        assert_eq!(buf, [0xa5; 40]);
        assert_eq!(random.0.lock().unwrap().requests, 1);
        random.0.lock().unwrap().fail = true;
        assert!(random.fill(&mut buf).is_err());
    }

    #[test]
    fn a_poisoned_lock_is_a_failure_not_a_panic() {
        let random = std::sync::Arc::new(Locked::new(Counting {
            requests: 0,
            fail: false,
        }));
        let r = random.clone();
        let _ = std::thread::spawn(move || {
            let _guard = r.0.lock();
            panic!("poisons the lock");
        })
        .join();
        assert!(random.fill(&mut [0u8; 8]).is_err());
    }
}
