//! CRLs: issued by `shangmi_pki::crl`, parsed back (DER and PEM), refused when malformed
//! or carrying what the parser cannot apply, and applied by `verify::verify_chain` with the
//! documented policy (revoked, unknown status, expired CRL, bad CRL signature).
#![allow(clippy::unwrap_used)]

use der::{Decode, Encode};
use shangmi_pki::crl::{self, Crl, CrlParams, Reason, Revoked};
use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_pki::name::parse_dn;
use shangmi_pki::verify::{Options, Purpose, RevocationPolicy, VerifyError, verify_chain};
use shangmi_pki::{Certificate, Error, SecretKey, generate_key};
use shangmi_sm2::signature::Signer;
use x509_cert::crl::CertificateList;
use x509_cert::ext::Extension;

struct Ca {
    key: SecretKey,
    cert: Certificate,
}

fn root(cn: &str) -> Ca {
    let key = generate_key().unwrap();
    let params = CertParams::new(
        parse_dn(&format!("/O=shangmi/CN={cn}")).unwrap(),
        Profile::Ca { path_len: None },
        30,
    );
    let cert = issue::self_signed(&key, &params).unwrap();
    Ca { key, cert }
}

fn sub(ca: &Ca, cn: &str, profile: Profile, serial: &[u8]) -> Ca {
    let key = generate_key().unwrap();
    let mut params = CertParams::new(parse_dn(&format!("/CN={cn}")).unwrap(), profile, 30);
    params.serial = Some(serial.to_vec());
    let cert = issue::issue(&ca.cert, &ca.key, &key.public_key(), &params).unwrap();
    Ca { key, cert }
}

fn serial(c: &Certificate) -> Vec<u8> {
    c.tbs_certificate().serial_number().as_bytes().to_vec()
}

fn crl_of(ca: &Ca, revoked: &[(&Certificate, Option<Reason>)]) -> Crl {
    let mut params = CrlParams::new(7);
    for (c, reason) in revoked {
        params.revoked.push(Revoked::now(&serial(c), *reason));
    }
    crl::issue_crl(&ca.cert, &ca.key, &params).unwrap()
}

/// Re-signs `list` (after a test changed it) with `key`, as a CA would have.
fn resign(mut list: CertificateList, key: &SecretKey) -> Vec<u8> {
    let signer = shangmi_sm2::dsa::SigningKey::new(key).unwrap();
    let sig: shangmi_sm2::dsa::Signature = signer
        .try_sign(&list.tbs_cert_list.to_der().unwrap())
        .unwrap();
    list.signature = der::asn1::BitString::from_bytes(sig.to_der().as_ref()).unwrap();
    list.to_der().unwrap()
}

fn opts(crls: &[Crl]) -> Options<'_> {
    Options::now(Purpose::Any).with_crls(crls)
}

/// [`opts`] under the default revocation policy as `change` alters it.
fn opts_with(crls: &[Crl], change: impl FnOnce(&mut RevocationPolicy)) -> Options<'_> {
    let mut policy = RevocationPolicy::default();
    change(&mut policy);
    opts(crls).with_revocation(policy)
}

#[test]
fn issue_parse_round_trip() {
    let ca = root("CRL CA");
    let a = sub(&ca, "a", Profile::TlsServer, &[0x00, 0x81, 0x02]);
    let b = sub(&ca, "b", Profile::TlsClient, &[0x05]);
    let list = crl_of(
        &ca,
        &[(&a.cert, Some(Reason::KeyCompromise)), (&b.cert, None)],
    );
    // DER and PEM read back to the same CRL
    let from_der = Crl::from_der(list.to_der()).unwrap();
    let from_pem = Crl::parse_all(list.to_pem().unwrap().as_bytes()).unwrap();
    assert_eq!(from_pem, vec![from_der.clone()]);
    assert!(
        list.to_pem()
            .unwrap()
            .starts_with("-----BEGIN X509 CRL-----")
    );
    let parsed = from_der;
    assert_eq!(parsed.issuer(), ca.cert.tbs_certificate().subject());
    assert_eq!(parsed.list().tbs_cert_list.version, x509_cert::Version::V2);
    assert_eq!(
        parsed.next_update().unwrap() - parsed.this_update(),
        7 * 86_400
    );
    assert_eq!(
        parsed.number().unwrap(),
        &parsed.this_update().to_be_bytes()[4..]
    );
    assert_eq!(
        parsed.authority_key_id(),
        issue::subject_key_identifier(&ca.cert)
            .as_ref()
            .map(|k| k.as_bytes())
    );
    assert_eq!(parsed.revoked().len(), 2);
    // the serial with its high bit set, looked up with or without the sign byte
    assert_eq!(
        parsed.find(&[0x81, 0x02]).unwrap().reason,
        Some(Reason::KeyCompromise)
    );
    assert_eq!(
        parsed.find(&[0x00, 0x81, 0x02]).unwrap().serial,
        vec![0x81, 0x02]
    );
    assert_eq!(parsed.find(&[0x05]).unwrap().reason, None);
    assert!(parsed.find(&[0x06]).is_none());
    parsed.verify_signature(&ca.cert).unwrap();
    // another CA of the same name (another key) did not sign it
    let other = root("CRL CA");
    assert_eq!(
        parsed.verify_signature(&other.cert),
        Err(Error::IssuerMismatch)
    );
    // a leaf is no CRL signer, and another ID does not verify
    assert_eq!(parsed.verify_signature(&a.cert), Err(Error::IssuerMismatch));
    assert_eq!(
        parsed.verify_signature_with_id(&ca.cert, b"other id"),
        Err(Error::BadSignature)
    );
    // nothing revoked: no revokedCertificates field at all (RFC 5280 §5.1.2.6)
    let empty = crl_of(&ca, &[]);
    assert!(empty.list().tbs_cert_list.revoked_certificates.is_none());
    assert!(empty.revoked().is_empty());
    // the issuing key must be the certificate's
    assert_eq!(
        crl::issue_crl(&ca.cert, &other.key, &CrlParams::new(1)).unwrap_err(),
        Error::KeyMismatch
    );
}

#[test]
fn verify_refuses_revoked() {
    let ca = root("Chain CA");
    let good = sub(&ca, "good", Profile::TlsServer, &[0x10]);
    let bad = sub(&ca, "bad", Profile::TlsServer, &[0x11]);
    let crls = [crl_of(&ca, &[(&bad.cert, Some(Reason::Superseded))])];
    let roots = [ca.cert.clone()];
    verify_chain(&good.cert, &[], &roots, &opts(&crls)).unwrap();
    assert_eq!(
        verify_chain(&bad.cert, &[], &roots, &opts(&crls)).unwrap_err(),
        VerifyError::Revoked {
            depth: 0,
            reason: Some(Reason::Superseded)
        }
    );
    // without CRLs nothing is checked
    verify_chain(&bad.cert, &[], &roots, &Options::now(Purpose::Any)).unwrap();
    // a CRL of another CA says nothing about ours: unknown status, unless allowed
    let stranger = root("Stranger CA");
    let theirs = [crl_of(&stranger, &[])];
    assert_eq!(
        verify_chain(&good.cert, &[], &roots, &opts(&theirs)).unwrap_err(),
        VerifyError::RevocationStatusUnknown { depth: 0 }
    );
    let lenient = opts_with(&theirs, |p| p.allow_unknown = true);
    verify_chain(&good.cert, &[], &roots, &lenient).unwrap();
}

#[test]
fn expired_and_forged_crls_refused() {
    let ca = root("Policy CA");
    let leaf = sub(&ca, "leaf", Profile::TlsClient, &[0x20]);
    let roots = [ca.cert.clone()];
    let mut params = CrlParams::new(1);
    params.this_update -= 3 * 86_400;
    params.next_update = Some(params.this_update + 86_400);
    let expired = [crl::issue_crl(&ca.cert, &ca.key, &params).unwrap()];
    assert_eq!(
        verify_chain(&leaf.cert, &[], &roots, &opts(&expired)).unwrap_err(),
        VerifyError::CrlExpired { depth: 0 }
    );
    // expiry is nextUpdate against the verification time
    assert!(!expired[0].is_expired(params.this_update + 86_400));
    assert!(expired[0].is_expired(params.this_update + 86_401));
    // no nextUpdate: never expires
    params.next_update = None;
    let open = [crl::issue_crl(&ca.cert, &ca.key, &params).unwrap()];
    verify_chain(&leaf.cert, &[], &roots, &opts(&open)).unwrap();
    // a signature byte changed: still well-formed, no longer the CA's
    let mut list = crl_of(&ca, &[]).list().clone();
    let mut sig = list.signature.raw_bytes().to_vec();
    let last = sig.len() - 1;
    sig[last] ^= 1;
    list.signature = der::asn1::BitString::from_bytes(&sig).unwrap();
    let forged = [Crl::from_der(&list.to_der().unwrap()).unwrap()];
    assert_eq!(
        verify_chain(&leaf.cert, &[], &roots, &opts(&forged)).unwrap_err(),
        VerifyError::CrlBadSignature { depth: 0 }
    );
}

#[test]
fn chain_policy_covers_intermediates() {
    let ca = root("Root CA");
    let inter = sub(&ca, "Inter CA", Profile::Ca { path_len: None }, &[0x30]);
    let leaf = sub(&inter, "leaf", Profile::TlsServer, &[0x31]);
    let roots = [ca.cert.clone()];
    let untrusted = [inter.cert.clone()];
    let inter_crl = crl_of(&inter, &[]);
    // the intermediate's own status is unknown with only its CRL given
    let crls = [inter_crl.clone()];
    assert_eq!(
        verify_chain(&leaf.cert, &untrusted, &roots, &opts(&crls)).unwrap_err(),
        VerifyError::RevocationStatusUnknown { depth: 1 }
    );
    let leaf_only = opts_with(&crls, |p| p.end_entity_only = true);
    verify_chain(&leaf.cert, &untrusted, &roots, &leaf_only).unwrap();
    // the root's CRL revokes the intermediate
    let crls = [
        inter_crl.clone(),
        crl_of(&ca, &[(&inter.cert, Some(Reason::CaCompromise))]),
    ];
    assert_eq!(
        verify_chain(&leaf.cert, &untrusted, &roots, &opts(&crls)).unwrap_err(),
        VerifyError::Revoked {
            depth: 1,
            reason: Some(Reason::CaCompromise)
        }
    );
    let crls = [inter_crl, crl_of(&ca, &[])];
    verify_chain(&leaf.cert, &untrusted, &roots, &opts(&crls)).unwrap();
}

#[test]
fn strict_parsing() {
    let ca = root("Strict CA");
    let leaf = sub(&ca, "leaf", Profile::TlsServer, &[0x40]);
    let good = crl_of(&ca, &[(&leaf.cert, Some(Reason::Unspecified))]);
    let der = good.to_der().to_vec();
    // trailing bytes, truncation, garbage, a certificate instead of a CRL
    let mut trailing = der.clone();
    trailing.push(0);
    assert!(matches!(Crl::from_der(&trailing), Err(Error::Der(_))));
    assert!(Crl::from_der(&der[..der.len() - 1]).is_err());
    assert!(Crl::from_der(b"not a CRL").is_err());
    assert!(Crl::from_der(&ca.cert.to_der().unwrap()).is_err());
    assert!(Crl::parse_all(b"-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n").is_err());
    // a PEM file of certificates only has no CRL
    let cert_pem = shangmi_pki::pem::to_pem("CERTIFICATE", &ca.cert.to_der().unwrap()).unwrap();
    assert_eq!(Crl::parse_all(cert_pem.as_bytes()), Err(Error::Pem));

    let base = CertificateList::from_der(&der).unwrap();
    let ext = |oid: &str, critical: bool, value: &[u8]| Extension {
        extn_id: oid.parse().unwrap(),
        critical,
        extn_value: der::asn1::OctetString::new(value).unwrap(),
    };
    let with_crl_ext = |e: Extension| {
        let mut l = base.clone();
        l.tbs_cert_list.crl_extensions.as_mut().unwrap().push(e);
        resign(l, &ca.key)
    };
    // an unknown non-critical extension is ignored; a critical one refused
    Crl::from_der(&with_crl_ext(ext("1.2.3.4", false, &[5, 0]))).unwrap();
    assert_eq!(
        Crl::from_der(&with_crl_ext(ext("1.2.3.4", true, &[5, 0]))).unwrap_err(),
        Error::UnhandledCriticalExtension("1.2.3.4".parse().unwrap())
    );
    // delta CRLs and issuingDistributionPoint (partitioned CRLs) are refused
    assert!(matches!(
        Crl::from_der(&with_crl_ext(ext("2.5.29.27", true, &[2, 1, 1]))),
        Err(Error::UnhandledCriticalExtension(_))
    ));
    assert!(matches!(
        Crl::from_der(&with_crl_ext(ext(
            "2.5.29.28",
            true,
            &[0x30, 0x03, 0x81, 0x01, 0xff]
        ))),
        Err(Error::UnhandledCriticalExtension(_))
    ));
    // an extension twice
    let number = base.tbs_cert_list.crl_extensions.as_ref().unwrap()[1].clone();
    assert!(matches!(
        Crl::from_der(&with_crl_ext(number)),
        Err(Error::Der(_))
    ));
    // entry extensions: certificateIssuer (indirect CRL) refused, critical unknown refused
    let with_entry_ext = |e: Extension| {
        let mut l = base.clone();
        let entry = &mut l.tbs_cert_list.revoked_certificates.as_mut().unwrap()[0];
        entry.crl_entry_extensions.as_mut().unwrap().push(e);
        resign(l, &ca.key)
    };
    assert!(matches!(
        Crl::from_der(&with_entry_ext(ext("2.5.29.29", true, &[0x30, 0x00]))),
        Err(Error::UnhandledCriticalExtension(_))
    ));
    assert!(matches!(
        Crl::from_der(&with_entry_ext(ext("1.2.3.5", true, &[5, 0]))),
        Err(Error::UnhandledCriticalExtension(_))
    ));
    // a version 1 CRL, or one whose two signature algorithms differ
    let mut v1 = base.clone();
    v1.tbs_cert_list.version = x509_cert::Version::V1;
    assert!(Crl::from_der(&resign(v1, &ca.key)).is_err());
    let mut alg = base.clone();
    alg.signature_algorithm.parameters = Some(der::asn1::Any::null());
    assert!(Crl::from_der(&alg.to_der().unwrap()).is_err());
    // a bad reason code value
    let mut reason = base.clone();
    reason.tbs_cert_list.revoked_certificates.as_mut().unwrap()[0]
        .crl_entry_extensions
        .as_mut()
        .unwrap()[0]
        .extn_value = der::asn1::OctetString::new([0x0a, 0x01, 0x07]).unwrap();
    assert!(Crl::from_der(&resign(reason, &ca.key)).is_err());
}
