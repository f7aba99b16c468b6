//! Distinguished names in the `openssl -subj` form `/C=CN/O=Org/CN=name` (first RDN first;
//! `\/` escapes a slash, `+` is not special) and their one-line display `C=CN, O=Org, CN=name`.

use crate::Error;
use alloc::string::String;
use alloc::vec::Vec;
use const_oid::ObjectIdentifier as Oid;
use der::asn1::{Any, Ia5StringRef, PrintableStringRef, Utf8StringRef};
use der::{Decode, Encode, Tag, Tagged};
use x509_cert::attr::AttributeTypeAndValue;
use x509_cert::name::{Name, RdnSequence, RelativeDistinguishedName};

/// The attribute short names taken in `/…` names (RFC 4519 / PKCS#9), with the string type
/// written: PrintableString for C (X.520 requires it), IA5String for emailAddress and DC,
/// UTF8String otherwise (as OpenSSL writes with its default `utf8only` mask).
const ATTRIBUTES: &[(&str, &str, Tag)] = &[
    ("C", "2.5.4.6", Tag::PrintableString),
    ("ST", "2.5.4.8", Tag::Utf8String),
    ("L", "2.5.4.7", Tag::Utf8String),
    ("O", "2.5.4.10", Tag::Utf8String),
    ("OU", "2.5.4.11", Tag::Utf8String),
    ("CN", "2.5.4.3", Tag::Utf8String),
    ("SN", "2.5.4.4", Tag::Utf8String),
    ("GN", "2.5.4.42", Tag::Utf8String),
    ("title", "2.5.4.12", Tag::Utf8String),
    ("street", "2.5.4.9", Tag::Utf8String),
    ("serialNumber", "2.5.4.5", Tag::PrintableString),
    ("emailAddress", "1.2.840.113549.1.9.1", Tag::Ia5String),
    ("DC", "0.9.2342.19200300.100.1.25", Tag::Ia5String),
    ("UID", "0.9.2342.19200300.100.1.1", Tag::Utf8String),
];

fn value(tag: Tag, v: &str) -> Result<Any, Error> {
    let any = match tag {
        Tag::PrintableString => {
            Any::encode_from(&PrintableStringRef::new(v).map_err(|_| Error::InvalidName)?)
        }
        Tag::Ia5String => Any::encode_from(&Ia5StringRef::new(v).map_err(|_| Error::InvalidName)?),
        _ => Any::encode_from(&Utf8StringRef::new(v).map_err(|_| Error::InvalidName)?),
    };
    any.map_err(|_| Error::InvalidName)
}

/// Splits on unescaped `/`; `\x` stands for `x`.
fn split(s: &str) -> Result<Vec<String>, Error> {
    let rest = s.strip_prefix('/').ok_or(Error::InvalidName)?;
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => cur.push(chars.next().ok_or(Error::InvalidName)?),
            '/' => parts.push(core::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    Ok(parts)
}

/// Parses `/C=CN/O=Org/CN=name` into a [`Name`] whose RDNs come in the written order.
pub fn parse_dn(s: &str) -> Result<Name, Error> {
    let mut seq = RdnSequence::default();
    for part in split(s)? {
        let (key, val) = part.split_once('=').ok_or(Error::InvalidName)?;
        let (_, oid, tag) = ATTRIBUTES
            .iter()
            .find(|(k, _, _)| k.eq_ignore_ascii_case(key))
            .ok_or(Error::InvalidName)?;
        if val.is_empty() {
            return Err(Error::InvalidName);
        }
        let oid = Oid::new(oid).map_err(|_| Error::InvalidName)?;
        let atv = AttributeTypeAndValue {
            oid,
            value: value(*tag, val)?,
        };
        let rdn = RelativeDistinguishedName::try_from(alloc::vec![atv])
            .map_err(|_| Error::InvalidName)?;
        seq.push(rdn);
    }
    if seq.is_empty() {
        return Err(Error::InvalidName);
    }
    let der = seq.to_der()?;
    Ok(Name::from_der(&der)?)
}

fn short_name(oid: &Oid) -> Option<&'static str> {
    ATTRIBUTES
        .iter()
        .find(|(_, o, _)| Oid::new(o).ok().as_ref() == Some(oid))
        .map(|(k, _, _)| *k)
}

/// A string attribute value as text (UTF8String, PrintableString, IA5String, …); `None`
/// for other types.
pub fn attribute_text(value: &Any) -> Option<String> {
    match value.tag() {
        Tag::Utf8String
        | Tag::PrintableString
        | Tag::Ia5String
        | Tag::TeletexString
        | Tag::VisibleString => core::str::from_utf8(value.value()).ok().map(String::from),
        Tag::BmpString => {
            let units: Vec<u16> = value
                .value()
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect();
            String::from_utf16(&units).ok()
        }
        _ => None,
    }
}

/// `C=CN, O=Org, CN=name` (RDNs in encoded order, as `openssl x509 -text` shows them);
/// unknown attributes as dotted OIDs, non-string values as `#hex`.
pub fn display(name: &Name) -> String {
    use core::fmt::Write;
    let mut out = String::new();
    for (i, atv) in name.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match short_name(&atv.oid) {
            Some(k) => out.push_str(k),
            None => {
                let _ = write!(out, "{}", atv.oid);
            }
        }
        out.push('=');
        match attribute_text(&atv.value) {
            Some(t) => out.push_str(&t),
            None => {
                out.push('#');
                for b in atv.value.value() {
                    let _ = write!(out, "{b:02x}");
                }
            }
        }
    }
    out
}

/// The first common name, if it is a string.
pub fn common_name(name: &Name) -> Option<String> {
    let cn = Oid::new_unwrap("2.5.4.3");
    name.iter()
        .find(|a| a.oid == cn)
        .and_then(|a| attribute_text(&a.value))
}
