//! Low-level entry points: the compression function and the multi-buffer path on a chosen
//! backend (for tests, fuzzing and benches), the compression in steps of four rounds, and
//! HMAC-SM3 keyed once (for protocols that MAC every record or label). Not needed for
//! ordinary hashing.

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
            let k = avx512(backend)?;
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

    /// Whether [`Steps::new`] answers `Some` on `backend` (an available `avx512`).
    pub fn runs_on(backend: Backend) -> bool {
        #[cfg(target_arch = "x86_64")]
        return avx512(backend).is_some();
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = backend;
            false
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

/// The `avx512` kernel's token, if `backend` is that backend and runs here.
#[cfg(target_arch = "x86_64")]
fn avx512(backend: Backend) -> Option<crate::x86::Avx512> {
    crate::x86::Avx512::new(shangmi_dispatch::Available::require(backend).ok()?)
}

impl core::fmt::Debug for Steps<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Steps")
            .field("left", &self.left())
            .finish_non_exhaustive()
    }
}

/// HMAC-SM3 (RFC 2104) keyed once, as SM3's two chaining values after the padded key's
/// inner (ipad) and outer (opad) blocks: a tag then costs the message's blocks and one
/// outer block, with no key block hashed again and no buffer but one block's. The keyed
/// form every HMAC-SM3 of this workspace that runs per message starts from (TLS 1.3's key
/// schedule, TLCP's records, RFC 6979 nonces); general callers want the `hmac` crate over
/// [`crate::Sm3`]. Runs on [`crate::backend()`]; zeroized on drop with the `zeroize`
/// feature.
///
/// ```
/// use hmac::{KeyInit, Mac};
/// use shangmi_sm3::{Sm3, hazmat::KeyedHmac};
/// let keyed = KeyedHmac::new(b"key");
/// let mut reference = hmac::Hmac::<Sm3>::new_from_slice(b"key").unwrap();
/// reference.update(b"a message");
/// let tag: [u8; 32] = reference.finalize().into_bytes().into();
/// assert_eq!(keyed.mac([b"a ".as_slice(), b"message"]), tag);
/// ```
#[derive(Clone)]
pub struct KeyedHmac {
    inner: [u32; 8],
    outer: [u32; 8],
    backend: shangmi_dispatch::Available<Backend>,
}

impl KeyedHmac {
    /// Keyed with `key` (RFC 2104 §2: a key longer than the 64-byte block is hashed first).
    pub fn new(key: &[u8]) -> Self {
        let backend = shangmi_dispatch::Available::best();
        let mut block = [0u8; 64];
        if key.len() > 64 {
            block[..32].copy_from_slice(&<crate::Sm3 as digest::Digest>::digest(key));
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let mut pads = [block.map(|b| b ^ 0x36), block.map(|b| b ^ 0x5c)];
        let (mut inner, mut outer) = (IV, IV);
        engine::compress(backend, &mut inner, &pads[..1]);
        engine::compress(backend, &mut outer, &pads[1..]);
        wipe(&mut block);
        wipe(pads.as_flattened_mut());
        KeyedHmac {
            inner,
            outer,
            backend,
        }
    }

    /// From the two chaining values a caller computed before (a key fixed at build time:
    /// RFC 6979's all-zero K), `inner` after the ipad block and `outer` after the opad block.
    pub fn from_states(inner: [u32; 8], outer: [u32; 8]) -> Self {
        KeyedHmac {
            inner,
            outer,
            backend: shangmi_dispatch::Available::best(),
        }
    }

    /// The backend the compressions run on.
    pub fn backend(&self) -> Backend {
        self.backend.get()
    }

    /// The inner hash's chaining value after the ipad block, for a caller that compresses
    /// the message's blocks itself (with [`Steps`]) and ends with [`KeyedHmac::outer`].
    pub fn inner(&self) -> [u32; 8] {
        self.inner
    }

    /// The tag from the inner hash's final chaining value (after the message and its SM3
    /// padding, which counts the ipad block's 64 bytes): the outer hash's one block.
    pub fn outer(&self, inner: &[u32; 8]) -> [u8; 32] {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&engine::to_bytes(inner));
        block[32] = 0x80;
        block[56..].copy_from_slice(&(8 * (64 + 32) as u64).to_be_bytes());
        let mut out = self.outer;
        engine::compress(self.backend, &mut out, core::slice::from_ref(&block));
        wipe(&mut block);
        engine::to_bytes(&out)
    }

    /// The tag of the concatenation of `parts`.
    pub fn mac<'p>(&self, parts: impl IntoIterator<Item = &'p [u8]>) -> [u8; 32] {
        let mut h = self.inner;
        let mut block = [0u8; 64];
        let (mut fill, mut len) = (0usize, 64u64);
        for mut part in parts {
            len += part.len() as u64;
            if fill > 0 {
                // Top up the buffered block first.
                let take = part.len().min(64 - fill);
                block[fill..fill + take].copy_from_slice(&part[..take]);
                (fill, part) = (fill + take, &part[take..]);
                if fill < 64 {
                    continue;
                }
                engine::compress(self.backend, &mut h, core::slice::from_ref(&block));
            }
            // The part's whole blocks in one call, straight from it; its tail buffered.
            let (whole, rest) = part.as_chunks::<64>();
            if !whole.is_empty() {
                engine::compress(self.backend, &mut h, whole);
            }
            block[..rest.len()].copy_from_slice(rest);
            fill = rest.len();
        }
        // SM3's padding (GB/T 32905-2016 §5.2): 0x80, zeros, the bit length in 64 bits.
        let (tail, end) = engine::pad_tail(&block[..fill], len as usize);
        engine::compress(self.backend, &mut h, engine::as_blocks(&tail[..end]));
        let tag = self.outer(&h);
        wipe(&mut block);
        wipe(&mut h);
        tag
    }
}

impl Drop for KeyedHmac {
    fn drop(&mut self) {
        wipe(&mut self.inner);
        wipe(&mut self.outer);
    }
}

impl core::fmt::Debug for KeyedHmac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyedHmac")
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

/// Zeroizes `v` (with the `zeroize` feature; nothing without it).
#[cfg(feature = "zeroize")]
fn wipe<Z: digest::zeroize::DefaultIsZeroes>(v: &mut [Z]) {
    digest::zeroize::Zeroize::zeroize(v);
}

/// Zeroizes `v` (with the `zeroize` feature; nothing without it).
#[cfg(not(feature = "zeroize"))]
fn wipe<Z>(_: &mut [Z]) {}
