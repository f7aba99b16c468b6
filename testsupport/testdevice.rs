//! Where a test device's library is, for the tests of the crates that load one (sdf, skf,
//! the CLI): cargo writes a dependency's cdylib into the `deps` directory that holds the
//! test binary, or the profile directory above it. Linked into each test crate as
//! `tests/support/testdevice.rs` (or `tests/common/`), a symlink to this file.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::path::PathBuf;

/// The library of the test device whose crate is `crate_name` (`shangmi_testdevice_sdf`,
/// `shangmi_testdevice_skf`, `shangmi_testdevice_skf_nodecrypt`).
pub fn library(crate_name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let name = format!(
        "{}{crate_name}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [deps, deps.parent().unwrap()]
        .iter()
        .map(|d| d.join(&name))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} not found next to {}", exe.display()))
}
