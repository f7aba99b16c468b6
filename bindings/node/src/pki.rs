//! Certificates, requests, CRLs, CMS and PKCS#12 (`shangmi-pki`) for the native engine only:
//! every document crosses as DER bytes and every private key as its 32-byte SM2 scalar
//! (the JavaScript layer, `bindings/wasm/js/pki.js`, holds them in objects and checks the
//! arguments), the same operations as the Python package's `pki.rs`.

use crate::pki_text::{self, general_name, hex, oids};
use crate::{core, err};
use der::{Decode, Encode};
use napi::bindgen_prelude::{Result, Uint8Array};
use napi_derive::napi;
use shangmi_pki::verify;
use shangmi_pki::{CertReq, Certificate, cms, crl, issue, name, pkcs12, req};
use x509_cert::ext::pkix::{BasicConstraints, KeyUsage, KeyUsages, SubjectAltName};
use zeroize::Zeroizing;

fn pki_err(e: shangmi_pki::Error) -> napi::Error {
    err(e.to_string())
}

fn der_err(e: der::Error) -> napi::Error {
    err(e.to_string())
}

fn u8a(v: Vec<u8>) -> Uint8Array {
    Uint8Array::new(v)
}

fn cert(der: &[u8]) -> Result<Certificate> {
    Certificate::from_der(der).map_err(|e| err(format!("not a DER certificate: {e}")))
}

fn certs(list: &[Uint8Array]) -> Result<Vec<Certificate>> {
    list.iter().map(|c| cert(c)).collect()
}

fn cert_der(c: &Certificate) -> Result<Uint8Array> {
    c.to_der().map(u8a).map_err(der_err)
}

fn secret(d: &[u8]) -> Result<shangmi_sm2::SecretKey> {
    core::secret(d).map_err(err)
}

/// DER documents of the PEM blocks in `text` labelled with one of `labels` (every block when
/// empty), wherever they are in it (openssl's output puts text before them).
#[napi]
pub fn pem_decode(text: Uint8Array, labels: Vec<String>) -> Result<Vec<Uint8Array>> {
    Ok(shangmi_pki::pem::pem_blocks(&text)
        .map_err(pki_err)?
        .into_iter()
        .filter(|(l, _)| labels.is_empty() || labels.contains(l))
        .map(|(_, d)| u8a(d))
        .collect())
}

/// PEM text of a DER document.
#[napi]
pub fn pem_encode(label: String, der: Uint8Array) -> Result<String> {
    shangmi_pki::pem::to_pem(&label, &der).map_err(pki_err)
}

/// What a certificate shows.
#[napi(object)]
pub struct CertInfo {
    /// The subject, "/C=CN/O=…/CN=…".
    pub subject: String,
    /// The issuer.
    pub issuer: String,
    /// The subject's common name.
    pub common_name: Option<String>,
    /// The serial number, hex.
    pub serial: String,
    /// notBefore, unix seconds.
    pub not_before: f64,
    /// notAfter, unix seconds.
    pub not_after: f64,
    /// "DNS:…", "IP:…", "email:…", "URI:…".
    pub subject_alt_names: Vec<String>,
    /// basicConstraints cA.
    pub is_ca: bool,
    /// keyUsage bits by name ("digitalSignature", …), none when the extension is absent.
    pub key_usage: Vec<String>,
    /// The SM2 public key (65 bytes), when it is one.
    pub public_key: Option<Uint8Array>,
    /// The signature algorithm's OID.
    pub signature_algorithm: String,
}

const USAGES: [(KeyUsages, &str); 9] = [
    (KeyUsages::DigitalSignature, "digitalSignature"),
    (KeyUsages::NonRepudiation, "nonRepudiation"),
    (KeyUsages::KeyEncipherment, "keyEncipherment"),
    (KeyUsages::DataEncipherment, "dataEncipherment"),
    (KeyUsages::KeyAgreement, "keyAgreement"),
    (KeyUsages::KeyCertSign, "keyCertSign"),
    (KeyUsages::CRLSign, "cRLSign"),
    (KeyUsages::EncipherOnly, "encipherOnly"),
    (KeyUsages::DecipherOnly, "decipherOnly"),
];

/// Parses a DER certificate and shows its fields.
#[napi]
pub fn cert_info(der: Uint8Array) -> Result<CertInfo> {
    let c = cert(&der)?;
    let t = c.tbs_certificate();
    let sans = t
        .get_extension::<SubjectAltName>()
        .ok()
        .flatten()
        .map_or_else(Vec::new, |(_, s)| s.0.iter().map(general_name).collect());
    let ku = t
        .get_extension::<KeyUsage>()
        .ok()
        .flatten()
        .map_or_else(Vec::new, |(_, k)| {
            USAGES
                .iter()
                .filter(|(f, _)| k.0.contains(*f))
                .map(|(_, n)| (*n).to_string())
                .collect()
        });
    let v = t.validity();
    Ok(CertInfo {
        subject: name::display(t.subject()),
        issuer: name::display(t.issuer()),
        common_name: name::common_name(t.subject()),
        serial: hex(t.serial_number().as_bytes()),
        not_before: v.not_before.to_unix_duration().as_secs() as f64,
        not_after: v.not_after.to_unix_duration().as_secs() as f64,
        subject_alt_names: sans,
        is_ca: t
            .get_extension::<BasicConstraints>()
            .ok()
            .flatten()
            .is_some_and(|(_, b)| b.ca),
        key_usage: ku,
        public_key: verify::sm2_public_key(t.subject_public_key_info())
            .map(|k| u8a(core::public_to_bytes(&k, false))),
        signature_algorithm: c.signature_algorithm().oid.to_string(),
    })
}

fn parse_name(s: &str) -> Result<x509_cert::name::Name> {
    pki_text::distinguished_name(s).map_err(err)
}

/// A certificate (DER) for `public_key` issued by `issuer` with its key `d`, or self-signed
/// by `d` when neither is given.
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn cert_issue(
    issuer: Option<Uint8Array>,
    d: Uint8Array,
    public_key: Option<Uint8Array>,
    subject: String,
    profile: String,
    days: u32,
    sans: Vec<String>,
    path_len: Option<u32>,
) -> Result<Uint8Array> {
    let subject = parse_name(&subject)?;
    let path_len = path_len
        .map(u8::try_from)
        .transpose()
        .map_err(|_| err("pathLen must be at most 255".into()))?;
    let p = pki_text::cert_params(subject, &profile, days, &sans, path_len).map_err(err)?;
    let sk = secret(&d)?;
    let c = match (issuer, public_key) {
        (None, None) => issue::self_signed(&sk, &p),
        (Some(issuer), Some(pk)) => {
            let pk = core::public(&pk).map_err(err)?;
            issue::issue(&cert(&issuer)?, &sk, &pk, &p)
        }
        _ => {
            return Err(err(
                "an issued certificate needs the issuer and the public key".into(),
            ));
        }
    };
    cert_der(&c.map_err(pki_err)?)
}

fn request(der: &[u8]) -> Result<CertReq> {
    CertReq::from_der(der).map_err(|e| err(format!("not a DER request: {e}")))
}

/// A certificate (DER) for a request (its signature checked; subject and SANs from it).
#[napi]
pub fn cert_issue_from_request(
    issuer: Uint8Array,
    d: Uint8Array,
    csr: Uint8Array,
    profile: String,
    days: u32,
) -> Result<Uint8Array> {
    let r = request(&csr)?;
    let p =
        pki_text::cert_params(r.info.subject.clone(), &profile, days, &[], None).map_err(err)?;
    cert_der(&issue::issue_from_request(&cert(&issuer)?, &secret(&d)?, &r, &p).map_err(pki_err)?)
}

/// A PKCS#10 request (DER) signed by `d`.
#[napi]
pub fn csr_create(d: Uint8Array, subject: String, sans: Vec<String>) -> Result<Uint8Array> {
    let r = req::create_request(
        &secret(&d)?,
        &parse_name(&subject)?,
        &pki_text::sans(&sans).map_err(err)?,
        None,
    )
    .map_err(pki_err)?;
    r.to_der().map(u8a).map_err(der_err)
}

/// What a request shows.
#[napi(object)]
pub struct CsrInfo {
    /// The requested subject.
    pub subject: String,
    /// The requested subjectAltNames.
    pub subject_alt_names: Vec<String>,
    /// The requested key (65 bytes), after the request's self-signature is checked.
    pub public_key: Uint8Array,
}

/// Parses a DER request and checks its signature.
#[napi]
pub fn csr_info(der: Uint8Array) -> Result<CsrInfo> {
    let r = request(&der)?;
    let pk = req::verify_request(&r).map_err(pki_err)?;
    let sans = req::requested_sans(&r).map_err(pki_err)?;
    Ok(CsrInfo {
        subject: name::display(&r.info.subject),
        subject_alt_names: sans
            .iter()
            .map(|s| match s {
                issue::San::Dns(d) => format!("DNS:{d}"),
                issue::San::Ip(ip) => format!("IP:{ip}"),
                issue::San::Email(e) => format!("email:{e}"),
            })
            .collect(),
        public_key: u8a(core::public_to_bytes(&pk, false)),
    })
}

/// A CRL (DER) of `issuer` revoking the serials (big-endian bytes).
#[napi]
pub fn crl_issue(
    issuer: Uint8Array,
    d: Uint8Array,
    revoked: Vec<Uint8Array>,
    days: u32,
    number: u32,
) -> Result<Uint8Array> {
    let mut p = crl::CrlParams::new(days);
    p.number = u64::from(number);
    for r in &revoked {
        p.revoked.push(crl::Revoked::now(r, None));
    }
    let c = crl::issue_crl(&cert(&issuer)?, &secret(&d)?, &p).map_err(pki_err)?;
    Ok(u8a(c.to_der().to_vec()))
}

fn crls(list: &[Uint8Array]) -> Result<Vec<crl::Crl>> {
    list.iter()
        .map(|c| crl::Crl::from_der(c).map_err(|e| err(format!("not a CRL: {e}"))))
        .collect()
}

/// `time` (unix seconds from JavaScript) as whole seconds; a negative or non-finite one
/// is refused.
fn unix_time(time: Option<f64>) -> Result<Option<u64>> {
    match time {
        Some(t) if t.is_finite() && t >= 0.0 => Ok(Some(t as u64)),
        Some(_) => Err(err("time must be unix seconds".into())),
        None => Ok(None),
    }
}

/// Verifies `leaf` up to one of `roots` through `intermediates` against `crls` (DER);
/// returns the path, leaf first.
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn verify_chain(
    leaf: Uint8Array,
    roots: Vec<Uint8Array>,
    intermediates: Vec<Uint8Array>,
    crl_list: Vec<Uint8Array>,
    purpose: String,
    host: Option<String>,
    time: Option<f64>,
) -> Result<Vec<Uint8Array>> {
    let (leaf, roots, inter) = (cert(&leaf)?, certs(&roots)?, certs(&intermediates)?);
    let crls = crls(&crl_list)?;
    let opts = pki_text::verify_options(&purpose, unix_time(time)?, host.as_deref(), &crls)
        .map_err(err)?;
    let path = verify::verify_chain(&leaf, &inter, &roots, &opts)
        .map_err(|e| err(format!("certificate verification failed: {e}")))?;
    path.iter().map(cert_der).collect()
}

/// A CMS SignedData (DER) over `content` by `signer`/`d` with `chain`.
#[napi]
pub fn cms_sign(
    content: Uint8Array,
    signer: Uint8Array,
    d: Uint8Array,
    chain: Vec<Uint8Array>,
    detached: bool,
    rfc5652: bool,
) -> Result<Uint8Array> {
    let (c, chain, k) = (cert(&signer)?, certs(&chain)?, secret(&d)?);
    pki_text::cms_sign_one(&content, &c, &k, &chain, detached, rfc5652)
        .map(u8a)
        .map_err(pki_err)
}

/// What a verified SignedData holds.
#[napi(object)]
pub struct CmsVerified {
    /// The content (attached, or the detached one given).
    pub content: Uint8Array,
    /// The signers' certificates (DER).
    pub signers: Vec<Uint8Array>,
}

/// Verifies a CMS SignedData (DER or PEM) against `roots`.
#[napi]
pub fn cms_verify(
    message: Uint8Array,
    roots: Vec<Uint8Array>,
    detached: Option<Uint8Array>,
    extra: Vec<Uint8Array>,
    purpose: String,
    time: Option<f64>,
) -> Result<CmsVerified> {
    let der = cms::from_der_or_pem(&message).map_err(pki_err)?;
    let (roots, extra) = (certs(&roots)?, certs(&extra)?);
    let opts = pki_text::verify_options(&purpose, unix_time(time)?, None, &[]).map_err(err)?;
    let v = cms::verify(&der, detached.as_deref(), &extra, &roots, &opts)
        .map_err(|e| err(format!("CMS verification failed: {e}")))?;
    Ok(CmsVerified {
        content: u8a(v.content),
        signers: v.signers.iter().map(cert_der).collect::<Result<_>>()?,
    })
}

/// A CMS EnvelopedData (DER) of `content` for the recipients' certificates.
#[napi]
pub fn cms_encrypt(
    content: Uint8Array,
    recipients: Vec<Uint8Array>,
    rfc5652: bool,
) -> Result<Uint8Array> {
    cms::encrypt(&content, &certs(&recipients)?, oids(rfc5652))
        .map(u8a)
        .map_err(pki_err)
}

/// Opens a CMS EnvelopedData (DER or PEM) with the recipient's certificate and key.
#[napi]
pub fn cms_decrypt(
    message: Uint8Array,
    recipient: Uint8Array,
    d: Uint8Array,
) -> Result<Uint8Array> {
    let der = cms::from_der_or_pem(&message).map_err(pki_err)?;
    let pt = Zeroizing::new(cms::decrypt(&der, &cert(&recipient)?, &secret(&d)?).map_err(pki_err)?);
    Ok(u8a(pt.to_vec()))
}

/// What a PKCS#12 file holds.
#[napi(object)]
pub struct Pkcs12Contents {
    /// The private key's 32-byte scalar.
    pub key: Uint8Array,
    /// Its certificate (DER).
    pub cert: Uint8Array,
    /// The other certificates (DER).
    pub chain: Vec<Uint8Array>,
}

/// Reads a PKCS#12 file.
#[napi]
pub fn pkcs12_import(data: Uint8Array, password: String) -> Result<Pkcs12Contents> {
    let c = pkcs12::import(&data, &password).map_err(pki_err)?;
    let d = Zeroizing::new(c.key.to_bytes());
    Ok(Pkcs12Contents {
        key: u8a(d.to_vec()),
        cert: cert_der(&c.cert)?,
        chain: c.chain.iter().map(cert_der).collect::<Result<_>>()?,
    })
}

/// Writes a PKCS#12 file (OpenSSL 3's algorithms, or the SM ones when `sm`).
#[napi]
pub fn pkcs12_export(
    cert_der_in: Uint8Array,
    d: Uint8Array,
    password: String,
    chain: Vec<Uint8Array>,
    sm: bool,
) -> Result<Uint8Array> {
    let scheme = if sm {
        pkcs12::Scheme::Sm
    } else {
        pkcs12::Scheme::OpenSsl
    };
    pkcs12::export_with(
        &cert(&cert_der_in)?,
        &secret(&d)?,
        &certs(&chain)?,
        &password,
        scheme,
    )
    .map(u8a)
    .map_err(pki_err)
}
