//! TLCP over tokio: a `TlcpAcceptor` serves an echo on a loopback port and a
//! `TlcpConnector` talks to it over ECDHE_SM4_GCM_SM3 with client authentication (ECDHE
//! needs the client's encryption key), both as `AsyncRead + AsyncWrite` streams — the shape
//! tokio-rustls has, so hyper- or axum-style code can sit on them. `shangmi-tlcp`'s `tokio`
//! feature.
//!
//! `cargo run -p shangmi-examples --example tlcp_tokio`

mod tlcp_pki;

use shangmi_tlcp::tokio::{TlcpAcceptor, TlcpConnector};
use shangmi_tlcp::{CipherSuite, ClientAuth, ClientConfig, ServerConfig, ServerName};
use std::sync::Arc;
use tlcp_pki::Error;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    // One CA issues the server's pair and the client's pair (a real gateway's client pair
    // comes from its bank's CA; the server trusts that CA with `client_auth`).
    let (roots, (sign_cert, sign_key), (enc_cert, enc_key)) = tlcp_pki::server_pki()?;
    let suites = [CipherSuite::EcdheSm4GcmSm3];

    let server = ServerConfig::builder()
        .suites(&suites)
        .client_auth(ClientAuth::Required, roots.clone())
        .with_certs(
            vec![sign_cert.clone()],
            sign_key.clone(),
            enc_cert.clone(),
            enc_key.clone(),
        )?;
    let acceptor = TlcpAcceptor::from(Arc::new(server));
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let echo = tokio::spawn(async move {
        let (sock, _) = listener.accept().await?;
        let mut tlcp = BufReader::new(acceptor.accept(sock).await?);
        let mut line = String::new();
        tlcp.read_line(&mut line).await?;
        tlcp.get_mut().write_all(line.as_bytes()).await?;
        tlcp.get_mut().shutdown().await?;
        Ok::<_, std::io::Error>(())
    });

    // The client presents the same pair here (the example's one CA issued it).
    let client = ClientConfig::builder(roots)
        .suites(&suites)
        .client_certs(vec![sign_cert], sign_key, enc_cert, enc_key)
        .build()?;
    let connector = TlcpConnector::from(Arc::new(client));
    let sock = TcpStream::connect(addr).await?;
    let mut tlcp = BufReader::new(
        connector
            .connect(ServerName::try_from("localhost")?, sock)
            .await?,
    );
    tlcp.get_mut()
        .write_all(b"hello over TLCP and tokio\n")
        .await?;
    let mut reply = String::new();
    tlcp.read_line(&mut reply).await?;
    let suite = tlcp.get_ref().get_ref().1.negotiated_cipher_suite();
    println!("{:?}: {}", suite.map(|s| s.name()), reply.trim_end());
    assert_eq!(reply, "hello over TLCP and tokio\n");
    echo.await??;
    Ok(())
}
