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
    /// No PEM block was found, or a block's boundaries, headers or base64 are malformed.
    MalformedPem,
    /// A PEM block's label is not one this loader takes (a `CERTIFICATE` or `PUBLIC KEY`
    /// where a private key is expected, say).
    UnexpectedPemLabel,
    /// The DER is not the structure expected: not PKCS#8 `PrivateKeyInfo`, SEC1
    /// `ECPrivateKey` or SPKI `SubjectPublicKeyInfo` (truncated, trailing bytes, wrong
    /// version or tags).
    MalformedKey,
    /// The key is not an elliptic-curve key (its algorithm is neither id-ecPublicKey nor
    /// SM2: an RSA or Ed25519 key, say).
    UnsupportedAlgorithm,
    /// An elliptic-curve key on another curve than SM2 (P-256, say), or with explicit or
    /// missing curve parameters.
    WrongCurve,
    /// A SEC1 private key's embedded public key is not d·G.
    PublicKeyMismatch,
    /// The key is encrypted (`ENCRYPTED PRIVATE KEY`) and no password was given.
    EncryptedKey,
    /// The key's encryption scheme is not supported (PBES1, scrypt, OpenSSL's legacy
    /// `Proc-Type: 4,ENCRYPTED` PEM, an unknown PRF or cipher), or the `encryption`
    /// feature is off.
    UnsupportedEncryption,
    /// Decryption of an encrypted key failed: a wrong password (or corrupted data): the
    /// padding or the decrypted structure is invalid.
    WrongPassword,
    /// Encoding a key failed (a DER length overflow; not expected for SM2 keys).
    Encoding,
    /// A key pair failed its pairwise-consistency test: a signature made with the secret
    /// key did not verify under the public key, or (with `alloc`) a message encrypted to the
    /// public key did not decrypt with the secret key
    /// ([`keys::check_key_pair`](crate::keys::check_key_pair)).
    PairwiseConsistency,
    /// A batch's output slice is not as long as its input ([`crate::batch`]).
    BatchLength,
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
            Error::MalformedPem => "no PEM block, or malformed PEM boundaries, headers or base64",
            Error::UnexpectedPemLabel => "PEM label not accepted by this key loader",
            Error::MalformedKey => "malformed key: not PKCS#8, SEC1 or SPKI DER",
            Error::UnsupportedAlgorithm => "not an elliptic-curve (SM2) key",
            Error::WrongCurve => "elliptic-curve key not on the SM2 curve",
            Error::PublicKeyMismatch => "SEC1 key's public key does not match its secret",
            Error::EncryptedKey => "the key is encrypted and no password was given",
            Error::UnsupportedEncryption => "unsupported private-key encryption scheme",
            Error::WrongPassword => "key decryption failed (wrong password or corrupted data)",
            Error::Encoding => "key encoding failed",
            Error::PairwiseConsistency => "SM2 key pair failed its pairwise-consistency test",
            Error::BatchLength => "batch output length differs from its input length",
        })
    }
}

impl core::error::Error for Error {}

impl From<Error> for signature::Error {
    fn from(_: Error) -> Self {
        signature::Error::new()
    }
}
