//! The concurrency check every device key passes alike, for the test-device tests of the
//! device crates (sdf, skf): linked into each as `tests/support/device_threads.rs`, a
//! symlink to this file.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use shangmi_sm2::PrivateKeyOps;
use shangmi_sm2::dsa::VerifyingKey;
use std::sync::Arc;

/// `threads` threads sign `per_thread` messages each with one shared `key` at once; every
/// signature must verify under the key's public key with the default identifier.
pub fn signs_from_threads<K>(key: &Arc<K>, threads: u8, per_thread: u8)
where
    K: PrivateKeyOps + Send + Sync + 'static,
{
    let vk = VerifyingKey::new(&key.public_key());
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let key = key.clone();
            std::thread::spawn(move || {
                (0..per_thread)
                    .map(|i| ([t, i], key.sign(&[t, i]).unwrap()))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        for (msg, sig) in h.join().unwrap() {
            vk.verify_e(&vk.hash_message(&msg), &sig).unwrap();
        }
    }
}
