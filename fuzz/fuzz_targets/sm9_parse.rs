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
        2 => {
            if let Ok(m) = SignMasterKey::from_der(input) {
                let again = SignMasterKey::from_der(&m.to_der()).expect("re-encoded key");
                assert_eq!(again.to_bytes(), m.to_bytes());
            }
            if let Ok(b) = <[u8; 32]>::try_from(input) {
                if let Ok(m) = SignMasterKey::from_bytes(&b) {
                    assert_eq!(m.to_bytes(), b);
                }
            }
        }
        3 => {
            if let Ok(p) = SignMasterPublicKey::from_der(input) {
                let again = SignMasterPublicKey::from_der(&p.to_der()).expect("re-encoded key");
                assert_eq!(again.to_bytes(), p.to_bytes());
            }
            if let Ok(p) = SignMasterPublicKey::from_bytes(input) {
                let again = SignMasterPublicKey::from_bytes(&p.to_bytes()).expect("re-encoded");
                assert_eq!(again.to_bytes(), p.to_bytes());
            }
        }
        4 => {
            let master = k.sign.public_key();
            if let Ok(u) = SigningKey::from_der(input, master) {
                let again = SigningKey::from_der(&u.to_der(), master).expect("re-encoded key");
                assert_eq!(again.to_uncompressed(), u.to_uncompressed());
            }
            if let Ok(u) = SigningKey::from_bytes(input, master) {
                let again =
                    SigningKey::from_bytes(&u.to_uncompressed(), master).expect("re-encoded");
                assert_eq!(again.to_uncompressed(), u.to_uncompressed());
            }
        }
        5 => {
            if let Ok(m) = EncryptMasterKey::from_der(input) {
                let again = EncryptMasterKey::from_der(&m.to_der()).expect("re-encoded key");
                assert_eq!(again.to_bytes(), m.to_bytes());
            }
            if let Ok(b) = <[u8; 32]>::try_from(input) {
                if let Ok(m) = EncryptMasterKey::from_bytes(&b) {
                    assert_eq!(m.to_bytes(), b);
                }
            }
        }
        6 => {
            if let Ok(p) = EncryptMasterPublicKey::from_der(input) {
                let again = EncryptMasterPublicKey::from_der(&p.to_der()).expect("re-encoded key");
                assert_eq!(again.to_bytes(), p.to_bytes());
            }
            if let Ok(p) = EncryptMasterPublicKey::from_bytes(input) {
                let again = EncryptMasterPublicKey::from_bytes(&p.to_bytes()).expect("re-encoded");
                assert_eq!(again.to_bytes(), p.to_bytes());
            }
        }
        7 => {
            let master = k.enc.public_key();
            if let Ok(u) = EncryptPrivateKey::from_der(input, master) {
                let again =
                    EncryptPrivateKey::from_der(&u.to_der(), master).expect("re-encoded key");
                assert_eq!(again.to_uncompressed(), u.to_uncompressed());
            }
            if let Ok(u) = EncryptPrivateKey::from_bytes(input, master) {
                let again = EncryptPrivateKey::from_bytes(&u.to_uncompressed(), master)
                    .expect("re-encoded");
                assert_eq!(again.to_uncompressed(), u.to_uncompressed());
            }
        }
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
