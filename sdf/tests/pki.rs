//! `shangmi-pki` with keys that stay in the test device, through `PrivateKeyOps`: a request
//! signed by the device (`req::create_request`), a certificate and a CRL issued by a CA
//! whose key is in the device (`issue_from_request`, `crl::issue_crl`), CMS signed by the
//! device and decrypted by it (`cms::sign`, `cms::decrypt`), each checked by pki's own
//! verifiers; and a device fault while signing is `Error::KeyHolder`, not a bad signature.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_pki::cms::{self, Oids, SignOptions, Signer};
use shangmi_pki::crl::{self, CrlParams};
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_pki::verify::{Options, Purpose};
use shangmi_pki::{Error, req};
use shangmi_sdf::{KeyUsage, SdfDevice, SdfKey};
use shangmi_sm2::PrivateKeyOps;
use support::{library, open_key};

fn open(device: &SdfDevice, index: u32, usage: KeyUsage) -> SdfKey {
    open_key(device, index, usage).unwrap()
}

#[test]
fn request_certificate_crl_and_cms_with_device_keys() {
    let device = SdfDevice::open(library()).unwrap();
    let ca_key = open(&device, 2, KeyUsage::Sign);
    let (sign, enc) = (
        open(&device, 1, KeyUsage::Sign),
        open(&device, 1, KeyUsage::Encrypt),
    );
    let ca = issue::self_signed(
        &ca_key,
        &CertParams::new(
            parse_dn("/CN=Device CA").unwrap(),
            Profile::Ca { path_len: None },
            1,
        ),
    )
    .unwrap();
    // The request is signed in the device and verifies with its public key.
    let csr = req::create_request(
        &sign,
        &parse_dn("/CN=device leaf").unwrap(),
        &[San::Dns("localhost".into())],
        None,
    )
    .unwrap();
    assert_eq!(req::verify_request(&csr).unwrap(), sign.public_key());
    let params = CertParams::new(parse_dn("/CN=ignored").unwrap(), Profile::TlcpSign, 1);
    let sign_cert = issue::issue_from_request(&ca, &ca_key, &csr, &params).unwrap();
    let enc_cert = issue::issue(
        &ca,
        &ca_key,
        &enc.public_key(),
        &CertParams::new(parse_dn("/CN=device leaf").unwrap(), Profile::TlcpEnc, 1),
    )
    .unwrap();
    let opts = Options::now(Purpose::Any);
    for cert in [&sign_cert, &enc_cert] {
        shangmi_pki::verify::verify_chain(cert, &[], std::slice::from_ref(&ca), &opts).unwrap();
    }
    // A CRL from the device CA.
    let list = crl::issue_crl(&ca, &ca_key, &CrlParams::new(1)).unwrap();
    list.verify_signature(&ca).unwrap();
    // CMS: signed in the device, verified against the CA; enveloped to the device's
    // encryption certificate, opened in the device.
    let msg = b"CMS through a key that stays in the device";
    let signed = cms::sign(
        msg,
        &[Signer {
            cert: &sign_cert,
            key: &sign,
            chain: &[],
        }],
        &SignOptions::default(),
    )
    .unwrap();
    let verified = cms::verify(
        &signed,
        None,
        &[],
        std::slice::from_ref(&ca),
        &Options::now(Purpose::CmsSign),
    )
    .unwrap();
    assert_eq!(verified.content, msg);
    let sealed = cms::encrypt(msg, std::slice::from_ref(&enc_cert), Oids::GmT0010).unwrap();
    assert_eq!(cms::decrypt(&sealed, &enc_cert, &enc).unwrap(), msg);
    // The wrong pair of the index for each job: the certificate's key does not match.
    assert_eq!(
        cms::decrypt(&sealed, &enc_cert, &sign),
        Err(Error::KeyMismatch)
    );
}

#[test]
fn a_device_fault_while_signing_is_the_holders_error() {
    let device = SdfDevice::open(library()).unwrap();
    // Index 8 holds index 1's keys but returns r with garbage in its high half.
    let faulty = open(&device, 8, KeyUsage::Sign);
    let err = req::create_request(&faulty, &parse_dn("/CN=x").unwrap(), &[], None).unwrap_err();
    match err {
        Error::KeyHolder(why) => assert!(why.contains("SDF_InternalSign_ECC"), "{why}"),
        other => panic!("{other:?}"),
    }
}
