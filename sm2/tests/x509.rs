//! Certificates: `x509-cert`'s builder issues an SM2 CA and a leaf with this crate's keys
//! (the signing key's `Keypair` and `SignatureAlgorithmIdentifier`, `Signature`'s DER
//! bit-string encoding, the verifying key's `EncodePublicKey`); our own verifier and `openssl verify` (with the SM2
//! ID option: certificate signatures use the default ID 1234567812345678, as Tongsuo, GmSSL
//! and OpenSSL verify them) accept the chain and reject a tampered leaf.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::keys::{self, SM2_WITH_SM3_OID};
use shangmi_sm2::pkcs8::spki::{DynSignatureAlgorithmIdentifier, SubjectPublicKeyInfoRef};
use shangmi_sm2::pkcs8::{DecodePublicKey, EncodePublicKey};
use shangmi_sm2::signature::Verifier;
use std::str::FromStr;
use std::time::Duration;
use x509_cert::builder::profile::BuilderProfile;
use x509_cert::builder::{Builder, CertificateBuilder};
use x509_cert::certificate::{Certificate, TbsCertificate};
use x509_cert::der::asn1::Ia5String;
use x509_cert::der::{Decode, Encode};
use x509_cert::ext::pkix::name::GeneralName;
use x509_cert::ext::pkix::{BasicConstraints, KeyUsage, KeyUsages, SubjectAltName};
use x509_cert::ext::{Extension, ToExtension};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::SubjectPublicKeyInfoOwned;
use x509_cert::time::Validity;

/// A small profile: a self-signed CA (basicConstraints CA, keyCertSign) or a leaf
/// (digitalSignature, a DNS name) issued by `issuer`. Written here rather than taken from
/// `x509-cert`'s CA/B Forum profiles, whose fields change with that crate's features.
struct Profile {
    subject: Name,
    issuer: Option<Name>,
}

impl BuilderProfile for Profile {
    fn get_issuer(&self, subject: &Name) -> Name {
        self.issuer.clone().unwrap_or_else(|| subject.clone())
    }

    fn get_subject(&self) -> Name {
        self.subject.clone()
    }

    fn build_extensions(
        &self,
        _spk: SubjectPublicKeyInfoRef<'_>,
        _issuer_spk: SubjectPublicKeyInfoRef<'_>,
        tbs: &TbsCertificate,
    ) -> x509_cert::builder::Result<Vec<Extension>> {
        let subject = tbs.subject();
        let none = Vec::new();
        let ca = self.issuer.is_none();
        let mut out = vec![
            BasicConstraints {
                ca,
                path_len_constraint: None,
            }
            .to_extension(subject, &none)?,
        ];
        let usage = if ca {
            KeyUsages::KeyCertSign | KeyUsages::CRLSign | KeyUsages::DigitalSignature
        } else {
            KeyUsages::DigitalSignature.into()
        };
        out.push(KeyUsage(usage).to_extension(subject, &none)?);
        if !ca {
            let san = SubjectAltName(vec![GeneralName::DnsName(
                Ia5String::new("sm2.test").unwrap(),
            )]);
            out.push(san.to_extension(subject, &none)?);
        }
        Ok(out)
    }
}

fn issue(
    profile: Profile,
    serial: u8,
    subject_key: &VerifyingKey,
    issuer: &SigningKey,
) -> Certificate {
    let spki = SubjectPublicKeyInfoOwned::from_key(subject_key).unwrap();
    let builder = CertificateBuilder::new(
        profile,
        // 8 bytes: GmSSL refuses serial numbers shorter than 4 bytes ("not enough
        // randomness"); fixed here so the test is reproducible.
        SerialNumber::new(&[0x4d, 0x32, 0x53, 0x4d, 0x32, 0x74, 0x65, serial]).unwrap(),
        Validity::from_now(Duration::from_secs(3600)).unwrap(),
        spki,
    )
    .unwrap();
    builder.build::<_, Signature>(issuer).unwrap()
}

/// A CA and a leaf: (CA key, CA certificate, leaf key, leaf certificate).
fn chain() -> (SigningKey, Certificate, SigningKey, Certificate) {
    let ca_key = SigningKey::from_bytes(&[0x5a; 32].into()).unwrap();
    let leaf_key = SigningKey::from_bytes(&[0x3c; 32].into()).unwrap();
    let ca_name = Name::from_str("CN=shangmi test CA,O=shangmi,C=CN").unwrap();
    let ca = issue(
        Profile {
            subject: ca_name.clone(),
            issuer: None,
        },
        1,
        ca_key.verifying_key(),
        &ca_key,
    );
    let leaf = issue(
        Profile {
            subject: Name::from_str("CN=sm2.test,O=shangmi,C=CN").unwrap(),
            issuer: Some(ca_name),
        },
        2,
        leaf_key.verifying_key(),
        &ca_key,
    );
    (ca_key, ca, leaf_key, leaf)
}

/// Our own check of `cert`'s signature by `issuer`: default ID, DER signature.
fn signature_ok(cert: &Certificate, issuer: &VerifyingKey) -> bool {
    let tbs = cert.tbs_certificate().to_der().unwrap();
    let Some(sig) = cert.signature().as_bytes() else {
        return false;
    };
    let Ok(sig) = Signature::from_der(sig) else {
        return false;
    };
    issuer.verify(&tbs, &sig).is_ok()
}

#[test]
fn builder_issues_a_chain_our_verifier_accepts() {
    let (ca_key, ca, leaf_key, leaf) = chain();
    // sm2-with-sm3 without parameters, in the TBS and outside it.
    for alg in [cert_alg(&ca), cert_alg(&leaf)] {
        assert_eq!(alg, (SM2_WITH_SM3_OID, None));
    }
    assert_eq!(
        ca_key.signature_algorithm_identifier().unwrap().oid,
        SM2_WITH_SM3_OID
    );
    // The subject keys round-trip through the certificates' SPKI.
    let leaf_spki = leaf
        .tbs_certificate()
        .subject_public_key_info()
        .to_der()
        .unwrap();
    assert_eq!(
        &VerifyingKey::from_public_key_der(&leaf_spki).unwrap(),
        leaf_key.verifying_key()
    );
    assert_eq!(
        leaf_spki,
        leaf_key
            .verifying_key()
            .to_public_key_der()
            .unwrap()
            .as_bytes()
    );
    assert!(signature_ok(&ca, ca_key.verifying_key()));
    assert!(signature_ok(&leaf, ca_key.verifying_key()));
    // Negative controls: the leaf's own key did not sign it; a tampered leaf fails.
    assert!(!signature_ok(&leaf, leaf_key.verifying_key()));
    assert!(!signature_ok(
        &tampered(&leaf, b"sm2.test"),
        ca_key.verifying_key()
    ));
}

fn cert_alg(cert: &Certificate) -> (x509_cert::der::oid::ObjectIdentifier, Option<Vec<u8>>) {
    assert_eq!(
        cert.signature_algorithm(),
        cert.tbs_certificate().signature()
    );
    let alg = cert.signature_algorithm();
    (
        alg.oid,
        alg.parameters.as_ref().map(|p| p.to_der().unwrap()),
    )
}

/// The certificate with the first byte of `needle` in its DER changed (signature left as
/// it was).
fn tampered(cert: &Certificate, needle: &[u8]) -> Certificate {
    let der = cert.to_der().unwrap();
    let pos = der.windows(needle.len()).position(|w| w == needle).unwrap();
    let mut bad = der.clone();
    bad[pos] = b'x';
    Certificate::from_der(&bad).unwrap()
}

#[test]
fn tongsuo_certificates_verify_with_the_default_id() {
    // Tongsuo-Project/Tongsuo @ 540603a3, test/certs/sm2-root-cert.pem (self-signed; its SPKI
    // uses the sm2+sm2 OID form) — see the workspace's test-vector notes. Checked here only
    // through its public key and TBS: our verifier with the default ID accepts it.
    let pem = TONGSUO_SM2_ROOT;
    let (_, der) = x509_cert::der::pem::decode_vec(pem.as_bytes()).unwrap();
    let cert = Certificate::from_der(&der).unwrap();
    let spki = cert
        .tbs_certificate()
        .subject_public_key_info()
        .to_der()
        .unwrap();
    let key = VerifyingKey::new(&keys::public_key_from_spki_der(&spki).unwrap());
    assert!(signature_ok(&cert, &key));
    assert!(!signature_ok(&tampered(&cert, b"SM2-CA"), &key));
}

#[test]
#[cfg(target_arch = "x86_64")] // the OpenSSL CLI exists on the development host only
fn diff_openssl_verifies_the_chain_and_rejects_a_tampered_leaf() {
    use std::process::Command;
    use x509_cert::der::{EncodePem, pem::LineEnding};
    let (_, ca, _, leaf) = chain();
    let dir = std::env::temp_dir().join(format!("shangmi-sm2-x509-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, cert: &Certificate| {
        let path = dir.join(name);
        std::fs::write(&path, cert.to_pem(LineEnding::LF).unwrap()).unwrap();
        path
    };
    let ca_pem = write("ca.pem", &ca);
    let leaf_pem = write("leaf.pem", &leaf);
    let bad_pem = write("bad.pem", &tampered(&leaf, b"sm2.test"));
    let verify_with = |id_option: &[&str], leaf: &std::path::Path| {
        let out = Command::new("openssl")
            .arg("verify")
            .arg("-CAfile")
            .arg(&ca_pem)
            .args(id_option)
            .arg(leaf)
            .output()
            .expect("the openssl CLI runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let verify =
        |leaf: &std::path::Path| verify_with(&["-vfyopt", "distid:1234567812345678"], leaf);
    // OpenSSL 3 verifies SM2 with an empty ID unless told otherwise: without the option the
    // chain must fail (the ID really is part of what is checked).
    let (ok, text) = verify_with(&[], &leaf_pem);
    assert!(
        !ok,
        "openssl verify accepted the chain with the empty ID: {text}"
    );
    let (ok, text) = verify(&leaf_pem);
    assert!(ok, "openssl verify refused our chain: {text}");
    let (ok, text) = verify(&bad_pem);
    assert!(!ok, "openssl verify accepted a tampered leaf: {text}");
    let (ok, text) = verify(&ca_pem);
    assert!(ok, "openssl verify refused our CA: {text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Tongsuo test/certs/sm2-root-cert.pem
const TONGSUO_SM2_ROOT: &str = include_str!("data/tongsuo_sm2-root-cert.pem");
