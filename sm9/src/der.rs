//! A minimal strict DER reader and writer for the few SM9 structures (definite lengths in
//! the shortest form, BIT STRINGs with zero unused bits, INTEGERs minimal and
//! non-negative). The reader never panics: every slice access is checked.

use crate::error::Error;

pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const SEQUENCE: u8 = 0x30;

/// Reads one TLV of the given tag from the front of `input`; returns (contents, rest).
pub(crate) fn read_tlv(input: &[u8], tag: u8) -> Result<(&[u8], &[u8]), Error> {
    let (&t, rest) = input.split_first().ok_or(Error::Encoding)?;
    if t != tag {
        return Err(Error::Encoding);
    }
    let (&l0, rest) = rest.split_first().ok_or(Error::Encoding)?;
    let (len, rest) = if l0 < 0x80 {
        (l0 as usize, rest)
    } else {
        let n = (l0 & 0x7f) as usize;
        if n == 0 || n > 3 || rest.len() < n {
            return Err(Error::Encoding);
        }
        let mut len = 0usize;
        for &b in &rest[..n] {
            len = (len << 8) | b as usize;
        }
        // Shortest form only.
        if rest[0] == 0 || len < 0x80 {
            return Err(Error::Encoding);
        }
        (len, &rest[n..])
    };
    if rest.len() < len {
        return Err(Error::Encoding);
    }
    Ok(rest.split_at(len))
}

/// Reads a BIT STRING with zero unused bits; returns its bytes and the rest.
pub(crate) fn read_bit_string(input: &[u8]) -> Result<(&[u8], &[u8]), Error> {
    let (c, rest) = read_tlv(input, BIT_STRING)?;
    match c.split_first() {
        Some((0, bits)) => Ok((bits, rest)),
        _ => Err(Error::Encoding),
    }
}

/// Reads a non-negative minimal INTEGER into 32 big-endian bytes.
pub(crate) fn read_uint32(input: &[u8]) -> Result<([u8; 32], &[u8]), Error> {
    let (c, rest) = read_tlv(input, INTEGER)?;
    if c.is_empty() || c[0] & 0x80 != 0 || (c.len() > 1 && c[0] == 0 && c[1] & 0x80 == 0) {
        return Err(Error::Encoding);
    }
    let c = if c[0] == 0 && c.len() > 1 { &c[1..] } else { c };
    if c.len() > 32 {
        return Err(Error::Encoding);
    }
    let mut out = [0u8; 32];
    out[32 - c.len()..].copy_from_slice(c);
    Ok((out, rest))
}

/// Reads a small non-negative INTEGER (below 2^31).
pub(crate) fn read_small_uint(input: &[u8]) -> Result<(u32, &[u8]), Error> {
    let (b, rest) = read_uint32(input)?;
    if b[..28].iter().any(|&x| x != 0) || b[28] & 0x80 != 0 {
        return Err(Error::Encoding);
    }
    Ok((u32::from_be_bytes([b[28], b[29], b[30], b[31]]), rest))
}

/// The header (tag and length) of a TLV with `len` content bytes.
pub(crate) fn header(tag: u8, len: usize, out: &mut [u8; 5]) -> usize {
    out[0] = tag;
    if len < 0x80 {
        out[1] = len as u8;
        2
    } else if len < 0x100 {
        out[1] = 0x81;
        out[2] = len as u8;
        3
    } else if len < 0x10000 {
        out[1] = 0x82;
        out[2] = (len >> 8) as u8;
        out[3] = len as u8;
        4
    } else {
        out[1] = 0x83;
        out[2] = (len >> 16) as u8;
        out[3] = (len >> 8) as u8;
        out[4] = len as u8;
        5
    }
}

#[cfg(feature = "alloc")]
pub(crate) mod write {
    use super::*;
    use alloc::vec::Vec;

    pub(crate) fn tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) {
        let mut h = [0u8; 5];
        let n = header(tag, content.len(), &mut h);
        out.extend_from_slice(&h[..n]);
        out.extend_from_slice(content);
    }

    pub(crate) fn bit_string(out: &mut Vec<u8>, content: &[u8]) {
        let mut h = [0u8; 5];
        let n = header(BIT_STRING, content.len() + 1, &mut h);
        out.extend_from_slice(&h[..n]);
        out.push(0);
        out.extend_from_slice(content);
    }

    /// A non-negative INTEGER from big-endian bytes (minimal form).
    pub(crate) fn uint(out: &mut Vec<u8>, be: &[u8]) {
        let first = be
            .iter()
            .position(|&b| b != 0)
            .unwrap_or(be.len().saturating_sub(1));
        let v = &be[first.min(be.len().saturating_sub(1))..];
        let mut c = Vec::with_capacity(v.len() + 1);
        if v.first().is_some_and(|&b| b & 0x80 != 0) {
            c.push(0);
        }
        c.extend_from_slice(v);
        if c.is_empty() {
            c.push(0);
        }
        tlv(out, INTEGER, &c);
    }

    pub(crate) fn sequence(content: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(content.len() + 5);
        tlv(&mut out, SEQUENCE, content);
        out
    }
}
