//! One port for TLCP and TLS 1.3 (RFC 8998): `OnePortAcceptor` reads each connection's first
//! record and runs a TLCP handshake (record version 01 01) or a rustls one (03 xx), each
//! connection in its own task under a handshake deadline. A TLCP client and a shangmi-rustls
//! client then talk to the same port. An ordinary certificate for browsers and curl (rustls'
//! default provider, ECDSA or RSA) goes in with `.tls(config)`: clients that offer no SM
//! suite get it. `shangmi-tlcp`'s `one-port` feature.
//!
//! `cargo run -p shangmi-examples --example tlcp_one_port`

mod tlcp_pki;
mod tls13_pki;

use shangmi_tlcp::oneport::OnePortAcceptor;
use shangmi_tlcp::tokio::TlcpConnector;
use shangmi_tlcp::{ClientConfig, ServerConfig, ServerName};
use std::sync::Arc;
use std::time::Duration;
use tlcp_pki::Error;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    let (tlcp_roots, (sign_cert, sign_key), (enc_cert, enc_key)) = tlcp_pki::server_pki()?;
    let tlcp = ServerConfig::builder().with_certs(vec![sign_cert], sign_key, enc_cert, enc_key)?;
    let (tls_server, tls_client) = tls13_pki::tls13_configs()?;
    let acceptor = Arc::new(
        OnePortAcceptor::builder()
            .tlcp(Arc::new(tlcp))
            .tls_sm(Arc::new(tls_server))
            .handshake_timeout(Duration::from_secs(5))
            .build()?,
    );

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            // A task per connection: a slow client holds up nobody.
            tokio::spawn(async move {
                let Ok(mut conn) = acceptor.accept(sock).await else {
                    return;
                };
                let info = conn.info();
                let line = format!("{} {} {}\n", info.served, info.version, info.suite);
                let _ = conn.write_all(line.as_bytes()).await;
                let _ = conn.shutdown().await;
            });
        }
    });

    let name = ServerName::try_from("localhost")?;
    let tlcp_client = TlcpConnector::from(Arc::new(ClientConfig::builder(tlcp_roots).build()?));
    let mut conn = tlcp_client
        .connect(name.clone(), TcpStream::connect(addr).await?)
        .await?;
    let mut reply = String::new();
    conn.read_to_string(&mut reply).await?;
    print!("TLCP client: {reply}");
    assert_eq!(reply, "TLCP TLCP 1.1 ECC_SM4_GCM_SM3\n");

    let tls = tokio_rustls::TlsConnector::from(Arc::new(tls_client));
    let mut conn = tls.connect(name, TcpStream::connect(addr).await?).await?;
    let mut reply = String::new();
    conn.read_to_string(&mut reply).await?;
    print!("TLS 1.3 client: {reply}");
    assert_eq!(reply, "TLS (SM) TLS 1.3 TLS_SM4_GCM_SM3\n");
    Ok(())
}
