//! shangmi-pki's CRL parser on arbitrary input (DER, or PEM through `Crl::parse_all`): no
//! input panics; a CRL that parses re-parses from its own DER and PEM to the same value,
//! every accessor runs, its signature is checked against a fixed CA, and chain
//! verification applies it to a leaf of that CA. The corpus (fuzz/corpus/crl) holds CRLs
//! `shangmi cert crl` wrote (empty, with reasons, several entries).
#![no_main]

use std::sync::OnceLock;

use fixed_ca::fixed_ca;
use libfuzzer_sys::fuzz_target;
use shangmi_pki::Certificate;
use shangmi_pki::crl::Crl;
use shangmi_pki::issue::{self, Profile};
use shangmi_pki::verify::{Options, Purpose, verify_chain};

#[path = "shared/fixed_ca.rs"]
mod fixed_ca;

/// A fixed CA and a leaf it issued.
fn fixture() -> &'static (Certificate, Certificate) {
    static F: OnceLock<(Certificate, Certificate)> = OnceLock::new();
    F.get_or_init(|| {
        let (key, ca, mut params) = fixed_ca("/CN=fuzz CA");
        params.subject = shangmi_pki::name::parse_dn("/CN=fuzz leaf").expect("name");
        params.profile = Profile::TlsServer;
        params.serial = Some(vec![2]);
        let leaf = issue::issue(&ca, &key, &key.public_key(), &params).expect("leaf");
        (ca, leaf)
    })
}

fn exercise(crl: &Crl) {
    let (ca, leaf) = fixture();
    let again = Crl::from_der(crl.to_der()).expect("a parsed CRL re-parses from its DER");
    assert_eq!(&again, crl);
    let pem = crl.to_pem().expect("PEM");
    assert_eq!(
        Crl::parse_all(pem.as_bytes()).expect("PEM re-parses"),
        vec![crl.clone()]
    );
    let _ = (
        crl.issuer(),
        crl.this_update(),
        crl.next_update(),
        crl.number(),
    );
    let _ = (crl.authority_key_id(), crl.is_expired(1_800_000_000));
    for r in crl.revoked() {
        assert!(crl.find(&r.serial).is_some());
    }
    let _ = crl.names_issuer(ca);
    let _ = crl.verify_signature(ca);
    let crls = std::slice::from_ref(crl);
    let opts = Options::at(1_800_000_000, Purpose::Any).with_crls(crls);
    let _ = verify_chain(leaf, &[], std::slice::from_ref(ca), &opts);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(crl) = Crl::from_der(data) {
        exercise(&crl);
    }
    if let Ok(crls) = Crl::parse_all(data) {
        for crl in &crls {
            exercise(crl);
        }
    }
});
