//! The private-key interface (`PrivateKeyOps`) on the three in-memory key types: each signs
//! what the verifier accepts, decrypts what `pke` encrypts, and agrees with the others in the
//! GB/T 32918.3 key exchange; refused inputs are told apart from key failures.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use shangmi_sm2::dsa::{SigningKey, VerifyingKey};
use shangmi_sm2::kx::Role;
use shangmi_sm2::pke::{DecryptingKey, Layout};
use shangmi_sm2::{DEFAULT_ID, Error, KeyAgreement, KeyOpError, Peer, PrivateKeyOps, SecretKey};

fn secret(b: u8) -> SecretKey {
    SecretKey::from_bytes(&[b; 32].into()).unwrap()
}

fn check_sign<K: PrivateKeyOps>(key: &K) {
    let vk = VerifyingKey::new(&key.public_key());
    let sig = key.sign(b"abc").unwrap();
    vk.verify_e(&vk.hash_message(b"abc"), &sig).unwrap();
    assert!(vk.verify_e(&vk.hash_message(b"abd"), &sig).is_err());
    let with_id = VerifyingKey::new_with_id(&key.public_key(), b"ALICE").unwrap();
    let sig = key.sign_with_id(b"ALICE", b"abc").unwrap();
    with_id
        .verify_e(&with_id.hash_message(b"abc"), &sig)
        .unwrap();
    assert!(vk.verify_e(&vk.hash_message(b"abc"), &sig).is_err());
    let e = [0x5A; 32];
    vk.verify_e(&e, &key.sign_digest(&e).unwrap()).unwrap();
}

fn check_decrypt<K: PrivateKeyOps<Error = Error>>(key: &K) {
    let mut rng = getrandom::SysRng;
    let ek = shangmi_sm2::pke::EncryptingKey::new(key.public_key());
    let ct = ek.encrypt(&mut rng, b"premaster", Layout::C1C3C2).unwrap();
    assert_eq!(key.decrypt(&ct).unwrap(), b"premaster");
    let mut short = [0u8; 4];
    assert_eq!(key.decrypt_into(&ct, &mut short), Err(Error::Decryption));
    let mut bad = ct.clone();
    *bad.last_mut().unwrap() ^= 1;
    let err = key.decrypt(&bad).unwrap_err();
    assert!(err.is_refused_input());
}

#[test]
fn in_memory_keys_sign_and_decrypt() {
    let s = secret(7);
    check_sign(&s);
    check_sign(&SigningKey::new(&s).unwrap());
    check_sign(&DecryptingKey::new(s.clone()));
    check_decrypt(&s);
    check_decrypt(&SigningKey::new(&s).unwrap());
    check_decrypt(&DecryptingKey::new(s));
}

fn exchange<A: PrivateKeyOps, B: PrivateKeyOps>(a: &A, b: &B) -> ([u8; 48], [u8; 48]) {
    let mut rng = getrandom::SysRng;
    let ka = a
        .start_key_exchange(&mut rng, Role::Initiator, b"alice")
        .ok()
        .unwrap();
    let kb = b
        .start_key_exchange(&mut rng, Role::Responder, DEFAULT_ID)
        .ok()
        .unwrap();
    let (ra, rb) = (ka.ephemeral_public(), kb.ephemeral_public());
    let (mut out_a, mut out_b) = ([0u8; 48], [0u8; 48]);
    ka.finish(Peer::new(&b.public_key(), DEFAULT_ID, &rb), &mut out_a)
        .ok()
        .unwrap();
    kb.finish(Peer::new(&a.public_key(), b"alice", &ra), &mut out_b)
        .ok()
        .unwrap();
    (out_a, out_b)
}

#[test]
fn in_memory_keys_agree() {
    let (a, b) = (secret(1), secret(2));
    let (x, y) = exchange(&a, &DecryptingKey::new(b.clone()));
    assert_eq!(x, y);
    assert_ne!(x, [0; 48]);
    let (x, y) = exchange(&SigningKey::new(&a).unwrap(), &b);
    assert_eq!(x, y);
    // A wrong static key on one side gives different key material.
    let mut rng = getrandom::SysRng;
    let ka = a
        .start_key_exchange(&mut rng, Role::Initiator, DEFAULT_ID)
        .unwrap();
    let kb = b
        .start_key_exchange(&mut rng, Role::Responder, DEFAULT_ID)
        .unwrap();
    let (ra, rb) = (ka.ephemeral_public(), kb.ephemeral_public());
    let (mut out_a, mut out_b) = ([0u8; 32], [0u8; 32]);
    ka.finish(
        Peer::new(&secret(3).public_key(), DEFAULT_ID, &rb),
        &mut out_a,
    )
    .unwrap();
    kb.finish(Peer::new(&a.public_key(), DEFAULT_ID, &ra), &mut out_b)
        .unwrap();
    assert_ne!(out_a, out_b);
}

#[test]
fn key_failures_are_not_refused_input() {
    assert!(!Error::Rng.is_refused_input());
    assert!(!Error::InvalidSecretKey.is_refused_input());
    // d = n - 1 cannot sign (s would need (1 + d)^-1): a key failure, typed.
    let n_minus_1 =
        hex_literal::hex!("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54122");
    let s = SecretKey::from_bytes(&n_minus_1.into()).unwrap();
    assert_eq!(s.sign(b"x"), Err(Error::InvalidSecretKey));
}
