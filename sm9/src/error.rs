//! The crate's error type.

use core::fmt;

/// Why an SM9 operation failed. Deliberately coarse where detail would help an attacker
/// (every decryption failure is [`Error::Decryption`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A key's encoding is malformed or its value is out of range (not on the curve, not
    /// in the group, zero).
    InvalidKey,
    /// A point encoding is malformed or not on the curve.
    InvalidPoint,
    /// A DER or fixed-size encoding is malformed.
    Encoding,
    /// The signature does not verify.
    Verification,
    /// Decryption or decapsulation failed (bad ciphertext, wrong key, tag mismatch).
    Decryption,
    /// Key extraction hit t1 = 0 for this identity: the master key must be regenerated
    /// (GM/T 0044-2016 part 2, 5.2).
    ExtractionFailed,
    /// The random number generator failed.
    Rng,
    /// An argument is out of range (empty plaintext, output buffer of the wrong size,
    /// zero-length key).
    InvalidArgument,
    /// The key exchange peer's confirmation value does not match.
    KeyConfirmation,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::InvalidKey => "sm9: invalid key",
            Error::InvalidPoint => "sm9: invalid point",
            Error::Encoding => "sm9: malformed encoding",
            Error::Verification => "sm9: signature verification failed",
            Error::Decryption => "sm9: decryption failed",
            Error::ExtractionFailed => "sm9: key extraction failed for this identity",
            Error::Rng => "sm9: random number generator failed",
            Error::InvalidArgument => "sm9: invalid argument",
            Error::KeyConfirmation => "sm9: key confirmation failed",
        })
    }
}

impl core::error::Error for Error {}
