//! The GM/T 0016 (SKF) C interface: structures and the function table, resolved symbol by
//! symbol from a vendor's library.
//!
//! Facts from GmSSL 3.3's `src/skf/skf.h` (GM/T 0016-2012 names): every function returns
//! `ULONG` (`SAR_OK` = 0), `ULONG` and `BOOL` are 32-bit, handles are `void *`, names are
//! NUL-terminated strings and name lists are NUL-separated with a final empty name. The
//! structures are packed (`#pragma pack(1)`); `DEVINFO` needs it, the blobs need no padding
//! either way. The SM2 blobs are GM/T 0018's structures as well, so they are
//! `shangmi_device`'s.

use core::ffi::{c_char, c_void};

/// `ULONG`.
pub(crate) type Ulong = u32;
/// `BOOL`.
pub(crate) type Bool = i32;
/// Any handle (`DEVHANDLE`, `HAPPLICATION`, `HCONTAINER`).
pub(crate) type Handle = *mut c_void;

pub(crate) use shangmi_device::{EccCipher, EccPublicKey, EccSignature};

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

pub(crate) type EnumNames = unsafe extern "C" fn(Handle, *mut c_char, *mut Ulong) -> Ulong;
type EnumDev = unsafe extern "C" fn(Bool, *mut c_char, *mut Ulong) -> Ulong;
type ConnectDev = unsafe extern "C" fn(*const c_char, *mut Handle) -> Ulong;
type CloseHandle = unsafe extern "C" fn(Handle) -> Ulong;
type GetDevInfo = unsafe extern "C" fn(Handle, *mut DevInfoRaw) -> Ulong;
pub(crate) type OpenByName = unsafe extern "C" fn(Handle, *const c_char, *mut Handle) -> Ulong;
type VerifyPin = unsafe extern "C" fn(Handle, Ulong, *const c_char, *mut Ulong) -> Ulong;
type GetContainerType = unsafe extern "C" fn(Handle, *mut Ulong) -> Ulong;
type ExportBytes = unsafe extern "C" fn(Handle, Bool, *mut u8, *mut Ulong) -> Ulong;
type EccSignData = unsafe extern "C" fn(Handle, *const u8, Ulong, *mut EccSignature) -> Ulong;
type EccDecrypt = unsafe extern "C" fn(Handle, *const EccCipher, *mut u8, *mut Ulong) -> Ulong;
type GenRandom = unsafe extern "C" fn(Handle, *mut u8, Ulong) -> Ulong;

shangmi_device::function_table! {
    /// The functions this crate calls, copied out of the library (which [`Library`] keeps
    /// loaded as long as the table lives): a missing required function (enumeration,
    /// connection, applications, PIN, containers, public keys) is
    /// [`SkfError::MissingSymbol`](crate::SkfError::MissingSymbol) when the library loads;
    /// the optional ones ([`OPTIONAL`]) are left empty and reported by
    /// [`Capabilities`](crate::Capabilities) and when used.
    // SAFETY: each type is the GM/T 0016 signature of the named function.
    pub(crate) unsafe struct Functions {
        pub enum_dev: required EnumDev = "SKF_EnumDev",
        pub connect_dev: required ConnectDev = "SKF_ConnectDev",
        pub disconnect_dev: required CloseHandle = "SKF_DisConnectDev",
        pub get_dev_info: optional GetDevInfo = "SKF_GetDevInfo",
        pub enum_application: required EnumNames = "SKF_EnumApplication",
        pub open_application: required OpenByName = "SKF_OpenApplication",
        pub close_application: required CloseHandle = "SKF_CloseApplication",
        pub verify_pin: required VerifyPin = "SKF_VerifyPIN",
        pub clear_secure_state: optional CloseHandle = "SKF_ClearSecureState",
        pub enum_container: required EnumNames = "SKF_EnumContainer",
        pub open_container: required OpenByName = "SKF_OpenContainer",
        pub close_container: required CloseHandle = "SKF_CloseContainer",
        pub get_container_type: optional GetContainerType = "SKF_GetContainerType",
        pub export_public_key: required ExportBytes = "SKF_ExportPublicKey",
        pub export_certificate: optional ExportBytes = "SKF_ExportCertificate",
        pub ecc_sign_data: optional EccSignData = "SKF_ECCSignData",
        pub ecc_decrypt: optional EccDecrypt = "SKF_ECCDecrypt",
        pub gen_random: optional GenRandom = "SKF_GenRandom",
    }
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
pub(crate) type Library = shangmi_device::Loaded<Functions>;

impl Functions {
    /// Whether the optional function `name` (one of [`OPTIONAL`]) was found.
    pub(crate) fn has(&self, name: &str) -> bool {
        match name {
            "SKF_GetDevInfo" => self.get_dev_info.is_some(),
            "SKF_ClearSecureState" => self.clear_secure_state.is_some(),
            "SKF_GetContainerType" => self.get_container_type.is_some(),
            "SKF_ExportCertificate" => self.export_certificate.is_some(),
            "SKF_ECCSignData" => self.ecc_sign_data.is_some(),
            "SKF_ECCDecrypt" => self.ecc_decrypt.is_some(),
            "SKF_GenRandom" => self.gen_random.is_some(),
            _ => true,
        }
    }
}
