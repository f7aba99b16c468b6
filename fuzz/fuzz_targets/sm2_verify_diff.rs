//! Differential fuzzing of SM2 verification: ours (with and without the per-key table) and
//! RustCrypto `sm2` 0.14 must agree on every (key, identifier, message, signature); a
//! signature we make must verify in both.
//!
//! Input: 32 bytes secret seed, 64 bytes r ‖ s, 1 byte identifier choice, then the message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rustcrypto_sm2::dsa as rc;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::signature::{Signer, Verifier};

const IDS: [&str; 3] = ["1234567812345678", "TLSv1.3+GM+Cipher+Suite", ""];

fuzz_target!(|data: &[u8]| {
    if data.len() < 97 {
        return;
    }
    let (seed, rest) = data.split_at(32);
    let (sig_bytes, rest) = rest.split_at(64);
    let (id_sel, msg) = rest.split_at(1);
    let id = IDS[usize::from(id_sel[0]) % IDS.len()];
    let seed: [u8; 32] = seed.try_into().expect("32 bytes");
    let (Ok(sk), Ok(rc_sk)) = (
        SigningKey::from_bytes_with_id(&seed.into(), id.as_bytes()),
        rc::SigningKey::from_bytes(id, &seed.into()),
    ) else {
        return;
    };
    let enc = sk.verifying_key().to_sec1_point(false);
    let vk = VerifyingKey::from_sec1_bytes_with_id(enc.as_bytes(), id.as_bytes())
        .expect("valid")
        .precomputed();
    let rc_vk = rc_sk.verifying_key();

    // Arbitrary signature bytes: both accept or both reject.
    let ours = Signature::from_slice(sig_bytes);
    let theirs = rc::Signature::from_slice(sig_bytes);
    assert_eq!(ours.is_ok(), theirs.is_ok(), "range checks differ");
    if let (Ok(s), Ok(t)) = (ours, theirs) {
        let a = vk.verify(msg, &s).is_ok();
        let b = sk.verifying_key().verify(msg, &s).is_ok();
        let c = rc_vk.verify(msg, &t).is_ok();
        assert_eq!(a, c, "verify differs from RustCrypto");
        assert_eq!(a, b, "table and plain paths differ");
    }

    // Our signature verifies in both.
    let sig = sk.sign(msg);
    assert!(vk.verify(msg, &sig).is_ok());
    let rc_sig = rc::Signature::from_slice(&sig.to_bytes()).expect("in range");
    assert!(rc_vk.verify(msg, &rc_sig).is_ok());
});
