//! The GM/T 0018 (SDF) C interface: structures, algorithm identifiers and the function
//! table, resolved symbol by symbol from a vendor's library.
//!
//! Facts from GmSSL 3.3's `src/sdf/sdf.h` and `sgd.h` (GM/T 0018-2012 / GB/T 36322-2018
//! names): every function returns `int` (`SDR_OK` = 0), handles are `void *`, lengths and
//! indexes `unsigned int`. The structures are packed in the headers; their fields need no
//! padding, so `repr(C)` lays them out identically. The SM2 structures are GM/T 0016's as
//! well, so they are `shangmi_device`'s.

use crate::error::SdfError;
use core::ffi::{c_int, c_uint, c_void};
pub(crate) use shangmi_device::{EccCipher, EccPublicKey, EccSignature};

/// `SGD_SM2_3`: SM2 encryption (`sgd.h`).
pub(crate) const SGD_SM2_3: c_uint = 0x0002_0800;

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
type ExportPublicKey = unsafe extern "C" fn(Handle, c_uint, *mut EccPublicKey) -> c_int;
type InternalSign =
    unsafe extern "C" fn(Handle, c_uint, *const u8, c_uint, *mut EccSignature) -> c_int;
type InternalVerify =
    unsafe extern "C" fn(Handle, c_uint, *const u8, c_uint, *const EccSignature) -> c_int;
type InternalDecrypt =
    unsafe extern "C" fn(Handle, c_uint, c_uint, *const EccCipher, *mut u8, *mut c_uint) -> c_int;

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
pub(crate) type Library = shangmi_device::Loaded<Functions>;

impl From<shangmi_device::LoadError> for SdfError {
    fn from(e: shangmi_device::LoadError) -> Self {
        match e {
            shangmi_device::LoadError::Library(why) => SdfError::Load(why),
            shangmi_device::LoadError::MissingSymbol(name) => SdfError::MissingSymbol(name),
        }
    }
}

impl Functions {
    /// Loads the library at `path` and resolves the table; a missing required function is
    /// [`SdfError::MissingSymbol`], optional ones (`SDF_GetDeviceInfo`,
    /// `SDF_InternalVerify_ECC`, `SDF_InternalDecrypt_ECC`) are left empty and reported
    /// when used.
    pub(crate) fn load(path: &std::ffi::OsStr) -> Result<Library, SdfError> {
        // SAFETY: each type below is the GM/T 0018 signature of the named function; the
        // table lives in `Loaded` beside the library, which outlives it.
        Ok(Library::load(path, |lib| unsafe {
            Ok(Functions {
                open_device: lib.required("SDF_OpenDevice")?,
                close_device: lib.required("SDF_CloseDevice")?,
                open_session: lib.required("SDF_OpenSession")?,
                close_session: lib.required("SDF_CloseSession")?,
                get_device_info: lib.symbol("SDF_GetDeviceInfo"),
                generate_random: lib.required("SDF_GenerateRandom")?,
                get_access_right: lib.required("SDF_GetPrivateKeyAccessRight")?,
                release_access_right: lib.required("SDF_ReleasePrivateKeyAccessRight")?,
                export_sign_public: lib.required("SDF_ExportSignPublicKey_ECC")?,
                export_enc_public: lib.required("SDF_ExportEncPublicKey_ECC")?,
                internal_sign: lib.required("SDF_InternalSign_ECC")?,
                internal_verify: lib.symbol("SDF_InternalVerify_ECC"),
                internal_decrypt: lib.symbol("SDF_InternalDecrypt_ECC"),
            })
        })?)
    }
}

// The SM2 key agreement (GM/T 0018-2012 §6.3.14, .15) and the keyed hash of GM/T 0018-2023
// (§6.6, `SDF_HMACInit/Update/Final`), resolved when a key is opened (`agree.rs`).

/// `SDF_GenerateAgreementDataWithECC` (the sponsor's first step).
pub(crate) type GenerateAgreementData = unsafe extern "C" fn(
    Handle,
    c_uint,
    c_uint,
    *const u8,
    c_uint,
    *mut EccPublicKey,
    *mut EccPublicKey,
    *mut Handle,
) -> c_int;
/// `SDF_GenerateKeyWithECC` (the sponsor completes: a key handle).
pub(crate) type GenerateKeyWithEcc = unsafe extern "C" fn(
    Handle,
    *const u8,
    c_uint,
    *const EccPublicKey,
    *const EccPublicKey,
    Handle,
    *mut Handle,
) -> c_int;
/// `SDF_GenerateAgreementDataAndKeyWithECC` (the responder in one step: its points out,
/// and a key handle).
pub(crate) type GenerateAgreementDataAndKey = unsafe extern "C" fn(
    Handle,
    c_uint,
    c_uint,
    *const u8,
    c_uint,
    *const u8,
    c_uint,
    *const EccPublicKey,
    *const EccPublicKey,
    *mut EccPublicKey,
    *mut EccPublicKey,
    *mut Handle,
) -> c_int;
/// `SDF_HMACInit(session, key handle, hash algorithm)`.
pub(crate) type HmacInit = unsafe extern "C" fn(Handle, Handle, c_uint) -> c_int;
/// `SDF_HMACUpdate(session, data, length)`.
pub(crate) type HmacUpdate = unsafe extern "C" fn(Handle, *const u8, c_uint) -> c_int;
/// `SDF_HMACFinal(session, mac, length)`.
pub(crate) type HmacFinal = unsafe extern "C" fn(Handle, *mut u8, *mut c_uint) -> c_int;
/// `SDF_DestroyKey(session, key handle)`.
pub(crate) type DestroyKey = unsafe extern "C" fn(Handle, Handle) -> c_int;
/// `SGD_SM3` (`sgd.h`).
pub(crate) const SGD_SM3: c_uint = 0x0000_0001;
