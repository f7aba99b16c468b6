//! The TLCP test PKI, issued by `shangmi_pki::issue` (the project's one certificate issuer):
//! a CA (critical CA:true with digitalSignature, keyCertSign, cRLSign), sign leaves with
//! digitalSignature and the TLS purpose (extKeyUsage serverAuth or clientAuth, so a pair
//! presented for the wrong purpose is refused), encryption leaves with keyAgreement,
//! keyEncipherment, dataEncipherment. The recorded conversations carry the certificates of
//! the builder they were recorded with byte for byte: [`recorded_pki`] reads those from
//! `tests/data/pki/` (data, not a second builder). And an in-process driver.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use der::{Decode, Encode};
use shangmi_pki::issue::{self, Profile};
use shangmi_sm2::SecretKey;
use shangmi_tlcp::*;
use std::sync::{Arc, Mutex};
use x509_cert::Certificate;

mod test_pki;
pub use test_pki::key;
use test_pki::params;

// Ten years less a few days: GmSSL 3.3 refuses validity periods over 3,653 days.
pub const VALID: (u64, u64) = (1_735_689_600, 2_051_049_600); // 2025-01-01 .. 2034-12-30
pub const EXPIRED: (u64, u64) = (1_577_836_800, 1_609_459_200); // 2020-01-01 .. 2021-01-01

/// A certificate's serial number `n` in four bytes: GmSSL 3.3 refuses shorter ones ("not
/// enough randomness").
fn serial4(n: u32) -> [u8; 4] {
    (0x5a00_0000 | n).to_be_bytes()
}

fn der(cert: &Certificate) -> CertificateDer<'static> {
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

/// A sign and an encryption leaf of `cn` under `ca`; `purpose` is the sign leaf's profile
/// ([`Profile::TlsServer`] or [`Profile::TlsClient`]); `swapped` exchanges the two leaves'
/// profiles.
fn pair(
    ca: (&Certificate, &SecretKey),
    cn: &str,
    purpose: Profile,
    dns: Option<&str>,
    serial: u32,
    validity: (u64, u64),
    swapped: bool,
) -> Pair {
    let sign_key = key(&format!("{cn} sign key"));
    let enc_key = key(&format!("{cn} enc key"));
    let (sp, ep) = if swapped {
        (Profile::TlcpEnc, purpose)
    } else {
        (purpose, Profile::TlcpEnc)
    };
    // One subject for both leaves: GmSSL 3.3 refuses a pair whose subjects differ.
    let subject = format!("CN={cn},O=shangmi");
    let leaf = |key: &SecretKey, profile, serial| {
        let p = params(&subject, profile, dns, &serial4(serial), validity);
        der(&issue::issue(ca.0, ca.1, &key.public_key(), &p).expect("certificate"))
    };
    Pair {
        sign: leaf(&sign_key, sp, serial),
        sign_key,
        enc: leaf(&enc_key, ep, serial + 1),
        enc_key,
    }
}

/// A self-signed root (serial 1, ten years) of `subject` under `key`.
fn root(subject: &str, key: &SecretKey) -> Certificate {
    let p = params(
        subject,
        Profile::Ca { path_len: None },
        None,
        &serial4(1),
        VALID,
    );
    issue::self_signed(key, &p).expect("root")
}

impl Pki {
    pub fn new() -> Self {
        let ca_key = key("TLCP CA key");
        let ca = root(CA_NAME, &ca_key);
        let other_key = key("TLCP other CA key");
        let other_ca = root(OTHER_CA_NAME, &other_key);
        let c = (&ca, &ca_key);
        let (server_auth, client_auth) = (Profile::TlsServer, Profile::TlsClient);
        let host = Some("localhost");
        let server = pair(c, "localhost", server_auth, host, 10, VALID, false);
        let client = pair(c, "tlcp client", client_auth, None, 20, VALID, false);
        let server_swapped = pair(c, "localhost", server_auth, host, 30, VALID, true);
        let server_expired = pair(c, "localhost", server_auth, host, 40, EXPIRED, false);
        let mut server_other_issuer = server.clone();
        let other = pair(
            (&other_ca, &other_key),
            "localhost",
            server_auth,
            host,
            50,
            VALID,
            false,
        );
        server_other_issuer.enc = other.enc;
        server_other_issuer.enc_key = other.enc_key;
        let server_cn_only = pair(c, "bank.example", server_auth, None, 60, VALID, false);
        Pki {
            ca: der(&ca),
            ca_key,
            server,
            client,
            server_swapped,
            server_expired,
            server_other_issuer,
            server_cn_only,
            other_ca: der(&other_ca),
        }
    }

    pub fn roots(&self) -> RootCertStore {
        let mut r = RootCertStore::empty();
        r.add(self.ca.clone()).unwrap();
        r
    }
}

/// The PKI the recorded conversations (`tests/data/{tongsuo,gmssl}-*.txt`) were made with:
/// the same keys, and the CA, server and client certificates as recorded.
pub fn recorded_pki() -> &'static Pki {
    static PKI: std::sync::OnceLock<Pki> = std::sync::OnceLock::new();
    PKI.get_or_init(|| {
        let cert = |der: &[u8]| CertificateDer::from(der.to_vec());
        let mut p = Pki::new();
        p.ca = cert(include_bytes!("../data/pki/ca.der"));
        p.server.sign = cert(include_bytes!("../data/pki/server_sign.der"));
        p.server.enc = cert(include_bytes!("../data/pki/server_enc.der"));
        p.client.sign = cert(include_bytes!("../data/pki/client_sign.der"));
        p.client.enc = cert(include_bytes!("../data/pki/client_enc.der"));
        p
    })
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
    let ca = Certificate::from_der(&p.ca).expect("CA");
    pair(
        (&ca, &p.ca_key),
        name,
        Profile::TlsServer,
        Some(name),
        serial,
        VALID,
        false,
    )
}
