//! A TLCP server whose sign and encryption keys stay in the test device (`SdfKey` as
//! `Sm2SignKey` and `Sm2EncKey`), under a CA whose key is in the device too
//! (`shangmi_pki::issue` through `PrivateKeyOps`): an ECC-suite handshake over loopback
//! completes (the client checks the device-made certificate signatures), and a
//! device that answers the premaster's decryption with garbage fails the handshake with a
//! typed error on both sides, without a panic.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use der::Encode;
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_sdf::{KeyUsage, Pin, PoolOptions, SdfDevice, SdfKey};
use shangmi_sm2::PrivateKeyOps;
use shangmi_tlcp::{
    CertificateDer, ClientConfig, RootCertStore, ServerConfig, ServerConnection, StreamOwned,
};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use support::device_keys::tlcp_echo_client;
use support::library;

/// The server's config with the keys at `sign_index`/`enc_index`, and the clients' roots.
fn server(sign_index: u32, enc_index: u32) -> (Arc<ServerConfig>, RootCertStore) {
    let device = SdfDevice::open(library()).unwrap();
    let open = |index, usage| {
        Arc::new(
            SdfKey::open(
                &device,
                index,
                usage,
                Pin::new("123456"),
                PoolOptions::default(),
            )
            .unwrap(),
        )
    };
    let (sign, enc) = (
        open(sign_index, KeyUsage::Sign),
        open(enc_index, KeyUsage::Encrypt),
    );
    let ca_key = open(2, KeyUsage::Sign);
    let ca = issue::self_signed(
        &*ca_key,
        &CertParams::new(
            parse_dn("/CN=Test CA").unwrap(),
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
    let client = ClientConfig::builder(roots)
        .build()
        .map_err(|e| e.to_string())
        .and_then(|config| tlcp_echo_client(config, addr));
    (server.join().unwrap(), client)
}

#[test]
fn handshake_with_keys_in_the_device() {
    let (config, roots) = server(1, 1);
    let (server, client) = run(config, roots);
    server.unwrap();
    assert_eq!(client.unwrap(), b"hello");
}

#[test]
fn device_fault_mid_handshake_fails_cleanly() {
    // Index 8's decryption reports a wrong plaintext length.
    let (config, roots) = server(1, 8);
    let (server, client) = run(config, roots);
    let server = server.unwrap_err();
    assert!(server.contains("holder failed"), "{server}");
    assert!(client.is_err());
}

/// An SDF encryption key cannot run the SM2 key exchange (GM/T 0018's agreement functions
/// return a key handle), so a server asked for ECDHE suites alone is refused when its
/// configuration is made, and one asked for both serves the ECC suites only.
#[test]
fn ecdhe_with_a_device_key_is_refused_at_config_time() {
    use shangmi_tlcp::{CipherSuite, ClientAuth, Error};
    let device = SdfDevice::open(library()).unwrap();
    let open = |usage| {
        Arc::new(
            SdfKey::open(
                &device,
                1,
                usage,
                Pin::new("123456"),
                PoolOptions::default(),
            )
            .unwrap(),
        )
    };
    let (sign, enc) = (open(KeyUsage::Sign), open(KeyUsage::Encrypt));
    assert!(!enc.supports_key_exchange());
    // Any certificate will do: the configuration is refused before it is looked at.
    let cert = CertificateDer::from(vec![0x30, 0x00]);
    let (_, roots) = server(1, 1);
    let config = |suites: &[CipherSuite]| {
        ServerConfig::builder()
            .suites(suites)
            .client_auth(ClientAuth::Required, roots.clone())
            .with_certs(vec![cert.clone()], sign.clone(), cert.clone(), enc.clone())
    };
    let only_ecdhe = [CipherSuite::EcdheSm4GcmSm3, CipherSuite::EcdheSm4CbcSm3];
    match config(&only_ecdhe) {
        Err(Error::Config(why)) => assert!(why.contains("ECDHE"), "{why}"),
        other => panic!("{other:?}"),
    }
    let both = config(&CipherSuite::ALL).unwrap();
    assert_eq!(
        both.suites,
        [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3]
    );
    // The client side likewise, with its own keys in the device.
    let client = ClientConfig::builder(roots.clone())
        .suites(&only_ecdhe)
        .client_certs(vec![cert.clone()], sign.clone(), cert.clone(), enc.clone())
        .build();
    assert!(matches!(client, Err(Error::Config(_))), "{client:?}");
    let client = ClientConfig::builder(roots)
        .client_certs(vec![cert.clone()], sign, cert, enc)
        .build()
        .unwrap();
    assert!(client.suites.iter().all(|s| !s.is_ecdhe()));
}
