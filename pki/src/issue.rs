//! Issuing certificates: self-signed roots, intermediates and leaves with a profile (RFC
//! 5280 extensions; the TLCP key usages as Tongsuo's test PKI has them), SKI/AKI (RFC 5280
//! §4.2.1.2 method 1, SHA-1 of the key, as OpenSSL), 16-byte random serials.

use crate::sig::KeySigner;
use crate::{Error, PublicKey};

pub use crate::san::San;
pub(crate) use crate::san::san_extension;
pub use crate::sig::{spki_of, subject_key_identifier};
use alloc::vec::Vec;
use core::time::Duration;
use der::Encode;
use der::asn1::OctetString;
use shangmi_sm2::{PrivateKeyOps, dsa};
use spki::SubjectPublicKeyInfoRef;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::ext::pkix::{
    AuthorityKeyIdentifier, BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages,
    SubjectKeyIdentifier,
};
use x509_cert::ext::{Extension, ToExtension};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::time::{Time, Validity};
use x509_cert::{Certificate, TbsCertificate};

/// What a certificate is for; each sets its extensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// A CA: basicConstraints critical CA:true (with an optional path length), keyUsage
    /// critical digitalSignature, keyCertSign, cRLSign.
    Ca {
        /// The pathLenConstraint, if any.
        path_len: Option<u8>,
    },
    /// A TLS server: keyUsage critical digitalSignature, extKeyUsage serverAuth.
    TlsServer,
    /// A TLS client: keyUsage critical digitalSignature, extKeyUsage clientAuth.
    TlsClient,
    /// A TLCP signing certificate: keyUsage critical digitalSignature, nonRepudiation.
    TlcpSign,
    /// A TLCP encryption certificate: keyUsage critical keyAgreement, keyEncipherment,
    /// dataEncipherment.
    TlcpEnc,
}

impl Profile {
    /// The spelling of the CLI's `--profile` (`ca`, `tls-server`, `tls-client`, `tlcp-sign`,
    /// `tlcp-enc`).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "ca" => Profile::Ca { path_len: None },
            "tls-server" => Profile::TlsServer,
            "tls-client" => Profile::TlsClient,
            "tlcp-sign" => Profile::TlcpSign,
            "tlcp-enc" => Profile::TlcpEnc,
            _ => return None,
        })
    }

    /// The key usages this profile sets.
    pub fn key_usage(&self) -> KeyUsage {
        KeyUsage(match self {
            Profile::Ca { .. } => {
                KeyUsages::DigitalSignature | KeyUsages::KeyCertSign | KeyUsages::CRLSign
            }
            Profile::TlsServer | Profile::TlsClient => KeyUsages::DigitalSignature.into(),
            Profile::TlcpSign => KeyUsages::DigitalSignature | KeyUsages::NonRepudiation,
            Profile::TlcpEnc => {
                KeyUsages::KeyAgreement | KeyUsages::KeyEncipherment | KeyUsages::DataEncipherment
            }
        })
    }
}

/// Everything about a new certificate except its keys.
#[derive(Clone, Debug)]
pub struct CertParams {
    /// The subject.
    pub subject: Name,
    /// Its profile.
    pub profile: Profile,
    /// Subject alternative names (none: no extension).
    pub sans: Vec<San>,
    /// Start of validity, unix seconds.
    pub not_before: u64,
    /// End of validity, unix seconds.
    pub not_after: u64,
    /// The serial number's bytes (big-endian, positive); `None`: 16 random bytes from the
    /// operating system ([`random_serial`] makes them from another generator).
    pub serial: Option<Vec<u8>>,
}

impl CertParams {
    /// Valid from now (less five minutes for clock skew) for `days` days, random serial.
    pub fn new(subject: Name, profile: Profile, days: u32) -> Self {
        let now = crate::unix_now();
        CertParams {
            subject,
            profile,
            sans: Vec::new(),
            not_before: now.saturating_sub(300),
            not_after: now.saturating_add(u64::from(days) * 86_400),
            serial: None,
        }
    }
}

struct Extensions {
    subject: Name,
    issuer: Name,
    profile: Profile,
    sans: Vec<San>,
    /// The issuer's subjectKeyIdentifier (from its certificate), for the AKI.
    issuer_ski: Option<OctetString>,
}

impl BuilderProfile for Extensions {
    fn get_issuer(&self, _subject: &Name) -> Name {
        self.issuer.clone()
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        spk: SubjectPublicKeyInfoRef<'_>,
        issuer_spk: SubjectPublicKeyInfoRef<'_>,
        _tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        let subject = &self.subject;
        let mut out = Vec::new();
        if let Profile::Ca { path_len } = self.profile {
            let bc = BasicConstraints {
                ca: true,
                path_len_constraint: path_len,
            };
            out.push((true, &bc).to_extension(subject, &out)?);
        }
        let ku = self.profile.key_usage();
        out.push((true, &ku).to_extension(subject, &out)?);
        let eku = match self.profile {
            Profile::TlsServer => Some(crate::oid::KP_SERVER_AUTH),
            Profile::TlsClient => Some(crate::oid::KP_CLIENT_AUTH),
            _ => None,
        };
        if let Some(eku) = eku {
            let eku = ExtendedKeyUsage(alloc::vec![eku]);
            out.push((false, &eku).to_extension(subject, &out)?);
        }
        let ski = SubjectKeyIdentifier::try_from(spk.clone())?;
        out.push((false, &ski).to_extension(subject, &out)?);
        // A self-signed certificate carries no AKI (OpenSSL and RFC 5280 §4.2.1.1 allow
        // omitting it there); others name the issuer's key.
        if spk != issuer_spk {
            let key_identifier = match &self.issuer_ski {
                Some(id) => id.clone(),
                None => SubjectKeyIdentifier::try_from(issuer_spk.clone())?.0,
            };
            let aki = AuthorityKeyIdentifier {
                key_identifier: Some(key_identifier),
                authority_cert_issuer: None,
                authority_cert_serial_number: None,
            };
            out.push((false, &aki).to_extension(subject, &out)?);
        }
        if !self.sans.is_empty() {
            let san =
                san_extension(&self.sans).map_err(|_| der::Error::from(der::ErrorKind::Failed))?;
            out.push((false, &san).to_extension(subject, &out)?);
        }
        Ok(out)
    }
}

fn time(secs: u64) -> Result<Time, Error> {
    let dt = der::DateTime::from_unix_duration(Duration::from_secs(secs))
        .map_err(|_| Error::InvalidValidity)?;
    // UTCTime before 2050, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5); the builder
    // adjusts.
    Ok(Time::from(dt))
}

/// A random serial number's bytes, as [`CertParams::serial`] takes them: 16 bytes from
/// `rng`, the first made positive with its second-highest bit set (so all 16 are
/// significant: no leading zero to strip). What a certificate gets when its serial is
/// `None`, from the operating system's generator; set it from another generator (a
/// module's DRBG) with this.
pub fn random_serial<R: rand_core::TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Vec<u8>, Error> {
    let mut b = alloc::vec![0u8; 16];
    crate::fill(rng, &mut b)?;
    b[0] = (b[0] & 0x7f) | 0x40;
    Ok(b)
}

fn serial(params: &CertParams) -> Result<SerialNumber, Error> {
    let bytes = match &params.serial {
        Some(b) => b.clone(),
        None => random_serial(&mut getrandom::SysRng)?,
    };
    Ok(SerialNumber::new(&bytes)?)
}

fn build<K: PrivateKeyOps + ?Sized>(
    params: &CertParams,
    issuer: Name,
    issuer_ski: Option<OctetString>,
    issuer_key: &K,
    subject_key: &PublicKey,
) -> Result<Certificate, Error> {
    if params.not_after < params.not_before {
        return Err(Error::InvalidValidity);
    }
    let profile = Extensions {
        subject: params.subject.clone(),
        issuer,
        profile: params.profile,
        sans: params.sans.clone(),
        issuer_ski,
    };
    let validity = Validity::new(time(params.not_before)?, time(params.not_after)?);
    let builder =
        CertificateBuilder::new(profile, serial(params)?, validity, spki_of(subject_key)?)?;
    let signer = KeySigner::new(issuer_key);
    signer.finish(builder.build::<_, dsa::Signature>(&signer))
}

/// A self-signed certificate for `key` (a root CA with [`Profile::Ca`]).
pub fn self_signed<K: PrivateKeyOps + ?Sized>(
    key: &K,
    params: &CertParams,
) -> Result<Certificate, Error> {
    build(params, params.subject.clone(), None, key, &key.public_key())
}

/// A certificate for `subject_key` issued by `issuer` (whose private key is `issuer_key`:
/// in memory, or in a device through [`PrivateKeyOps`]).
pub fn issue<K: PrivateKeyOps + ?Sized>(
    issuer: &Certificate,
    issuer_key: &K,
    subject_key: &PublicKey,
    params: &CertParams,
) -> Result<Certificate, Error> {
    let issuer_spki = issuer
        .tbs_certificate()
        .subject_public_key_info()
        .to_der()?;
    let own = spki_of(&issuer_key.public_key())?.to_der()?;
    if issuer_spki != own {
        return Err(Error::KeyMismatch);
    }
    build(
        params,
        issuer.tbs_certificate().subject().clone(),
        subject_key_identifier(issuer),
        issuer_key,
        subject_key,
    )
}

/// Issues a certificate for a request: its signature must verify (default ID); the
/// subject and SANs come from the request unless `params` names SANs itself (its subject
/// is replaced by the request's).
pub fn issue_from_request<K: PrivateKeyOps + ?Sized>(
    issuer: &Certificate,
    issuer_key: &K,
    request: &x509_cert::request::CertReq,
    params: &CertParams,
) -> Result<Certificate, Error> {
    let public = crate::req::verify_request(request)?;
    let mut params = params.clone();
    params.subject = request.info.subject.clone();
    if params.sans.is_empty() {
        params.sans = crate::req::requested_sans(request)?;
    }
    issue(issuer, issuer_key, &public, &params)
}
