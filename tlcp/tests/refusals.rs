//! Every refusal ends in the right alert on the wire and an error on both sides, never a
//! panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use shangmi_tlcp::*;
use std::io::Write;
use std::sync::Arc;

type A = AlertDescription;

const GCM: CipherSuite = CipherSuite::EccSm4GcmSm3;
const CBC: CipherSuite = CipherSuite::EccSm4CbcSm3;

fn localhost() -> ServerName<'static> {
    ServerName::try_from("localhost").unwrap()
}

fn pair_of((cc, sc): (ClientConfig, ServerConfig)) -> (ClientConnection, ServerConnection) {
    (
        ClientConnection::new(Arc::new(cc), localhost()).unwrap(),
        ServerConnection::new(Arc::new(sc)).unwrap(),
    )
}

/// Which side of a handshake refuses it.
#[derive(Clone, Copy, Debug)]
enum Side {
    Client,
    Server,
}

/// A handshake between `cc` and `sc` that `side` refuses: its error carries `alert`, and
/// the other side receives that alert. Returns the refusing side's error.
fn refused(side: Side, cc: ClientConfig, sc: ServerConfig, alert: A) -> Error {
    let (mut c, mut s) = pair_of((cc, sc));
    let (failure, peer) = handshake(&mut c, &mut s).expect_err("handshake must fail");
    let e = match (side, failure) {
        (Side::Client, Failure::Client(e)) | (Side::Server, Failure::Server(e)) => e,
        (_, failure) => panic!("expected the {side:?} side to fail, got {failure:?}"),
    };
    assert_eq!(e.alert(), Some(alert), "{e:?}");
    assert_eq!(peer, Some(Error::AlertReceived(alert)));
    e
}

/// The configurations most refusals start from: GCM, no client certificates.
fn gcm() -> (ClientConfig, ServerConfig) {
    (
        client_config(&[GCM], false),
        server_config(&[GCM], ClientAuth::None),
    )
}

/// The refusing side's error `e` carries `alert`, and `peer` receives that alert from
/// `refuser`.
fn refusal_reaches<R: Connection, P: Connection>(
    e: &Error,
    alert: A,
    refuser: &mut R,
    peer: &mut P,
) {
    assert_eq!(e.alert(), Some(alert), "{e:?}");
    assert_eq!(
        deliver(refuser, peer).unwrap_err(),
        Error::AlertReceived(alert)
    );
}

/// Rewrites the client's first flight, lets the server answer, and returns both sides.
fn tamper_client_hello(
    (cc, sc): (ClientConfig, ServerConfig),
    f: impl FnOnce(&mut Vec<u8>),
) -> (ClientConnection, ServerConnection, Result<(), Error>) {
    let (mut c, mut s) = pair_of((cc, sc));
    let mut msgs = messages(&records(&take_output(&mut c)));
    f(&mut msgs[0].1);
    let r = feed(&handshake_records(&msgs), &mut s);
    (c, s, r)
}

/// Runs the client's first flight through, then rewrites the server's first flight and
/// feeds it to the client, returning the client's result.
fn tamper_server_flight(
    (cc, sc): (ClientConfig, ServerConfig),
    f: impl FnOnce(&mut Vec<(u8, Vec<u8>)>),
) -> (ClientConnection, ServerConnection, Result<(), Error>) {
    let (mut c, mut s) = pair_of((cc, sc));
    deliver(&mut c, &mut s).unwrap();
    let mut msgs = messages(&records(&take_output(&mut s)));
    f(&mut msgs);
    let r = feed(&handshake_records(&msgs), &mut c);
    (c, s, r)
}

fn alert_on_wire<C: Connection>(conn: &mut C) -> (u8, u8) {
    let out = take_output(conn);
    let recs = records(&out);
    let (t, _, f) = recs.last().expect("an alert record");
    assert_eq!(*t, 21);
    (f[0], f[1])
}

#[test]
fn wrong_client_version_refused() {
    let (_c, mut s, r) = tamper_client_hello(gcm(), |ch| ch[..2].copy_from_slice(&[3, 3]));
    assert_eq!(r.unwrap_err().alert(), Some(A::ProtocolVersion));
    assert_eq!(alert_on_wire(&mut s), (2, 70));
}

#[test]
fn wrong_record_version_refused() {
    let (mut c, mut s) = pair_of(gcm());
    let mut wire = take_output(&mut c);
    wire[1..3].copy_from_slice(&[3, 3]);
    let e = feed(&wire, &mut s).unwrap_err();
    assert_eq!(e.alert(), Some(A::ProtocolVersion));
    assert_eq!(alert_on_wire(&mut s), (2, 70));
}

#[test]
fn server_choosing_unoffered_suite_refused() {
    let (mut c, mut s, r) = tamper_server_flight(gcm(), |m| {
        // ServerHello: version 2, random 32, session id (1 + len), then the suite.
        let sh = &mut m[0].1;
        let at = 2 + 32 + 1 + sh[34] as usize;
        sh[at..at + 2].copy_from_slice(&0xE013u16.to_be_bytes());
    });
    refusal_reaches(&r.unwrap_err(), A::IllegalParameter, &mut c, &mut s);
}

/// The server's transcript differs from the client's (an offered but unchosen suite was
/// rewritten on the way): the client's Finished fails with decrypt_error.
#[test]
fn bad_finished_refused() {
    let (mut c, mut s, r) = tamper_client_hello(
        (
            client_config(&[GCM, CBC], false),
            server_config(&[GCM], ClientAuth::None),
        ),
        |ch| {
            let at = 2 + 32 + 1 + ch[34] as usize + 2; // suite list after its length
            assert_eq!(&ch[at + 2..at + 4], &0xE013u16.to_be_bytes());
            ch[at + 2..at + 4].copy_from_slice(&0x00FFu16.to_be_bytes());
        },
    );
    r.unwrap();
    deliver(&mut s, &mut c).unwrap();
    let e = deliver(&mut c, &mut s).unwrap_err();
    refusal_reaches(&e, A::DecryptError, &mut s, &mut c);
}

#[test]
fn bad_server_key_exchange_signature_refused() {
    for suites in [[GCM], [CipherSuite::EcdheSm4GcmSm3]] {
        let mutual = suites[0].is_ecdhe();
        let (mut c, mut s, r) = tamper_server_flight(
            (
                client_config(&suites, mutual),
                server_config(&suites, ClientAuth::None),
            ),
            |m| {
                let ske = m.iter_mut().find(|(t, _)| *t == 12).unwrap();
                let last = ske.1.len() - 1;
                ske.1[last] ^= 1;
            },
        );
        refusal_reaches(&r.unwrap_err(), A::DecryptError, &mut c, &mut s);
    }
}

#[test]
fn trailing_bytes_refused() {
    // A byte after ServerHelloDone's (empty) body.
    let (_c, _s, r) = tamper_server_flight(gcm(), |m| m.last_mut().unwrap().1.push(0));
    assert_eq!(r.unwrap_err().alert(), Some(A::DecodeError));
    // A byte after the ServerKeyExchange signature.
    let (_c, _s, r) = tamper_server_flight(gcm(), |m| {
        m.iter_mut().find(|(t, _)| *t == 12).unwrap().1.push(0)
    });
    assert_eq!(r.unwrap_err().alert(), Some(A::DecodeError));
    // A byte after the ClientHello extensions.
    let (_c, _s, r) = tamper_client_hello(gcm(), |ch| ch.push(0));
    assert_eq!(r.unwrap_err().alert(), Some(A::DecodeError));
}

/// RFC 5246 §7.4.1.4: "There MUST NOT be more than one extension of the same type". A
/// ClientHello that repeats one (here server_name with another host, and an unknown type)
/// is refused with illegal_parameter, as OpenSSL, Tongsuo and rustls do; so is a
/// ServerHello that repeats one. (Before, the last copy won.)
#[test]
fn repeated_extension_refused() {
    use shangmi_tlcp::msgs::{self, ClientExtension, Codec, ServerExtension};
    let twice: [fn(&mut Vec<ClientExtension>); 2] = [
        |exts| exts.push(ClientExtension::ServerName(vec![(0, b"other".to_vec())])),
        |exts| {
            exts.insert(0, ClientExtension::Unknown(0xff01, vec![0]));
            exts.push(ClientExtension::Unknown(0xff01, vec![0]));
        },
    ];
    for add in twice {
        let (_c, mut s, r) = tamper_client_hello(gcm(), |body| {
            let mut ch = msgs::ClientHello::read_bytes(body).unwrap();
            let exts = ch.extensions.as_mut().expect("SNI is sent");
            assert!(matches!(exts[0], ClientExtension::ServerName(_)));
            add(exts);
            *body = ch.to_bytes();
        });
        assert_eq!(r.unwrap_err().alert(), Some(A::IllegalParameter));
        assert_eq!(alert_on_wire(&mut s), (2, 47));
    }
    let (mut c, _s, r) = tamper_server_flight(gcm(), |m| {
        let mut sh = msgs::ServerHello::read_bytes(&m[0].1).unwrap();
        let unknown = ServerExtension::Unknown(0xff01, vec![0]);
        sh.extensions = Some(vec![unknown.clone(), unknown]);
        m[0].1 = sh.to_bytes();
    });
    assert_eq!(r.unwrap_err().alert(), Some(A::IllegalParameter));
    assert_eq!(alert_on_wire(&mut c), (2, 47));
}

/// An unknown ServerHello extension (here renegotiation_info, ff01, which once broke a
/// client against a bank) is ignored: the client goes on to send its Finished (which then
/// fails at the server only because the transcripts differ).
#[test]
fn unknown_server_hello_extension_ignored() {
    let (mut c, mut s, r) = tamper_server_flight(gcm(), |m| {
        let sh = &mut m[0].1;
        sh.extend_from_slice(&[0, 5, 0xff, 0x01, 0, 1, 0]);
    });
    r.unwrap();
    assert!(c.wants_write(), "the client answered the flight");
    let e = deliver(&mut c, &mut s).unwrap_err();
    assert_eq!(e.alert(), Some(A::DecryptError));
}

#[test]
fn tampered_record_refused() {
    for suite in [GCM, CBC] {
        let cc = Arc::new(client_config(&[suite], false));
        let sc = Arc::new(server_config(&[suite], ClientAuth::None));
        let (mut c, mut s) = connect(&cc, &sc);
        c.writer().write_all(b"some application data").unwrap();
        let mut wire = take_output(&mut c);
        let mid = wire.len() / 2;
        wire[mid] ^= 0x20;
        let e = feed(&wire, &mut s).unwrap_err();
        assert_eq!(e, Error::DecryptError);
        refusal_reaches(&e, A::BadRecordMac, &mut s, &mut c);
        // The error is sticky.
        assert_eq!(s.process_new_packets().unwrap_err(), Error::DecryptError);
    }
}

/// A CBC record whose padding is wrong (but whose length is right) gets bad_record_mac,
/// the same alert as a bad MAC, through the public record API.
#[test]
fn bad_padding_refused() {
    use shangmi_sm4_modes::cipher::block_padding::NoPadding;
    use shangmi_sm4_modes::cipher::{BlockModeEncrypt, KeyIvInit};
    let mac_key = [5u8; 32];
    let key = [6u8; 16];
    let p = shangmi_tlcp::record::RecordProtection::new(CBC, &mac_key, &key, &[0; 16]).unwrap();
    // plaintext "x" (1) + MAC (32) + padding 14 bytes of 14 + length byte = 48
    let mut mac_in = vec![0, 0, 0, 0, 0, 0, 0, 0, 23, 1, 1, 0, 1];
    mac_in.push(b'x');
    let mac = hmac_sm3(&mac_key, &mac_in);
    for bad in [false, true] {
        let mut body = vec![b'x'];
        body.extend_from_slice(&mac);
        body.extend_from_slice(&[14u8; 15]);
        if bad {
            body[40] = 13;
        }
        let iv = [9u8; 16];
        let n = body.len();
        shangmi_sm4_modes::Sm4CbcEnc::new(&key.into(), &iv.into())
            .encrypt_padded::<NoPadding>(&mut body, n)
            .unwrap();
        let mut rec = iv.to_vec();
        rec.extend_from_slice(&body);
        let r = p.open(0, 23, &rec);
        if bad {
            assert_eq!(r, Err(Error::DecryptError));
        } else {
            assert_eq!(r.unwrap(), b"x");
        }
    }
}

fn hmac_sm3(key: &[u8], msg: &[u8]) -> [u8; 32] {
    // HMAC (RFC 2104) over SM3 written out, independent of the crate's PRF code.
    use digest::Digest;
    let mut k = [0u8; 64];
    k[..key.len()].copy_from_slice(key);
    let mut inner = shangmi_sm3::Sm3::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(msg);
    let mut outer = shangmi_sm3::Sm3::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

#[test]
fn oversized_record_refused() {
    // Encrypted phase: longer than 2^14 + 2048.
    let cc = Arc::new(client_config(&[GCM], false));
    let sc = Arc::new(server_config(&[GCM], ClientAuth::None));
    let (mut c, mut s) = connect(&cc, &sc);
    let len = 16384 + 2048 + 1;
    let mut wire = vec![23, 1, 1, (len >> 8) as u8, len as u8];
    wire.resize(5 + 100, 0);
    let e = feed(&wire, &mut s).unwrap_err();
    assert_eq!(e.alert(), Some(A::RecordOverflow));
    // The alert goes out encrypted: one alert record of 8 + 2 + 16 bytes, which the client
    // reads as record_overflow.
    let out = take_output(&mut s);
    let recs = records(&out);
    assert_eq!((recs[0].0, recs[0].2.len()), (21, 26));
    assert_eq!(
        feed(&out, &mut c).unwrap_err(),
        Error::AlertReceived(A::RecordOverflow)
    );
    // Plaintext phase: longer than 2^14.
    let mut s = ServerConnection::new(sc).unwrap();
    let len = 16385;
    let wire = [22, 1, 1, (len >> 8) as u8, len as u8];
    assert_eq!(
        feed(&wire, &mut s).unwrap_err().alert(),
        Some(A::RecordOverflow)
    );
}

#[test]
fn wrong_host_refused() {
    let mut c = ClientConnection::new(
        Arc::new(client_config(&[GCM], false)),
        ServerName::try_from("bank.example").unwrap(),
    )
    .unwrap();
    let mut s = ServerConnection::new(Arc::new(server_config(&[GCM], ClientAuth::None))).unwrap();
    let (failure, peer) = handshake(&mut c, &mut s).unwrap_err();
    let Failure::Client(e) = failure else {
        panic!("{failure:?}")
    };
    assert_eq!(
        e,
        Error::InvalidCertificate(CertificateError::NotValidForName)
    );
    assert_eq!(peer, Some(Error::AlertReceived(A::BadCertificate)));
}

/// The outcome for the client of connecting to `server` as `name` with `check`.
fn name_outcome(server: &Pair, name: &'static str, check: NameCheck) -> Result<(), Error> {
    let cc = client_config_with(&[GCM], false, |b| b.name_check(check));
    let sc = server_config_with(server, &[GCM], ClientAuth::None, |b| b);
    let mut c = ClientConnection::new(Arc::new(cc), ServerName::try_from(name).unwrap()).unwrap();
    let mut s = ServerConnection::new(Arc::new(sc)).unwrap();
    match handshake(&mut c, &mut s) {
        Ok(()) => Ok(()),
        Err((Failure::Client(e), _)) => Err(e),
        Err((other, _)) => panic!("{other:?}"),
    }
}

/// A sign certificate without subjectAltName ("CN=bank.example"): refused by default, taken
/// by its commonName with `CommonNameFallback` (and only for that name), taken for any name
/// with `DangerousNone`; a certificate with a subjectAltName never falls back to its CN.
#[test]
fn name_checks_on_legacy_certificates() {
    let bad = Err(Error::InvalidCertificate(CertificateError::NotValidForName));
    let (legacy, modern) = (&pki().server_cn_only, &pki().server);
    let (san, cn, none) = (
        NameCheck::SubjectAltName,
        NameCheck::CommonNameFallback,
        NameCheck::DangerousNone,
    );
    let cases = [
        (legacy, "bank.example", san, bad.clone()),
        (legacy, "bank.example", cn, Ok(())),
        (legacy, "BANK.example", cn, Ok(())),
        (legacy, "other.example", cn, bad.clone()),
        (legacy, "example", cn, bad.clone()),
        (legacy, "other.example", none, Ok(())),
        // The regular server certificate: SAN and CN both "localhost".
        (modern, "localhost", san, Ok(())),
        (modern, "bank.example", cn, bad),
    ];
    for (server, name, check, outcome) in cases {
        assert_eq!(
            name_outcome(server, name, check),
            outcome,
            "{name} {check:?}"
        );
    }
}

/// Configurations one side refuses during the handshake: which side, the alert on the
/// wire, and the certificate error where the certificate check decides.
#[test]
fn configurations_refused() {
    let other_ca_too = |mut roots: RootCertStore| {
        roots.add(pki().other_ca.clone()).unwrap();
        ClientConfig::builder(roots).suites(&[GCM]).build().unwrap()
    };
    let served = |pair: &Pair| server_config_with(pair, &[GCM], ClientAuth::None, |b| b);
    let server_pair_as_client = {
        let p = &pki().server;
        ClientConfig::builder(pki().roots())
            .suites(&[GCM])
            .client_certs(
                vec![p.sign.clone()],
                Arc::new(Sm2PrivateKey::new(p.sign_key.clone()).unwrap()),
                p.enc.clone(),
                Arc::new(Sm2PrivateKey::new(p.enc_key.clone()).unwrap()),
            )
            .build()
            .unwrap()
    };
    use CertificateError as C;
    let plain_client = || client_config(&[GCM], false);
    let cases = [
        (
            "no common suite",
            client_config(&[CBC], false),
            server_config(&[GCM], ClientAuth::None),
            (Side::Server, A::HandshakeFailure, None),
        ),
        (
            "swapped key usages",
            plain_client(),
            served(&pki().server_swapped),
            (
                Side::Client,
                A::UnsupportedCertificate,
                Some(C::BadKeyUsage),
            ),
        ),
        (
            "expired certificate",
            plain_client(),
            served(&pki().server_expired),
            (Side::Client, A::CertificateExpired, Some(C::Expired)),
        ),
        (
            "unknown CA",
            other_ca_too(RootCertStore::empty()),
            server_config(&[GCM], ClientAuth::None),
            (Side::Client, A::UnknownCa, None),
        ),
        (
            "leaves from different issuers",
            other_ca_too(pki().roots()),
            served(&pki().server_other_issuer),
            (Side::Client, A::BadCertificate, Some(C::IssuerMismatch)),
        ),
        (
            "missing client certificate",
            plain_client(),
            server_config(&[GCM], ClientAuth::Required),
            (Side::Server, A::HandshakeFailure, None),
        ),
        (
            // Client certificates are checked like the server's: a client presenting the
            // server's (serverAuth-only) pair is refused.
            "client certificate with the wrong purpose",
            server_pair_as_client,
            server_config(&[GCM], ClientAuth::Required),
            (Side::Server, A::BadCertificate, None),
        ),
    ];
    for (what, cc, sc, (side, alert, certificate_error)) in cases {
        let e = refused(side, cc, sc, alert);
        if let Some(c) = certificate_error {
            assert_eq!(e, Error::InvalidCertificate(c), "{what}");
        }
    }
}

/// A legacy client that relaxes the key-usage check accepts swapped leaves.
#[test]
fn relaxed_key_usage_accepts_swapped_leaves() {
    let cc = Arc::new(client_config_with(&[GCM], false, |b| b.relaxed_key_usage()));
    let sc = Arc::new(server_config_with(
        &pki().server_swapped,
        &[GCM],
        ClientAuth::None,
        |b| b,
    ));
    connect(&cc, &sc);
}

#[test]
fn renegotiation_refused() {
    let cc = Arc::new(client_config(&[GCM], false));
    let sc = Arc::new(server_config(&[GCM], ClientAuth::None));
    // A client sending a new ClientHello.
    let (mut c, mut s) = connect(&cc, &sc);
    c.inject_handshake_message(1, &[1, 1]).unwrap();
    let e = deliver(&mut c, &mut s).unwrap_err();
    refusal_reaches(&e, A::NoRenegotiation, &mut s, &mut c);
    // A server sending HelloRequest.
    let (mut c, mut s) = connect(&cc, &sc);
    s.inject_handshake_message(0, &[]).unwrap();
    let e = deliver(&mut s, &mut c).unwrap_err();
    refusal_reaches(&e, A::NoRenegotiation, &mut c, &mut s);
}

#[test]
fn application_data_during_handshake_refused() {
    let (mut c, mut s) = pair_of(gcm());
    let mut wire = take_output(&mut c);
    wire.extend_from_slice(&[23, 1, 1, 0, 1, 0x41]);
    assert_eq!(
        feed(&wire, &mut s).unwrap_err().alert(),
        Some(A::UnexpectedMessage)
    );
}

/// Byte flips anywhere in the server's first flight or the client's first flight give an
/// error (or a handshake that still completes, for bytes nobody checks), never a panic.
#[test]
fn flipped_bytes_never_panic() {
    let configs = (
        client_config(&[GCM, CBC], false),
        server_config(&[GCM, CBC], ClientAuth::None),
    );
    let (mut c0, mut s0) = pair_of(configs.clone());
    let ch = take_output(&mut c0);
    feed(&ch, &mut s0).unwrap();
    let sf = take_output(&mut s0);
    let step = if cfg!(debug_assertions) { 37 } else { 3 };
    for pos in (0..ch.len()).step_by(step) {
        let (_c, mut s) = pair_of(configs.clone());
        let mut w = ch.clone();
        w[pos] ^= 0x5a;
        let _ = feed(&w, &mut s);
    }
    for pos in (0..sf.len()).step_by(step) {
        let (mut c, mut s) = pair_of(configs.clone());
        deliver(&mut c, &mut s).unwrap();
        let _ = take_output(&mut s);
        let mut w = sf.clone();
        w[pos] ^= 0x5a;
        let _ = feed(&w, &mut c);
        // dropped and inserted bytes too
        let (mut c, mut s) = pair_of(configs.clone());
        deliver(&mut c, &mut s).unwrap();
        let _ = take_output(&mut s);
        let mut w = sf.clone();
        w.remove(pos);
        let _ = feed(&w, &mut c);
        let mut w = sf.clone();
        w.insert(pos, 0x17);
        let (mut c, mut s) = pair_of(configs.clone());
        deliver(&mut c, &mut s).unwrap();
        let _ = take_output(&mut s);
        let _ = feed(&w, &mut c);
    }
}

/// A peer that keeps sending while the application does not read cannot grow our
/// buffers without bound: read_tls stops at 256 KiB of unread plaintext.
#[test]
fn unread_plaintext_is_bounded() {
    let cc = Arc::new(client_config(&[GCM], false));
    let sc = Arc::new(server_config(&[GCM], ClientAuth::None));
    let (mut c, mut s) = connect(&cc, &sc);
    let chunk = vec![0u8; 1 << 16];
    let mut refused = false;
    for _ in 0..10 {
        c.writer().write_all(&chunk).unwrap();
        let wire = take_output(&mut c);
        let mut rd = &wire[..];
        while !rd.is_empty() {
            if s.read_tls(&mut rd).is_err() {
                refused = true;
                break;
            }
            s.process_new_packets().unwrap();
        }
        if refused {
            break;
        }
    }
    assert!(refused);
    assert!(s.process_new_packets().unwrap().plaintext_bytes_to_read <= (1 << 18) + (1 << 16));
}
