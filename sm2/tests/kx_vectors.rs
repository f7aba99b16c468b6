//! SM2 key exchange on the recommended curve against fixed vectors: the three
//! `TestSM2SharedKeyVectors` cases of emmansun/gmsm v0.44.0 (`ecdh/ecdh_test.go`), an
//! independent Go implementation. Alice (ID "Alice") initiates, Bob (ID "Bob") responds,
//! 48 bytes of key = KDF(x_V ‖ y_V ‖ Z_A ‖ Z_B). The published GB/T 32918.3 Annex example
//! runs on a different example curve, which this fixed-curve crate does not support.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use shangmi_sm2::kx::{KeyExchange, Role};
use shangmi_sm2::{Peer, SecretKey};

/// Alice's static and ephemeral secret, Bob's static and ephemeral secret, the key.
struct Vector {
    alice: [u8; 32],
    alice_eph: [u8; 32],
    bob: [u8; 32],
    bob_eph: [u8; 32],
    key: [u8; 48],
}

/// The cases of `data/gmsm_kx_vectors.txt` (five hex lines each, `#` lines skipped).
fn vectors() -> Vec<Vector> {
    let values: Vec<Vec<u8>> = include_str!("data/gmsm_kx_vectors.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| hex::decode(l).unwrap())
        .collect();
    values
        .chunks_exact(5)
        .map(|v| Vector {
            alice: v[0].as_slice().try_into().unwrap(),
            alice_eph: v[1].as_slice().try_into().unwrap(),
            bob: v[2].as_slice().try_into().unwrap(),
            bob_eph: v[3].as_slice().try_into().unwrap(),
            key: v[4].as_slice().try_into().unwrap(),
        })
        .collect()
}

#[test]
fn gmsm_shared_key_vectors() {
    let vectors = vectors();
    assert_eq!(vectors.len(), 3);
    for (i, v) in vectors.iter().enumerate() {
        let a = SecretKey::from_bytes(&v.alice.into()).unwrap();
        let b = SecretKey::from_bytes(&v.bob.into()).unwrap();
        let alice =
            KeyExchange::new_with_ephemeral(Role::Initiator, &a, b"Alice", &v.alice_eph.into())
                .unwrap();
        let bob = KeyExchange::new_with_ephemeral(Role::Responder, &b, b"Bob", &v.bob_eph.into())
            .unwrap();
        let (ra, rb) = (alice.ephemeral_public(), bob.ephemeral_public());
        let (mut ka, mut kb) = ([0u8; 48], [0u8; 48]);
        alice
            .finish(Peer::new(&b.public_key(), b"Bob", &rb), &mut ka)
            .unwrap();
        bob.finish(Peer::new(&a.public_key(), b"Alice", &ra), &mut kb)
            .unwrap();
        assert_eq!(ka, v.key, "vector {i}, initiator");
        assert_eq!(kb, v.key, "vector {i}, responder");
    }
}
