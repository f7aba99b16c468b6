//! SM9 identity-based signatures, encryption and key exchange (GM/T 0044-2016, GB/T 38635)
//! (work in progress: the field tower, the curve groups and the R-ate pairing).
#![no_std]
// The arithmetic lands before the API that uses it.
#![allow(dead_code)]
#![allow(clippy::wrong_self_convention)]

mod curve;
mod field;
mod pairing;
mod tower;
