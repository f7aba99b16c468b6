//! Revocation in TLCP handshakes: CRLs issued by `shangmi_pki::crl` for the test CA, held
//! in the `RootCertStore`; a revoked server (sign or encryption certificate) and a revoked
//! client are refused with certificate_revoked, an unrevoked peer passes, and a missing,
//! expired or forged CRL is refused with certificate_unknown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use der::{Decode, Encode};
use shangmi_pki::crl::{self, CrlParams, Reason, Revoked};
use shangmi_tlcp::*;
use std::sync::Arc;

type A = AlertDescription;

const SUITE: CipherSuite = CipherSuite::EccSm4GcmSm3;

fn serial(der: &[u8]) -> Vec<u8> {
    let c = x509_cert::Certificate::from_der(der).unwrap();
    c.tbs_certificate().serial_number().as_bytes().to_vec()
}

/// A CRL of the test CA revoking `revoked` (certificates), valid from `this_update` for
/// `days`.
fn crl_der(revoked: &[&[u8]], this_update: u64, days: u64) -> Vec<u8> {
    let ca = x509_cert::Certificate::from_der(&pki().ca).unwrap();
    let mut params = CrlParams::new(1);
    params.this_update = this_update;
    params.next_update = Some(this_update + days * 86_400);
    for c in revoked {
        params
            .revoked
            .push(Revoked::now(&serial(c), Some(Reason::KeyCompromise)));
    }
    crl::issue_crl(&ca, &pki().ca_key, &params)
        .unwrap()
        .to_der()
        .to_vec()
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn roots_with(crl: &[u8]) -> RootCertStore {
    let mut r = pki().roots();
    r.add_crl(crl).unwrap();
    r
}

fn server(client_roots: RootCertStore) -> ServerConnection {
    let b = ServerConfig::builder()
        .suites(&[SUITE])
        .client_auth(ClientAuth::Required, client_roots);
    ServerConnection::new(Arc::new(server_builder_for(&pki().server)(b))).unwrap()
}

fn client(roots: RootCertStore) -> ClientConnection {
    let mut cc = client_config(&[SUITE], true);
    cc.roots = roots;
    ClientConnection::new(Arc::new(cc), ServerName::try_from("localhost").unwrap()).unwrap()
}

/// Runs the handshake; returns the failing side's error (true: the client failed) after
/// checking that the other side received its alert.
fn refused(mut c: ClientConnection, mut s: ServerConnection) -> (bool, Error) {
    let (failure, peer) = handshake(&mut c, &mut s).expect_err("handshake must fail");
    let (client_failed, e) = match failure {
        Failure::Client(e) => (true, e),
        Failure::Server(e) => (false, e),
    };
    assert_eq!(peer, Some(Error::AlertReceived(e.alert().unwrap())));
    (client_failed, e)
}

/// What [`refused`] returned is a revoked peer's refusal by the client (`by_client`) or
/// the server: certificate_revoked.
fn revoked_by((client_failed, e): (bool, Error), by_client: bool) {
    assert_eq!(client_failed, by_client);
    assert_eq!(e, Error::InvalidCertificate(CertificateError::Revoked));
    assert_eq!(e.alert(), Some(A::CertificateRevoked));
}

#[test]
fn revoked_server_refused() {
    let p = pki();
    let t = now() - 60;
    // the sign certificate revoked, then the encryption certificate
    for revoked in [&p.server.sign, &p.server.enc] {
        let crl = crl_der(&[revoked], t, 7);
        revoked_by(
            refused(client(roots_with(&crl)), server(pki().roots())),
            true,
        );
    }
}

#[test]
fn revoked_client_refused() {
    let p = pki();
    let crl = crl_der(&[&p.client.sign], now() - 60, 7);
    revoked_by(
        refused(client(pki().roots()), server(roots_with(&crl))),
        false,
    );
}

#[test]
fn unrevoked_peers_pass_and_bad_crls_refused() {
    let p = pki();
    // a CRL listing someone else: both sides check, both pass
    let crl = crl_der(&[&p.server_expired.sign], now() - 60, 7);
    let (mut c, mut s) = (client(roots_with(&crl)), server(roots_with(&crl)));
    handshake(&mut c, &mut s).expect("unrevoked peers");

    let unknown = |e: &Error, want: CertificateError| {
        assert_eq!(e, &Error::InvalidCertificate(want));
        assert_eq!(e.alert(), Some(A::CertificateUnknown));
    };
    // expired: nextUpdate passed
    let old = crl_der(&[], now() - 10 * 86_400, 1);
    let (_, e) = refused(client(roots_with(&old)), server(pki().roots()));
    unknown(&e, CertificateError::CrlExpired);
    // a signature byte flipped: not the CA's
    let mut list: x509_cert::crl::CertificateList =
        x509_cert::crl::CertificateList::from_der(&crl_der(&[], now() - 60, 7)).unwrap();
    let mut sig = list.signature.raw_bytes().to_vec();
    let last = sig.len() - 1;
    sig[last] ^= 1;
    list.signature = der::asn1::BitString::from_bytes(&sig).unwrap();
    let forged = list.to_der().unwrap();
    let (_, e) = refused(client(roots_with(&forged)), server(pki().roots()));
    unknown(&e, CertificateError::CrlBadSignature);
    // only another CA's CRL: the status of ours is unknown
    let other_ca = x509_cert::Certificate::from_der(&p.other_ca).unwrap();
    let other_key = key("TLCP other CA key");
    let theirs = crl::issue_crl(&other_ca, &other_key, &CrlParams::new(7)).unwrap();
    let (_, e) = refused(client(roots_with(theirs.to_der())), server(pki().roots()));
    unknown(&e, CertificateError::RevocationStatusUnknown);
    // PEM, and garbage refused when loading
    let mut r = pki().roots();
    assert_eq!(
        r.add_crl_pem(theirs.to_pem().unwrap().as_bytes()).unwrap(),
        1
    );
    assert_eq!(r.crl_count(), 1);
    assert!(r.add_crl(b"not a CRL").is_err());
    assert!(r.add_crl_pem(b"no PEM here").is_err());
}
