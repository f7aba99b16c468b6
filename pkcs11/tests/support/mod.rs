//! What the test files share: where the test token's module is, its PIN, URIs.

#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] functions

pub mod device_keys;
mod testdevice;

use std::path::PathBuf;

/// The test token's user PIN (its default; see testdevice/pkcs11/src/lib.rs).
pub const PIN: &str = "12345678";

/// The test token's module (`testsupport/testdevice.rs` finds it next to the test binary).
pub fn module() -> PathBuf {
    testdevice::library("shangmi_testdevice_pkcs11")
}

/// A URI for `object` on token `token` of the test module, the PIN inline.
pub fn uri(token: &str, object: &str) -> String {
    format!(
        "pkcs11:token={token};object={object};type=private?module-path={}&pin-value={PIN}",
        module().display()
    )
}
