//! shangmi-pki's parsers and checkers on arbitrary input: certificates (and chain
//! verification with them as leaf, intermediate and root), PKCS#10 requests, GM/T 0010 CMS
//! SignedData (both signature forms) and EnvelopedData, SM2EnvelopedKey, PEM, PKCS#12 and
//! encrypted PKCS#8 (every PBES2 form, password "fuzz"). No input
//! panics; the corpus (fuzz/corpus/pki_parse) holds valid documents of each kind made by
//! this crate, gmsm and GmSSL.
//!
//! Input: byte 0 selects the parser (or all), the rest is its input.
#![no_main]

use std::sync::OnceLock;

use der::Decode;
use fixed_ca::fixed_ca;
use libfuzzer_sys::fuzz_target;
use shangmi_pki::verify::{Options, Purpose, verify_chain};
use shangmi_pki::{CertReq, Certificate, SecretKey, cms, envelope, pem, req};

#[path = "shared/fixed_ca.rs"]
mod fixed_ca;

/// A fixed key and its self-signed CA certificate (the decryption key and trust anchor).
fn fixture() -> &'static (SecretKey, Certificate) {
    static F: OnceLock<(SecretKey, Certificate)> = OnceLock::new();
    F.get_or_init(|| {
        let (key, cert, _) = fixed_ca("/CN=fuzz");
        (key, cert)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, input)) = data.split_first() else {
        return;
    };
    let (key, anchor) = fixture();
    let roots = std::slice::from_ref(anchor);
    let opts = Options::at(1_800_000_000, Purpose::Any).with_host("fuzz.example");
    let all = which >= 8;
    if all || which == 0 {
        if let Ok(c) = Certificate::from_der(input) {
            let _ = verify_chain(&c, &[], roots, &opts);
            let _ = verify_chain(
                anchor,
                std::slice::from_ref(&c),
                std::slice::from_ref(&c),
                &opts,
            );
            let _ = shangmi_pki::name::display(c.tbs_certificate().subject());
        }
    }
    if all || which == 1 {
        if let Ok(r) = CertReq::from_der(input) {
            let _ = req::verify_request(&r);
            let _ = req::requested_sans(&r);
        }
    }
    if all || which == 2 {
        let _ = cms::verify(input, None, &[], roots, &opts);
        let _ = cms::verify(input, Some(b"fuzz"), &[], roots, &opts);
        let _ = cms::verify_with(input, None, &[], roots, &opts, cms::SignatureForm::GmSsl3);
    }
    if all || which == 3 {
        let _ = cms::decrypt(input, anchor, key);
    }
    if all || which == 4 {
        let _ = envelope::unwrap(key, input);
        let _ = envelope::public_key(input);
    }
    if all || which == 5 {
        let _ = pem::certificates(input);
        let _ = pem::request(input);
        let _ = cms::from_der_or_pem(input);
    }
    if all || which == 6 {
        if let Ok(s) = std::str::from_utf8(input) {
            let _ = shangmi_pki::name::parse_dn(s);
            let _ = shangmi_pki::issue::San::parse(s);
            let _ = shangmi_pki::verify::host_matches(s, "fuzz.example");
        }
    }
    if all || which == 7 {
        // Password-based containers under the password the seeds were made with.
        let _ = shangmi_pki::pkcs12::import(input, "fuzz");
        let _ = shangmi_pki::pkcs8::decrypt_der(input, b"fuzz");
        let _ = shangmi_pki::pkcs8::secret_key_from_pem(input, b"fuzz");
    }
});
