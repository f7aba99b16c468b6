//! The SM9 decoders never panic (typed errors on short, empty or garbage input), and what
//! they accept re-encodes to something they accept again with the same value: signatures
//! (DER and the 96-byte form), master private keys (DER and 32 bytes), master public keys
//! (DER and raw), user private keys (DER and raw, under a fixed master public key), and
//! decryption of raw and DER ciphertexts (KDF/XOR, SM4-ECB and SM4-CBC) with a fixed key.
//!
//! Input: byte 0 selects the decoder, the rest is its input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shangmi_sm9::{
    BlockMode, EncryptMasterKey, EncryptMasterPublicKey, EncryptPrivateKey, SignMasterKey,
    SignMasterPublicKey, Signature, SigningKey,
};
use std::sync::OnceLock;

struct Keys {
    sign: SignMasterKey,
    enc: EncryptMasterKey,
    bob: EncryptPrivateKey,
}

/// A master private key: what DER decodes re-encodes to the same key; a 32-byte scalar
/// that decodes encodes back to itself.
macro_rules! master_key {
    ($t:ty, $input:expr) => {{
        if let Ok(m) = <$t>::from_der($input) {
            let again = <$t>::from_der(&m.to_der()).expect("re-encoded key");
            assert_eq!(again.to_bytes(), m.to_bytes());
        }
        if let Ok(b) = <[u8; 32]>::try_from($input) {
            if let Ok(m) = <$t>::from_bytes(&b) {
                assert_eq!(m.to_bytes(), b);
            }
        }
    }};
}

/// A master public key: what DER or the raw form decodes re-encodes to the same key.
macro_rules! master_public_key {
    ($t:ty, $input:expr) => {{
        if let Ok(p) = <$t>::from_der($input) {
            let again = <$t>::from_der(&p.to_der()).expect("re-encoded key");
            assert_eq!(again.to_bytes(), p.to_bytes());
        }
        if let Ok(p) = <$t>::from_bytes($input) {
            let again = <$t>::from_bytes(&p.to_bytes()).expect("re-encoded");
            assert_eq!(again.to_bytes(), p.to_bytes());
        }
    }};
}

/// A user private key under `master`: what DER or the raw form decodes re-encodes to the
/// same key.
macro_rules! user_key {
    ($t:ty, $input:expr, $master:expr) => {{
        let master = $master;
        if let Ok(u) = <$t>::from_der($input, master) {
            let again = <$t>::from_der(&u.to_der(), master).expect("re-encoded key");
            assert_eq!(again.to_uncompressed(), u.to_uncompressed());
        }
        if let Ok(u) = <$t>::from_bytes($input, master) {
            let again = <$t>::from_bytes(&u.to_uncompressed(), master).expect("re-encoded");
            assert_eq!(again.to_uncompressed(), u.to_uncompressed());
        }
    }};
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let sign = SignMasterKey::from_bytes(&[0x42; 32]).expect("fixed key");
        let enc = EncryptMasterKey::from_bytes(&[0x24; 32]).expect("fixed key");
        let bob = enc.extract(b"Bob").expect("extraction");
        Keys { sign, enc, bob }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, input)) = data.split_first() else {
        return;
    };
    let k = keys();
    match which % 12 {
        0 => {
            if let Ok(sig) = Signature::from_der(input) {
                let again = Signature::from_der(&sig.to_der()).expect("re-encoded signature");
                assert_eq!(again.to_bytes(), sig.to_bytes());
                // Verification of anything accepted is an answer, never a panic.
                let _ = k.sign.public_key().verify(b"Alice", 1, b"msg", &sig);
            }
        }
        1 => {
            if let Ok(sig) = Signature::from_bytes(input) {
                let again = Signature::from_bytes(&sig.to_bytes()).expect("re-encoded");
                assert_eq!(again.to_bytes(), sig.to_bytes());
                let _ = k.sign.public_key().verify(b"Alice", 1, b"msg", &sig);
            }
        }
        2 => master_key!(SignMasterKey, input),
        3 => master_public_key!(SignMasterPublicKey, input),
        4 => user_key!(SigningKey, input, k.sign.public_key()),
        5 => master_key!(EncryptMasterKey, input),
        6 => master_public_key!(EncryptMasterPublicKey, input),
        7 => user_key!(EncryptPrivateKey, input, k.enc.public_key()),
        8 => {
            let _ = k.bob.decrypt(b"Bob", input);
        }
        9 => {
            let _ = k.bob.decrypt_der(b"Bob", input);
        }
        10 => {
            let _ = k.bob.decrypt_sm4(b"Bob", input, BlockMode::Ecb);
            let _ = k.bob.decrypt_sm4(b"Bob", input, BlockMode::Cbc);
        }
        _ => {
            let mut key = [0u8; 32];
            let _ = k.bob.decapsulate(b"Bob", input, &mut key);
            let mut out = vec![0u8; input.len()];
            let _ = k.bob.decrypt_into(b"Bob", input, &mut out);
        }
    }
});
