#![doc = include_str!("../README.md")]
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_code)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod arith;
mod asn1;
pub mod batch;
mod curve;
pub mod dsa;
pub mod ecdh;
mod error;
mod hash;
pub mod keys;
pub mod kx;
#[cfg(feature = "alloc")]
pub mod pke;
pub mod private_key;

pub use curve::{AffinePoint, ProjectivePoint, Scalar, Sm2};
#[cfg(feature = "pkcs8")]
pub use elliptic_curve::pkcs8;
pub use elliptic_curve::{self, Generate, bigint::U256};
pub use error::Error;
pub use hash::{DEFAULT_ID, Sm3, TLS13_ID, compute_za};
pub use kx::Peer;
#[cfg(feature = "pkcs8")]
pub use private_key::X509Signer;
pub use private_key::{HeldKey, KeyAgreement, KeyOpError, PrivateKeyOps};
pub use signature;

/// Big-endian encoding of a field element or scalar (32 bytes).
pub type FieldBytes = elliptic_curve::FieldBytes<Sm2>;
/// Non-zero scalar.
pub type NonZeroScalar = elliptic_curve::NonZeroScalar<Sm2>;
/// SM2 public key (a non-identity curve point).
pub type PublicKey = elliptic_curve::PublicKey<Sm2>;
/// SM2 secret key (a scalar in [1, n-1]).
pub type SecretKey = elliptic_curve::SecretKey<Sm2>;
/// SEC1 encoded point.
pub type Sec1Point = elliptic_curve::sec1::Sec1Point<Sm2>;
