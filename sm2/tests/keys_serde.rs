//! serde (feature `serde`): `VerifyingKey` as SPKI DER and `Signature` as r ‖ s, hex in
//! human-readable formats (JSON) and bytes in binary ones (CBOR), as RustCrypto's types.

#![cfg(feature = "serde")] // on through the self dev-dependency
#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::pkcs8::EncodePublicKey;
use shangmi_sm2::signature::Signer;

#[test]
fn json_and_cbor_round_trips() {
    let sk = SigningKey::from_bytes(&[0x21; 32].into()).unwrap();
    let vk = sk.verifying_key().clone();
    let sig: Signature = sk.sign(b"serde");
    let spki = vk.to_public_key_der().unwrap();

    let json = serde_json::to_string(&vk).unwrap();
    assert_eq!(json, format!("\"{}\"", hex::encode_upper(spki.as_bytes())));
    assert_eq!(serde_json::from_str::<VerifyingKey>(&json).unwrap(), vk);
    let json = serde_json::to_string(&sig).unwrap();
    assert_eq!(json, format!("\"{}\"", hex::encode_upper(sig.to_bytes())));
    assert_eq!(serde_json::from_str::<Signature>(&json).unwrap(), sig);

    let mut cbor = Vec::new();
    ciborium::into_writer(&vk, &mut cbor).unwrap();
    assert!(cbor.ends_with(spki.as_bytes()));
    assert_eq!(
        ciborium::from_reader::<VerifyingKey, _>(&cbor[..]).unwrap(),
        vk
    );
    let mut cbor = Vec::new();
    ciborium::into_writer(&sig, &mut cbor).unwrap();
    assert_eq!(
        ciborium::from_reader::<Signature, _>(&cbor[..]).unwrap(),
        sig
    );

    // Refusals: a point off the curve, r = 0.
    let mut bad = spki.as_bytes().to_vec();
    *bad.last_mut().unwrap() ^= 1;
    let json = format!("\"{}\"", hex::encode(&bad));
    assert!(serde_json::from_str::<VerifyingKey>(&json).is_err());
    let mut zero_r = sig.to_bytes();
    zero_r[..32].fill(0);
    let json = format!("\"{}\"", hex::encode(zero_r));
    assert!(serde_json::from_str::<Signature>(&json).is_err());
}
