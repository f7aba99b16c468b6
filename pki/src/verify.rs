//! Chain verification (a subset of RFC 5280 §6): SM2-with-SM3 signatures over Z_A (default
//! ID or a chosen one), validity at a given time, basicConstraints and pathLenConstraint,
//! keyUsage / extKeyUsage per purpose, name constraints (dNSName, rfc822Name and
//! emailAddress, iPAddress, URI host, directoryName), host-name match, and
//! refusal of unknown critical extensions. Path building tries every candidate issuer
//! (subject = issuer name, key identifiers agreeing when both present), depth ≤ 8.
//!
//! Revocation ([`Options::with_crls`]; none given: no revocation check) follows one policy,
//! the one `shangmi-tlcp` and `shangmi-rustls` apply through webpki too: every certificate
//! of the path below the trust anchor is looked up in the CRLs of its issuer (those that
//! name it: issuer name, key identifiers agreeing), each of which must be signed by the
//! issuer's key ([`VerifyError::CrlBadSignature`]; its keyUsage, if any, with cRLSign) and
//! not past its nextUpdate ([`VerifyError::CrlExpired`]: an old CRL must not hide a later
//! revocation); a listed serial is [`VerifyError::Revoked`] whatever the reason
//! (certificateHold included); a certificate whose issuer has no CRL among those given is
//! [`VerifyError::RevocationStatusUnknown`] unless [`RevocationPolicy::allow_unknown`].

use crate::Error;
use crate::oid;

pub use crate::sig::{check_raw_signature, check_signature, sm2_public_key};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use der::Encode;
use der::asn1::BitString;
use x509_cert::Certificate;
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages,
    NameConstraints, SubjectAltName,
};

/// The longest path tried (leaf, intermediates and root).
pub const MAX_DEPTH: usize = 8;

/// The most signature checks one path search makes ([`VerifyError::ChainTooLong`] beyond).
pub const MAX_SIGNATURE_CHECKS: u32 = 64;

/// Why a chain does not verify. `depth` counts from the leaf (0) towards the root.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// The certificate at `depth` expired before the verification time.
    Expired {
        /// Position in the chain (0 = leaf).
        depth: usize,
    },
    /// The certificate at `depth` is not valid yet.
    NotYetValid {
        /// Position in the chain.
        depth: usize,
    },
    /// No trusted root issues the chain (no certificate names the issuer).
    UnknownIssuer,
    /// A signature in the chain does not verify.
    BadSignature {
        /// Position of the signed certificate.
        depth: usize,
    },
    /// The signature algorithm is not SM2-with-SM3 or the key is not an SM2 key.
    UnsupportedAlgorithm {
        /// Position in the chain.
        depth: usize,
    },
    /// An issuing certificate is not a CA (no basicConstraints CA:true, or no keyCertSign).
    NotCa {
        /// Position in the chain.
        depth: usize,
    },
    /// A CA's pathLenConstraint is exceeded.
    PathLenExceeded {
        /// Position of the constraining CA.
        depth: usize,
    },
    /// The leaf's keyUsage does not allow the purpose.
    WrongKeyUsage,
    /// The leaf's extendedKeyUsage does not allow the purpose.
    WrongExtendedKeyUsage,
    /// The leaf names none of the host names asked for.
    HostMismatch,
    /// A name in the leaf, or in a CA certificate below the constraining one, violates
    /// that CA's name constraints.
    NameConstraintViolation {
        /// Position of the constraining CA.
        depth: usize,
    },
    /// A critical extension this verifier does not process.
    UnhandledCriticalExtension {
        /// Position in the chain.
        depth: usize,
    },
    /// A certificate or extension does not parse.
    Malformed {
        /// Position in the chain.
        depth: usize,
    },
    /// The path is longer than [`MAX_DEPTH`], or finding one took more than
    /// [`MAX_SIGNATURE_CHECKS`] signature checks.
    ChainTooLong,
    /// The certificate at `depth` is listed in its issuer's CRL.
    Revoked {
        /// Position in the chain.
        depth: usize,
        /// The entry's reason code, if it has one.
        reason: Option<crate::crl::Reason>,
    },
    /// CRLs were given, but none of them is from the issuer of the certificate at `depth`.
    RevocationStatusUnknown {
        /// Position in the chain.
        depth: usize,
    },
    /// The CRL of the issuer of the certificate at `depth` is past its nextUpdate.
    CrlExpired {
        /// Position in the chain.
        depth: usize,
    },
    /// The CRL of the issuer of the certificate at `depth` is not signed by the issuer's
    /// key, or the issuer's keyUsage does not allow cRLSign.
    CrlBadSignature {
        /// Position in the chain.
        depth: usize,
    },
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::Expired { depth } => write!(f, "certificate has expired (depth {depth})"),
            VerifyError::NotYetValid { depth } => {
                write!(f, "certificate is not yet valid (depth {depth})")
            }
            VerifyError::UnknownIssuer => {
                f.write_str("unable to get issuer certificate (unknown issuer)")
            }
            VerifyError::BadSignature { depth } => {
                write!(f, "certificate signature failure (depth {depth})")
            }
            VerifyError::UnsupportedAlgorithm { depth } => {
                write!(f, "unsupported signature or key algorithm (depth {depth})")
            }
            VerifyError::NotCa { depth } => write!(f, "issuer is not a CA (depth {depth})"),
            VerifyError::PathLenExceeded { depth } => {
                write!(f, "path length constraint exceeded (depth {depth})")
            }
            VerifyError::WrongKeyUsage => f.write_str("key usage does not permit the purpose"),
            VerifyError::WrongExtendedKeyUsage => {
                f.write_str("extended key usage does not permit the purpose")
            }
            VerifyError::HostMismatch => f.write_str("host name mismatch"),
            VerifyError::NameConstraintViolation { depth } => {
                write!(f, "name constraints violated (depth {depth})")
            }
            VerifyError::UnhandledCriticalExtension { depth } => {
                write!(f, "unhandled critical extension (depth {depth})")
            }
            VerifyError::Malformed { depth } => write!(f, "malformed certificate (depth {depth})"),
            VerifyError::ChainTooLong => f.write_str("certificate chain too long"),
            VerifyError::Revoked { depth, reason } => match reason {
                Some(r) => write!(f, "certificate revoked ({r:?}) (depth {depth})"),
                None => write!(f, "certificate revoked (depth {depth})"),
            },
            VerifyError::RevocationStatusUnknown { depth } => {
                write!(f, "unable to get certificate CRL (depth {depth})")
            }
            VerifyError::CrlExpired { depth } => write!(f, "CRL has expired (depth {depth})"),
            VerifyError::CrlBadSignature { depth } => {
                write!(f, "CRL signature failure (depth {depth})")
            }
        }
    }
}

impl core::error::Error for VerifyError {}

/// What the leaf must be good for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// Anything: no keyUsage / extKeyUsage check.
    Any,
    /// TLS server: digitalSignature (or a key-transport usage), serverAuth when an EKU is present.
    TlsServer,
    /// TLS client: digitalSignature, clientAuth when an EKU is present.
    TlsClient,
    /// TLCP signing certificate: digitalSignature.
    TlcpSign,
    /// TLCP encryption certificate: keyEncipherment or keyAgreement.
    TlcpEnc,
    /// A CMS signer: digitalSignature or nonRepudiation.
    CmsSign,
}

impl Purpose {
    /// The CLI spellings: `any`, `tls-server`, `tls-client`, `tlcp-sign`, `tlcp-enc`,
    /// `cms-sign`.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "any" => Purpose::Any,
            "tls-server" => Purpose::TlsServer,
            "tls-client" => Purpose::TlsClient,
            "tlcp-sign" => Purpose::TlcpSign,
            "tlcp-enc" => Purpose::TlcpEnc,
            "cms-sign" => Purpose::CmsSign,
            _ => return None,
        })
    }
}

/// Verification parameters.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// The time to check validity at (unix seconds).
    pub time: u64,
    /// What the leaf must be good for.
    pub purpose: Purpose,
    /// A host name the leaf must name (SAN dNSName, or CN without a SAN extension).
    pub host: Option<&'a str>,
    /// The distinguishing ID of the signatures (default `1234567812345678`).
    pub id: &'a [u8],
    /// CRLs to check revocation against (empty: no revocation check).
    pub crls: &'a [crate::crl::Crl],
    /// How the CRLs are applied.
    pub revocation: RevocationPolicy,
}

/// Which certificates revocation checking covers (see the module documentation); the
/// default checks the whole path and refuses a certificate whose issuer has no CRL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RevocationPolicy {
    /// Check the leaf only, not the intermediate CA certificates.
    pub end_entity_only: bool,
    /// Accept a certificate whose issuer has no CRL among those given.
    pub allow_unknown: bool,
}

impl<'a> Options<'a> {
    /// Now, default ID, no host.
    pub fn now(purpose: Purpose) -> Self {
        Options::at(crate::unix_now(), purpose)
    }

    /// At `time` (unix seconds), default ID, no host.
    pub fn at(time: u64, purpose: Purpose) -> Self {
        Options {
            time,
            purpose,
            host: None,
            id: shangmi_sm2::DEFAULT_ID,
            crls: &[],
            revocation: RevocationPolicy::default(),
        }
    }

    /// With CRLs to check the path against (the default [`RevocationPolicy`]).
    pub fn with_crls(mut self, crls: &'a [crate::crl::Crl]) -> Self {
        self.crls = crls;
        self
    }

    /// With another revocation policy.
    pub fn with_revocation(mut self, policy: RevocationPolicy) -> Self {
        self.revocation = policy;
        self
    }

    /// With a host name to match.
    pub fn with_host(mut self, host: &'a str) -> Self {
        self.host = Some(host);
        self
    }

    /// With another distinguishing ID.
    pub fn with_id(mut self, id: &'a [u8]) -> Self {
        self.id = id;
        self
    }
}

fn bits(b: &BitString) -> Option<&[u8]> {
    b.as_bytes()
}

/// Checks that `issuer`'s key signed `cert`.
fn signed_by(
    cert: &Certificate,
    issuer: &Certificate,
    id: &[u8],
    depth: usize,
) -> Result<(), VerifyError> {
    let public = sm2_public_key(issuer.tbs_certificate().subject_public_key_info())
        .ok_or(VerifyError::UnsupportedAlgorithm { depth: depth + 1 })?;
    let tbs = cert
        .tbs_certificate()
        .to_der()
        .map_err(|_| VerifyError::Malformed { depth })?;
    let sig = bits(cert.signature()).ok_or(VerifyError::BadSignature { depth })?;
    if cert.signature_algorithm() != cert.tbs_certificate().signature() {
        return Err(VerifyError::Malformed { depth });
    }
    check_signature(&public, id, &tbs, cert.signature_algorithm(), sig).map_err(|e| match e {
        Error::UnsupportedAlgorithm => VerifyError::UnsupportedAlgorithm { depth },
        _ => VerifyError::BadSignature { depth },
    })
}

/// Looks the certificate at `depth`, issued by `issuer`, up in the CRLs of `issuer`.
fn check_revocation(
    cert: &Certificate,
    issuer: &Certificate,
    depth: usize,
    opts: &Options<'_>,
) -> Result<(), VerifyError> {
    if opts.crls.is_empty() || (opts.revocation.end_entity_only && depth > 0) {
        return Ok(());
    }
    let mut found = false;
    for crl in opts.crls.iter().filter(|c| c.names_issuer(issuer)) {
        found = true;
        crl.verify_signature_with_id(issuer, opts.id)
            .map_err(|_| VerifyError::CrlBadSignature { depth })?;
        if crl.is_expired(opts.time) {
            return Err(VerifyError::CrlExpired { depth });
        }
        if let Some(r) = crl.find(cert.tbs_certificate().serial_number().as_bytes()) {
            return Err(VerifyError::Revoked {
                depth,
                reason: r.reason,
            });
        }
    }
    if found || opts.revocation.allow_unknown {
        Ok(())
    } else {
        Err(VerifyError::RevocationStatusUnknown { depth })
    }
}

fn ext<T: der::DecodeOwned + const_oid::AssociatedOid>(
    cert: &Certificate,
    depth: usize,
) -> Result<Option<T>, VerifyError> {
    let exts = match cert.tbs_certificate().extensions() {
        Some(e) => e,
        None => return Ok(None),
    };
    let mut found = None;
    for e in exts.iter().filter(|e| e.extn_id == T::OID) {
        if found.is_some() {
            // RFC 5280 §4.2: an extension appears at most once
            return Err(VerifyError::Malformed { depth });
        }
        found = Some(
            T::from_der(e.extn_value.as_bytes()).map_err(|_| VerifyError::Malformed { depth })?,
        );
    }
    Ok(found)
}

const HANDLED: [const_oid::ObjectIdentifier; 7] = [
    oid::BASIC_CONSTRAINTS,
    oid::KEY_USAGE,
    oid::EXT_KEY_USAGE,
    oid::SUBJECT_ALT_NAME,
    oid::NAME_CONSTRAINTS,
    oid::SUBJECT_KEY_IDENTIFIER,
    oid::AUTHORITY_KEY_IDENTIFIER,
];

fn check_critical(cert: &Certificate, depth: usize) -> Result<(), VerifyError> {
    for e in cert.tbs_certificate().extensions().into_iter().flatten() {
        if e.critical && !HANDLED.contains(&e.extn_id) {
            return Err(VerifyError::UnhandledCriticalExtension { depth });
        }
    }
    Ok(())
}

fn check_time(cert: &Certificate, t: u64, depth: usize) -> Result<(), VerifyError> {
    let v = cert.tbs_certificate().validity();
    if t < v.not_before.to_unix_duration().as_secs() {
        return Err(VerifyError::NotYetValid { depth });
    }
    if t > v.not_after.to_unix_duration().as_secs() {
        return Err(VerifyError::Expired { depth });
    }
    Ok(())
}

fn is_self_issued(cert: &Certificate) -> bool {
    cert.tbs_certificate().subject() == cert.tbs_certificate().issuer()
}

/// Could `issuer` have issued `cert` (names equal; key identifiers agree when both present)?
fn may_issue(cert: &Certificate, issuer: &Certificate) -> bool {
    if cert.tbs_certificate().issuer() != issuer.tbs_certificate().subject() {
        return false;
    }
    let aki = ext::<AuthorityKeyIdentifier>(cert, 0)
        .ok()
        .flatten()
        .and_then(|a| a.key_identifier);
    let ski = crate::issue::subject_key_identifier(issuer);
    match (aki, ski) {
        (Some(a), Some(s)) => a == s,
        _ => true,
    }
}

/// Checks that the CA certificate at `depth` may issue, with `below` CA certificates
/// (non-self-issued intermediates) between it and the leaf.
fn check_ca(
    cert: &Certificate,
    depth: usize,
    below: usize,
    is_root: bool,
) -> Result<(), VerifyError> {
    let bc = ext::<BasicConstraints>(cert, depth)?;
    match bc {
        Some(bc) if bc.ca => {
            if let Some(max) = bc.path_len_constraint
                && below > usize::from(max)
            {
                return Err(VerifyError::PathLenExceeded { depth });
            }
        }
        // a version 1 trust anchor has no extensions at all (RFC 5280 §6.1 takes the
        // anchor's key and name only)
        None if is_root && cert.tbs_certificate().extensions().is_none() => {}
        _ => return Err(VerifyError::NotCa { depth }),
    }
    if let Some(ku) = ext::<KeyUsage>(cert, depth)?
        && !ku.key_cert_sign()
    {
        return Err(VerifyError::NotCa { depth });
    }
    Ok(())
}

fn check_purpose(leaf: &Certificate, purpose: Purpose) -> Result<(), VerifyError> {
    let ku = ext::<KeyUsage>(leaf, 0)?;
    let has = |flags: &[KeyUsages]| match &ku {
        None => true,
        Some(k) => flags.iter().any(|f| k.0.contains(*f)),
    };
    let ku_ok = match purpose {
        Purpose::Any => true,
        Purpose::TlsServer => has(&[
            KeyUsages::DigitalSignature,
            KeyUsages::KeyEncipherment,
            KeyUsages::KeyAgreement,
        ]),
        Purpose::TlsClient | Purpose::TlcpSign => has(&[KeyUsages::DigitalSignature]),
        Purpose::TlcpEnc => has(&[KeyUsages::KeyEncipherment, KeyUsages::KeyAgreement]),
        Purpose::CmsSign => has(&[KeyUsages::DigitalSignature, KeyUsages::NonRepudiation]),
    };
    if !ku_ok {
        return Err(VerifyError::WrongKeyUsage);
    }
    let wanted = match purpose {
        Purpose::TlsServer => Some(oid::KP_SERVER_AUTH),
        Purpose::TlsClient => Some(oid::KP_CLIENT_AUTH),
        _ => None,
    };
    if let (Some(w), Some(eku)) = (wanted, ext::<ExtendedKeyUsage>(leaf, 0)?)
        && !eku.0.iter().any(|o| *o == w || *o == oid::ANY_EKU)
    {
        return Err(VerifyError::WrongExtendedKeyUsage);
    }
    Ok(())
}

/// The leaf's DNS names: SAN dNSNames, or the CN when there is no SAN extension.
fn dns_names(leaf: &Certificate) -> Result<Vec<String>, VerifyError> {
    match ext::<SubjectAltName>(leaf, 0)? {
        Some(san) => Ok(san
            .0
            .iter()
            .filter_map(|n| match n {
                GeneralName::DnsName(d) => Some(String::from(d.as_str())),
                _ => None,
            })
            .collect()),
        None => Ok(crate::name::common_name(leaf.tbs_certificate().subject())
            .into_iter()
            .collect()),
    }
}

/// Whether `pattern` (a certificate's DNS name, `*.` allowed as the whole first label)
/// matches `host` (ASCII case-insensitive, one trailing dot ignored).
pub fn host_matches(pattern: &str, host: &str) -> bool {
    let host = host.strip_suffix('.').unwrap_or(host);
    let pattern = pattern.strip_suffix('.').unwrap_or(pattern);
    if let Some(rest) = pattern.strip_prefix("*.") {
        match host.split_once('.') {
            Some((first, tail)) => {
                !first.is_empty() && rest.contains('.') && tail.eq_ignore_ascii_case(rest)
            }
            None => false,
        }
    } else {
        pattern.eq_ignore_ascii_case(host)
    }
}

/// Whether `name` is within the dNSName subtree `base` (RFC 5280 §4.2.1.10: adding labels
/// to the left; a leading dot means a strict subdomain).
fn in_subtree(name: &str, base: &str) -> bool {
    let name = name.trim_start_matches("*.");
    if base.is_empty() {
        return true;
    }
    if let Some(stripped) = base.strip_prefix('.') {
        return name.len() > base.len()
            && name
                .to_ascii_lowercase()
                .ends_with(&base.to_ascii_lowercase())
            && !stripped.is_empty();
    }
    if name.eq_ignore_ascii_case(base) {
        return true;
    }
    name.len() > base.len() + 1
        && name
            .to_ascii_lowercase()
            .ends_with(&base.to_ascii_lowercase())
        && name.as_bytes()[name.len() - base.len() - 1] == b'.'
}

/// A name of the leaf that name constraints apply to (RFC 5280 §4.2.1.10).
enum LeafName {
    Dns(String),
    Email(String),
    Ip(Vec<u8>),
    /// The host of a URI (`None` when the URI has no authority).
    Uri(Option<String>),
    Dir(x509_cert::name::Name),
}

/// emailAddress (PKCS#9), which RFC 5280 §4.2.1.10 puts under rfc822Name constraints.
const EMAIL_ADDRESS: const_oid::ObjectIdentifier =
    const_oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.1");

/// The host of a URI: after `scheme://`, without user information and port.
fn uri_host(uri: &str) -> Option<String> {
    let (_, rest) = uri.split_once("://")?;
    let auth = rest.split(['/', '?', '#']).next()?;
    let host = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host.split(':').next()?
    };
    (!host.is_empty()).then(|| String::from(host))
}

/// Every name of the certificate at `depth` in the path that constraints apply to (RFC
/// 5280 §6.1.3 (b), (c): the leaf and every CA certificate below the constraining one):
/// SAN dNSName (for the leaf also the CN when it has no SAN extension; a CA's CN is not a
/// host name), rfc822Name and emailAddress, iPAddress, URI hosts, and the subject DN.
fn leaf_names(leaf: &Certificate, depth: usize) -> Result<Vec<LeafName>, VerifyError> {
    let mut out: Vec<LeafName> = if depth == 0 {
        dns_names(leaf)?.into_iter().map(LeafName::Dns).collect()
    } else {
        Vec::new()
    };
    if let Some(san) = ext::<SubjectAltName>(leaf, depth)? {
        for n in &san.0 {
            match n {
                GeneralName::DnsName(d) if depth > 0 => {
                    out.push(LeafName::Dns(String::from(d.as_str())))
                }
                GeneralName::Rfc822Name(e) => out.push(LeafName::Email(String::from(e.as_str()))),
                GeneralName::IpAddress(ip) => out.push(LeafName::Ip(ip.as_bytes().to_vec())),
                GeneralName::UniformResourceIdentifier(u) => {
                    out.push(LeafName::Uri(uri_host(u.as_str())))
                }
                GeneralName::DirectoryName(d) => out.push(LeafName::Dir(d.clone())),
                _ => {}
            }
        }
    }
    let subject = leaf.tbs_certificate().subject();
    for a in subject.iter().filter(|a| a.oid == EMAIL_ADDRESS) {
        if let Some(e) = crate::name::attribute_text(&a.value) {
            out.push(LeafName::Email(e));
        }
    }
    if !subject.is_empty() {
        out.push(LeafName::Dir(subject.clone()));
    }
    Ok(out)
}

/// rfc822Name constraint (RFC 5280 §4.2.1.10): a full mailbox, a host (every mailbox on
/// it), or `.domain` (mailboxes on its subdomains).
fn email_in_subtree(email: &str, base: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return false;
    };
    if let Some((blocal, bdomain)) = base.rsplit_once('@') {
        return local == blocal && domain.eq_ignore_ascii_case(bdomain);
    }
    if base.starts_with('.') {
        return domain.len() > base.len()
            && domain
                .to_ascii_lowercase()
                .ends_with(&base.to_ascii_lowercase());
    }
    domain.eq_ignore_ascii_case(base)
}

/// iPAddress constraint: address and mask of the same family (4 + 4 or 16 + 16 bytes).
fn ip_in_subtree(ip: &[u8], base: &[u8]) -> bool {
    if base.len() != 2 * ip.len() {
        return false;
    }
    let (addr, mask) = base.split_at(ip.len());
    ip.iter()
        .zip(addr)
        .zip(mask)
        .all(|((i, a), m)| i & m == a & m)
}

/// URI constraint: the host equal to `base`, or a subdomain of `.domain`.
fn uri_in_subtree(host: Option<&str>, base: &str) -> bool {
    let Some(host) = host else {
        return false;
    };
    if base.starts_with('.') {
        host.len() > base.len()
            && host
                .to_ascii_lowercase()
                .ends_with(&base.to_ascii_lowercase())
    } else {
        host.eq_ignore_ascii_case(base)
    }
}

/// directoryName constraint: the base's RDNs begin the name.
fn dn_in_subtree(name: &x509_cert::name::Name, base: &x509_cert::name::Name) -> bool {
    base.len() <= name.len() && name.iter_rdn().zip(base.iter_rdn()).all(|(a, b)| a == b)
}

/// Whether `name` falls in the subtree `base`; `None` when they are of different types.
fn within(name: &LeafName, base: &GeneralName) -> Option<bool> {
    Some(match (name, base) {
        (LeafName::Dns(n), GeneralName::DnsName(b)) => in_subtree(n, b.as_str()),
        (LeafName::Email(n), GeneralName::Rfc822Name(b)) => email_in_subtree(n, b.as_str()),
        (LeafName::Ip(n), GeneralName::IpAddress(b)) => ip_in_subtree(n, b.as_bytes()),
        (LeafName::Uri(n), GeneralName::UniformResourceIdentifier(b)) => {
            uri_in_subtree(n.as_deref(), b.as_str())
        }
        (LeafName::Dir(n), GeneralName::DirectoryName(b)) => dn_in_subtree(n, b),
        _ => return None,
    })
}

fn check_name_constraints(
    ca: &Certificate,
    names: &[LeafName],
    depth: usize,
) -> Result<(), VerifyError> {
    let nc = match ext::<NameConstraints>(ca, depth)? {
        Some(nc) => nc,
        None => return Ok(()),
    };
    let permitted = nc.permitted_subtrees.as_deref().unwrap_or(&[]);
    let excluded = nc.excluded_subtrees.as_deref().unwrap_or(&[]);
    for n in names {
        if excluded.iter().any(|s| within(n, &s.base) == Some(true)) {
            return Err(VerifyError::NameConstraintViolation { depth });
        }
        // permitted subtrees of the name's type: the name must be in one of them
        let mut of_type = permitted
            .iter()
            .filter_map(|s| within(n, &s.base))
            .peekable();
        if of_type.peek().is_some() && !of_type.any(|b| b) {
            return Err(VerifyError::NameConstraintViolation { depth });
        }
    }
    Ok(())
}

/// How bad an error is for path building: an error deeper into a path says more about
/// why it failed than "unknown issuer".
fn rank(e: &VerifyError) -> u8 {
    match e {
        VerifyError::UnknownIssuer => 0,
        VerifyError::ChainTooLong => 1,
        _ => 2,
    }
}

fn build<'c>(
    path: &mut Vec<&'c Certificate>,
    untrusted: &'c [Certificate],
    roots: &'c [Certificate],
    opts: &Options<'_>,
    budget: &mut u32,
) -> Result<(), VerifyError> {
    let depth = path.len() - 1;
    let cert = path[depth];
    // A trusted certificate ends the path (the leaf itself may be a trust anchor).
    if roots.iter().any(|r| r == cert) {
        return Ok(());
    }
    if path.len() >= MAX_DEPTH {
        return Err(VerifyError::ChainTooLong);
    }
    let mut best = VerifyError::UnknownIssuer;
    for candidate in roots.iter().chain(untrusted.iter()) {
        if path.contains(&candidate) || !may_issue(cert, candidate) {
            continue;
        }
        let is_root = roots.iter().any(|r| r == candidate);
        // Many certificates with one name could make path building exponential: every
        // signature check spends from a fixed budget.
        if *budget == 0 {
            return Err(VerifyError::ChainTooLong);
        }
        *budget -= 1;
        let result = (|| {
            signed_by(cert, candidate, opts.id, depth)?;
            check_revocation(cert, candidate, depth, opts)?;
            check_time(candidate, opts.time, depth + 1)?;
            check_critical(candidate, depth + 1)?;
            let below = path[1..].iter().filter(|c| !is_self_issued(c)).count();
            check_ca(candidate, depth + 1, below, is_root)?;
            // The leaf's names, and those of every CA certificate below `candidate` that
            // is not self-issued.
            for (i, c) in path.iter().enumerate() {
                if i == 0 || !is_self_issued(c) {
                    check_name_constraints(candidate, &leaf_names(c, i)?, depth + 1)?;
                }
            }
            path.push(candidate);
            let r = build(path, untrusted, roots, opts, budget);
            if r.is_err() {
                path.pop();
            }
            r
        })();
        match result {
            Ok(()) => return Ok(()),
            Err(e) => {
                if rank(&e) >= rank(&best) {
                    best = e;
                }
            }
        }
    }
    Err(best)
}

/// Verifies `leaf` up to one of `roots` through certificates of `untrusted`; returns the
/// path (leaf first, root last).
pub fn verify_chain(
    leaf: &Certificate,
    untrusted: &[Certificate],
    roots: &[Certificate],
    opts: &Options<'_>,
) -> Result<Vec<Certificate>, VerifyError> {
    check_time(leaf, opts.time, 0)?;
    check_critical(leaf, 0)?;
    check_purpose(leaf, opts.purpose)?;
    if let Some(host) = opts.host {
        let names = dns_names(leaf)?;
        if !names.iter().any(|n| host_matches(n, host)) {
            return Err(VerifyError::HostMismatch);
        }
    }
    let mut path = alloc::vec![leaf];
    build(&mut path, untrusted, roots, opts, &mut {
        MAX_SIGNATURE_CHECKS
    })?;
    Ok(path.into_iter().cloned().collect())
}

#[cfg(test)]
mod tests {
    use super::{email_in_subtree, ip_in_subtree, uri_host, uri_in_subtree};

    /// URI constraints apply to the host (RFC 5280 §4.2.1.10): equal to the base, or a
    /// subdomain of a `.domain` base; a URI without an authority matches nothing.
    #[test]
    fn uri_hosts_and_subtrees() {
        assert_eq!(
            uri_host("https://user@Host.example.cn:8443/p?q#f").as_deref(),
            Some("Host.example.cn")
        );
        assert_eq!(
            uri_host("ldap://[2001:db8::1]:389/").as_deref(),
            Some("2001:db8::1")
        );
        assert_eq!(uri_host("urn:isbn:123"), None);
        assert_eq!(uri_host("file:///etc"), None);
        assert!(uri_in_subtree(Some("host.example.cn"), "HOST.example.cn"));
        assert!(!uri_in_subtree(
            Some("a.host.example.cn"),
            "host.example.cn"
        ));
        assert!(uri_in_subtree(Some("a.example.cn"), ".example.cn"));
        assert!(!uri_in_subtree(Some("example.cn"), ".example.cn"));
        assert!(!uri_in_subtree(Some("badexample.cn"), ".example.cn"));
        assert!(!uri_in_subtree(None, ".example.cn"));
        // malformed inputs: no '@', wrong-length IP bases
        assert!(!email_in_subtree("no-at-sign", "example.cn"));
        assert!(!ip_in_subtree(&[10, 0, 0, 1], &[10, 0, 0, 0, 255]));
        assert!(!ip_in_subtree(&[], &[1]));
    }
}
