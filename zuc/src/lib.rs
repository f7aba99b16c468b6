//! ZUC-128 and ZUC-256 stream ciphers, 128-EEA3 / 128-EIA3 and the ZUC-256 MAC.
//!
//! * [`Zuc128`], [`Zuc256`]: `cipher` 0.5 stream ciphers (`KeyIvInit`, `StreamCipher`,
//!   `StreamCipherSeek`; seeking regenerates the keystream, see [`ZucCore`]).
//! * [`eea3()`]: 128-EEA3 with bit-granular lengths; [`eea3_iv`], [`eia3_iv`] build the IVs.
//! * [`eea3_many`], [`apply_keystream_many`]: many messages (bearers) at once, eight
//!   generators in AVX2 lanes where the CPU has it.
//! * [`Eia3`], [`Zuc256Mac`] ([`Zuc256Mac32`], [`Zuc256Mac64`], [`Zuc256Mac128`]):
//!   `digest` 0.11 MACs over whole bytes, with `finalize_bits` for any bit length.
//!
//! Sources: 3GPP "Specification of the 3GPP Confidentiality and Integrity Algorithms
//! 128-EEA3 & 128-EIA3", Document 1 (v1.7) and Document 2: ZUC Specification (v1.6); "The
//! ZUC-256 Stream Cipher" (Design Team, 2018).
//!
//! Constant time: the S-boxes are boolean circuits on bit planes (no secret-indexed table),
//! the mod 2^31 - 1 additions are branch-free, and the MACs select keystream windows by
//! masks; `tests/constant_time.rs` checks this under valgrind's memcheck.
#![no_std]
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

mod eea3;
mod engine;
#[macro_use]
mod generic;
mod mac;
mod many;
mod sbox;
mod state;
mod stream;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
mod x86_many;

pub use cipher;
pub use digest;

pub use eea3::{eea3, eea3_iv, eia3_iv};
pub use mac::{Eia3, TagSize, Zuc256Mac, Zuc256Mac32, Zuc256Mac64, Zuc256Mac128};
pub use many::{
    Eea3Packet, Zuc128Job, apply_keystream_many, apply_keystream_many_on, eea3_many, eea3_many_on,
};
/// The single-stream ZUC backends (`zuc-aesni`, `soft`, …) and why one cannot be used:
/// `shangmi-dispatch`'s table, which ranks them and probes the CPU.
pub use shangmi_dispatch::zuc::{Backend, BackendError};
/// The many-stream ZUC-128 backends ([`apply_keystream_many_on`], [`eea3_many_on`]):
/// `zuc-avx2-x8`, `one-by-one`.
pub use shangmi_dispatch::zuc_many::Backend as ManyEngine;
pub use stream::{
    V128, V256, Variant, Zuc128, Zuc128Core, Zuc256, Zuc256Core, ZucCore, zuc256_iv_from_packed,
};

/// Errors of the bit-granular and 3GPP-parameter functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The buffer is not the bit length rounded up to whole bytes.
    BitLength,
    /// BEARER does not fit in 5 bits.
    Bearer,
    /// DIRECTION is not 0 or 1.
    Direction,
}

impl ::core::fmt::Display for Error {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.write_str(match self {
            Self::BitLength => "buffer length does not match the bit length",
            Self::Bearer => "BEARER must be below 32",
            Self::Direction => "DIRECTION must be 0 or 1",
        })
    }
}

impl ::core::error::Error for Error {}
