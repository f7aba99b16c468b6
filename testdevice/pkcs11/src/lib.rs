//! A software PKCS#11 token for tests: the part of the Cryptoki C interface
//! `shangmi-pkcs11` calls, implemented over shangmi's own SM2, SM3 and SM4, with SANSEC's
//! vendor mechanism numbers (`shangmi_pkcs11::Mechanisms::SANSEC`). A test fixture, never
//! linked into a library.
//!
//! - `C_GetFunctionList` (the only exported symbol) returns a `CK_FUNCTION_LIST` whose
//!   implemented entries are in `device.rs`; every other entry returns
//!   `CKR_FUNCTION_NOT_SUPPORTED`.
//! - Two slots, each with a token: slot 0 `shangmi-p11`, slot 1 `lockout` (for lockout
//!   tests, so they do not lock the first). The user PIN is `SHANGMI_TESTP11_PIN`
//!   (default `12345678`); each token counts wrong PINs (5 attempts, reset by a correct
//!   one; the token's flags show `CKF_USER_PIN_COUNT_LOW`, `CKF_USER_PIN_FINAL_TRY`,
//!   `CKF_USER_PIN_LOCKED`; at zero `C_Login` answers `CKR_PIN_LOCKED`); the counters live
//!   as long as the library stays loaded. A login holds for every session of the token
//!   until `C_Logout` or its last session closes; private objects are invisible and
//!   private-key operations `CKR_USER_NOT_LOGGED_IN` without it.
//! - Objects on both tokens: SM2 key pairs (a private key object, `CKA_PRIVATE`, and a
//!   public key object with `CKA_EC_POINT`, the same `CKA_LABEL` and `CKA_ID`), keys
//!   derived from `SHANGMI_TESTP11_SEED` (default `shangmi test pkcs11`) as
//!   d = SM3(seed ‖ label ‖ counter), the first valid scalar:
//!   `tlcp-sign` (ID 01, `CKA_SIGN`), `tlcp-enc` (ID 02, `CKA_DECRYPT`), `ca` (ID 03,
//!   `CKA_SIGN`), and the faults: `fault` (ID 07) answers the size query of `C_Sign` and
//!   `C_Decrypt`, then fails the operation with `CKR_DEVICE_ERROR`; `garbage` (ID 08)
//!   returns a 71-byte "signature" and claims a plaintext 1000 bytes longer than it is;
//!   `offcurve` (ID 09) has a public point that is not on the curve.
//! - An SM4 key on both tokens: `sm4-key` (ID 0x10, `CKO_SECRET_KEY`, `CKK_SM4`
//!   0x80000106 as SANSEC's `swpkcs11.h` numbers it, `CKA_PRIVATE`, value sensitive) holding
//!   GB/T 32907-2016 Appendix A's example key `0123456789abcdeffedcba9876543210`.
//! - Mechanisms: `CKM_SM2_SIGN` 0x80008104 (a 32-byte digest), `CKM_SM3_SM2` 0x80008100
//!   (the message, the signer's identifier as the parameter: its raw bytes, any length;
//!   none means `1234567812345678`), `CKM_SM2_RAW` 0x80008200 (decryption, C1C3C2);
//!   signatures are `r ‖ s`. `CKK_SM2` is 0x80000004. `CKM_SM3_HASH` 0x80009001
//!   (`C_DigestInit`, then `C_Digest` or `C_DigestUpdate`/`C_DigestFinal`; no login),
//!   `CKM_SM4_ECB` 0x80000108 and `CKM_SM4_CBC` 0x80000109 (the IV as the parameter)
//!   through `C_EncryptInit`/`C_DecryptInit`, then one part or `…Update`/`…Final` (the
//!   updates return nothing, the final call the whole output), whole blocks, no padding,
//!   with the SM4 key object.
//!
//! Threads: one lock around the whole state, so any number of sessions may call at once.

#[path = "../../common.rs"]
mod common;
mod device;

use cryptoki_sys::*;
use std::ffi::c_void;

/// The function table.
static FUNCTIONS: CK_FUNCTION_LIST = CK_FUNCTION_LIST {
    version: CK_VERSION {
        major: 2,
        minor: 40,
    },
    C_Initialize: Some(device::C_Initialize),
    C_Finalize: Some(device::C_Finalize),
    C_GetInfo: Some(device::C_GetInfo),
    C_GetFunctionList: Some(C_GetFunctionList),
    C_GetSlotList: Some(device::C_GetSlotList),
    C_GetSlotInfo: Some(device::C_GetSlotInfo),
    C_GetTokenInfo: Some(device::C_GetTokenInfo),
    C_GetMechanismList: Some(device::C_GetMechanismList),
    C_GetMechanismInfo: Some(device::C_GetMechanismInfo),
    C_InitToken: Some(unsupported::C_InitToken),
    C_InitPIN: Some(unsupported::C_InitPIN),
    C_SetPIN: Some(unsupported::C_SetPIN),
    C_OpenSession: Some(device::C_OpenSession),
    C_CloseSession: Some(device::C_CloseSession),
    C_CloseAllSessions: Some(device::C_CloseAllSessions),
    C_GetSessionInfo: Some(device::C_GetSessionInfo),
    C_GetOperationState: Some(unsupported::C_GetOperationState),
    C_SetOperationState: Some(unsupported::C_SetOperationState),
    C_Login: Some(device::C_Login),
    C_Logout: Some(device::C_Logout),
    C_CreateObject: Some(unsupported::C_CreateObject),
    C_CopyObject: Some(unsupported::C_CopyObject),
    C_DestroyObject: Some(unsupported::C_DestroyObject),
    C_GetObjectSize: Some(unsupported::C_GetObjectSize),
    C_GetAttributeValue: Some(device::C_GetAttributeValue),
    C_SetAttributeValue: Some(unsupported::C_SetAttributeValue),
    C_FindObjectsInit: Some(device::C_FindObjectsInit),
    C_FindObjects: Some(device::C_FindObjects),
    C_FindObjectsFinal: Some(device::C_FindObjectsFinal),
    C_EncryptInit: Some(device::C_EncryptInit),
    C_Encrypt: Some(device::C_Encrypt),
    C_EncryptUpdate: Some(device::C_EncryptUpdate),
    C_EncryptFinal: Some(device::C_EncryptFinal),
    C_DecryptInit: Some(device::C_DecryptInit),
    C_Decrypt: Some(device::C_Decrypt),
    C_DecryptUpdate: Some(device::C_DecryptUpdate),
    C_DecryptFinal: Some(device::C_DecryptFinal),
    C_DigestInit: Some(device::C_DigestInit),
    C_Digest: Some(device::C_Digest),
    C_DigestUpdate: Some(device::C_DigestUpdate),
    C_DigestKey: Some(unsupported::C_DigestKey),
    C_DigestFinal: Some(device::C_DigestFinal),
    C_SignInit: Some(device::C_SignInit),
    C_Sign: Some(device::C_Sign),
    C_SignUpdate: Some(unsupported::C_SignUpdate),
    C_SignFinal: Some(unsupported::C_SignFinal),
    C_SignRecoverInit: Some(unsupported::C_SignRecoverInit),
    C_SignRecover: Some(unsupported::C_SignRecover),
    C_VerifyInit: Some(unsupported::C_VerifyInit),
    C_Verify: Some(unsupported::C_Verify),
    C_VerifyUpdate: Some(unsupported::C_VerifyUpdate),
    C_VerifyFinal: Some(unsupported::C_VerifyFinal),
    C_VerifyRecoverInit: Some(unsupported::C_VerifyRecoverInit),
    C_VerifyRecover: Some(unsupported::C_VerifyRecover),
    C_DigestEncryptUpdate: Some(unsupported::C_DigestEncryptUpdate),
    C_DecryptDigestUpdate: Some(unsupported::C_DecryptDigestUpdate),
    C_SignEncryptUpdate: Some(unsupported::C_SignEncryptUpdate),
    C_DecryptVerifyUpdate: Some(unsupported::C_DecryptVerifyUpdate),
    C_GenerateKey: Some(unsupported::C_GenerateKey),
    C_GenerateKeyPair: Some(unsupported::C_GenerateKeyPair),
    C_WrapKey: Some(unsupported::C_WrapKey),
    C_UnwrapKey: Some(unsupported::C_UnwrapKey),
    C_DeriveKey: Some(unsupported::C_DeriveKey),
    C_SeedRandom: Some(unsupported::C_SeedRandom),
    C_GenerateRandom: Some(device::C_GenerateRandom),
    C_GetFunctionStatus: Some(unsupported::C_GetFunctionStatus),
    C_CancelFunction: Some(unsupported::C_CancelFunction),
    C_WaitForSlotEvent: Some(unsupported::C_WaitForSlotEvent),
};

/// Returns the function table.
///
/// # Safety
/// `list` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn C_GetFunctionList(list: *mut *mut CK_FUNCTION_LIST) -> CK_RV {
    if list.is_null() {
        return CKR_ARGUMENTS_BAD;
    }
    // SAFETY: non-null and writable by the caller's contract; the table is a static that
    // callers only read (PKCS#11 declares the pointer mutable for historical reasons).
    unsafe { *list = (&raw const FUNCTIONS).cast_mut() };
    CKR_OK
}

/// Functions this token does not implement: each returns `CKR_FUNCTION_NOT_SUPPORTED`.
mod unsupported {
    #![allow(non_snake_case)]
    use super::*;

    macro_rules! unsupported {
        ($($name:ident($($t:ty),*);)*) => {
            $(
                /// Not implemented.
                ///
                /// # Safety
                /// None: the arguments are not read.
                pub unsafe extern "C" fn $name($(_: $t),*) -> CK_RV {
                    CKR_FUNCTION_NOT_SUPPORTED
                }
            )*
        };
    }

    unsupported! {
    C_InitToken(CK_SLOT_ID, *mut CK_UTF8CHAR, CK_ULONG, *mut CK_UTF8CHAR);
    C_InitPIN(CK_SESSION_HANDLE, *mut CK_UTF8CHAR, CK_ULONG);
    C_SetPIN(CK_SESSION_HANDLE, *mut CK_UTF8CHAR, CK_ULONG, *mut CK_UTF8CHAR, CK_ULONG);
    C_GetOperationState(CK_SESSION_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_SetOperationState(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, CK_OBJECT_HANDLE, CK_OBJECT_HANDLE);
    C_CreateObject(CK_SESSION_HANDLE, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_CopyObject(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_DestroyObject(CK_SESSION_HANDLE, CK_OBJECT_HANDLE);
    C_GetObjectSize(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ULONG);
    C_SetAttributeValue(CK_SESSION_HANDLE, CK_OBJECT_HANDLE, *mut CK_ATTRIBUTE, CK_ULONG);
    C_DigestKey(CK_SESSION_HANDLE, CK_OBJECT_HANDLE);
    C_SignUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_SignFinal(CK_SESSION_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_SignRecoverInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_SignRecover(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_VerifyInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_Verify(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, CK_ULONG);
    C_VerifyUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_VerifyFinal(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_VerifyRecoverInit(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE);
    C_VerifyRecover(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DigestEncryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptDigestUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_SignEncryptUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_DecryptVerifyUpdate(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_BYTE, *mut CK_ULONG);
    C_GenerateKey(CK_SESSION_HANDLE, *mut CK_MECHANISM, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_GenerateKeyPair(CK_SESSION_HANDLE, *mut CK_MECHANISM, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE, *mut CK_OBJECT_HANDLE);
    C_WrapKey(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, CK_OBJECT_HANDLE, *mut CK_BYTE, *mut CK_ULONG);
    C_UnwrapKey(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, *mut CK_BYTE, CK_ULONG, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_DeriveKey(CK_SESSION_HANDLE, *mut CK_MECHANISM, CK_OBJECT_HANDLE, *mut CK_ATTRIBUTE, CK_ULONG, *mut CK_OBJECT_HANDLE);
    C_SeedRandom(CK_SESSION_HANDLE, *mut CK_BYTE, CK_ULONG);
    C_GetFunctionStatus(CK_SESSION_HANDLE);
    C_CancelFunction(CK_SESSION_HANDLE);
    C_WaitForSlotEvent(CK_FLAGS, *mut CK_SLOT_ID, *mut c_void);
    }
}
