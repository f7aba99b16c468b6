//! Low-level entry points for tests, fuzzing and benches: the compression function and the
//! multi-buffer path on a chosen backend. Not needed for ordinary hashing.

use crate::{Backend, BackendError, engine, multi};

/// The SM3 initial chaining value (GB/T 32905-2016, 4.1).
pub const IV: [u32; 8] = crate::consts::IV;

/// Runs the compression function CF over `blocks` on `backend`, updating `state`.
///
/// ```
/// use shangmi_sm3::{Backend, hazmat};
/// let mut s = hazmat::IV;
/// hazmat::compress(Backend::Soft, &mut s, &[[0u8; 64]; 2]).expect("soft is always available");
/// ```
pub fn compress(
    backend: Backend,
    state: &mut [u32; 8],
    blocks: &[[u8; 64]],
) -> Result<(), BackendError> {
    let backend = shangmi_dispatch::Available::require(backend)?;
    engine::compress(backend, state, blocks);
    Ok(())
}

/// [`crate::Sm3::digest_many_into`] on a chosen backend.
///
/// ```
/// use shangmi_sm3::{Backend, Digest, Sm3, hazmat};
/// let mut out = [[0u8; 32]; 2];
/// hazmat::digest_many_with(Backend::Soft, &[b"abc", b"de"], &mut out).unwrap();
/// assert_eq!(out[0], <[u8; 32]>::from(Sm3::digest(b"abc")));
/// ```
pub fn digest_many_with(
    backend: Backend,
    msgs: &[&[u8]],
    out: &mut [[u8; 32]],
) -> Result<(), BackendError> {
    let backend = shangmi_dispatch::Available::require(backend)?;
    multi::digest_many(backend, msgs, out);
    Ok(())
}

/// The compression function CF in steps of four rounds, for another kernel to run between
/// its own rounds (a MAC-then-encrypt record layer runs HMAC-SM3 of the plaintext between
/// the rounds of SM4-CBC over the same plaintext: the scalar SM3 rounds and the vector SM4
/// rounds then share the out-of-order core instead of taking turns).
///
/// Only the `avx512` backend (x86-64) has it: [`Steps::new`] answers `None` on every other
/// backend and target, and the caller hashes as usual. [`Steps::step`] is
/// `#[inline(always)]` and free of calls: inlined into a loop that enables AVX-512F/VL, its
/// message expansion inlines too. The state between steps is this value's (zeroized on drop
/// with the `zeroize` feature).
///
/// ```
/// use shangmi_sm3::{Backend, hazmat};
/// let blocks = [[0x61u8; 64]; 3];
/// let mut want = hazmat::IV;
/// hazmat::compress(Backend::Soft, &mut want, &blocks).expect("soft");
/// if let Some(mut steps) = hazmat::Steps::new(Backend::best(), hazmat::IV, &blocks) {
///     assert_eq!(steps.left(), 48);
///     for _ in 0..20 {
///         assert!(steps.step());
///     }
///     assert_eq!(steps.finish(), want);
/// }
/// ```
pub struct Steps<'a> {
    #[cfg(target_arch = "x86_64")]
    inner: crate::x86::Steps<'a>,
    #[cfg(not(target_arch = "x86_64"))]
    inner: (core::convert::Infallible, core::marker::PhantomData<&'a ()>),
}

impl<'a> Steps<'a> {
    /// Steps over `blocks` from the chaining value `state` on `backend`: `Some` only for an
    /// available `avx512` backend.
    pub fn new(backend: Backend, state: [u32; 8], blocks: &'a [[u8; 64]]) -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            let k = crate::x86::Avx512::new(shangmi_dispatch::Available::require(backend).ok()?)?;
            Some(Steps {
                inner: crate::x86::Steps::new(k, state, blocks),
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (backend, state, blocks);
            None
        }
    }

    /// Groups of four rounds still to run (16 a block).
    #[inline(always)]
    pub fn left(&self) -> usize {
        #[cfg(target_arch = "x86_64")]
        return self.inner.left();
        #[cfg(not(target_arch = "x86_64"))]
        match self.inner.0 {}
    }

    /// Runs the next four rounds (and the feed-forward after a block's last four); false
    /// when nothing is left.
    #[inline(always)]
    pub fn step(&mut self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.inner.step();
        #[cfg(not(target_arch = "x86_64"))]
        match self.inner.0 {}
    }

    /// Runs what is left and returns the chaining value after the last block.
    pub fn finish(self) -> [u32; 8] {
        #[cfg(target_arch = "x86_64")]
        return self.inner.finish();
        #[cfg(not(target_arch = "x86_64"))]
        match self.inner.0 {}
    }
}

impl core::fmt::Debug for Steps<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Steps")
            .field("left", &self.left())
            .finish_non_exhaustive()
    }
}
