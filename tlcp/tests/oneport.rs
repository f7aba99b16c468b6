//! The one-port acceptor over tokio TCP on loopback (feature `one-port`): TLCP, RFC 8998
//! TLS 1.3 and ordinary TLS (ring, P-256) on one port; idle, one-byte and half-open clients
//! that do not hold up good ones; garbage, oversized records and a TLS 1.0-only client
//! refused with their alerts.
//! No timings are asserted: the deadlines only bound how long a test can take.
#![cfg(feature = "one-port")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod oneport_support;

use oneport_support::*;
use shangmi_tlcp::detect::Refusal;
use shangmi_tlcp::oneport::{AcceptError, OnePortAcceptor, Served};
use shangmi_tlcp::{CipherSuite, ClientAuth, Event, EventHandler};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

async fn start(timeout: Duration) -> (SocketAddr, mpsc::UnboundedReceiver<Outcome>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(serve(listener, acceptor(timeout, 64), tx));
    (addr, rx)
}

/// A TLCP client and an RFC 8998 TLS client, one after the other, each served `msg`.
async fn tlcp_and_sm_tls_served(addr: SocketAddr, msg: &[u8]) {
    assert_eq!(
        tlcp_client(addr, msg).await,
        expected("TLCP", "ECC_SM4_GCM_SM3", msg)
    );
    assert_eq!(
        tls_client(addr, sm_tls_client(), msg).await,
        expected("TLS (SM)", "TLS_SM4_GCM_SM3", msg)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_port_serves_tlcp_tls_sm_and_ordinary_tls() {
    let (addr, mut rx) = start(Duration::from_secs(20)).await;
    let msg = b"one port, three kinds of client";
    tlcp_and_sm_tls_served(addr, msg).await;
    let t13 = ordinary_tls_client(&[&rustls::version::TLS13]);
    assert_eq!(
        tls_client(addr, t13, msg).await,
        expected("TLS", "TLS13_AES_256_GCM_SHA384", msg)
    );
    let served: Vec<_> = (0..3).map(|_| rx.try_recv().unwrap().unwrap()).collect();
    assert_eq!(served[0].version, "TLCP 1.1");
    assert_eq!(served[1].version, "TLS 1.3");
    assert_eq!(served[1].served, Served::TlsSm);
    assert_eq!(served[2].served, Served::Tls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_one_byte_clients_do_not_hold_up_good_ones() {
    let (addr, mut rx) = start(Duration::from_millis(1500)).await;
    let mut idle = TcpStream::connect(addr).await.unwrap();
    let mut one_byte = TcpStream::connect(addr).await.unwrap();
    one_byte.write_all(&[22]).await.unwrap();
    let mut half_header = TcpStream::connect(addr).await.unwrap();
    half_header.write_all(&[22, 1, 1]).await.unwrap();
    // Good clients complete while the three above wait (their deadline is later).
    tlcp_and_sm_tls_served(addr, b"not held up").await;
    assert!(rx.recv().await.unwrap().is_ok());
    assert!(rx.recv().await.unwrap().is_ok());
    // Then the slow ones are timed out and closed.
    for _ in 0..3 {
        assert!(matches!(
            rx.recv().await.unwrap(),
            Err(AcceptError::Timeout)
        ));
    }
    for sock in [&mut idle, &mut one_byte, &mut half_header] {
        let mut buf = [0u8; 16];
        assert_eq!(sock.read(&mut buf).await.unwrap_or(0), 0, "closed");
    }
}

/// Sends `bytes`, closes the write side, returns everything the server sent back.
async fn send_raw(addr: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut sock = TcpStream::connect(addr).await.unwrap();
    sock.write_all(bytes).await.unwrap();
    sock.shutdown().await.unwrap();
    let mut got = Vec::new();
    // A reset after the alert is fine: what arrived before it counts.
    let _ = sock.read_to_end(&mut got).await;
    got
}

/// A TLS 1.0 ClientHello offering only TLS_RSA_WITH_AES_128_CBC_SHA, no extensions
/// (RFC 2246 §7.4.1.2).
fn tls10_client_hello() -> Vec<u8> {
    let mut body = vec![3, 1];
    body.extend_from_slice(&[0x42; 32]); // random
    body.push(0); // session id
    body.extend_from_slice(&[0, 2, 0x00, 0x2f]); // cipher suites
    body.extend_from_slice(&[1, 0]); // compression: null
    let mut hs = vec![1, 0, 0, u8::try_from(body.len()).unwrap()];
    hs.extend_from_slice(&body);
    let mut rec = vec![22, 3, 1, 0, u8::try_from(hs.len()).unwrap()];
    rec.extend_from_slice(&hs);
    rec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_its_alert_and_a_typed_error() {
    let (addr, mut rx) = start(Duration::from_secs(20)).await;
    // Plain HTTP on the TLS port: unexpected_message (10).
    assert_eq!(
        send_raw(addr, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await,
        [21, 3, 3, 0, 2, 2, 10]
    );
    let got = rx.recv().await.unwrap();
    assert!(
        matches!(got, Err(AcceptError::Refused(Refusal::NotHandshake(b'G')))),
        "{got:?}"
    );
    // Oversized first records: record_overflow (22), in TLCP's version for TLCP.
    assert_eq!(
        send_raw(addr, &[22, 1, 1, 0x48, 0]).await,
        [21, 1, 1, 0, 2, 2, 22]
    );
    assert_eq!(
        send_raw(addr, &[22, 3, 1, 0xff, 0xff]).await,
        [21, 3, 3, 0, 2, 2, 22]
    );
    for _ in 0..2 {
        let got = rx.recv().await.unwrap();
        assert!(
            matches!(got, Err(AcceptError::Refused(Refusal::Oversized(_)))),
            "{got:?}"
        );
    }
    // Half-open: two bytes, then the client's write side closed.
    assert_eq!(send_raw(addr, &[22, 3]).await, b"");
    let got = rx.recv().await.unwrap();
    assert!(matches!(got, Err(AcceptError::Closed(2))), "{got:?}");
    // A TLS 1.0-only client: protocol_version (70) from its ClientHello's version, before
    // rustls (which would answer handshake_failure for the missing signature_algorithms).
    assert_eq!(
        send_raw(addr, &tls10_client_hello()).await,
        [21, 3, 3, 0, 2, 2, 70]
    );
    let got = rx.recv().await.unwrap();
    assert!(
        matches!(got, Err(AcceptError::Refused(Refusal::ObsoleteTls([3, 1])))),
        "{got:?}"
    );
    // A TLCP ClientHello cut short by the client's close: the TLCP error, not a hang.
    let reply = send_raw(addr, &[22, 1, 1, 0, 40, 1, 0, 0]).await;
    assert!(reply.is_empty() || reply[0] == 21, "{reply:?}");
    let got = rx.recv().await.unwrap();
    assert!(matches!(got, Err(AcceptError::Tlcp(_))), "{got:?}");
}

/// Writes one line per event it hears.
#[derive(Debug, Default)]
struct Recorder(std::sync::Mutex<Vec<String>>);

impl EventHandler for Recorder {
    fn event(&self, event: &Event<'_>) {
        let line = match event {
            Event::HandshakeCompleted {
                protocol, suite, ..
            } => format!("completed {protocol} {}", suite.name()),
            Event::Accepted(info) => {
                format!("accepted {} {} {}", info.served, info.version, info.suite)
            }
            Event::Refused(e) => format!("refused {e}"),
            _ => return,
        };
        self.0.lock().unwrap().push(line);
    }
}

/// The acceptor raises the crate's events for TLS connections as for TLCP ones: accepted
/// with the protocol and suite, refused with the reason; by default to the TLCP
/// configuration's handler (which also hears its TLCP handshakes), or to one of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_for_tlcp_and_tls_connections() {
    for own_handler in [false, true] {
        let recorder = Arc::new(Recorder::default());
        let handler: Arc<dyn EventHandler> = recorder.clone();
        let tlcp = common::server_config_with(
            &common::pki().server,
            &CipherSuite::ALL,
            ClientAuth::None,
            |b| {
                if own_handler {
                    b
                } else {
                    b.events(handler.clone())
                }
            },
        );
        let mut builder = OnePortAcceptor::builder()
            .tlcp(Arc::new(tlcp))
            .tls_sm(sm_tls_server())
            .tls(ordinary_tls_server());
        if own_handler {
            builder = builder.events(handler.clone());
        }
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let server = tokio::spawn(serve(listener, Arc::new(builder.build().unwrap()), tx));
        let msg = b"events";
        tlcp_client(addr, msg).await;
        rx.recv().await.unwrap().unwrap();
        tls_client(addr, sm_tls_client(), msg).await;
        rx.recv().await.unwrap().unwrap();
        let t13 = ordinary_tls_client(&[&rustls::version::TLS13]);
        tls_client(addr, t13, msg).await;
        rx.recv().await.unwrap().unwrap();
        send_raw(addr, b"GET / HTTP/1.1\r\n\r\n").await;
        rx.recv().await.unwrap().unwrap_err();
        server.abort();
        let mut expect = vec![
            "accepted TLCP TLCP 1.1 ECC_SM4_GCM_SM3",
            "accepted TLS (SM) TLS 1.3 TLS_SM4_GCM_SM3",
            "accepted TLS TLS 1.3 TLS13_AES_256_GCM_SHA384",
            "refused first byte 0x47 does not start a handshake record",
        ];
        if !own_handler {
            expect.insert(0, "completed TLCP 1.1 ECC_SM4_GCM_SM3");
        }
        assert_eq!(
            *recorder.0.lock().unwrap(),
            expect,
            "own handler: {own_handler}"
        );
    }
}
