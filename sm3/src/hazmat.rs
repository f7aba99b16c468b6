//! Low-level entry points: the compression function and the multi-buffer path on a chosen
//! backend (for tests, fuzzing and benches), the compression with another kernel's steps
//! between its rounds, and HMAC-SM3 keyed once (for protocols that MAC every record or
//! label). Not needed for ordinary hashing.

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

/// Work run between the compression's groups of four rounds (hazmat: for a record layer
/// that encrypts what it MACs, such as TLCP's MAC-then-encrypt CBC suites).
///
/// On the `avx512` backend (x86-64) [`compress_hooked`] steps the hook after every group
/// of four rounds, sixteen times a block, inside the kernel's entry (which enables
/// AVX-512F/VL, AVX2, BMI1 and BMI2), so that the step's instructions share the
/// out-of-order window with the rounds': SM3's rounds keep the general-purpose ALUs busy
/// and leave the vector units idle, where a serial SM4-CBC chain waits on them. What a step
/// changes is [`RoundsHook::State`], which the kernel copies into a variable of its own for
/// the call (so that it can live in registers) and hands to every step; the hook itself
/// stays where the caller has it. There the step should be `#[inline(always)]`, use vector
/// registers and few general ones, and call nothing, or the rounds' state (eight words in
/// fixed registers) is spilled around it. On every other backend the hook is not stepped
/// at all: the caller does its work after the call (the number of steps is a matter of
/// speed, never of the result).
pub trait RoundsHook {
    /// What a step changes.
    type State: Copy;
    /// One step of the hook's work.
    fn step(&mut self, state: &mut Self::State);
}

/// No work.
impl RoundsHook for () {
    type State = ();
    #[inline(always)]
    fn step(&mut self, _: &mut ()) {}
}

/// [`compress`] with `hook` stepped after every group of four rounds where the backend does
/// that (see [`RoundsHook`]), on `at`, the hook's state.
///
/// ```
/// use shangmi_sm3::{Backend, hazmat::{self, RoundsHook}};
///
/// /// Counts its steps.
/// struct Count;
/// impl RoundsHook for Count {
///     type State = usize;
///     fn step(&mut self, n: &mut usize) {
///         *n += 1;
///     }
/// }
///
/// let blocks = [[0x61u8; 64]; 3];
/// let (mut want, mut got, mut steps) = (hazmat::IV, hazmat::IV, 0);
/// hazmat::compress(Backend::Soft, &mut want, &blocks).expect("soft");
/// hazmat::compress_hooked(Backend::best(), &mut got, &blocks, &mut Count, &mut steps)
///     .expect("the best backend runs here");
/// assert_eq!(got, want);
/// let stepped = hazmat::hooks_step_on(Backend::best());
/// assert_eq!(steps, if stepped { 16 * blocks.len() } else { 0 });
/// ```
pub fn compress_hooked<H: RoundsHook>(
    backend: Backend,
    state: &mut [u32; 8],
    blocks: &[[u8; 64]],
    hook: &mut H,
    at: &mut H::State,
) -> Result<(), BackendError> {
    let backend = shangmi_dispatch::Available::require(backend)?;
    compress_hooked_on(backend, state, blocks, hook, at);
    Ok(())
}

/// Whether [`compress_hooked`] steps its hook on `backend` (an available `avx512`).
pub fn hooks_step_on(backend: Backend) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let Ok(available) = shangmi_dispatch::Available::require(backend) {
        return crate::x86::Avx512::new(available).is_some();
    }
    let _ = backend;
    false
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
    /// the message's blocks itself (with [`compress`]) and ends with [`KeyedHmac::outer`].
    pub fn inner(&self) -> [u32; 8] {
        self.inner
    }

    /// The tag from the inner hash's final chaining value (after the message and its SM3
    /// padding, which counts the ipad block's 64 bytes): the outer hash's one block.
    pub fn outer(&self, inner: &[u32; 8]) -> [u8; 32] {
        self.outer_with(inner, |out, block| {
            engine::compress(self.backend, out, block)
        })
    }

    /// The outer hash's one block (the inner hash, 0x80, zeros, the bit length of opad
    /// block and inner hash) compressed by `compress` from the opad state; the tag.
    fn outer_with(
        &self,
        inner: &[u32; 8],
        compress: impl FnOnce(&mut [u32; 8], &[[u8; 64]]),
    ) -> [u8; 32] {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&engine::to_bytes(inner));
        block[32] = 0x80;
        block[56..].copy_from_slice(&(8 * (64 + 32) as u64).to_be_bytes());
        let mut out = self.outer;
        compress(&mut out, core::slice::from_ref(&block));
        wipe(&mut block);
        engine::to_bytes(&out)
    }

    /// The tag of a message whose inner-hash blocks the caller laid out: `padded` is the
    /// message after the key's block with SM3's padding (GB/T 32905-2016 §5.2: 0x80, zeros,
    /// the length in bits counting the key block's 64 bytes), whole blocks. Both the inner
    /// blocks and the outer block are compressed by [`compress_hooked`] with `hook` on
    /// `at`.
    ///
    /// ```
    /// use shangmi_sm3::hazmat::KeyedHmac;
    /// let keyed = KeyedHmac::new(b"key");
    /// let mut padded = [0u8; 64];
    /// padded[..3].copy_from_slice(b"abc");
    /// padded[3] = 0x80;
    /// padded[56..].copy_from_slice(&(8 * (64 + 3) as u64).to_be_bytes());
    /// let tag = keyed.tag_hooked(&[padded], &mut (), &mut ());
    /// assert_eq!(tag, keyed.mac([b"abc".as_slice()]));
    /// ```
    pub fn tag_hooked<H: RoundsHook>(
        &self,
        padded: &[[u8; 64]],
        hook: &mut H,
        at: &mut H::State,
    ) -> [u8; 32] {
        let mut h = self.inner;
        compress_hooked_on(self.backend, &mut h, padded, hook, at);
        let tag = self.outer_with(&h, |out, block| {
            compress_hooked_on(self.backend, out, block, hook, at)
        });
        wipe(&mut h);
        tag
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

/// [`compress_hooked`] on a backend already proven available.
fn compress_hooked_on<H: RoundsHook>(
    backend: shangmi_dispatch::Available<Backend>,
    state: &mut [u32; 8],
    blocks: &[[u8; 64]],
    hook: &mut H,
    at: &mut H::State,
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = crate::x86::Avx512::new(backend) {
        return k.compress_hooked(state, blocks, hook, at);
    }
    let _ = (hook, at);
    engine::compress(backend, state, blocks);
}

/// Zeroizes `v` (with the `zeroize` feature; nothing without it).
#[cfg(feature = "zeroize")]
fn wipe<Z: digest::zeroize::DefaultIsZeroes>(v: &mut [Z]) {
    digest::zeroize::Zeroize::zeroize(v);
}

/// Zeroizes `v` (with the `zeroize` feature; nothing without it).
#[cfg(not(feature = "zeroize"))]
fn wipe<Z>(_: &mut [Z]) {}
