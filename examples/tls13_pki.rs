//! The RFC 8998 PKI of the one-port examples (a module of each, not an example):
//! `shangmi-pki` issues a CA and a TLS 1.3 SM2 leaf for `localhost`.

use crate::tlcp_pki::Error;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use shangmi_pki::issue::{CertParams, Profile, San, issue, self_signed};
use shangmi_pki::name::parse_dn;
use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
use std::sync::Arc;

/// An RFC 8998 server configuration and its client's, on a TLS 1.3 SM2 leaf of a new CA.
pub fn tls13_configs() -> Result<(rustls::ServerConfig, rustls::ClientConfig), Error> {
    use der::Encode;
    let ca_key = shangmi_pki::generate_key()?;
    let dn = parse_dn("/C=CN/O=Example/CN=Example TLS CA")?;
    let ca = self_signed(
        &ca_key,
        &CertParams::new(dn, Profile::Ca { path_len: None }, 30),
    )?;
    let key = shangmi_pki::generate_key()?;
    let mut params = CertParams::new(parse_dn("/CN=localhost")?, Profile::TlsServer, 30);
    params.sans.push(San::Dns("localhost".into()));
    let leaf = issue(&ca, &ca_key, &key.public_key(), &params)?;
    let pkcs8 = PrivatePkcs8KeyDer::from(key.to_pkcs8_der()?.as_bytes().to_vec());
    let provider = Arc::new(shangmi_rustls::provider());
    let server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(vec![leaf.to_der()?.into()], PrivateKeyDer::Pkcs8(pkcs8))?;
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.to_der()?.into())?;
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok((server, client))
}
