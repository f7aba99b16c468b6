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

shangmi_device::function_table! {
    /// The functions this crate calls, copied out of the library (which [`Library`] keeps
    /// loaded as long as the table lives): a missing required function is
    /// [`SdfError::MissingSymbol`] when the library loads, optional ones
    /// (`SDF_GetDeviceInfo`, `SDF_InternalVerify_ECC`, `SDF_InternalDecrypt_ECC`) are left
    /// empty and reported when used.
    // SAFETY: each type is the GM/T 0018 signature of the named function.
    pub(crate) unsafe struct Functions {
        pub open_device: required OpenDevice = "SDF_OpenDevice",
        pub close_device: required CloseHandle = "SDF_CloseDevice",
        pub open_session: required OpenSession = "SDF_OpenSession",
        pub close_session: required CloseHandle = "SDF_CloseSession",
        pub get_device_info: optional GetDeviceInfo = "SDF_GetDeviceInfo",
        pub generate_random: required GenerateRandom = "SDF_GenerateRandom",
        pub get_access_right: required GetAccessRight = "SDF_GetPrivateKeyAccessRight",
        pub release_access_right: required ReleaseAccessRight = "SDF_ReleasePrivateKeyAccessRight",
        pub export_sign_public: required ExportPublicKey = "SDF_ExportSignPublicKey_ECC",
        pub export_enc_public: required ExportPublicKey = "SDF_ExportEncPublicKey_ECC",
        pub internal_sign: required InternalSign = "SDF_InternalSign_ECC",
        pub internal_verify: optional InternalVerify = "SDF_InternalVerify_ECC",
        pub internal_decrypt: optional InternalDecrypt = "SDF_InternalDecrypt_ECC",
    }
}

/// A loaded vendor library and its function table.
pub(crate) type Library = shangmi_device::Loaded<Functions>;

/// Where an SDF function stands in the two editions of GM/T 0018.
///
/// The 2012 set is GM/T 0018-2012's (as GmSSL 3.3's `src/sdf/sdf.h` and Tongsuo's
/// `crypto/sdf` declare it). The 2023 set follows GM/T 0018-2023 (published 2023-12-04, in
/// force 2024-06-01) as found in public sources, not the standard's own text: the function
/// lists of chapter 6 (6.2–6.7 production functions, 61; 6.8 "verification and debugging"
/// functions, 12, "not for actual cryptographic service") quoted in a design note mapping
/// the 2023 edition ("GM/T 0018-2023 SDF 映射", tables 11–16), the prototypes in a
/// vendor-neutral 2023 header ("Created … on GM/T 0018-2023", `SDF_FUNCTION_INFO`
/// entries), and Tongsuo's `crypto/sdf/sdf_bind.c` (Tongsuo-Project/Tongsuo, commit
/// 5c06c2a), which binds exactly these 2023 additions and 6.8 names under
/// `SDF_VERSION_2023`. No text of the standard itself was found to check against. Appendix B's 15 SM9 functions and Appendix C's 6 VPN functions
/// (`SDF_GenerateKeywithSSL`, …) are optional and not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Standing {
    /// A production function of both editions (same name and prototype).
    Both,
    /// In 2012 only: removed by 2023 (`SDF_ImportKey`, the digital-envelope conversions).
    Removed2023,
    /// A 2012 production function that 2023 moved to its verification and debugging
    /// class (6.8): still named, not for production use (`SDF_ExternalSign_ECC`, …).
    Debug2023,
    /// A production function new in 2023 (6.5 multi-part and authenticated encryption,
    /// 6.6 HMAC).
    New2023,
    /// New in 2023's verification and debugging class (6.8: `SDF_ExternalKeyEncrypt`, …).
    NewDebug2023,
    /// In neither edition's function list, but widely exported (GmSSL's `sdf.h` declares
    /// it): `SDF_InternalEncrypt_ECC` / `SDF_InternalDecrypt_ECC`.
    Extension,
}

/// Every SDF function of the two editions by name, with its [`Standing`].
pub const SDF_FUNCTIONS: &[(&str, Standing)] = {
    use Standing::*;
    &[
        // 6.2 device management: unchanged.
        ("SDF_OpenDevice", Both),
        ("SDF_CloseDevice", Both),
        ("SDF_OpenSession", Both),
        ("SDF_CloseSession", Both),
        ("SDF_GetDeviceInfo", Both),
        ("SDF_GenerateRandom", Both),
        ("SDF_GetPrivateKeyAccessRight", Both),
        ("SDF_ReleasePrivateKeyAccessRight", Both),
        // 6.3 key management.
        ("SDF_ExportSignPublicKey_RSA", Both),
        ("SDF_ExportEncPublicKey_RSA", Both),
        ("SDF_GenerateKeyPair_RSA", Debug2023),
        ("SDF_GenerateKeyWithIPK_RSA", Both),
        ("SDF_GenerateKeyWithEPK_RSA", Both),
        ("SDF_ImportKeyWithISK_RSA", Both),
        ("SDF_ExchangeDigitEnvelopeBaseOnRSA", Removed2023),
        ("SDF_ExportSignPublicKey_ECC", Both),
        ("SDF_ExportEncPublicKey_ECC", Both),
        ("SDF_GenerateKeyPair_ECC", Debug2023),
        ("SDF_GenerateKeyWithIPK_ECC", Both),
        ("SDF_GenerateKeyWithEPK_ECC", Both),
        ("SDF_ImportKeyWithISK_ECC", Both),
        ("SDF_GenerateAgreementDataWithECC", Both),
        ("SDF_GenerateKeyWithECC", Both),
        ("SDF_GenerateAgreementDataAndKeyWithECC", Both),
        ("SDF_ExchangeDigitEnvelopeBaseOnECC", Removed2023),
        ("SDF_GenerateKeyWithKEK", Both),
        ("SDF_ImportKeyWithKEK", Both),
        ("SDF_ImportKey", Removed2023),
        ("SDF_DestroyKey", Both),
        // 6.4 asymmetric operations.
        ("SDF_ExternalPublicKeyOperation_RSA", Both),
        ("SDF_ExternalPrivateKeyOperation_RSA", Debug2023),
        ("SDF_InternalPublicKeyOperation_RSA", Both),
        ("SDF_InternalPrivateKeyOperation_RSA", Both),
        ("SDF_ExternalSign_ECC", Debug2023),
        ("SDF_ExternalVerify_ECC", Both),
        ("SDF_InternalSign_ECC", Both),
        ("SDF_InternalVerify_ECC", Both),
        ("SDF_ExternalEncrypt_ECC", Both),
        ("SDF_ExternalDecrypt_ECC", Debug2023),
        ("SDF_InternalEncrypt_ECC", Extension),
        ("SDF_InternalDecrypt_ECC", Extension),
        // 6.5 symmetric operations: 2023 adds authenticated encryption and multi-part.
        ("SDF_Encrypt", Both),
        ("SDF_Decrypt", Both),
        ("SDF_CalculateMAC", Both),
        ("SDF_AuthEnc", New2023),
        ("SDF_AuthDec", New2023),
        ("SDF_EncryptInit", New2023),
        ("SDF_EncryptUpdate", New2023),
        ("SDF_EncryptFinal", New2023),
        ("SDF_DecryptInit", New2023),
        ("SDF_DecryptUpdate", New2023),
        ("SDF_DecryptFinal", New2023),
        ("SDF_CalculateMACInit", New2023),
        ("SDF_CalculateMACUpdate", New2023),
        ("SDF_CalculateMACFinal", New2023),
        ("SDF_AuthEncInit", New2023),
        ("SDF_AuthEncUpdate", New2023),
        ("SDF_AuthEncFinal", New2023),
        ("SDF_AuthDecInit", New2023),
        ("SDF_AuthDecUpdate", New2023),
        ("SDF_AuthDecFinal", New2023),
        // 6.6 hashing: 2023 adds HMAC over a key handle (GB/T 15852.2);
        // `SDF_HashInit` keeps its 2012 prototype (public key and ID for Z_A).
        ("SDF_HMACInit", New2023),
        ("SDF_HMACUpdate", New2023),
        ("SDF_HMACFinal", New2023),
        ("SDF_HashInit", Both),
        ("SDF_HashUpdate", Both),
        ("SDF_HashFinal", Both),
        // 6.7 user files: unchanged.
        ("SDF_CreateFile", Both),
        ("SDF_ReadFile", Both),
        ("SDF_WriteFile", Both),
        ("SDF_DeleteFile", Both),
        // 6.8 (2023) verification and debugging, new names.
        ("SDF_ExternalSign_SM9", NewDebug2023),
        ("SDF_ExternalDecrypt_SM9", NewDebug2023),
        ("SDF_ExternalKeyEncrypt", NewDebug2023),
        ("SDF_ExternalKeyDecrypt", NewDebug2023),
        ("SDF_ExternalKeyEncryptInit", NewDebug2023),
        ("SDF_ExternalKeyDecryptInit", NewDebug2023),
        ("SDF_ExternalKeyHMACInit", NewDebug2023),
    ]
};

/// Which edition of GM/T 0018 a library's exported functions follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edition {
    /// It exports none of the production functions GM/T 0018-2023 added.
    Gmt0018_2012,
    /// It exports at least one production function new in GM/T 0018-2023.
    Gmt0018_2023,
}

impl core::fmt::Display for Edition {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Edition::Gmt0018_2012 => "GM/T 0018-2012",
            Edition::Gmt0018_2023 => "GM/T 0018-2023",
        })
    }
}

/// What an SDF library exports, function by function ([`library_functions`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryFunctions {
    /// The functions of [`SDF_FUNCTIONS`] the library exports, in that order.
    pub exported: Vec<(&'static str, Standing)>,
}

impl LibraryFunctions {
    /// The edition its functions follow: 2023 if it exports any [`Standing::New2023`]
    /// function (the production functions 2023 added; a 2012 library has none of them).
    pub fn edition(&self) -> Edition {
        if self.exported.iter().any(|(_, s)| *s == Standing::New2023) {
            Edition::Gmt0018_2023
        } else {
            Edition::Gmt0018_2012
        }
    }

    /// The exported functions of one standing.
    pub fn with(&self, standing: Standing) -> impl Iterator<Item = &'static str> + '_ {
        self.exported
            .iter()
            .filter(move |(_, s)| *s == standing)
            .map(|(n, _)| *n)
    }

    /// The 2023 production functions it lacks (of 6.2–6.7, what a 2023 device is
    /// expected to have).
    pub fn missing_2023(&self) -> impl Iterator<Item = &'static str> + '_ {
        SDF_FUNCTIONS
            .iter()
            .filter(|(_, s)| matches!(s, Standing::Both | Standing::New2023))
            .map(|(n, _)| *n)
            .filter(|n| !self.exported.iter().any(|(e, _)| e == n))
    }
}

/// Resolves every function of [`SDF_FUNCTIONS`] by name in the library at `path`, without
/// opening the device (nothing is called: the library is loaded, its exports looked up,
/// and it is unloaded again).
pub fn library_functions(path: impl AsRef<std::ffi::OsStr>) -> Result<LibraryFunctions, SdfError> {
    let lib = shangmi_device::Library::load(path.as_ref()).map_err(SdfError::Load)?;
    let exported = SDF_FUNCTIONS
        .iter()
        .copied()
        // SAFETY: only whether the symbol exists is asked: its address is read as a
        // pointer and dropped, never called or dereferenced.
        .filter(|(name, _)| unsafe { lib.symbol::<*mut c_void>(name) }.is_some())
        .collect();
    Ok(LibraryFunctions { exported })
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
