//! Typed errors of building, parsing and decrypting (chain verification has its own,
//! [`crate::verify::VerifyError`]).

use core::fmt;

/// Everything that can go wrong outside chain verification; no input makes this crate panic.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The DER is malformed, has trailing bytes, or is not the expected structure.
    Der(der::Error),
    /// An SM2 operation or key encoding failed.
    Sm2(shangmi_sm2::Error),
    /// A distinguished name in `/C=CN/O=…/CN=…` form is malformed or names an unknown
    /// attribute.
    InvalidName,
    /// A subject alternative name is not `DNS:…`, `IP:…` or `email:…`, or is malformed.
    InvalidSan,
    /// The x509 builder refused its input.
    Build,
    /// An algorithm (signature, key, cipher, content type) this crate does not handle.
    UnsupportedAlgorithm,
    /// A signature (request, certificate, CMS signer) does not verify.
    BadSignature,
    /// The key is not an SM2 key, or a key pair does not match.
    KeyMismatch,
    /// Decryption failed: a wrong key, corrupted ciphertext or bad padding.
    Decryption,
    /// The random generator failed (the operating system's, or the one given to a
    /// `_with_rng` function).
    Rng,
    /// A CMS message digest attribute does not match the content, or is missing.
    DigestMismatch,
    /// A CMS message has no content (detached) and none was supplied, or no signer / recipient.
    MissingContent,
    /// No recipient in an EnvelopedData matches the given certificate.
    NoMatchingRecipient,
    /// No certificate for a CMS signer was found in the message or given.
    SignerCertificateNotFound,
    /// A PEM block is malformed or has an unexpected label.
    Pem,
    /// A validity period is out of range.
    InvalidValidity,
    /// A CRL does not name the certificate given as its issuer (issuer name, or the key
    /// identifiers disagree).
    IssuerMismatch,
    /// A CRL's issuer certificate has a keyUsage without cRLSign.
    NotCrlSigner,
    /// A critical extension this crate does not apply (its OID): in CRLs also the delta
    /// CRL indicator, issuingDistributionPoint and certificateIssuer, which are refused.
    UnhandledCriticalExtension(const_oid::ObjectIdentifier),
    /// An encrypted key or PKCS#12 names a key derivation, PRF or cipher this crate does not
    /// handle (its OID).
    UnsupportedScheme(const_oid::ObjectIdentifier),
    /// A password-based scheme's parameters are malformed or out of bounds (iteration count,
    /// scrypt cost, key length, IV or nonce size).
    MalformedScheme,
    /// The password is wrong (bad padding, failed tag, or a decryption that is not a key).
    WrongPassword,
    /// The private key's holder (a crypto device behind
    /// [`PrivateKeyOps`](shangmi_sm2::PrivateKeyOps)) failed to sign or decrypt; its own
    /// message, which names the failure and never a PIN or key material.
    KeyHolder(alloc::string::String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Der(e) => write!(f, "malformed DER: {e}"),
            Error::Sm2(e) => write!(f, "SM2: {e}"),
            Error::InvalidName => {
                f.write_str("malformed distinguished name (expected /C=CN/O=…/CN=…)")
            }
            Error::InvalidSan => {
                f.write_str("malformed subject alternative name (expected DNS:…, IP:… or email:…)")
            }
            Error::Build => f.write_str("certificate builder refused the input"),
            Error::UnsupportedAlgorithm => f.write_str("unsupported algorithm"),
            Error::BadSignature => f.write_str("signature does not verify"),
            Error::KeyMismatch => f.write_str("not an SM2 key, or the keys do not match"),
            Error::Decryption => f.write_str("decryption failed"),
            Error::Rng => f.write_str("random generator failed"),
            Error::DigestMismatch => f.write_str("message digest does not match the content"),
            Error::MissingContent => f.write_str("no content, signer or recipient"),
            Error::NoMatchingRecipient => f.write_str("no recipient matches the certificate"),
            Error::SignerCertificateNotFound => f.write_str("signer certificate not found"),
            Error::Pem => f.write_str("malformed PEM or unexpected label"),
            Error::InvalidValidity => f.write_str("validity period out of range"),
            Error::IssuerMismatch => f.write_str("the CRL does not name this issuer"),
            Error::NotCrlSigner => f.write_str("the issuer's key usage does not permit cRLSign"),
            Error::UnhandledCriticalExtension(oid) => {
                write!(f, "unhandled critical extension {oid}")
            }
            Error::UnsupportedScheme(oid) => write!(f, "unsupported password-based scheme {oid}"),
            Error::MalformedScheme => f.write_str("malformed password-based scheme parameters"),
            Error::WrongPassword => f.write_str("wrong password"),
            Error::KeyHolder(e) => write!(f, "the private key's holder failed: {e}"),
        }
    }
}

impl core::error::Error for Error {}

impl Error {
    /// A [`PrivateKeyOps`](shangmi_sm2::PrivateKeyOps) key's failure: refused input is
    /// [`Error::Decryption`] (a malformed or forged ciphertext), anything else the holder's
    /// ([`Error::KeyHolder`]).
    pub(crate) fn from_key_op<E: shangmi_sm2::KeyOpError>(e: E) -> Self {
        if e.is_refused_input() {
            Error::Decryption
        } else {
            Error::key_holder(e)
        }
    }

    /// The key holder's failure to sign ([`Error::KeyHolder`]).
    pub(crate) fn key_holder(e: impl fmt::Display) -> Self {
        Error::KeyHolder(alloc::string::ToString::to_string(&e))
    }
}

impl From<der::Error> for Error {
    fn from(e: der::Error) -> Self {
        Error::Der(e)
    }
}

/// SM2's errors, a failed random generator (SM2 encryption's or PBES2's draw) as
/// [`Error::Rng`] like pki's own draws.
impl From<shangmi_sm2::Error> for Error {
    fn from(e: shangmi_sm2::Error) -> Self {
        match e {
            shangmi_sm2::Error::Rng => Error::Rng,
            e => Error::Sm2(e),
        }
    }
}

impl From<x509_cert::builder::Error> for Error {
    fn from(e: x509_cert::builder::Error) -> Self {
        match e {
            x509_cert::builder::Error::Asn1(e) => Error::Der(e),
            _ => Error::Build,
        }
    }
}
