//! The words both packages' PKI and TLCP functions take and give: profile, purpose and SAN
//! names, distinguished names, general names as text, the CMS OID set, TLCP suite names.
//! Plain Rust over `shangmi-pki` and `shangmi-tlcp` (errors are the messages), so that the
//! Python module (here) and the Node addon (`bindings/node`, which includes this file with
//! `#[path]`) read them alike; each face maps a message to its own error type.

use shangmi_pki::verify::{Options, Purpose};
use shangmi_pki::{cms, crl, issue, name};
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

/// A certificate's issuing parameters for `subject`: the profile by name (a CA's path
/// length `path_len`), `days` of validity, the subject alternative names as text.
pub(crate) fn cert_params(
    subject: x509_cert::name::Name,
    profile_name: &str,
    days: u32,
    san_list: &[String],
    path_len: Option<u8>,
) -> Result<issue::CertParams, String> {
    let mut p = issue::CertParams::new(subject, profile(profile_name, path_len)?, days);
    p.sans = sans(san_list)?;
    Ok(p)
}

/// A verification purpose by name.
pub(crate) fn purpose(name: &str) -> Result<Purpose, String> {
    Purpose::from_name(name).ok_or_else(|| {
        "purpose must be 'any', 'tls-server', 'tls-client', 'tlcp-sign', 'tlcp-enc' or \
         'cms-sign'"
            .into()
    })
}

/// Chain verification options: the purpose by name, at `time` (unix seconds; now when
/// `None`), for `host` when one is given, against `crls`.
pub(crate) fn verify_options<'a>(
    purpose_name: &str,
    time: Option<u64>,
    host: Option<&'a str>,
    crls: &'a [crl::Crl],
) -> Result<Options<'a>, String> {
    let p = purpose(purpose_name)?;
    let mut o = match time {
        Some(t) => Options::at(t, p),
        None => Options::now(p),
    };
    if let Some(h) = host {
        o = o.with_host(h);
    }
    Ok(o.with_crls(crls))
}

/// A CMS SignedData (DER) over `content` by one signer, `cert` with its key `key` and the
/// intermediates `chain`: the content `detached` or carried, under RFC 5652's OIDs or GM/T
/// 0010's.
pub(crate) fn cms_sign_one(
    content: &[u8],
    cert: &shangmi_pki::Certificate,
    key: &shangmi_sm2::SecretKey,
    chain: &[shangmi_pki::Certificate],
    detached: bool,
    rfc5652: bool,
) -> Result<Vec<u8>, shangmi_pki::Error> {
    let signer = cms::Signer { cert, key, chain };
    let opts = cms::SignOptions {
        detached,
        oids: oids(rfc5652),
        ..cms::SignOptions::default()
    };
    cms::sign(content, &[signer], &opts)
}

/// The CMS OID set: RFC 5652's, or GM/T 0010's.
pub(crate) fn oids(rfc5652: bool) -> cms::Oids {
    if rfc5652 {
        cms::Oids::Rfc5652
    } else {
        cms::Oids::GmT0010
    }
}

/// TLCP cipher suites by name, the standard's (`ECC_SM4_GCM_SM3`) or OpenSSL's, in any case.
pub(crate) fn suites(names: &[String]) -> Result<Vec<shangmi_tlcp::CipherSuite>, String> {
    names
        .iter()
        .map(|name| {
            name.parse()
                .map_err(|e: shangmi_tlcp::UnknownSuite| e.to_string())
        })
        .collect()
}
