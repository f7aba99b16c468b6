//! SM2 key exchange on the recommended curve against fixed vectors: the three
//! `TestSM2SharedKeyVectors` cases of emmansun/gmsm v0.44.0 (`ecdh/ecdh_test.go`), an
//! independent Go implementation. Alice (ID "Alice") initiates, Bob (ID "Bob") responds,
//! 48 bytes of key = KDF(x_V ‖ y_V ‖ Z_A ‖ Z_B). The published GB/T 32918.3 Annex example
//! runs on a different example curve, which this fixed-curve crate does not support.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use hex_literal::hex;
use shangmi_sm2::SecretKey;
use shangmi_sm2::kx::{KeyExchange, Role};

/// Alice's static and ephemeral secret, Bob's static and ephemeral secret, the key.
struct Vector {
    alice: [u8; 32],
    alice_eph: [u8; 32],
    bob: [u8; 32],
    bob_eph: [u8; 32],
    key: [u8; 48],
}

const VECTORS: [Vector; 3] = [
    Vector {
        alice: hex!("e04c3fd77408b56a648ad439f673511a2ae248def3bab26bdfc9cdbd0ae9607e"),
        alice_eph: hex!("6fe0bac5b09d3ab10f724638811c34464790520e4604e71e6cb0e5310623b5b1"),
        bob: hex!("7a1136f60d2c5531447e5a3093078c2a505abf74f33aefed927ac0a5b27e7dd7"),
        bob_eph: hex!("d0233bdbb0b8a7bfe1aab66132ef06fc4efaedd5d5000692bc21185242a31f6f"),
        key: hex!(
            "1ad809ebc56ddda532020c352e1e60b121ebeb7b4e632db4dd90a362cf844f8b"
            "ba85140e30984ddb581199bf5a9dda22"
        ),
    },
    Vector {
        alice: hex!("cb5ac204b38d0e5c9fc38a467075986754018f7dbb7cbbc5b4c78d56a88a8ad8"),
        alice_eph: hex!("1681a66c02b67fdadfc53cba9b417b9499d0159435c86bb8760c3a03ae157539"),
        bob: hex!("4f54b10e0d8e9e2fe5cc79893e37fd0fd990762d1372197ed92dde464b2773ef"),
        bob_eph: hex!("a2fe43dea141e9acc88226eaba8908ad17e81376c92102cb8186e8fef61a8700"),
        key: hex!(
            "7a103ae61a30ed9df573a5febb35a9609cbed5681bcb98a8545351bf7d6824cc"
            "4635df5203712ea506e2e3c4ec9b12e7"
        ),
    },
    Vector {
        alice: hex!("ee690a34a779ab48227a2f68b062a80f92e26d82835608dd01b7452f1e4fb296"),
        alice_eph: hex!("2046c6cee085665e9f3abeba41fd38e17a26c08f2f5e8f0e1007afc0bf6a2a5d"),
        bob: hex!("8ef49ea427b13cc31151e1c96ae8a48cb7919063f2d342560fb7eaaffb93d8fe"),
        bob_eph: hex!("9baf8d602e43fbae83fedb7368f98c969d378b8a647318f8cafb265296ae37de"),
        key: hex!(
            "b18e78e5072f301399dc1f4baf2956c0ed2d5f52f19abb1705131b0865b07903"
            "1259ee6c629b4faed528bcfa1c5d2cbc"
        ),
    },
];

#[test]
fn gmsm_shared_key_vectors() {
    for (i, v) in VECTORS.iter().enumerate() {
        let a = SecretKey::from_bytes(&v.alice.into()).unwrap();
        let b = SecretKey::from_bytes(&v.bob.into()).unwrap();
        let alice =
            KeyExchange::new_with_ephemeral(Role::Initiator, &a, b"Alice", &v.alice_eph.into())
                .unwrap();
        let bob = KeyExchange::new_with_ephemeral(Role::Responder, &b, b"Bob", &v.bob_eph.into())
            .unwrap();
        let (ra, rb) = (alice.ephemeral_public(), bob.ephemeral_public());
        let (mut ka, mut kb) = ([0u8; 48], [0u8; 48]);
        alice.finish(&b.public_key(), b"Bob", &rb, &mut ka).unwrap();
        bob.finish(&a.public_key(), b"Alice", &ra, &mut kb).unwrap();
        assert_eq!(ka, v.key, "vector {i}, initiator");
        assert_eq!(kb, v.key, "vector {i}, responder");
    }
}
