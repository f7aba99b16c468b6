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
