//! `KeyPool`: the key pairs it hands out are the ones the one-at-a-time paths make from the
//! same secrets (`SigningKey::from_bytes`, `ecdh::public_point_uncompressed`,
//! `EncryptingKey::encrypt_with_nonce`), in the order the generator gave them, with the
//! out-of-range draws rejected; a failing generator is an error.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests unwrap on purpose

#[path = "support/rngs.rs"]
mod rngs;
use rngs::{Failing, Filler};
use shangmi_sm2::dsa::SigningKey;
use shangmi_sm2::keys::KeyPool;
use shangmi_sm2::pke::{DecryptingKey, Layout};
use shangmi_sm2::{Error, SecretKey, ecdh};

/// n - 1 for the SM2 curve (n from GB/T 32918.5 §3): a valid ECDH secret, not a signing key
/// (1 + d must be invertible).
const N_MINUS_1: [u8; 32] = [
    0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0x72, 0x03, 0xDF, 0x6B, 0x21, 0xC6, 0x05, 0x2B, 0x53, 0xBB, 0xF4, 0x09, 0x39, 0xD5, 0x41, 0x22,
];

/// A generator that gives the 32-byte values of `script` in turn, then `[i; 32]` for
/// i = 1, 2, …
fn scripted(script: &[[u8; 32]]) -> Filler<impl FnMut(&mut [u8])> {
    let mut script: Vec<[u8; 32]> = script.iter().rev().copied().collect();
    let mut counter = 0u8;
    Filler(move |dst: &mut [u8]| {
        assert_eq!(dst.len(), 32, "the pool draws 32-byte secrets");
        let next = script.pop().unwrap_or_else(|| {
            counter += 1;
            [counter; 32]
        });
        dst.copy_from_slice(&next);
    })
}

#[test]
fn pairs_match_the_one_at_a_time_keys_in_order() {
    // 0, n - 1 and 2^256 - 1 are rejected; then [1; 32], [2; 32], … in order.
    let mut rng = scripted(&[[0; 32], N_MINUS_1, [0xFF; 32]]);
    let mut pool = KeyPool::new();
    assert_eq!(pool.available(), 0);
    for i in 1..=KeyPool::BATCH as u8 {
        let d = [i; 32];
        if i % 2 == 1 {
            let (secret, share) = pool.take_ecdh(&mut rng).unwrap();
            assert_eq!(secret.to_bytes()[..], d, "pair {i}");
            let expected =
                ecdh::public_point_uncompressed(&SecretKey::from_bytes(&d.into()).unwrap());
            assert_eq!(share, expected, "share {i}");
        } else {
            let key = pool.take_signing_key(&mut rng).unwrap();
            let expected = SigningKey::from_bytes(&d.into()).unwrap();
            assert_eq!(key.to_bytes(), expected.to_bytes(), "secret {i}");
            assert_eq!(key.verifying_key(), expected.verifying_key(), "public {i}");
        }
        assert_eq!(pool.available(), KeyPool::BATCH - i as usize);
    }
    // The next take makes a new batch from the generator's next values.
    let (secret, _) = pool.take_ecdh(&mut rng).unwrap();
    assert_eq!(secret.to_bytes()[..], [KeyPool::BATCH as u8 + 1; 32]);
    assert_eq!(pool.available(), KeyPool::BATCH - 1);
}

#[test]
fn refill_replaces_the_batch() {
    let mut rng = scripted(&[]);
    let mut pool = KeyPool::new();
    pool.refill(&mut rng).unwrap();
    pool.take_ecdh(&mut rng).unwrap();
    pool.refill(&mut rng).unwrap();
    assert_eq!(pool.available(), KeyPool::BATCH);
    let (secret, _) = pool.take_ecdh(&mut rng).unwrap();
    assert_eq!(secret.to_bytes()[..], [KeyPool::BATCH as u8 + 1; 32]);
}

#[test]
fn a_failing_generator_is_an_error() {
    let mut pool = KeyPool::new();
    assert!(matches!(pool.take_ecdh(&mut Failing), Err(Error::Rng)));
    assert!(matches!(
        pool.take_signing_key(&mut Failing),
        Err(Error::Rng)
    ));
    assert!(matches!(pool.refill(&mut Failing), Err(Error::Rng)));
    let key = DecryptingKey::from_bytes(&[5; 32].into()).unwrap();
    let encrypted =
        key.encrypting_key()
            .encrypt_with_pool(&mut pool, &mut Failing, b"msg", Layout::C1C3C2);
    assert!(matches!(encrypted, Err(Error::Rng)));
}

#[test]
fn encryption_from_the_pool_is_encryption_with_its_k() {
    let key = DecryptingKey::from_bytes(&[5; 32].into()).unwrap();
    let mut rng = scripted(&[]);
    let mut pool = KeyPool::new();
    let msg = b"encryption from a pool of (k, k\xb7G)";
    for (i, layout) in [Layout::C1C3C2, Layout::C1C2C3, Layout::C1C3C2Compressed]
        .into_iter()
        .enumerate()
    {
        let ct = key
            .encrypting_key()
            .encrypt_with_pool(&mut pool, &mut rng, msg, layout)
            .unwrap();
        let k = [i as u8 + 1; 32];
        let expected = key
            .encrypting_key()
            .encrypt_with_nonce(&k.into(), msg, layout)
            .unwrap();
        assert_eq!(ct, expected, "{layout:?}");
        assert_eq!(key.decrypt(&ct, layout).unwrap(), msg);
    }
    assert!(matches!(
        key.encrypting_key()
            .encrypt_with_pool(&mut pool, &mut rng, b"", Layout::C1C3C2),
        Err(Error::EmptyMessage)
    ));
}

#[test]
fn debug_shows_no_secret() {
    let mut pool = KeyPool::default();
    pool.refill(&mut scripted(&[])).unwrap();
    assert_eq!(format!("{pool:?}"), "KeyPool { available: 32, .. }");
}
