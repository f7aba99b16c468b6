//! Certificates, requests, CRLs, CMS and PKCS#12 (`shangmi-pki`): parsing and showing,
//! chain verification, issuing, GM/T 0010 / RFC 5652 signed and enveloped messages.

use crate::common::{Buf, PyOut, ShangmiError, add_items, buf, bytes, hex};
use crate::pki_text::{self, general_name, oids};
use crate::sm2::{PyPrivateKey, PyPublicKey};
use der::{Decode, Encode};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyString};
use shangmi_pki::verify;
use shangmi_pki::{CertReq, Certificate, cms, crl, issue, name, pkcs12, req};
use x509_cert::ext::pkix::{BasicConstraints, SubjectAltName};

create_exception!(
    _shangmi,
    CertificateError,
    ShangmiError,
    "A certificate, chain, request, CRL or CMS message did not verify (expired, unknown \
     issuer, revoked, bad signature, wrong purpose or host)."
);

fn pki_err(e: shangmi_pki::Error) -> PyErr {
    use shangmi_pki::Error as E;
    match e {
        E::BadSignature | E::DigestMismatch | E::SignerCertificateNotFound => {
            CertificateError::new_err(e.to_string())
        }
        _ => ShangmiError::new_err(e.to_string()),
    }
}

/// The bytes of a PEM-or-DER argument: str (as UTF-8), bytes or any buffer.
fn text_or_bytes(data: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    match data.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.as_bytes().to_vec()),
        Err(_) => Ok(buf(data)?.as_slice().to_vec()),
    }
}

/// DER documents from PEM text or one DER document (str, bytes or any buffer).
fn documents(data: &Bound<'_, PyAny>, labels: &[&str]) -> PyResult<Vec<Vec<u8>>> {
    let raw = text_or_bytes(data)?;
    if shangmi_pki::pem::is_pem(&raw) {
        let docs = shangmi_pki::pem::der_documents(&raw, labels).map_err(pki_err)?;
        if docs.is_empty() {
            return Err(PyValueError::new_err(format!(
                "no PEM block labelled {}",
                labels.join(" or ")
            )));
        }
        Ok(docs)
    } else {
        Ok(vec![raw])
    }
}

fn time_of(t: &x509_cert::time::Time) -> u64 {
    t.to_unix_duration().as_secs()
}

fn sans_of(exts: Option<&SubjectAltName>) -> Vec<String> {
    exts.map_or_else(Vec::new, |s| s.0.iter().map(general_name).collect())
}

/// An X.509 certificate: `from_pem`, `from_der`, `load_all` (every certificate of a PEM
/// bundle); `subject`, `issuer`, `serial` (hex), `serial_number` (int), `not_before` /
/// `not_after` (unix seconds), `subject_alt_names`, `is_ca`, `public_key()`, `to_der()`,
/// `to_pem()`, `fingerprint()` (SM3 of the DER).
#[pyclass(name = "Certificate", module = "shangmi", frozen)]
#[derive(Clone)]
pub(crate) struct PyCertificate {
    pub(crate) c: Certificate,
    der: Vec<u8>,
}

impl PyCertificate {
    pub(crate) fn of(c: Certificate) -> PyResult<Self> {
        let der = c
            .to_der()
            .map_err(|e| ShangmiError::new_err(e.to_string()))?;
        Ok(PyCertificate { c, der })
    }

    pub(crate) fn from_der_bytes(der: &[u8]) -> PyResult<Self> {
        let c = Certificate::from_der(der)
            .map_err(|e| PyValueError::new_err(format!("not a DER certificate: {e}")))?;
        Ok(PyCertificate {
            c,
            der: der.to_vec(),
        })
    }

    pub(crate) fn der(&self) -> &[u8] {
        &self.der
    }
}

#[pymethods]
impl PyCertificate {
    #[staticmethod]
    fn from_der(data: Buf<'_>) -> PyResult<Self> {
        Self::from_der_bytes(data.as_slice())
    }

    /// The first certificate of PEM text.
    #[staticmethod]
    fn from_pem(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let docs = documents(data, &["CERTIFICATE"])?;
        Self::from_der_bytes(&docs[0])
    }

    /// Every certificate of a PEM bundle (or the one DER certificate).
    #[staticmethod]
    fn load_all(data: &Bound<'_, PyAny>) -> PyResult<Vec<Self>> {
        documents(data, &["CERTIFICATE"])?
            .iter()
            .map(|d| Self::from_der_bytes(d))
            .collect()
    }

    #[getter]
    fn subject(&self) -> String {
        name::display(self.c.tbs_certificate().subject())
    }

    #[getter]
    fn issuer(&self) -> String {
        name::display(self.c.tbs_certificate().issuer())
    }

    #[getter]
    fn common_name(&self) -> Option<String> {
        name::common_name(self.c.tbs_certificate().subject())
    }

    #[getter]
    fn serial(&self) -> String {
        hex(self.c.tbs_certificate().serial_number().as_bytes())
    }

    #[getter]
    fn serial_number<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = bytes(py, self.c.tbs_certificate().serial_number().as_bytes());
        py.get_type::<PyInt>()
            .call_method1("from_bytes", (b, "big"))
    }

    #[getter]
    fn not_before(&self) -> u64 {
        time_of(&self.c.tbs_certificate().validity().not_before)
    }

    #[getter]
    fn not_after(&self) -> u64 {
        time_of(&self.c.tbs_certificate().validity().not_after)
    }

    /// "DNS:…", "IP:…", "email:…", "URI:…" entries of the subjectAltName extension.
    #[getter]
    fn subject_alt_names(&self) -> Vec<String> {
        let ext = self
            .c
            .tbs_certificate()
            .get_extension::<SubjectAltName>()
            .ok()
            .flatten()
            .map(|(_, s)| s);
        sans_of(ext.as_ref())
    }

    #[getter]
    fn is_ca(&self) -> bool {
        self.c
            .tbs_certificate()
            .get_extension::<BasicConstraints>()
            .ok()
            .flatten()
            .is_some_and(|(_, b)| b.ca)
    }

    /// The SM2 public key of the subject.
    fn public_key(&self) -> PyResult<PyPublicKey> {
        let k = verify::sm2_public_key(self.c.tbs_certificate().subject_public_key_info())
            .ok_or_else(|| ShangmiError::new_err("not an SM2 public key"))?;
        Ok(PyPublicKey::of(k))
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.der)
    }

    fn to_pem(&self) -> PyResult<String> {
        shangmi_pki::pem::to_pem("CERTIFICATE", &self.der).map_err(pki_err)
    }

    /// SM3 of the DER encoding, as hex.
    fn fingerprint(&self) -> String {
        use shangmi_sm3::Digest as _;
        hex(&shangmi_sm3::Sm3::digest(&self.der))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyCertificate>()
            .is_ok_and(|o| o.get().der == self.der)
    }

    fn __hash__(&self) -> u64 {
        use shangmi_sm3::Digest as _;
        let h = shangmi_sm3::Sm3::digest(&self.der);
        let mut b = [0u8; 8];
        b.copy_from_slice(&h[..8]);
        u64::from_le_bytes(b)
    }

    fn __repr__(&self) -> String {
        format!(
            "Certificate(subject='{}', serial={})",
            self.subject(),
            self.serial()
        )
    }
}

/// A PKCS#10 certificate request: `create(key, subject, sans=None)`, `from_pem`,
/// `from_der`, `to_pem`, `to_der`, `subject`, `subject_alt_names`, `public_key()` (checks
/// the request's signature first).
#[pyclass(name = "CertificateRequest", module = "shangmi", frozen)]
struct PyCertReq {
    r: CertReq,
}

#[pymethods]
impl PyCertReq {
    /// A request signed by `key` for `subject` ("/C=CN/O=…/CN=…") with SANs ("DNS:…").
    #[staticmethod]
    #[pyo3(signature = (key, subject, sans=None))]
    fn create(key: &PyPrivateKey, subject: &str, sans: Option<Vec<String>>) -> PyResult<Self> {
        let subject = parse_name(subject)?;
        let sans = parse_sans(sans)?;
        let r = req::create_request(&key.secret(), &subject, &sans, None).map_err(pki_err)?;
        Ok(PyCertReq { r })
    }

    #[staticmethod]
    fn from_der(data: Buf<'_>) -> PyResult<Self> {
        let r = CertReq::from_der(data.as_slice())
            .map_err(|e| PyValueError::new_err(format!("not a DER request: {e}")))?;
        Ok(PyCertReq { r })
    }

    #[staticmethod]
    fn from_pem(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let docs = documents(data, &["CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST"])?;
        let r = CertReq::from_der(&docs[0])
            .map_err(|e| PyValueError::new_err(format!("not a DER request: {e}")))?;
        Ok(PyCertReq { r })
    }

    fn to_der<'py>(&self, py: Python<'py>) -> PyOut<'py> {
        let d = self
            .r
            .to_der()
            .map_err(|e| ShangmiError::new_err(e.to_string()))?;
        Ok(bytes(py, &d))
    }

    fn to_pem(&self) -> PyResult<String> {
        let d = self
            .r
            .to_der()
            .map_err(|e| ShangmiError::new_err(e.to_string()))?;
        shangmi_pki::pem::to_pem("CERTIFICATE REQUEST", &d).map_err(pki_err)
    }

    #[getter]
    fn subject(&self) -> String {
        name::display(&self.r.info.subject)
    }

    #[getter]
    fn subject_alt_names(&self) -> PyResult<Vec<String>> {
        let sans = req::requested_sans(&self.r).map_err(pki_err)?;
        Ok(sans
            .iter()
            .map(|s| match s {
                issue::San::Dns(d) => format!("DNS:{d}"),
                issue::San::Ip(ip) => format!("IP:{ip}"),
                issue::San::Email(e) => format!("email:{e}"),
            })
            .collect())
    }

    /// The requested key, after the request's self-signature is checked.
    fn public_key(&self) -> PyResult<PyPublicKey> {
        Ok(PyPublicKey::of(
            req::verify_request(&self.r).map_err(pki_err)?,
        ))
    }
}

/// A message of `pki_text` as a `ValueError`.
fn value_err(e: String) -> PyErr {
    PyValueError::new_err(e)
}

fn parse_sans(sans: Option<Vec<String>>) -> PyResult<Vec<issue::San>> {
    pki_text::sans(&sans.unwrap_or_default()).map_err(value_err)
}

fn parse_name(s: &str) -> PyResult<x509_cert::name::Name> {
    pki_text::distinguished_name(s).map_err(value_err)
}

/// A certificate for `public_key` issued by `issuer` (its key `issuer_key`), with a
/// profile ("tls-server", "tls-client", "tlcp-sign", "tlcp-enc", "ca"); self-signed by
/// `issuer_key` when `issuer` and `public_key` are both `None` (what the Python
/// `cert_self_signed` does, as the JavaScript `certSelfSigned` calls the engine's `certIssue`).
#[pyfunction]
#[pyo3(signature = (issuer, issuer_key, public_key, subject, profile="tls-server", days=365, sans=None, path_len=None))]
#[allow(clippy::too_many_arguments)]
fn cert_issue(
    issuer: Option<&PyCertificate>,
    issuer_key: &PyPrivateKey,
    public_key: Option<&PyPublicKey>,
    subject: &str,
    profile: &str,
    days: u32,
    sans: Option<Vec<String>>,
    path_len: Option<u8>,
) -> PyResult<PyCertificate> {
    let (subject, sans) = (parse_name(subject)?, sans.unwrap_or_default());
    let p = pki_text::cert_params(subject, profile, days, &sans, path_len).map_err(value_err)?;
    let key = issuer_key.secret();
    let c = match (issuer, public_key) {
        (None, None) => issue::self_signed(&key, &p),
        (Some(issuer), Some(pk)) => issue::issue(&issuer.c, &key, pk.sm2(), &p),
        _ => {
            return Err(PyValueError::new_err(
                "an issued certificate needs the issuer and the public key",
            ));
        }
    };
    PyCertificate::of(c.map_err(pki_err)?)
}

/// A certificate for a request (its signature checked; subject and SANs from it).
#[pyfunction]
#[pyo3(signature = (issuer, issuer_key, request, profile="tls-server", days=365))]
fn cert_issue_from_request(
    issuer: &PyCertificate,
    issuer_key: &PyPrivateKey,
    request: &PyCertReq,
    profile: &str,
    days: u32,
) -> PyResult<PyCertificate> {
    let subject = request.r.info.subject.clone();
    let p = pki_text::cert_params(subject, profile, days, &[], None).map_err(value_err)?;
    let c = issue::issue_from_request(&issuer.c, &issuer_key.secret(), &request.r, &p)
        .map_err(pki_err)?;
    PyCertificate::of(c)
}

/// A CRL (DER) of `issuer` revoking the serials (hex strings or ints as bytes), valid
/// `days` days.
#[pyfunction]
#[pyo3(signature = (issuer, issuer_key, revoked, days=30, number=1))]
fn crl_issue<'py>(
    py: Python<'py>,
    issuer: &PyCertificate,
    issuer_key: &PyPrivateKey,
    revoked: Vec<Buf<'py>>,
    days: u32,
    number: u64,
) -> PyOut<'py> {
    let mut p = crl::CrlParams::new(days);
    p.number = number;
    for r in &revoked {
        p.revoked.push(crl::Revoked::now(r.as_slice(), None));
    }
    let c = crl::issue_crl(&issuer.c, &issuer_key.secret(), &p).map_err(pki_err)?;
    Ok(bytes(py, c.to_der()))
}

fn certs(list: Option<Vec<PyRef<'_, PyCertificate>>>) -> Vec<Certificate> {
    list.unwrap_or_default()
        .iter()
        .map(|c| c.c.clone())
        .collect()
}

fn crls(list: Option<Vec<Bound<'_, PyAny>>>) -> PyResult<Vec<crl::Crl>> {
    let mut out = Vec::new();
    for c in list.unwrap_or_default() {
        for d in documents(&c, &["X509 CRL"])? {
            out.push(
                crl::Crl::from_der(&d)
                    .map_err(|e| PyValueError::new_err(format!("not a CRL: {e}")))?,
            );
        }
    }
    Ok(out)
}

/// Verifies `leaf` up to one of `roots` through `intermediates`, at `time` (unix seconds;
/// now by default), for `purpose`, optionally for `host` and against `crls` (DER or PEM);
/// returns the path leaf first, or raises `CertificateError`.
#[pyfunction]
#[pyo3(signature = (leaf, roots, intermediates=None, crls=None, purpose="any", host=None, time=None))]
#[allow(clippy::too_many_arguments)]
fn verify_chain(
    py: Python<'_>,
    leaf: &PyCertificate,
    roots: Vec<PyRef<'_, PyCertificate>>,
    intermediates: Option<Vec<PyRef<'_, PyCertificate>>>,
    crls: Option<Vec<Bound<'_, PyAny>>>,
    purpose: &str,
    host: Option<&str>,
    time: Option<u64>,
) -> PyResult<Vec<PyCertificate>> {
    let roots = certs(Some(roots));
    let inter = certs(intermediates);
    let crls = self::crls(crls)?;
    let opts = pki_text::verify_options(purpose, time, host, &crls).map_err(value_err)?;
    let path = py
        .detach(|| verify::verify_chain(&leaf.c, &inter, &roots, &opts))
        .map_err(|e| CertificateError::new_err(e.to_string()))?;
    path.into_iter().map(PyCertificate::of).collect()
}

/// A CMS SignedData (DER) over `content` by `cert`/`key` (with `chain`): GM/T 0010 OIDs by
/// default, RFC 5652's with `rfc5652=True`; `detached` leaves the content out.
#[pyfunction]
#[pyo3(signature = (content, cert, key, chain=None, detached=false, rfc5652=false))]
fn cms_sign<'py>(
    py: Python<'py>,
    content: Buf<'py>,
    cert: &PyCertificate,
    key: &PyPrivateKey,
    chain: Option<Vec<PyRef<'py, PyCertificate>>>,
    detached: bool,
    rfc5652: bool,
) -> PyOut<'py> {
    let chain = certs(chain);
    let secret = key.secret();
    let der = pki_text::cms_sign_one(
        content.as_slice(),
        &cert.c,
        &secret,
        &chain,
        detached,
        rfc5652,
    )
    .map_err(pki_err)?;
    Ok(bytes(py, &der))
}

/// Verifies a CMS SignedData (DER or PEM) against `roots` (signers' chains from the
/// message and `certs`); `detached` is the content when the message has none. Returns
/// `(content, signer_certificates)` or raises `CertificateError`.
#[pyfunction]
#[pyo3(signature = (message, roots, detached=None, certs=None, purpose="cms-sign", time=None))]
#[allow(clippy::too_many_arguments)]
fn cms_verify<'py>(
    py: Python<'py>,
    message: &Bound<'py, PyAny>,
    roots: Vec<PyRef<'py, PyCertificate>>,
    detached: Option<Buf<'py>>,
    certs: Option<Vec<PyRef<'py, PyCertificate>>>,
    purpose: &str,
    time: Option<u64>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<PyCertificate>)> {
    let der = cms_der(message)?;
    let roots = self::certs(Some(roots));
    let extra = self::certs(certs);
    let opts = pki_text::verify_options(purpose, time, None, &[]).map_err(value_err)?;
    let v = cms::verify(
        &der,
        detached.as_ref().map(|d| d.as_slice()),
        &extra,
        &roots,
        &opts,
    )
    .map_err(|e| CertificateError::new_err(e.to_string()))?;
    let signers = v
        .signers
        .into_iter()
        .map(PyCertificate::of)
        .collect::<PyResult<_>>()?;
    Ok((bytes(py, &v.content), signers))
}

fn cms_der(message: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    cms::from_der_or_pem(&text_or_bytes(message)?).map_err(pki_err)
}

/// A CMS EnvelopedData (DER) of `content` for the `recipients`' SM2 certificates (SM4-CBC
/// content key wrapped with SM2 encryption).
#[pyfunction]
#[pyo3(signature = (content, recipients, rfc5652=false))]
fn cms_encrypt<'py>(
    py: Python<'py>,
    content: Buf<'py>,
    recipients: Vec<PyRef<'py, PyCertificate>>,
    rfc5652: bool,
) -> PyOut<'py> {
    let r = certs(Some(recipients));
    let der = cms::encrypt(content.as_slice(), &r, oids(rfc5652)).map_err(pki_err)?;
    Ok(bytes(py, &der))
}

/// Opens a CMS EnvelopedData (DER or PEM) with the recipient's certificate and key.
#[pyfunction]
fn cms_decrypt<'py>(
    py: Python<'py>,
    message: &Bound<'py, PyAny>,
    cert: &PyCertificate,
    key: &PyPrivateKey,
) -> PyOut<'py> {
    let der = cms_der(message)?;
    let pt = cms::decrypt(&der, &cert.c, &key.secret()).map_err(pki_err)?;
    Ok(bytes(py, &zeroize::Zeroizing::new(pt)))
}

/// Reads a PKCS#12 file: `(private_key, certificate, chain)`.
#[pyfunction]
fn pkcs12_import(
    py: Python<'_>,
    data: Buf<'_>,
    password: &str,
) -> PyResult<(PyPrivateKey, PyCertificate, Vec<PyCertificate>)> {
    let d = data.as_slice();
    let c = py.detach(|| pkcs12::import(d, password)).map_err(pki_err)?;
    let chain = c
        .chain
        .into_iter()
        .map(PyCertificate::of)
        .collect::<PyResult<_>>()?;
    Ok((PyPrivateKey::of(c.key)?, PyCertificate::of(c.cert)?, chain))
}

/// Writes a PKCS#12 file of `key`, `cert` and `chain` under `password`: OpenSSL 3's
/// algorithms, or with `sm=True` PBKDF2-HMAC-SM3 / SM4-CBC and an HMAC-SM3 MAC.
#[pyfunction]
#[pyo3(signature = (cert, key, password, chain=None, sm=false))]
fn pkcs12_export<'py>(
    py: Python<'py>,
    cert: &PyCertificate,
    key: &PyPrivateKey,
    password: &str,
    chain: Option<Vec<PyRef<'py, PyCertificate>>>,
    sm: bool,
) -> PyOut<'py> {
    let chain = certs(chain);
    let scheme = if sm {
        pkcs12::Scheme::Sm
    } else {
        pkcs12::Scheme::OpenSsl
    };
    let (c, k) = (&cert.c, key.secret());
    let der = py
        .detach(|| pkcs12::export_with(c, &k, &chain, password, scheme))
        .map_err(pki_err)?;
    Ok(bytes(py, &der))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_items!(m;
        exceptions: CertificateError;
        classes: PyCertificate, PyCertReq;
        functions: cert_issue, cert_issue_from_request, crl_issue, verify_chain, cms_sign,
            cms_verify, cms_encrypt, cms_decrypt, pkcs12_import, pkcs12_export;
    )
}
