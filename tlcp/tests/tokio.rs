//! TlcpConnector/TlcpAcceptor over tokio TCP (feature `tokio`).
#![cfg(feature = "tokio")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use shangmi_tlcp::tokio::{TlcpAcceptor, TlcpConnector};
use shangmi_tlcp::{CipherSuite, ClientAuth, ServerName};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test(flavor = "current_thread")]
async fn tokio_echo_every_suite() {
    for suite in CipherSuite::ALL {
        let mutual = suite.is_ecdhe();
        let auth = if mutual {
            ClientAuth::Required
        } else {
            ClientAuth::None
        };
        let acceptor = TlcpAcceptor::from(Arc::new(server_config(&[suite], auth)));
        let connector = TlcpConnector::from(Arc::new(client_config(&[suite], mutual)));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (sock, _) = listener.accept().await.unwrap();
            let mut tls = acceptor.accept(sock).await.unwrap();
            let mut buf = vec![0u8; 100_000];
            tls.read_exact(&mut buf).await.unwrap();
            tls.write_all(&buf).await.unwrap();
            tls.shutdown().await.unwrap();
        });
        let sock = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut tls = connector
            .connect(ServerName::try_from("localhost").unwrap(), sock)
            .await
            .unwrap();
        assert_eq!(tls.get_ref().1.negotiated_cipher_suite(), Some(suite));
        let msg: Vec<u8> = (0..100_000u32).map(|i| i as u8).collect();
        tls.write_all(&msg).await.unwrap();
        tls.flush().await.unwrap();
        let mut got = Vec::new();
        tls.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, msg);
        server.await.unwrap();
    }
}

/// A record the server cannot accept (here a ClientHello that repeats an extension) fails
/// the read, and its alert still goes out on the write side, which works: the client reads
/// illegal_parameter, then the close.
#[tokio::test(flavor = "current_thread")]
async fn refused_read_sends_its_alert() {
    use shangmi_tlcp::msgs::{self, ClientExtension, Codec};
    let acceptor = TlcpAcceptor::from(Arc::new(server_config(
        &[CipherSuite::EccSm4GcmSm3],
        ClientAuth::None,
    )));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        let (sock, _) = listener.accept().await.unwrap();
        acceptor.accept(sock).await.map(|_| ())
    });
    let mut c = shangmi_tlcp::ClientConnection::new(
        Arc::new(client_config(&[CipherSuite::EccSm4GcmSm3], false)),
        ServerName::try_from("localhost").unwrap(),
    )
    .unwrap();
    let mut hello = messages(&records(&take_output(&mut c)));
    let mut ch = msgs::ClientHello::read_bytes(&hello[0].1).unwrap();
    let exts = ch.extensions.as_mut().unwrap();
    exts.push(ClientExtension::Unknown(0xff01, vec![0]));
    exts.push(ClientExtension::Unknown(0xff01, vec![0]));
    hello[0].1 = ch.to_bytes();
    let mut sock = tokio::net::TcpStream::connect(addr).await.unwrap();
    sock.write_all(&handshake_records(&hello)).await.unwrap();
    let mut got = Vec::new();
    sock.read_to_end(&mut got).await.unwrap();
    assert_eq!(got, [21, 1, 1, 0, 2, 2, 47]);
    let e = server.await.unwrap().unwrap_err();
    assert!(e.to_string().contains("extension type sent twice"), "{e}");
}
