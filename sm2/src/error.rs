//! Typed errors.

use core::fmt;

/// Everything that can go wrong in this crate; no input makes it panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The distinguishing identifier is longer than 8191 bytes (its bit length must fit the
    /// 16-bit ENTL field).
    IdTooLong,
    /// A secret scalar is 0 or not below n (signing keys must also differ from n - 1).
    InvalidSecretKey,
    /// A point encoding is malformed, not on the curve, or the identity.
    InvalidPoint,
    /// A signature encoding is malformed, non-canonical, or has r or s outside [1, n-1].
    InvalidSignature,
    /// The signature does not verify.
    Verification,
    /// A prehash is not 32 bytes.
    InvalidPrehash,
    /// A ciphertext is malformed or its hash check failed.
    Decryption,
    /// The KDF output was all zero (GB/T 32918.4 asks to retry with a new k; decryption
    /// fails).
    KdfZero,
    /// Key-exchange confirmation failed or a peer value was invalid.
    KeyExchange,
    /// SM2 encryption of an empty message, or a ciphertext whose C2 is empty: GB/T 32918.4
    /// (A5/B4) rejects an all-zero key stream t, and an empty message has no key stream to
    /// check; OpenSSL 3 and gmsm produce no ciphertext for it either.
    EmptyMessage,
    /// The random number generator failed.
    Rng,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::IdTooLong => "distinguishing identifier longer than 8191 bytes",
            Error::InvalidSecretKey => "invalid SM2 secret key",
            Error::InvalidPoint => "invalid SM2 point",
            Error::InvalidSignature => "malformed SM2 signature",
            Error::Verification => "SM2 signature verification failed",
            Error::InvalidPrehash => "SM2 prehash must be 32 bytes",
            Error::Decryption => "SM2 decryption failed",
            Error::KdfZero => "SM2 KDF produced all zeros",
            Error::KeyExchange => "SM2 key exchange failed",
            Error::EmptyMessage => "SM2 encryption of an empty message",
            Error::Rng => "random number generator failed",
        })
    }
}

impl core::error::Error for Error {}

impl From<Error> for signature::Error {
    fn from(_: Error) -> Self {
        signature::Error::new()
    }
}
