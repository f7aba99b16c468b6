//! What the one-port tests share: the two rustls configurations (RFC 8998 on the TLCP test
//! PKI's sign certificate; ordinary TLS on a P-256 certificate made once with OpenSSL,
//! `tests/data/ordinary/`), a server that answers every accepted connection, and clients.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use crate::common::{client_config, pki, server_config};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
use shangmi_tlcp::oneport::{AcceptError, ConnectionInfo, OnePortAcceptor};
use shangmi_tlcp::tokio::TlcpConnector;
use shangmi_tlcp::{CertificateDer, CipherSuite, ClientAuth, ServerName};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

const ORDINARY_CA: &[u8] = include_bytes!("../data/ordinary/ca.crt");
const ORDINARY_CERT: &[u8] = include_bytes!("../data/ordinary/server.crt");
const ORDINARY_KEY: &[u8] = include_bytes!("../data/ordinary/server.key");

fn sm_provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(shangmi_rustls::provider())
}

fn ring_provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// RFC 8998 server: TLS 1.3, the TLCP server's sign certificate (SAN localhost).
pub fn sm_tls_server() -> Arc<rustls::ServerConfig> {
    let p = &pki().server;
    let key = p.sign_key.to_pkcs8_der().unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.as_bytes().to_vec()));
    let config = rustls::ServerConfig::builder_with_provider(sm_provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![p.sign.clone(), pki().ca.clone()], key)
        .unwrap();
    Arc::new(config)
}

/// Ordinary server: ring, TLS 1.2 and 1.3, the P-256 certificate.
pub fn ordinary_tls_server() -> Arc<rustls::ServerConfig> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(ORDINARY_CERT)
        .collect::<Result<_, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(ORDINARY_KEY).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(ring_provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    Arc::new(config)
}

/// A client of the SM server (shangmi-rustls, TLS 1.3).
pub fn sm_tls_client() -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(pki().ca.clone()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(sm_provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

/// A client of the ordinary server (ring, TLS 1.2 or 1.3 as given).
pub fn ordinary_tls_client(
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(ORDINARY_CA) {
        roots.add(ca.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(ring_provider())
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    Arc::new(config)
}

/// The acceptor with all three configurations.
pub fn acceptor(timeout: Duration, max_handshakes: usize) -> Arc<OnePortAcceptor> {
    let tlcp = server_config(&CipherSuite::ALL, ClientAuth::None);
    Arc::new(
        OnePortAcceptor::builder()
            .tlcp(Arc::new(tlcp))
            .tls_sm(sm_tls_server())
            .tls(ordinary_tls_server())
            .handshake_timeout(timeout)
            .max_handshakes(max_handshakes)
            .build()
            .unwrap(),
    )
}

/// What the server reports per accepted transport.
pub type Outcome = Result<ConnectionInfo, AcceptError>;

/// Serves every connection in a task of its own: reads a u32 length and that many bytes,
/// answers `<served>|<suite>\n` and the bytes, closes. Sends each handshake's outcome.
pub async fn serve(
    listener: TcpListener,
    acceptor: Arc<OnePortAcceptor>,
    tx: mpsc::UnboundedSender<Outcome>,
) {
    loop {
        let Ok((sock, _)) = listener.accept().await else {
            return;
        };
        let acceptor = acceptor.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            match acceptor.accept(sock).await {
                Ok(mut conn) => {
                    let info = conn.info();
                    let _ = answer(&mut conn, &info).await;
                    let _ = tx.send(Ok(info));
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            }
        });
    }
}

async fn answer<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut S,
    info: &ConnectionInfo,
) -> std::io::Result<()> {
    let len = conn.read_u32().await?;
    let mut body = vec![0u8; len as usize];
    conn.read_exact(&mut body).await?;
    conn.write_all(format!("{}|{}\n", info.served, info.suite).as_bytes())
        .await?;
    conn.write_all(&body).await?;
    conn.shutdown().await
}

/// Sends `msg` framed, returns the whole answer.
async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(mut conn: S, msg: &[u8]) -> Vec<u8> {
    conn.write_u32(u32::try_from(msg.len()).unwrap())
        .await
        .unwrap();
    conn.write_all(msg).await.unwrap();
    conn.flush().await.unwrap();
    let mut got = Vec::new();
    conn.read_to_end(&mut got).await.unwrap();
    got
}

/// A TLCP client (ECC_SM4_GCM_SM3, no client certificates).
pub async fn tlcp_client(addr: SocketAddr, msg: &[u8]) -> Vec<u8> {
    let connector =
        TlcpConnector::from(Arc::new(client_config(&[CipherSuite::EccSm4GcmSm3], false)));
    let sock = TcpStream::connect(addr).await.unwrap();
    let tls = connector
        .connect(ServerName::try_from("localhost").unwrap(), sock)
        .await
        .unwrap();
    exchange(tls, msg).await
}

/// A rustls client with `config`.
pub async fn tls_client(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
    msg: &[u8],
) -> Vec<u8> {
    let connector = tokio_rustls::TlsConnector::from(config);
    let sock = TcpStream::connect(addr).await.unwrap();
    let tls = connector
        .connect(
            rustls::pki_types::ServerName::try_from("localhost").unwrap(),
            sock,
        )
        .await
        .unwrap();
    exchange(tls, msg).await
}

/// The expected answer.
pub fn expected(served: &str, suite: &str, msg: &[u8]) -> Vec<u8> {
    let mut v = format!("{served}|{suite}\n").into_bytes();
    v.extend_from_slice(msg);
    v
}
