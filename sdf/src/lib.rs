//! SM2 keys inside GM/T 0018 (SDF) crypto cards and HSMs, through any vendor's library
//! loaded at run time (`libloading`).
//!
//! [`SdfDevice::open`] loads the library and opens the device; [`SdfKey::open`] takes the
//! sign pair or the encryption pair at an internal index, gets the private-key access
//! right with a [`Pin`] on a pool of sessions (the PIN is zeroized then), and implements
//! `shangmi_sm2`'s [`PrivateKeyOps`](shangmi_sm2::PrivateKeyOps), so it plugs into TLCP
//! (`Arc<SdfKey>` as a sign or encryption key) and anything else that takes the trait.
//! Every `SDR_*` code is a named [`SdrCode`]; malformed device output is
//! [`SdfError::BadOutput`]; nothing here panics on a device's answer or prints a PIN.
//!
//! ```no_run
//! use shangmi_sdf::{KeyUsage, Pin, PoolOptions, SdfDevice, SdfKey};
//! use shangmi_sm2::PrivateKeyOps;
//! let device = SdfDevice::open("/opt/vendor/lib/libsdf.so")?;
//! let pin = Pin::from_env("SDF_PIN").expect("SDF_PIN is set");
//! let key = SdfKey::open(&device, 1, KeyUsage::Sign, pin, PoolOptions::default())?;
//! let signature = key.sign(b"message")?;
//! # Ok::<(), shangmi_sdf::SdfError>(())
//! ```
//!
//! `unsafe` is confined to the FFI calls (`ffi.rs`, `device.rs`, `key.rs`), each with its
//! SAFETY comment.

// The README's example compiles as a doctest.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

mod agree;
mod device;
mod error;
mod ffi;
mod key;

pub use agree::SdfKx;
pub use device::{DeviceInfo, KeyUsage, Pin, PoolOptions, SdfDevice};
pub use error::{SdfError, SdrCode};
pub use ffi::{Edition, LibraryFunctions, SDF_FUNCTIONS, Standing, library_functions};
pub use key::{MAX_PLAINTEXT, SdfKey};
pub use shangmi_device::BadOutput;
