//! A DRBG that reseeds itself from an entropy source whenever its profile requires, so it
//! can serve as an ordinary (fallible or infallible) `rand_core` RNG.

use crate::{Drbg, Error};
use core::fmt;
use rand_core::TryCryptoRng;
use zeroize::Zeroize;

/// The longest entropy input [`AutoReseed`] draws: 256 bits, the largest security strength
/// of SP 800-90A and GM/T 0105's minimum.
const MAX_ENTROPY_LEN: usize = 32;

/// A DRBG `D` with its entropy source `E` (e.g. `getrandom::SysRng`, or a hardware
/// generator): instantiated from the source, reseeded from it whenever the reseed counter
/// or the time limit requires, and each request split into the profile's request size.
///
/// Its only errors are the source's, so with an infallible source
/// (`rand_core::UnwrapErr<getrandom::SysRng>`) it is an infallible `CryptoRng`.
///
/// ```
/// use shangmi_drbg::{AutoReseed, Drbg, NoClock, Sp800_90a, Sm3HashDrbg, HashDrbg};
/// use shangmi_sm3::Sm3;
/// use rand_core::{Rng, UnwrapErr};
///
/// let mut rng = AutoReseed::<HashDrbg<Sm3, Sp800_90a, NoClock>, _>::new(
///     UnwrapErr(getrandom::SysRng),
///     b"my application",
///     NoClock,
/// )?;
/// let mut key = [0u8; 32];
/// rng.fill_bytes(&mut key);
/// # Ok::<(), shangmi_drbg::AutoReseedError<core::convert::Infallible>>(())
/// ```
pub struct AutoReseed<D, E> {
    drbg: D,
    source: E,
}

/// Why [`AutoReseed::new`] failed: the entropy source failed, or the DRBG refused its
/// inputs (a personalization string over the maximum length, or a profile with a time
/// limit given [`NoClock`](crate::NoClock)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoReseedError<E> {
    /// The entropy source's error.
    Source(E),
    /// The DRBG's error.
    Drbg(Error),
}

impl<E: fmt::Display> fmt::Display for AutoReseedError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AutoReseedError::Source(e) => write!(f, "drbg: entropy source failed: {e}"),
            AutoReseedError::Drbg(e) => e.fmt(f),
        }
    }
}

impl<E: core::error::Error> core::error::Error for AutoReseedError<E> {}

impl<D: Drbg, E: TryCryptoRng> AutoReseed<D, E> {
    /// Instantiates `D` with entropy and a nonce drawn from `source` (the profile's minimum
    /// lengths) and the caller's `personalization` string.
    pub fn new(
        mut source: E,
        personalization: &[u8],
        clock: D::Clock,
    ) -> Result<Self, AutoReseedError<E::Error>> {
        let mut entropy = [0u8; MAX_ENTROPY_LEN];
        let mut nonce = [0u8; MAX_ENTROPY_LEN];
        let (e, n) = (D::min_entropy_len(), D::min_nonce_len());
        let drawn = source
            .try_fill_bytes(&mut entropy[..e])
            .and_then(|()| source.try_fill_bytes(&mut nonce[..n]));
        let drbg = drawn.map_err(AutoReseedError::Source).and_then(|()| {
            D::new(&entropy[..e], &nonce[..n], personalization, clock)
                .map_err(AutoReseedError::Drbg)
        });
        entropy.zeroize();
        nonce.zeroize();
        Ok(AutoReseed {
            drbg: drbg?,
            source,
        })
    }

    /// Reseeds now with fresh entropy from the source and the caller's `additional` input
    /// (at most [`MAX_INPUT_LEN`](crate::MAX_INPUT_LEN) bytes, or the DRBG refuses it).
    /// Calling it before each request gives prediction resistance.
    pub fn reseed(&mut self, additional: &[u8]) -> Result<(), AutoReseedError<E::Error>> {
        let mut entropy = [0u8; MAX_ENTROPY_LEN];
        let e = D::min_entropy_len();
        let result = match self.source.try_fill_bytes(&mut entropy[..e]) {
            Ok(()) => self
                .drbg
                .reseed(&entropy[..e], additional)
                .map_err(AutoReseedError::Drbg),
            Err(err) => Err(AutoReseedError::Source(err)),
        };
        entropy.zeroize();
        result
    }

    /// Pairs a DRBG the caller instantiated with the source to reseed it from.
    pub fn from_parts(drbg: D, source: E) -> Self {
        AutoReseed { drbg, source }
    }

    /// The DRBG inside (to read its state of reseeding; generate through `self`).
    pub fn drbg(&self) -> &D {
        &self.drbg
    }

    /// The entropy source.
    pub fn source(&self) -> &E {
        &self.source
    }

    /// Draws fresh entropy and reseeds (no additional input, which cannot fail).
    fn reseed_from_source(&mut self) -> Result<(), E::Error> {
        let mut entropy = [0u8; MAX_ENTROPY_LEN];
        let e = D::min_entropy_len();
        let drawn = self.source.try_fill_bytes(&mut entropy[..e]);
        if drawn.is_ok() {
            self.drbg.reseed_unchecked(&entropy[..e], &[]);
        }
        entropy.zeroize();
        drawn
    }
}

crate::try_rng_via_fill!(impl[D: Drbg, E: TryCryptoRng] AutoReseed<D, E>, E::Error, AutoReseed::fill);

impl<D: Drbg, E: TryCryptoRng> AutoReseed<D, E> {
    /// One request, reseeding from the source whenever the DRBG asks.
    fn fill(&mut self, dst: &mut [u8]) -> Result<(), E::Error> {
        for chunk in dst.chunks_mut(D::max_request_len()) {
            if self.drbg.reseed_required() {
                self.reseed_from_source()?;
            }
            self.drbg.generate_unchecked(chunk, &[]);
        }
        Ok(())
    }
}

impl<D: Drbg, E: TryCryptoRng> TryCryptoRng for AutoReseed<D, E> {}

impl<D, E> fmt::Debug for AutoReseed<D, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AutoReseed").finish_non_exhaustive()
    }
}
