//! Certificate revocation lists (RFC 5280 §5): issuing X.509 v2 CRLs signed with
//! SM2-with-SM3 (CRL number and authority key identifier, entries with an optional reason
//! code), parsing them strictly (DER or PEM, canonical DER only), checking their signature
//! against the issuer certificate, and looking serial numbers up.
//!
//! The parser refuses what it cannot apply correctly rather than half-apply it: v1 CRLs
//! (no version field; webpki refuses them as well), delta CRLs, partitioned CRLs (an
//! issuingDistributionPoint), indirect CRLs (a certificateIssuer entry extension), and any
//! other critical extension. The revocation policy of chain verification is described in
//! [`crate::verify`].
//!
//! ```
//! use shangmi_pki::{crl, issue, name::parse_dn};
//! let ca_key = shangmi_pki::generate_key().unwrap();
//! let ca = issue::self_signed(&ca_key, &issue::CertParams::new(
//!     parse_dn("/CN=Example CA").unwrap(), issue::Profile::Ca { path_len: None }, 365)).unwrap();
//! let mut params = crl::CrlParams::new(7);
//! params.revoked.push(crl::Revoked::now(&[0x01, 0x02], Some(crl::Reason::KeyCompromise)));
//! let list = crl::issue_crl(&ca, &ca_key, &params).unwrap();
//! let parsed = crl::Crl::from_der(list.to_der()).unwrap();
//! parsed.verify_signature(&ca).unwrap();
//! assert!(parsed.find(&[0x01, 0x02]).is_some());
//! ```

use crate::Error;
use alloc::string::String;
use alloc::vec::Vec;
use const_oid::ObjectIdentifier as Oid;
use const_oid::db::rfc5280::{
    ID_CE_AUTHORITY_KEY_IDENTIFIER, ID_CE_CERTIFICATE_ISSUER, ID_CE_CRL_NUMBER, ID_CE_CRL_REASONS,
    ID_CE_DELTA_CRL_INDICATOR, ID_CE_INVALIDITY_DATE, ID_CE_ISSUING_DISTRIBUTION_POINT,
};
use der::asn1::{OctetString, Uint};
use der::{Decode, Encode};
use spki::SubjectPublicKeyInfoRef;
use x509_cert::Certificate;
use x509_cert::Version;
use x509_cert::crl::{CertificateList, RevokedCert, TbsCertList};
use x509_cert::ext::pkix::{AuthorityKeyIdentifier, CrlNumber, KeyUsage, SubjectKeyIdentifier};
use x509_cert::ext::{Extension, ToExtension};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;

pub use x509_cert::ext::pkix::CrlReason as Reason;

/// The PEM label of a CRL.
pub const PEM_LABEL: &str = "X509 CRL";

/// One revoked certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Revoked {
    /// Its serial number: big-endian magnitude without leading zeros (as
    /// [`SerialNumber::as_bytes`] gives it for a positive serial).
    pub serial: Vec<u8>,
    /// When it was revoked, unix seconds.
    pub date: u64,
    /// The reason code, if the entry has one.
    pub reason: Option<Reason>,
}

impl Revoked {
    /// An entry for `serial` (big-endian bytes), revoked now.
    pub fn now(serial: &[u8], reason: Option<Reason>) -> Self {
        Revoked {
            serial: strip_zeros(serial).to_vec(),
            date: crate::unix_now(),
            reason,
        }
    }
}

/// The serial's magnitude without leading zero bytes (one zero byte for zero).
fn strip_zeros(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|&x| x != 0)
        .unwrap_or(b.len().saturating_sub(1));
    &b[start..]
}

/// Everything about a new CRL except its issuer.
#[derive(Clone, Debug)]
pub struct CrlParams {
    /// thisUpdate, unix seconds.
    pub this_update: u64,
    /// nextUpdate, unix seconds (`None`: no nextUpdate, which RFC 5280 §5.1.2.5 asks
    /// conforming CAs to include; the CRL then never expires).
    pub next_update: Option<u64>,
    /// The CRL number (RFC 5280 §5.2.3: monotonically increasing per issuer).
    pub number: u64,
    /// The revoked certificates.
    pub revoked: Vec<Revoked>,
}

impl CrlParams {
    /// Issued now, next update in `days` days, CRL number = the current unix time (so that
    /// CRLs issued without a counter still increase), nothing revoked yet.
    pub fn new(days: u32) -> Self {
        let now = crate::unix_now();
        CrlParams {
            this_update: now,
            next_update: Some(now.saturating_add(u64::from(days) * 86_400)),
            number: now,
            revoked: Vec::new(),
        }
    }
}

fn time(secs: u64) -> Result<x509_cert::time::Time, Error> {
    let dt = der::DateTime::from_unix_duration(core::time::Duration::from_secs(secs))
        .map_err(|_| Error::InvalidValidity)?;
    Ok(x509_cert::time::Time::from(dt))
}

/// The authority key identifier for CRLs of `issuer`: its subjectKeyIdentifier, or the
/// SHA-1 of its key (RFC 5280 §4.2.1.2 method 1, as [`crate::issue`] computes it).
fn authority_key_id(issuer: &Certificate) -> Result<OctetString, Error> {
    if let Some(ski) = crate::sig::subject_key_identifier(issuer) {
        return Ok(ski);
    }
    let spki = issuer.tbs_certificate().subject_public_key_info();
    let der = spki.to_der()?;
    let spki = SubjectPublicKeyInfoRef::from_der(&der)?;
    Ok(SubjectKeyIdentifier::try_from(spki)?.0)
}

/// Issues a v2 CRL for `issuer` (whose private key is `issuer_key`), signed with
/// SM2-with-SM3 (default ID): issuer = the certificate's subject, the CRL number and
/// authority key identifier extensions, one entry per revoked serial with a reasonCode
/// extension when it has a reason.
pub fn issue_crl<K: shangmi_sm2::PrivateKeyOps + ?Sized>(
    issuer: &Certificate,
    issuer_key: &K,
    params: &CrlParams,
) -> Result<Crl, Error> {
    let own = crate::sig::spki_of(&issuer_key.public_key())?.to_der()?;
    if issuer
        .tbs_certificate()
        .subject_public_key_info()
        .to_der()?
        != own
    {
        return Err(Error::KeyMismatch);
    }
    if params.next_update.is_some_and(|n| n < params.this_update) {
        return Err(Error::InvalidValidity);
    }
    let name = issuer.tbs_certificate().subject().clone();
    let mut revoked = Vec::with_capacity(params.revoked.len());
    for r in &params.revoked {
        let serial: SerialNumber = SerialNumber::new(strip_zeros(&r.serial))?;
        let crl_entry_extensions = match r.reason {
            Some(reason) => Some(alloc::vec![(&reason).to_extension(&name, &[])?]),
            None => None,
        };
        revoked.push(RevokedCert {
            serial_number: serial,
            revocation_date: time(r.date)?,
            crl_entry_extensions,
        });
    }
    let mut exts: Vec<Extension> = Vec::new();
    let aki = AuthorityKeyIdentifier {
        key_identifier: Some(authority_key_id(issuer)?),
        authority_cert_issuer: None,
        authority_cert_serial_number: None,
    };
    exts.push((&aki).to_extension(&name, &exts)?);
    let number = CrlNumber::try_from(params.number)?;
    exts.push((&number).to_extension(&name, &exts)?);
    let alg = spki::AlgorithmIdentifierOwned {
        oid: crate::oid::SM2_WITH_SM3,
        parameters: None,
    };
    let tbs = TbsCertList {
        version: Version::V2,
        signature: alg.clone(),
        issuer: name,
        this_update: time(params.this_update)?,
        next_update: params.next_update.map(time).transpose()?,
        revoked_certificates: (!revoked.is_empty()).then_some(revoked),
        crl_extensions: Some(exts),
    };
    let sig = issuer_key.sign(&tbs.to_der()?).map_err(Error::key_holder)?;
    let list = CertificateList {
        tbs_cert_list: tbs,
        signature_algorithm: alg,
        signature: der::asn1::BitString::from_bytes(sig.to_der().as_ref())?,
    };
    Crl::from_der(&list.to_der()?)
}

/// A parsed, well-formed CRL (its signature is checked separately, against the issuer:
/// [`Crl::verify_signature`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crl {
    list: CertificateList,
    der: Vec<u8>,
    tbs: Vec<u8>,
    number: Option<Vec<u8>>,
    authority_key_id: Option<Vec<u8>>,
    revoked: Vec<Revoked>,
}

fn malformed() -> Error {
    Error::Der(der::ErrorKind::Failed.into())
}

/// Whether each extension OID appears at most once (RFC 5280 §4.2, §5.2).
fn unique(exts: &[Extension]) -> Result<(), Error> {
    for (i, e) in exts.iter().enumerate() {
        if exts[..i].iter().any(|p| p.extn_id == e.extn_id) {
            return Err(malformed());
        }
    }
    Ok(())
}

fn refuse_critical(e: &Extension) -> Result<(), Error> {
    if e.critical {
        Err(Error::UnhandledCriticalExtension(e.extn_id))
    } else {
        Ok(())
    }
}

/// Extensions that are always critical and change what the CRL means: refused.
const REFUSED: [Oid; 2] = [ID_CE_DELTA_CRL_INDICATOR, ID_CE_ISSUING_DISTRIBUTION_POINT];

impl Crl {
    /// Parses one DER CRL: canonical DER (re-encoding must give the same bytes), no
    /// trailing data, version 2, the two signature algorithm fields equal, and only the
    /// extensions this module can apply when critical.
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let list = CertificateList::from_der(der)?;
        if list.to_der()? != der {
            return Err(malformed());
        }
        let tbs = &list.tbs_cert_list;
        if tbs.version != Version::V2 || tbs.signature != list.signature_algorithm {
            return Err(malformed());
        }
        let mut number = None;
        let mut authority_key_id = None;
        let exts = tbs.crl_extensions.as_deref().unwrap_or(&[]);
        unique(exts)?;
        for e in exts {
            let value = e.extn_value.as_bytes();
            if REFUSED.contains(&e.extn_id) {
                return Err(Error::UnhandledCriticalExtension(e.extn_id));
            } else if e.extn_id == ID_CE_CRL_NUMBER {
                let n = Uint::from_der(value)?;
                number = Some(n.as_bytes().to_vec());
            } else if e.extn_id == ID_CE_AUTHORITY_KEY_IDENTIFIER {
                let aki = AuthorityKeyIdentifier::from_der(value)?;
                authority_key_id = aki.key_identifier.map(|k| k.as_bytes().to_vec());
            } else {
                refuse_critical(e)?;
            }
        }
        let mut revoked = Vec::new();
        for entry in tbs.revoked_certificates.iter().flatten() {
            let mut reason = None;
            let exts = entry.crl_entry_extensions.as_deref().unwrap_or(&[]);
            unique(exts)?;
            for e in exts {
                if e.extn_id == ID_CE_CRL_REASONS {
                    reason = Some(Reason::from_der(e.extn_value.as_bytes())?);
                } else if e.extn_id == ID_CE_CERTIFICATE_ISSUER {
                    // an indirect CRL: entries of other issuers
                    return Err(Error::UnhandledCriticalExtension(e.extn_id));
                } else if e.extn_id != ID_CE_INVALIDITY_DATE {
                    refuse_critical(e)?;
                }
            }
            revoked.push(Revoked {
                serial: strip_zeros(entry.serial_number.as_bytes()).to_vec(),
                date: entry.revocation_date.to_unix_duration().as_secs(),
                reason,
            });
        }
        let tbs = tbs.to_der()?;
        Ok(Crl {
            list,
            der: der.to_vec(),
            tbs,
            number,
            authority_key_id,
            revoked,
        })
    }

    /// Every CRL in `data`: DER (one CRL), or PEM (every `X509 CRL` block).
    pub fn parse_all(data: &[u8]) -> Result<Vec<Self>, Error> {
        crate::pem::der_documents(data, &[PEM_LABEL])?
            .iter()
            .map(|d| Crl::from_der(d))
            .collect()
    }

    /// The DER encoding.
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// PEM text (`X509 CRL`).
    pub fn to_pem(&self) -> Result<String, Error> {
        crate::pem::to_pem(PEM_LABEL, &self.der)
    }

    /// The `x509-cert` structure.
    pub fn list(&self) -> &CertificateList {
        &self.list
    }

    /// The issuer's name.
    pub fn issuer(&self) -> &Name {
        &self.list.tbs_cert_list.issuer
    }

    /// thisUpdate, unix seconds.
    pub fn this_update(&self) -> u64 {
        self.list
            .tbs_cert_list
            .this_update
            .to_unix_duration()
            .as_secs()
    }

    /// nextUpdate, unix seconds, if present.
    pub fn next_update(&self) -> Option<u64> {
        self.list
            .tbs_cert_list
            .next_update
            .map(|t| t.to_unix_duration().as_secs())
    }

    /// Whether the CRL is out of date at `time` (unix seconds): its nextUpdate has passed.
    /// A CRL without nextUpdate never expires.
    pub fn is_expired(&self, time: u64) -> bool {
        self.next_update().is_some_and(|n| time > n)
    }

    /// The CRL number's big-endian bytes, if the extension is present.
    pub fn number(&self) -> Option<&[u8]> {
        self.number.as_deref()
    }

    /// The authority key identifier's keyIdentifier, if present.
    pub fn authority_key_id(&self) -> Option<&[u8]> {
        self.authority_key_id.as_deref()
    }

    /// The revoked certificates, in the CRL's order.
    pub fn revoked(&self) -> &[Revoked] {
        &self.revoked
    }

    /// The entry for `serial` (big-endian bytes; leading zeros ignored), if revoked.
    pub fn find(&self, serial: &[u8]) -> Option<&Revoked> {
        let serial = strip_zeros(serial);
        self.revoked.iter().find(|r| r.serial == serial)
    }

    /// Whether `issuer` issued this CRL: the CRL's issuer is its subject, and the key
    /// identifiers agree when both are present (no signature check).
    pub fn names_issuer(&self, issuer: &Certificate) -> bool {
        if self.issuer() != issuer.tbs_certificate().subject() {
            return false;
        }
        match (
            self.authority_key_id(),
            crate::sig::subject_key_identifier(issuer),
        ) {
            (Some(a), Some(s)) => a == s.as_bytes(),
            _ => true,
        }
    }

    /// Checks that `issuer` signed this CRL (default ID).
    pub fn verify_signature(&self, issuer: &Certificate) -> Result<(), Error> {
        self.verify_signature_with_id(issuer, shangmi_sm2::DEFAULT_ID)
    }

    /// Checks that `issuer` signed this CRL with distinguishing ID `id`: it names the
    /// issuer ([`Crl::names_issuer`], else [`Error::IssuerMismatch`]), the issuer's
    /// keyUsage, when present, has cRLSign ([`Error::NotCrlSigner`]), and the SM2-with-SM3
    /// signature verifies under its key.
    pub fn verify_signature_with_id(&self, issuer: &Certificate, id: &[u8]) -> Result<(), Error> {
        if !self.names_issuer(issuer) {
            return Err(Error::IssuerMismatch);
        }
        let ku = issuer
            .tbs_certificate()
            .get_extension::<KeyUsage>()?
            .map(|(_, ku)| ku);
        if ku.is_some_and(|ku| !ku.crl_sign()) {
            return Err(Error::NotCrlSigner);
        }
        let public = crate::sig::sm2_public_key(issuer.tbs_certificate().subject_public_key_info())
            .ok_or(Error::UnsupportedAlgorithm)?;
        let sig = self.list.signature.as_bytes().ok_or(Error::BadSignature)?;
        crate::sig::check_signature(&public, id, &self.tbs, &self.list.signature_algorithm, sig)
    }
}
