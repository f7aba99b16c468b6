//! What the test files share: where the test device's library is.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::path::PathBuf;

/// The test device's library: cargo writes a dependency's cdylib into the `deps` directory
/// that holds the test binary (or the directory above it).
pub fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let name = format!(
        "{}shangmi_testdevice_sdf{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps, deps.parent().unwrap()]
        .iter()
        .map(|d| d.join(&name))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} not found next to {}", exe.display()))
}
