//! Property tests: sign/verify and encrypt/decrypt round trips, tampered inputs rejected,
//! and no panic on short, empty or garbage input to any parser or decryptor.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shangmi_sm9::signature::Verifier;
use shangmi_sm9::{
    BlockMode, CiphertextForm, EncryptMasterKey, EncryptMasterPublicKey, EncryptPrivateKey, Error,
    KeyExchange, SignMasterKey, SignMasterPublicKey, Signature, SigningKey, hid,
};
use std::sync::OnceLock;

#[path = "support/lcg.rs"]
mod lcg;
use lcg::Lcg;

struct Keys {
    sign: SignMasterKey,
    alice: SigningKey,
    enc: EncryptMasterKey,
    bob: EncryptPrivateKey,
}

fn keys() -> &'static Keys {
    static K: OnceLock<Keys> = OnceLock::new();
    K.get_or_init(|| {
        let mut rng = Lcg(7);
        let sign = SignMasterKey::random(&mut rng).unwrap();
        let alice = sign.extract(b"alice@example.com").unwrap();
        let enc = EncryptMasterKey::random(&mut rng).unwrap();
        let bob = enc.extract(b"bob@example.com").unwrap();
        Keys {
            sign,
            alice,
            enc,
            bob,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn sign_verify_round_trip(seed: u64, msg in proptest::collection::vec(any::<u8>(), 0..200), flip in any::<usize>()) {
        let k = keys();
        let sig = k.alice.sign_with_rng(&mut Lcg(seed), &msg).unwrap();
        let vk = k.sign.public_key().verifying_key(b"alice@example.com");
        prop_assert!(vk.verify(&msg, &sig).is_ok());
        // DER and fixed encodings round-trip.
        prop_assert_eq!(Signature::from_der(&sig.to_der()).unwrap(), sig);
        prop_assert_eq!(Signature::from_bytes(&sig.to_bytes()).unwrap(), sig);
        // Another identity, a changed message, a changed h are rejected.
        prop_assert!(k.sign.public_key().verifying_key(b"alice@example.org").verify(&msg, &sig).is_err());
        let mut m2 = msg.clone();
        if m2.is_empty() { m2.push(0) } else { let i = flip % m2.len(); m2[i] ^= 1 << (flip % 8); }
        prop_assert!(vk.verify(&m2, &sig).is_err());
        let mut b = sig.to_bytes();
        b[flip % 32] ^= 1 << (flip % 8);
        let bad = Signature::from_bytes(&b).unwrap();
        prop_assert!(vk.verify(&msg, &bad).is_err());
    }

    #[test]
    fn encrypt_decrypt_round_trip(seed: u64, msg in proptest::collection::vec(any::<u8>(), 1..300), flip in any::<usize>()) {
        let k = keys();
        let id = b"bob@example.com";
        let ct = k.enc.public_key().encrypt(&mut Lcg(seed), id, &msg).unwrap();
        prop_assert_eq!(ct.len(), msg.len() + 96);
        prop_assert_eq!(&k.bob.decrypt(id, &ct).unwrap(), &msg);
        let der = k.enc.public_key().encrypt_der(&mut Lcg(seed), id, &msg).unwrap();
        prop_assert_eq!(&k.bob.decrypt_der(id, &der).unwrap(), &msg);
        let mut bad = ct.clone();
        let i = flip % bad.len();
        bad[i] ^= 1 << (flip % 8);
        prop_assert_eq!(k.bob.decrypt(id, &bad), Err(Error::Decryption));
        prop_assert!(k.bob.decrypt(b"bob@example.org", &ct).is_err());
        // SM4 block modes, raw and DER.
        for mode in [BlockMode::Ecb, BlockMode::Cbc] {
            let ct = k.enc.public_key().encrypt_sm4(&mut Lcg(seed), id, &msg, mode, CiphertextForm::Raw).unwrap();
            prop_assert_eq!(&k.bob.decrypt_sm4(id, &ct, mode).unwrap(), &msg);
            let mut bad = ct.clone();
            let i = flip % bad.len();
            bad[i] ^= 1 << (flip % 8);
            prop_assert!(k.bob.decrypt_sm4(id, &bad, mode).is_err());
            let der = k.enc.public_key().encrypt_sm4(&mut Lcg(seed), id, &msg, mode, CiphertextForm::Der).unwrap();
            prop_assert_eq!(&k.bob.decrypt_der(id, &der).unwrap(), &msg);
        }
        // KEM.
        let mut key = vec![0u8; 1 + flip % 100];
        let c = k.enc.public_key().encapsulate(&mut Lcg(seed), id, &mut key).unwrap();
        let mut key2 = vec![0u8; key.len()];
        k.bob.decapsulate(id, &c, &mut key2).unwrap();
        prop_assert_eq!(key, key2);
    }

    #[test]
    fn garbage_never_panics(data in proptest::collection::vec(any::<u8>(), 0..700)) {
        let k = keys();
        let _ = Signature::from_der(&data);
        let _ = Signature::from_bytes(&data);
        let _ = SignMasterKey::from_der(&data);
        let _ = SignMasterPublicKey::from_der(&data);
        let _ = SignMasterPublicKey::from_bytes(&data);
        let _ = SigningKey::from_der(&data, k.sign.public_key());
        let _ = SigningKey::from_bytes(&data, k.sign.public_key());
        let _ = EncryptMasterKey::from_der(&data);
        let _ = EncryptMasterPublicKey::from_der(&data);
        let _ = EncryptMasterPublicKey::from_bytes(&data);
        let _ = EncryptPrivateKey::from_der(&data, k.enc.public_key());
        let _ = EncryptPrivateKey::from_bytes(&data, k.enc.public_key());
        prop_assert!(k.bob.decrypt(b"bob", &data).is_err());
        prop_assert!(k.bob.decrypt_der(b"bob", &data).is_err());
        prop_assert!(k.bob.decrypt_sm4(b"bob", &data, BlockMode::Ecb).is_err());
        prop_assert!(k.bob.decrypt_sm4(b"bob", &data, BlockMode::Cbc).is_err());
        let mut key = [0u8; 16];
        prop_assert!(k.bob.decapsulate(b"bob", &data, &mut key).is_err());
        let mut out = vec![0u8; data.len().saturating_sub(96)];
        prop_assert!(k.bob.decrypt_into(b"bob", &data, &mut out).is_err());
    }
}

#[test]
fn short_and_empty_inputs_are_errors() {
    let k = keys();
    let id = b"bob@example.com";
    for n in [0usize, 1, 32, 63, 64, 65, 95, 96] {
        let d = vec![0u8; n];
        assert!(k.bob.decrypt(id, &d).is_err(), "{n}");
        assert!(k.bob.decrypt_der(id, &d).is_err(), "{n}");
        let mut key = [0u8; 16];
        assert!(k.bob.decapsulate(id, &d, &mut key).is_err(), "{n}");
        assert!(Signature::from_der(&d).is_err());
        assert!(Signature::from_bytes(&d).is_err());
    }
    // Empty plaintext and wrong buffer sizes.
    let mut rng = Lcg(1);
    assert_eq!(
        k.enc.public_key().encrypt(&mut rng, id, b""),
        Err(Error::InvalidArgument)
    );
    let mut out = [0u8; 10];
    assert_eq!(
        k.enc
            .public_key()
            .encrypt_into(&mut rng, id, b"abc", &mut out),
        Err(Error::InvalidArgument)
    );
    let mut empty: [u8; 0] = [];
    assert!(
        k.enc
            .public_key()
            .encapsulate(&mut rng, id, &mut empty)
            .is_err()
    );
    // Master keys out of range.
    assert_eq!(
        SignMasterKey::from_bytes(&[0; 32]).err(),
        Some(Error::InvalidKey)
    );
    assert_eq!(
        EncryptMasterKey::from_bytes(&[0xff; 32]).err(),
        Some(Error::InvalidKey)
    );
    // A point not on the curve / not in G2.
    let mut p = k.sign.public_key().to_bytes();
    p[127] ^= 1;
    assert!(SignMasterPublicKey::from_bytes(&p).is_err());
    let mut q = k.enc.public_key().to_bytes();
    q[63] ^= 1;
    assert!(EncryptMasterPublicKey::from_bytes(&q).is_err());
}

#[test]
fn keys_round_trip_through_der() {
    // `$key` through its DER and `$ty::from_der` (with the master public key a user key
    // needs) must give the same `$bytes`; the parsed key is returned.
    macro_rules! round_trip {
        ($key:expr, $ty:ident $(, $master:expr)?; $bytes:ident) => {{
            let key = $key;
            let back = $ty::from_der(&key.to_der() $(, $master)?).unwrap();
            assert_eq!(back.$bytes(), key.$bytes());
            back
        }};
    }
    let k = keys();
    round_trip!(&k.sign, SignMasterKey; to_bytes);
    let mp = round_trip!(k.sign.public_key(), SignMasterPublicKey; to_bytes);
    round_trip!(&k.alice, SigningKey, &mp; to_uncompressed);
    round_trip!(&k.enc, EncryptMasterKey; to_bytes);
    let ep = round_trip!(k.enc.public_key(), EncryptMasterPublicKey; to_bytes);
    round_trip!(&k.bob, EncryptPrivateKey, &ep; to_uncompressed);
    // Trailing data is refused.
    let mut d = k.sign.to_der();
    d.push(0);
    assert!(SignMasterKey::from_der(&d).is_err());
}

#[test]
fn key_exchange_round_trip_and_misuse() {
    let mut rng = Lcg(99);
    let kgc = EncryptMasterKey::random(&mut rng).unwrap();
    let ka = kgc.extract_with_hid(b"A", hid::KEY_EXCHANGE).unwrap();
    let kb = kgc.extract_with_hid(b"B", hid::KEY_EXCHANGE).unwrap();
    let mut a = KeyExchange::initiator(&ka, b"A", b"B");
    let mut b = KeyExchange::responder(&kb, b"B", b"A");
    let ra = a.init(&mut rng).unwrap();
    let mut kbuf = [0u8; 48];
    // Garbage RA is refused.
    assert!(b.respond(&mut rng, &ra[..63], &mut kbuf).is_err());
    let mut bad = ra;
    bad[5] ^= 1;
    assert!(b.respond(&mut rng, &bad, &mut kbuf).is_err());
    let (rb, sb) = b.respond(&mut rng, &ra, &mut kbuf).unwrap();
    let mut kabuf = [0u8; 48];
    let mut bad_sb = sb;
    bad_sb[31] ^= 0x80;
    let mut a2 = KeyExchange::initiator(&ka, b"A", b"B");
    let _ = a2.init(&mut rng).unwrap();
    assert_eq!(
        a.confirm_responder(&rb, Some(&bad_sb), &mut kabuf),
        Err(Error::KeyConfirmation)
    );
    let sa = a.confirm_responder(&rb, Some(&sb), &mut kabuf).unwrap();
    assert_eq!(kabuf, kbuf);
    b.confirm_initiator(&sa).unwrap();
    // Without confirmation values.
    let mut a = KeyExchange::initiator(&ka, b"A", b"B");
    let mut b = KeyExchange::responder(&kb, b"B", b"A");
    let ra = a.init(&mut rng).unwrap();
    let (rb, _) = b.respond(&mut rng, &ra, &mut kbuf).unwrap();
    a.confirm_responder(&rb, None, &mut kabuf).unwrap();
    assert_eq!(kabuf, kbuf);
}
