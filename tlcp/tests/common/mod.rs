//! The TLCP test PKI, made by this project's own code (x509-cert's builder signed by
//! shangmi-sm2 with the default ID, as `rustls/tests/common/pki.rs` does), with the key
//! usages of Tongsuo's test PKI (notes/tlcp.md): CA critical CA:true with digitalSignature,
//! keyCertSign, cRLSign; sign leaves digitalSignature, nonRepudiation; encryption leaves
//! keyAgreement, keyEncipherment, dataEncipherment. And an in-process driver.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use der::asn1::Ia5String;
use der::{Decode, Encode};
use shangmi_sm2::SecretKey;
use shangmi_sm2::dsa;
use shangmi_tlcp::*;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
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

const SERVER_AUTH: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.1");
const CLIENT_AUTH: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.5.5.7.3.2");

/// An SM2 key from a label.
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

fn spki_der(key: &SecretKey) -> Vec<u8> {
    use shangmi_sm2::keys::{AlgorithmForm, public_key_to_spki_der};
    public_key_to_spki_der(&key.public_key(), AlgorithmForm::EcPublicKey)
        .expect("SPKI")
        .as_bytes()
        .to_vec()
}

#[derive(Clone, Copy, PartialEq)]
pub enum Usage {
    Ca,
    Sign,
    Enc,
}

struct Profile {
    issuer: Name,
    subject: Name,
    usage: Usage,
    eku: Option<ObjectIdentifier>,
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
        let ku = match self.usage {
            Usage::Ca => {
                let bc = BasicConstraints {
                    ca: true,
                    path_len_constraint: None,
                };
                out.push((true, &bc).to_extension(subject, &out)?);
                KeyUsages::DigitalSignature | KeyUsages::KeyCertSign | KeyUsages::CRLSign
            }
            Usage::Sign => KeyUsages::DigitalSignature | KeyUsages::NonRepudiation,
            Usage::Enc => {
                KeyUsages::KeyAgreement | KeyUsages::KeyEncipherment | KeyUsages::DataEncipherment
            }
        };
        out.push((true, &KeyUsage(ku)).to_extension(subject, &out)?);
        if let Some(eku) = self.eku {
            out.push((false, &ExtendedKeyUsage(vec![eku])).to_extension(subject, &out)?);
        }
        if let Some(dns) = &self.dns {
            let san = SubjectAltName(vec![GeneralName::DnsName(Ia5String::new(dns)?)]);
            out.push((false, &san).to_extension(subject, &out)?);
        }
        Ok(out)
    }
}

// Ten years less a few days: GmSSL 3.3 refuses validity periods over 3,653 days.
pub const VALID: (u64, u64) = (1_735_689_600, 2_051_049_600); // 2025-01-01 .. 2034-12-30
pub const EXPIRED: (u64, u64) = (1_577_836_800, 1_609_459_200); // 2020-01-01 .. 2021-01-01

pub struct Spec<'a> {
    pub subject: &'a str,
    pub key: &'a SecretKey,
    pub usage: Usage,
    pub eku: Option<ObjectIdentifier>,
    pub dns: Option<&'a str>,
    pub serial: u32,
    pub validity: (u64, u64),
}

pub fn issue(spec: &Spec<'_>, issuer: Option<(&str, &SecretKey)>) -> CertificateDer<'static> {
    let (issuer_name, issuer_key) = issuer.unwrap_or((spec.subject, spec.key));
    let profile = Profile {
        issuer: Name::from_str(issuer_name).expect("issuer name"),
        subject: Name::from_str(spec.subject).expect("subject name"),
        usage: spec.usage,
        eku: spec.eku,
        dns: spec.dns.map(str::to_owned),
    };
    let time =
        |t| Time::from(der::DateTime::from_unix_duration(Duration::from_secs(t)).expect("time"));
    let validity = Validity::new(time(spec.validity.0), time(spec.validity.1));
    let spki = SubjectPublicKeyInfo::from_der(&spki_der(spec.key)).expect("SPKI");
    // Four-byte serial numbers: GmSSL 3.3 refuses shorter ones ("not enough randomness").
    let serial = SerialNumber::from(0x5a00_0000 | spec.serial);
    let builder = CertificateBuilder::new(profile, serial, validity, spki).expect("builder");
    let signer = dsa::SigningKey::new(issuer_key).expect("signing key");
    let cert: Certificate = builder
        .build::<_, dsa::Signature>(&signer)
        .expect("certificate");
    CertificateDer::from(cert.to_der().expect("DER"))
}

pub const CA_NAME: &str = "CN=shangmi TLCP test CA,O=shangmi";
pub const OTHER_CA_NAME: &str = "CN=shangmi TLCP other CA,O=shangmi";

/// One side's two certificates and keys.
#[derive(Clone)]
pub struct Pair {
    pub sign: CertificateDer<'static>,
    pub sign_key: SecretKey,
    pub enc: CertificateDer<'static>,
    pub enc_key: SecretKey,
}

pub struct Pki {
    pub ca: CertificateDer<'static>,
    pub ca_key: SecretKey,
    pub server: Pair,
    pub client: Pair,
    /// Server certificates with the usages swapped (sign certificate has the encryption
    /// usages and the other way round).
    pub server_swapped: Pair,
    /// Server certificates expired.
    pub server_expired: Pair,
    /// Server enc certificate from another CA (issuer mismatch).
    pub server_other_issuer: Pair,
    /// Server certificates without subjectAltName, "CN=bank.example" (legacy SM PKIs).
    pub server_cn_only: Pair,
    pub other_ca: CertificateDer<'static>,
}

fn pair(
    ca: (&str, &SecretKey),
    cn: &str,
    eku: ObjectIdentifier,
    dns: Option<&str>,
    serial: u32,
    validity: (u64, u64),
    swapped: bool,
) -> Pair {
    let sign_key = key(&format!("{cn} sign key"));
    let enc_key = key(&format!("{cn} enc key"));
    let (su, eu) = if swapped {
        (Usage::Enc, Usage::Sign)
    } else {
        (Usage::Sign, Usage::Enc)
    };
    let sign = issue(
        &Spec {
            // One subject for both leaves: GmSSL 3.3 refuses a pair whose subjects differ.
            subject: &format!("CN={cn},O=shangmi"),
            key: &sign_key,
            usage: su,
            eku: Some(eku),
            dns,
            serial,
            validity,
        },
        Some(ca),
    );
    let enc = issue(
        &Spec {
            subject: &format!("CN={cn},O=shangmi"),
            key: &enc_key,
            usage: eu,
            eku: Some(eku),
            dns,
            serial: serial + 1,
            validity,
        },
        Some(ca),
    );
    Pair {
        sign,
        sign_key,
        enc,
        enc_key,
    }
}

impl Pki {
    pub fn new() -> Self {
        // A self-signed root (serial 1, ten years) of `subject` under `key`.
        let root = |subject: &str, key: &SecretKey| {
            let spec = Spec {
                subject,
                key,
                usage: Usage::Ca,
                eku: None,
                dns: None,
                serial: 1,
                validity: VALID,
            };
            issue(&spec, None)
        };
        let ca_key = key("TLCP CA key");
        let ca = root(CA_NAME, &ca_key);
        let other_key = key("TLCP other CA key");
        let other_ca = root(OTHER_CA_NAME, &other_key);
        let c = (CA_NAME, &ca_key);
        let server = pair(
            c,
            "localhost",
            SERVER_AUTH,
            Some("localhost"),
            10,
            VALID,
            false,
        );
        let client = pair(c, "tlcp client", CLIENT_AUTH, None, 20, VALID, false);
        let server_swapped = pair(
            c,
            "localhost",
            SERVER_AUTH,
            Some("localhost"),
            30,
            VALID,
            true,
        );
        let server_expired = pair(
            c,
            "localhost",
            SERVER_AUTH,
            Some("localhost"),
            40,
            EXPIRED,
            false,
        );
        let mut server_other_issuer = server.clone();
        let other = pair(
            (OTHER_CA_NAME, &other_key),
            "localhost",
            SERVER_AUTH,
            Some("localhost"),
            50,
            VALID,
            false,
        );
        server_other_issuer.enc = other.enc;
        server_other_issuer.enc_key = other.enc_key;
        let server_cn_only = pair(c, "bank.example", SERVER_AUTH, None, 60, VALID, false);
        Pki {
            ca,
            ca_key,
            server,
            client,
            server_swapped,
            server_expired,
            server_other_issuer,
            server_cn_only,
            other_ca,
        }
    }

    pub fn roots(&self) -> RootCertStore {
        let mut r = RootCertStore::empty();
        r.add(self.ca.clone()).unwrap();
        r
    }
}

pub fn pki() -> &'static Pki {
    static PKI: std::sync::OnceLock<Pki> = std::sync::OnceLock::new();
    PKI.get_or_init(Pki::new)
}

fn keys(p: &Pair) -> (Arc<Sm2PrivateKey>, Arc<Sm2PrivateKey>) {
    (
        Arc::new(Sm2PrivateKey::new(p.sign_key.clone()).unwrap()),
        Arc::new(Sm2PrivateKey::new(p.enc_key.clone()).unwrap()),
    )
}

/// A deterministic generator (SM3 of a counter and seed) for reproducible runs.
#[derive(Debug)]
pub struct SeededRandom(Mutex<(u64, u64)>);

impl SeededRandom {
    pub fn new(seed: u64) -> Arc<Self> {
        Arc::new(SeededRandom(Mutex::new((seed, 0))))
    }
}

impl SecureRandom for SeededRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), rustls::crypto::GetRandomFailed> {
        use digest::Digest;
        let mut g = self.0.lock().unwrap();
        for chunk in buf.chunks_mut(32) {
            g.1 += 1;
            let mut h = shangmi_sm3::Sm3::new();
            h.update(g.0.to_be_bytes());
            h.update(g.1.to_be_bytes());
            let out = h.finalize();
            chunk.copy_from_slice(&out[..chunk.len()]);
        }
        Ok(())
    }
}

pub fn server_builder_for(p: &Pair) -> impl FnOnce(ServerConfigBuilder) -> ServerConfig {
    let p = p.clone();
    move |b: ServerConfigBuilder| {
        let (s, e) = keys(&p);
        b.with_certs(vec![p.sign.clone()], s, p.enc.clone(), e)
            .unwrap()
    }
}

/// Server config with suites, auth policy, and the default PKI's server pair.
pub fn server_config(suites: &[CipherSuite], auth: ClientAuth) -> ServerConfig {
    server_config_with(&pki().server, suites, auth, |b| b)
}

pub fn server_config_with(
    p: &Pair,
    suites: &[CipherSuite],
    auth: ClientAuth,
    f: impl FnOnce(ServerConfigBuilder) -> ServerConfigBuilder,
) -> ServerConfig {
    let b = ServerConfig::builder()
        .suites(suites)
        .client_auth(auth, pki().roots());
    server_builder_for(p)(f(b))
}

pub fn client_config(suites: &[CipherSuite], with_certs: bool) -> ClientConfig {
    client_config_with(suites, with_certs, |b| b)
}

pub fn client_config_with(
    suites: &[CipherSuite],
    with_certs: bool,
    f: impl FnOnce(ClientConfigBuilder) -> ClientConfigBuilder,
) -> ClientConfig {
    let mut b = ClientConfig::builder(pki().roots()).suites(suites);
    if with_certs {
        let p = &pki().client;
        let (s, e) = keys(p);
        b = b.client_certs(vec![p.sign.clone()], s, p.enc.clone(), e);
    }
    f(b).build().unwrap()
}

/// Moves all pending TLS bytes of `from` into `to` and processes them.
pub fn deliver<A: Connection, B: Connection>(from: &mut A, to: &mut B) -> Result<usize, Error> {
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf).unwrap();
    }
    feed(&buf, to)?;
    Ok(buf.len())
}

/// Feeds raw TLS bytes to `to`, processing as they go.
pub fn feed<B: Connection>(mut data: &[u8], to: &mut B) -> Result<(), Error> {
    if data.is_empty() {
        return to.process_new_packets().map(|_| ());
    }
    while !data.is_empty() {
        to.read_tls(&mut data).unwrap();
        to.process_new_packets()?;
    }
    Ok(())
}

/// Which side failed, with its error.
#[derive(Debug)]
pub enum Failure {
    Client(Error),
    Server(Error),
}

/// Runs the handshake; on a failure, the failing side's alert is delivered to the other
/// side too, and both errors are returned (failing side's, peer's).
pub fn handshake(
    client: &mut ClientConnection,
    server: &mut ServerConnection,
) -> Result<(), (Failure, Option<Error>)> {
    for _ in 0..10 {
        if let Err(e) = deliver(client, server) {
            let peer = deliver(server, client).err();
            return Err((Failure::Server(e), peer));
        }
        if let Err(e) = deliver(server, client) {
            let peer = deliver(client, server).err();
            return Err((Failure::Client(e), peer));
        }
        if !client.is_handshaking() && !server.is_handshaking() && !client.wants_write() {
            return Ok(());
        }
    }
    panic!("handshake did not finish");
}

pub fn connect(
    cc: &Arc<ClientConfig>,
    sc: &Arc<ServerConfig>,
) -> (ClientConnection, ServerConnection) {
    let mut c =
        ClientConnection::new(cc.clone(), ServerName::try_from("localhost").unwrap()).unwrap();
    let mut s = ServerConnection::new(sc.clone()).unwrap();
    handshake(&mut c, &mut s).expect("handshake");
    (c, s)
}

/// Splits a byte stream into records (type, version, fragment).
pub fn records(mut data: &[u8]) -> Vec<(u8, u16, Vec<u8>)> {
    let mut out = Vec::new();
    while data.len() >= 5 {
        let len = u16::from_be_bytes([data[3], data[4]]) as usize;
        out.push((
            data[0],
            u16::from_be_bytes([data[1], data[2]]),
            data[5..5 + len].to_vec(),
        ));
        data = &data[5 + len..];
    }
    out
}

pub fn join(recs: &[(u8, u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (t, v, f) in recs {
        out.push(*t);
        out.extend_from_slice(&v.to_be_bytes());
        out.extend_from_slice(&(f.len() as u16).to_be_bytes());
        out.extend_from_slice(f);
    }
    out
}

/// Splits plaintext handshake records into messages (type, body).
pub fn messages(recs: &[(u8, u16, Vec<u8>)]) -> Vec<(u8, Vec<u8>)> {
    let mut buf = Vec::new();
    for (t, _, f) in recs {
        if *t == 22 {
            buf.extend_from_slice(f);
        }
    }
    let mut out = Vec::new();
    let mut d = &buf[..];
    while d.len() >= 4 {
        let len = ((d[1] as usize) << 16) | ((d[2] as usize) << 8) | d[3] as usize;
        out.push((d[0], d[4..4 + len].to_vec()));
        d = &d[4 + len..];
    }
    out
}

/// Handshake messages as plaintext records, one message per record.
pub fn handshake_records(msgs: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (t, b) in msgs {
        let mut m = vec![
            *t,
            (b.len() >> 16) as u8,
            (b.len() >> 8) as u8,
            b.len() as u8,
        ];
        m.extend_from_slice(b);
        out.extend_from_slice(&join(&[(22, 0x0101, m)]));
    }
    out
}

pub fn take_output<A: Connection>(from: &mut A) -> Vec<u8> {
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf).unwrap();
    }
    buf
}

/// A pair as the library's [`CertifiedKeys`] (the sign certificate alone as its chain).
pub fn certified(p: &Pair) -> CertifiedKeys {
    let (s, e) = keys(p);
    CertifiedKeys::new(vec![p.sign.clone()], s, p.enc.clone(), e)
}

/// A server pair for `name` (subjectAltName DNS) from the test CA.
pub fn server_pair_for(name: &str, serial: u32) -> Pair {
    let p = pki();
    pair(
        (CA_NAME, &p.ca_key),
        name,
        SERVER_AUTH,
        Some(name),
        serial,
        VALID,
        false,
    )
}
