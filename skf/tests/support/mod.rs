//! What the test files share: where the test devices' libraries are, the test CA.

#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] functions

pub mod device_keys;
pub mod device_threads;
mod testdevice;
mod testskf;

use std::path::PathBuf;

/// The test device's PIN (its default; see testdevice/skf/src/lib.rs).
pub const PIN: &str = "12345678";

pub use testdevice::library as library_named;

/// The test device.
pub fn library() -> PathBuf {
    library_named("shangmi_testdevice_skf")
}

/// The test CA's certificate (DER), from the device's non-standard export.
pub fn ca_certificate() -> Vec<u8> {
    testskf::ca_certificate(&library())
}
