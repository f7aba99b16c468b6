//! In-process TLS 1.3 between a rustls client and a rustls server, both on this provider:
//! every suite × group × authentication mode, HelloRetryRequest, resumption, KeyUpdate,
//! large and tiny transfers, and the failures that must end in an alert.

mod common;

use common::{Auth, Failed, connect, pki::Pki, pump};
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::{AlertDescription, HandshakeKind, SupportedCipherSuite};
use shangmi_rustls::{kx, suites};
use std::io::{Read, Write};
use std::sync::{Arc, OnceLock};

fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(Pki::new)
}

fn provider_with(
    suites: &[SupportedCipherSuite],
    groups: &[&'static dyn SupportedKxGroup],
) -> Arc<CryptoProvider> {
    Arc::new(CryptoProvider {
        cipher_suites: suites.to_vec(),
        kx_groups: groups.to_vec(),
        ..shangmi_rustls::provider()
    })
}

/// A client and a server on `provider` for the test PKI, after a completed handshake.
fn handshake(
    provider: Arc<CryptoProvider>,
    auth: Auth,
) -> (rustls::ClientConnection, rustls::ServerConnection) {
    let client = Arc::new(common::client_config(pki(), provider.clone(), auth));
    let server = Arc::new(common::server_config(pki(), provider, auth));
    let (mut c, mut s) = connect(&client, &server);
    pump(&mut c, &mut s).expect("handshake");
    (c, s)
}

/// Sends `data` from the client to the server and back in 64 KiB writes, and checks both
/// arrive whole.
fn echo(client: &mut rustls::ClientConnection, server: &mut rustls::ServerConnection, data: &[u8]) {
    let (mut at_server, mut at_client) = (Vec::new(), Vec::new());
    for chunk in data.chunks(1 << 16) {
        client.writer().write_all(chunk).expect("client write");
        common::pump_collect(client, server, Some((&mut at_server, &mut at_client)))
            .expect("transfer to server");
    }
    assert!(at_server == data, "server received what the client sent");
    for chunk in at_server.chunks(1 << 16) {
        server.writer().write_all(chunk).expect("server write");
        common::pump_collect(client, server, Some((&mut Vec::new(), &mut at_client)))
            .expect("transfer to client");
    }
    assert!(at_client == data, "client received the echo");
}

#[test]
fn every_suite_group_and_auth_mode() {
    let groups: [&'static dyn SupportedKxGroup; 2] = [&kx::CURVE_SM2, &kx::CURVE_SM2_MLKEM768];
    for suite in suites::ALL {
        for group in groups {
            for auth in [Auth::ServerOnly, Auth::Mutual] {
                let provider = provider_with(&[*suite], &[group]);
                let (mut c, mut s) = handshake(provider, auth);
                assert!(!c.is_handshaking() && !s.is_handshaking());
                for conn in [&*c as &rustls::CommonState, &*s] {
                    assert_eq!(conn.negotiated_cipher_suite(), Some(*suite));
                    assert_eq!(
                        conn.negotiated_key_exchange_group().map(|g| g.name()),
                        Some(group.name())
                    );
                    assert_eq!(conn.handshake_kind(), Some(HandshakeKind::Full));
                }
                let peer = s.peer_certificates().map(<[_]>::len);
                match auth {
                    Auth::ServerOnly => assert_eq!(peer, None),
                    Auth::Mutual => assert_eq!(peer, Some(1)),
                }
                echo(&mut c, &mut s, b"GET / HTTP/1.0\r\n\r\n");
            }
        }
    }
}

/// The special ServerHello.random of a HelloRetryRequest (RFC 8446 §4.1.3).
const HRR_RANDOM: [u8; 32] = [
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
];

/// Runs the client's first flight into the server and says whether the server's answer is
/// a HelloRetryRequest, then finishes the handshake.
fn first_answer_is_hrr(
    client: &mut rustls::ClientConnection,
    server: &mut rustls::ServerConnection,
) -> bool {
    let mut hello = Vec::new();
    client.write_tls(&mut hello).expect("ClientHello");
    server.read_tls(&mut &hello[..]).expect("read");
    server.process_new_packets().expect("server");
    let mut answer = Vec::new();
    server.write_tls(&mut answer).expect("answer");
    client.read_tls(&mut &answer[..]).expect("read");
    client.process_new_packets().expect("client");
    // record header (5), handshake header (4), legacy_version (2), then the random.
    answer.len() > 43 && answer[11..43] == HRR_RANDOM
}

/// A client preferring `first` to `second` (the shares it sends follow from them) against
/// a server taking only `second`: the server's first answer is a HelloRetryRequest exactly
/// when `hrr`, the handshake then ends on `second` on both sides, and data goes through.
fn server_takes_second(
    first: &'static dyn SupportedKxGroup,
    second: &'static dyn SupportedKxGroup,
    auth: Auth,
    hrr: bool,
) {
    let client = provider_with(suites::ALL, &[first, second]);
    let server = provider_with(suites::ALL, &[second]);
    let client = Arc::new(common::client_config(pki(), client, auth));
    let server = Arc::new(common::server_config(pki(), server, auth));
    let (mut c, mut s) = connect(&client, &server);
    assert_eq!(first_answer_is_hrr(&mut c, &mut s), hrr);
    pump(&mut c, &mut s).expect("handshake");
    for negotiated in [
        c.negotiated_key_exchange_group(),
        s.negotiated_key_exchange_group(),
    ] {
        assert_eq!(negotiated.map(|g| g.name()), Some(second.name()));
    }
    echo(&mut c, &mut s, b"after the key share");
}

#[test]
fn hello_retry_request_when_the_first_share_is_refused() {
    // The client's first group is curveSM2 (it sends that share), the server takes only the
    // hybrid: the server must ask again, and the second ClientHello must then succeed.
    server_takes_second(&kx::CURVE_SM2, &kx::CURVE_SM2_MLKEM768, Auth::Mutual, true);
    assert_eq!(kx::CURVE_SM2_MLKEM768.name(), kx::CURVE_SM2_MLKEM768_ID);
}

#[test]
fn hybrid_client_also_offers_curve_sm2_without_a_retry() {
    // A client preferring the hybrid sends its SM2 half as a curveSM2 share too, so a
    // curveSM2-only server (GmSSL's kind) answers with a ServerHello at once.
    server_takes_second(
        &kx::CURVE_SM2_MLKEM768,
        &kx::CURVE_SM2,
        Auth::ServerOnly,
        false,
    );
    assert_eq!(kx::CURVE_SM2.name(), kx::CURVE_SM2_ID);
}

fn resume(server_config: rustls::ServerConfig) {
    let provider = common::provider();
    let client = Arc::new(common::client_config(pki(), provider, Auth::Mutual));
    let server = Arc::new(server_config);
    let (mut c, mut s) = connect(&client, &server);
    pump(&mut c, &mut s).expect("first handshake");
    echo(&mut c, &mut s, b"first"); // the tickets arrive with the server's data
    assert_eq!(c.handshake_kind(), Some(HandshakeKind::Full));
    let (mut c, mut s) = connect(&client, &server);
    pump(&mut c, &mut s).expect("resumed handshake");
    assert_eq!(c.handshake_kind(), Some(HandshakeKind::Resumed));
    assert_eq!(s.handshake_kind(), Some(HandshakeKind::Resumed));
    echo(&mut c, &mut s, b"second");
}

#[test]
fn resumption_with_a_stateful_cache() {
    let config = common::server_config(pki(), common::provider(), Auth::Mutual);
    resume(config);
}

#[test]
fn resumption_with_stateless_sm4_gcm_tickets() {
    let mut config = common::server_config(pki(), common::provider(), Auth::Mutual);
    config.ticketer = shangmi_rustls::ticket::Ticketer::new().expect("ticketer");
    config.session_storage = Arc::new(rustls::server::NoServerSessionStorage {});
    resume(config);
}

#[test]
fn key_update_both_ways() {
    let provider = common::provider();
    let (mut c, mut s) = handshake(provider, Auth::ServerOnly);
    for round in 0..3 {
        c.refresh_traffic_keys().expect("client KeyUpdate");
        echo(
            &mut c,
            &mut s,
            format!("after client update {round}").as_bytes(),
        );
        s.refresh_traffic_keys().expect("server KeyUpdate");
        echo(
            &mut c,
            &mut s,
            format!("after server update {round}").as_bytes(),
        );
    }
}

#[test]
fn sixteen_mib_both_ways_on_each_suite() {
    let data: Vec<u8> = (0..16u32 << 20).map(|i| (i % 251) as u8).collect();
    for suite in suites::ALL {
        let provider = provider_with(&[*suite], kx::ALL);
        let (mut c, mut s) = handshake(provider, Auth::ServerOnly);
        c.set_buffer_limit(None);
        s.set_buffer_limit(None);
        echo(&mut c, &mut s, &data);
    }
}

#[test]
fn many_tiny_records() {
    for suite in suites::ALL {
        let provider = provider_with(&[*suite], kx::ALL);
        let (mut c, mut s) = handshake(provider, Auth::ServerOnly);
        for i in 0..2000u32 {
            // one write is one record; pump every 100 to keep the buffers small
            c.writer().write_all(&[i as u8]).expect("write");
            if i % 100 == 99 {
                pump(&mut c, &mut s).expect("records");
            }
        }
        pump(&mut c, &mut s).expect("records");
        let mut got = Vec::new();
        s.reader().read_to_end(&mut got).ok();
        let want: Vec<u8> = (0..2000u32).map(|i| i as u8).collect();
        assert_eq!(got, want);
    }
}

/// A server key that signs CertificateVerify with the default ID instead of RFC 8998's.
#[derive(Debug)]
struct DefaultIdKey(Arc<shangmi_sm2::dsa::SigningKey>);

#[derive(Debug)]
struct DefaultIdSigner(Arc<shangmi_sm2::dsa::SigningKey>);

impl rustls::sign::SigningKey for DefaultIdKey {
    fn choose_scheme(
        &self,
        offered: &[rustls::SignatureScheme],
    ) -> Option<Box<dyn rustls::sign::Signer>> {
        offered
            .contains(&shangmi_rustls::sign::SM2_SM3)
            .then(|| Box::new(DefaultIdSigner(self.0.clone())) as _)
    }
    fn algorithm(&self) -> rustls::SignatureAlgorithm {
        shangmi_rustls::sign::SM2_SIGNATURE_ALGORITHM
    }
}

impl rustls::sign::Signer for DefaultIdSigner {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        use shangmi_sm2::signature::Signer as _;
        let sig: shangmi_sm2::dsa::Signature = self.0.sign(message);
        Ok(sig.to_der().as_ref().to_vec())
    }
    fn scheme(&self) -> rustls::SignatureScheme {
        shangmi_rustls::sign::SM2_SM3
    }
}

#[derive(Debug)]
struct Always(Arc<rustls::sign::CertifiedKey>);

impl rustls::server::ResolvesServerCert for Always {
    fn resolve(
        &self,
        _hello: rustls::server::ClientHello<'_>,
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// Runs a handshake between the test client and `server` that the client must refuse with
/// an error `is_error` accepts; the server must then receive the alert `alert`.
fn client_refuses(
    server: rustls::ServerConfig,
    name: &str,
    is_error: fn(&rustls::Error) -> bool,
    alert: AlertDescription,
) {
    let client = common::client_config(pki(), common::provider(), Auth::ServerOnly);
    let name = rustls::pki_types::ServerName::try_from(name.to_owned()).expect("name");
    let mut c = rustls::ClientConnection::new(Arc::new(client), name).expect("client");
    let mut s = rustls::ServerConnection::new(Arc::new(server)).expect("server");
    let Err(Failed::Client(error)) = pump(&mut c, &mut s) else {
        panic!("the client must refuse");
    };
    assert!(is_error(&error), "{error:?}");
    let received = common::deliver_alert(true, &mut c, &mut s);
    assert!(alert_is(&received, alert), "{received:?}");
}

fn alert_is(error: &rustls::Error, want: AlertDescription) -> bool {
    matches!(error, rustls::Error::AlertReceived(got) if *got == want)
}

fn bad_signature(e: &rustls::Error) -> bool {
    matches!(
        e,
        rustls::Error::InvalidCertificate(rustls::CertificateError::BadSignature)
    )
}

#[test]
fn wrong_certificate_verify_id_is_refused() {
    let key = shangmi_sm2::dsa::SigningKey::new(&pki().server_key).expect("key");
    let certified = rustls::sign::CertifiedKey::new(
        vec![pki().server.clone().into()],
        Arc::new(DefaultIdKey(Arc::new(key))),
    );
    let server = rustls::ServerConfig::builder_with_provider(common::provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(Always(Arc::new(certified))));
    client_refuses(
        server,
        "localhost",
        bad_signature,
        AlertDescription::DecryptError,
    );
}

fn server_presenting(cert: &[u8]) -> rustls::ServerConfig {
    common::server_config_with_cert(pki(), common::provider(), Auth::ServerOnly, cert)
}

#[test]
fn chain_signed_with_another_id_is_refused() {
    let server = server_presenting(&pki().server_other_id);
    client_refuses(
        server,
        "localhost",
        bad_signature,
        AlertDescription::DecryptError,
    );
}

#[test]
fn wrong_host_name_is_refused() {
    client_refuses(
        server_presenting(&pki().server),
        "example.com",
        |e| {
            matches!(
                e,
                rustls::Error::InvalidCertificate(
                    rustls::CertificateError::NotValidForNameContext { .. }
                )
            )
        },
        AlertDescription::BadCertificate,
    );
}

#[test]
fn expired_certificate_is_refused() {
    client_refuses(
        server_presenting(&pki().server_expired),
        "localhost",
        |e| {
            matches!(
                e,
                rustls::Error::InvalidCertificate(rustls::CertificateError::ExpiredContext { .. })
            )
        },
        AlertDescription::CertificateExpired,
    );
}

/// A suite that claims the codepoint of TLS_AES_128_GCM_SHA256 (RFC 8446), standing for a
/// peer that offers no SM suite.
static NOT_SM: rustls::Tls13CipherSuite = rustls::Tls13CipherSuite {
    common: rustls::crypto::CipherSuiteCommon {
        suite: rustls::CipherSuite::TLS13_AES_128_GCM_SHA256,
        ..suites::TLS13_SM4_GCM_SM3_SUITE.common
    },
    ..suites::TLS13_SM4_GCM_SM3_SUITE
};

#[test]
fn peer_offering_only_non_sm_suites_is_refused() {
    let client = provider_with(&[SupportedCipherSuite::Tls13(&NOT_SM)], kx::ALL);
    let client = common::client_config(pki(), client, Auth::ServerOnly);
    let server = common::server_config(pki(), common::provider(), Auth::ServerOnly);
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let mut c = rustls::ClientConnection::new(Arc::new(client), name).expect("client");
    let mut s = rustls::ServerConnection::new(Arc::new(server)).expect("server");
    let Err(Failed::Server(error)) = pump(&mut c, &mut s) else {
        panic!("the server must refuse");
    };
    assert!(
        matches!(
            error,
            rustls::Error::PeerIncompatible(rustls::PeerIncompatible::NoCipherSuitesInCommon)
        ),
        "{error:?}"
    );
    let alert = common::deliver_alert(false, &mut c, &mut s);
    assert!(
        alert_is(&alert, AlertDescription::HandshakeFailure),
        "{alert:?}"
    );
}

#[test]
fn flipped_bit_in_a_record_is_refused() {
    let provider = common::provider();
    for suite in suites::ALL {
        let provider = provider_with(&[*suite], &provider.kx_groups);
        let (mut c, mut s) = handshake(provider, Auth::ServerOnly);
        c.writer().write_all(b"sixteen bytes!!!").expect("write");
        let mut record = Vec::new();
        c.write_tls(&mut record).expect("record");
        let last = record.len() - 20; // inside the ciphertext, before the tag
        record[last] ^= 0x01;
        s.read_tls(&mut &record[..]).expect("read");
        let error = s
            .process_new_packets()
            .expect_err("a damaged record must fail");
        assert_eq!(error, rustls::Error::DecryptError);
        let alert = common::deliver_alert(false, &mut c, &mut s);
        assert!(
            alert_is(&alert, AlertDescription::BadRecordMac),
            "{alert:?}"
        );
    }
}

/// A server whose CertificateVerify is signed through [`shangmi_rustls::sign::DeviceKey`]
/// by `key` (any `PrivateKeyOps` key: a device's, here in-memory ones).
fn server_with_device_key<K>(key: K) -> rustls::ServerConfig
where
    K: shangmi_sm2::PrivateKeyOps + Send + Sync + 'static,
{
    let key = shangmi_rustls::sign::DeviceKey::new(Arc::new(key)).expect("key");
    let certified = rustls::sign::CertifiedKey::new(
        vec![pki().server.clone().into(), pki().ca.clone().into()],
        Arc::new(key),
    );
    rustls::ServerConfig::builder_with_provider(common::provider())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("TLS 1.3")
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(Always(Arc::new(certified))))
}

#[test]
fn device_key_signs_certificate_verify() {
    let server = Arc::new(server_with_device_key(pki().server_key.clone()));
    let client = Arc::new(common::client_config(
        pki(),
        common::provider(),
        Auth::ServerOnly,
    ));
    let (mut c, mut s) = connect(&client, &server);
    pump(&mut c, &mut s).expect("handshake");
    echo(&mut c, &mut s, b"through a PrivateKeyOps key");
}

/// A key whose holder fails every signature (as a device that lost its session would).
struct FailingKey(shangmi_sm2::PublicKey);

impl shangmi_sm2::PrivateKeyOps for FailingKey {
    type Error = shangmi_sm2::Error;
    type KeyExchange = shangmi_sm2::kx::KeyExchange;
    fn public_key(&self) -> shangmi_sm2::PublicKey {
        self.0
    }
    fn sign_digest(&self, _: &[u8; 32]) -> Result<shangmi_sm2::dsa::Signature, Self::Error> {
        Err(shangmi_sm2::Error::InvalidSecretKey)
    }
    fn decrypt_into(&self, _: &[u8], _: &mut [u8]) -> Result<usize, Self::Error> {
        Err(shangmi_sm2::Error::Decryption)
    }
    fn start_key_exchange<R: rand_core::TryCryptoRng + ?Sized>(
        &self,
        _: &mut R,
        _: shangmi_sm2::kx::Role,
        _: &[u8],
    ) -> Result<Self::KeyExchange, Self::Error> {
        Err(shangmi_sm2::Error::KeyExchange)
    }
}

#[test]
fn device_key_failure_fails_the_handshake_without_a_panic() {
    let server = Arc::new(server_with_device_key(FailingKey(
        pki().server_key.public_key(),
    )));
    let client = Arc::new(common::client_config(
        pki(),
        common::provider(),
        Auth::ServerOnly,
    ));
    let (mut c, mut s) = connect(&client, &server);
    match pump(&mut c, &mut s) {
        Err(Failed::Server(rustls::Error::General(why))) => {
            assert!(why.contains("holder"), "{why}")
        }
        other => panic!("{other:?}"),
    }
}
