//! OpenSSL 3's SM4-XTS standard selection (`xts_standard`: "GB", its default, or "IEEE"),
//! which the `openssl` crate does not bind, for the tests and fuzz targets that compare our
//! XTS with OpenSSL's (each includes this file by `#[path]`).

use std::ffi::{c_char, c_int, c_uint, c_void};

use foreign_types::ForeignType as _;
use openssl::cipher_ctx::CipherCtx;

/// OpenSSL's `OSSL_PARAM` (openssl-sys does not bind `EVP_CIPHER_CTX_set_params`).
#[repr(C)]
struct OsslParam {
    key: *const c_char,
    data_type: c_uint,
    data: *mut c_void,
    data_size: usize,
    return_size: usize,
}

unsafe extern "C" {
    fn EVP_CIPHER_CTX_set_params(ctx: *mut c_void, params: *const OsslParam) -> c_int;
}

/// Sets `xts_standard` on an initialised SM4-XTS context; panics if OpenSSL refuses.
pub fn set_xts_standard(ctx: &mut CipherCtx, standard: &str) {
    let mut value = std::ffi::CString::new(standard)
        .expect("no NUL")
        .into_bytes_with_nul();
    let params = [
        OsslParam {
            key: c"xts_standard".as_ptr(),
            data_type: 4, // OSSL_PARAM_UTF8_STRING
            data: value.as_mut_ptr().cast(),
            data_size: value.len() - 1,
            return_size: usize::MAX, // OSSL_PARAM_UNMODIFIED
        },
        OsslParam {
            key: core::ptr::null(),
            data_type: 0,
            data: core::ptr::null_mut(),
            data_size: 0,
            return_size: 0,
        },
    ];
    // SAFETY: `ctx` is a live EVP_CIPHER_CTX; `params` is an OSSL_PARAM array in OpenSSL's
    // layout, terminated by an all-null entry, and outlives the call with `value`.
    let ok = unsafe { EVP_CIPHER_CTX_set_params(ctx.as_ptr().cast(), params.as_ptr()) };
    assert_eq!(ok, 1, "OpenSSL refused xts_standard={standard}");
}
