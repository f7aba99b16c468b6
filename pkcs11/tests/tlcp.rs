//! A TLCP server whose sign and encryption keys stay in the PKCS#11 test token
//! (`Pkcs11Key` as `Sm2SignKey` and `Sm2EncKey`), under a CA whose key is in the token too
//! (`shangmi_pki::issue` through `PrivateKeyOps`): a full ECC-suite handshake over loopback
//! completes (the client checks the token-made certificate signatures); a key that fails
//! in the middle of the premaster's decryption fails the handshake with a typed error on
//! both sides, without a panic; ECDHE suites are refused when the configuration is made.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_pkcs11::{KeyOptions, Pkcs11Key, Pkcs11Module};
use shangmi_tlcp::{CertificateDer, CipherSuite, Error, RootCertStore, ServerConfig};
use std::sync::Arc;
use support::device_keys::{TlcpCa, tlcp_echo_trusting, tlcp_server};
use support::{PIN, label, module, object};

fn key(l: &str) -> Arc<Pkcs11Key> {
    let m = Pkcs11Module::load(module()).unwrap();
    Arc::new(Pkcs11Key::open(object(&m, 0, &label(l), PIN), KeyOptions::default()).unwrap())
}

/// The server's configuration with the keys `sign`/`enc` of the token, certificates
/// issued by the token's `ca` key, and the clients' roots.
fn server(sign: &str, enc: &str) -> (Arc<ServerConfig>, RootCertStore) {
    let ca_key = key("ca");
    let ca = TlcpCa::new(&*ca_key, "/CN=PKCS#11 Test CA");
    tlcp_server(key(sign), key(enc), &ca, None)
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
    let (server, client) = tlcp_echo_trusting(config, roots);
    server.unwrap();
    assert_eq!(client.unwrap(), b"hello");
}

#[test]
fn token_failing_mid_handshake_fails_cleanly() {
    // `fault` answers the premaster decryption's size query, then CKR_DEVICE_ERROR.
    let (config, roots) = server("tlcp-sign", "fault");
    let (server, client) = tlcp_echo_trusting(config, roots);
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
