//! Differential tests against OpenSSL's SM3 (the `openssl` crate; linked on the x86-64
//! development host only): random messages, the empty message and one million 'a', on
//! every engine.
#![cfg(target_arch = "x86_64")]
// Test code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

use openssl::hash::{MessageDigest, hash};
use proptest::prelude::*;
use shangmi_sm3::{Backend, Digest, Sm3};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random messages of 0..3000 bytes hash alike on every engine and in OpenSSL.
    #[test]
    fn diff_openssl_any_message(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let theirs = hash(MessageDigest::sm3(), &data).unwrap();
        for b in Backend::available() {
            let ours = Sm3::with_backend(b).unwrap().chain_update(&data).finalize();
            prop_assert_eq!(&ours[..], &theirs[..], "engine {}", b);
        }
    }
}

/// The empty message (the standard has no vector for it).
#[test]
fn diff_openssl_empty_message() {
    assert_eq!(
        Sm3::digest(b"")[..],
        hash(MessageDigest::sm3(), b"").unwrap()[..]
    );
}

/// One million 'a' (the long-message form of the FIPS 180 / NESSIE test sets), streamed in
/// uneven pieces and in one call.
#[test]
fn diff_openssl_million_a() {
    let msg = vec![b'a'; 1_000_000];
    let expected = hash(MessageDigest::sm3(), &msg).unwrap();
    for b in Backend::available() {
        let one_call = Sm3::with_backend(b).unwrap().chain_update(&msg).finalize();
        assert_eq!(one_call[..], expected[..], "engine {b}");
        let mut h = Sm3::with_backend(b).unwrap();
        for piece in msg.chunks(999) {
            h.update(piece);
        }
        assert_eq!(h.finalize()[..], expected[..], "engine {b}, streamed");
    }
}
