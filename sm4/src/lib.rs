//! SM4, the Chinese national block cipher (GB/T 32907-2016, ISO/IEC 18033-3:2010/Amd 1),
//! fast and constant-time on every engine.
//!
//! [`Sm4`] implements the RustCrypto `cipher` 0.5 traits ([`KeyInit`],
//! [`BlockCipherEncrypt`], [`BlockCipherDecrypt`]) with parallel blocks, so the RustCrypto
//! modes (`ctr`, `cbc`, `xts-mode`, …) and `shangmi-sm4-modes` drive the widest engine
//! the CPU has. The engine is picked at run time ([`Backend::best`]):
//!
//! | engine | technique | blocks per step |
//! |---|---|---|
//! | `gfni-avx512` | GFNI affine S-box, AVX-512 rotates and ternary logic | 64 |
//! | `gfni-avx2` | GFNI affine S-box on AVX2 | 16 |
//! | `aesni-avx2` | S-box through AESENCLAST and `pshufb` affine maps | 16 |
//! | `soft` | bitsliced boolean circuit, no tables | 16 |
//!
//! No engine indexes memory with secret data or branches on it; single blocks go through
//! the same SIMD code on x86-64.
//!
//! ```
//! use shangmi_sm4::Sm4;
//! use shangmi_sm4::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
//!
//! // GB/T 32907-2016 Appendix A, example 1.
//! let key = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10];
//! let cipher = Sm4::new(&key.into());
//! let mut block = key.into();
//! cipher.encrypt_block(&mut block);
//! assert_eq!(block[..4], [0x68, 0x1e, 0xdf, 0x34]);
//! cipher.decrypt_block(&mut block);
//! assert_eq!(block, key);
//! println!("engine: {}", cipher.backend());
//! ```
//!
//! Build with `--cfg shangmi_backend="soft"` (or another engine's name) to force one
//! engine; feature `zeroize` wipes the round keys on drop.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use cipher;

mod autodetect;
mod consts;
mod engine;
mod key;
mod soft;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use autodetect::{Backend, BackendError};

use cipher::{
    AlgorithmName, BlockCipherDecClosure, BlockCipherDecrypt, BlockCipherEncClosure,
    BlockCipherEncrypt, BlockSizeUser, Key, KeyInit, KeySizeUser, consts::U16,
};
use core::fmt;

use key::RoundKeys;

/// The SM4 block cipher with a 128-bit key; see the crate documentation.
#[derive(Clone)]
pub struct Sm4 {
    enc: RoundKeys,
    dec: RoundKeys,
    backend: Backend,
}

impl Sm4 {
    /// A cipher for `key` that runs on `backend` instead of the best engine.
    ///
    /// For benchmarks, tests and bug reports; [`KeyInit::new`] picks the best engine.
    pub fn with_backend(key: &Key<Self>, backend: Backend) -> Result<Self, BackendError> {
        if !backend.is_available() {
            return Err(BackendError::Unavailable(backend));
        }
        let enc = engine::expand_key(backend, &key.0);
        Ok(Sm4 {
            dec: key::reversed(&enc),
            enc,
            backend,
        })
    }

    /// The name of the engine this cipher runs on, e.g. `"gfni-avx512"` or `"soft"`.
    pub fn backend(&self) -> &'static str {
        self.backend.name()
    }

    /// The engine this cipher runs on.
    pub fn engine(&self) -> Backend {
        self.backend
    }
}

impl KeySizeUser for Sm4 {
    type KeySize = U16;
}

impl KeyInit for Sm4 {
    fn new(key: &Key<Self>) -> Self {
        let backend = Backend::best();
        let enc = engine::expand_key(backend, &key.0);
        Sm4 {
            dec: key::reversed(&enc),
            enc,
            backend,
        }
    }
}

impl BlockSizeUser for Sm4 {
    type BlockSize = U16;
}

impl BlockCipherEncrypt for Sm4 {
    #[inline]
    fn encrypt_with_backend(&self, f: impl BlockCipherEncClosure<BlockSize = U16>) {
        engine::dispatch(self.backend, &self.enc, engine::Encrypt(f));
    }
}

impl BlockCipherDecrypt for Sm4 {
    #[inline]
    fn decrypt_with_backend(&self, f: impl BlockCipherDecClosure<BlockSize = U16>) {
        engine::dispatch(self.backend, &self.dec, engine::Decrypt(f));
    }
}

impl fmt::Debug for Sm4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sm4")
            .field("backend", &self.backend.name())
            .finish_non_exhaustive()
    }
}

impl AlgorithmName for Sm4 {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SM4")
    }
}

impl Drop for Sm4 {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        {
            use zeroize::Zeroize;
            self.enc.zeroize();
            self.dec.zeroize();
        }
    }
}

#[cfg(feature = "zeroize")]
impl zeroize::ZeroizeOnDrop for Sm4 {}
