//! A TLCP server whose sign and encryption keys stay in the test device (`SdfKey` as
//! `Sm2SignKey` and `Sm2EncKey`), under a CA whose key is in the device too
//! (`shangmi_pki::issue` through `PrivateKeyOps`): an ECC-suite handshake over loopback
//! completes (the client checks the device-made certificate signatures), and a
//! device that answers the premaster's decryption with garbage fails the handshake with a
//! typed error on both sides, without a panic. The ECDHE suites with the server's
//! encryption key in the device (the premaster kept there as a key handle), a device
//! failing mid-agreement, and a device without the agreement refused at configuration.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_pki::issue::Profile;
use shangmi_sdf::{KeyUsage, SdfDevice, SdfKey};
use shangmi_sm2::PrivateKeyOps;
use shangmi_sm2::PublicKey;
use shangmi_tlcp::{
    CertificateDer, CipherSuite, ClientAuth, ClientConfig, RootCertStore, ServerConfig,
    Sm2PrivateKey,
};
use std::sync::Arc;
use support::device_keys::{TlcpCa, tlcp_echo, tlcp_echo_trusting, tlcp_server};
use support::{library, open_key};

/// The device's key at `index` for `usage`, opened with the test PIN.
fn open(device: &SdfDevice, index: u32, usage: KeyUsage) -> Arc<SdfKey> {
    Arc::new(open_key(device, index, usage).unwrap())
}

/// The server's config with the keys at `sign_index`/`enc_index`, and the clients' roots.
fn server(sign_index: u32, enc_index: u32) -> (Arc<ServerConfig>, RootCertStore) {
    let device = SdfDevice::open(library()).unwrap();
    let ca_key = open(&device, 2, KeyUsage::Sign);
    let ca = TlcpCa::new(&*ca_key, "/CN=Test CA");
    tlcp_server(
        open(&device, sign_index, KeyUsage::Sign),
        open(&device, enc_index, KeyUsage::Encrypt),
        &ca,
        None,
    )
}

#[test]
fn handshake_with_keys_in_the_device() {
    let (config, roots) = server(1, 1);
    let (server, client) = tlcp_echo_trusting(config, roots);
    server.unwrap();
    assert_eq!(client.unwrap(), b"hello");
}

#[test]
fn device_fault_mid_handshake_fails_cleanly() {
    // Index 8's decryption reports a wrong plaintext length.
    let (config, roots) = server(1, 8);
    let (server, client) = tlcp_echo_trusting(config, roots);
    let server = server.unwrap_err();
    assert!(server.contains("holder failed"), "{server}");
    assert!(client.is_err());
}

/// The server's sign key and the CA key in the device, the server's encryption key in the
/// device at `server_enc` (or in memory), the client's sign key in memory and its
/// encryption key in the device at `client_enc` (or in memory), `suites` offered by both,
/// client certificates required (TLCP's ECDHE needs the client's encryption key): the
/// server's config and the client's.
fn mutual(
    server_enc: Option<u32>,
    client_enc: Option<u32>,
    suites: &[CipherSuite],
) -> (Arc<ServerConfig>, ClientConfig) {
    mutual_with(server_enc, client_enc, suites, suites, false)
}

/// [`mutual`] with the server's and the client's suites apart, and the server's pair behind
/// an `SniResolver` (the CLI's way) if `resolver`.
fn mutual_with(
    server_enc: Option<u32>,
    client_enc: Option<u32>,
    server_suites: &[CipherSuite],
    client_suites: &[CipherSuite],
    resolver: bool,
) -> (Arc<ServerConfig>, ClientConfig) {
    let device = SdfDevice::open(library()).unwrap();
    let open = |index, usage| open(&device, index, usage);
    let memory = || {
        let secret = <shangmi_sm2::SecretKey as shangmi_sm2::Generate>::try_generate_from_rng(
            &mut getrandom::SysRng,
        )
        .unwrap();
        Arc::new(Sm2PrivateKey::new(secret).unwrap())
    };
    let enc_key = |index: Option<u32>| -> (PublicKey, Arc<dyn shangmi_tlcp::Sm2EncKey>) {
        match index {
            Some(index) => {
                let key = open(index, KeyUsage::Encrypt);
                assert_eq!(key.supports_key_exchange(), index != 9);
                (key.public_key(), key)
            }
            None => {
                let key = memory();
                (key.public_key(), key)
            }
        }
    };
    let (sign, ca_key) = (open(1, KeyUsage::Sign), open(2, KeyUsage::Sign));
    let (enc_public, enc) = enc_key(server_enc);
    let ca = TlcpCa::new(&*ca_key, "/CN=Test CA");
    let roots = ca.roots();
    let builder = ServerConfig::builder()
        .suites(server_suites)
        .client_auth(ClientAuth::Required, roots.clone());
    let (sign_chain, enc_cert) = (
        vec![ca.leaf(sign.public_key(), Profile::TlcpSign, "/CN=localhost")],
        ca.leaf(enc_public, Profile::TlcpEnc, "/CN=localhost"),
    );
    let server = if resolver {
        let mut sni = shangmi_tlcp::SniResolver::new();
        sni.set_default(shangmi_tlcp::CertifiedKeys::new(
            sign_chain, sign, enc_cert, enc,
        ));
        builder.with_cert_resolver(Arc::new(sni))
    } else {
        builder.with_certs(sign_chain, sign, enc_cert, enc)
    }
    .unwrap();
    let client_sign = memory();
    let (client_enc_public, client_enc) = enc_key(client_enc);
    let client = ClientConfig::builder(roots)
        .suites(client_suites)
        .client_certs(
            vec![ca.leaf(client_sign.public_key(), Profile::TlcpSign, "/CN=client")],
            client_sign,
            ca.leaf(client_enc_public, Profile::TlcpEnc, "/CN=client"),
            client_enc,
        )
        .build()
        .unwrap();
    (Arc::new(server), client)
}

/// TLCP's ECDHE suites with the server's encryption key in the device: the agreed
/// premaster stays there as a key handle, and the master secret comes from the device's
/// HMAC-SM3 with that handle (GM/T 0018-2023). The client (in memory) computes the same
/// master secret from the premaster's bytes, or the Finished messages would not match.
#[test]
fn ecdhe_with_the_servers_enc_key_in_the_device() {
    for suite in [CipherSuite::EcdheSm4GcmSm3, CipherSuite::EcdheSm4CbcSm3] {
        let (server, client) = mutual(Some(1), None, &[suite]);
        let (server, client) = tlcp_echo(server, client);
        server.unwrap();
        assert_eq!(client.unwrap(), b"hello", "{suite:?}");
    }
}

/// The client's encryption key in the device (the responder: the device makes its
/// ephemeral point with the agreed key), against a server in memory and one whose key is
/// in the device too.
#[test]
fn ecdhe_with_the_clients_enc_key_in_the_device() {
    for server_enc in [None, Some(1)] {
        let (server, client) = mutual(server_enc, Some(2), &[CipherSuite::EcdheSm4GcmSm3]);
        let (server, client) = tlcp_echo(server, client);
        server.unwrap();
        assert_eq!(client.unwrap(), b"hello", "{server_enc:?}");
    }
}

/// The device's agreement against shangmi-sm2's in memory, the device as the sponsor and as
/// the responder: the device's HMAC-SM3 keyed with its 48-byte output equals HMAC-SM3 keyed
/// with the memory side's output, so the two GB/T 32918.3 outputs are equal. A wrong
/// identifier on one side gives a different key.
#[test]
fn device_agreement_equals_memory() {
    use hmac::{KeyInit, Mac};
    use shangmi_sm2::kx::{KeyExchange, Role};
    use shangmi_sm2::{DEFAULT_ID, KeyAgreement, Peer};
    let device = SdfDevice::open(library()).unwrap();
    let enc = open(&device, 1, KeyUsage::Encrypt);
    let peer = <shangmi_sm2::SecretKey as shangmi_sm2::Generate>::try_generate_from_rng(
        &mut getrandom::SysRng,
    )
    .unwrap();
    for (role, peer_role) in [
        (Role::Initiator, Role::Responder),
        (Role::Responder, Role::Initiator),
    ] {
        for peer_id in [DEFAULT_ID, b"another id".as_slice()] {
            let mut rng = getrandom::SysRng;
            let ours = enc.start_key_exchange(&mut rng, role, DEFAULT_ID).unwrap();
            let theirs = KeyExchange::new(&mut rng, peer_role, &peer, DEFAULT_ID).unwrap();
            let their_point = theirs.ephemeral_public();
            let mut our_point = None;
            let held = ours
                .finish_held(
                    Peer::new(&peer.public_key(), peer_id, &their_point),
                    48,
                    |key| {
                        our_point = Some(key.ephemeral_public());
                        key.hmac_sm3(&[b"TLCP ".as_slice(), b"premaster"])
                    },
                )
                .unwrap();
            let mut memory = [0u8; 48];
            theirs
                .finish(
                    Peer::new(&enc.public_key(), DEFAULT_ID, &our_point.unwrap()),
                    &mut memory,
                )
                .unwrap();
            let mut mac = hmac::Hmac::<shangmi_sm3::Sm3>::new_from_slice(&memory).unwrap();
            mac.update(b"TLCP premaster");
            let expected: [u8; 32] = mac.finalize().into_bytes().into();
            assert_eq!(held == expected, peer_id == DEFAULT_ID, "{role:?}");
        }
    }
}

/// A device that fails in the middle of the agreement (index 10: `SDF_GenerateKeyWithECC`
/// answers `SDR_HARDFAIL` after the key's open-time check) fails the handshake with a typed
/// error and an internal_error alert to the client, without a panic.
#[test]
fn device_fault_mid_agreement_fails_cleanly() {
    let (server, client) = mutual(Some(10), None, &[CipherSuite::EcdheSm4GcmSm3]);
    let (server, client) = tlcp_echo(server, client);
    let server = server.unwrap_err();
    assert!(server.contains("holder failed"), "{server}");
    let client = client.unwrap_err();
    assert!(client.to_lowercase().contains("internal"), "{client}");
}

/// A device without the agreement (index 9 answers `SDR_NOTSUPPORT`, as GmSSL's SoftSDF
/// does; a GM/T 0018-2012 device has no `SDF_HMACInit`) cannot run TLCP's ECDHE, so a
/// server asked for ECDHE suites alone is refused when its configuration is made, and one
/// asked for both serves the ECC suites only.
#[test]
fn ecdhe_without_the_device_functions_is_refused_at_config_time() {
    use shangmi_tlcp::Error;
    let device = SdfDevice::open(library()).unwrap();
    let open = |index, usage| open(&device, index, usage);
    let (sign, enc) = (open(1, KeyUsage::Sign), open(9, KeyUsage::Encrypt));
    assert!(!enc.supports_key_exchange());
    assert!(!sign.supports_key_exchange());
    assert!(open(1, KeyUsage::Encrypt).supports_key_exchange());
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

/// A server whose pair comes from a resolver (the CLI's `SniResolver`) cannot leave the
/// ECDHE suites out when it is configured: with an encryption key whose device has no
/// agreement (index 9) it serves an ECC suite the client also offers, and refuses a client
/// that offers ECDHE only with handshake_failure, before anything reaches the device.
#[test]
fn resolved_pair_without_the_device_functions_falls_back_to_ecc() {
    use CipherSuite::{EccSm4GcmSm3, EcdheSm4GcmSm3};
    // The server prefers ECDHE: without the fallback it would pick it.
    let both = [EcdheSm4GcmSm3, EccSm4GcmSm3];
    let (server, client) = mutual_with(Some(9), None, &both, &both, true);
    let (server, client) = tlcp_echo(server, client);
    server.unwrap();
    assert_eq!(client.unwrap(), b"hello");
    let (server, client) = mutual_with(Some(9), None, &CipherSuite::ALL, &[EcdheSm4GcmSm3], true);
    let (server, client) = tlcp_echo(server, client);
    let server = server.unwrap_err();
    assert!(
        server.contains("cannot run the SM2 key exchange"),
        "{server}"
    );
    let client = client.unwrap_err();
    assert!(client.to_lowercase().contains("handshake"), "{client}");
}
