//! Byte reader and writer helpers for the wire formats ([`crate::msgs`] builds on them).

use crate::error::{Error, decode};

/// A cursor over untrusted bytes; every read is bounds-checked (running short is a
/// decode_error).
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| decode("message too short"))?;
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    /// A big-endian u16.
    pub fn u16(&mut self) -> Result<u16, Error> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// A big-endian u32.
    pub fn u32(&mut self) -> Result<u32, Error> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A big-endian u24.
    pub fn u24(&mut self) -> Result<usize, Error> {
        let b = self.take(3)?;
        Ok(((b[0] as usize) << 16) | ((b[1] as usize) << 8) | b[2] as usize)
    }

    /// Bytes with a u8 length first.
    pub fn vec8(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u8()? as usize;
        self.take(n)
    }

    /// Bytes with a u16 length first.
    pub fn vec16(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u16()? as usize;
        self.take(n)
    }

    /// Bytes with a u24 length first.
    pub fn vec24(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u24()?;
        self.take(n)
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.pos == self.buf.len()
    }

    /// The next byte, not consumed.
    pub fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Every byte left.
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    /// Fails with decode_error when bytes are left over.
    pub fn finish(&self) -> Result<(), Error> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(decode("trailing bytes"))
        }
    }
}

pub(crate) fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(crate) fn put_u24(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&[(v >> 16) as u8, (v >> 8) as u8, v as u8]);
}

pub(crate) fn put_vec8(out: &mut Vec<u8>, v: &[u8]) {
    out.push(v.len() as u8);
    out.extend_from_slice(v);
}

pub(crate) fn put_vec16(out: &mut Vec<u8>, v: &[u8]) {
    put_u16(out, v.len() as u16);
    out.extend_from_slice(v);
}

pub(crate) fn put_vec24(out: &mut Vec<u8>, v: &[u8]) {
    put_u24(out, v.len());
    out.extend_from_slice(v);
}
