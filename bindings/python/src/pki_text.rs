//! The words both packages' PKI functions take and give: profile, purpose and SAN names,
//! distinguished names, general names as text, the CMS OID set. Plain Rust over
//! `shangmi-pki` (errors are the messages), so that the Python module (here) and the Node
//! addon (`bindings/node`, which includes this file with `#[path]`) read them alike; each
//! face maps a message to its own error type.

use shangmi_pki::verify::Purpose;
use shangmi_pki::{cms, issue, name};
use x509_cert::ext::pkix::name::GeneralName;

/// Bytes as lower-case hex.
pub(crate) fn hex(data: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(data.len() * 2);
    for b in data {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// A general name as text: `DNS:…`, `email:…`, `URI:…`, `IP:…`, `DirName:…`.
pub(crate) fn general_name(g: &GeneralName) -> String {
    match g {
        GeneralName::DnsName(d) => format!("DNS:{}", d.as_str()),
        GeneralName::Rfc822Name(e) => format!("email:{}", e.as_str()),
        GeneralName::UniformResourceIdentifier(u) => format!("URI:{}", u.as_str()),
        GeneralName::IpAddress(ip) => {
            let b = ip.as_bytes();
            if let Ok(a) = <[u8; 4]>::try_from(b) {
                format!("IP:{}", std::net::Ipv4Addr::from(a))
            } else if let Ok(a) = <[u8; 16]>::try_from(b) {
                format!("IP:{}", std::net::Ipv6Addr::from(a))
            } else {
                format!("IP:{}", hex(b))
            }
        }
        GeneralName::DirectoryName(n) => format!("DirName:{}", name::display(n)),
        _ => "othername:<unsupported>".to_string(),
    }
}

/// Subject alternative names from `DNS:…`, `IP:…` or `email:…`.
pub(crate) fn sans(list: &[String]) -> Result<Vec<issue::San>, String> {
    list.iter()
        .map(|s| {
            issue::San::parse(s).map_err(|_| {
                format!("subject alternative name '{s}' is not DNS:…, IP:… or email:…")
            })
        })
        .collect()
}

/// A distinguished name from `/C=CN/O=…/CN=…`.
pub(crate) fn distinguished_name(s: &str) -> Result<x509_cert::name::Name, String> {
    name::parse_dn(s).map_err(|_| {
        format!("'{s}' is not a distinguished name such as /C=CN/O=Example/CN=example.cn")
    })
}

/// An issuing profile by name; a CA's path length is `path_len`.
pub(crate) fn profile(name: &str, path_len: Option<u8>) -> Result<issue::Profile, String> {
    match issue::Profile::from_name(name) {
        Some(issue::Profile::Ca { .. }) => Ok(issue::Profile::Ca { path_len }),
        Some(p) => Ok(p),
        None => Err(
            "profile must be 'ca', 'tls-server', 'tls-client', 'tlcp-sign' or 'tlcp-enc'".into(),
        ),
    }
}

/// A verification purpose by name.
pub(crate) fn purpose(name: &str) -> Result<Purpose, String> {
    Purpose::from_name(name).ok_or_else(|| {
        "purpose must be 'any', 'tls-server', 'tls-client', 'tlcp-sign', 'tlcp-enc' or \
         'cms-sign'"
            .into()
    })
}

/// The CMS OID set: RFC 5652's, or GM/T 0010's.
pub(crate) fn oids(rfc5652: bool) -> cms::Oids {
    if rfc5652 {
        cms::Oids::Rfc5652
    } else {
        cms::Oids::GmT0010
    }
}
