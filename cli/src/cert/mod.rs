//! `shangmi cert`: SM2 certificates, requests, chains and GM/T 0010 CMS on files — the SM
//! counterpart of `openssl req/x509/verify/cms` and GmSSL's `reqgen/reqsign/certverify/
//! cmssign`, on `shangmi-pki`. Names are written `/C=CN/O=…/CN=…` as `openssl -subj`
//! takes them; certificates and requests are written as PEM; keys are read in every format
//! `shangmi sm2` takes and written as PKCS#8 PEM (mode 0600). Every output goes to a
//! temporary file renamed into place on success.

mod cms;
pub(crate) mod crl;
mod make;
mod pkcs12;
mod show;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;
use shangmi_pki::Certificate;

use crate::Failure;
use crate::files::read_path;

/// `shangmi cert`.
pub type Args = crate::Group<Op>;

/// The subcommands of `shangmi cert`.
#[derive(Subcommand)]
pub enum Op {
    /// Make a self-signed root CA: a new key and its certificate.
    Ca(make::CaArgs),
    /// Make a certificate request (PKCS#10) for a key.
    Req(make::ReqArgs),
    /// Issue a certificate for a request under a CA, with a profile.
    Issue(make::IssueArgs),
    /// Make a TLCP sign/encryption pair under a CA: two certificates, for two new keys or
    /// for existing ones (files or a device's).
    TlcpPair(make::TlcpPairArgs),
    /// Issue a certificate revocation list (X.509 v2 CRL) under a CA.
    Crl(crl::CrlArgs),
    /// Verify a certificate chain: prints "CERT: OK" and exits 0, or the reason and exits 1.
    Verify(show::VerifyArgs),
    /// Print a certificate (or request) as text, like `openssl x509 -text`.
    Show(show::ShowArgs),
    /// GM/T 0010 CMS: sign, verify, encrypt, decrypt.
    Cms(cms::Args),
    /// PKCS#12 key stores: export, import.
    Pkcs12(pkcs12::Args),
}

/// Runs `shangmi cert`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.op {
        Op::Ca(a) => make::ca(a),
        Op::Req(a) => make::req(a),
        Op::Issue(a) => make::issue(a),
        Op::TlcpPair(a) => make::tlcp_pair(a),
        Op::Crl(a) => crl::crl(a),
        Op::Verify(a) => show::verify(a),
        Op::Show(a) => show::show(a),
        Op::Cms(a) => cms::run(a),
        Op::Pkcs12(a) => pkcs12::run(a),
    }
}

/// `PATH: message`.
fn named(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::new(format!("{}: {e}", path.display()))
}

/// Every certificate in a PEM or DER file (at least one).
fn load_certs(path: &Path) -> Result<Vec<Certificate>, Failure> {
    let bytes = read_path(path)?;
    let certs = shangmi_pki::pem::certificates(&bytes).map_err(|e| named(path, e))?;
    if certs.is_empty() {
        return Err(named(path, "no certificate"));
    }
    Ok(certs)
}

/// The first certificate of a file.
fn load_cert(path: &Path) -> Result<Certificate, Failure> {
    let mut certs = load_certs(path)?;
    Ok(certs.swap_remove(0))
}

/// Every certificate of every file given.
fn load_all(paths: &[PathBuf]) -> Result<Vec<Certificate>, Failure> {
    let mut out = Vec::new();
    for p in paths {
        out.extend(load_certs(p)?);
    }
    Ok(out)
}

/// A certificate as PEM.
fn cert_pem(cert: &Certificate) -> Result<Vec<u8>, Failure> {
    use der::Encode;
    let der = cert
        .to_der()
        .map_err(|e| Failure::new(format!("encoding the certificate: {e}")))?;
    shangmi_pki::pem::to_pem("CERTIFICATE", &der)
        .map(String::into_bytes)
        .map_err(|e| Failure::new(format!("encoding the certificate: {e}")))
}
