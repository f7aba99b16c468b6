//! SM2 rows in operations per second: key generation (one at a time, and from a key pool that
//! makes 32 with one inversion, its refills included), signatures (the default ID, so each
//! signature also hashes Z_A ‖ M; one-shot deterministic, and from a signing context with
//! precomputed nonces), verification with a reused key (plain, and precomputed with its
//! per-key table), encryption and decryption of 32 bytes (C1C3C2), and ECDH.

use rand::{SeedableRng, rngs::StdRng};
use shangmi_sm2::{
    dsa::{Signature, SigningContext, SigningKey},
    ecdh,
    keys::KeyPool,
    pke::{DecryptingKey, Layout},
    signature::{RandomizedSignerMut, Signer, Verifier},
};

use super::OpRow;

const KEY: [u8; 32] = [0x42; 32];
const PEER: [u8; 32] = [0x24; 32];
const MSG: [u8; 32] = [0x5A; 32];

/// The SM2 rows.
pub fn rows() -> Vec<OpRow> {
    // Repeatable randomness is enough for a speed table.
    let mut rng = StdRng::seed_from_u64(1);
    let key =
        SigningKey::from_bytes(&KEY.into()).unwrap_or_else(|e| panic!("fixed valid key: {e}"));
    let signature: Signature = key.sign(&MSG);
    // The signing context: hedged random nonces precomputed 32 at a time.
    let (mut context, mut context_rng) =
        (SigningContext::new(key.clone()), StdRng::seed_from_u64(3));
    let verifier = key.verifying_key().clone();
    let precomputed = verifier.clone().precomputed();
    let decrypting =
        DecryptingKey::from_bytes(&KEY.into()).unwrap_or_else(|e| panic!("fixed valid key: {e}"));
    let encrypting = decrypting.encrypting_key().clone();
    let ciphertext = encrypting
        .encrypt(&mut rng, &MSG, Layout::C1C3C2)
        .unwrap_or_else(|e| panic!("encryption to a valid key: {e}"));
    let secret = key.secret_key();
    let peer_key =
        SigningKey::from_bytes(&PEER.into()).unwrap_or_else(|e| panic!("fixed valid key: {e}"));
    let peer = *peer_key.verifying_key().public_key();
    let (mut keygen_rng, mut encrypt_rng) = (StdRng::seed_from_u64(2), rng);
    let (mut pool, mut pool_rng) = (KeyPool::new(), StdRng::seed_from_u64(4));
    vec![
        OpRow::new("sm2-keygen", move || {
            std::hint::black_box(SigningKey::random(&mut keygen_rng).ok());
        }),
        OpRow::new("sm2-keygen-pool", move || {
            std::hint::black_box(pool.take_signing_key(&mut pool_rng).ok());
        }),
        OpRow::new("sm2-sign", move || {
            std::hint::black_box::<Signature>(key.sign(&MSG));
        }),
        OpRow::new("sm2-sign-context", move || {
            std::hint::black_box::<Signature>(context.sign_with_rng(&mut context_rng, &MSG));
        }),
        OpRow::new("sm2-verify", move || {
            let ok = verifier.verify(&MSG, &signature).is_ok();
            assert!(ok, "our own signature verifies");
        }),
        OpRow::new("sm2-verify-precomp", move || {
            let ok = precomputed.verify(&MSG, &signature).is_ok();
            assert!(ok, "our own signature verifies");
        }),
        OpRow::new("sm2-encrypt-32", move || {
            std::hint::black_box(
                encrypting
                    .encrypt(&mut encrypt_rng, &MSG, Layout::C1C3C2)
                    .ok(),
            );
        }),
        OpRow::new("sm2-decrypt-32", move || {
            let plain = decrypting.decrypt(&ciphertext, Layout::C1C3C2);
            assert!(
                plain.as_deref() == Ok(&MSG[..]),
                "our own ciphertext decrypts"
            );
        }),
        OpRow::new("sm2-ecdh", move || {
            std::hint::black_box(ecdh::diffie_hellman(&secret, &peer));
        }),
    ]
}
