//! What the test files share: where the test device's library is.

pub mod device_keys;
mod testdevice;

use std::path::PathBuf;

/// The test device's library.
pub fn library() -> PathBuf {
    testdevice::library("shangmi_testdevice_sdf")
}
