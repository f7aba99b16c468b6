//! The AEAD glue of SM4-GCM, SM4-CCM and SM4-GCM-SIV, written once: one generic type over
//! the mode, its nonce size and its tag size, with the `aead` 0.6 traits implemented for
//! every mode that says which sizes it allows.

use core::marker::PhantomData;

use aead::{
    AeadCore, AeadInOut, Error, Nonce, Tag, TagPosition,
    array::{Array, ArraySize},
    inout::InOutBuf,
};
use cipher::{Key, KeyInit, KeySizeUser};
use shangmi_dispatch::Available;
use shangmi_sm4::{Backend, BackendError, Sm4};

use crate::ghash::GhashBackend;

/// An AEAD mode over SM4 with nonce size `N` and tag size `T` (sealed; implemented by
/// [`Gcm`], [`Ccm`] and [`GcmSiv`] for the sizes each allows).
pub trait Mode<N, T>: sealed::Sealed + Sized {
    /// What the mode precomputes from the cipher (GCM's hash key).
    #[doc(hidden)]
    type Key: Clone;
    /// The mode's name, for `Debug`.
    #[doc(hidden)]
    const NAME: &'static str;
    /// The precomputation for `cipher`, hashing on `ghash` where the mode hashes.
    #[doc(hidden)]
    fn key(cipher: &Sm4, ghash: Available<GhashBackend>) -> Self::Key;
    /// Encrypts `buf` and returns the (untruncated) tag.
    #[doc(hidden)]
    fn seal(
        cipher: &Sm4,
        key: &Self::Key,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<[u8; 16]>;
    /// Decrypts `buf` if `tag` (already truncated to `T`) verifies; otherwise leaves the
    /// output holding the ciphertext and fails.
    #[doc(hidden)]
    fn open(
        cipher: &Sm4,
        key: &Self::Key,
        nonce: &[u8],
        aad: &[u8],
        buf: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> aead::Result<()>;
}

/// Galois/Counter Mode (NIST SP 800-38D); see [`Sm4Gcm`](crate::Sm4Gcm).
#[derive(Clone, Copy, Debug)]
pub struct Gcm;
/// Counter with CBC-MAC (NIST SP 800-38C); see [`Sm4Ccm`](crate::Sm4Ccm).
#[derive(Clone, Copy, Debug)]
pub struct Ccm;
/// GCM-SIV (RFC 8452), nonce-misuse resistant; see [`Sm4GcmSiv`](crate::Sm4GcmSiv).
#[derive(Clone, Copy, Debug)]
pub struct GcmSiv;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Gcm {}
    impl Sealed for super::Ccm {}
    impl Sealed for super::GcmSiv {}
}

/// SM4 in the AEAD mode `M` with nonce size `N` and tag size `T`; use the aliases
/// [`Sm4GcmCustom`](crate::Sm4GcmCustom), [`Sm4CcmCustom`](crate::Sm4CcmCustom),
/// [`Sm4Gcm`](crate::Sm4Gcm), [`Sm4Ccm`](crate::Sm4Ccm) and [`Sm4GcmSiv`](crate::Sm4GcmSiv).
pub struct Sm4Aead<M: Mode<N, T>, N, T> {
    cipher: Sm4,
    key: M::Key,
    sizes: PhantomData<(N, T)>,
}

impl<M: Mode<N, T>, N, T> Clone for Sm4Aead<M, N, T> {
    fn clone(&self) -> Self {
        Sm4Aead {
            cipher: self.cipher.clone(),
            key: self.key.clone(),
            sizes: PhantomData,
        }
    }
}

impl<M: Mode<N, T>, N, T> Sm4Aead<M, N, T> {
    /// The AEAD over a prepared cipher, e.g. one from [`Sm4::with_backend`].
    pub fn from_cipher(cipher: Sm4) -> Self {
        Self::from_parts(cipher, Available::best())
    }

    /// The AEAD for `key` on the SM4 engine `backend` (for tests, benchmarks and bug
    /// reports).
    ///
    /// # Errors
    /// [`BackendError`] if this CPU cannot run `backend`.
    pub fn with_backend(key: &Key<Sm4>, backend: Backend) -> Result<Self, BackendError> {
        Ok(Self::from_cipher(Sm4::with_backend(key, backend)?))
    }

    /// The AEAD over `cipher` with its hashing (GCM's GHASH, GCM-SIV's POLYVAL) on the
    /// engine `ghash` (for tests, benchmarks and bug reports; CCM has no hash and ignores
    /// it).
    ///
    /// # Errors
    /// [`shangmi_dispatch::BackendError`] if this CPU (or this build's `shangmi_backend`
    /// cfg) cannot run `ghash`.
    pub fn with_ghash_backend(
        cipher: Sm4,
        ghash: GhashBackend,
    ) -> Result<Self, shangmi_dispatch::BackendError<GhashBackend>> {
        Ok(Self::from_parts(cipher, Available::require(ghash)?))
    }

    fn from_parts(cipher: Sm4, ghash: Available<GhashBackend>) -> Self {
        Sm4Aead {
            key: M::key(&cipher, ghash),
            cipher,
            sizes: PhantomData,
        }
    }

    /// The mode's precomputation.
    pub(crate) fn hash_key(&self) -> &M::Key {
        &self.key
    }

    /// The SM4 backend in use, as [`Sm4::backend`] (its `Display` is the name, e.g.
    /// `gfni-avx512`).
    pub fn backend(&self) -> Backend {
        self.cipher.backend()
    }
}

impl<M: Mode<N, T>, N, T> KeySizeUser for Sm4Aead<M, N, T> {
    type KeySize = aead::consts::U16;
}

impl<M: Mode<N, T>, N, T> KeyInit for Sm4Aead<M, N, T> {
    fn new(key: &Key<Self>) -> Self {
        Self::from_cipher(Sm4::new(key))
    }
}

impl<M: Mode<N, T>, N: ArraySize, T: ArraySize> AeadCore for Sm4Aead<M, N, T> {
    type NonceSize = N;
    type TagSize = T;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<M: Mode<N, T>, N: ArraySize, T: ArraySize> AeadInOut for Sm4Aead<M, N, T> {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let t = M::seal(&self.cipher, &self.key, nonce, associated_data, buffer)?;
        Array::try_from(&t[..T::USIZE]).map_err(|_| Error)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        M::open(&self.cipher, &self.key, nonce, associated_data, buffer, tag)
    }
}

impl<M: Mode<N, T>, N, T> core::fmt::Debug for Sm4Aead<M, N, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(M::NAME)
            .field("backend", &self.cipher.backend())
            .finish_non_exhaustive()
    }
}
