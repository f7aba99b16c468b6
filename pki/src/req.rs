//! PKCS#10 certificate requests (RFC 2986) signed with SM2-with-SM3 over Z_A with the
//! default ID, carrying SAN and key-usage requests in an extensionRequest attribute.

use crate::san::{San, san_extension};
use crate::{Error, PublicKey};
use alloc::vec::Vec;
use der::{Decode, Encode};
use shangmi_sm2::{PrivateKeyOps, dsa};
use x509_cert::builder::{Builder, RequestBuilder};
use x509_cert::ext::Extension;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{KeyUsage, SubjectAltName};
use x509_cert::name::Name;
use x509_cert::request::{CertReq, ExtensionReq};

/// The extensionRequest attribute (PKCS#9).
const EXTENSION_REQUEST: const_oid::ObjectIdentifier =
    const_oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.14");

/// A request for `key` (in memory, or in a device through [`PrivateKeyOps`], which signs
/// it) with `subject`, the SANs, and (if given) a keyUsage request.
pub fn create_request<K: PrivateKeyOps + ?Sized>(
    key: &K,
    subject: &Name,
    sans: &[San],
    key_usage: Option<KeyUsage>,
) -> Result<CertReq, Error> {
    let mut builder = RequestBuilder::new(subject.clone())?;
    if !sans.is_empty() {
        builder.add_extension(&san_extension(sans)?)?;
    }
    if let Some(ku) = key_usage {
        builder.add_extension(&ku)?;
    }
    let signer = crate::sig::KeySigner::new(key);
    signer.finish(builder.build::<_, dsa::Signature>(&signer))
}

/// Checks the request's self-signature (default ID) and returns its public key.
pub fn verify_request(req: &CertReq) -> Result<PublicKey, Error> {
    verify_request_with_id(req, shangmi_sm2::DEFAULT_ID)
}

/// Checks the request's self-signature with distinguishing ID `id`.
pub fn verify_request_with_id(req: &CertReq, id: &[u8]) -> Result<PublicKey, Error> {
    let public = crate::sig::sm2_public_key(&req.info.public_key).ok_or(Error::KeyMismatch)?;
    let tbs = req.info.to_der()?;
    crate::sig::check_signature(
        &public,
        id,
        &tbs,
        &req.algorithm,
        req.signature.as_bytes().ok_or(Error::BadSignature)?,
    )
    .map_err(|_| Error::BadSignature)?;
    Ok(public)
}

/// The extensions requested in the extensionRequest attribute(s).
pub fn requested_extensions(req: &CertReq) -> Result<Vec<Extension>, Error> {
    let mut out = Vec::new();
    for attr in req.info.attributes.iter() {
        if attr.oid != EXTENSION_REQUEST {
            continue;
        }
        for v in attr.values.iter() {
            let exts = ExtensionReq::from_der(&v.to_der()?)?;
            out.extend(exts.0);
        }
    }
    Ok(out)
}

/// The DNS names, IP addresses and e-mail addresses requested as SANs.
pub fn requested_sans(req: &CertReq) -> Result<Vec<San>, Error> {
    let mut out = Vec::new();
    for ext in requested_extensions(req)? {
        if ext.extn_id != crate::oid::SUBJECT_ALT_NAME {
            continue;
        }
        let san = SubjectAltName::from_der(ext.extn_value.as_bytes())?;
        for name in san.0 {
            match name {
                GeneralName::DnsName(d) => out.push(San::Dns(d.as_str().into())),
                GeneralName::Rfc822Name(e) => out.push(San::Email(e.as_str().into())),
                GeneralName::IpAddress(ip) => {
                    let b = ip.as_bytes();
                    if let Ok(a) = <[u8; 4]>::try_from(b) {
                        out.push(San::Ip(a.into()));
                    } else if let Ok(a) = <[u8; 16]>::try_from(b) {
                        out.push(San::Ip(a.into()));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(out)
}
