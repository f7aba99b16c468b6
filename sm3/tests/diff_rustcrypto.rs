//! Differential tests against RustCrypto's independent `sm3` crate (0.5): digests of
//! random messages on every engine, the empty message, and the serialized state layout.

// Test code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

use digest::common::hazmat::SerializableState;
use proptest::prelude::*;
use shangmi_sm3::{Backend, Digest, Sm3};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random messages of 0..3000 bytes hash alike on every engine and in RustCrypto.
    #[test]
    fn diff_rustcrypto_any_message(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let theirs = rustcrypto_sm3::Sm3::digest(&data);
        for b in Backend::available() {
            let ours = Sm3::with_backend(b).unwrap().chain_update(&data).finalize();
            prop_assert_eq!(&ours[..], &theirs[..], "engine {}", b);
        }
    }
}

/// The empty message (the standard has no vector for it).
#[test]
fn diff_rustcrypto_empty_message() {
    assert_eq!(Sm3::digest(b"")[..], rustcrypto_sm3::Sm3::digest(b"")[..]);
}

/// The serialized mid-stream state has RustCrypto's layout and resumes to the same digest.
#[test]
fn diff_rustcrypto_serialized_state() {
    let mut h = Sm3::new();
    h.update([0x5a; 200]);
    let state = h.serialize();
    let mut peer = rustcrypto_sm3::Sm3::new();
    peer.update([0x5a; 200]);
    assert_eq!(
        state[..],
        peer.serialize()[..],
        "same layout as RustCrypto sm3 0.5"
    );
    let mut back = Sm3::deserialize(&state).unwrap();
    back.update(b"tail");
    h.update(b"tail");
    assert_eq!(back.finalize(), h.finalize());
}
