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

use crate::error::{CertificateError, Error};
use der::{Decode, Encode};
use rustls_pki_types::{CertificateDer, ServerName, SignatureVerificationAlgorithm, UnixTime};
use std::borrow::Borrow;
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

/// The server's Certificate list as TLCP splits it, and the time it is checked at.
#[derive(Clone, Copy, Debug)]
pub struct ServerCerts<'a> {
    /// The sign certificate (the one the server name is checked against).
    pub sign: &'a CertificateDer<'a>,
    /// The encryption certificate.
    pub enc: &'a CertificateDer<'a>,
    /// The rest of the list the server sent (its CA certificates).
    pub intermediates: &'a [CertificateDer<'a>],
    /// When the check happens (the configuration's `TimeProvider`).
    pub now: UnixTime,
}

/// A client's Certificate list as TLCP splits it, and the time it is checked at.
#[derive(Clone, Copy, Debug)]
pub struct ClientCerts<'a> {
    /// The sign certificate.
    pub sign: &'a CertificateDer<'a>,
    /// The encryption certificate; `None`: a GmSSL client's single chain, in the ECC
    /// suites only.
    pub enc: Option<&'a CertificateDer<'a>>,
    /// The rest of the list the client sent (its CA certificates).
    pub intermediates: &'a [CertificateDer<'a>],
    /// When the check happens (the configuration's `TimeProvider`).
    pub now: UnixTime,
}

impl<'a> ServerCerts<'a> {
    /// The server's list as TLCP orders it: sign, encryption, then the rest; fewer than
    /// two certificates are refused.
    pub(crate) fn split(list: &'a [CertificateDer<'a>], now: UnixTime) -> Result<Self, Error> {
        let [sign, enc, intermediates @ ..] = list else {
            return Err(Error::InvalidCertificate(
                CertificateError::MissingCertificates,
            ));
        };
        Ok(ServerCerts {
            sign,
            enc,
            intermediates,
            now,
        })
    }
}

impl<'a> ClientCerts<'a> {
    /// A client's list: as a server's ([`ServerCerts::split`]), or with `single_chain` one
    /// chain (the sign certificate, then its CA certificates; no encryption certificate).
    pub(crate) fn split(
        list: &'a [CertificateDer<'a>],
        single_chain: bool,
        now: UnixTime,
    ) -> Result<Self, Error> {
        match list {
            [sign, intermediates @ ..] if single_chain => Ok(ClientCerts {
                sign,
                enc: None,
                intermediates,
                now,
            }),
            _ => ServerCerts::split(list, now).map(Self::from),
        }
    }
}

/// A server's certificates as the general form, whose encryption certificate is optional.
impl<'a> From<ServerCerts<'a>> for ClientCerts<'a> {
    fn from(c: ServerCerts<'a>) -> Self {
        ClientCerts {
            sign: c.sign,
            enc: Some(c.enc),
            intermediates: c.intermediates,
            now: c.now,
        }
    }
}

/// Checks a client's or server's certificates (rustls' `ServerCertVerifier` /
/// `ClientCertVerifier` for TLCP's two leaves). The default is [`WebPkiVerifier`].
///
/// A refusal is an `Err`: [`Error::InvalidCertificate`] with the [`CertificateError`] that
/// fits sends its alert (certificate_revoked, unknown_ca, bad_certificate, …);
/// `Error::PeerMisbehaved(AlertDescription::AccessDenied, "…")` sends access_denied.
/// The handshake itself still checks that the leaves hold SM2 keys and that the peer
/// proves it has the private keys. Each method refuses by default, so a verifier for
/// one side implements only its method.
///
/// ```
/// use shangmi_tlcp::*;
/// /// The default checks, then only clients whose sign certificate is on an allow list.
/// #[derive(Debug)]
/// struct AllowList {
///     inner: WebPkiVerifier,
///     allowed: Vec<CertificateDer<'static>>,
/// }
/// impl CertVerifier for AllowList {
///     fn verify_client(&self, certs: ClientCerts<'_>) -> Result<(), Error> {
///         self.inner.verify_client(certs)?;
///         if !self.allowed.iter().any(|a| a.as_ref() == certs.sign.as_ref()) {
///             return Err(Error::PeerMisbehaved(AlertDescription::AccessDenied, "not allowed"));
///         }
///         Ok(())
///     }
///     fn root_hint_subjects(&self) -> Vec<Vec<u8>> {
///         self.inner.root_hint_subjects()
///     }
/// }
/// // ServerConfig::builder().client_cert_verifier(ClientAuth::Required, Arc::new(AllowList { … }))
/// ```
pub trait CertVerifier: core::fmt::Debug + Send + Sync {
    /// The server's certificates; its sign certificate must name `server_name`.
    fn verify_server(
        &self,
        certs: ServerCerts<'_>,
        server_name: &ServerName<'_>,
    ) -> Result<(), Error> {
        let _ = (certs, server_name);
        Err(does_not_check("servers"))
    }

    /// A client's certificates.
    fn verify_client(&self, certs: ClientCerts<'_>) -> Result<(), Error> {
        let _ = certs;
        Err(does_not_check("clients"))
    }

    /// The DER subject names a server puts in its CertificateRequest (empty: any CA).
    fn root_hint_subjects(&self) -> Vec<Vec<u8>> {
        Vec::new()
    }
}

/// The refusal of a [`CertVerifier`] method its implementor left out.
fn does_not_check(side: &str) -> Error {
    Error::InvalidCertificate(CertificateError::Other(format!(
        "this verifier does not check {side}"
    )))
}

/// The default verifier: chains to the roots with rustls-webpki and the SM2 algorithms
/// (default ID), validity, revocation against the store's CRLs, extended key usage
/// (serverAuth/clientAuth when present), the host name on the sign certificate as
/// [`NameCheck`] says, the two leaves' key usages and their common issuer.
///
/// The roots are any [`Borrow<RootCertStore>`]: the store itself (the default), an
/// `Arc` of it shared with other verifiers, or a reference for a check on the spot.
#[derive(Clone, Debug)]
pub struct WebPkiVerifier<R = RootCertStore> {
    roots: R,
    name_check: NameCheck,
    strict_key_usage: bool,
}

impl<R: Borrow<RootCertStore>> WebPkiVerifier<R> {
    /// A verifier trusting `roots` (with their CRLs), subjectAltName name checks and
    /// strict key usages.
    pub fn new(roots: R) -> Self {
        WebPkiVerifier {
            roots,
            name_check: NameCheck::SubjectAltName,
            strict_key_usage: true,
        }
    }

    /// How the server name is checked.
    pub fn with_name_check(mut self, check: NameCheck) -> Self {
        self.name_check = check;
        self
    }

    /// Whether the leaves' key usages are checked (off only for legacy PKIs).
    pub fn with_strict_key_usage(mut self, strict: bool) -> Self {
        self.strict_key_usage = strict;
        self
    }

    /// Verifies the sign leaf and, when given, the encryption leaf (chains, name, key
    /// usages, common issuer).
    fn verify_leaves(
        &self,
        certs: ClientCerts<'_>,
        server_name: Option<&ServerName<'_>>,
        usage: webpki::KeyUsage,
    ) -> Result<(), Error> {
        let fail = |e| Error::InvalidCertificate(e);
        let roots = self.roots.borrow();
        let anchors: Vec<_> = roots
            .roots
            .iter()
            .filter_map(|c| webpki::anchor_from_trusted_cert(c).ok())
            .collect();
        let crls: Vec<&webpki::CertRevocationList<'_>> = roots.crls.iter().map(|c| &**c).collect();
        let revocation = webpki::RevocationOptionsBuilder::new(&crls).ok().map(|b| {
            b.with_depth(webpki::RevocationCheckDepth::Chain)
                .with_status_policy(webpki::UnknownStatusPolicy::Deny)
                .with_expiration_policy(webpki::ExpirationPolicy::Enforce)
                .build()
        });
        let (sign_der, enc_der) = (certs.sign, certs.enc);
        for (i, leaf) in core::iter::once(sign_der).chain(enc_der).enumerate() {
            let ee = webpki::EndEntityCert::try_from(leaf).map_err(|e| fail(map_webpki(e)))?;
            ee.verify_for_usage(
                ALGS,
                &anchors,
                certs.intermediates,
                certs.now,
                usage,
                revocation,
                None,
            )
            .map_err(|e| fail(map_webpki(e)))?;
            if i == 0
                && let Some(name) = server_name
            {
                check_name(&ee, leaf, name, self.name_check).map_err(fail)?;
            }
        }
        let sign = parse_leaf(sign_der).map_err(fail)?;
        let enc = enc_der.map(|d| parse_leaf(d)).transpose().map_err(fail)?;
        if enc.as_ref().is_some_and(|enc| sign.issuer != enc.issuer) {
            return Err(fail(CertificateError::IssuerMismatch));
        }
        if self.strict_key_usage {
            let sign_ok = sign
                .key_usage
                .as_ref()
                .is_none_or(|ku| ku.digital_signature());
            let enc_ok = enc.as_ref().is_none_or(|enc| {
                enc.key_usage.as_ref().is_none_or(|ku| {
                    ku.key_encipherment() || ku.key_agreement() || ku.data_encipherment()
                })
            });
            if !sign_ok || !enc_ok {
                return Err(fail(CertificateError::BadKeyUsage));
            }
        }
        Ok(())
    }
}

impl<R: Borrow<RootCertStore> + core::fmt::Debug + Send + Sync> CertVerifier for WebPkiVerifier<R> {
    fn verify_server(
        &self,
        certs: ServerCerts<'_>,
        server_name: &ServerName<'_>,
    ) -> Result<(), Error> {
        self.verify_leaves(
            certs.into(),
            Some(server_name),
            webpki::KeyUsage::server_auth(),
        )
    }

    fn verify_client(&self, certs: ClientCerts<'_>) -> Result<(), Error> {
        self.verify_leaves(certs, None, webpki::KeyUsage::client_auth())
    }

    fn root_hint_subjects(&self) -> Vec<Vec<u8>> {
        self.roots.borrow().subjects()
    }
}

/// The SM2 public key (SEC1) of a leaf.
pub(crate) fn leaf_public_key(der: &[u8]) -> Result<Vec<u8>, Error> {
    parse_leaf(der)
        .map(|l| l.public)
        .map_err(Error::InvalidCertificate)
}

/// Whether a client's list is one chain (a sign leaf, then its CA certificates: what
/// GmSSL's client sends in the ECC suites) rather than TLCP's two leaves: one certificate,
/// or a second one that is a CA certificate naming the first's issuer.
pub(crate) fn is_single_chain(certs: &[CertificateDer<'_>]) -> bool {
    use x509_cert::ext::pkix::BasicConstraints;
    let [first, second, ..] = certs else {
        return certs.len() == 1;
    };
    let (Ok(first), Ok(second)) = (
        Certificate::from_der(first.as_ref()),
        Certificate::from_der(second.as_ref()),
    ) else {
        return false;
    };
    let is_ca = matches!(
        second.tbs_certificate().get_extension::<BasicConstraints>(),
        Ok(Some((_, bc))) if bc.ca
    );
    is_ca && first.tbs_certificate().issuer() == second.tbs_certificate().subject()
}

/// How a client checks the server's name against its sign certificate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameCheck {
    /// The subjectAltName entries, as browsers and rustls do (RFC 6125); the default.
    #[default]
    SubjectAltName,
    /// The subjectAltName entries; when the certificate has no subjectAltName extension at
    /// all, the subject's commonName, compared exactly (ASCII case ignored, no wildcards)
    /// with a DNS server name — what deployed SM PKIs that predate SANs need (RFC 6125
    /// §6.4.4 allows it only then), and what OpenSSL and Tongsuo accept.
    CommonNameFallback,
    /// No name check: any certificate that chains to the roots is accepted for any name.
    /// Only for a pinned private PKI whose leaves carry no host name (Tongsuo's own test
    /// certificates, "CN = server sign"); anyone with a leaf of that PKI can impersonate
    /// the server.
    DangerousNone,
}
