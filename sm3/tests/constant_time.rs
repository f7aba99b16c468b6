//! Constant-time check under valgrind's memcheck (the ctgrind technique, Adam Langley,
//! 2010), with the harness shared by the crates (`testsupport/memcheck.rs`): messages and
//! HMAC keys are marked *undefined*, so memcheck reports every branch and every memory
//! address that depends on them. Lengths are public, as in every SM3 implementation.
//!
//! The test re-runs this test binary under valgrind with `SHANGMI_CT_MODE` set: `all`
//! hashes secret messages on every engine available there (valgrind emulates AVX2 but not
//! AVX-512, so `soft` and `avx2`), HMAC-SM3 with a secret key, and the multi-buffer path
//! (AVX2 lanes there); `leaky` is a table lookup indexed by a secret byte that memcheck must
//! report (the negative control). Needs `valgrind` on PATH (CI installs it); without it the
//! test fails when `CI` is set and is skipped otherwise.

#![cfg(target_arch = "x86_64")] // valgrind's client request is the amd64 form

#[path = "support/memcheck.rs"]
mod memcheck;

use hmac::{Hmac, KeyInit, Mac};
use shangmi_sm3::{Backend, Digest, Sm3};

/// Secret messages of lengths around the block and padding boundaries, on `backend`.
fn exercise(backend: Backend) {
    let mut msg = [0xa5u8; 300];
    memcheck::secret(&mut msg);
    let mut out = [[0u8; 32]; 8];
    for (o, len) in out.iter_mut().zip([0usize, 1, 55, 56, 64, 119, 128, 300]) {
        let Ok(mut h) = Sm3::with_backend(backend) else {
            return;
        };
        h.update(&msg[..len]);
        *o = h.finalize().into();
    }
    memcheck::public(&mut out);
}

/// HMAC-SM3 under a secret key, and the multi-buffer hash of secret messages.
fn exercise_mac_and_lanes() {
    let mut key = [0x3cu8; 40];
    let mut msg = [0x5au8; 200];
    memcheck::secret(&mut key);
    memcheck::secret(&mut msg);
    let mut tag: [u8; 32] = match Hmac::<Sm3>::new_from_slice(&key) {
        Ok(mut mac) => {
            mac.update(&msg[..77]);
            mac.finalize().into_bytes().into()
        }
        Err(_) => [0; 32],
    };
    let msgs: [&[u8]; 9] = core::array::from_fn(|i| &msg[..i * 21]);
    let mut many = Sm3::digest_many(&msgs);
    memcheck::public(&mut tag);
    memcheck::public(&mut many);
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    if memcheck::child_engines(Backend::available(), exercise) {
        exercise_mac_and_lanes();
        println!("checked HMAC and {} lanes", Backend::best().lanes());
    }
}

#[test]
fn engines_are_constant_time_under_memcheck() {
    if !memcheck::is_parent() {
        return;
    }
    let mut lines = vec!["checking soft".to_string(), "checked HMAC".to_string()];
    if Backend::Avx2.is_available() {
        lines.push("checking avx2".into());
    }
    memcheck::check("memcheck_child", "all", &lines);
}
