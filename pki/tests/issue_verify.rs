//! Requests, issuing and chain verification with this crate's own PKI; each failure mode
//! of the verifier made on purpose and checked for its error variant.
#![allow(clippy::unwrap_used, clippy::cloned_ref_to_slice_refs)]

use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::{display, parse_dn};
use shangmi_pki::verify::{Options, Purpose, VerifyError, verify_chain};
use shangmi_pki::{Certificate, SecretKey, generate_key, req};

#[path = "support/chain.rs"]
mod support;
use support::{Chain, chain};

/// 2025-01-01 and 2045-01-01.
const START: u64 = 1_735_689_600;
const END: u64 = 2_366_841_600;
const MID: u64 = 1_800_000_000;

fn params(dn: &str, profile: Profile) -> CertParams {
    let mut p = CertParams::new(parse_dn(dn).unwrap(), profile, 1);
    p.not_before = START;
    p.not_after = END;
    p
}

struct Pki {
    root_key: SecretKey,
    root: Certificate,
    inter_key: SecretKey,
    inter: Certificate,
    leaf_key: SecretKey,
    leaf: Certificate,
}

fn pki(inter_path_len: Option<u8>) -> Pki {
    let names = ["/C=CN/O=shangmi/CN=root", "/C=CN/O=shangmi/CN=intermediate"];
    let Chain {
        root_key,
        root,
        inter_key,
        inter,
    } = chain(params, names, inter_path_len);
    let leaf_key = generate_key().unwrap();
    let mut p = params("/C=CN/O=shangmi/CN=www.example.cn", Profile::TlsServer);
    p.sans = vec![
        San::Dns("www.example.cn".into()),
        San::Dns("*.api.example.cn".into()),
    ];
    let leaf = issue::issue(&inter, &inter_key, &leaf_key.public_key(), &p).unwrap();
    Pki {
        root_key,
        root,
        inter_key,
        inter,
        leaf_key,
        leaf,
    }
}

#[test]
fn names_parse_and_display() {
    let n = parse_dn("/C=CN/ST=Beijing/O=Org\\/Unit/CN=名字").unwrap();
    assert_eq!(display(&n), "C=CN, ST=Beijing, O=Org/Unit, CN=名字");
    for bad in ["", "C=CN", "/C", "/XX=1", "/C=", "/C=CN/", "/C=中国"] {
        assert!(parse_dn(bad).is_err(), "{bad}");
    }
}

#[test]
fn chain_verifies() {
    let p = pki(Some(0));
    let opts = Options::at(MID, Purpose::TlsServer).with_host("www.example.cn");
    let path = verify_chain(&p.leaf, &[p.inter.clone()], &[p.root.clone()], &opts).unwrap();
    assert_eq!(path.len(), 3);
    // wildcard, case-insensitive, trailing dot
    for host in ["x.api.example.cn", "WWW.EXAMPLE.CN", "www.example.cn."] {
        let opts = Options::at(MID, Purpose::TlsServer).with_host(host);
        verify_chain(&p.leaf, &[p.inter.clone()], &[p.root.clone()], &opts).unwrap();
    }
    // the root is its own trust anchor
    verify_chain(
        &p.root,
        &[],
        &[p.root.clone()],
        &Options::at(MID, Purpose::Any),
    )
    .unwrap();
    let _ = (&p.root_key, &p.leaf_key);
}

#[test]
fn each_failure_has_its_error() {
    let p = pki(Some(0));
    let inter = [p.inter.clone()];
    let roots = [p.root.clone()];
    let at = |t| Options::at(t, Purpose::TlsServer);
    let none: [Certificate; 0] = [];
    // (what the case changes, intermediates, roots, options, the error)
    let cases = [
        (
            "expired",
            &inter[..],
            &roots[..],
            at(END + 10),
            VerifyError::Expired { depth: 0 },
        ),
        (
            "not yet valid",
            &inter,
            &roots,
            at(START - 10),
            VerifyError::NotYetValid { depth: 0 },
        ),
        (
            "no intermediate",
            &none,
            &roots,
            at(MID),
            VerifyError::UnknownIssuer,
        ),
        (
            "no root",
            &inter,
            &none,
            at(MID),
            VerifyError::UnknownIssuer,
        ),
        (
            "other host",
            &inter,
            &roots,
            at(MID).with_host("other.example.cn"),
            VerifyError::HostMismatch,
        ),
        // a.b.api.example.cn: the wildcard covers one label only
        (
            "two labels under the wildcard",
            &inter,
            &roots,
            at(MID).with_host("a.b.api.example.cn"),
            VerifyError::HostMismatch,
        ),
        (
            "client purpose",
            &inter,
            &roots,
            Options::at(MID, Purpose::TlsClient),
            VerifyError::WrongExtendedKeyUsage,
        ),
        (
            "TLCP encryption purpose",
            &inter,
            &roots,
            Options::at(MID, Purpose::TlcpEnc),
            VerifyError::WrongKeyUsage,
        ),
        // another distinguishing ID: every signature fails
        (
            "another ID",
            &inter,
            &roots,
            at(MID).with_id(b"wrong id"),
            VerifyError::BadSignature { depth: 0 },
        ),
    ];
    for (what, inter, roots, opts, err) in cases {
        assert_eq!(
            verify_chain(&p.leaf, inter, roots, &opts),
            Err(err),
            "{what}"
        );
    }
}

#[test]
fn tampered_signature_is_bad_signature() {
    use der::{Decode, Encode};
    let p = pki(None);
    let mut der = p.leaf.to_der().unwrap();
    // flip a bit inside the subject's CN value (www.example.cn appears in the TBS first)
    let pos = der
        .windows(14)
        .position(|w| w == b"www.example.cn")
        .unwrap();
    der[pos] ^= 1;
    let bad = Certificate::from_der(&der).unwrap();
    assert_eq!(
        verify_chain(
            &bad,
            &[p.inter.clone()],
            &[p.root.clone()],
            &Options::at(MID, Purpose::Any)
        ),
        Err(VerifyError::BadSignature { depth: 0 })
    );
}

#[test]
fn path_length_and_ca_flag() {
    // intermediate with pathlen 0 issuing another CA: the sub-CA's leaf exceeds it
    let p = pki(Some(0));
    let sub_key = generate_key().unwrap();
    let sub = issue_to(
        &p.inter,
        &p.inter_key,
        &sub_key,
        "/CN=sub CA",
        Profile::Ca { path_len: None },
    );
    let leaf_key = generate_key().unwrap();
    let leaf = issue_to(&sub, &sub_key, &leaf_key, "/CN=deep", Profile::TlsClient);
    let opts = Options::at(MID, Purpose::TlsClient);
    assert_eq!(
        verify_chain(
            &leaf,
            &[sub.clone(), p.inter.clone()],
            &[p.root.clone()],
            &opts
        ),
        Err(VerifyError::PathLenExceeded { depth: 2 })
    );
    // without the constraint it verifies
    let q = pki(None);
    let sub2 = issue_to(
        &q.inter,
        &q.inter_key,
        &sub_key,
        "/CN=sub CA",
        Profile::Ca { path_len: None },
    );
    let leaf2 = issue_to(&sub2, &sub_key, &leaf_key, "/CN=deep", Profile::TlsClient);
    verify_chain(&leaf2, &[sub2, q.inter.clone()], &[q.root.clone()], &opts).unwrap();
    // a leaf used as an issuer: not a CA
    let fake = issue_to(
        &p.leaf,
        &p.leaf_key,
        &leaf_key,
        "/CN=fake",
        Profile::TlsClient,
    );
    assert_eq!(
        verify_chain(
            &fake,
            &[p.leaf.clone(), p.inter.clone()],
            &[p.root.clone()],
            &opts
        ),
        Err(VerifyError::NotCa { depth: 1 })
    );
}

#[test]
fn request_round_trip_and_issue() {
    let p = pki(None);
    let key = generate_key().unwrap();
    let subject = parse_dn("/C=CN/O=shangmi/CN=tlcp.example.cn").unwrap();
    let csr = req::create_request(
        &key,
        &subject,
        &[
            San::Dns("tlcp.example.cn".into()),
            San::parse("IP:10.0.0.1").unwrap(),
        ],
        None,
    )
    .unwrap();
    assert_eq!(req::verify_request(&csr).unwrap(), key.public_key());
    assert!(req::verify_request_with_id(&csr, b"other").is_err());
    assert_eq!(req::requested_sans(&csr).unwrap().len(), 2);
    for (profile, purpose) in [
        (Profile::TlcpSign, Purpose::TlcpSign),
        (Profile::TlcpEnc, Purpose::TlcpEnc),
    ] {
        let mut params = params("/CN=ignored", profile);
        params.sans.clear();
        let cert = issue::issue_from_request(&p.inter, &p.inter_key, &csr, &params).unwrap();
        assert_eq!(cert.tbs_certificate().subject(), &subject);
        let opts = Options::at(MID, purpose).with_host("tlcp.example.cn");
        verify_chain(&cert, &[p.inter.clone()], &[p.root.clone()], &opts).unwrap();
        // the sign certificate cannot serve as the encryption one and back
        let other = if purpose == Purpose::TlcpSign {
            Purpose::TlcpEnc
        } else {
            Purpose::TlcpSign
        };
        assert_eq!(
            verify_chain(
                &cert,
                &[p.inter.clone()],
                &[p.root.clone()],
                &Options::at(MID, other)
            ),
            Err(VerifyError::WrongKeyUsage)
        );
    }
    // the issuer key must match the issuer certificate
    assert!(
        issue::issue(
            &p.inter,
            &p.root_key,
            &key.public_key(),
            &params("/CN=x", Profile::TlsClient)
        )
        .is_err()
    );
}

#[test]
fn name_constraints_apply() {
    use x509_cert::ext::pkix::constraints::name::{GeneralSubtree, NameConstraints};
    use x509_cert::ext::pkix::name::GeneralName;
    // A CA with permitted dNSName example.cn, built through the builder with an extra extension.
    let (root_key, root) = root();
    let nc = NameConstraints {
        permitted_subtrees: Some(vec![GeneralSubtree {
            base: GeneralName::DnsName(der::asn1::Ia5String::new("example.cn").unwrap()),
            minimum: 0,
            maximum: None,
        }]),
        excluded_subtrees: None,
    };
    let (nc_key, ca) = constrained_ca(&root, &root_key, "/CN=constrained", &nc);
    let ok_key = generate_key().unwrap();
    let mut good = params("/CN=a.example.cn", Profile::TlsServer);
    good.sans = vec![San::Dns("a.example.cn".into())];
    let good = issue::issue(&ca, &nc_key, &ok_key.public_key(), &good).unwrap();
    let mut bad = params("/CN=a.example.com", Profile::TlsServer);
    bad.sans = vec![San::Dns("a.example.com".into())];
    let bad = issue::issue(&ca, &nc_key, &ok_key.public_key(), &bad).unwrap();
    let opts = Options::at(MID, Purpose::TlsServer);
    verify_chain(&good, &[ca.clone()], &[root.clone()], &opts).unwrap();
    assert_eq!(
        verify_chain(&bad, &[ca], &[root], &opts),
        Err(VerifyError::NameConstraintViolation { depth: 1 })
    );
}

/// A self-signed root CA "/CN=root" and its key.
fn root() -> (SecretKey, Certificate) {
    let key = generate_key().unwrap();
    let params = params("/CN=root", Profile::Ca { path_len: None });
    let cert = issue::self_signed(&key, &params).unwrap();
    (key, cert)
}

/// A chain's verification under name constraints: it passes when `accepted`, else it is
/// refused for the constraints of the CA at `depth`.
fn expect_name_constraints<T: std::fmt::Debug + PartialEq>(
    r: Result<T, VerifyError>,
    accepted: bool,
    depth: usize,
    what: &str,
) {
    if accepted {
        assert!(r.is_ok(), "{what}: {r:?}");
    } else {
        assert_eq!(
            r,
            Err(VerifyError::NameConstraintViolation { depth }),
            "{what}"
        );
    }
}

/// The certificate of `key` named `dn` with `profile`, issued by `issuer` (its key
/// `issuer_key`) for the validity `params` gives.
fn issue_to(
    issuer: &Certificate,
    issuer_key: &SecretKey,
    key: &SecretKey,
    dn: &str,
    profile: Profile,
) -> Certificate {
    issue::issue(issuer, issuer_key, &key.public_key(), &params(dn, profile)).unwrap()
}

/// A new key and its CA certificate named `dn` with one more (critical) extension: the
/// name constraints `nc`.
fn constrained_ca(
    issuer: &Certificate,
    issuer_key: &SecretKey,
    dn: &str,
    nc: &x509_cert::ext::pkix::constraints::name::NameConstraints,
) -> (SecretKey, Certificate) {
    use der::Encode;
    use shangmi_sm2::dsa;
    use x509_cert::builder::{Builder, CertificateBuilder, profile::BuilderProfile};
    use x509_cert::ext::pkix::{BasicConstraints, KeyUsage, KeyUsages};
    use x509_cert::ext::{Extension, ToExtension};
    let key = generate_key().unwrap();
    struct P(x509_cert::name::Name, x509_cert::name::Name, Vec<u8>);
    impl BuilderProfile for P {
        fn get_issuer(&self, _: &x509_cert::name::Name) -> x509_cert::name::Name {
            self.1.clone()
        }
        fn get_subject(&self) -> x509_cert::name::Name {
            self.0.clone()
        }
        fn build_extensions(
            &self,
            _: spki::SubjectPublicKeyInfoRef<'_>,
            _: spki::SubjectPublicKeyInfoRef<'_>,
            _: &x509_cert::TbsCertificate,
        ) -> x509_cert::builder::Result<Vec<Extension>> {
            let mut out = Vec::new();
            let bc = BasicConstraints {
                ca: true,
                path_len_constraint: None,
            };
            out.push((true, &bc).to_extension(&self.0, &out)?);
            let ku = KeyUsage(KeyUsages::KeyCertSign | KeyUsages::CRLSign);
            out.push((true, &ku).to_extension(&self.0, &out)?);
            out.push(Extension {
                extn_id: shangmi_pki::oid::NAME_CONSTRAINTS,
                critical: true,
                extn_value: der::asn1::OctetString::new(self.2.clone()).unwrap(),
            });
            Ok(out)
        }
    }
    let profile = P(
        parse_dn(dn).unwrap(),
        issuer.tbs_certificate().subject().clone(),
        nc.to_der().unwrap(),
    );
    let t = |s| {
        x509_cert::time::Time::from(
            der::DateTime::from_unix_duration(std::time::Duration::from_secs(s)).unwrap(),
        )
    };
    let builder = CertificateBuilder::new(
        profile,
        x509_cert::serial_number::SerialNumber::from(7u32),
        x509_cert::time::Validity::new(t(START), t(END)),
        issue::spki_of(&key.public_key()).unwrap(),
    )
    .unwrap();
    let signer = dsa::SigningKey::new(issuer_key).unwrap();
    (key, builder.build::<_, dsa::Signature>(&signer).unwrap())
}

/// Name constraints beyond dNSName (RFC 5280 §4.2.1.10): rfc822Name (SAN and the subject's
/// emailAddress), iPAddress with masks (v4 and v6), directoryName, permitted and excluded.
#[test]
fn name_constraints_email_ip_directory() {
    use der::asn1::{Ia5String, OctetString};
    use x509_cert::ext::pkix::constraints::name::{GeneralSubtree, NameConstraints};
    use x509_cert::ext::pkix::name::GeneralName;
    let sub = |base| GeneralSubtree {
        base,
        minimum: 0,
        maximum: None,
    };
    let email = |s: &str| sub(GeneralName::Rfc822Name(Ia5String::new(s).unwrap()));
    let ip = |b: &[u8]| sub(GeneralName::IpAddress(OctetString::new(b).unwrap()));
    let dir = |s: &str| sub(GeneralName::DirectoryName(parse_dn(s).unwrap()));
    let (root_key, root) = root();
    let opts = Options::at(MID, Purpose::TlsClient);
    // A subtree or a SAN as `type:value` (email, ip with /prefix for subtrees, dir, dns);
    // empty for none.
    let tree = |spec: &str| -> Vec<GeneralSubtree> {
        let Some((kind, value)) = spec.split_once(':') else {
            return vec![];
        };
        vec![match kind {
            "email" => email(value),
            "dir" => dir(value),
            _ => {
                let (addr, prefix) = value.rsplit_once('/').unwrap();
                let (mut bytes, len) = match addr.parse::<std::net::IpAddr>().unwrap() {
                    std::net::IpAddr::V4(a) => (a.octets().to_vec(), 32),
                    std::net::IpAddr::V6(a) => (a.octets().to_vec(), 128),
                };
                let mask = u128::MAX << (128 - prefix.parse::<u32>().unwrap());
                bytes.extend_from_slice(&mask.to_be_bytes()[..len / 8]);
                ip(&bytes)
            }
        }]
    };
    let san = |spec: &str| -> Vec<San> {
        match spec.split_once(':') {
            None => vec![],
            Some(("email", v)) => vec![San::Email(v.into())],
            Some(("dns", v)) => vec![San::Dns(v.into())],
            Some((_, v)) => vec![San::Ip(v.parse().unwrap())],
        }
    };
    // (permitted, excluded, leaf subject, leaf SANs, accepted)
    let cases = [
        // rfc822Name: a host, a .domain, a mailbox; the SAN and the subject's emailAddress
        ("email:example.cn", "", "/CN=a", "email:a@example.cn", true),
        (
            "email:example.cn",
            "",
            "/CN=a",
            "email:a@sub.example.cn",
            false,
        ),
        (
            "email:.example.cn",
            "",
            "/CN=a",
            "email:a@sub.example.cn",
            true,
        ),
        (
            "email:.example.cn",
            "",
            "/CN=a",
            "email:a@example.cn",
            false,
        ),
        (
            "email:boss@example.cn",
            "",
            "/CN=a",
            "email:boss@EXAMPLE.cn",
            true,
        ),
        (
            "email:boss@example.cn",
            "",
            "/CN=a",
            "email:bob@example.cn",
            false,
        ),
        ("", "email:evil.cn", "/CN=a", "email:x@evil.cn", false),
        ("", "email:evil.cn", "/CN=a", "email:x@good.cn", true),
        (
            "email:example.cn",
            "",
            "/CN=a/emailAddress=a@other.cn",
            "",
            false,
        ),
        (
            "email:example.cn",
            "",
            "/CN=a/emailAddress=a@example.cn",
            "",
            true,
        ),
        // a constraint of one type leaves names of the other types alone
        ("email:example.cn", "", "/CN=a", "dns:x.other.cn", true),
        // iPAddress: 10.1.0.0/16 and 2001:db8::/32
        ("ip:10.1.0.0/16", "", "/CN=a", "ip:10.1.2.3", true),
        ("ip:10.1.0.0/16", "", "/CN=a", "ip:10.2.2.3", false),
        ("", "ip:192.168.0.0/16", "/CN=a", "ip:192.168.9.9", false),
        ("", "ip:192.168.0.0/16", "/CN=a", "ip:192.169.9.9", true),
        ("ip:2001:db8::/32", "", "/CN=a", "ip:2001:db8::1", true),
        ("ip:2001:db8::/32", "", "/CN=a", "ip:2001:db9::1", false),
        // a v4 address is not in a v6 subtree (and the v6 constraint permits no v4 name)
        ("ip:2001:db8::/32", "", "/CN=a", "ip:10.0.0.1", false),
        // directoryName: the subject under /C=CN/O=Example
        ("dir:/C=CN/O=Example", "", "/C=CN/O=Example/CN=a", "", true),
        ("dir:/C=CN/O=Example", "", "/C=CN/O=Other/CN=a", "", false),
        ("dir:/C=CN/O=Example", "", "/C=CN", "", false),
        (
            "",
            "dir:/C=CN/O=Example/OU=Banned",
            "/C=CN/O=Example/OU=Banned/CN=a",
            "",
            false,
        ),
        (
            "",
            "dir:/C=CN/O=Example/OU=Banned",
            "/C=CN/O=Example/OU=Fine/CN=a",
            "",
            true,
        ),
    ];
    for (i, (permitted, excluded, subject, sans, accepted)) in cases.into_iter().enumerate() {
        let (permitted, excluded) = (tree(permitted), tree(excluded));
        let nc = NameConstraints {
            permitted_subtrees: (!permitted.is_empty()).then_some(permitted),
            excluded_subtrees: (!excluded.is_empty()).then_some(excluded),
        };
        let (ca_key, ca) = constrained_ca(&root, &root_key, "/CN=constrained", &nc);
        let key = generate_key().unwrap();
        let mut p = params(subject, Profile::TlsClient);
        p.sans = san(sans);
        let leaf = issue::issue(&ca, &ca_key, &key.public_key(), &p).unwrap();
        let r = verify_chain(
            &leaf,
            std::slice::from_ref(&ca),
            std::slice::from_ref(&root),
            &opts,
        );
        expect_name_constraints(r, accepted, 1, &format!("case {i}"));
    }
}

/// RFC 5280 §6.1.3 (b), (c): a CA's name constraints bind every certificate below it, not
/// only the leaf. Root → CA constrained to /C=CN/O=Example and DNS example.cn → sub-CA →
/// leaf: a sub-CA named outside the subtree is refused (at the constraining CA's depth, 2)
/// even when the leaf's names are inside; a sub-CA inside it passes, and a sub-CA's CN is
/// not taken for a host name (a CA has no CN fallback).
#[test]
fn name_constraints_bind_intermediates() {
    use der::asn1::Ia5String;
    use x509_cert::ext::pkix::constraints::name::{GeneralSubtree, NameConstraints};
    use x509_cert::ext::pkix::name::GeneralName;
    let sub = |base| GeneralSubtree {
        base,
        minimum: 0,
        maximum: None,
    };
    let (root_key, root) = root();
    let nc = NameConstraints {
        permitted_subtrees: Some(vec![
            sub(GeneralName::DirectoryName(
                parse_dn("/C=CN/O=Example").unwrap(),
            )),
            sub(GeneralName::DnsName(Ia5String::new("example.cn").unwrap())),
        ]),
        excluded_subtrees: None,
    };
    let (ca_key, ca) = constrained_ca(&root, &root_key, "/C=CN/O=Example/CN=constrained", &nc);
    let opts = Options::at(MID, Purpose::TlsServer);
    for (sub_name, accepted) in [
        ("/C=CN/O=Other/CN=Sub CA", false),
        ("/C=CN/O=Example/CN=Sub CA", true),
    ] {
        let sub_key = generate_key().unwrap();
        let sub_ca = issue_to(
            &ca,
            &ca_key,
            &sub_key,
            sub_name,
            Profile::Ca { path_len: None },
        );
        let key = generate_key().unwrap();
        let mut p = params("/C=CN/O=Example/CN=www.example.cn", Profile::TlsServer);
        p.sans = vec![San::Dns("www.example.cn".into())];
        let leaf = issue::issue(&sub_ca, &sub_key, &key.public_key(), &p).unwrap();
        let r = verify_chain(
            &leaf,
            &[sub_ca, ca.clone()],
            std::slice::from_ref(&root),
            &opts,
        );
        expect_name_constraints(r, accepted, 2, sub_name);
    }
}
