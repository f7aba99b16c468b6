//! Differential tests against emmansun/gmsm v0.44.0: its outputs, written by
//! `tests/gmsm_vectors` (`go run . generate`) through its public API and committed as
//! `tests/data/gmsm_v0.44.txt`, read by ours: an SM2EnvelopedKey, GM/T 0010 SignedData
//! attached and detached, EnvelopedData with issuer-and-serial and subject-key-identifier
//! recipients. The other direction: `cargo test -p shangmi-pki --test diff_gmsm -- --ignored`
//! with `GMSM_CHECK_OUT=FILE` writes ours, and `go run . check FILE` verifies them with gmsm.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use der::{Decode, Encode};
use shangmi_pki::cms::{self, Oids, SignOptions, Signer};
use shangmi_pki::verify::{Options, Purpose};
use shangmi_pki::{Certificate, SecretKey, envelope};

#[path = "support/by_hand.rs"]
mod by_hand;
use by_hand::out_var;

/// 2026-01-01, inside the certificate's 2025–2045 validity.
const T: u64 = 1_767_225_600;

fn vectors() -> HashMap<String, Vec<u8>> {
    let text = include_str!("data/gmsm_v0.44.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (k, v) = l.split_once(' ').unwrap();
            (k.to_owned(), hex::decode(v.trim()).unwrap())
        })
        .collect()
}

fn key(v: &HashMap<String, Vec<u8>>, name: &str) -> SecretKey {
    SecretKey::from_slice(&v[name]).unwrap()
}

#[test]
fn diff_gmsm_enveloped_key() {
    let v = vectors();
    let signer = key(&v, "signer_key");
    let wrapped = key(&v, "wrapped_key");
    let got = envelope::unwrap(&signer, &v["enveloped_key"]).unwrap();
    assert_eq!(got.to_bytes(), wrapped.to_bytes());
    assert_eq!(
        envelope::public_key(&v["enveloped_key"]).unwrap(),
        wrapped.public_key()
    );
    // another key cannot open it
    assert!(envelope::unwrap(&wrapped, &v["enveloped_key"]).is_err());
}

#[test]
fn diff_gmsm_signed_data() {
    let v = vectors();
    let cert = Certificate::from_der(&v["certificate"]).unwrap();
    let roots = [cert.clone()];
    let opts = Options::at(T, Purpose::CmsSign);
    let got = cms::verify(&v["signed_attached"], None, &[], &roots, &opts).unwrap();
    assert_eq!(got.content, v["content"]);
    assert_eq!(got.signers, vec![cert.clone()]);
    cms::verify(
        &v["signed_detached"],
        Some(&v["content"]),
        &[],
        &roots,
        &opts,
    )
    .unwrap();
    assert!(cms::verify(&v["signed_detached"], Some(b"other"), &[], &roots, &opts).is_err());
    // gmsm signs with the default ID: another ID fails
    assert!(
        cms::verify(
            &v["signed_attached"],
            None,
            &[],
            &roots,
            &opts.clone().with_id(b"x")
        )
        .is_err()
    );
}

#[test]
fn diff_gmsm_enveloped_data() {
    let v = vectors();
    let cert = Certificate::from_der(&v["certificate"]).unwrap();
    let k = key(&v, "signer_key");
    for name in ["enveloped_issuer_serial", "enveloped_ski"] {
        assert_eq!(
            cms::decrypt(&v[name], &cert, &k).unwrap(),
            v["content"],
            "{name}"
        );
    }
}

/// Writes our outputs for `go run . check FILE` (run by hand; needs GMSM_CHECK_OUT).
#[test]
#[ignore]
fn diff_gmsm_write_ours_for_gmsm() {
    let Some(path) = out_var("GMSM_CHECK_OUT", "FILE") else {
        return;
    };
    use shangmi_pki::issue::{self, CertParams, Profile};
    let k = shangmi_pki::generate_key().unwrap();
    let w = shangmi_pki::generate_key().unwrap();
    let cert = issue::self_signed(
        &k,
        &CertParams::new(
            shangmi_pki::name::parse_dn("/C=CN/O=shangmi/CN=shangmi for gmsm").unwrap(),
            Profile::Ca { path_len: None },
            30,
        ),
    )
    .unwrap();
    let content = b"GM/T 0010 message from shangmi-pki\n";
    let signed = cms::sign(content, &[Signer::new(&cert, &k)], &SignOptions::default()).unwrap();
    let enc = cms::encrypt(content, std::slice::from_ref(&cert), Oids::GmT0010).unwrap();
    let lines = [
        ("signer_key", k.to_bytes().to_vec()),
        ("wrapped_key", w.to_bytes().to_vec()),
        ("certificate", cert.to_der().unwrap()),
        ("content", content.to_vec()),
        (
            "enveloped_key",
            envelope::wrap(&k.public_key(), &w).unwrap(),
        ),
        ("signed_attached", signed),
        ("enveloped_issuer_serial", enc),
    ];
    let text: String = lines
        .iter()
        .map(|(n, b)| format!("{n} {}\n", hex::encode(b)))
        .collect();
    std::fs::write(path, text).unwrap();
}
