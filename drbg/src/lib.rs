#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

mod auto;
mod clock;
mod ctr;
mod error;
mod hash;
mod health;
mod hmac;
mod profile;
mod schedule;

pub use auto::{AutoReseed, AutoReseedError};
#[cfg(feature = "std")]
pub use clock::StdClock;
pub use clock::{Clock, NoClock};
pub use ctr::{CtrCipher, CtrDrbg};
pub use error::Error;
pub use hash::HashDrbg;
pub use health::{HealthError, HealthTested, OUTPUT_BLOCK, OutputTested};
pub use hmac::HmacDrbg;
pub use profile::{GmLevel1, GmLevel2, Profile, Sp800_90a};
pub use rand_core;

use rand_core::TryCryptoRng;
use shangmi_sm3::Sm3;
use shangmi_sm4::Sm4;

/// The longest entropy input, nonce, personalization string or additional input, in bytes
/// (2^27, i.e. 2^30 bits; SP 800-90A allows implementations any limit up to 2^35 bits).
pub const MAX_INPUT_LEN: usize = 1 << 27;

/// GM/T 0105-2021's SM3 generator (Hash_DRBG with SM3) at security level 1. For level 2:
/// `HashDrbg<Sm3, GmLevel2, C>`.
pub type Sm3HashDrbg<C> = HashDrbg<Sm3, GmLevel1, C>;

/// GM/T 0105-2021's SM4 generator (CTR_DRBG with SM4 and the derivation function) at
/// security level 1. For level 2: `CtrDrbg<Sm4, GmLevel2, C>`.
pub type Sm4CtrDrbg<C> = CtrDrbg<Sm4, GmLevel1, C>;

/// HMAC_DRBG with SM3 under GM/T 0105-2021's level-1 limits (the standard itself defines
/// no HMAC generator). For level 2: `HmacDrbg<Sm3, GmLevel2, C>`.
pub type Sm3HmacDrbg<C> = HmacDrbg<Sm3, GmLevel1, C>;

pub(crate) mod sealed {
    use crate::Error;

    /// The steps below the checks, for the crate's own callers that have already made
    /// them (or that cannot break them, as [`AutoReseed`](crate::AutoReseed)).
    pub trait Core {
        /// The checks of a generate call, before it touches the state.
        fn check_generate(&self, out_len: usize, additional: &[u8]) -> Result<(), Error>;
        /// The reseed function on inputs of valid length.
        fn reseed_unchecked(&mut self, entropy: &[u8], additional: &[u8]);
        /// The generate function on a request the checks let through.
        fn generate_unchecked(&mut self, out: &mut [u8], additional: &[u8]);
    }
}

/// The functions of a DRBG mechanism (SP 800-90A section 9; GM/T 0105-2021 Annexes B and
/// E): instantiate, reseed, generate, under the rules of its [`Profile`].
///
/// Every function checks its inputs and the state first and returns an [`Error`] without
/// changing the state when a rule is broken. Implemented by [`HashDrbg`], [`HmacDrbg`] and
/// [`CtrDrbg`] (sealed).
///
/// ```
/// use shangmi_drbg::{Clock, Drbg, Error, Sm4CtrDrbg};
///
/// struct Rtc; // the device's real-time clock
/// impl Clock for Rtc {
///     fn now_seconds(&self) -> u64 { 1_700_000_000 }
/// }
///
/// let mut drbg = Sm4CtrDrbg::new(&[1; 32], &[2; 16], b"device 42", Rtc)?;
/// let mut block = [0u8; 16]; // GM/T 0105: one SM4 block per request
/// drbg.generate(&mut block, b"")?;
/// assert_eq!(drbg.generate(&mut [0u8; 17], b""), Err(Error::RequestTooLarge));
/// drbg.reseed(&[3; 32], b"")?;
/// # Ok::<(), Error>(())
/// ```
pub trait Drbg: Sized + sealed::Core {
    /// The clock read for the profile's time limit.
    type Clock: Clock;

    /// The instantiate function: a DRBG seeded from `entropy` (at least
    /// [`min_entropy_len`](Self::min_entropy_len) bytes), `nonce` (at least
    /// [`min_nonce_len`](Self::min_nonce_len)) and an optional `personalization` string.
    fn new(
        entropy: &[u8],
        nonce: &[u8],
        personalization: &[u8],
        clock: Self::Clock,
    ) -> Result<Self, Error>;

    /// The shortest entropy input the profile accepts for this mechanism, in bytes (its
    /// security strength under SP 800-90A, at least 32 under GM/T 0105).
    fn min_entropy_len() -> usize;

    /// The shortest nonce, in bytes: half the entropy input.
    fn min_nonce_len() -> usize {
        Self::min_entropy_len() / 2
    }

    /// The most bytes one [`generate`](Self::generate) call returns under the profile.
    fn max_request_len() -> usize;

    /// Whether the next generate call will be refused until a reseed (the reseed counter
    /// reached the interval, or the time limit passed).
    fn reseed_required(&self) -> bool;

    /// The reseed function: mixes fresh `entropy` (at least
    /// [`min_entropy_len`](Self::min_entropy_len) bytes) and optional `additional` input
    /// into the state, and restarts the reseed counter and clock.
    fn reseed(&mut self, entropy: &[u8], additional: &[u8]) -> Result<(), Error> {
        schedule::check_reseed(entropy, additional, Self::min_entropy_len())?;
        self.reseed_unchecked(entropy, additional);
        Ok(())
    }

    /// The generate function: fills `out` (at most
    /// [`max_request_len`](Self::max_request_len) bytes) with optional `additional` input.
    /// Refused with [`Error::ReseedRequired`] once the counter or time limit is reached.
    fn generate(&mut self, out: &mut [u8], additional: &[u8]) -> Result<(), Error> {
        self.check_generate(out.len(), additional)?;
        self.generate_unchecked(out, additional);
        Ok(())
    }

    /// Generate with prediction resistance (SP 800-90A 9.3.1): reseeds with `entropy` and
    /// `additional`, then generates without additional input. Every check is made before
    /// the state changes.
    fn generate_with_prediction_resistance(
        &mut self,
        entropy: &[u8],
        additional: &[u8],
        out: &mut [u8],
    ) -> Result<(), Error> {
        schedule::check_reseed(entropy, additional, Self::min_entropy_len())?;
        if out.len() > Self::max_request_len() {
            return Err(Error::RequestTooLarge);
        }
        self.reseed_unchecked(entropy, additional);
        self.generate(out, &[])
    }
}

/// `rand_core`'s `try_fill_bytes` on a DRBG: the request in pieces of the profile's
/// request size, stopping at the first refusal (in practice [`Error::ReseedRequired`]).
fn fill<D: Drbg>(drbg: &mut D, dst: &mut [u8]) -> Result<(), Error> {
    for chunk in dst.chunks_mut(D::max_request_len()) {
        drbg.generate(chunk, &[])?;
    }
    Ok(())
}

/// Implements `rand_core`'s `TryRng` for a type whose every request goes through one fill
/// function (`fn(&mut T, &mut [u8]) -> Result<(), E>`): the words are drawn through it as
/// well (`rand_core::utils::next_word_via_fill`). The one owner of that delegation: this
/// crate's generators and wrappers use it, and so do wrappers in other crates
/// (`shangmi-selftest`'s module RNG). Outer attributes (docs) go on the `impl`.
///
/// ```
/// use core::convert::Infallible;
///
/// /// Counts up from 1: a toy source.
/// struct Counter(u8);
///
/// fn count(c: &mut Counter, dst: &mut [u8]) -> Result<(), Infallible> {
///     for b in dst {
///         c.0 = c.0.wrapping_add(1);
///         *b = c.0;
///     }
///     Ok(())
/// }
///
/// shangmi_drbg::try_rng_via_fill!(impl[] Counter, Infallible, count);
///
/// use shangmi_drbg::rand_core::TryRng;
/// assert_eq!(Counter(0).try_next_u32(), Ok(u32::from_le_bytes([1, 2, 3, 4])));
/// ```
#[macro_export]
macro_rules! try_rng_via_fill {
    ($(#[$attr:meta])* impl[$($gen:tt)*] $ty:ty, $err:ty, $fill:expr) => {
        $(#[$attr])*
        impl<$($gen)*> $crate::rand_core::TryRng for $ty {
            type Error = $err;

            fn try_next_u32(&mut self) -> ::core::result::Result<u32, $err> {
                $crate::rand_core::utils::next_word_via_fill(self)
            }

            fn try_next_u64(&mut self) -> ::core::result::Result<u64, $err> {
                $crate::rand_core::utils::next_word_via_fill(self)
            }

            fn try_fill_bytes(&mut self, dst: &mut [u8]) -> ::core::result::Result<(), $err> {
                $fill(self, dst)
            }
        }
    };
}

/// The `rand_core` traits for one DRBG type (a blanket impl over [`Drbg`] is not allowed
/// for a foreign trait, so each type gets them through [`try_rng_via_fill!`]).
macro_rules! rand_core_traits {
    ($drbg:ident<$g:ident: $bound:path>) => {
        try_rng_via_fill!(
            /// A fallible `rand_core` RNG: fails with [`Error::ReseedRequired`] when the
            /// profile asks for fresh entropy (wrap it in [`AutoReseed`] to reseed
            /// automatically).
            impl[$g: $bound, P: Profile, C: Clock] $drbg<$g, P, C>, Error, fill
        );

        impl<$g: $bound, P: Profile, C: Clock> TryCryptoRng for $drbg<$g, P, C> {}
    };
}

rand_core_traits!(HashDrbg<H: digest::Digest>);
rand_core_traits!(HmacDrbg<H: digest::block_api::EagerHash>);
rand_core_traits!(CtrDrbg<B: CtrCipher>);
