//! The SM2 parsers never panic, and what they accept re-encodes to the same bytes:
//! DER and fixed signatures (DER also accepted exactly when RustCrypto's `sm2` accepts it),
//! SEC1 points, PKCS#8 / SEC1 private keys, SPKI public keys and the ASN.1 and raw
//! ciphertext layouts.
//!
//! Input: byte 0 selects the parser, the rest is its input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shangmi_sm2::dsa::{Signature, VerifyingKey};
use shangmi_sm2::elliptic_curve::pkcs8::{DecodePrivateKey, DecodePublicKey};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::pke::{self, DecryptingKey, Layout};
use shangmi_sm2::{PublicKey, SecretKey};

const LAYOUTS: [Layout; 4] = [
    Layout::C1C3C2,
    Layout::C1C2C3,
    Layout::C1C3C2Raw,
    Layout::C1C2C3Raw,
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, input)) = data.split_first() else {
        return;
    };
    match which % 8 {
        0 => {
            let ours = Signature::from_der(input);
            if let Ok(sig) = ours {
                assert_eq!(sig.to_der().as_ref(), input, "DER must be canonical");
                assert_eq!(Signature::from_bytes(&sig.to_bytes()), Ok(sig));
            }
            // RustCrypto's sm2 takes the same DER and the same range of r and s.
            let theirs = rustcrypto_sm2::dsa::Signature::from_der(input);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "accepted by one side only");
            if let (Ok(a), Ok(b)) = (ours, theirs) {
                assert_eq!(a.to_bytes(), b.to_bytes());
            }
        }
        1 => {
            if let Ok(sig) = Signature::from_slice(input) {
                assert_eq!(&sig.to_bytes()[..], input);
                assert_eq!(Signature::from_der(sig.to_der().as_ref()), Ok(sig));
            }
        }
        2 => {
            if let Ok(vk) = VerifyingKey::from_sec1_bytes(input) {
                let compress = input.len() == 33;
                assert_eq!(vk.to_sec1_point(compress).as_bytes(), input);
            }
        }
        3 => {
            if let Ok(sk) = SecretKey::from_pkcs8_der(input) {
                let again = shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey::to_pkcs8_der(&sk)
                    .expect("encode");
                let back = SecretKey::from_pkcs8_der(again.as_bytes()).expect("round trip");
                assert_eq!(back.to_bytes(), sk.to_bytes());
            }
        }
        4 => {
            if let Ok(pk) = PublicKey::from_public_key_der(input) {
                let again =
                    shangmi_sm2::elliptic_curve::pkcs8::EncodePublicKey::to_public_key_der(&pk)
                        .expect("encode");
                assert_eq!(
                    PublicKey::from_public_key_der(again.as_bytes()).ok(),
                    Some(pk)
                );
            }
        }
        5 => {
            if let Ok(sk) = SecretKey::from_sec1_der(input) {
                let again = sk.to_sec1_der().expect("encode");
                assert_eq!(
                    SecretKey::from_sec1_der(&again).map(|k| k.to_bytes()).ok(),
                    Some(sk.to_bytes())
                );
            }
        }
        6 => {
            if let Ok(raw) = pke::der_to_c1c3c2(input) {
                // The parser accepts only minimal DER, so re-encoding gives the input back.
                assert_eq!(pke::c1c3c2_to_der(&raw).ok().as_deref(), Some(input));
            }
            let dk = DecryptingKey::from_bytes(&[7u8; 32].into()).expect("valid key");
            let _ = dk.decrypt_der(input);
        }
        _ => {
            let dk = DecryptingKey::from_bytes(&[7u8; 32].into()).expect("valid key");
            for layout in LAYOUTS {
                let _ = dk.decrypt(input, layout);
                let _ = pke::convert(input, layout, Layout::C1C3C2);
            }
            let _ = PublicKey::from_sec1_bytes(input).map(|p| p.to_sec1_point(false));
        }
    }
});
