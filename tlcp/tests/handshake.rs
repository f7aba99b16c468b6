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

/// Client authentication required, or none.
fn auth(mutual: bool) -> ClientAuth {
    if mutual {
        ClientAuth::Required
    } else {
        ClientAuth::None
    }
}

/// A client (with its pair when `mutual`) and a server of one suite.
fn configs(suite: CipherSuite, mutual: bool) -> (Arc<ClientConfig>, Arc<ServerConfig>) {
    (
        Arc::new(client_config(&[suite], mutual)),
        Arc::new(server_config(&[suite], auth(mutual))),
    )
}

fn matrix_case(suite: CipherSuite, mutual: bool) {
    let (cc, sc) = configs(suite, mutual);
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

/// An ECC server keeping its sessions in `cache`, issuing tickets too if `tickets`.
fn server_with_cache(cache: &Arc<ServerSessionCache>, tickets: bool) -> Arc<ServerConfig> {
    Arc::new(server_config_with(
        &pki().server,
        &ECC,
        ClientAuth::None,
        |b| b.session_cache(cache.clone()).session_tickets(tickets),
    ))
}

#[test]
fn server_cache_is_bounded() {
    let cache = ServerSessionCache::new(2);
    let sc = server_with_cache(&cache, false);
    for _ in 0..5 {
        let cc = Arc::new(client_config(&ECC, false));
        let _ = connect(&cc, &sc);
    }
    assert_eq!(cache.len(), 2);
}

fn bulk(suite: CipherSuite, mutual: bool, total: usize) {
    let (cc, sc) = configs(suite, mutual);
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

// Session tickets (RFC 5077).

/// The plaintext handshake messages of a wire capture, up to the first ChangeCipherSpec.
fn plain_messages(wire: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let recs: Vec<_> = records(wire)
        .into_iter()
        .take_while(|r| r.0 != 20)
        .collect();
    messages(&recs)
}

/// The extension types of a ClientHello or ServerHello body.
fn hello_extensions(body: &[u8], client_hello: bool) -> Vec<u16> {
    let mut at = 2 + 32;
    at += 1 + body[at] as usize;
    if client_hello {
        at += 2 + u16::from_be_bytes([body[at], body[at + 1]]) as usize;
        at += 1 + body[at] as usize;
    } else {
        at += 3;
    }
    let mut out = Vec::new();
    if at == body.len() {
        return out;
    }
    at += 2;
    while at < body.len() {
        out.push(u16::from_be_bytes([body[at], body[at + 1]]));
        at += 4 + u16::from_be_bytes([body[at + 2], body[at + 3]]) as usize;
    }
    out
}

/// Runs the handshake as `handshake` does, returning everything each side wrote.
fn handshake_wire(c: &mut ClientConnection, s: &mut ServerConnection) -> (Vec<u8>, Vec<u8>) {
    let (mut from_c, mut from_s) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        let out = take_output(c);
        from_c.extend_from_slice(&out);
        feed(&out, s).expect("server");
        let out = take_output(s);
        from_s.extend_from_slice(&out);
        feed(&out, c).expect("client");
        if !c.is_handshaking() && !s.is_handshaking() && !c.wants_write() {
            return (from_c, from_s);
        }
    }
    panic!("handshake did not finish");
}

fn localhost() -> ServerName<'static> {
    ServerName::try_from("localhost").unwrap()
}

fn ticket_of(store: &ClientSessionCache) -> Vec<u8> {
    store
        .get("localhost")
        .and_then(|s| s.ticket().map(<[u8]>::to_vec))
        .expect("a stored ticket")
}

/// Every suite, server-only and mutual (ECDHE mutual only): the full handshake gets a
/// ticket (NewSessionTicket before the server's CCS, the extension echoed), the reconnect
/// resumes by it with no server session cache at all, restores the suite and the client's
/// certificates, and gets a fresh ticket.
fn ticket_case(suite: CipherSuite, mutual: bool) {
    let sc = Arc::new(server_config_with(
        &pki().server,
        &[suite],
        auth(mutual),
        |b| {
            b.session_cache(ServerSessionCache::new(0))
                .session_tickets(true)
        },
    ));
    let store = ClientSessionCache::new(8);
    let cc = Arc::new(client_config_with(&[suite], mutual, |b| {
        b.session_store(store.clone())
    }));
    let mut c = ClientConnection::new(cc.clone(), localhost()).unwrap();
    let mut s = ServerConnection::new(sc.clone()).unwrap();
    let (from_c, from_s) = handshake_wire(&mut c, &mut s);
    assert!(!c.is_resumed() && !s.is_resumed());
    let ch = &plain_messages(&from_c)[0];
    assert!(hello_extensions(&ch.1, true).contains(&35));
    let msgs = plain_messages(&from_s);
    assert!(hello_extensions(&msgs[0].1, false).contains(&35));
    assert_eq!(msgs.last().map(|m| m.0), Some(4), "NewSessionTicket last");
    let first = ticket_of(&store);
    exchange(&mut c, &mut s, b"ticketed");

    let mut c2 = ClientConnection::new(cc.clone(), localhost()).unwrap();
    let mut s2 = ServerConnection::new(sc.clone()).unwrap();
    let (from_c, from_s) = handshake_wire(&mut c2, &mut s2);
    assert!(
        c2.is_resumed() && s2.is_resumed(),
        "{suite:?} resumed by ticket"
    );
    assert_eq!(s2.negotiated_cipher_suite(), Some(suite));
    assert_eq!(c2.peer_certificates().unwrap()[0], pki().server.sign);
    if mutual {
        assert_eq!(s2.peer_certificates().unwrap()[0], pki().client.sign);
    } else {
        assert!(s2.peer_certificates().is_none());
    }
    // The ClientHello carried the ticket and a session ID the server echoed.
    let ch = &plain_messages(&from_c)[0].1;
    assert!(ch.windows(first.len()).any(|w| w == first));
    let sh = plain_messages(&from_s);
    assert_eq!(sh.iter().map(|m| m.0).collect::<Vec<_>>(), [2, 4]);
    assert_eq!(sh[0].1[34], 32);
    assert_eq!(sh[0].1[35..67], ch[35..67]);
    let second = ticket_of(&store);
    assert_ne!(first, second, "a fresh ticket after the resumption");
    exchange(&mut c2, &mut s2, b"resumed by ticket");

    // And again with the fresh ticket.
    let (c3, s3) = connect(&cc, &sc);
    assert!(c3.is_resumed() && s3.is_resumed());
}

#[test]
fn tickets_ecc_gcm_server_only() {
    ticket_case(CipherSuite::EccSm4GcmSm3, false);
}

#[test]
fn tickets_ecc_gcm_mutual() {
    ticket_case(CipherSuite::EccSm4GcmSm3, true);
}

#[test]
fn tickets_ecc_cbc_server_only() {
    ticket_case(CipherSuite::EccSm4CbcSm3, false);
}

#[test]
fn tickets_ecc_cbc_mutual() {
    ticket_case(CipherSuite::EccSm4CbcSm3, true);
}

#[test]
fn tickets_ecdhe_gcm_mutual() {
    ticket_case(CipherSuite::EcdheSm4GcmSm3, true);
}

#[test]
fn tickets_ecdhe_cbc_mutual() {
    ticket_case(CipherSuite::EcdheSm4CbcSm3, true);
}

/// A server with both a session cache and tickets gives a ticketing client a ticket, not a
/// cache entry.
#[test]
fn tickets_replace_cache_entries() {
    let cache = ServerSessionCache::new(16);
    let sc = server_with_cache(&cache, true);
    let cc = Arc::new(client_config(&ECC, false));
    let _ = connect(&cc, &sc);
    assert!(cache.is_empty());
    let (c, s) = connect(&cc, &sc);
    assert!(c.is_resumed() && s.is_resumed());
    // A client without tickets gets a cache entry.
    let cc = Arc::new(client_config_with(&ECC, false, |b| {
        b.session_tickets(false)
    }));
    let _ = connect(&cc, &sc);
    assert_eq!(cache.len(), 1);
}

/// A ticket changed on the wire does not open: the server answers with a full handshake
/// (its Certificate), no error. (The handshake then fails at Finished only because the two
/// sides saw different ClientHellos.)
#[test]
fn tampered_ticket_falls_back_to_full() {
    let sc = server_with_cache(&ServerSessionCache::new(0), true);
    let store = ClientSessionCache::new(8);
    let cc = Arc::new(client_config_with(&ECC, false, |b| {
        b.session_store(store.clone())
    }));
    let _ = connect(&cc, &sc);
    let ticket = ticket_of(&store);
    for at in [0, 20, ticket.len() / 2, ticket.len() - 1] {
        let mut c = ClientConnection::new(cc.clone(), localhost()).unwrap();
        let mut s = ServerConnection::new(sc.clone()).unwrap();
        let mut msgs = plain_messages(&take_output(&mut c));
        let ch = &mut msgs[0].1;
        let pos = ch
            .windows(ticket.len())
            .position(|w| w == ticket)
            .expect("ticket in the ClientHello");
        ch[pos + at] ^= 1;
        feed(&handshake_records(&msgs), &mut s).expect("no error for a bad ticket");
        assert!(!s.is_resumed());
        let answer: Vec<u8> = plain_messages(&take_output(&mut s))
            .iter()
            .map(|m| m.0)
            .collect();
        assert_eq!(answer, [2, 11, 12, 14], "a full handshake");
    }
    // The untouched ticket still resumes.
    let (c, s) = connect(&cc, &sc);
    assert!(c.is_resumed() && s.is_resumed());
}

/// A ticket under another key (a restarted server) or past its lifetime gives a full
/// handshake that completes and brings a new ticket.
#[test]
fn foreign_or_expired_ticket_gives_full_handshake() {
    let at = |secs: u64| -> Arc<dyn TimeProvider> {
        Arc::new(FixedTime(UnixTime::since_unix_epoch(
            std::time::Duration::from_secs(secs),
        )))
    };
    let ticketer = Ticketer::new(&SystemRandom, 60).unwrap();
    let server = |t: &Arc<Ticketer>, now: u64| {
        let t = t.clone();
        Arc::new(server_config_with(
            &pki().server,
            &ECC,
            ClientAuth::None,
            move |b| {
                b.session_cache(ServerSessionCache::new(0))
                    .ticketer(t)
                    .time(at(now))
            },
        ))
    };
    let cc = Arc::new(client_config(&ECC, false));
    let _ = connect(&cc, &server(&ticketer, 1_800_000_000));
    // Still valid 59 s later; not 60 s later.
    let (c, _) = connect(&cc, &server(&ticketer, 1_800_000_059));
    assert!(c.is_resumed());
    let (c, s) = connect(&cc, &server(&ticketer, 1_800_000_060));
    assert!(!c.is_resumed() && !s.is_resumed());
    // The new ticket resumes; another key's server cannot open it.
    let (c, _) = connect(&cc, &server(&ticketer, 1_800_000_061));
    assert!(c.is_resumed());
    let other = Ticketer::new(&SystemRandom, 60).unwrap();
    let (c, s) = connect(&cc, &server(&other, 1_800_000_061));
    assert!(!c.is_resumed() && !s.is_resumed());
}

/// A NewSessionTicket the ServerHello did not announce is refused with unexpected_message;
/// an announced one that does not come (CCS instead) too.
#[test]
fn unsolicited_or_missing_ticket_refused() {
    // The server has no tickets: nothing announced; a ticket slipped in before its CCS.
    let sc = Arc::new(server_config(&ECC, ClientAuth::None));
    let cc = Arc::new(client_config(&ECC, false));
    let mut c = ClientConnection::new(cc.clone(), localhost()).unwrap();
    let mut s = ServerConnection::new(sc).unwrap();
    deliver(&mut c, &mut s).unwrap();
    deliver(&mut s, &mut c).unwrap();
    let flight = take_output(&mut c);
    s.inject_handshake_message(4, &[0, 0, 0, 60, 0, 1, 0xaa])
        .unwrap();
    feed(&flight, &mut s).unwrap();
    let e = deliver(&mut s, &mut c).unwrap_err();
    assert_eq!(
        e.alert(),
        Some(AlertDescription::UnexpectedMessage),
        "{e:?}"
    );

    // The server announced a ticket; the NewSessionTicket record is dropped.
    let sc = Arc::new(server_config_with(
        &pki().server,
        &ECC,
        ClientAuth::None,
        |b| b.session_tickets(true),
    ));
    let mut c = ClientConnection::new(cc, localhost()).unwrap();
    let mut s = ServerConnection::new(sc).unwrap();
    deliver(&mut c, &mut s).unwrap();
    deliver(&mut s, &mut c).unwrap();
    deliver(&mut c, &mut s).unwrap();
    let recs = records(&take_output(&mut s));
    assert_eq!((recs[0].0, recs[0].2[0]), (22, 4), "NewSessionTicket first");
    let e = feed(&join(&recs[1..]), &mut c).unwrap_err();
    assert_eq!(
        e.alert(),
        Some(AlertDescription::UnexpectedMessage),
        "{e:?}"
    );
}

/// Tickets off on either side: no extension, no NewSessionTicket, no ticket stored;
/// resumption by session ID still works. GmSSL's dialect never sends the extension.
#[test]
fn tickets_off_on_either_side() {
    for (client_on, server_on) in [(false, true), (true, false)] {
        let sc = Arc::new(server_config_with(
            &pki().server,
            &ECC,
            ClientAuth::None,
            |b| b.session_tickets(server_on),
        ));
        let store = ClientSessionCache::new(8);
        let cc = Arc::new(client_config_with(&ECC, false, |b| {
            b.session_store(store.clone()).session_tickets(client_on)
        }));
        let mut c = ClientConnection::new(cc.clone(), localhost()).unwrap();
        let mut s = ServerConnection::new(sc.clone()).unwrap();
        let (from_c, from_s) = handshake_wire(&mut c, &mut s);
        let ch = &plain_messages(&from_c)[0].1;
        assert_eq!(hello_extensions(ch, true).contains(&35), client_on);
        let msgs = plain_messages(&from_s);
        assert!(!hello_extensions(&msgs[0].1, false).contains(&35));
        assert!(msgs.iter().all(|m| m.0 != 4), "no NewSessionTicket");
        let stored = store.get("localhost").expect("a session");
        assert!(stored.ticket().is_none());
        let (c, s) = connect(&cc, &sc);
        assert!(c.is_resumed() && s.is_resumed(), "by session ID");
    }
    let cc = Arc::new(client_config_with(&ECC, false, |b| {
        b.enable_sni(false).gmssl_compat(true)
    }));
    let mut c = ClientConnection::new(cc, localhost()).unwrap();
    let ch = &plain_messages(&take_output(&mut c))[0].1;
    assert!(!hello_extensions(ch, true).contains(&35));
}

/// The client stops offering a ticket once the server's lifetime hint has run out (counted
/// on its own clock from the ticket's arrival), and falls back to a full handshake.
#[test]
fn client_drops_ticket_past_its_lifetime_hint() {
    const NOW: u64 = 1_780_272_000;
    let sc = Arc::new(server_config_with(
        &pki().server,
        &ECC,
        ClientAuth::None,
        |b| {
            b.session_cache(ServerSessionCache::new(0))
                .ticketer(Ticketer::new(&SystemRandom, 100).unwrap())
        },
    ));
    let store = ClientSessionCache::new(8);
    let client_at = |secs: u64| {
        let store = store.clone();
        Arc::new(client_config_with(&ECC, false, move |b| {
            b.session_store(store)
                .time(Arc::new(FixedTime(UnixTime::since_unix_epoch(
                    std::time::Duration::from_secs(secs),
                ))))
        }))
    };
    let _ = connect(&client_at(NOW), &sc);
    let (c, _) = connect(&client_at(NOW + 99), &sc);
    assert!(c.is_resumed(), "within the hint");
    // The resumption brought a new ticket (received at NOW + 99).
    let (c, _) = connect(&client_at(NOW + 99 + 100), &sc);
    assert!(!c.is_resumed(), "past the hint");
}

/// A client store that hands back its one session whatever name it is asked for: a client
/// that offers a session made under one server name to another.
#[derive(Debug, Default)]
struct OneSession(std::sync::Mutex<Option<Session>>);

impl ClientSessionStore for OneSession {
    fn put(&self, _: &str, session: Session) {
        *self.0.lock().unwrap() = Some(session);
    }
    fn get(&self, _: &str) -> Option<Session> {
        self.0.lock().unwrap().clone()
    }
    fn remove(&self, _: &str) {
        *self.0.lock().unwrap() = None;
    }
}

/// RFC 6066 §3: a session made under server name "a" (by session ID, or by ticket) does not
/// resume under "b" or under no name: a full handshake follows, and its session resumes
/// under its own name. Names compare as DNS names (ASCII case ignored). Before, the server
/// resumed whatever it was offered.
#[test]
fn sessions_resume_only_under_their_server_name() {
    for tickets in [false, true] {
        let sc = Arc::new(server_config_with(
            &pki().server,
            &ECC,
            ClientAuth::None,
            |b| {
                let b = b.session_tickets(tickets);
                if tickets {
                    b.session_cache(ServerSessionCache::new(0))
                } else {
                    b
                }
            },
        ));
        let store = Arc::new(OneSession::default());
        let client = |sni: bool| {
            let store = store.clone();
            Arc::new(client_config_with(&ECC, false, move |b| {
                b.name_check(NameCheck::DangerousNone)
                    .session_store(store)
                    .session_tickets(tickets)
                    .enable_sni(sni)
            }))
        };
        let (named, unnamed) = (client(true), client(false));
        let run = |cc: &Arc<ClientConfig>, name: &str| {
            let mut c =
                ClientConnection::new(cc.clone(), ServerName::try_from(name.to_owned()).unwrap())
                    .unwrap();
            let mut s = ServerConnection::new(sc.clone()).unwrap();
            handshake(&mut c, &mut s).expect("handshake");
            assert_eq!(c.is_resumed(), s.is_resumed());
            s.is_resumed()
        };
        let case = if tickets { "tickets" } else { "session IDs" };
        assert!(!run(&named, "a.example"), "{case}");
        assert!(run(&named, "A.Example"), "{case}: same name, other case");
        assert!(!run(&named, "b.example"), "{case}: a's session under b");
        assert!(run(&named, "b.example"), "{case}: b's own session");
        assert!(!run(&unnamed, "b.example"), "{case}: b's session, no name");
        assert!(
            run(&unnamed, "b.example"),
            "{case}: no name, its own session"
        );
        assert!(!run(&named, "a.example"), "{case}: unnamed session under a");
    }
}
