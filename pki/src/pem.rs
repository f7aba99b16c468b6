//! PEM and DER input: certificates (one or many), requests, CMS messages.

use crate::Error;
use alloc::string::String;
use alloc::vec::Vec;
use der::Decode;
use x509_cert::Certificate;
use x509_cert::request::CertReq;

/// Whether the bytes look like PEM (start with `-----BEGIN` after whitespace).
pub fn is_pem(data: &[u8]) -> bool {
    data.iter()
        .position(|b| !b.is_ascii_whitespace())
        .is_some_and(|i| data[i..].starts_with(b"-----BEGIN "))
}

/// Every PEM block as (label, DER).
pub fn pem_blocks(data: &[u8]) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let text = core::str::from_utf8(data).map_err(|_| Error::Pem)?;
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("-----BEGIN ") {
        let block = &rest[start..];
        let label_end = block[11..].find("-----").ok_or(Error::Pem)? + 11;
        let label = &block[11..label_end];
        let end_marker = alloc::format!("-----END {label}-----");
        let end = block.find(&end_marker).ok_or(Error::Pem)? + end_marker.len();
        let (l, der) = der::pem::decode_vec(&block.as_bytes()[..end]).map_err(|_| Error::Pem)?;
        out.push((String::from(l), der));
        rest = &block[end..];
    }
    if out.is_empty() {
        return Err(Error::Pem);
    }
    Ok(out)
}

/// DER, or the blocks labelled with one of `labels` in PEM.
pub fn der_documents(data: &[u8], labels: &[&str]) -> Result<Vec<Vec<u8>>, Error> {
    if !is_pem(data) {
        return Ok(alloc::vec![data.to_vec()]);
    }
    let docs: Vec<Vec<u8>> = pem_blocks(data)?
        .into_iter()
        .filter(|(l, _)| labels.contains(&l.as_str()))
        .map(|(_, d)| d)
        .collect();
    if docs.is_empty() {
        return Err(Error::Pem);
    }
    Ok(docs)
}

/// Every certificate in DER or PEM (`CERTIFICATE`, `X509 CERTIFICATE`, `TRUSTED CERTIFICATE` blocks).
pub fn certificates(data: &[u8]) -> Result<Vec<Certificate>, Error> {
    der_documents(data, &["CERTIFICATE", "X509 CERTIFICATE"])?
        .iter()
        .map(|d| Certificate::from_der(d).map_err(Error::from))
        .collect()
}

/// One certificate request in DER or PEM (`CERTIFICATE REQUEST`, `NEW CERTIFICATE REQUEST`).
pub fn request(data: &[u8]) -> Result<CertReq, Error> {
    let docs = der_documents(data, &["CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST"])?;
    let first = docs.first().ok_or(Error::Pem)?;
    Ok(CertReq::from_der(first)?)
}

/// PEM text of `der` under `label`, LF line endings.
pub fn to_pem(label: &str, der: &[u8]) -> Result<String, Error> {
    der::pem::encode_string(label, der::pem::LineEnding::LF, der).map_err(|_| Error::Pem)
}
