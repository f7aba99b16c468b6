#![doc = include_str!("../README.md")]
#![cfg_attr(not(test), no_std)]
#![allow(clippy::wrong_self_convention)]
// Without `alloc` the DER writers and Vec-returning paths (and their helpers) drop out.
#![cfg_attr(not(feature = "alloc"), allow(dead_code, unused_imports))]

#[cfg(feature = "alloc")]
extern crate alloc;

mod curve;
mod der;
mod enc;
mod error;
mod field;
#[cfg(target_arch = "x86_64")]
mod field_x86;
mod hash;
mod kx;
mod pairing;
mod points;
mod sign;
mod tower;

#[cfg(test)]
mod ct_tests;
#[cfg(test)]
mod kat_tests;

pub use enc::{
    BlockMode, CIPHERTEXT_OVERHEAD, EncryptMasterKey, EncryptMasterPublicKey, EncryptPrivateKey,
};
pub use error::Error;
pub use kx::KeyExchange;
pub use rand_core;
pub use sign::{SignMasterKey, SignMasterPublicKey, Signature, SigningKey, VerifyingKey};
pub use signature;

/// The hid bytes of GM/T 0044-2016 that select a key's purpose at extraction.
pub mod hid {
    /// Signing keys (0x01).
    pub const SIGN: u8 = 0x01;
    /// Key exchange keys (0x02).
    pub const KEY_EXCHANGE: u8 = 0x02;
    /// Encryption and key encapsulation keys (0x03).
    pub const ENCRYPT: u8 = 0x03;
}
