//! GmSSL 3.3's dialect of TLCP, as its `tlcp_server`/`tlcp_client` speak it (read from its
//! `src/tlcp.c` and confirmed live, see `tests/data/gmssl-*.txt`): an ECDHE
//! ClientKeyExchange with a u16 length before the 69 bytes, and a CertificateVerify signed
//! over the handshake messages themselves rather than their SM3 hash. Our client speaks it
//! with `gmssl_compat`; our server accepts both forms from any client.

mod common;

use common::*;
use shangmi_tlcp::{CipherSuite, ClientAuth, ClientConnection, ServerConnection, ServerName};
use std::sync::Arc;

/// The client's second flight as plaintext handshake messages (up to its ChangeCipherSpec).
fn second_flight(suite: CipherSuite, gmssl: bool) -> (Vec<(u8, Vec<u8>)>, bool) {
    let cc = Arc::new(client_config_with(&[suite], true, |b| {
        b.gmssl_compat(gmssl)
    }));
    let sc = Arc::new(server_config(&[suite], ClientAuth::Required));
    let mut c = ClientConnection::new(cc, ServerName::try_from("localhost").expect("name"))
        .expect("client");
    let mut s = ServerConnection::new(sc).expect("server");
    deliver(&mut c, &mut s).expect("ClientHello");
    deliver(&mut s, &mut c).expect("server flight");
    let flight = take_output(&mut c);
    let recs: Vec<_> = records(&flight)
        .into_iter()
        .take_while(|(t, _, _)| *t != 20)
        .collect();
    let msgs = messages(&recs);
    // Finish the handshake with the same bytes.
    let finished = feed(&flight, &mut s).is_ok()
        && deliver(&mut s, &mut c).is_ok()
        && !c.is_handshaking()
        && !s.is_handshaking();
    (msgs, finished)
}

fn client_key_exchange(msgs: &[(u8, Vec<u8>)]) -> Vec<u8> {
    msgs.iter()
        .find(|(t, _)| *t == 16)
        .map(|(_, b)| b.clone())
        .expect("ClientKeyExchange")
}

#[test]
fn gmssl_dialect_handshakes_with_our_server() {
    for suite in [CipherSuite::EcdheSm4GcmSm3, CipherSuite::EcdheSm4CbcSm3] {
        let (msgs, finished) = second_flight(suite, true);
        let cke = client_key_exchange(&msgs);
        assert_eq!(cke.len(), 71, "{suite:?}: u16 length, then the 69 bytes");
        assert_eq!(&cke[..6], &[0, 69, 3, 0, 0x29, 65], "{suite:?}");
        assert!(
            finished,
            "{suite:?}: our server accepts the 71-byte form and the raw-message CertificateVerify"
        );
    }
}

#[test]
fn standard_dialect_is_the_default() {
    let (msgs, finished) = second_flight(CipherSuite::EcdheSm4GcmSm3, false);
    let cke = client_key_exchange(&msgs);
    assert_eq!(cke.len(), 69);
    assert_eq!(&cke[..4], &[3, 0, 0x29, 65]);
    assert!(finished);
}

#[test]
fn ecc_suites_only_change_certificate_verify() {
    // ECC: the ClientKeyExchange is the u16-length SM2 ciphertext in both dialects; the
    // CertificateVerify over the raw messages is accepted by our server all the same.
    let (_, finished) = second_flight(CipherSuite::EccSm4GcmSm3, true);
    assert!(finished);
}
