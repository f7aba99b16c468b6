//! SM9 rows in operations per second, on the table's SM9 field backend (set process-wide by
//! the speed command): a signature and its verification by identity (a reused master
//! public key, whose pairing value and prepared lines are computed once), and encryption
//! and decryption of 32 bytes (KDF/XOR mode) to an identity.

use rand::{SeedableRng, rngs::StdRng};
use shangmi_sm9::signature::Verifier;
use shangmi_sm9::{EncryptMasterKey, SignMasterKey};

use super::OpRow;

const MASTER: [u8; 32] = [0x42; 32];
const MSG: [u8; 32] = [0x5A; 32];

/// The SM9 rows.
pub fn rows() -> Vec<OpRow> {
    // Repeatable randomness is enough for a speed table.
    let mut rng = StdRng::seed_from_u64(9);
    let kgc = SignMasterKey::from_bytes(&MASTER).unwrap_or_else(|e| panic!("fixed key: {e}"));
    let alice = kgc
        .extract(b"Alice")
        .unwrap_or_else(|e| panic!("extraction: {e}"));
    let signature = alice
        .sign_with_rng(&mut rng, &MSG)
        .unwrap_or_else(|e| panic!("signing: {e}"));
    let master_public = kgc.public_key().clone();
    let kgce = EncryptMasterKey::from_bytes(&MASTER).unwrap_or_else(|e| panic!("fixed key: {e}"));
    let bob = kgce
        .extract(b"Bob")
        .unwrap_or_else(|e| panic!("extraction: {e}"));
    let encrypting = kgce.public_key().clone();
    let ciphertext = encrypting
        .encrypt(&mut rng, b"Bob", &MSG)
        .unwrap_or_else(|e| panic!("encryption: {e}"));
    let (mut sign_rng, mut encrypt_rng) = (StdRng::seed_from_u64(10), rng);
    vec![
        OpRow::new("sm9-sign", move || {
            std::hint::black_box(alice.sign_with_rng(&mut sign_rng, &MSG).ok());
        }),
        OpRow::new("sm9-verify", move || {
            let ok = master_public
                .verifying_key(b"Alice")
                .verify(&MSG, &signature)
                .is_ok();
            assert!(ok, "our own signature verifies");
        }),
        OpRow::new("sm9-encrypt-32", move || {
            std::hint::black_box(encrypting.encrypt(&mut encrypt_rng, b"Bob", &MSG).ok());
        }),
        OpRow::new("sm9-decrypt-32", move || {
            let plain = bob.decrypt(b"Bob", &ciphertext);
            assert!(
                plain.as_deref() == Ok(&MSG[..]),
                "our own ciphertext decrypts"
            );
        }),
    ]
}
