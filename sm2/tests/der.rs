//! Strict encodings: signatures in DER per GM/T 0009 §7.2 (SEQUENCE of two INTEGERs, X.690
//! DER rules) and the fixed 64-byte r ‖ s form, and the GM/T 0009 §7.2 ciphertext
//! (SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }): every
//! case starts from an encoding that is accepted and breaks one rule.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::pke;

const R: [u8; 32] = hex!("F5A03B0648D2C4630EEAC513E1BB81A15944DA3827D5B74143AC7EACEEE720B3");
const S: [u8; 32] = hex!("B1B6AA29DF212FD8763182BC0D421CA1BB9038FD1F7F42D4840B69C485BBC1AA");
const N: [u8; 32] = hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");

fn der_of(r: &[u8], s: &[u8]) -> Vec<u8> {
    let mut body = vec![0x02, r.len() as u8];
    body.extend_from_slice(r);
    body.extend_from_slice(&[0x02, s.len() as u8]);
    body.extend_from_slice(s);
    let mut out = vec![0x30, body.len() as u8];
    out.extend(body);
    out
}

#[test]
fn canonical_der_round_trip() {
    let sig = Signature::from_scalars(R, S).unwrap();
    let mut r = vec![0];
    r.extend_from_slice(&R);
    let mut s = vec![0];
    s.extend_from_slice(&S);
    let der = der_of(&r, &s);
    assert_eq!(sig.to_der().as_ref(), &der[..]);
    assert_eq!(Signature::from_der(&der).unwrap(), sig);
}

#[test]
fn short_integers_are_minimal() {
    let mut r = [0u8; 32];
    r[31] = 1;
    let mut s = [0u8; 32];
    s[30] = 0x80;
    let sig = Signature::from_scalars(r, s).unwrap();
    let der = sig.to_der();
    assert_eq!(der.as_ref(), &hex!("30080201010203008000")[..]);
    assert_eq!(Signature::from_der(der.as_ref()).unwrap(), sig);
}

#[test]
fn rejects_malformed_der() {
    let mut r = vec![0];
    r.extend_from_slice(&R);
    let mut s_pad = vec![0];
    s_pad.extend_from_slice(&S);
    // A valid encoding, then broken in one way per case.
    let good = der_of(&r, &s_pad);
    assert!(Signature::from_der(&good).is_ok());
    let cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        vec![0x30],
        vec![0x30, 0x00],
        // Trailing byte after the SEQUENCE.
        [good.clone(), vec![0]].concat(),
        // Long-form length for a short SEQUENCE (non-minimal length encoding).
        [vec![0x30, 0x81, good[1]], good[2..].to_vec()].concat(),
        // Wrong outer tag.
        [vec![0x31], good[1..].to_vec()].concat(),
        // Outer length one too long / too short.
        [vec![0x30, good[1] + 1], good[2..].to_vec()].concat(),
        [vec![0x30, good[1] - 1], good[2..good.len() - 1].to_vec()].concat(),
        // Non-minimal INTEGER: extra leading zero.
        der_of(&[&[0u8, 0][..], &R[..]].concat(), &s_pad),
        // Missing the sign-padding zero: a negative INTEGER.
        der_of(&R, &s_pad),
        // Leading zero before a byte below 0x80.
        der_of(&[0, 1], &s_pad),
        // Zero-length INTEGER.
        der_of(&[], &s_pad),
        // r = 0, r = n, r > n.
        der_of(&[0], &s_pad),
        der_of(&[&[0u8][..], &N[..]].concat(), &s_pad),
        der_of(
            &[
                0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            ],
            &s_pad,
        ),
        // 33 value bytes.
        der_of(&[0x01; 33], &s_pad),
        // INTEGER tag replaced by OCTET STRING.
        {
            let mut v = good.clone();
            v[2] = 0x04;
            v
        },
        // Only one INTEGER.
        {
            let mut v = vec![0x30, (r.len() + 2) as u8, 0x02, r.len() as u8];
            v.extend_from_slice(&r);
            v
        },
    ];
    for (i, c) in cases.iter().enumerate() {
        assert!(
            Signature::from_der(c).is_err(),
            "case {i} accepted: {c:02x?}"
        );
    }
}

/// A TLV with a definite length in the minimal form.
fn tlv(tag: u8, value: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    match value.len() {
        n if n < 0x80 => out.push(n as u8),
        n if n < 0x100 => out.extend_from_slice(&[0x81, n as u8]),
        n => out.extend_from_slice(&[0x82, (n >> 8) as u8, n as u8]),
    }
    out.extend_from_slice(value);
    out
}

/// A SEQUENCE of the given encoded fields.
fn sequence(fields: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &fields.concat())
}

/// The ciphertext SEQUENCE from the contents of its four fields.
fn ciphertext_der(x: &[u8], y: &[u8], hash: &[u8], c2: &[u8]) -> Vec<u8> {
    sequence(&[
        &tlv(0x02, x),
        &tlv(0x02, y),
        &tlv(0x04, hash),
        &tlv(0x04, c2),
    ])
}

#[test]
fn ciphertext_der_is_strict() {
    // x with its top bit set (needs the zero byte), y without.
    let x = [&[0u8][..], &[0x9Au8; 32][..]].concat();
    let y = [0x3Cu8; 32];
    let hash = [0x11u8; 32];
    let c2 = [0x22u8; 5];
    let good = ciphertext_der(&x, &y, &hash, &c2);
    let raw = pke::der_to_c1c3c2(&good).unwrap();
    assert_eq!(raw, [&[4u8][..], &x[1..], &y, &hash, &c2].concat());
    assert_eq!(pke::c1c3c2_to_der(&raw).unwrap(), good);
    // A short x: the integer is padded back to 32 bytes.
    let short = ciphertext_der(&[0x01], &y, &hash, &c2);
    assert_eq!(pke::der_to_c1c3c2(&short).unwrap()[1..33], {
        let mut v = [0u8; 32];
        v[31] = 1;
        v
    });
    // A 200-byte C2: a long-form length, minimal.
    assert!(pke::der_to_c1c3c2(&ciphertext_der(&x, &y, &hash, &[7u8; 200])).is_ok());
    // The four fields encoded, for the cases that reorder them or add one.
    let [fx, fy, fh, fc] = [
        tlv(0x02, &x),
        tlv(0x02, &y),
        tlv(0x04, &hash),
        tlv(0x04, &c2),
    ];
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("trailing byte", [good.clone(), vec![0]].concat()),
        ("long-form outer length where the short form fits", {
            let mut v = vec![0x30, 0x81, good[1]];
            v.extend_from_slice(&good[2..]);
            v
        }),
        ("outer length one too long", {
            let mut v = good.clone();
            v[1] += 1;
            v
        }),
        ("outer length one too short", {
            let mut v = good.clone();
            v[1] -= 1;
            v
        }),
        (
            "non-minimal x (two leading zeros)",
            ciphertext_der(&[&[0u8][..], &x].concat(), &y, &hash, &c2),
        ),
        (
            "non-minimal y (zero before a byte below 0x80)",
            ciphertext_der(&x, &[&[0u8][..], &y].concat(), &hash, &c2),
        ),
        (
            "negative x (no zero before the top bit)",
            ciphertext_der(&x[1..], &y, &hash, &c2),
        ),
        ("empty x", ciphertext_der(&[], &y, &hash, &c2)),
        ("33-byte x", ciphertext_der(&[0x01; 33], &y, &hash, &c2)),
        ("31-byte hash", ciphertext_der(&x, &y, &hash[1..], &c2)),
        ("33-byte hash", ciphertext_der(&x, &y, &[0x11; 33], &c2)),
        ("fields out of order", sequence(&[&fx, &fh, &fy, &fc])),
        (
            "a fifth field",
            sequence(&[&fx, &fy, &fh, &fc, &tlv(0x04, &[])]),
        ),
        ("SET instead of SEQUENCE", {
            let mut v = good.clone();
            v[0] = 0x31;
            v
        }),
        ("indefinite length", {
            let mut v = vec![0x30, 0x80];
            v.extend_from_slice(&good[2..]);
            v.extend_from_slice(&[0, 0]);
            v
        }),
    ];
    for (what, der) in &cases {
        assert!(pke::der_to_c1c3c2(der).is_err(), "accepted: {what}");
    }
}

#[test]
fn fixed_form_range() {
    assert!(Signature::from_bytes(&[0; 64]).is_err());
    let mut b = [0u8; 64];
    b[..32].copy_from_slice(&N);
    b[63] = 1;
    assert!(Signature::from_bytes(&b).is_err());
    b[31] = 0x22; // n - 1
    assert!(Signature::from_bytes(&b).is_ok());
    assert!(Signature::from_slice(&b[..63]).is_err());
}

proptest! {
    #[test]
    fn der_parser_total_and_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
        if let Ok(sig) = Signature::from_der(&bytes) {
            let der = sig.to_der();
            prop_assert_eq!(der.as_ref(), &bytes[..]);
        }
    }

    #[test]
    fn fixed_to_der_and_back(r in any::<[u8; 32]>(), s in any::<[u8; 32]>()) {
        if let Ok(sig) = Signature::from_scalars(r, s) {
            prop_assert_eq!(Signature::from_der(sig.to_der().as_ref()).unwrap(), sig);
            prop_assert_eq!(Signature::from_bytes(&sig.to_bytes()).unwrap(), sig);
        }
    }
}

#[test]
fn either_signature_form_reads_der_first_then_fixed() {
    let fixed = [R, S].concat();
    let expect = Signature::from_scalars(R, S).unwrap();
    let der = expect.to_der().as_ref().to_vec();
    assert_eq!(Signature::from_der_or_fixed(&der).unwrap(), expect);
    assert_eq!(Signature::from_der_or_fixed(&fixed).unwrap(), expect);
    // Neither: a cut DER, 63 or 65 bytes, r = 0 in the fixed form, n in the fixed form.
    assert!(Signature::from_der_or_fixed(&der[..der.len() - 1]).is_err());
    assert!(Signature::from_der_or_fixed(&fixed[..63]).is_err());
    assert!(Signature::from_der_or_fixed(&[fixed.as_slice(), &[0]].concat()).is_err());
    assert!(Signature::from_der_or_fixed(&[[0u8; 32], S].concat()).is_err());
    assert!(Signature::from_der_or_fixed(&[N, S].concat()).is_err());
}
