//! SM TLS under tokio with `tokio-rustls`: a server task and a client on loopback, in one
//! process, with the test PKI (`tests/common/pki.rs`). Runs on its own:
//!
//! ```text
//! cargo run -p shangmi-rustls --example tokio_echo
//! ```
//!
//! hyper, tonic and reqwest take the same `rustls::ClientConfig`/`ServerConfig`.

#[path = "../tests/common/pki.rs"]
#[allow(dead_code)]
mod pki;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pki = pki::Pki::new();
    let provider = Arc::new(shangmi_rustls::provider());

    let key = PrivatePkcs8KeyDer::from(pki.server_key.to_pkcs8_der()?.as_bytes().to_vec());
    let server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(pki.server.clone())],
            PrivateKeyDer::Pkcs8(key),
        )?;
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(server));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server_task = tokio::spawn(async move {
        let (sock, _) = listener.accept().await?;
        let mut tls = acceptor.accept(sock).await?;
        let mut buf = vec![0u8; 1024];
        let n = tls.read(&mut buf).await?;
        tls.write_all(&buf[..n]).await?;
        tls.shutdown().await?;
        Ok::<_, std::io::Error>(())
    });

    let mut roots = rustls::RootCertStore::empty();
    roots.add(CertificateDer::from(pki.ca.clone()))?;
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(client));
    let sock = tokio::net::TcpStream::connect(addr).await?;
    let mut tls = connector
        .connect(ServerName::try_from("localhost")?, sock)
        .await?;
    tls.write_all(b"hello over TLS_SM4_GCM_SM3").await?;
    let mut echo = Vec::new();
    tls.read_to_end(&mut echo).await?;
    server_task.await??;
    let (_, conn) = tls.get_ref();
    println!(
        "{} (suite {:?}, group {:?})",
        String::from_utf8_lossy(&echo),
        conn.negotiated_cipher_suite().map(|s| s.suite()),
        conn.negotiated_key_exchange_group().map(|g| g.name()),
    );
    assert_eq!(echo, b"hello over TLS_SM4_GCM_SM3");
    Ok(())
}
