//! Bad input: every truncation and a byte change at every position of valid requests,
//! certificates, CMS messages and envelopes, plus oversized lengths, trailing bytes and
//! non-minimal DER, through every parser and checker; typed errors, no panic. (The fuzz
//! target `pki_parse` runs the same calls on arbitrary input.)
#![allow(clippy::unwrap_used)]

use der::{Decode, Encode};
use shangmi_pki::cms::{self, Oids, SignOptions, Signer};
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_pki::verify::{Options, Purpose, verify_chain};
use shangmi_pki::{CertReq, Certificate, SecretKey, envelope, pem, req};

#[path = "support/by_hand.rs"]
mod by_hand;
use by_hand::out_var;

struct Seeds {
    key: SecretKey,
    cert: Certificate,
    docs: Vec<(&'static str, Vec<u8>)>,
}

fn seeds() -> Seeds {
    let key = SecretKey::from_slice(&[7u8; 32]).unwrap();
    let mut params = CertParams::new(
        parse_dn("/C=CN/CN=seed").unwrap(),
        Profile::Ca { path_len: Some(1) },
        30,
    );
    params.sans = vec![San::Dns("seed.example".into())];
    let cert = issue::self_signed(&key, &params).unwrap();
    let csr =
        req::create_request(&key, &parse_dn("/CN=seed").unwrap(), &params.sans, None).unwrap();
    let signer = Signer::new(&cert, &key);
    let signed = cms::sign(b"seed", &[signer], &SignOptions::default()).unwrap();
    let enveloped = cms::encrypt(b"seed", std::slice::from_ref(&cert), Oids::GmT0010).unwrap();
    let env = envelope::wrap(&key.public_key(), &key).unwrap();
    let p12 = shangmi_pki::pkcs12::export(&cert, &key, &[], "pw").unwrap();
    let docs = vec![
        ("cert", cert.to_der().unwrap()),
        ("csr", csr.to_der().unwrap()),
        ("signed", signed),
        ("enveloped", enveloped),
        ("envelope", env),
        ("pkcs12", p12),
    ];
    Seeds { key, cert, docs }
}

/// Every parser and checker on `data`; results are ignored, panics are the failure.
fn exercise(s: &Seeds, data: &[u8]) {
    let roots = std::slice::from_ref(&s.cert);
    let opts = Options::at(1_800_000_000, Purpose::Any).with_host("seed.example");
    if let Ok(c) = Certificate::from_der(data) {
        let _ = verify_chain(&c, &[], roots, &opts);
        let _ = verify_chain(
            &s.cert,
            std::slice::from_ref(&c),
            std::slice::from_ref(&c),
            &opts,
        );
        let _ = shangmi_pki::name::display(c.tbs_certificate().subject());
    }
    if let Ok(r) = CertReq::from_der(data) {
        let _ = req::verify_request(&r);
        let _ = req::requested_sans(&r);
    }
    let _ = cms::verify(data, None, &[], roots, &opts);
    let _ = cms::verify(data, Some(b"seed"), &[], roots, &opts);
    let _ = cms::verify_with(data, None, &[], roots, &opts, cms::SignatureForm::GmSsl3);
    let _ = cms::decrypt(data, &s.cert, &s.key);
    let _ = envelope::unwrap(&s.key, data);
    let _ = envelope::public_key(data);
    let _ = pem::certificates(data);
    let _ = pem::request(data);
    let _ = cms::from_der_or_pem(data);
    let _ = shangmi_pki::pkcs12::import(data, "pw");
}

#[test]
fn truncations_and_byte_changes_never_panic() {
    let s = seeds();
    for (name, doc) in &s.docs {
        for n in 0..doc.len() {
            exercise(&s, &doc[..n]);
        }
        // a change at every position of the short documents, every n-th of the long ones
        // (about 200 positions each, to bound the time)
        let step = (doc.len() / 200).max(1);
        for i in (0..doc.len()).step_by(step) {
            for x in [0x01u8, 0x80, 0xff] {
                let mut d = doc.clone();
                d[i] ^= x;
                exercise(&s, &d);
            }
        }
        let mut trailing = doc.clone();
        trailing.push(0);
        exercise(&s, &trailing);
        assert!(Certificate::from_der(&trailing).is_err() || *name != "cert");
        eprintln!("{name}: {} bytes", doc.len());
    }
}

#[test]
fn oversized_lengths_and_non_minimal_der() {
    let s = seeds();
    for (_, doc) in &s.docs {
        // outer length replaced by 4-byte and 8-byte lengths far beyond the input
        for len in [
            &[0x84u8, 0x7f, 0xff, 0xff, 0xff][..],
            &[0x88, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ] {
            let mut d = vec![doc[0]];
            d.extend_from_slice(len);
            d.extend_from_slice(&doc[4..]);
            exercise(&s, &d);
            assert!(cms::verify(&d, None, &[], &[], &Options::now(Purpose::Any)).is_err());
        }
        // the same length written in a longer form than needed (not DER)
        let body = &doc[4..];
        let mut d = vec![doc[0], 0x83, 0];
        d.extend_from_slice(&(body.len() as u16).to_be_bytes());
        d.extend_from_slice(body);
        assert!(Certificate::from_der(&d).is_err());
        assert!(envelope::unwrap(&s.key, &d).is_err());
        exercise(&s, &d);
    }
    // wrong OIDs: a certificate is not a CMS message or an envelope, and back
    let cert = &s.docs[0].1;
    assert!(cms::decrypt(cert, &s.cert, &s.key).is_err());
    assert!(envelope::unwrap(&s.key, cert).is_err());
    assert!(Certificate::from_der(&s.docs[2].1).is_err());
}

/// Writes the seed corpus of the `pki_parse` fuzz target (byte 0 picks the parser) into
/// `$PKI_CORPUS_DIR`: run by hand with `-- --ignored`.
#[test]
#[ignore]
fn write_fuzz_corpus() {
    let Some(dir) = out_var("PKI_CORPUS_DIR", "DIR") else {
        return;
    };
    let dir = std::path::Path::new(&dir);
    // the fuzz target's fixture: key 07…07, /CN=fuzz, serial 1, fixed validity
    let key = SecretKey::from_slice(&[7u8; 32]).unwrap();
    let mut params = CertParams::new(
        parse_dn("/CN=fuzz").unwrap(),
        Profile::Ca { path_len: None },
        30,
    );
    params.not_before = 1_700_000_000;
    params.not_after = 2_000_000_000;
    params.serial = Some(vec![1]);
    let anchor = issue::self_signed(&key, &params).unwrap();
    let s = seeds();
    let leaf_key = SecretKey::from_slice(&[9u8; 32]).unwrap();
    let mut lp = CertParams::new(
        parse_dn("/CN=fuzz.example").unwrap(),
        Profile::TlsServer,
        30,
    );
    lp.sans = vec![San::Dns("fuzz.example".into())];
    lp.not_before = 1_700_000_000;
    lp.not_after = 2_000_000_000;
    let leaf = issue::issue(&anchor, &key, &leaf_key.public_key(), &lp).unwrap();
    let signed = cms::sign(
        b"fuzz",
        &[Signer::new(&leaf, &leaf_key)],
        &SignOptions {
            detached: true,
            ..SignOptions::default()
        },
    )
    .unwrap();
    let files: Vec<(&str, u8, Vec<u8>)> = vec![
        ("cert-leaf", 0, leaf.to_der().unwrap()),
        ("cert-anchor", 0, anchor.to_der().unwrap()),
        ("csr", 1, s.docs[1].1.clone()),
        ("signed-detached", 2, signed),
        ("signed-attached", 2, s.docs[2].1.clone()),
        (
            "enveloped",
            3,
            cms::encrypt(b"fuzz", std::slice::from_ref(&anchor), Oids::GmT0010).unwrap(),
        ),
        (
            "envelope",
            4,
            envelope::wrap(&key.public_key(), &leaf_key).unwrap(),
        ),
        (
            "pem",
            5,
            pem::to_pem("CERTIFICATE", &leaf.to_der().unwrap())
                .unwrap()
                .into_bytes(),
        ),
        ("dn", 6, b"/C=CN/O=Org\\/Unit/CN=fuzz.example".to_vec()),
        (
            "gmsm-signed",
            2,
            hex::decode(
                include_str!("data/gmsm_v0.44.txt")
                    .lines()
                    .find_map(|l| l.strip_prefix("signed_attached "))
                    .unwrap(),
            )
            .unwrap(),
        ),
        (
            "gmsm-envelope",
            4,
            hex::decode(
                include_str!("data/gmsm_v0.44.txt")
                    .lines()
                    .find_map(|l| l.strip_prefix("enveloped_key "))
                    .unwrap(),
            )
            .unwrap(),
        ),
    ];
    for (name, sel, doc) in files {
        let mut d = vec![sel];
        d.extend_from_slice(&doc);
        std::fs::write(dir.join(name), d).unwrap();
    }
}
