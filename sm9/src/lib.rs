#![doc = include_str!("../README.md")]
#![cfg_attr(not(test), no_std)]
#![allow(clippy::wrong_self_convention)]
// Without `alloc` the DER writers and Vec-returning paths (and their helpers) drop out.
#![cfg_attr(not(feature = "alloc"), allow(dead_code, unused_imports))]

#[cfg(feature = "alloc")]
extern crate alloc;

/// `random` and `from_bytes` of a master key type (signing or encryption) that has a
/// `from_scalar(Fn)`; `$name` names the secret in the docs (ks or ke).
macro_rules! master_key_constructors {
    ($name:literal) => {
        /// A random master key.
        pub fn random<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, Error> {
            Ok(Self::from_scalar(random_scalar(rng)?))
        }

        #[doc = concat!("The master key from its 32-byte big-endian value ", $name, " ∈ [1, N-1].")]
        pub fn from_bytes(secret: &[u8; 32]) -> Result<Self, Error> {
            Ok(Self::from_scalar(
                Fn::from_bytes_nonzero(secret).ok_or(Error::InvalidKey)?,
            ))
        }
    };
}

/// `Debug` that names the type and nothing else, for the types whose contents are secret
/// (the private keys) or too large to be worth printing (the fixed-base tables).
macro_rules! debug_name_only {
    ($($t:ident),+) => {
        $(
            impl core::fmt::Debug for $t {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.debug_struct(stringify!($t)).finish_non_exhaustive()
                }
            }
        )+
    };
}

/// `to_bytes`, `public_key` and `extract` of a master key type (signing or encryption)
/// whose secret is the field `$secret` and whose public key, the field `public`, is a
/// `$public`; `extract` runs its `extract_with_hid` with `hid::$hid` (`$hid_value`) and
/// gives a `$user`, `$what` in the docs.
macro_rules! master_key_accessors {
    ($secret:ident, $public:ty, $user:ty, $hid:ident, $hid_value:literal, $what:literal) => {
        #[doc = concat!(stringify!($secret), " as 32 big-endian bytes.")]
        pub fn to_bytes(&self) -> [u8; 32] {
            self.$secret.to_bytes()
        }

        /// The master public key.
        pub fn public_key(&self) -> &$public {
            &self.public
        }

        #[doc = concat!("Extracts the ", $what, " of `id` (hid ", $hid_value, ", [`hid::", stringify!($hid), "`]).")]
        pub fn extract(&self, id: &[u8]) -> Result<$user, Error> {
            self.extract_with_hid(id, hid::$hid)
        }
    };
}

/// The encodings of a user private key type (signing ds in G1, encryption de in G2) that
/// has `from_bytes(&[u8], &$master)` and the fields `$point` and `master`: the point as
/// 0x04 || x || y (`$len` bytes, written by `$uncompressed`), DER as gmsm writes it, that
/// DER parsed, and the master public key. `$name` names the point in the docs.
macro_rules! user_key_encodings {
    ($master:ty, $point:ident, $len:literal, $uncompressed:path, $name:literal, $form:literal) => {
        #[doc = concat!($name, " as 0x04 || x || y.")]
        pub fn to_uncompressed(&self) -> [u8; $len] {
            $uncompressed(&self.$point)
        }

        /// DER as gmsm writes it: BIT STRING 0x04 || x || y.
        #[cfg(feature = "alloc")]
        pub fn to_der(&self) -> alloc::vec::Vec<u8> {
            der::write::key_bit_string(&self.to_uncompressed())
        }

        #[doc = concat!("Parses BIT STRING ", $name, $form, ".")]
        pub fn from_der(input: &[u8], master: &$master) -> Result<Self, Error> {
            Self::from_bytes(der::point_key(input)?, master)
        }

        /// The master public key this key belongs to.
        pub fn master_public_key(&self) -> &$master {
            &self.master
        }
    };
}

mod curve;
mod der;
mod enc;
mod error;
mod field;
#[cfg(target_arch = "x86_64")]
mod field_x86;
mod g1comb;
mod hash;
mod kx;
mod pairing;
mod points;
mod primes;
mod sign;
mod tower;
mod window;

#[cfg(test)]
mod ct_tests;
#[cfg(all(test, target_arch = "x86_64"))]
mod field_x86_tests;
#[cfg(test)]
mod kat_tests;

pub use enc::{
    BlockMode, CIPHERTEXT_OVERHEAD, CiphertextForm, EncryptMasterKey, EncryptMasterPublicKey,
    EncryptPrivateKey,
};
pub use error::Error;
pub use field::{Backend, BackendError, backend, use_backend};
pub use kx::KeyExchange;
pub use rand_core;
pub use sign::{SignMasterKey, SignMasterPublicKey, Signature, SigningKey, VerifyingKey};
pub use signature;
#[cfg(feature = "zeroize")]
pub use zeroize;

/// Overwrites `x` with `zero` by a volatile write that the optimiser keeps (the wipe of the
/// `zeroize` feature).
#[cfg(feature = "zeroize")]
#[allow(unsafe_code)]
pub(crate) fn wipe<T: Copy>(x: &mut T, zero: T) {
    // SAFETY: `x` is a valid, aligned, exclusive reference to a `T`; `T: Copy` has no drop
    // glue, so overwriting it leaks nothing.
    unsafe { core::ptr::write_volatile(x, zero) };
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// `Zeroize`, `ZeroizeOnDrop` and `Drop` for a key type from the statements that wipe it.
#[cfg(feature = "zeroize")]
macro_rules! zeroize_key {
    ($t:ty, |$s:ident| $body:block) => {
        impl zeroize::Zeroize for $t {
            fn zeroize(&mut self) {
                let $s = self;
                $body
            }
        }
        impl Drop for $t {
            fn drop(&mut self) {
                zeroize::Zeroize::zeroize(self);
            }
        }
        impl zeroize::ZeroizeOnDrop for $t {}
    };
}

#[cfg(feature = "zeroize")]
zeroize_key!(SignMasterKey, |s| {
    wipe(s.ks_mut(), field::Fn::ZERO);
});
#[cfg(feature = "zeroize")]
zeroize_key!(SigningKey, |s| {
    wipe(s.ds_mut(), curve::Affine::WIPED);
    s.ds_table_mut().wipe();
});
#[cfg(feature = "zeroize")]
zeroize_key!(EncryptMasterKey, |s| {
    wipe(s.ke_mut(), field::Fn::ZERO);
});
#[cfg(feature = "zeroize")]
zeroize_key!(EncryptPrivateKey, |s| {
    wipe(&mut s.de, curve::Affine::WIPED);
    s.prep.wipe();
});

/// `count` pseudo-random 256-bit values from `seed` (xorshift64), for tests.
#[cfg(test)]
pub(crate) fn test_limbs(seed: u64, count: usize) -> std::vec::Vec<[u64; 4]> {
    let mut x = seed;
    (0..count)
        .map(|_| {
            core::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
        })
        .collect()
}

/// The hid bytes of GM/T 0044-2016 that select a key's purpose at extraction.
pub mod hid {
    /// Signing keys (0x01).
    pub const SIGN: u8 = 0x01;
    /// Key exchange keys (0x02).
    pub const KEY_EXCHANGE: u8 = 0x02;
    /// Encryption and key encapsulation keys (0x03).
    pub const ENCRYPT: u8 = 0x03;
}
