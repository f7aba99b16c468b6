//! A TLCP client whose sign and encryption keys and both certificates come straight from a
//! container of the SKF test device (`SkfKey` as `Sm2SignKey` and `Sm2EncKey`), against an
//! in-process server that requires client authentication under the device's CA: the
//! ECC-suite handshake completes and the server sees the container's sign certificate; a
//! container whose signatures are garbage fails the handshake with a typed error on both
//! sides, without a panic.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use der::Encode;
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_skf::{KeyUsage, Pin, SkfKey, SkfLibrary};
use shangmi_tlcp::{
    CertificateDer, CipherSuite, ClientAuth, ClientConfig, RootCertStore, ServerConfig,
    ServerConnection, StreamOwned,
};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use support::device_keys::tlcp_echo_client;
use support::{PIN, ca_certificate, library};

/// A server with in-memory keys under a CA of its own, requiring client certificates under
/// the device's CA; and the clients' roots.
fn server() -> (Arc<ServerConfig>, RootCertStore) {
    let ca_key = shangmi_pki::generate_key().unwrap();
    let ca = issue::self_signed(
        &ca_key,
        &CertParams::new(
            parse_dn("/CN=server CA").unwrap(),
            Profile::Ca { path_len: None },
            1,
        ),
    )
    .unwrap();
    let (sign, enc) = (
        Arc::new(shangmi_pki::generate_key().unwrap()),
        Arc::new(shangmi_pki::generate_key().unwrap()),
    );
    let leaf = |public, profile| {
        let mut params = CertParams::new(parse_dn("/CN=localhost").unwrap(), profile, 1);
        params.sans.push(San::Dns("localhost".into()));
        let cert = issue::issue(&ca, &ca_key, &public, &params).unwrap();
        CertificateDer::from(cert.to_der().unwrap())
    };
    let sign_cert = leaf(sign.public_key(), Profile::TlcpSign);
    let enc_cert = leaf(enc.public_key(), Profile::TlcpEnc);
    let mut device_ca = RootCertStore::empty();
    device_ca
        .add(CertificateDer::from(ca_certificate()))
        .unwrap();
    let config = ServerConfig::builder()
        .client_auth(ClientAuth::Required, device_ca)
        .with_certs(vec![sign_cert], sign, enc_cert, enc)
        .unwrap();
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from(ca.to_der().unwrap()))
        .unwrap();
    (Arc::new(config), roots)
}

/// The client's configuration: keys and certificates from the container `name` (for the
/// `garbage` container, `tlcp-client`'s certificates with `garbage`'s keys).
fn client(name: &str, roots: RootCertStore) -> ClientConfig {
    let lib = SkfLibrary::load(library()).unwrap();
    let app = lib
        .connect(&lib.devices().unwrap()[0])
        .unwrap()
        .open_application("SHANGMI")
        .unwrap();
    app.verify_pin(Pin::new(PIN)).unwrap();
    let keys = app.open_container(name).unwrap();
    let certs = app.open_container("tlcp-client").unwrap();
    let cert = |usage| CertificateDer::from(certs.certificate(usage).unwrap().unwrap());
    ClientConfig::builder(roots)
        // ECC suites: SKF keys cannot run the ECDHE key exchange.
        .suites(&[CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3])
        .client_certs(
            vec![cert(KeyUsage::Sign)],
            Arc::new(SkfKey::open(&keys, KeyUsage::Sign).unwrap()),
            cert(KeyUsage::Encrypt),
            Arc::new(SkfKey::open(&keys, KeyUsage::Encrypt).unwrap()),
        )
        .build()
        .unwrap()
}

/// One connection: the client sends 5 bytes, the server echoes them; the server's result
/// (the client's sign certificate) and the client's.
fn run(
    server_config: Arc<ServerConfig>,
    client_config: ClientConfig,
) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || -> Result<Vec<u8>, String> {
        let (sock, _) = listener.accept().map_err(|e| e.to_string())?;
        let conn = ServerConnection::new(server_config).map_err(|e| e.to_string())?;
        let mut tls = StreamOwned::new(conn, sock);
        let mut buf = [0u8; 5];
        tls.read_exact(&mut buf).map_err(|e| e.to_string())?;
        tls.write_all(&buf).map_err(|e| e.to_string())?;
        let peer = tls.conn.peer_certificates().map(|c| c[0].to_vec());
        tls.close().map_err(|e| e.to_string())?;
        peer.ok_or_else(|| "no client certificate".to_owned())
    });
    let client = tlcp_echo_client(client_config, addr);
    (server.join().unwrap(), client)
}

#[test]
fn client_authenticates_with_the_usb_key() {
    let (server_config, roots) = server();
    let (server, client) = run(server_config, client("tlcp-client", roots));
    assert_eq!(client.unwrap(), b"hello");
    let lib = SkfLibrary::load(library()).unwrap();
    let app = lib
        .connect("shangmi-skf-0")
        .unwrap()
        .open_application("SHANGMI")
        .unwrap();
    let sign_cert = app
        .open_container("tlcp-client")
        .unwrap()
        .certificate(KeyUsage::Sign)
        .unwrap()
        .unwrap();
    assert_eq!(server.unwrap(), sign_cert);
}

#[test]
fn garbage_signature_fails_the_handshake_cleanly() {
    let (server_config, roots) = server();
    let (server, client) = run(server_config, client("garbage", roots));
    let client = client.unwrap_err();
    assert!(client.contains("signing failed"), "{client}");
    assert!(server.is_err());
}
