//! Shared pieces of the TLS tests: the test PKI, configurations, and an in-memory pump that
//! moves records between a client and a server in one process.

#![allow(dead_code)] // each test file uses a different part

pub mod pki;
pub mod replay;
pub mod wire;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::server::danger::ClientCertVerifier;
use rustls::time_provider::{DefaultTimeProvider, TimeProvider};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};
use shangmi_sm2::SecretKey;
use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
use std::sync::Arc;

/// Seconds since the epoch of the clock of the tests that must not depend on today
/// (2026-11-24 00:00 UTC): [`fixed_time`].
pub const FIXED_NOW: u64 = 1_795_478_400;

/// The clock stopped at [`FIXED_NOW`].
pub fn fixed_time() -> Arc<dyn TimeProvider> {
    Arc::new(shangmi_rustls::time::FixedTime::from_secs(FIXED_NOW))
}

pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(shangmi_rustls::provider())
}

pub fn pkcs8(key: &SecretKey) -> PrivateKeyDer<'static> {
    let doc = key.to_pkcs8_der().expect("PKCS#8");
    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(doc.as_bytes().to_vec()))
}

pub fn roots(ca: &[u8]) -> Arc<RootCertStore> {
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from(ca.to_vec()))
        .expect("CA certificate");
    Arc::new(roots)
}

/// Which side proves its identity.
#[derive(Clone, Copy, Debug)]
pub enum Auth {
    ServerOnly,
    Mutual,
}

/// A client for the test PKI, with `provider` (suites and groups already chosen).
pub fn client_config(pki: &pki::Pki, provider: Arc<CryptoProvider>, auth: Auth) -> ClientConfig {
    client_config_with(pki, provider, Arc::new(DefaultTimeProvider), auth)
}

/// [`client_config`] with a chosen clock.
pub fn client_config_with(
    pki: &pki::Pki,
    provider: Arc<CryptoProvider>,
    time: Arc<dyn TimeProvider>,
    auth: Auth,
) -> ClientConfig {
    let verifier = WebPkiServerVerifier::builder_with_provider(roots(&pki.ca), provider.clone())
        .build()
        .expect("verifier");
    client_config_verified(pki, provider, time, verifier, auth)
}

/// [`client_config_with`] checking the server with `verifier`.
pub fn client_config_verified(
    pki: &pki::Pki,
    provider: Arc<CryptoProvider>,
    time: Arc<dyn TimeProvider>,
    verifier: Arc<dyn ServerCertVerifier>,
    auth: Auth,
) -> ClientConfig {
    let builder = ClientConfig::builder_with_details(provider, time)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    match auth {
        Auth::ServerOnly => builder.with_no_client_auth(),
        Auth::Mutual => builder
            .with_client_auth_cert(
                vec![CertificateDer::from(pki.client.clone())],
                pkcs8(&pki.client_key),
            )
            .expect("client key"),
    }
}

/// A server for the test PKI presenting `cert`, with `provider`.
pub fn server_config_with_cert(
    pki: &pki::Pki,
    provider: Arc<CryptoProvider>,
    auth: Auth,
    cert: &[u8],
) -> ServerConfig {
    server_config_with(pki, provider, Arc::new(DefaultTimeProvider), auth, cert)
}

/// [`server_config_with_cert`] with a chosen clock.
pub fn server_config_with(
    pki: &pki::Pki,
    provider: Arc<CryptoProvider>,
    time: Arc<dyn TimeProvider>,
    auth: Auth,
    cert: &[u8],
) -> ServerConfig {
    let verifier = match auth {
        Auth::ServerOnly => None,
        Auth::Mutual => Some(
            WebPkiClientVerifier::builder_with_provider(roots(&pki.ca), provider.clone())
                .build()
                .expect("client verifier"),
        ),
    };
    server_config_verified(pki, provider, time, verifier, cert)
}

/// [`server_config_with`] asking for a client certificate exactly when given a
/// `verifier` for it.
pub fn server_config_verified(
    pki: &pki::Pki,
    provider: Arc<CryptoProvider>,
    time: Arc<dyn TimeProvider>,
    verifier: Option<Arc<dyn ClientCertVerifier>>,
    cert: &[u8],
) -> ServerConfig {
    let builder = ServerConfig::builder_with_details(provider, time)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3");
    let builder = match verifier {
        None => builder.with_no_client_auth(),
        Some(verifier) => builder.with_client_cert_verifier(verifier),
    };
    builder
        .with_single_cert(
            vec![CertificateDer::from(cert.to_vec())],
            pkcs8(&pki.server_key),
        )
        .expect("server key")
}

pub fn server_config(pki: &pki::Pki, provider: Arc<CryptoProvider>, auth: Auth) -> ServerConfig {
    server_config_with_cert(pki, provider, auth, &pki.server)
}

pub fn connect(
    client: &Arc<ClientConfig>,
    server: &Arc<ServerConfig>,
) -> (ClientConnection, ServerConnection) {
    let name = ServerName::try_from("localhost").expect("name");
    (
        ClientConnection::new(client.clone(), name).expect("client"),
        ServerConnection::new(server.clone()).expect("server"),
    )
}

/// Which side failed in [`pump`].
#[derive(Debug, PartialEq)]
pub enum Failed {
    Client(rustls::Error),
    Server(rustls::Error),
}

/// Moves records both ways until neither side has anything to send; stops at the first
/// error (the failing side's alert is then still sent to the other side, which records it
/// through `process_new_packets` on the next call). Plaintext that arrives is left in the
/// connections' readers.
pub fn pump(client: &mut ClientConnection, server: &mut ServerConnection) -> Result<(), Failed> {
    pump_collect(client, server, None)
}

/// [`pump`], draining the plaintext each side receives into `sinks` (server's, client's) as
/// it arrives, so transfers larger than rustls' receive buffer can flow.
pub fn pump_collect(
    client: &mut ClientConnection,
    server: &mut ServerConnection,
    sinks: Option<(&mut Vec<u8>, &mut Vec<u8>)>,
) -> Result<(), Failed> {
    let (mut to_server, mut to_client) = sinks.unzip();
    loop {
        let to_server = flight(client, server, to_server.as_deref_mut()).map_err(Failed::Server)?;
        let to_client = flight(server, client, to_client.as_deref_mut()).map_err(Failed::Client)?;
        if !to_server && !to_client {
            return Ok(());
        }
    }
}

/// Moves what `from` has to send to `to` (draining the plaintext `to` receives into `sink`
/// as it arrives); whether anything moved, or `to`'s error.
fn flight<A, B>(
    from: &mut rustls::ConnectionCommon<A>,
    to: &mut rustls::ConnectionCommon<B>,
    mut sink: Option<&mut Vec<u8>>,
) -> Result<bool, rustls::Error> {
    use std::io::Read;
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf).expect("write to Vec");
    }
    let mut rd = &buf[..];
    while !rd.is_empty() {
        to.read_tls(&mut rd).expect("read from slice");
        to.process_new_packets()?;
        if let Some(sink) = sink.as_deref_mut() {
            let mut chunk = [0u8; 1 << 14];
            while let Ok(n @ 1..) = to.reader().read(&mut chunk) {
                sink.extend_from_slice(&chunk[..n]);
            }
        }
    }
    Ok(!buf.is_empty())
}

/// After a failure on one side, delivers that side's alert and returns what the other
/// side makes of it.
pub fn deliver_alert(
    from_client: bool,
    client: &mut ClientConnection,
    server: &mut ServerConnection,
) -> rustls::Error {
    let delivered = if from_client {
        flight(client, server, None)
    } else {
        flight(server, client, None)
    };
    delivered.expect_err("the alert is an error")
}
