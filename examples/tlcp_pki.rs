//! The PKI of the TLCP examples (a module of each, not an example): `shangmi-pki` issues a
//! CA and, under it, sign and encryption certificates for `localhost`.

use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_tlcp::{CertificateDer, RootCertStore, Sm2PrivateKey};
use std::sync::Arc;

pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// A certificate with its key, as `ServerConfig::with_certs` takes them.
pub type Leaf = (CertificateDer<'static>, Arc<Sm2PrivateKey>);

fn der(cert: &shangmi_pki::Certificate) -> Result<CertificateDer<'static>, Error> {
    use der::Encode;
    Ok(CertificateDer::from(cert.to_der()?))
}

/// A new CA as the clients' root store, and the server's sign and encryption leaves.
pub fn server_pki() -> Result<(RootCertStore, Leaf, Leaf), Error> {
    let ca_key = shangmi_pki::generate_key()?;
    let ca_params = CertParams::new(
        parse_dn("/C=CN/O=Example/CN=Example TLCP CA")?,
        Profile::Ca { path_len: None },
        30,
    );
    let ca = issue::self_signed(&ca_key, &ca_params)?;
    let leaf = |profile| -> Result<Leaf, Error> {
        let key = shangmi_pki::generate_key()?;
        let mut params = CertParams::new(parse_dn("/C=CN/O=Example/CN=localhost")?, profile, 30);
        params.sans.push(San::Dns("localhost".into()));
        let cert = issue::issue(&ca, &ca_key, &key.public_key(), &params)?;
        Ok((der(&cert)?, Arc::new(Sm2PrivateKey::new(key)?)))
    };
    let mut roots = RootCertStore::empty();
    roots.add(der(&ca)?)?;
    Ok((roots, leaf(Profile::TlcpSign)?, leaf(Profile::TlcpEnc)?))
}
