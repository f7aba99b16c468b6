//! What the test devices share, included by each (`#[path = "../../common.rs"] mod common;`):
//! the seeded key derivation, the library state behind one lock, and random bytes.

use shangmi_sm2::SecretKey;
use std::sync::{Mutex, PoisonError};

/// The first valid SM2 secret of SM3(seed ‖ `parts` ‖ counter) for counter = 0, 1, … 15,
/// where the seed is the environment variable `seed_var`, or `default` without it: the same
/// keys in every process run with one seed. `None` only if sixteen hashes in a row are not
/// valid scalars (about 2^-2048).
pub fn derive(seed_var: &str, default: &str, parts: &[&[u8]]) -> Option<SecretKey> {
    let seed = seed(seed_var, default);
    (0u32..16).find_map(|counter| {
        use shangmi_sm3::Digest;
        let mut h = shangmi_sm3::Sm3::new();
        h.update(seed.as_bytes());
        for part in parts {
            h.update(part);
        }
        h.update(counter.to_be_bytes());
        SecretKey::from_bytes(&h.finalize()).ok()
    })
}

/// The seed: the environment variable `var`, or `default` without it.
pub fn seed(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.into())
}

/// Runs `f` on the library's state, made on first use; a lock poisoned by a panicking
/// caller is taken over (a test device must keep answering).
pub fn with_state<S: Default, T>(state: &Mutex<Option<S>>, f: impl FnOnce(&mut S) -> T) -> T {
    let mut g = state.lock().unwrap_or_else(PoisonError::into_inner);
    f(g.get_or_insert_with(S::default))
}

/// Fills the `len` bytes at `buf` from the operating system's generator (each device's
/// random function); false if that fails.
///
/// # Safety
/// `buf` is non-null and writable for `len` bytes.
pub unsafe fn os_random(buf: *mut u8, len: usize) -> bool {
    // SAFETY: writable for `len` bytes by the caller's contract.
    let out = unsafe { core::slice::from_raw_parts_mut(buf, len) };
    getrandom::fill(out).is_ok()
}
