//! A TLCP server whose sign and encryption keys stay in the PKCS#11 test token
//! (`Pkcs11Key` as `Sm2SignKey` and `Sm2EncKey`), under a CA whose key is in the token too
//! (`shangmi_pki::issue` through `PrivateKeyOps`): a full ECC-suite handshake over loopback
//! completes (the client checks the token-made certificate signatures); a key that fails
//! in the middle of the premaster's decryption fails the handshake with a typed error on
//! both sides, without a panic; ECDHE suites are refused when the configuration is made.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use der::Encode;
use shangmi_pkcs11::{KeyOptions, ObjectQuery, Pin, Pkcs11Key, Pkcs11Module};
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_sm2::PrivateKeyOps;
use shangmi_tlcp::{
    CertificateDer, CipherSuite, ClientConfig, ClientConnection, Error, RootCertStore,
    ServerConfig, ServerConnection, StreamOwned,
};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use support::{PIN, module};

fn key(label: &str) -> Arc<Pkcs11Key> {
    let m = Pkcs11Module::load(module()).unwrap();
    let q = ObjectQuery {
        label: Some(label.into()),
        ..ObjectQuery::default()
    };
    Arc::new(Pkcs11Key::open(&m, 0, &q, Pin::new(PIN), KeyOptions::default()).unwrap())
}

/// The server's configuration with the keys `sign`/`enc` of the token, certificates
/// issued by the token's `ca` key, and the clients' roots.
fn server(sign: &str, enc: &str) -> (Arc<ServerConfig>, RootCertStore) {
    let (sign, enc, ca_key) = (key(sign), key(enc), key("ca"));
    let ca = issue::self_signed(
        &*ca_key,
        &CertParams::new(
            parse_dn("/CN=PKCS#11 Test CA").unwrap(),
            Profile::Ca { path_len: None },
            1,
        ),
    )
    .unwrap();
    let leaf = |public, profile| {
        let mut params = CertParams::new(parse_dn("/CN=localhost").unwrap(), profile, 1);
        params.sans.push(San::Dns("localhost".into()));
        let cert = issue::issue(&ca, &*ca_key, &public, &params).unwrap();
        CertificateDer::from(cert.to_der().unwrap())
    };
    let sign_cert = leaf(sign.public_key(), Profile::TlcpSign);
    let enc_cert = leaf(enc.public_key(), Profile::TlcpEnc);
    let config = ServerConfig::builder()
        .with_certs(vec![sign_cert], sign, enc_cert, enc)
        .unwrap();
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from(ca.to_der().unwrap()))
        .unwrap();
    (Arc::new(config), roots)
}

/// One connection: the client sends 5 bytes, the server echoes them; each side's result.
fn run(
    config: Arc<ServerConfig>,
    roots: RootCertStore,
) -> (Result<(), String>, Result<Vec<u8>, String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || -> Result<(), String> {
        let (sock, _) = listener.accept().map_err(|e| e.to_string())?;
        let conn = ServerConnection::new(config).map_err(|e| e.to_string())?;
        let mut tls = StreamOwned::new(conn, sock);
        let mut buf = [0u8; 5];
        tls.read_exact(&mut buf).map_err(|e| e.to_string())?;
        tls.write_all(&buf).map_err(|e| e.to_string())?;
        tls.close().map_err(|e| e.to_string())
    });
    let client = (|| -> Result<Vec<u8>, String> {
        let config = Arc::new(
            ClientConfig::builder(roots)
                .build()
                .map_err(|e| e.to_string())?,
        );
        let conn = ClientConnection::new(config, "localhost".try_into().unwrap())
            .map_err(|e| e.to_string())?;
        let sock = TcpStream::connect(addr).map_err(|e| e.to_string())?;
        let mut tls = StreamOwned::new(conn, sock);
        tls.write_all(b"hello").map_err(|e| e.to_string())?;
        let mut buf = [0u8; 5];
        tls.read_exact(&mut buf).map_err(|e| e.to_string())?;
        Ok(buf.to_vec())
    })();
    (server.join().unwrap(), client)
}

#[test]
fn full_handshake_with_the_server_keys_in_the_token() {
    let (config, roots) = server("tlcp-sign", "tlcp-enc");
    // The ECDHE suites were left out (the token's key cannot run the exchange).
    assert!(
        config.suites.iter().all(|s| !s.is_ecdhe()),
        "{:?}",
        config.suites
    );
    let (server, client) = run(config, roots);
    server.unwrap();
    assert_eq!(client.unwrap(), b"hello");
}

#[test]
fn token_failing_mid_handshake_fails_cleanly() {
    // `fault` answers the premaster decryption's size query, then CKR_DEVICE_ERROR.
    let (config, roots) = server("tlcp-sign", "fault");
    let (server, client) = run(config, roots);
    let server = server.unwrap_err();
    assert!(server.contains("holder failed"), "{server}");
    assert!(client.is_err());
}

#[test]
fn ecdhe_alone_is_refused_at_config_time() {
    let (sign, enc) = (key("tlcp-sign"), key("tlcp-enc"));
    let cert = CertificateDer::from(vec![0x30, 0x00]);
    let only_ecdhe = [CipherSuite::EcdheSm4GcmSm3, CipherSuite::EcdheSm4CbcSm3];
    match ServerConfig::builder().suites(&only_ecdhe).with_certs(
        vec![cert.clone()],
        sign,
        cert,
        enc,
    ) {
        Err(Error::Config(why)) => assert!(why.contains("ECDHE"), "{why}"),
        other => panic!("{other:?}"),
    }
}
