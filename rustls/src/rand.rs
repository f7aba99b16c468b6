//! The provider's random generator: the operating system's. (The tests bring their own,
//! seeded one, through [`crate::provider_with_random`], to replay recorded handshakes.)
//!
//! The generator trait is rustls' own [`SecureRandom`], for this provider and for
//! `shangmi-tlcp` alike (its `SystemRandom` is [`OsRandom`]): one trait, so a seeded or
//! hardware generator written for one serves both.

use rustls::crypto::{GetRandomFailed, SecureRandom};

/// The operating system's random generator, through `getrandom`.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsRandom;

/// The generator [`crate::provider()`] uses.
pub static OS_RANDOM: OsRandom = OsRandom;

impl SecureRandom for OsRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
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
