//! The test PKI, made by this project's own code: SM2 keys from fixed seeds, certificates
//! built with `x509-cert`'s builder and signed by `shangmi-sm2` with the default ID
//! 1234567812345678 (as Tongsuo and GmSSL sign chains). Signatures are deterministic, so the
//! same bytes come out on every run: the recorded interop transcripts depend on that.
//!
//! Shapes follow what both peers accept (see the interop notes): the signature
//! AlgorithmIdentifier sm2-with-sm3 without parameters, SPKI id-ecPublicKey + SM2 curve, and
//! no basicConstraints in end-entity certificates (GmSSL rejects `CA:FALSE`).

use der::asn1::Ia5String;
use der::{Decode, Encode};
use shangmi_sm2::SecretKey;
use shangmi_sm2::dsa;
use std::str::FromStr;
use std::time::Duration;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{
    BasicConstraints, ExtendedKeyUsage, KeyUsage, KeyUsages, SubjectAltName,
};
use x509_cert::ext::{Extension, ToExtension};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{ObjectIdentifier, SubjectPublicKeyInfo, SubjectPublicKeyInfoRef};
use x509_cert::time::{Time, Validity};
use x509_cert::{Certificate, TbsCertificate};

/// id-kp-serverAuth and id-kp-clientAuth (RFC 5280 §4.2.1.12).
const SERVER_AUTH: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.1");
const CLIENT_AUTH: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.2");

/// An SM2 key from a label (SM3 of the label, retried on the negligible out-of-range case).
pub fn key(label: &str) -> SecretKey {
    use digest::Digest;
    let mut seed = shangmi_sm3::Sm3::digest(label.as_bytes());
    loop {
        if let Ok(key) = SecretKey::from_bytes(&seed) {
            return key;
        }
        seed = shangmi_sm3::Sm3::digest(seed);
    }
}

/// The SubjectPublicKeyInfo of `key`, in the id-ecPublicKey form.
pub fn spki_der(key: &SecretKey) -> Vec<u8> {
    use rustls::sign::SigningKey as _;
    let tls = shangmi_rustls::sign::Sm2SigningKey::new(key).expect("valid key");
    tls.public_key()
        .expect("SM2 keys have an SPKI")
        .as_ref()
        .to_vec()
}

/// What a certificate is for.
#[derive(Clone, Copy, PartialEq)]
pub enum Role {
    Ca,
    Server,
    Client,
}

struct Profile {
    issuer: Name,
    subject: Name,
    role: Role,
    dns: Option<String>,
}

impl BuilderProfile for Profile {
    fn get_issuer(&self, _subject: &Name) -> Name {
        self.issuer.clone()
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        _spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        _tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        let subject = &self.subject;
        let mut out = Vec::new();
        match self.role {
            Role::Ca => {
                let bc = BasicConstraints {
                    ca: true,
                    path_len_constraint: None,
                };
                out.push((true, &bc).to_extension(subject, &out)?);
                let ku = KeyUsage(KeyUsages::KeyCertSign | KeyUsages::CRLSign);
                out.push((true, &ku).to_extension(subject, &out)?);
            }
            Role::Server | Role::Client => {
                let ku = KeyUsage(KeyUsages::DigitalSignature.into());
                out.push((true, &ku).to_extension(subject, &out)?);
                let purpose = if self.role == Role::Server {
                    SERVER_AUTH
                } else {
                    CLIENT_AUTH
                };
                let eku = ExtendedKeyUsage(vec![purpose]);
                out.push((false, &eku).to_extension(subject, &out)?);
            }
        }
        if let Some(dns) = &self.dns {
            let name = Ia5String::new(dns)?;
            let san = SubjectAltName(vec![GeneralName::DnsName(name)]);
            out.push((false, &san).to_extension(subject, &out)?);
        }
        Ok(out)
    }
}

/// The validity window of the live certificates (2025-01-01 to 2045-01-01).
pub fn validity_normal() -> (Duration, Duration) {
    (
        Duration::from_secs(1_735_689_600),
        Duration::from_secs(2_366_841_600),
    )
}

/// An expired window (2020-01-01 to 2021-01-01).
pub fn validity_expired() -> (Duration, Duration) {
    (
        Duration::from_secs(1_577_836_800),
        Duration::from_secs(1_609_459_200),
    )
}

/// One certificate request.
pub struct Spec<'a> {
    pub subject: &'a str,
    pub key: &'a SecretKey,
    pub role: Role,
    pub dns: Option<&'a str>,
    pub serial: u32,
    pub validity: (Duration, Duration),
}

/// Issues `spec` under `issuer` (name and key; `None` for self-signed), signing with `id`.
pub fn issue(spec: &Spec<'_>, issuer: Option<(&str, &SecretKey)>, id: &[u8]) -> Vec<u8> {
    let (issuer_name, issuer_key) = issuer.unwrap_or((spec.subject, spec.key));
    let profile = Profile {
        issuer: Name::from_str(issuer_name).expect("issuer name"),
        subject: Name::from_str(spec.subject).expect("subject name"),
        role: spec.role,
        dns: spec.dns.map(str::to_owned),
    };
    let time = |t| Time::from(der::DateTime::from_unix_duration(t).expect("time"));
    let validity = Validity::new(time(spec.validity.0), time(spec.validity.1));
    let spki = SubjectPublicKeyInfo::from_der(&spki_der(spec.key)).expect("SPKI");
    let builder = CertificateBuilder::new(profile, SerialNumber::from(spec.serial), validity, spki)
        .expect("builder");
    // The issuer's key with the chosen ID; `shangmi-sm2` gives it the x509 signer traits
    // (sm2-with-sm3 without parameters, DER signature in the BIT STRING).
    let signer = dsa::SigningKey::new_with_id(issuer_key, id).expect("signing key");
    let cert: Certificate = builder
        .build::<_, dsa::Signature>(&signer)
        .expect("certificate");
    cert.to_der().expect("DER")
}

/// The whole test PKI.
pub struct Pki {
    pub ca_key: SecretKey,
    pub ca: Vec<u8>,
    pub server_key: SecretKey,
    pub server: Vec<u8>,
    pub client_key: SecretKey,
    pub client: Vec<u8>,
    /// The server's certificate, expired.
    pub server_expired: Vec<u8>,
    /// The server's certificate signed by the CA with ID "wrong ID" instead of the default.
    pub server_other_id: Vec<u8>,
}

/// Distinguished names of the test PKI.
pub const CA_NAME: &str = "CN=shangmi test CA,O=shangmi";
pub const SERVER_NAME: &str = "CN=localhost,O=shangmi";
pub const CLIENT_NAME: &str = "CN=shangmi test client,O=shangmi";

impl Pki {
    /// Builds it (about 10 SM2 signatures).
    pub fn new() -> Self {
        let default_id = shangmi_sm2::DEFAULT_ID;
        let ca_key = key("shangmi test CA key");
        let server_key = key("shangmi test server key");
        let client_key = key("shangmi test client key");
        let ca = issue(
            &Spec {
                subject: CA_NAME,
                key: &ca_key,
                role: Role::Ca,
                dns: None,
                serial: 1,
                validity: validity_normal(),
            },
            None,
            default_id,
        );
        let server_spec = |serial, validity| Spec {
            subject: SERVER_NAME,
            key: &server_key,
            role: Role::Server,
            dns: Some("localhost"),
            serial,
            validity,
        };
        let issuer = Some((CA_NAME, &ca_key));
        let server = issue(&server_spec(2, validity_normal()), issuer, default_id);
        let server_expired = issue(&server_spec(4, validity_expired()), issuer, default_id);
        let server_other_id = issue(&server_spec(5, validity_normal()), issuer, b"wrong ID");
        let client = issue(
            &Spec {
                subject: CLIENT_NAME,
                key: &client_key,
                role: Role::Client,
                dns: None,
                serial: 3,
                validity: validity_normal(),
            },
            issuer,
            default_id,
        );
        Self {
            ca_key,
            ca,
            server_key,
            server,
            client_key,
            client,
            server_expired,
            server_other_id,
        }
    }
}
