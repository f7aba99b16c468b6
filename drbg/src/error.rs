//! The errors of the DRBG functions: every rule of GM/T 0105-2021 and SP 800-90A that a
//! caller's input or the generator's state can break has its own variant.

use core::fmt;

/// Why an instantiate, reseed or generate call was refused. The state is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The entropy input is shorter than the profile's minimum for this mechanism
    /// ([`Drbg::min_entropy_len`](crate::Drbg::min_entropy_len)).
    EntropyTooShort,
    /// The nonce is shorter than the profile's minimum
    /// ([`Drbg::min_nonce_len`](crate::Drbg::min_nonce_len)).
    NonceTooShort,
    /// An entropy input, nonce, personalization string or additional input is longer than
    /// [`MAX_INPUT_LEN`](crate::MAX_INPUT_LEN).
    InputTooLong,
    /// More bytes were requested in one generate call than the profile allows
    /// ([`Drbg::max_request_len`](crate::Drbg::max_request_len)).
    RequestTooLarge,
    /// The reseed counter reached the profile's interval, or the time since the last
    /// reseed exceeds its limit: reseed with fresh entropy, then generate again.
    ReseedRequired,
    /// The profile limits the time between reseeds (GM/T 0105-2021) and the clock given
    /// measures none ([`NoClock`](crate::NoClock)).
    ClockRequired,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::EntropyTooShort => "drbg: entropy input shorter than the profile's minimum",
            Error::NonceTooShort => "drbg: nonce shorter than the profile's minimum",
            Error::InputTooLong => "drbg: input longer than the maximum length",
            Error::RequestTooLarge => "drbg: more bytes requested than one generate call allows",
            Error::ReseedRequired => "drbg: reseed required (counter or time limit reached)",
            Error::ClockRequired => {
                "drbg: this profile limits the time between reseeds: give it a clock"
            }
        })
    }
}

impl core::error::Error for Error {}
