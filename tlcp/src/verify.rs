//! Certificate checks for the two leaves: chains (rustls-webpki with the SM2
//! verification algorithms of `shangmi-rustls`, default ID), validity, host name on the
//! sign certificate, key usages, same issuer, and revocation against the CRLs of the
//! [`RootCertStore`].
//!
//! Revocation follows the policy of `shangmi_pki::verify` (webpki's revocation options
//! with the whole chain checked, unknown status refused, expiry enforced): when the store
//! holds CRLs, every certificate of the peer's chain below the root — both leaves and any
//! intermediate — must be covered by a CRL of its issuer that the issuer's key signed
//! (SM2-with-SM3, default ID) and whose nextUpdate has not passed, and must not be listed
//! in it. A listed certificate is refused with certificate_revoked; a missing, expired or
//! unverifiable CRL with certificate_unknown.

use crate::config::NameCheck;
use crate::error::{CertificateError, Error};
use der::{Decode, Encode};
use rustls_pki_types::{CertificateDer, ServerName, SignatureVerificationAlgorithm, UnixTime};
use std::sync::Arc;
use x509_cert::Certificate;
use x509_cert::ext::pkix::KeyUsage;

/// The SM2-with-SM3 chain algorithms (default ID; both SPKI forms, with or without NULL).
static ALGS: &[&dyn SignatureVerificationAlgorithm] = &[
    &shangmi_rustls::verify::CERT_SM2_SM3,
    &shangmi_rustls::verify::CERT_SM2_SM3_NULL,
    &shangmi_rustls::verify::CERT_BARE_SM2_SM3,
    &shangmi_rustls::verify::CERT_BARE_SM2_SM3_NULL,
];

/// Trusted root certificates, and the CRLs peers' certificates are checked against.
#[derive(Clone, Debug, Default)]
pub struct RootCertStore {
    roots: Vec<CertificateDer<'static>>,
    crls: Vec<Arc<webpki::CertRevocationList<'static>>>,
}

impl RootCertStore {
    /// An empty store.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Adds a DER certificate (checked to parse as a trust anchor).
    pub fn add(&mut self, der: CertificateDer<'static>) -> Result<(), Error> {
        webpki::anchor_from_trusted_cert(&der)
            .map_err(|_| Error::Config("root certificate does not parse"))?;
        self.roots.push(der);
        Ok(())
    }

    /// Adds every certificate of a PEM bundle; returns how many.
    pub fn add_pem(&mut self, pem: &[u8]) -> Result<usize, Error> {
        let certs = crate::certs_from_pem(pem)?;
        let n = certs.len();
        for c in certs {
            self.add(c)?;
        }
        Ok(n)
    }

    /// Adds a DER CRL (X.509 v2; checked to parse; its signature is checked against the
    /// issuer during verification). Once a store holds a CRL, peers are checked for
    /// revocation (see the module documentation).
    pub fn add_crl(&mut self, der: &[u8]) -> Result<(), Error> {
        let crl = webpki::OwnedCertRevocationList::from_der(der)
            .map_err(|_| Error::Config("CRL does not parse"))?;
        self.crls.push(Arc::new(crl.into()));
        Ok(())
    }

    /// Adds every CRL (`X509 CRL` blocks) of a PEM file; returns how many.
    pub fn add_crl_pem(&mut self, pem: &[u8]) -> Result<usize, Error> {
        use rustls_pki_types::CertificateRevocationListDer;
        use rustls_pki_types::pem::PemObject;
        let mut n = 0;
        for crl in CertificateRevocationListDer::pem_slice_iter(pem) {
            let crl = crl.map_err(|_| Error::Config("unreadable PEM CRL"))?;
            self.add_crl(&crl)?;
            n += 1;
        }
        if n == 0 {
            return Err(Error::Config("no CRL in the PEM"));
        }
        Ok(n)
    }

    /// Number of CRLs.
    pub fn crl_count(&self) -> usize {
        self.crls.len()
    }

    /// Number of roots.
    pub fn len(&self) -> usize {
        self.roots.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The roots' subject names (DER), for CertificateRequest.
    pub(crate) fn subjects(&self) -> Vec<Vec<u8>> {
        self.roots
            .iter()
            .filter_map(|c| Certificate::from_der(c).ok())
            .filter_map(|c| c.tbs_certificate().subject().to_der().ok())
            .collect()
    }
}

/// The public keys of the peer's two verified leaves.
#[derive(Clone, Debug)]
pub(crate) struct PeerKeys {
    pub(crate) sign: Vec<u8>,
    pub(crate) enc: Vec<u8>,
}

fn map_webpki(e: webpki::Error) -> CertificateError {
    use webpki::Error as W;
    match e {
        W::CertExpired { .. } => CertificateError::Expired,
        W::CertNotValidYet { .. } => CertificateError::NotValidYet,
        W::UnknownIssuer => CertificateError::UnknownIssuer,
        W::InvalidSignatureForPublicKey => CertificateError::BadSignature,
        W::CertNotValidForName(_) => CertificateError::NotValidForName,
        W::BadDer | W::BadDerTime => CertificateError::BadEncoding,
        W::CertRevoked => CertificateError::Revoked,
        W::UnknownRevocationStatus => CertificateError::RevocationStatusUnknown,
        W::CrlExpired { .. } => CertificateError::CrlExpired,
        W::InvalidCrlSignatureForPublicKey
        | W::IssuerNotCrlSigner
        | W::UnsupportedCrlSignatureAlgorithmContext(_)
        | W::UnsupportedCrlSignatureAlgorithmForPublicKeyContext(_) => {
            CertificateError::CrlBadSignature
        }
        other => CertificateError::Other(format!("{other:?}")),
    }
}

struct Leaf {
    public: Vec<u8>,
    key_usage: Option<KeyUsage>,
    issuer: Vec<u8>,
}

fn parse_leaf(der: &[u8]) -> Result<Leaf, CertificateError> {
    let cert = Certificate::from_der(der).map_err(|_| CertificateError::BadEncoding)?;
    let tbs = cert.tbs_certificate();
    let public = tbs
        .subject_public_key_info()
        .subject_public_key
        .raw_bytes()
        .to_vec();
    if shangmi_sm2::keys::public_key_from_sec1(&public).is_err() {
        return Err(CertificateError::UnsupportedKey);
    }
    let key_usage = tbs
        .get_extension::<KeyUsage>()
        .map_err(|_| CertificateError::BadEncoding)?
        .map(|(_, ku)| ku);
    let issuer = tbs
        .issuer()
        .to_der()
        .map_err(|_| CertificateError::BadEncoding)?;
    Ok(Leaf {
        public: public.to_vec(),
        key_usage,
        issuer,
    })
}

/// The sign certificate `der` (parsed as `ee`) against the server `name`, as `check` says.
fn check_name(
    ee: &webpki::EndEntityCert<'_>,
    der: &[u8],
    name: &ServerName<'_>,
    check: NameCheck,
) -> Result<(), CertificateError> {
    let by_san = ee
        .verify_is_valid_for_subject_name(name)
        .map_err(map_webpki);
    match (check, by_san) {
        (NameCheck::DangerousNone, _) | (_, Ok(())) => Ok(()),
        (NameCheck::CommonNameFallback, Err(CertificateError::NotValidForName)) => {
            let ServerName::DnsName(dns) = name else {
                return Err(CertificateError::NotValidForName);
            };
            let cert = Certificate::from_der(der).map_err(|_| CertificateError::BadEncoding)?;
            let tbs = cert.tbs_certificate();
            let has_san = tbs
                .get_extension::<x509_cert::ext::pkix::SubjectAltName>()
                .map_err(|_| CertificateError::BadEncoding)?
                .is_some();
            let cn_matches = || {
                tbs.subject()
                    .iter()
                    .filter(|atv| atv.oid == COMMON_NAME)
                    .any(|cn| common_name(cn).is_some_and(|v| v.eq_ignore_ascii_case(dns.as_ref())))
            };
            if !has_san && cn_matches() {
                Ok(())
            } else {
                Err(CertificateError::NotValidForName)
            }
        }
        (_, Err(e)) => Err(e),
    }
}

/// id-at-commonName (X.520, 2.5.4.3).
const COMMON_NAME: der::asn1::ObjectIdentifier = der::asn1::ObjectIdentifier::new_unwrap("2.5.4.3");

/// A commonName value as text (UTF8String, PrintableString or IA5String).
fn common_name(atv: &x509_cert::attr::AttributeTypeAndValue) -> Option<&str> {
    use der::asn1::{Ia5StringRef, PrintableStringRef, Utf8StringRef};
    let v = &atv.value;
    v.decode_as::<Utf8StringRef<'_>>()
        .map(|s| s.as_str())
        .or_else(|_| v.decode_as::<PrintableStringRef<'_>>().map(|s| s.as_str()))
        .or_else(|_| v.decode_as::<Ia5StringRef<'_>>().map(|s| s.as_str()))
        .ok()
}

/// Verifies the TLCP certificate list (sign, encryption, then CA chain).
pub(crate) fn verify_pair(
    roots: &RootCertStore,
    certs: &[CertificateDer<'static>],
    server_name: Option<(&ServerName<'_>, NameCheck)>,
    now: UnixTime,
    strict_key_usage: bool,
    usage: webpki::KeyUsage,
) -> Result<PeerKeys, Error> {
    let fail = |e| Error::InvalidCertificate(e);
    if certs.len() < 2 {
        return Err(fail(CertificateError::MissingCertificates));
    }
    let anchors: Vec<_> = roots
        .roots
        .iter()
        .filter_map(|c| webpki::anchor_from_trusted_cert(c).ok())
        .collect();
    let intermediates = &certs[2..];
    let crls: Vec<&webpki::CertRevocationList<'_>> = roots.crls.iter().map(|c| &**c).collect();
    let revocation = webpki::RevocationOptionsBuilder::new(&crls).ok().map(|b| {
        b.with_depth(webpki::RevocationCheckDepth::Chain)
            .with_status_policy(webpki::UnknownStatusPolicy::Deny)
            .with_expiration_policy(webpki::ExpirationPolicy::Enforce)
            .build()
    });
    for (i, leaf) in certs[..2].iter().enumerate() {
        let ee = webpki::EndEntityCert::try_from(leaf).map_err(|e| fail(map_webpki(e)))?;
        ee.verify_for_usage(ALGS, &anchors, intermediates, now, usage, revocation, None)
            .map_err(|e| fail(map_webpki(e)))?;
        if i == 0
            && let Some((name, check)) = server_name
        {
            check_name(&ee, leaf, name, check).map_err(fail)?;
        }
    }
    let sign = parse_leaf(&certs[0]).map_err(fail)?;
    let enc = parse_leaf(&certs[1]).map_err(fail)?;
    if sign.issuer != enc.issuer {
        return Err(fail(CertificateError::IssuerMismatch));
    }
    if strict_key_usage {
        let sign_ok = sign
            .key_usage
            .as_ref()
            .is_none_or(|ku| ku.digital_signature());
        let enc_ok = enc
            .key_usage
            .as_ref()
            .is_none_or(|ku| ku.key_encipherment() || ku.key_agreement() || ku.data_encipherment());
        if !sign_ok || !enc_ok {
            return Err(fail(CertificateError::BadKeyUsage));
        }
    }
    Ok(PeerKeys {
        sign: sign.public,
        enc: enc.public,
    })
}
