//! What the test files share: where the test token's module is, its PIN, URIs.

#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] functions

use std::path::PathBuf;

/// The test token's user PIN (its default; see testdevice/pkcs11/src/lib.rs).
pub const PIN: &str = "12345678";

/// The test token's module: cargo writes a dependency's cdylib into the `deps` directory
/// that holds the test binary (or the directory above it).
pub fn module() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let name = format!(
        "{}shangmi_testdevice_pkcs11{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps, deps.parent().unwrap()]
        .iter()
        .map(|d| d.join(&name))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} not found next to {}", exe.display()))
}

/// A URI for `object` on token `token` of the test module, the PIN inline.
pub fn uri(token: &str, object: &str) -> String {
    format!(
        "pkcs11:token={token};object={object};type=private?module-path={}&pin-value={PIN}",
        module().display()
    )
}
