//! The SKF test device's own extras, for the tests of the crates that load it (skf, the
//! CLI): linked into each as a symlink to this file.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

/// The test CA's certificate (DER), from the non-standard export of the SKF test device at
/// `library` (`ShangmiTestSkf_CaCertificate`, testdevice/skf/src/device.rs).
pub fn ca_certificate(library: &std::path::Path) -> Vec<u8> {
    type Export = unsafe extern "C" fn(*mut u8, *mut u32) -> u32;
    // SAFETY: the test device, whose initialisers are shangmi's own code.
    let lib = unsafe { libloading::Library::new(library) }.unwrap();
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
