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
