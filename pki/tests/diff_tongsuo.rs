//! What Tongsuo 8.5 (540603a, built with `enable-ntls` in a scratch directory, 2026-11-29)
//! wrote, recorded as test data, against our readers. The CA and the leaves are ours
//! (`shangmi cert ca` / `cert tlcp-pair`); Tongsuo made the CMS and the CRL:
//! - `tongsuo_cms_noattr.der`: `openssl cms -sign -binary -noattr -nodetach -outform DER
//!   -signer client/sign.crt -inkey client/sign.key` over "hello cms from tongsuo\n";
//! - `tongsuo_cms_attr.der`: the same with signed attributes;
//! - `tongsuo_crl.pem`: `openssl ca -revoke revoked/sign.crt -crl_reason keyCompromise`,
//!   then `openssl ca -gencrl` (`default_md = sm3`, an authorityKeyIdentifier, CRL number
//!   4096) with our CA's key.
//!
//! Live in the same session, the other way: Tongsuo's `cms -verify` took ours written with
//! `--rfc5652` in the standard form with signed attributes and in the plain form without
//! them (and refused the standard form without attributes and the empty-ID form, as its
//! code says it would); `openssl crl -verify` and `s_server -crl_check -verify_return_error`
//! took our CRLs and refused our revoked client with certificate_revoked.
#![allow(clippy::unwrap_used)]

use shangmi_pki::cms::{self, SignatureForm};
use shangmi_pki::crl::{Crl, Reason};
use shangmi_pki::pem::certificates;
use shangmi_pki::verify::{Options, Purpose, VerifyError, verify_chain};

#[path = "support/cms.rs"]
mod recorded;
use recorded::check_recorded;

/// 2027-01-01, inside every certificate's validity (2026-11-29 .. 2027-11-29) and before
/// the CRL's nextUpdate (2126).
const WHEN: u64 = 1_798_761_600;

#[test]
fn diff_tongsuo_cms_recorded() {
    let ca = certificates(include_bytes!("data/tongsuo_crl_ca.pem")).unwrap();
    let opts = Options::at(WHEN, Purpose::CmsSign);
    for (der, form) in [
        // -noattr: SM2 over plain SM3(content), no Z_A
        (
            &include_bytes!("data/tongsuo_cms_noattr.der")[..],
            SignatureForm::PlainSm3,
        ),
        // with signed attributes: Z_A over the default ID, the GM/T 0010 form
        (
            &include_bytes!("data/tongsuo_cms_attr.der")[..],
            SignatureForm::Standard,
        ),
    ] {
        check_recorded(der, form, &ca, &opts, b"hello cms from tongsuo\n");
    }
    // The attribute-less one is not the standard form: strict verification refuses it.
    assert!(
        cms::verify_with(
            include_bytes!("data/tongsuo_cms_noattr.der"),
            None,
            &[],
            &ca,
            &opts,
            SignatureForm::Standard
        )
        .is_err()
    );
}

#[test]
fn diff_tongsuo_crl_recorded() {
    let ca = certificates(include_bytes!("data/tongsuo_crl_ca.pem")).unwrap();
    let good = certificates(include_bytes!("data/tongsuo_crl_good.pem")).unwrap();
    let revoked = certificates(include_bytes!("data/tongsuo_crl_revoked.pem")).unwrap();
    let crls = Crl::parse_all(include_bytes!("data/tongsuo_crl.pem")).unwrap();
    assert_eq!(crls.len(), 1);
    let crl = &crls[0];
    assert!(crl.names_issuer(&ca[0]));
    assert_eq!(crl.number(), Some(&[0x10, 0x00][..]));
    assert_eq!(crl.revoked().len(), 1);
    let opts = Options::at(WHEN, Purpose::TlcpSign).with_crls(&crls);
    verify_chain(&good[0], &[], &ca, &opts).unwrap();
    assert_eq!(
        verify_chain(&revoked[0], &[], &ca, &opts).unwrap_err(),
        VerifyError::Revoked {
            depth: 0,
            reason: Some(Reason::KeyCompromise)
        }
    );
    // One flipped bit in the signed list (the revoked serial): the CRL's signature no
    // longer verifies, so the good leaf has no usable revocation status either.
    let mut der = crl.to_der().to_vec();
    let serial = &crl.revoked()[0].serial;
    let at = der
        .windows(serial.len())
        .position(|w| w == &serial[..])
        .unwrap();
    der[at + serial.len() - 1] ^= 1;
    let bad = [Crl::from_der(&der).unwrap()];
    let opts = Options::at(WHEN, Purpose::TlcpSign).with_crls(&bad);
    assert!(verify_chain(&good[0], &[], &ca, &opts).is_err());
}
