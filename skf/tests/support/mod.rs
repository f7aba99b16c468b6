//! What the test files share: where the test devices' libraries are, the test CA.

#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] functions

use std::path::PathBuf;

/// The test device's PIN (its default; see testdevice/skf/src/lib.rs).
pub const PIN: &str = "12345678";

/// A test device's library (`shangmi_testdevice_skf` or `…_nodecrypt`): cargo writes a
/// dependency's cdylib into the `deps` directory that holds the test binary (or the
/// directory above it).
pub fn library_named(crate_name: &str) -> PathBuf {
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

/// The test device.
pub fn library() -> PathBuf {
    library_named("shangmi_testdevice_skf")
}

/// The test CA's certificate (DER), from the device's non-standard export.
pub fn ca_certificate() -> Vec<u8> {
    type Export = unsafe extern "C" fn(*mut u8, *mut u32) -> u32;
    // SAFETY: the test device, whose initialisers are shangmi's own code.
    let lib = unsafe { libloading::Library::new(library()) }.unwrap();
    // SAFETY: the function's signature (testdevice/skf/src/device.rs).
    let f = unsafe { lib.get::<Export>(b"ShangmiTestSkf_CaCertificate") }.unwrap();
    let mut len = 0u32;
    // SAFETY: a size query: null buffer, valid length.
    assert_eq!(unsafe { f(core::ptr::null_mut(), &mut len) }, 0);
    let mut der = vec![0u8; len as usize];
    // SAFETY: `der` is writable for `len` bytes.
    assert_eq!(unsafe { f(der.as_mut_ptr(), &mut len) }, 0);
    der.truncate(len as usize);
    der
}
