//! In-process client × server: every suite × server-only/mutual (ECDHE mutual only) ×
//! full/resumed, bulk data, many small records, close_notify and truncation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use shangmi_tlcp::*;
use std::io::{Read, Write};
use std::sync::Arc;

const ECC: [CipherSuite; 2] = [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3];
const ECDHE: [CipherSuite; 2] = [CipherSuite::EcdheSm4GcmSm3, CipherSuite::EcdheSm4CbcSm3];

fn exchange(c: &mut ClientConnection, s: &mut ServerConnection, msg: &[u8]) {
    c.writer().write_all(msg).unwrap();
    deliver(c, s).unwrap();
    let mut got = vec![0u8; msg.len()];
    s.reader().read_exact(&mut got).unwrap();
    assert_eq!(got, msg);
    s.writer().write_all(b"pong").unwrap();
    deliver(s, c).unwrap();
    let mut got = [0u8; 4];
    c.reader().read_exact(&mut got).unwrap();
    assert_eq!(&got, b"pong");
}

fn matrix_case(suite: CipherSuite, mutual: bool) {
    let auth = if mutual {
        ClientAuth::Required
    } else {
        ClientAuth::None
    };
    let sc = Arc::new(server_config(&[suite], auth));
    let cc = Arc::new(client_config(&[suite], mutual));
    // full
    let (mut c, mut s) = connect(&cc, &sc);
    assert_eq!(c.negotiated_cipher_suite(), Some(suite));
    assert_eq!(s.negotiated_cipher_suite(), Some(suite));
    assert!(!c.is_resumed() && !s.is_resumed());
    let peer = c.peer_certificates().expect("server certificates");
    assert_eq!(peer.len(), 2);
    assert_eq!(peer[0], pki().server.sign);
    assert_eq!(peer[1], pki().server.enc);
    if mutual {
        let cp = s.peer_certificates().expect("client certificates");
        assert_eq!(cp[0], pki().client.sign);
        assert_eq!(cp[1], pki().client.enc);
    } else {
        assert!(s.peer_certificates().is_none());
    }
    assert_eq!(s.server_name(), Some("localhost"));
    exchange(&mut c, &mut s, b"hello over TLCP");
    // resumed
    let (mut c2, mut s2) = connect(&cc, &sc);
    assert!(c2.is_resumed() && s2.is_resumed(), "{suite:?} resumed");
    assert_eq!(c2.negotiated_cipher_suite(), Some(suite));
    assert_eq!(c2.peer_certificates().unwrap()[0], pki().server.sign);
    if mutual {
        assert_eq!(s2.peer_certificates().unwrap()[0], pki().client.sign);
    }
    exchange(&mut c2, &mut s2, b"hello again");
}

#[test]
fn ecc_gcm_server_only() {
    matrix_case(CipherSuite::EccSm4GcmSm3, false);
}

#[test]
fn ecc_gcm_mutual() {
    matrix_case(CipherSuite::EccSm4GcmSm3, true);
}

#[test]
fn ecc_cbc_server_only() {
    matrix_case(CipherSuite::EccSm4CbcSm3, false);
}

#[test]
fn ecc_cbc_mutual() {
    matrix_case(CipherSuite::EccSm4CbcSm3, true);
}

#[test]
fn ecdhe_gcm_mutual() {
    matrix_case(CipherSuite::EcdheSm4GcmSm3, true);
}

#[test]
fn ecdhe_cbc_mutual() {
    matrix_case(CipherSuite::EcdheSm4CbcSm3, true);
}

/// ECDHE is chosen even with ClientAuth::None on the server: it asks for certificates.
#[test]
fn ecdhe_requests_client_certs_by_itself() {
    let sc = Arc::new(server_config(&ECDHE, ClientAuth::None));
    let cc = Arc::new(client_config(&ECDHE, true));
    let (c, s) = connect(&cc, &sc);
    assert_eq!(
        c.negotiated_cipher_suite(),
        Some(CipherSuite::EcdheSm4GcmSm3)
    );
    assert!(s.peer_certificates().is_some());
}

/// A client without certificates does not offer ECDHE; the server picks ECC.
#[test]
fn client_without_certs_gets_ecc() {
    let all = CipherSuite::ALL;
    let sc = Arc::new(server_config(&[ECDHE[0], ECC[1]], ClientAuth::None));
    let cc = Arc::new(client_config(&all, false));
    let (c, _s) = connect(&cc, &sc);
    assert_eq!(c.negotiated_cipher_suite(), Some(CipherSuite::EccSm4CbcSm3));
}

#[test]
fn optional_client_auth_without_certs() {
    let sc = Arc::new(server_config(&ECC, ClientAuth::Optional));
    let cc = Arc::new(client_config(&ECC, false));
    let (mut c, mut s) = connect(&cc, &sc);
    assert!(s.peer_certificates().is_none());
    exchange(&mut c, &mut s, b"optional");
}

#[test]
fn alpn_negotiated() {
    let sc = Arc::new(server_config_with(
        &pki().server,
        &ECC,
        ClientAuth::None,
        |b| b.alpn_protocols(vec![b"h2".to_vec(), b"http/1.1".to_vec()]),
    ));
    let cc = Arc::new(client_config_with(&ECC, false, |b| {
        b.alpn_protocols(vec![b"http/1.1".to_vec()])
    }));
    let (c, s) = connect(&cc, &sc);
    assert_eq!(c.alpn_protocol(), Some(&b"http/1.1"[..]));
    assert_eq!(s.alpn_protocol(), Some(&b"http/1.1"[..]));
}

/// A server whose cache forgot the session runs a full handshake; the client copes.
#[test]
fn resumption_falls_back_to_full() {
    let cc = Arc::new(client_config(&ECC, false));
    let sc1 = Arc::new(server_config(&ECC, ClientAuth::None));
    let _ = connect(&cc, &sc1);
    let sc2 = Arc::new(server_config(&ECC, ClientAuth::None));
    let (c, s) = connect(&cc, &sc2);
    assert!(!c.is_resumed() && !s.is_resumed());
    let (c, s) = connect(&cc, &sc2);
    assert!(c.is_resumed() && s.is_resumed());
}

#[test]
fn server_cache_is_bounded() {
    let cache = ServerSessionCache::new(2);
    let sc = Arc::new(server_config_with(
        &pki().server,
        &ECC,
        ClientAuth::None,
        |b| b.session_cache(cache.clone()),
    ));
    for _ in 0..5 {
        let cc = Arc::new(client_config(&ECC, false));
        let _ = connect(&cc, &sc);
    }
    assert_eq!(cache.len(), 2);
}

fn bulk(suite: CipherSuite, mutual: bool, total: usize) {
    let auth = if mutual {
        ClientAuth::Required
    } else {
        ClientAuth::None
    };
    let sc = Arc::new(server_config(&[suite], auth));
    let cc = Arc::new(client_config(&[suite], mutual));
    let (mut c, mut s) = connect(&cc, &sc);
    let chunk: Vec<u8> = (0..65536u32).map(|i| (i * 7 + 3) as u8).collect();
    let mut sent = 0;
    let mut recv_s = 0;
    let mut recv_c = 0;
    let mut buf = vec![0u8; 65536];
    while sent < total {
        c.writer().write_all(&chunk).unwrap();
        s.writer().write_all(&chunk).unwrap();
        sent += chunk.len();
        deliver(&mut c, &mut s).unwrap();
        deliver(&mut s, &mut c).unwrap();
        loop {
            match s.reader().read(&mut buf) {
                Ok(n) => {
                    assert_eq!(&buf[..n], &chunk[recv_s % 65536..recv_s % 65536 + n]);
                    recv_s += n;
                }
                Err(e) => {
                    assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock);
                    break;
                }
            }
        }
        while let Ok(n) = c.reader().read(&mut buf) {
            assert_eq!(&buf[..n], &chunk[recv_c % 65536..recv_c % 65536 + n]);
            recv_c += n;
        }
    }
    assert_eq!(recv_s, total);
    assert_eq!(recv_c, total);
}

/// 16 MiB both ways per suite in release builds (256 KiB in debug builds, to keep debug test
/// time short).
#[test]
fn bulk_every_suite() {
    let total = if cfg!(debug_assertions) {
        1 << 18
    } else {
        16 << 20
    };
    for suite in CipherSuite::ALL {
        bulk(suite, suite.is_ecdhe(), total);
    }
}

#[test]
fn two_thousand_one_byte_records() {
    for suite in [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3] {
        let sc = Arc::new(server_config(&[suite], ClientAuth::None));
        let cc = Arc::new(client_config(&[suite], false));
        let (mut c, mut s) = connect(&cc, &sc);
        for i in 0..2000u32 {
            c.writer().write_all(&[i as u8]).unwrap();
        }
        let wire = take_output(&mut c);
        assert_eq!(records(&wire).len(), 2000);
        feed(&wire, &mut s).unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = s.reader().read(&mut buf) {
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got.len(), 2000);
        assert!(got.iter().enumerate().all(|(i, b)| *b == i as u8));
    }
}

#[test]
fn close_notify_and_truncation() {
    let sc = Arc::new(server_config(&ECC, ClientAuth::None));
    let cc = Arc::new(client_config(&ECC, false));
    let (mut c, mut s) = connect(&cc, &sc);
    c.writer().write_all(b"last words").unwrap();
    c.send_close_notify();
    deliver(&mut c, &mut s).unwrap();
    let mut got = Vec::new();
    s.reader().read_to_end(&mut got).unwrap();
    assert_eq!(got, b"last words");
    assert!(s.process_new_packets().unwrap().peer_has_closed);
    // Writing after close_notify fails.
    assert!(c.writer().write_all(b"more").is_err());

    // Truncation: the transport ends without close_notify.
    let (mut c, mut s) = connect(&cc, &sc);
    s.writer().write_all(b"partial").unwrap();
    deliver(&mut s, &mut c).unwrap();
    c.read_tls(&mut &[][..]).unwrap();
    c.process_new_packets().unwrap();
    let mut got = Vec::new();
    let err = c.reader().read_to_end(&mut got).unwrap_err();
    assert_eq!(got, b"partial");
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
}

/// Data written before the handshake completes goes out once it does.
#[test]
fn early_writes_are_buffered() {
    let sc = Arc::new(server_config(&ECC, ClientAuth::None));
    let cc = Arc::new(client_config(&ECC, false));
    let mut c = ClientConnection::new(cc, ServerName::try_from("localhost").unwrap()).unwrap();
    let mut s = ServerConnection::new(sc).unwrap();
    c.writer().write_all(b"early").unwrap();
    handshake(&mut c, &mut s).unwrap();
    deliver(&mut c, &mut s).unwrap();
    let mut got = [0u8; 5];
    s.reader().read_exact(&mut got).unwrap();
    assert_eq!(&got, b"early");
}

/// StreamOwned over a real TCP socket, one thread per side.
#[test]
fn stream_over_tcp() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let sc = Arc::new(server_config(&ECDHE, ClientAuth::Required));
    let server = std::thread::spawn(move || {
        let (sock, _) = listener.accept().unwrap();
        let conn = ServerConnection::new(sc).unwrap();
        let mut tls = StreamOwned::new(conn, sock);
        let mut buf = [0u8; 5];
        tls.read_exact(&mut buf).unwrap();
        tls.write_all(&buf).unwrap();
        tls.close().unwrap();
    });
    let cc = Arc::new(client_config(&ECDHE, true));
    let conn = ClientConnection::new(cc, ServerName::try_from("localhost").unwrap()).unwrap();
    let sock = std::net::TcpStream::connect(addr).unwrap();
    let mut tls = StreamOwned::new(conn, sock);
    tls.write_all(b"hello").unwrap();
    let mut got = Vec::new();
    tls.read_to_end(&mut got).unwrap();
    assert_eq!(got, b"hello");
    assert_eq!(
        tls.conn.negotiated_cipher_suite(),
        Some(CipherSuite::EcdheSm4GcmSm3)
    );
    server.join().unwrap();
}

/// With a seeded generator and a fixed clock the client's first flight is reproducible
/// (what replayed recordings need).
#[test]
fn seeded_rng_and_fixed_clock_reproduce_the_flight() {
    let flight = || {
        let cc = Arc::new(client_config_with(&ECC, false, |b| {
            b.rng(SeededRandom::new(7))
                .time(Arc::new(FixedTime(UnixTime::since_unix_epoch(
                    std::time::Duration::from_secs(1_800_000_000),
                ))))
        }));
        let mut c = ClientConnection::new(cc, ServerName::try_from("localhost").unwrap()).unwrap();
        take_output(&mut c)
    };
    let a = flight();
    assert_eq!(a, flight());
    // The ClientHello record carries version 01 01 and the clock in the random.
    assert_eq!(&a[..3], &[22, 1, 1]);
    assert_eq!(&a[11..15], &1_800_000_000u32.to_be_bytes());
}
