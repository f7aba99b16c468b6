//! What the test files share: where the test device's library is, its PIN, opening a key.

#![allow(dead_code)] // each test file uses a subset

pub mod device_keys;
pub mod device_threads;
mod testdevice;

use shangmi_sdf::{KeyUsage, Pin, PoolOptions, SdfDevice, SdfError, SdfKey};
use std::path::PathBuf;

/// The test device's PIN (its default; see testdevice/sdf/src/lib.rs).
pub const PIN: &str = "123456";

/// The test device's library.
pub fn library() -> PathBuf {
    testdevice::library("shangmi_testdevice_sdf")
}

/// The key at `index` of `device` for `usage`, opened with the PIN and the default pool.
pub fn open_key(device: &SdfDevice, index: u32, usage: KeyUsage) -> Result<SdfKey, SdfError> {
    SdfKey::open(device, index, usage, Pin::new(PIN), PoolOptions::default())
}
