//! The GM/T 0018 (SDF) C interface: structures, algorithm identifiers and the function
//! table, resolved symbol by symbol from a vendor's library.
//!
//! Facts from GmSSL 3.3's `src/sdf/sdf.h` and `sgd.h` (GM/T 0018-2012 / GB/T 36322-2018
//! names): every function returns `int` (`SDR_OK` = 0), handles are `void *`, lengths and
//! indexes `unsigned int`. The structures are packed in the headers; their fields need no
//! padding, so `repr(C)` lays them out identically.

use crate::error::SdfError;
use core::ffi::{c_int, c_uint, c_void};

/// `ECCref_MAX_BITS` / `ECCref_MAX_LEN`: coordinates are right-aligned in 64-byte fields.
pub(crate) const ECC_MAX_LEN: usize = 64;

/// `SGD_SM2_3`: SM2 encryption (`sgd.h`).
pub(crate) const SGD_SM2_3: c_uint = 0x0002_0800;

/// `ECCrefPublicKey { unsigned int bits; unsigned char x[64], y[64]; }`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct EccRefPublicKey {
    /// The key size in bits (256 for SM2).
    pub bits: c_uint,
    /// x, right-aligned.
    pub x: [u8; ECC_MAX_LEN],
    /// y, right-aligned.
    pub y: [u8; ECC_MAX_LEN],
}

/// `ECCSignature { unsigned char r[64], s[64]; }`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct EccSignature {
    /// r, right-aligned.
    pub r: [u8; ECC_MAX_LEN],
    /// s, right-aligned.
    pub s: [u8; ECC_MAX_LEN],
}

/// The fixed head of `ECCCipher { x[64], y[64], M[32], unsigned int L, C[] }` (C1 as x, y;
/// M = C3; L = |C2|; C2 follows). Vendors size `C` differently (`C[1]` as a flexible
/// array, GmSSL/SoftSDF up to 255 bytes), so the caller allocates head and body together.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct EccCipherHead {
    /// x1, right-aligned.
    pub x: [u8; ECC_MAX_LEN],
    /// y1, right-aligned.
    pub y: [u8; ECC_MAX_LEN],
    /// C3 = SM3(x2 ‖ M ‖ y2).
    pub m: [u8; 32],
    /// |C2|.
    pub l: c_uint,
}

/// The head's size: 164 bytes.
pub(crate) const CIPHER_HEAD: usize = core::mem::size_of::<EccCipherHead>();

/// `DEVICEINFO` (`SDF_GetDeviceInfo`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DeviceInfoRaw {
    /// Maker, NUL-padded.
    pub issuer_name: [u8; 40],
    /// Model, NUL-padded.
    pub device_name: [u8; 16],
    /// Serial number, NUL-padded.
    pub device_serial: [u8; 16],
    /// Device version.
    pub device_version: c_uint,
    /// The interface standard's version.
    pub standard_version: c_uint,
    /// Asymmetric algorithms (bit mask) and the largest modulus.
    pub asym_alg_ability: [c_uint; 2],
    /// Symmetric algorithms (bit mask).
    pub sym_alg_ability: c_uint,
    /// Hash algorithms (bit mask).
    pub hash_alg_ability: c_uint,
    /// The largest buffer the device takes.
    pub buffer_size: c_uint,
}

/// A device or session handle.
pub(crate) type Handle = *mut c_void;

type OpenDevice = unsafe extern "C" fn(*mut Handle) -> c_int;
type CloseHandle = unsafe extern "C" fn(Handle) -> c_int;
type OpenSession = unsafe extern "C" fn(Handle, *mut Handle) -> c_int;
type GetDeviceInfo = unsafe extern "C" fn(Handle, *mut DeviceInfoRaw) -> c_int;
type GenerateRandom = unsafe extern "C" fn(Handle, c_uint, *mut u8) -> c_int;
type GetAccessRight = unsafe extern "C" fn(Handle, c_uint, *const u8, c_uint) -> c_int;
type ReleaseAccessRight = unsafe extern "C" fn(Handle, c_uint) -> c_int;
type ExportPublicKey = unsafe extern "C" fn(Handle, c_uint, *mut EccRefPublicKey) -> c_int;
type InternalSign =
    unsafe extern "C" fn(Handle, c_uint, *const u8, c_uint, *mut EccSignature) -> c_int;
type InternalVerify =
    unsafe extern "C" fn(Handle, c_uint, *const u8, c_uint, *const EccSignature) -> c_int;
type InternalDecrypt = unsafe extern "C" fn(
    Handle,
    c_uint,
    c_uint,
    *const EccCipherHead,
    *mut u8,
    *mut c_uint,
) -> c_int;

/// The functions this crate calls, copied out of the library (which [`Library`] keeps
/// loaded as long as the table lives).
pub(crate) struct Functions {
    pub open_device: OpenDevice,
    pub close_device: CloseHandle,
    pub open_session: OpenSession,
    pub close_session: CloseHandle,
    pub get_device_info: Option<GetDeviceInfo>,
    pub generate_random: GenerateRandom,
    pub get_access_right: GetAccessRight,
    pub release_access_right: ReleaseAccessRight,
    pub export_sign_public: ExportPublicKey,
    pub export_enc_public: ExportPublicKey,
    pub internal_sign: InternalSign,
    pub internal_verify: Option<InternalVerify>,
    pub internal_decrypt: Option<InternalDecrypt>,
}

/// A loaded vendor library and its function table.
pub(crate) struct Library {
    pub fns: Functions,
    // Declared last: dropped (unloaded) after the table is gone.
    _lib: libloading::Library,
}

/// Copies a function pointer of type `T` out of `lib`.
///
/// # Safety
/// `T` must be the symbol's true C signature.
unsafe fn symbol<T: Copy>(lib: &libloading::Library, name: &'static str) -> Option<T> {
    // SAFETY: the caller gives the signature (GM/T 0018's, above); the pointer is used only
    // while `Library` keeps `lib` loaded.
    unsafe { lib.get::<T>(name.as_bytes()) }.ok().map(|s| *s)
}

/// Resolves a required symbol.
///
/// # Safety
/// As [`symbol`].
unsafe fn required<T: Copy>(lib: &libloading::Library, name: &'static str) -> Result<T, SdfError> {
    // SAFETY: forwarded from the caller.
    unsafe { symbol(lib, name) }.ok_or(SdfError::MissingSymbol(name))
}

impl Library {
    /// Loads the library at `path` and resolves the table; a missing required function is
    /// [`SdfError::MissingSymbol`], optional ones (`SDF_GetDeviceInfo`,
    /// `SDF_InternalVerify_ECC`, `SDF_InternalDecrypt_ECC`) are left empty and reported
    /// when used.
    pub(crate) fn load(path: &std::ffi::OsStr) -> Result<Self, SdfError> {
        // SAFETY: loading runs the library's initialisers; the caller chose the library as
        // its SDF device library, which is the trust this crate rests on.
        let lib =
            unsafe { libloading::Library::new(path) }.map_err(|e| SdfError::Load(e.to_string()))?;
        // SAFETY: each type below is the GM/T 0018 signature of the named function.
        let fns = unsafe {
            Functions {
                open_device: required(&lib, "SDF_OpenDevice")?,
                close_device: required(&lib, "SDF_CloseDevice")?,
                open_session: required(&lib, "SDF_OpenSession")?,
                close_session: required(&lib, "SDF_CloseSession")?,
                get_device_info: symbol(&lib, "SDF_GetDeviceInfo"),
                generate_random: required(&lib, "SDF_GenerateRandom")?,
                get_access_right: required(&lib, "SDF_GetPrivateKeyAccessRight")?,
                release_access_right: required(&lib, "SDF_ReleasePrivateKeyAccessRight")?,
                export_sign_public: required(&lib, "SDF_ExportSignPublicKey_ECC")?,
                export_enc_public: required(&lib, "SDF_ExportEncPublicKey_ECC")?,
                internal_sign: required(&lib, "SDF_InternalSign_ECC")?,
                internal_verify: symbol(&lib, "SDF_InternalVerify_ECC"),
                internal_decrypt: symbol(&lib, "SDF_InternalDecrypt_ECC"),
            }
        };
        Ok(Library { fns, _lib: lib })
    }
}
