//! The GM/T 0016 (SKF) C interface: structures and the function table, resolved symbol by
//! symbol from a vendor's library.
//!
//! Facts from GmSSL 3.3's `src/skf/skf.h` (GM/T 0016-2012 names): every function returns
//! `ULONG` (`SAR_OK` = 0), `ULONG` and `BOOL` are 32-bit, handles are `void *`, names are
//! NUL-terminated strings and name lists are NUL-separated with a final empty name. The
//! structures are packed (`#pragma pack(1)`); `DEVINFO` needs it, the blobs need no padding
//! either way.

use crate::error::SkfError;
use core::ffi::{c_char, c_void};

/// `ULONG`.
pub(crate) type Ulong = u32;
/// `BOOL`.
pub(crate) type Bool = i32;
/// Any handle (`DEVHANDLE`, `HAPPLICATION`, `HCONTAINER`).
pub(crate) type Handle = *mut c_void;

/// `ECC_MAX_XCOORDINATE_BITS_LEN / 8`: coordinates are right-aligned in 64-byte fields.
pub(crate) const ECC_MAX_LEN: usize = 64;

/// `ECCPUBLICKEYBLOB { ULONG BitLen; BYTE XCoordinate[64], YCoordinate[64]; }`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct EccPublicKeyBlob {
    pub bit_len: Ulong,
    pub x: [u8; ECC_MAX_LEN],
    pub y: [u8; ECC_MAX_LEN],
}

/// `ECCSIGNATUREBLOB { BYTE r[64], s[64]; }`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct EccSignatureBlob {
    pub r: [u8; ECC_MAX_LEN],
    pub s: [u8; ECC_MAX_LEN],
}

/// The fixed head of `ECCCIPHERBLOB { x[64], y[64], HASH[32], ULONG CipherLen, BYTE
/// Cipher[] }` (C1, C3, |C2|); C2 follows, so the caller allocates head and body together.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct EccCipherHead {
    pub x: [u8; ECC_MAX_LEN],
    pub y: [u8; ECC_MAX_LEN],
    pub hash: [u8; 32],
    pub cipher_len: Ulong,
}

/// The head's size: 164 bytes.
pub(crate) const CIPHER_HEAD: usize = core::mem::size_of::<EccCipherHead>();

/// `VERSION { BYTE major, minor; }`.
#[repr(C, packed)]
#[derive(Clone, Copy)]
pub(crate) struct Version {
    pub major: u8,
    pub minor: u8,
}

/// `DEVINFO` (packed: the `ULONG`s after the versions are unaligned).
#[repr(C, packed)]
#[derive(Clone, Copy)]
pub(crate) struct DevInfoRaw {
    pub version: Version,
    pub manufacturer: [u8; 64],
    pub issuer: [u8; 64],
    pub label: [u8; 32],
    pub serial_number: [u8; 32],
    pub hw_version: Version,
    pub firmware_version: Version,
    pub alg_sym_cap: Ulong,
    pub alg_asym_cap: Ulong,
    pub alg_hash_cap: Ulong,
    pub dev_auth_alg_id: Ulong,
    pub total_space: Ulong,
    pub free_space: Ulong,
    pub max_ecc_buffer_size: Ulong,
    pub max_buffer_size: Ulong,
    pub reserved: [u8; 64],
}

const _: () = assert!(core::mem::size_of::<DevInfoRaw>() == 294);
const _: () = assert!(core::mem::size_of::<EccPublicKeyBlob>() == 132);

type EnumNames = unsafe extern "C" fn(Handle, *mut c_char, *mut Ulong) -> Ulong;
type EnumDev = unsafe extern "C" fn(Bool, *mut c_char, *mut Ulong) -> Ulong;
type ConnectDev = unsafe extern "C" fn(*const c_char, *mut Handle) -> Ulong;
type CloseHandle = unsafe extern "C" fn(Handle) -> Ulong;
type GetDevInfo = unsafe extern "C" fn(Handle, *mut DevInfoRaw) -> Ulong;
type OpenByName = unsafe extern "C" fn(Handle, *const c_char, *mut Handle) -> Ulong;
type VerifyPin = unsafe extern "C" fn(Handle, Ulong, *const c_char, *mut Ulong) -> Ulong;
type GetContainerType = unsafe extern "C" fn(Handle, *mut Ulong) -> Ulong;
type ExportBytes = unsafe extern "C" fn(Handle, Bool, *mut u8, *mut Ulong) -> Ulong;
type EccSignData = unsafe extern "C" fn(Handle, *const u8, Ulong, *mut EccSignatureBlob) -> Ulong;
type EccDecrypt = unsafe extern "C" fn(Handle, *const EccCipherHead, *mut u8, *mut Ulong) -> Ulong;
type GenRandom = unsafe extern "C" fn(Handle, *mut u8, Ulong) -> Ulong;

/// The functions this crate calls, copied out of the library (which [`Library`] keeps
/// loaded as long as the table lives).
pub(crate) struct Functions {
    pub enum_dev: EnumDev,
    pub connect_dev: ConnectDev,
    pub disconnect_dev: CloseHandle,
    pub get_dev_info: Option<GetDevInfo>,
    pub enum_application: EnumNames,
    pub open_application: OpenByName,
    pub close_application: CloseHandle,
    pub verify_pin: VerifyPin,
    pub clear_secure_state: Option<CloseHandle>,
    pub enum_container: EnumNames,
    pub open_container: OpenByName,
    pub close_container: CloseHandle,
    pub get_container_type: Option<GetContainerType>,
    pub export_public_key: ExportBytes,
    pub export_certificate: Option<ExportBytes>,
    pub ecc_sign_data: Option<EccSignData>,
    pub ecc_decrypt: Option<EccDecrypt>,
    pub gen_random: Option<GenRandom>,
}

/// The optional functions, by name, and whether the library has each.
pub(crate) const OPTIONAL: [&str; 7] = [
    "SKF_GetDevInfo",
    "SKF_ClearSecureState",
    "SKF_GetContainerType",
    "SKF_ExportCertificate",
    "SKF_ECCSignData",
    "SKF_ECCDecrypt",
    "SKF_GenRandom",
];

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
    // SAFETY: the caller gives the signature (GM/T 0016's, above); the pointer is used only
    // while `Library` keeps `lib` loaded.
    unsafe { lib.get::<T>(name.as_bytes()) }.ok().map(|s| *s)
}

/// Resolves a required symbol.
///
/// # Safety
/// As [`symbol`].
unsafe fn required<T: Copy>(lib: &libloading::Library, name: &'static str) -> Result<T, SkfError> {
    // SAFETY: forwarded from the caller.
    unsafe { symbol(lib, name) }.ok_or(SkfError::MissingSymbol(name))
}

impl Library {
    /// Loads the library at `path` and resolves the table: a missing required function
    /// (enumeration, connection, applications, PIN, containers, public keys) is
    /// [`SkfError::MissingSymbol`] now; the optional ones ([`OPTIONAL`]) are left empty and
    /// reported by [`Capabilities`](crate::Capabilities) and when used.
    pub(crate) fn load(path: &std::ffi::OsStr) -> Result<Self, SkfError> {
        // SAFETY: loading runs the library's initialisers; the caller chose the library as
        // its SKF device library, which is the trust this crate rests on.
        let lib =
            unsafe { libloading::Library::new(path) }.map_err(|e| SkfError::Load(e.to_string()))?;
        // SAFETY: each type below is the GM/T 0016 signature of the named function.
        let fns = unsafe {
            Functions {
                enum_dev: required(&lib, "SKF_EnumDev")?,
                connect_dev: required(&lib, "SKF_ConnectDev")?,
                disconnect_dev: required(&lib, "SKF_DisConnectDev")?,
                get_dev_info: symbol(&lib, "SKF_GetDevInfo"),
                enum_application: required(&lib, "SKF_EnumApplication")?,
                open_application: required(&lib, "SKF_OpenApplication")?,
                close_application: required(&lib, "SKF_CloseApplication")?,
                verify_pin: required(&lib, "SKF_VerifyPIN")?,
                clear_secure_state: symbol(&lib, "SKF_ClearSecureState"),
                enum_container: required(&lib, "SKF_EnumContainer")?,
                open_container: required(&lib, "SKF_OpenContainer")?,
                close_container: required(&lib, "SKF_CloseContainer")?,
                get_container_type: symbol(&lib, "SKF_GetContainerType"),
                export_public_key: required(&lib, "SKF_ExportPublicKey")?,
                export_certificate: symbol(&lib, "SKF_ExportCertificate"),
                ecc_sign_data: symbol(&lib, "SKF_ECCSignData"),
                ecc_decrypt: symbol(&lib, "SKF_ECCDecrypt"),
                gen_random: symbol(&lib, "SKF_GenRandom"),
            }
        };
        Ok(Library { fns, _lib: lib })
    }

    /// Whether the optional function `name` (one of [`OPTIONAL`]) was found.
    pub(crate) fn has(&self, name: &str) -> bool {
        let f = &self.fns;
        match name {
            "SKF_GetDevInfo" => f.get_dev_info.is_some(),
            "SKF_ClearSecureState" => f.clear_secure_state.is_some(),
            "SKF_GetContainerType" => f.get_container_type.is_some(),
            "SKF_ExportCertificate" => f.export_certificate.is_some(),
            "SKF_ECCSignData" => f.ecc_sign_data.is_some(),
            "SKF_ECCDecrypt" => f.ecc_decrypt.is_some(),
            "SKF_GenRandom" => f.gen_random.is_some(),
            _ => true,
        }
    }
}
