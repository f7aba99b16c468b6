//! A TLCP client whose sign and encryption keys and both certificates come straight from a
//! container of the SKF test device (`SkfKey` as `Sm2SignKey` and `Sm2EncKey`), against an
//! in-process server that requires client authentication under the device's CA: the
//! ECC-suite handshake completes and the server sees the container's sign certificate; a
//! container whose signatures are garbage fails the handshake with a typed error on both
//! sides, without a panic.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_skf::{KeyUsage, Pin, SkfKey, SkfLibrary};
use shangmi_tlcp::{CertificateDer, CipherSuite, ClientConfig, RootCertStore, ServerConfig};
use std::sync::Arc;
use support::device_keys::{TlcpCa, tlcp_echo, tlcp_server};
use support::{PIN, ca_certificate, library};

/// A server with in-memory keys under a CA of its own, requiring client certificates under
/// the device's CA; and the clients' roots.
fn server() -> (Arc<ServerConfig>, RootCertStore) {
    let ca_key = shangmi_pki::generate_key().unwrap();
    let ca = TlcpCa::new(&ca_key, "/CN=server CA");
    let mut device_ca = RootCertStore::empty();
    device_ca
        .add(CertificateDer::from(ca_certificate()))
        .unwrap();
    tlcp_server(
        Arc::new(shangmi_pki::generate_key().unwrap()),
        Arc::new(shangmi_pki::generate_key().unwrap()),
        &ca,
        Some(device_ca),
    )
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

#[test]
fn client_authenticates_with_the_usb_key() {
    let (server_config, roots) = server();
    let (server, client) = tlcp_echo(server_config, client("tlcp-client", roots));
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
    assert_eq!(server.unwrap(), Some(sign_cert));
}

#[test]
fn garbage_signature_fails_the_handshake_cleanly() {
    let (server_config, roots) = server();
    let (server, client) = tlcp_echo(server_config, client("garbage", roots));
    let client = client.unwrap_err();
    assert!(client.contains("signing failed"), "{client}");
    assert!(server.is_err());
}
