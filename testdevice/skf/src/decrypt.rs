//! `SKF_ECCDecrypt` (left out of `testdevice/skf-nodecrypt`).

use crate::device::{SAR_INDATAERR, SAR_INVALIDPARAMERR, SAR_OK, private_key};
use crate::ecc::EccCipherHead;
use shangmi_sm2::pke::{DecryptingKey, Layout};

/// Decrypts an `ECCCIPHERBLOB` with the container's encryption key.
///
/// # Safety
/// `cipher` must point to a blob with `CipherLen` bytes of C2 after its head;
/// `plain` must be writable for `*plain_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SKF_ECCDecrypt(
    h_container: usize,
    cipher: *const EccCipherHead,
    plain: *mut u8,
    plain_len: *mut u32,
) -> u32 {
    if cipher.is_null() || plain.is_null() || plain_len.is_null() {
        return SAR_INVALIDPARAMERR;
    }
    let (name, key) = match private_key(h_container, false, SAR_INVALIDPARAMERR) {
        Ok(k) => k,
        Err(rv) => return rv,
    };
    // SAFETY: non-null, an `ECCCIPHERBLOB` head followed by `CipherLen` bytes of C2 by the
    // caller's contract.
    let ct = unsafe { EccCipherHead::c1c3c2(cipher) };
    let Ok(msg) = DecryptingKey::new(key).decrypt(&ct, Layout::C1C3C2) else {
        return SAR_INDATAERR;
    };
    // SAFETY: non-null by the check above.
    let cap = unsafe { *plain_len } as usize;
    if cap < msg.len() {
        return crate::device::SAR_BUFFER_TOO_SMALL;
    }
    // SAFETY: `plain` is writable for `cap` ≥ `msg.len()` bytes.
    unsafe { core::ptr::copy_nonoverlapping(msg.as_ptr(), plain, msg.len()) };
    let extra = if name == "garbage" { 1000 } else { 0 };
    // SAFETY: non-null by the check above.
    unsafe { *plain_len = (msg.len() + extra) as u32 };
    SAR_OK
}
