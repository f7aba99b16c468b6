//! Resolvers and hooks, on in-memory client/server pairs: the server's pair chosen by SNI,
//! a configuration chosen per ClientHello, the client's pair chosen on the
//! CertificateRequest, verifiers of the caller's refusing with their alerts, the key log
//! (its master secret decrypts the client's first record) and the event callback's order.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use shangmi_tlcp::*;
use std::sync::{Arc, Mutex, OnceLock};

const GCM: &[CipherSuite] = &[CipherSuite::EccSm4GcmSm3];

fn pair_a() -> &'static Pair {
    static P: OnceLock<Pair> = OnceLock::new();
    P.get_or_init(|| server_pair_for("a.example", 100))
}

fn pair_b() -> &'static Pair {
    static P: OnceLock<Pair> = OnceLock::new();
    P.get_or_init(|| server_pair_for("b.example", 110))
}

fn client_for(name: &str, cc: ClientConfig) -> ClientConnection {
    ClientConnection::new(Arc::new(cc), ServerName::try_from(name.to_owned()).unwrap()).unwrap()
}

/// A handshake of a client for `name` that fails: the failing side's error and what the
/// other side received.
fn refused(name: &str, cc: ClientConfig, sc: Arc<ServerConfig>) -> (Failure, Option<Error>) {
    let mut c = client_for(name, cc);
    let mut s = ServerConnection::new(sc).unwrap();
    handshake(&mut c, &mut s).unwrap_err()
}

/// A server choosing a or b by SNI, with `default` for others.
fn sni_server(default: Option<&Pair>) -> Arc<ServerConfig> {
    let mut sni = SniResolver::new();
    sni.add("a.example", certified(pair_a())).unwrap();
    sni.add("B.Example.", certified(pair_b())).unwrap();
    if let Some(d) = default {
        sni.set_default(certified(d));
    }
    Arc::new(
        ServerConfig::builder()
            .suites(GCM)
            .with_cert_resolver(Arc::new(sni))
            .unwrap(),
    )
}

#[test]
fn sni_picks_the_pair_of_the_name() {
    let sc = sni_server(None);
    for (name, pair) in [("a.example", pair_a()), ("b.example", pair_b())] {
        let mut c = client_for(name, client_config(GCM, false));
        let mut s = ServerConnection::new(sc.clone()).unwrap();
        handshake(&mut c, &mut s).expect(name);
        let seen = c.peer_certificates().unwrap();
        assert_eq!(seen[0], pair.sign, "{name}: sign certificate");
        assert_eq!(seen[1], pair.enc, "{name}: encryption certificate");
        assert_eq!(s.server_name(), Some(name));
    }
}

#[test]
fn unknown_sni_gets_the_default_or_unrecognized_name() {
    // The default pair names "localhost": a client asking for it by name gets it.
    let mut c = client_for("localhost", client_config(GCM, false));
    let mut s = ServerConnection::new(sni_server(Some(&pki().server))).unwrap();
    handshake(&mut c, &mut s).expect("default pair");
    assert_eq!(c.peer_certificates().unwrap()[0], pki().server.sign);

    // Without a default: unrecognized_name, both sides know it.
    let (failed, peer) = refused("localhost", client_config(GCM, false), sni_server(None));
    assert!(
        matches!(
            failed,
            Failure::Server(Error::PeerMisbehaved(AlertDescription::UnrecognizedName, _))
        ),
        "{failed:?}"
    );
    assert_eq!(
        peer,
        Some(Error::AlertReceived(AlertDescription::UnrecognizedName))
    );

    // No SNI at all and no default: handshake_failure.
    let cc = client_config_with(GCM, false, |b| b.enable_sni(false));
    let (failed, peer) = refused("localhost", cc, sni_server(None));
    assert!(
        matches!(failed, Failure::Server(Error::HandshakeFailure(_))),
        "{failed:?}"
    );
    assert_eq!(
        peer,
        Some(Error::AlertReceived(AlertDescription::HandshakeFailure))
    );
}

/// Chooses b's configuration (CBC only, pair b) for "b.example", refuses "deny.example",
/// keeps the connection's own for the rest.
#[derive(Debug)]
struct ByName(Arc<ServerConfig>);

impl ResolvesServerConfig for ByName {
    fn resolve(&self, hello: &ClientHello<'_>) -> Result<Option<Arc<ServerConfig>>, Error> {
        assert!(
            hello
                .known_cipher_suites()
                .any(|s| s == CipherSuite::EccSm4CbcSm3)
        );
        match hello.server_name() {
            Some("b.example") => Ok(Some(self.0.clone())),
            Some("deny.example") => Err(Error::PeerMisbehaved(
                AlertDescription::AccessDenied,
                "not served here",
            )),
            _ => Ok(None),
        }
    }
}

#[test]
fn config_resolver_chooses_the_whole_configuration() {
    let both = &[CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3];
    let b = Arc::new(server_config_with(
        pair_b(),
        &[CipherSuite::EccSm4CbcSm3],
        ClientAuth::None,
        |b| b,
    ));
    let base = Arc::new(server_config_with(
        pair_a(),
        &[CipherSuite::EccSm4GcmSm3],
        ClientAuth::None,
        |builder| builder.config_resolver(Arc::new(ByName(b))),
    ));
    let cases = [
        ("a.example", pair_a(), CipherSuite::EccSm4GcmSm3),
        ("b.example", pair_b(), CipherSuite::EccSm4CbcSm3),
    ];
    for (name, pair, suite) in cases {
        let mut c = client_for(name, client_config(both, false));
        let mut s = ServerConnection::new(base.clone()).unwrap();
        handshake(&mut c, &mut s).expect(name);
        assert_eq!(c.peer_certificates().unwrap()[0], pair.sign, "{name}");
        assert_eq!(c.negotiated_cipher_suite(), Some(suite), "{name}");
    }
    let cc = client_config_with(both, false, |b| b.name_check(NameCheck::DangerousNone));
    let (_, peer) = refused("deny.example", cc, base);
    assert_eq!(
        peer,
        Some(Error::AlertReceived(AlertDescription::AccessDenied))
    );
}

/// A CertificateRequest's certificate types, CA names and suite.
type Request = (Vec<u8>, Vec<Vec<u8>>, CipherSuite);

/// Records what the CertificateRequest said and answers with the test client's pair (or
/// nothing).
#[derive(Debug, Default)]
struct SeeRequest {
    give: bool,
    seen: Mutex<Vec<Request>>,
}

impl ResolvesClientPair for SeeRequest {
    fn resolve(&self, request: &CertificateRequest<'_>) -> Option<Arc<CertifiedKeys>> {
        self.seen.lock().unwrap().push((
            request.certificate_types().to_vec(),
            request.ca_names().iter().map(|n| n.to_vec()).collect(),
            request.suite(),
        ));
        self.give.then(|| Arc::new(certified(&pki().client)))
    }

    fn has_certs(&self) -> bool {
        self.give
    }
}

fn ca_subject_der() -> Vec<u8> {
    use der::{Decode, Encode};
    x509_cert::Certificate::from_der(&pki().ca)
        .unwrap()
        .tbs_certificate()
        .subject()
        .to_der()
        .unwrap()
}

#[test]
fn client_pair_resolver_sees_the_request_and_its_pair_is_used() {
    for suite in [CipherSuite::EccSm4GcmSm3, CipherSuite::EcdheSm4GcmSm3] {
        let resolver = Arc::new(SeeRequest {
            give: true,
            ..SeeRequest::default()
        });
        let r = resolver.clone();
        let cc = client_config_with(&[suite], false, |b| b.client_pair_resolver(r));
        let sc = Arc::new(server_config(&[suite], ClientAuth::Required));
        let mut c = client_for("localhost", cc);
        let mut s = ServerConnection::new(sc).unwrap();
        handshake(&mut c, &mut s).expect("handshake");
        let seen = resolver.seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{suite:?}: asked once");
        assert_eq!(seen[0].0, vec![1, 64], "{suite:?}: certificate types");
        assert_eq!(
            seen[0].1,
            vec![ca_subject_der()],
            "{suite:?}: the CA's name"
        );
        assert_eq!(seen[0].2, suite);
        let got = s.peer_certificates().unwrap();
        assert_eq!(got[0], pki().client.sign, "{suite:?}");
        assert_eq!(got[1], pki().client.enc, "{suite:?}");
    }

    // A resolver with nothing to give: the server requiring certificates refuses.
    let resolver = Arc::new(SeeRequest::default());
    let r = resolver.clone();
    let cc = client_config_with(GCM, false, |b| b.client_pair_resolver(r));
    let sc = Arc::new(server_config(GCM, ClientAuth::Required));
    let (failed, _) = refused("localhost", cc, sc);
    assert!(
        matches!(failed, Failure::Server(Error::HandshakeFailure(_))),
        "{failed:?}"
    );
    assert_eq!(resolver.seen.lock().unwrap().len(), 1);
}

/// A verifier that accepts anything, or refuses with `refusal`; counts its calls.
#[derive(Debug)]
struct Decides {
    refusal: Option<Error>,
    calls: Mutex<Vec<&'static str>>,
}

impl Decides {
    fn new(refusal: Option<Error>) -> Arc<Self> {
        Arc::new(Decides {
            refusal,
            calls: Mutex::new(Vec::new()),
        })
    }

    fn decide(&self, what: &'static str) -> Result<(), Error> {
        self.calls.lock().unwrap().push(what);
        self.refusal.clone().map_or(Ok(()), Err)
    }
}

impl CertVerifier for Decides {
    fn verify_server(&self, _: ServerCerts<'_>, _: &ServerName<'_>) -> Result<(), Error> {
        self.decide("server")
    }

    fn verify_client(&self, certs: ClientCerts<'_>) -> Result<(), Error> {
        assert!(certs.enc.is_some());
        self.decide("client")
    }
}

#[test]
fn custom_verifiers_accept_and_refuse_with_their_alerts() {
    // Accepting: a client with no roots at all, a name its leaf does not carry.
    let v = Decides::new(None);
    let cc = ClientConfig::builder(RootCertStore::empty())
        .suites(GCM)
        .custom_certificate_verifier(v.clone())
        .build()
        .unwrap();
    let mut c = client_for("not-the-name.example", cc);
    let mut s = ServerConnection::new(Arc::new(server_config(GCM, ClientAuth::None))).unwrap();
    handshake(&mut c, &mut s).expect("accepted by the custom verifier");
    assert_eq!(*v.calls.lock().unwrap(), ["server"]);

    // The client's verifier refuses with access_denied.
    let refusal = Error::PeerMisbehaved(AlertDescription::AccessDenied, "pinned key differs");
    let cc = client_config_with(GCM, false, |b| {
        b.custom_certificate_verifier(Decides::new(Some(refusal.clone())))
    });
    let plain = Arc::new(server_config(GCM, ClientAuth::None));
    let (failed, peer) = refused("localhost", cc, plain);
    assert!(
        matches!(&failed, Failure::Client(e) if *e == refusal),
        "{failed:?}"
    );
    assert_eq!(
        peer,
        Some(Error::AlertReceived(AlertDescription::AccessDenied))
    );

    // The server's verifier refuses the client as revoked: certificate_revoked.
    let v = Decides::new(Some(Error::InvalidCertificate(CertificateError::Revoked)));
    let sc = ServerConfig::builder()
        .suites(GCM)
        .client_cert_verifier(ClientAuth::Required, v.clone());
    let sc = Arc::new(server_builder_for(&pki().server)(sc));
    let (failed, peer) = refused("localhost", client_config(GCM, true), sc);
    assert!(
        matches!(
            failed,
            Failure::Server(Error::InvalidCertificate(CertificateError::Revoked))
        ),
        "{failed:?}"
    );
    assert_eq!(
        peer,
        Some(Error::AlertReceived(AlertDescription::CertificateRevoked))
    );
    assert_eq!(*v.calls.lock().unwrap(), ["client"]);
}

#[test]
fn default_verifier_is_webpki_over_the_roots() {
    // The same refusal through an explicit WebPkiVerifier and through the roots: another
    // CA's roots do not accept our server.
    let mut other = RootCertStore::empty();
    other.add(pki().other_ca.clone()).unwrap();
    let explicit = Arc::new(WebPkiVerifier::new(other.clone()));
    for cc in [
        client_config_with(GCM, false, |b| b.custom_certificate_verifier(explicit)),
        ClientConfig::builder(other).suites(GCM).build().unwrap(),
    ] {
        let sc = Arc::new(server_config(GCM, ClientAuth::None));
        let (failed, _) = refused("localhost", cc, sc);
        assert!(
            matches!(
                failed,
                Failure::Client(Error::InvalidCertificate(CertificateError::UnknownIssuer))
            ),
            "{failed:?}"
        );
    }
}

/// Key-log lines as given: (label, client random, secret).
#[derive(Debug, Default)]
struct Lines(Mutex<Vec<Line>>);

/// A key-log line: label, client random, secret.
type Line = (String, Vec<u8>, Vec<u8>);

impl KeyLog for Lines {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        self.0
            .lock()
            .unwrap()
            .push((label.into(), client_random.to_vec(), secret.to_vec()));
    }
}

#[test]
fn key_log_gives_the_master_secret_that_decrypts_the_traffic() {
    for suite in [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3] {
        let (client_log, server_log) = (Arc::new(Lines::default()), Arc::new(Lines::default()));
        let l = client_log.clone();
        let cc = client_config_with(&[suite], false, |b| b.key_log(l));
        let l = server_log.clone();
        let sc = server_config_with(&pki().server, &[suite], ClientAuth::None, |b| b.key_log(l));
        let mut c = client_for("localhost", cc);
        let hello = take_output(&mut c);
        let client_random = messages(&records(&hello))[0].1[2..34].to_vec();
        let mut s = ServerConnection::new(Arc::new(sc)).unwrap();
        feed(&hello, &mut s).unwrap();
        let flight = take_output(&mut s);
        let server_random = messages(&records(&flight))[0].1[2..34].to_vec();
        feed(&flight, &mut c).unwrap();
        handshake(&mut c, &mut s).expect("handshake");

        let lines = client_log.0.lock().unwrap().clone();
        assert_eq!(lines.len(), 1, "{suite:?}");
        let (label, random, secret) = &lines[0];
        assert_eq!(label, "CLIENT_RANDOM");
        assert_eq!(
            random, &client_random,
            "{suite:?}: the ClientHello's random"
        );
        assert_eq!(secret.len(), 48);
        assert_eq!(
            *server_log.0.lock().unwrap(),
            lines,
            "{suite:?}: both sides agree"
        );

        // The logged secret opens the client's first application record (sequence 1,
        // after Finished), as Wireshark would.
        use std::io::Write;
        c.writer().write_all(b"secret payload").unwrap();
        let out = take_output(&mut c);
        let (typ, _, fragment) = records(&out).remove(0);
        assert_eq!(typ, 23);
        let mut seed = server_random;
        seed.extend_from_slice(&client_random);
        let (mac, key, iv) = if suite.is_ecdhe() || suite == CipherSuite::EccSm4GcmSm3 {
            (0, 16, 4)
        } else {
            (32, 16, 16)
        };
        let mut block = vec![0u8; 2 * (mac + key + iv)];
        prf::prf(secret, b"key expansion", &seed, &mut block);
        let client_mac = &block[..mac];
        let client_key = &block[2 * mac..2 * mac + key];
        let client_iv = &block[2 * (mac + key)..2 * (mac + key) + iv];
        let p = record::RecordProtection::new(suite, client_mac, client_key, client_iv).unwrap();
        assert_eq!(
            p.open(1, 23, &fragment).unwrap(),
            b"secret payload",
            "{suite:?}"
        );
    }
}

/// Events as text, in order.
#[derive(Debug, Default)]
struct Log(Mutex<Vec<String>>);

impl EventHandler for Log {
    fn event(&self, event: &Event<'_>) {
        let line = match event {
            Event::HandshakeCompleted {
                protocol,
                suite,
                resumed,
                ..
            } => format!(
                "done {protocol} {} resumed={resumed} peer={}",
                suite.name(),
                event.peer_subject().unwrap_or_default()
            ),
            Event::AlertSent(a) => format!("sent {a:?}"),
            Event::AlertReceived(a) => format!("received {a:?}"),
            Event::Failed(e) => format!("failed {e}"),
            _ => "other".into(),
        };
        self.0.lock().unwrap().push(line);
    }
}

#[test]
fn events_arrive_in_order() {
    use std::io::Write;
    let (cl, sl) = (Arc::new(Log::default()), Arc::new(Log::default()));
    let l = cl.clone();
    let cc = Arc::new(client_config_with(GCM, true, |b| b.events(l)));
    let l = sl.clone();
    let sc = Arc::new(server_config_with(
        &pki().server,
        GCM,
        ClientAuth::Required,
        |b| b.events(l),
    ));
    let (mut c, mut s) = connect(&cc, &sc);
    c.writer().write_all(b"x").unwrap();
    c.send_close_notify();
    deliver(&mut c, &mut s).unwrap();
    let name = GCM[0].name();
    assert_eq!(
        *cl.0.lock().unwrap(),
        [
            format!("done TLCP 1.1 {name} resumed=false peer=CN=localhost,O=shangmi"),
            "sent CloseNotify".into(),
        ]
    );
    assert_eq!(
        *sl.0.lock().unwrap(),
        [
            format!("done TLCP 1.1 {name} resumed=false peer=CN=tlcp client,O=shangmi"),
            "received CloseNotify".into(),
        ]
    );

    // Resumed, then a failure: no suite in common.
    let (c, s) = connect(&cc, &sc);
    assert!(c.is_resumed() && s.is_resumed());
    let cbc = Arc::new(server_config_with(
        &pki().server,
        &[CipherSuite::EccSm4CbcSm3],
        ClientAuth::None,
        |b| b.events(sl.clone()),
    ));
    let mut c2 = client_for(
        "localhost",
        client_config_with(GCM, false, |b| b.events(cl.clone())),
    );
    let mut s2 = ServerConnection::new(cbc).unwrap();
    handshake(&mut c2, &mut s2).unwrap_err();
    let client = cl.0.lock().unwrap();
    let server = sl.0.lock().unwrap();
    assert_eq!(
        client[2..],
        [
            format!("done TLCP 1.1 {name} resumed=true peer=CN=localhost,O=shangmi"),
            "received HandshakeFailure".into(),
            "failed received alert HandshakeFailure".into(),
        ]
    );
    assert_eq!(
        server[2..],
        [
            format!("done TLCP 1.1 {name} resumed=true peer=CN=tlcp client,O=shangmi"),
            "failed handshake failure: no cipher suite in common".into(),
            "sent HandshakeFailure".into(),
        ]
    );
}
