//! Subject alternative names: what a certificate request asks for and what a certificate
//! is issued with (`req.rs`, `issue.rs`).

use crate::Error;
use alloc::string::String;
use alloc::vec::Vec;
use core::net::IpAddr;
use der::asn1::Ia5String;
use x509_cert::ext::pkix::SubjectAltName;
use x509_cert::ext::pkix::name::GeneralName;

/// A subject alternative name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum San {
    /// dNSName.
    Dns(String),
    /// iPAddress.
    Ip(IpAddr),
    /// rfc822Name.
    Email(String),
}

impl San {
    /// Parses `DNS:name`, `IP:addr` or `email:addr` (the prefix case-insensitive).
    pub fn parse(s: &str) -> Result<Self, Error> {
        let (kind, v) = s.split_once(':').ok_or(Error::InvalidSan)?;
        if v.is_empty() {
            return Err(Error::InvalidSan);
        }
        match kind.to_ascii_lowercase().as_str() {
            "dns" => Ok(San::Dns(v.into())),
            "ip" => v.parse().map(San::Ip).map_err(|_| Error::InvalidSan),
            "email" => Ok(San::Email(v.into())),
            _ => Err(Error::InvalidSan),
        }
    }

    pub(crate) fn to_general_name(&self) -> Result<GeneralName, Error> {
        Ok(match self {
            San::Dns(d) => GeneralName::DnsName(Ia5String::new(d).map_err(|_| Error::InvalidSan)?),
            San::Email(e) => {
                GeneralName::Rfc822Name(Ia5String::new(e).map_err(|_| Error::InvalidSan)?)
            }
            San::Ip(ip) => GeneralName::from(*ip),
        })
    }
}

/// The SubjectAltName extension for `sans` (non-critical, the subject being non-empty).
pub(crate) fn san_extension(sans: &[San]) -> Result<SubjectAltName, Error> {
    let names = sans
        .iter()
        .map(San::to_general_name)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SubjectAltName(names))
}
