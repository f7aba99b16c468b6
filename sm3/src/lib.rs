#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use digest::{self, Digest};

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod consts;
mod engine;
pub mod hazmat;
pub mod kdf;
mod multi;
#[cfg(all(
    any(target_arch = "riscv32", target_arch = "riscv64"),
    target_feature = "zksh"
))]
mod riscv;
#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
mod riscv_zvksh;
mod rounds;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86;

use shangmi_dispatch::Available;
pub use shangmi_dispatch::sm3::{Backend, BackendError};

use core::fmt;
use digest::{
    HashMarker, Output,
    array::Array,
    block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, CoreProxy, Eager,
        FixedOutputCore, OutputSizeUser, Reset, UpdateCore,
    },
    common::hazmat::{DeserializeStateError, SerializableState, SerializedState},
    typenum::{U32, U40, U64},
};

/// The backend [`Sm3`] uses on this machine (its `Display` is the name, e.g. `avx512`,
/// `avx2`, `soft`), for benches, speed tables and bug reports.
///
/// ```
/// println!("SM3 backend: {}", shangmi_sm3::backend());
/// ```
pub fn backend() -> Backend {
    Backend::best()
}

/// The block-level SM3 state: chaining value, block count and the backend it runs on.
///
/// Most users want [`Sm3`], which adds the input buffer.
#[derive(Clone)]
pub struct Sm3Core {
    h: [u32; 8],
    block_len: u64,
    backend: Available<Backend>,
}

impl Sm3Core {
    /// A fresh state that runs on `backend`.
    pub fn with_backend(backend: Backend) -> Result<Self, BackendError> {
        let backend = Available::require(backend)?;
        Ok(Self {
            h: consts::IV,
            block_len: 0,
            backend,
        })
    }

    /// The backend this state runs on.
    pub fn backend(&self) -> Backend {
        self.backend.get()
    }
}

impl HashMarker for Sm3Core {}

impl BlockSizeUser for Sm3Core {
    type BlockSize = U64;
}

impl BufferKindUser for Sm3Core {
    type BufferKind = Eager;
}

impl OutputSizeUser for Sm3Core {
    type OutputSize = U32;
}

impl UpdateCore for Sm3Core {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        self.block_len = self.block_len.wrapping_add(blocks.len() as u64);
        engine::compress(self.backend, &mut self.h, Array::cast_slice_to_core(blocks));
    }
}

impl FixedOutputCore for Sm3Core {
    #[inline]
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        let bit_len = self
            .block_len
            .wrapping_mul(512)
            .wrapping_add(8 * buffer.get_pos() as u64);
        let mut h = self.h;
        let backend = self.backend;
        buffer.len64_padding_be(bit_len, |b| {
            engine::compress(backend, &mut h, core::slice::from_ref(&b.0))
        });
        for (chunk, v) in out.chunks_exact_mut(4).zip(h) {
            chunk.copy_from_slice(&v.to_be_bytes());
        }
    }
}

impl Default for Sm3Core {
    #[inline]
    fn default() -> Self {
        Self {
            h: consts::IV,
            block_len: 0,
            backend: Available::best(),
        }
    }
}

impl Reset for Sm3Core {
    #[inline]
    fn reset(&mut self) {
        self.h = consts::IV;
        self.block_len = 0;
    }
}

impl AlgorithmName for Sm3Core {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sm3")
    }
}

impl fmt::Debug for Sm3Core {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sm3Core")
            .field("backend", &self.backend.get().name())
            .finish_non_exhaustive()
    }
}

impl Drop for Sm3Core {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        {
            use digest::zeroize::Zeroize;
            self.h.zeroize();
            self.block_len.zeroize();
        }
    }
}

#[cfg(feature = "zeroize")]
impl digest::zeroize::ZeroizeOnDrop for Sm3Core {}

/// The serialized state is the eight chaining words (little-endian) followed by the block
/// count (little-endian u64), the layout RustCrypto `sm3` 0.5 uses. The backend is not
/// part of it: a deserialized state runs on the best backend here.
impl SerializableState for Sm3Core {
    type SerializedStateSize = U40;

    fn serialize(&self) -> SerializedState<Self> {
        let mut out = SerializedState::<Self>::default();
        for (chunk, v) in out.chunks_exact_mut(4).zip(self.h) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out[32..].copy_from_slice(&self.block_len.to_le_bytes());
        out
    }

    fn deserialize(
        serialized_state: &SerializedState<Self>,
    ) -> Result<Self, DeserializeStateError> {
        let mut h = [0u32; 8];
        for (v, chunk) in h.iter_mut().zip(serialized_state.chunks_exact(4)) {
            *v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let mut len = [0u8; 8];
        len.copy_from_slice(&serialized_state[32..]);
        Ok(Self {
            h,
            block_len: u64::from_le_bytes(len),
            backend: Available::best(),
        })
    }
}

digest::buffer_fixed!(
    /// The SM3 hasher (GB/T 32905-2016): 64-byte blocks, 32-byte digest.
    ///
    /// ```
    /// use shangmi_sm3::{Digest, Sm3};
    /// let mut h = Sm3::new();
    /// h.update(b"hello ");
    /// h.update(b"world");
    /// let d = h.finalize();
    /// assert_eq!(d, Sm3::digest(b"hello world"));
    /// ```
    ///
    /// With HMAC (`hmac` 0.13):
    ///
    /// ```
    /// use hmac::{Hmac, KeyInit, Mac};
    /// let mut mac = Hmac::<shangmi_sm3::Sm3>::new_from_slice(b"key").expect("any key size");
    /// mac.update(b"message");
    /// let tag = mac.finalize().into_bytes();
    /// assert_eq!(tag.len(), 32);
    /// ```
    pub struct Sm3(Sm3Core);
    // The GM/T OID; ISO also assigned 1.0.10118.3.0.65.
    oid: "1.2.156.10197.1.401";
    impl: FixedHashTraits;
);

impl Sm3 {
    /// A hasher that runs on `backend` instead of the best one (for tests, benches and
    /// comparing backends).
    ///
    /// ```
    /// use shangmi_sm3::{Backend, Digest, Sm3};
    /// let mut h = Sm3::with_backend(Backend::Soft).expect("soft is always available");
    /// h.update(b"abc");
    /// assert_eq!(h.finalize(), Sm3::digest(b"abc"));
    /// ```
    pub fn with_backend(backend: Backend) -> Result<Self, BackendError> {
        Ok(Self::compose(
            Sm3Core::with_backend(backend)?,
            Buffer::<Sm3Core>::default(),
        ))
    }

    /// The backend this hasher runs on.
    pub fn backend(&self) -> Backend {
        self.core.backend.get()
    }

    /// Hashes `N` independent messages at once (in SIMD lanes where the CPU allows) and
    /// returns their digests in order. Messages may have any lengths.
    ///
    /// ```
    /// use shangmi_sm3::{Digest, Sm3};
    /// let msgs: [&[u8]; 3] = [b"abc", b"", &[7u8; 1000]];
    /// let digests = Sm3::digest_many(&msgs);
    /// for (m, d) in msgs.iter().zip(digests) {
    ///     assert_eq!(d, <[u8; 32]>::from(Sm3::digest(m)));
    /// }
    /// ```
    pub fn digest_many<const N: usize>(msgs: &[&[u8]; N]) -> [[u8; 32]; N] {
        let mut out = [[0u8; 32]; N];
        multi::digest_many(Available::best(), msgs, &mut out);
        out
    }

    /// Hashes every message of `msgs` into the same index of `out`, as many at a time as
    /// the backend has lanes. Only the first `min(msgs.len(), out.len())` are hashed.
    ///
    /// ```
    /// use shangmi_sm3::Sm3;
    /// let msgs: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; i * 13]).collect();
    /// let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    /// let mut out = vec![[0u8; 32]; refs.len()];
    /// Sm3::digest_many_into(&refs, &mut out);
    /// ```
    pub fn digest_many_into(msgs: &[&[u8]], out: &mut [[u8; 32]]) {
        multi::digest_many(Available::best(), msgs, out);
    }
}
