//! SM4 modes of operation, built on `shangmi-sm4`'s parallel engines.
//!
//! | type | mode | standard |
//! |---|---|---|
//! | [`Sm4Gcm`], [`Sm4GcmCustom`] | GCM (CTR + GHASH fused, VPCLMULQDQ on AVX-512) | NIST SP 800-38D, RFC 8998, GB/T 36624 |
//! | [`Sm4Ccm`], [`Sm4CcmCustom`] | CCM | NIST SP 800-38C, RFC 8998 |
//! | [`Sm4XtsIeee`] | XTS, tweaks multiplied little-endian | IEEE Std 1619 (Linux `xts(sm4)`, fscrypt) |
//! | [`Sm4XtsGb`] | XTS, tweaks multiplied in GCM bit order | GB/T 17964-2021 (GmSSL, OpenSSL default) |
//! | [`Sm4CbcCts`] | CBC with ciphertext stealing, CS3 | SP 800-38A Addendum (Linux `cts(cbc(sm4))`) |
//! | [`Sm4Cmac`] | CMAC (`digest` `Mac`, via the `cmac` crate) | SP 800-38B |
//! | [`Sm4Gmac`] | GMAC | SP 800-38D |
//! | [`Sm4Ctr`], [`Sm4Ctr32`], [`Sm4CbcEnc`]/[`Sm4CbcDec`], [`Sm4CfbEnc`]/[`Sm4CfbDec`], [`Sm4Ofb`], [`Sm4EcbEnc`]/[`Sm4EcbDec`] | the classic modes, RustCrypto's crates over [`Sm4`] | SP 800-38A, GB/T 17964 |
//!
//! CBC-MAC and XCBC are left out on purpose: raw CBC-MAC is forgeable for messages of
//! varying length, and CMAC replaces both.
//!
//! The AEADs implement `aead` 0.6 ([`aead::AeadInOut`], and with it the in-place and
//! detached APIs) and [`cipher::KeyInit`]; the crate is `no_std` without `alloc`. A failed
//! decryption returns [`aead::Error`] and leaves the buffer holding the ciphertext (the
//! keystream is applied again), never a half-decrypted message.
//!
//! ```
//! use shangmi_sm4_modes::Sm4Gcm;
//! use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
//!
//! // RFC 8998 Appendix A.1.
//! let key = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10];
//! let nonce = [0, 0, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, 0xab, 0xcd];
//! let aad = [0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xab, 0xad, 0xda, 0xd2];
//! let mut text = [0xaa; 8];
//! let gcm = Sm4Gcm::new(&key.into());
//! let tag = gcm.encrypt_inout_detached(&nonce.into(), &aad, (&mut text[..]).into()).unwrap();
//! assert_eq!(text[..4], [0x17, 0xf3, 0x99, 0xf0]);
//! assert!(gcm.decrypt_inout_detached(&nonce.into(), &aad, (&mut text[..]).into(), &tag).is_ok());
//! assert_eq!(text, [0xaa; 8]);
//! ```

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use aead;
pub use cipher;
pub use cmac;
pub use shangmi_sm4::{Backend, Sm4};

mod ccm;
mod ct;
mod cts;
mod gcm;
mod ghash;
mod mac;
mod plain;
mod xts;
#[cfg(target_arch = "x86_64")]
mod xts_avx512;

pub use ccm::{CcmNonceSize, CcmTagSize, Sm4Ccm, Sm4CcmCustom};
pub use cts::{CtsTooShort, Sm4CbcCts};
pub use gcm::{GcmTagSize, Sm4Gcm, Sm4GcmCustom};
pub use mac::{Sm4Cmac, Sm4Gmac};
pub use plain::{
    Sm4CbcDec, Sm4CbcEnc, Sm4CfbDec, Sm4CfbEnc, Sm4Ctr, Sm4Ctr32, Sm4EcbDec, Sm4EcbEnc, Sm4Ofb,
};
pub use xts::{GbT17964, Ieee1619, Sm4Xts, Sm4XtsGb, Sm4XtsIeee, XtsError, XtsStandard};
