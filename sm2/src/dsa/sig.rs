//! Signature values (r, s) with the fixed 64-byte form r ‖ s and the DER form
//! `SEQUENCE { r INTEGER, s INTEGER }` (GM/T 0009 §7.2); both parsers are strict.

use crate::Error;
use crate::arith::scalar::is_in_range;
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
    buf: [u8; 72],
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

    /// Parses DER strictly: one SEQUENCE of two INTEGERs with definite short-form lengths,
    /// minimal integer encodings, no negative values, no trailing bytes, r and s in [1, n-1].
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let bad = Error::InvalidSignature;
        let (&tag, rest) = der.split_first().ok_or(bad)?;
        let (&len, body) = rest.split_first().ok_or(bad)?;
        if tag != 0x30 || len >= 0x80 || body.len() != len as usize {
            return Err(bad);
        }
        let (r, body) = parse_integer(body)?;
        let (s, body) = parse_integer(body)?;
        if !body.is_empty() {
            return Err(bad);
        }
        Self::from_scalars(r, s)
    }

    /// The DER form.
    pub fn to_der(&self) -> DerSignature {
        let mut buf = [0u8; 72];
        let mut pos = 2;
        for v in [&self.r, &self.s] {
            let skip = v.iter().take_while(|&&b| b == 0).count().min(31);
            let digits = &v[skip..];
            let pad = usize::from(digits[0] >= 0x80);
            buf[pos] = 0x02;
            buf[pos + 1] = (digits.len() + pad) as u8;
            pos += 2 + pad;
            buf[pos..pos + digits.len()].copy_from_slice(digits);
            pos += digits.len();
        }
        buf[0] = 0x30;
        buf[1] = (pos - 2) as u8;
        DerSignature { buf, len: pos }
    }
}

/// One minimal, non-negative INTEGER of at most 32 value bytes; returns it left-padded.
fn parse_integer(der: &[u8]) -> Result<([u8; 32], &[u8]), Error> {
    let bad = Error::InvalidSignature;
    let (&tag, rest) = der.split_first().ok_or(bad)?;
    let (&len, rest) = rest.split_first().ok_or(bad)?;
    let len = len as usize;
    if tag != 0x02 || len == 0 || len > 33 || rest.len() < len {
        return Err(bad);
    }
    let (mut v, rest) = rest.split_at(len);
    if v[0] & 0x80 != 0 {
        return Err(bad); // negative
    }
    if v[0] == 0 && len > 1 {
        if v[1] & 0x80 == 0 {
            return Err(bad); // non-minimal leading zero
        }
        v = &v[1..];
    }
    if v.len() > 32 {
        return Err(bad);
    }
    let mut out = [0u8; 32];
    out[32 - v.len()..].copy_from_slice(v);
    Ok((out, rest))
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
