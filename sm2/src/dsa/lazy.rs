//! A 256-bit value a key computes on first use instead of at construction: (1 + d)^-1 of a
//! signing key, Z_A of a key with the default identifier. Key generation then pays for
//! neither (each is a deterministic function of what the key already holds).
//!
//! Safe code only, no_std, and `Sync`: the words are `AtomicU32`s (32-bit atomic loads and
//! stores exist on every target the crate builds for, thumbv7em and riscv32imac included,
//! where 64-bit ones do not). Threads that find the value missing all compute it and all
//! store the same words (Relaxed), then set the flag (Release); a reader that sees the flag
//! (Acquire) sees the words of at least one complete store, and every store writes the same
//! value, so no mix of old and new words can be read. The flag says only whether the key has
//! been used, never anything about the secret.

use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use zeroize::Zeroize;

/// The value as eight 32-bit words.
pub(crate) type Words = [u32; 8];

/// A [`Words`] value filled on first use.
pub(crate) struct Lazy256 {
    words: [AtomicU32; 8],
    ready: AtomicBool,
}

impl Lazy256 {
    /// Not computed yet.
    pub(crate) fn empty() -> Self {
        Lazy256 {
            words: Default::default(),
            ready: AtomicBool::new(false),
        }
    }

    /// Already computed.
    pub(crate) fn with(value: &Words) -> Self {
        let lazy = Self::empty();
        lazy.store(value);
        lazy
    }

    /// The value if it was computed.
    fn get(&self) -> Option<Words> {
        if self.ready.load(Ordering::Acquire) {
            Some(core::array::from_fn(|i| {
                self.words[i].load(Ordering::Relaxed)
            }))
        } else {
            None
        }
    }

    fn store(&self, value: &Words) {
        for (w, v) in self.words.iter().zip(value) {
            w.store(*v, Ordering::Relaxed);
        }
        self.ready.store(true, Ordering::Release);
    }

    /// The value, computed by `init` if this is its first use (`init` must always return the
    /// same value for this cell).
    pub(crate) fn get_or_init(&self, init: impl FnOnce() -> Words) -> Words {
        match self.get() {
            Some(v) => v,
            None => {
                let v = init();
                self.store(&v);
                v
            }
        }
    }
}

impl Clone for Lazy256 {
    fn clone(&self) -> Self {
        match self.get() {
            Some(mut v) => {
                let lazy = Self::with(&v);
                v.zeroize();
                lazy
            }
            None => Self::empty(),
        }
    }
}

impl Zeroize for Lazy256 {
    fn zeroize(&mut self) {
        for w in &mut self.words {
            *w.get_mut() = 0;
        }
        *self.ready.get_mut() = false;
    }
}

/// 32 bytes as words (little-endian within each word; only [`bytes_from_words`] reads them).
pub(crate) fn words_from_bytes(b: &[u8; 32]) -> Words {
    core::array::from_fn(|i| {
        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    })
}

/// The inverse of [`words_from_bytes`].
pub(crate) fn bytes_from_words(w: &Words) -> [u8; 32] {
    core::array::from_fn(|i| w[i / 4].to_le_bytes()[i % 4])
}

/// Four 64-bit limbs as words.
pub(crate) fn words_from_limbs(l: &[u64; 4]) -> Words {
    core::array::from_fn(|i| (l[i / 2] >> (32 * (i % 2))) as u32)
}

/// The inverse of [`words_from_limbs`].
pub(crate) fn limbs_from_words(w: &Words) -> [u64; 4] {
    core::array::from_fn(|i| u64::from(w[2 * i]) | u64::from(w[2 * i + 1]) << 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computed_once_then_read_cloned_and_cleared() {
        let v: Words = core::array::from_fn(|i| 0x0101_0101 * i as u32 + 7);
        let lazy = Lazy256::empty();
        assert_eq!(Lazy256::empty().clone().get(), None);
        assert_eq!(lazy.get_or_init(|| v), v);
        // A second use does not compute again.
        assert_eq!(lazy.get_or_init(|| unreachable!()), v);
        let mut copy = lazy.clone();
        assert_eq!(copy.get(), Some(v));
        copy.zeroize();
        assert_eq!(copy.get(), None);
        assert!(copy.words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
        assert_eq!(lazy.get(), Some(v));
    }

    #[test]
    fn first_uses_from_many_threads_agree() {
        let v: Words = core::array::from_fn(|i| u32::MAX - i as u32);
        let lazy = Lazy256::empty();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| assert_eq!(lazy.get_or_init(|| v), v));
            }
        });
        assert_eq!(lazy.get(), Some(v));
    }

    #[test]
    fn word_conversions_round_trip() {
        let b: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37).wrapping_add(1));
        assert_eq!(bytes_from_words(&words_from_bytes(&b)), b);
        let l = [u64::MAX, 1, 0x0123_4567_89AB_CDEF, 1 << 63];
        assert_eq!(limbs_from_words(&words_from_limbs(&l)), l);
    }
}
