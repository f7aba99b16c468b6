//! Signature values (r, s) with the fixed 64-byte form r ‖ s and the DER form
//! `SEQUENCE { r INTEGER, s INTEGER }` (GM/T 0009 §7.2, the codec in `asn1.rs`); both
//! parsers are strict.

use crate::Error;
use crate::arith::scalar::is_in_range;
use crate::asn1::{self, MAX_SIGNATURE_LEN};
use core::fmt;

/// An SM2 signature (r, s), both in [1, n-1].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    r: [u8; 32],
    s: [u8; 32],
}

/// A DER-encoded signature (at most 72 bytes, no allocation).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct DerSignature {
    buf: [u8; MAX_SIGNATURE_LEN],
    len: usize,
}

impl AsRef<[u8]> for DerSignature {
    fn as_ref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl fmt::Debug for DerSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DerSignature(")?;
        for b in self.as_ref() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature(")?;
        for b in self.r.iter().chain(self.s.iter()) {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl Signature {
    /// From r and s as 32-byte big-endian integers; both must be in [1, n-1].
    pub fn from_scalars(r: [u8; 32], s: [u8; 32]) -> Result<Self, Error> {
        if is_in_range(&r) & is_in_range(&s) == 0 {
            return Err(Error::InvalidSignature);
        }
        Ok(Signature { r, s })
    }

    /// From the fixed 64-byte form r ‖ s.
    pub fn from_bytes(bytes: &[u8; 64]) -> Result<Self, Error> {
        let mut r = [0u8; 32];
        let mut s = [0u8; 32];
        r.copy_from_slice(&bytes[..32]);
        s.copy_from_slice(&bytes[32..]);
        Self::from_scalars(r, s)
    }

    /// From the fixed form given as a slice (must be exactly 64 bytes).
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error> {
        let b: &[u8; 64] = bytes.try_into().map_err(|_| Error::InvalidSignature)?;
        Self::from_bytes(b)
    }

    /// The fixed 64-byte form r ‖ s.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r);
        out[32..].copy_from_slice(&self.s);
        out
    }

    /// r, big-endian.
    pub fn r(&self) -> &[u8; 32] {
        &self.r
    }

    /// s, big-endian.
    pub fn s(&self) -> &[u8; 32] {
        &self.s
    }

    /// Parses DER strictly: one SEQUENCE of two INTEGERs with minimal definite lengths,
    /// minimal integer encodings, no negative values, no trailing bytes, r and s in [1, n-1].
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let (r, s) = asn1::decode_signature(der).map_err(|_| Error::InvalidSignature)?;
        Self::from_scalars(r, s)
    }

    /// Either form, as toolkits exchange them: DER first (strictly, as [`Self::from_der`]),
    /// then the fixed 64-byte `r ‖ s`. A 64-byte input that is also valid DER is read as
    /// DER. The one reader the command line and the bindings share.
    pub fn from_der_or_fixed(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_der(bytes).or_else(|e| match bytes.len() {
            64 => Self::from_slice(bytes),
            _ => Err(e),
        })
    }

    /// The DER form.
    pub fn to_der(&self) -> DerSignature {
        let mut buf = [0u8; MAX_SIGNATURE_LEN];
        // Two integers of at most 32 bytes always fit the buffer.
        let len = asn1::encode_signature(&self.r, &self.s, &mut buf).unwrap_or(0);
        DerSignature { buf, len }
    }
}

impl TryFrom<&[u8]> for Signature {
    type Error = signature::Error;

    fn try_from(bytes: &[u8]) -> Result<Self, Self::Error> {
        Ok(Self::from_slice(bytes)?)
    }
}

impl From<Signature> for [u8; 64] {
    fn from(sig: Signature) -> [u8; 64] {
        sig.to_bytes()
    }
}

impl signature::SignatureEncoding for Signature {
    type Repr = [u8; 64];
}
