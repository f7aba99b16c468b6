//! GmSSL 3.3's dialect of TLCP, as its `tlcp_server`/`tlcp_client` speak it (read from its
//! `src/tlcp.c` and confirmed live, see `tests/data/gmssl-*.txt`): an ECDHE
//! ClientKeyExchange with a u16 length before the 69 bytes, and a CertificateVerify signed
//! over the handshake messages themselves rather than their SM3 hash. Our client speaks it
//! with `gmssl_compat`; our server accepts both forms from any client.
//!
//! Client authentication in the ECC suites: GmSSL's client sends one chain (sign
//! certificate, then its CA), not the two leaves, and GmSSL's server reads our two leaves
//! as a chain (notes/tlcp.md, seen live 2026-11-29). Our server accepts the single chain
//! where the suite needs no client encryption key; our client sends it with
//! `gmssl_compat`; ECDHE keeps the two leaves.

mod common;

use common::*;
use shangmi_tlcp::{
    AlwaysResolvesPair, CertificateDer, CertificateError, CertifiedKeys, CipherSuite, ClientAuth,
    ClientConnection, Error, ServerConnection, ServerName,
};
use std::sync::Arc;

/// Handshake messages (type, body), and whether the handshake then finished.
type Flight = (Vec<(u8, Vec<u8>)>, bool);

/// The client's second flight as plaintext handshake messages (up to its ChangeCipherSpec).
fn second_flight(suite: CipherSuite, gmssl: bool) -> Flight {
    let p = &pki().client;
    let chain = vec![p.sign.clone(), pki().ca.clone()];
    second_flight_with(suite, gmssl, certified_with(p, chain, p.enc.clone())).0
}

/// The test client's keys with another sign chain and encryption certificate.
fn certified_with(
    p: &Pair,
    sign_chain: Vec<CertificateDer<'static>>,
    enc: CertificateDer<'static>,
) -> CertifiedKeys {
    let k = certified(p);
    CertifiedKeys::new(sign_chain, k.sign_key, enc, k.enc_key)
}

/// [`second_flight`] with the client's `keys`; also the server's error, if any.
fn second_flight_with(
    suite: CipherSuite,
    gmssl: bool,
    keys: CertifiedKeys,
) -> (Flight, Option<Error>) {
    let resolver = Arc::new(AlwaysResolvesPair(Arc::new(keys)));
    let cc = Arc::new(client_config_with(&[suite], false, |b| {
        b.gmssl_compat(gmssl).client_pair_resolver(resolver)
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
    let server = feed(&flight, &mut s).err();
    let finished = server.is_none()
        && deliver(&mut s, &mut c).is_ok()
        && !c.is_handshaking()
        && !s.is_handshaking();
    ((msgs, finished), server)
}

/// The certificates of the client's Certificate message.
fn client_certificates(msgs: &[(u8, Vec<u8>)]) -> Vec<Vec<u8>> {
    let body = &msgs.iter().find(|(t, _)| *t == 11).expect("Certificate").1;
    let mut list = &body[3..];
    let mut out = Vec::new();
    while list.len() >= 3 {
        let n = (usize::from(list[0]) << 16) | (usize::from(list[1]) << 8) | usize::from(list[2]);
        out.push(list[3..3 + n].to_vec());
        list = &list[3 + n..];
    }
    out
}

#[test]
fn ecc_client_auth_sends_one_chain_to_gmssl_and_two_leaves_by_default() {
    let p = &pki().client;
    let (sign, enc, ca) = (p.sign.to_vec(), p.enc.to_vec(), pki().ca.to_vec());
    for suite in [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3] {
        let (msgs, finished) = second_flight(suite, true);
        assert_eq!(
            client_certificates(&msgs),
            [sign.clone(), ca.clone()],
            "{suite:?}: GmSSL's form, the sign chain"
        );
        assert!(finished, "{suite:?}: our server accepts the single chain");
        let (msgs, finished) = second_flight(suite, false);
        assert_eq!(
            client_certificates(&msgs),
            [sign.clone(), enc.clone(), ca.clone()],
            "{suite:?}: Tongsuo's form, both leaves then the chain"
        );
        assert!(finished, "{suite:?}");
    }
    // ECDHE needs the encryption certificate: two leaves in both dialects.
    for gmssl in [true, false] {
        let (msgs, finished) = second_flight(CipherSuite::EcdheSm4GcmSm3, gmssl);
        assert_eq!(
            client_certificates(&msgs),
            [sign.clone(), enc.clone(), ca.clone()]
        );
        assert!(finished);
    }
}

#[test]
fn server_accepts_a_lone_sign_certificate_in_ecc_only() {
    let p = &pki().client;
    // GmSSL with no CA in its chain file: the sign certificate alone.
    let lone = || certified_with(p, vec![p.sign.clone()], p.enc.clone());
    let ((msgs, finished), err) = second_flight_with(CipherSuite::EccSm4GcmSm3, true, lone());
    assert_eq!(client_certificates(&msgs), [p.sign.to_vec()]);
    assert!(finished, "{err:?}");

    // A single chain where ECDHE needs two leaves (the "encryption certificate" is the CA):
    // refused.
    let ca_as_enc = certified_with(p, vec![p.sign.clone()], pki().ca.clone());
    let (_, err) = second_flight_with(CipherSuite::EcdheSm4GcmSm3, false, ca_as_enc);
    assert!(matches!(err, Some(Error::InvalidCertificate(_))), "{err:?}");

    // The single chain is still verified: an encryption certificate as the sign leaf
    // (wrong key usage) is refused.
    let wrong = certified_with(p, vec![p.enc.clone()], p.enc.clone());
    let (_, err) = second_flight_with(CipherSuite::EccSm4GcmSm3, true, wrong);
    assert_eq!(
        err,
        Some(Error::InvalidCertificate(CertificateError::BadKeyUsage))
    );
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
