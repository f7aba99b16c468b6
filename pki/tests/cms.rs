//! GM/T 0010 CMS round trips, several signers and recipients, and refusals.
#![allow(clippy::unwrap_used, clippy::cloned_ref_to_slice_refs)]

use shangmi_pki::cms::{self, CmsVerifyError, Oids, SignOptions, Signer};
use shangmi_pki::issue::{self, CertParams, Profile};
use shangmi_pki::name::parse_dn;
use shangmi_pki::verify::{Options, Purpose, VerifyError};
use shangmi_pki::{Certificate, Error, SecretKey, generate_key};

struct Pki {
    root: Certificate,
    a_key: SecretKey,
    a: Certificate,
    b_key: SecretKey,
    b: Certificate,
}

fn pki() -> Pki {
    let root_key = generate_key().unwrap();
    let root = issue::self_signed(
        &root_key,
        &CertParams::new(
            parse_dn("/CN=cms root").unwrap(),
            Profile::Ca { path_len: None },
            30,
        ),
    )
    .unwrap();
    let mk = |cn: &str, profile| {
        let key = generate_key().unwrap();
        let cert = issue::issue(
            &root,
            &root_key,
            &key.public_key(),
            &CertParams::new(parse_dn(cn).unwrap(), profile, 30),
        )
        .unwrap();
        (key, cert)
    };
    let (a_key, a) = mk("/CN=alice", Profile::TlcpSign);
    let (b_key, b) = mk("/CN=bob", Profile::TlcpEnc);
    Pki {
        root,
        a_key,
        a,
        b_key,
        b,
    }
}

fn opts() -> Options<'static> {
    Options::now(Purpose::CmsSign)
}

#[test]
fn signed_data_attached_detached_and_both_oid_sets() {
    let p = pki();
    let msg = b"GM/T 0010 signed message";
    let signer = Signer::new(&p.a, &p.a_key);
    for oids in [Oids::GmT0010, Oids::Rfc5652] {
        for signed_attributes in [true, false] {
            let o = SignOptions {
                oids,
                signed_attributes,
                ..SignOptions::default()
            };
            let der = cms::sign(msg, &[signer], &o).unwrap();
            let v = cms::verify(&der, None, &[], &[p.root.clone()], &opts()).unwrap();
            assert_eq!(v.content, msg);
            assert_eq!(v.signers, vec![p.a.clone()]);
            // PEM both labels
            for label in ["CMS", "PKCS7"] {
                let pem = cms::to_pem(&der, label).unwrap();
                assert_eq!(cms::from_der_or_pem(pem.as_bytes()).unwrap(), der);
            }
            let o = SignOptions {
                detached: true,
                ..o
            };
            let der = cms::sign(msg, &[signer], &o).unwrap();
            assert_eq!(
                cms::verify(&der, None, &[], &[p.root.clone()], &opts()).unwrap_err(),
                CmsVerifyError::Message(Error::MissingContent)
            );
            cms::verify(&der, Some(msg), &[], &[p.root.clone()], &opts()).unwrap();
            let e = cms::verify(&der, Some(b"other"), &[], &[p.root.clone()], &opts()).unwrap_err();
            assert!(matches!(
                e,
                CmsVerifyError::Message(Error::DigestMismatch | Error::BadSignature)
            ));
        }
    }
}

#[test]
fn two_signers_and_failures() {
    let p = pki();
    let msg = b"two signers";
    // bob's certificate is an encryption certificate: keyUsage has no digitalSignature
    let der = cms::sign(
        msg,
        &[Signer::new(&p.a, &p.a_key), Signer::new(&p.b, &p.b_key)],
        &SignOptions::default(),
    )
    .unwrap();
    let any = Options::now(Purpose::Any);
    let v = cms::verify(&der, None, &[], &[p.root.clone()], &any).unwrap();
    assert_eq!(v.signers.len(), 2);
    assert_eq!(
        cms::verify(&der, None, &[], &[p.root.clone()], &opts()).unwrap_err(),
        CmsVerifyError::Chain(VerifyError::WrongKeyUsage)
    );
    // unknown root
    assert_eq!(
        cms::verify(&der, None, &[], &[], &any).unwrap_err(),
        CmsVerifyError::Chain(VerifyError::UnknownIssuer)
    );
    // without certificates the verifier needs them given
    let o = SignOptions {
        include_certificates: false,
        ..SignOptions::default()
    };
    let bare = cms::sign(msg, &[Signer::new(&p.a, &p.a_key)], &o).unwrap();
    assert_eq!(
        cms::verify(&bare, None, &[], &[p.root.clone()], &opts()).unwrap_err(),
        CmsVerifyError::Message(Error::SignerCertificateNotFound)
    );
    cms::verify(&bare, None, &[p.a.clone()], &[p.root.clone()], &opts()).unwrap();
    // a key that is not the certificate's
    assert_eq!(
        cms::sign(msg, &[Signer::new(&p.a, &p.b_key)], &o).unwrap_err(),
        Error::KeyMismatch
    );
}

#[test]
fn tampered_signed_data_fails() {
    let p = pki();
    let msg = b"tamper with me, please";
    let der = cms::sign(msg, &[Signer::new(&p.a, &p.a_key)], &SignOptions::default()).unwrap();
    let pos = der.windows(msg.len()).position(|w| w == msg).unwrap();
    let mut bad = der.clone();
    bad[pos] ^= 1;
    assert_eq!(
        cms::verify(&bad, None, &[], &[p.root.clone()], &opts()).unwrap_err(),
        CmsVerifyError::Message(Error::DigestMismatch)
    );
    // truncations never panic
    for n in 0..der.len() {
        assert!(cms::verify(&der[..n], None, &[], &[p.root.clone()], &opts()).is_err());
    }
}

#[test]
fn enveloped_data_to_two_recipients() {
    let p = pki();
    let msg = vec![0x5au8; 1000];
    for oids in [Oids::GmT0010, Oids::Rfc5652] {
        let der = cms::encrypt(&msg, &[p.a.clone(), p.b.clone()], oids).unwrap();
        assert_eq!(cms::decrypt(&der, &p.a, &p.a_key).unwrap(), msg);
        assert_eq!(cms::decrypt(&der, &p.b, &p.b_key).unwrap(), msg);
        // wrong key for the certificate
        assert_eq!(
            cms::decrypt(&der, &p.a, &p.b_key).unwrap_err(),
            Error::KeyMismatch
        );
        // not a recipient
        let only_a = cms::encrypt(&msg, &[p.a.clone()], oids).unwrap();
        assert_eq!(
            cms::decrypt(&only_a, &p.b, &p.b_key).unwrap_err(),
            Error::NoMatchingRecipient
        );
        for n in 0..only_a.len() {
            assert!(cms::decrypt(&only_a[..n], &p.a, &p.a_key).is_err());
        }
    }
    // empty content encrypts to one padding block
    let der = cms::encrypt(b"", &[p.b.clone()], Oids::GmT0010).unwrap();
    assert_eq!(cms::decrypt(&der, &p.b, &p.b_key).unwrap(), b"");
}

/// Every signature form, with and without signed attributes, verifies by default and says
/// which form it was; the strict form takes only itself; a signature in one form over one
/// content does not pass for another content.
#[test]
fn every_signature_form_verifies_by_default() {
    let p = pki();
    for form in cms::SignatureForm::ALL {
        for signed_attributes in [true, false] {
            let der = cms::sign(
                b"forms",
                &[Signer::new(&p.a, &p.a_key)],
                &SignOptions {
                    signed_attributes,
                    form,
                    ..SignOptions::default()
                },
            )
            .unwrap();
            let v = cms::verify(&der, None, &[], &[p.root.clone()], &opts()).unwrap();
            assert_eq!(v.forms, vec![form], "{form:?} {signed_attributes}");
            assert_eq!(v.content, b"forms");
            for other in cms::SignatureForm::ALL {
                let r = cms::verify_with(&der, None, &[], &[p.root.clone()], &opts(), other);
                assert_eq!(r.is_ok(), other == form, "{form:?} as {other:?}");
            }
            let detached = cms::sign(
                b"forms",
                &[Signer::new(&p.a, &p.a_key)],
                &SignOptions {
                    detached: true,
                    signed_attributes,
                    form,
                    ..SignOptions::default()
                },
            )
            .unwrap();
            cms::verify(&detached, Some(b"forms"), &[], &[p.root.clone()], &opts()).unwrap();
            assert!(
                cms::verify(&detached, Some(b"formz"), &[], &[p.root.clone()], &opts()).is_err()
            );
        }
    }
}
