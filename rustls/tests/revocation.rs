//! Revocation in the provider's verifiers (`shangmi_rustls::verify::server_verifier` /
//! `client_verifier`, rustls' webpki verifiers with CRLs): CRLs that `shangmi_pki::crl`
//! signs with SM2-with-SM3 verify through the provider's algorithms; a revoked server and a
//! revoked client are refused with certificate_revoked, unrevoked ones pass, and an expired
//! CRL is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::pki::Pki;
use common::{Auth, Failed, pump, roots};
use der::Decode;
use rustls::pki_types::{CertificateRevocationListDer, ServerName};
use rustls::time_provider::DefaultTimeProvider;
use rustls::{AlertDescription, CertificateError};
use shangmi_pki::crl::{self, CrlParams, Reason, Revoked};
use std::sync::{Arc, OnceLock};

fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(Pki::new)
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A CRL of the test CA revoking `revoked`, from `this_update` for `days`.
fn crl(
    revoked: &[&[u8]],
    this_update: u64,
    days: u64,
) -> Vec<CertificateRevocationListDer<'static>> {
    let ca = x509_cert::Certificate::from_der(&pki().ca).unwrap();
    let mut params = CrlParams::new(1);
    params.this_update = this_update;
    params.next_update = Some(this_update + days * 86_400);
    for c in revoked {
        let cert = x509_cert::Certificate::from_der(c).unwrap();
        let serial = cert.tbs_certificate().serial_number().as_bytes();
        params
            .revoked
            .push(Revoked::now(serial, Some(Reason::KeyCompromise)));
    }
    let list = crl::issue_crl(&ca, &pki().ca_key, &params).unwrap();
    vec![CertificateRevocationListDer::from(list.to_der().to_vec())]
}

fn configs(
    client_crls: Vec<CertificateRevocationListDer<'static>>,
    server_crls: Vec<CertificateRevocationListDer<'static>>,
) -> (rustls::ClientConnection, rustls::ServerConnection) {
    let p = pki();
    let provider = common::provider();
    let time = Arc::new(DefaultTimeProvider);
    let client = common::client_config_verified(
        p,
        provider.clone(),
        time.clone(),
        shangmi_rustls::verify::server_verifier(roots(&p.ca), client_crls).unwrap(),
        Auth::Mutual,
    );
    let server = common::server_config_verified(
        p,
        provider,
        time,
        Some(shangmi_rustls::verify::client_verifier(roots(&p.ca), server_crls).unwrap()),
        &p.server,
    );
    let name = ServerName::try_from("localhost").unwrap();
    (
        rustls::ClientConnection::new(Arc::new(client), name).unwrap(),
        rustls::ServerConnection::new(Arc::new(server)).unwrap(),
    )
}

/// The failing side's error and the alert the other side received.
fn refused(
    mut c: rustls::ClientConnection,
    mut s: rustls::ServerConnection,
) -> (Failed, rustls::Error) {
    let failed = pump(&mut c, &mut s).expect_err("handshake must fail");
    let from_client = matches!(failed, Failed::Client(_));
    let received = common::deliver_alert(from_client, &mut c, &mut s);
    (failed, received)
}

const REVOKED: rustls::Error = rustls::Error::InvalidCertificate(CertificateError::Revoked);

/// The side whose CRLs (a fresh one of the CA) list the other side's certificate refuses it
/// with certificate_revoked: `server_side` names the revoked peer.
fn revoked_refused(server_side: bool) {
    let t = now() - 60;
    let (revoked, by) = if server_side {
        (&pki().server, Failed::Client(REVOKED))
    } else {
        (&pki().client, Failed::Server(REVOKED))
    };
    let list = crl(&[revoked], t, 7);
    let (client_crls, server_crls) = if server_side {
        (list, vec![])
    } else {
        (vec![], list)
    };
    let (failed, alert) = refused(
        configs(client_crls, vec![]).0,
        configs(vec![], server_crls).1,
    );
    assert_eq!(failed, by);
    assert_eq!(
        alert,
        rustls::Error::AlertReceived(AlertDescription::CertificateRevoked)
    );
}

#[test]
fn revoked_server_refused() {
    revoked_refused(true);
}

#[test]
fn revoked_client_refused() {
    revoked_refused(false);
}

#[test]
fn unrevoked_pass_expired_crl_refused() {
    let t = now() - 60;
    let other = crl(&[&pki().server_expired], t, 7);
    let (mut c, mut s) = configs(other.clone(), other);
    pump(&mut c, &mut s).expect("neither side revoked");
    assert!(!c.is_handshaking() && !s.is_handshaking());
    // a CRL past its nextUpdate
    let old = crl(&[], now() - 10 * 86_400, 1);
    let (failed, _) = refused(configs(old, vec![]).0, configs(vec![], vec![]).1);
    assert!(
        matches!(
            failed,
            Failed::Client(rustls::Error::InvalidCertificate(
                CertificateError::ExpiredRevocationList
                    | CertificateError::ExpiredRevocationListContext { .. }
            ))
        ),
        "{failed:?}"
    );
}
