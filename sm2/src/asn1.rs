//! The DER forms of GM/T 0009 §7.2, written and read in one place through the `der` crate (as
//! RustCrypto's `sm2` does): the signature `SEQUENCE { r INTEGER, s INTEGER }` and the
//! ciphertext `SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }`.
//! Reading is strict DER: definite minimal lengths, minimal non-negative INTEGERs, no bytes
//! after the value; each INTEGER must fit 32 bytes, the hash must be 32 bytes. What the
//! callers check on top (r, s in [1, n-1]; C1 on the curve) stays with them.

use elliptic_curve::pkcs8::der::{
    self, Decode, DecodeValue, Encode, EncodeValue, FixedTag, Header, Length, Reader, Tag, Writer,
    asn1::UintRef,
};
#[cfg(feature = "alloc")]
use {alloc::vec::Vec, elliptic_curve::pkcs8::der::asn1::OctetStringRef};

/// The longest DER signature: two 33-byte INTEGERs (a zero byte before a top bit) in a
/// SEQUENCE, 2 + 2·(2 + 33) bytes.
pub(crate) const MAX_SIGNATURE_LEN: usize = 72;

/// A non-negative INTEGER of at most 32 value bytes, left-padded to 32.
fn to_32(v: UintRef<'_>) -> der::Result<[u8; 32]> {
    let bytes = v.as_bytes();
    let pad = 32usize
        .checked_sub(bytes.len())
        .ok_or_else(|| Tag::Integer.length_error())?;
    let mut out = [0u8; 32];
    out[pad..].copy_from_slice(bytes);
    Ok(out)
}

/// A struct read and written as the DER `SEQUENCE` of its fields in order: the struct,
/// `FixedTag`, `DecodeValue` and `EncodeValue` (what `der`'s `Sequence` derive would write,
/// without its proc macro), each under the attributes given.
macro_rules! der_sequence {
    ($(#[$attr:meta])* struct $name:ident<'a> { $($field:ident: $ty:ty),+ $(,)? }) => {
        $(#[$attr])*
        struct $name<'a> {
            $($field: $ty),+
        }

        $(#[$attr])*
        impl FixedTag for $name<'_> {
            const TAG: Tag = Tag::Sequence;
        }

        $(#[$attr])*
        impl<'a> DecodeValue<'a> for $name<'a> {
            type Error = der::Error;

            fn decode_value<R: Reader<'a>>(reader: &mut R, _header: Header) -> der::Result<Self> {
                Ok($name {
                    $($field: reader.decode()?),+
                })
            }
        }

        $(#[$attr])*
        impl EncodeValue for $name<'_> {
            fn value_len(&self) -> der::Result<Length> {
                let mut len = Length::ZERO;
                $(len = (len + self.$field.encoded_len()?)?;)+
                Ok(len)
            }

            fn encode_value(&self, writer: &mut impl Writer) -> der::Result<()> {
                $(self.$field.encode(writer)?;)+
                Ok(())
            }
        }
    };
}

der_sequence! {
    /// `SEQUENCE { r INTEGER, s INTEGER }`.
    struct SignatureDer<'a> {
        r: UintRef<'a>,
        s: UintRef<'a>,
    }
}

/// (r, s) of a DER signature, each as 32 big-endian bytes (not range-checked).
pub(crate) fn decode_signature(bytes: &[u8]) -> der::Result<([u8; 32], [u8; 32])> {
    let sig = SignatureDer::from_der(bytes)?;
    Ok((to_32(sig.r)?, to_32(sig.s)?))
}

/// The DER signature of (r, s) into `out`; returns its length.
pub(crate) fn encode_signature(
    r: &[u8; 32],
    s: &[u8; 32],
    out: &mut [u8; MAX_SIGNATURE_LEN],
) -> der::Result<usize> {
    let sig = SignatureDer {
        r: UintRef::new(r)?,
        s: UintRef::new(s)?,
    };
    Ok(sig.encode_to_slice(out)?.len())
}

der_sequence! {
    /// `SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }`.
    #[cfg(feature = "alloc")]
    struct CiphertextDer<'a> {
        x: UintRef<'a>,
        y: UintRef<'a>,
        hash: &'a OctetStringRef,
        c2: &'a OctetStringRef,
    }
}

/// The parts of a DER ciphertext: C1 as `x ‖ y`, C3, C2.
#[cfg(feature = "alloc")]
pub(crate) type CiphertextParts<'a> = ([u8; 64], &'a [u8], &'a [u8]);

/// (C1 as `x ‖ y`, C3, C2) of a DER ciphertext (C1 not checked; C3 must be 32 bytes).
#[cfg(feature = "alloc")]
pub(crate) fn decode_ciphertext(bytes: &[u8]) -> der::Result<CiphertextParts<'_>> {
    let ct = CiphertextDer::from_der(bytes)?;
    let hash = ct.hash.as_bytes();
    if hash.len() != 32 {
        return Err(Tag::OctetString.length_error().into());
    }
    let mut c1 = [0u8; 64];
    c1[..32].copy_from_slice(&to_32(ct.x)?);
    c1[32..].copy_from_slice(&to_32(ct.y)?);
    Ok((c1, hash, ct.c2.as_bytes()))
}

/// The DER ciphertext of C1 (`x ‖ y`), C3 and C2.
#[cfg(feature = "alloc")]
pub(crate) fn encode_ciphertext(c1: &[u8; 64], hash: &[u8], c2: &[u8]) -> der::Result<Vec<u8>> {
    CiphertextDer {
        x: UintRef::new(&c1[..32])?,
        y: UintRef::new(&c1[32..])?,
        hash: OctetStringRef::new(hash)?,
        c2: OctetStringRef::new(c2)?,
    }
    .to_der()
}
