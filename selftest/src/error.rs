//! Why the module refused an operation.

use core::fmt;

/// Why a module operation was refused. Every variant but [`Error::Rng`] means the module is
/// now, or already was, in its error state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The power-on self-tests have not passed yet ([`run`](crate::run)).
    NotTested,
    /// The module is in its error state: a self-test failed earlier in this process.
    ErrorState,
    /// A newly generated SM2 key failed its pairwise-consistency test; the module entered
    /// its error state.
    PairwiseConsistency,
    /// The entropy source repeated one byte too often in a row (SP 800-90B 4.4.1); the
    /// module entered its error state.
    RepetitionCount,
    /// One byte value took too large a share of the entropy source's output (SP 800-90B
    /// 4.4.2); the module entered its error state.
    AdaptiveProportion,
    /// The DRBG returned the same output block twice in a row (the continuous test); the
    /// module entered its error state.
    RepeatedOutput,
    /// The entropy source itself failed (an operating-system error), or the DRBG refused
    /// to be instantiated (a personalization string over its maximum length). Not a
    /// self-test failure: the module stays operational and the request may be repeated.
    Rng,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::NotTested => "selftest: the power-on self-tests have not been run",
            Error::ErrorState => "selftest: the module is in its error state (a self-test failed)",
            Error::PairwiseConsistency => {
                "selftest: a new SM2 key failed its pairwise-consistency test"
            }
            Error::RepetitionCount => {
                "selftest: the entropy source failed the repetition count test"
            }
            Error::AdaptiveProportion => {
                "selftest: the entropy source failed the adaptive proportion test"
            }
            Error::RepeatedOutput => "selftest: the DRBG repeated an output block",
            Error::Rng => "selftest: the entropy source failed",
        })
    }
}

impl core::error::Error for Error {}
