//! The DER forms of the SM9 structures (GM/T 0080 / GmSSL / gmsm), read and written through
//! the `der` crate, as `shangmi-sm2`'s `asn1.rs` does: BIT STRINGs with zero unused bits,
//! minimal non-negative INTEGERs, OCTET STRINGs and SEQUENCEs, strict DER (definite lengths
//! in the shortest form). Each reader takes one value from the front of its input and
//! returns it with the rest, so the callers keep their checks on what follows.

use crate::error::Error;
use ::der::{
    Decode, Reader, SliceReader, Tag, Tagged,
    asn1::{AnyRef, BitStringRef, OctetStringRef, UintRef},
};

/// One value of type `T` from the front of `input`, and the rest.
fn split<'a, T: Decode<'a, Error = ::der::Error>>(input: &'a [u8]) -> Result<(T, &'a [u8]), Error> {
    let mut reader = SliceReader::new(input).map_err(|_| Error::Encoding)?;
    let value = T::decode(&mut reader).map_err(|_| Error::Encoding)?;
    let used = usize::try_from(u32::from(reader.position())).map_err(|_| Error::Encoding)?;
    Ok((value, input.get(used..).ok_or(Error::Encoding)?))
}

/// Whether `input` starts with a SEQUENCE's identifier octet (universal 16, constructed:
/// 0x30), for the key forms that may come wrapped in one.
pub(crate) fn starts_sequence(input: &[u8]) -> bool {
    input.first() == Some(&0x30)
}

/// The contents of a SEQUENCE at the front of `input`, and the rest.
pub(crate) fn read_sequence(input: &[u8]) -> Result<(&[u8], &[u8]), Error> {
    let (any, rest) = split::<AnyRef<'_>>(input)?;
    if any.tag() != Tag::Sequence {
        return Err(Error::Encoding);
    }
    Ok((any.value(), rest))
}

/// The contents of an OCTET STRING, and the rest.
pub(crate) fn read_octet_string(input: &[u8]) -> Result<(&[u8], &[u8]), Error> {
    let (s, rest) = split::<&OctetStringRef>(input)?;
    Ok((s.as_bytes(), rest))
}

/// The bytes of a BIT STRING with zero unused bits, and the rest.
pub(crate) fn read_bit_string(input: &[u8]) -> Result<(&[u8], &[u8]), Error> {
    let (bits, rest) = split::<BitStringRef<'_>>(input)?;
    Ok((bits.as_bytes().ok_or(Error::Encoding)?, rest))
}

/// A non-negative minimal INTEGER below 2^256 as 32 big-endian bytes, and the rest.
pub(crate) fn read_uint32(input: &[u8]) -> Result<([u8; 32], &[u8]), Error> {
    let (v, rest) = split::<UintRef<'_>>(input)?;
    let bytes = v.as_bytes();
    let pad = 32usize.checked_sub(bytes.len()).ok_or(Error::Encoding)?;
    let mut out = [0u8; 32];
    out[pad..].copy_from_slice(bytes);
    Ok((out, rest))
}

/// A non-negative minimal INTEGER below 2^31, and the rest.
pub(crate) fn read_small_uint(input: &[u8]) -> Result<(u32, &[u8]), Error> {
    let (b, rest) = read_uint32(input)?;
    if b[..28].iter().any(|&x| x != 0) || b[28] & 0x80 != 0 {
        return Err(Error::Encoding);
    }
    Ok((u32::from_be_bytes([b[28], b[29], b[30], b[31]]), rest))
}

/// The whole of `input` as one key value read by `read` (no bytes after it).
fn whole<'a, T>(
    input: &'a [u8],
    read: impl FnOnce(&'a [u8]) -> Result<(T, &'a [u8]), Error>,
) -> Result<T, Error> {
    match read(input)? {
        (value, []) => Ok(value),
        _ => Err(Error::Encoding),
    }
}

/// A key's scalar: the whole input one INTEGER (gmsm's form of ke and ks).
pub(crate) fn scalar_key(input: &[u8]) -> Result<[u8; 32], Error> {
    whole(input, read_uint32)
}

/// A user key's point: the whole input one BIT STRING (gmsm's form of de and ds).
pub(crate) fn point_key(input: &[u8]) -> Result<&[u8], Error> {
    whole(input, read_bit_string)
}

/// A master public key's point: BIT STRING, or SEQUENCE { BIT STRING } as gmsm also
/// accepts; nothing after it.
pub(crate) fn master_public_key(input: &[u8]) -> Result<&[u8], Error> {
    if starts_sequence(input) {
        point_key(whole(input, read_sequence)?)
    } else {
        point_key(input)
    }
}

#[cfg(feature = "alloc")]
pub(crate) mod write {
    //! Appending DER values to a vector. The only failure is a length the `der` crate
    //! cannot encode (256 MiB and more), [`Error::InvalidArgument`].

    use super::*;
    use ::der::{Encode, Header, Length};
    use alloc::vec::Vec;

    /// The DER that `encode` writes, for the fixed-size forms (keys and signatures, at
    /// most 129 value bytes: they always encode).
    fn fixed(encode: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>) -> Vec<u8> {
        let mut out = Vec::new();
        encode(&mut out).expect("a value of at most 129 bytes always encodes");
        out
    }

    /// A key's BIT STRING (a point, uncompressed).
    pub(crate) fn key_bit_string(content: &[u8]) -> Vec<u8> {
        fixed(|out| bit_string(out, content))
    }

    /// A key's INTEGER (a 32-byte scalar).
    pub(crate) fn key_uint(be: &[u8; 32]) -> Vec<u8> {
        fixed(|out| uint(out, be))
    }

    fn encode(out: &mut Vec<u8>, value: &impl Encode) -> Result<(), Error> {
        value
            .encode_to_vec(out)
            .map(|_| ())
            .map_err(|_| Error::InvalidArgument)
    }

    /// An OCTET STRING.
    pub(crate) fn octet_string(out: &mut Vec<u8>, content: &[u8]) -> Result<(), Error> {
        encode(
            out,
            &OctetStringRef::new(content).map_err(|_| Error::InvalidArgument)?,
        )
    }

    /// A BIT STRING of whole bytes (zero unused bits).
    pub(crate) fn bit_string(out: &mut Vec<u8>, content: &[u8]) -> Result<(), Error> {
        encode(
            out,
            &BitStringRef::from_bytes(content).map_err(|_| Error::InvalidArgument)?,
        )
    }

    /// An SM9 signature: SEQUENCE { OCTET STRING h, BIT STRING 04||S }.
    pub(crate) fn signature(h: &[u8; 32], s: &[u8; 65]) -> Vec<u8> {
        fixed(|out| {
            let mut inner = Vec::with_capacity(32 + 65 + 6);
            octet_string(&mut inner, h)?;
            bit_string(&mut inner, s)?;
            out.extend_from_slice(&sequence(&inner)?);
            Ok(())
        })
    }

    /// A non-negative INTEGER from big-endian bytes (minimal form).
    pub(crate) fn uint(out: &mut Vec<u8>, be: &[u8]) -> Result<(), Error> {
        encode(out, &UintRef::new(be).map_err(|_| Error::InvalidArgument)?)
    }

    /// A SEQUENCE around `content` (DER values already encoded).
    pub(crate) fn sequence(content: &[u8]) -> Result<Vec<u8>, Error> {
        let len = Length::try_from(content.len()).map_err(|_| Error::InvalidArgument)?;
        let mut out = Vec::with_capacity(content.len() + 6);
        encode(&mut out, &Header::new(Tag::Sequence, len))?;
        out.extend_from_slice(content);
        Ok(out)
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::{vec, vec::Vec};

    /// The encodings of X.690 (8.3 INTEGER, 8.6 BIT STRING, 8.7 OCTET STRING, 8.1.3 the
    /// short and long length forms), written out by hand: what the hand-written encoder
    /// this module replaced produced, byte for byte.
    #[test]
    fn writes_the_x690_forms() {
        let w = |f: &dyn Fn(&mut Vec<u8>) -> Result<(), Error>| {
            let mut out = Vec::new();
            f(&mut out).unwrap();
            out
        };
        assert_eq!(w(&|o| write::uint(o, &[0])), [2, 1, 0]);
        assert_eq!(w(&|o| write::uint(o, &[0, 0, 5])), [2, 1, 5]);
        assert_eq!(w(&|o| write::uint(o, &[0x80])), [2, 2, 0, 0x80]);
        assert_eq!(w(&|o| write::uint(o, &[0, 0x7f, 1])), [2, 2, 0x7f, 1]);
        assert_eq!(w(&|o| write::bit_string(o, &[4, 5])), [3, 3, 0, 4, 5]);
        assert_eq!(w(&|o| write::octet_string(o, &[])), [4, 0]);
        let long = vec![7u8; 200];
        let out = w(&|o| write::octet_string(o, &long));
        assert_eq!(out[..3], [4, 0x81, 200]);
        assert_eq!(out.len(), 203);
        let longer = vec![7u8; 300];
        let out = write::sequence(&longer).unwrap();
        assert_eq!(out[..4], [0x30, 0x82, 0x01, 0x2c]);
        assert_eq!(out[4..], longer[..]);
        let key = write::key_uint(&[0xff; 32]);
        assert_eq!(key[..3], [2, 33, 0]);
    }

    #[test]
    fn reads_strict_der_only() {
        assert_eq!(read_uint32(&[2, 1, 5, 9]).unwrap().1, [9]);
        assert_eq!(read_uint32(&[2, 2, 0, 0x80]).unwrap().0[31], 0x80);
        // Negative, non-minimal, empty, and longer than 32 bytes.
        assert!(read_uint32(&[2, 1, 0x80]).is_err());
        assert!(read_uint32(&[2, 2, 0, 5]).is_err());
        assert!(read_uint32(&[2, 0]).is_err());
        let mut big = vec![2, 33, 1];
        big.extend([0; 32]);
        assert!(read_uint32(&big).is_err());
        assert_eq!(read_small_uint(&[2, 1, 2]).unwrap().0, 2);
        assert!(read_small_uint(&[2, 5, 0, 0x80, 0, 0, 0]).is_err());
        // A length in the long form where the short one fits; unused bits; a wrong tag.
        assert!(read_octet_string(&[4, 0x81, 1, 0]).is_err());
        assert!(read_bit_string(&[3, 2, 1, 0]).is_err());
        assert!(read_bit_string(&[4, 1, 0]).is_err());
        assert!(read_sequence(&[0x31, 0]).is_err());
        assert_eq!(
            read_sequence(&[0x30, 1, 5, 6]).unwrap(),
            (&[5][..], &[6][..])
        );
        // Whole-input readers refuse trailing bytes; the master public key may be wrapped.
        assert!(point_key(&[3, 1, 0, 0]).is_err());
        assert_eq!(
            master_public_key(&[0x30, 3, 3, 1, 0]).unwrap(),
            &[] as &[u8]
        );
        assert!(master_public_key(&[0x30, 3, 3, 1, 0, 0]).is_err());
        assert!(scalar_key(&[2, 1, 1, 0]).is_err());
        assert!(starts_sequence(&[0x30]) && !starts_sequence(&[]));
    }
}
