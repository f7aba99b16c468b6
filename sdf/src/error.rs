//! Typed errors: every `SDR_*` code by name, and what can go wrong around the device.
//!
//! Codes from GmSSL 3.3's `src/sdf/sdf.h` (GM/T 0018 §A: `SDR_BASE` 0x01000000 + n), which
//! are GM/T 0018-2012's +0x01 to +0x1E; GM/T 0018-2023 keeps them and adds one,
//! `SDR_USERIDERR` (+0x1F), reserving +0x20 to +0xFFFFFF (the 2023 Appendix A as quoted by
//! vendors' headers for the 2023 edition found in public repositories, e.g. a
//! `sdf_err.h` with "`SDR_USERIDERR (SDR_BASE + 0x0000001F)` 用户标识错误"). No error carries
//! a PIN or key material.

use core::fmt;

use shangmi_device::BadOutput;

/// The `SDR_*` codes of GM/T 0018 (`SDR_BASE` = 0x01000000 plus the value named).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SdrCode {
    /// `SDR_UNKNOWERR` (+1): unknown error.
    Unknown,
    /// `SDR_NOTSUPPORT` (+2): function not supported.
    NotSupported,
    /// `SDR_COMMFAIL` (+3): communication with the device failed.
    CommFail,
    /// `SDR_HARDFAIL` (+4): the device does not respond.
    HardFail,
    /// `SDR_OPENDEVICE` (+5): opening the device failed.
    OpenDevice,
    /// `SDR_OPENSESSION` (+6): opening a session failed.
    OpenSession,
    /// `SDR_PARDENY` (+7): no access right (a wrong PIN, or the right not granted).
    PermissionDenied,
    /// `SDR_KEYNOTEXIST` (+8): no key at that index.
    KeyNotExist,
    /// `SDR_ALGNOTSUPPORT` (+9): algorithm not supported.
    AlgNotSupported,
    /// `SDR_ALGMODNOTSUPPORT` (+0xA): algorithm mode not supported.
    AlgModeNotSupported,
    /// `SDR_PKOPERR` (+0xB): public-key operation failed.
    PublicKeyOpFailed,
    /// `SDR_SKOPERR` (+0xC): private-key operation failed.
    PrivateKeyOpFailed,
    /// `SDR_SIGNERR` (+0xD): signing failed.
    SignFailed,
    /// `SDR_VERIFYERR` (+0xE): verification failed.
    VerifyFailed,
    /// `SDR_SYMOPERR` (+0xF): symmetric operation failed.
    SymOpFailed,
    /// `SDR_STEPERR` (+0x10): steps out of order.
    StepError,
    /// `SDR_FILESIZEERR` (+0x11): file too large.
    FileSize,
    /// `SDR_FILENOEXIST` (+0x12): no such file.
    FileNotExist,
    /// `SDR_FILEOFSERR` (+0x13): file offset out of range.
    FileOffset,
    /// `SDR_KEYTYPEERR` (+0x14): wrong key type.
    KeyType,
    /// `SDR_KEYERR` (+0x15): key error.
    Key,
    /// `SDR_ENCDATAERR` (+0x16): malformed ciphertext.
    EncData,
    /// `SDR_RANDERR` (+0x17): random generation failed.
    Random,
    /// `SDR_PRKRERR` (+0x18): private-key access right error.
    PrivateKeyAccessRight,
    /// `SDR_MACERR` (+0x19): MAC operation failed.
    Mac,
    /// `SDR_FILEEXISTS` (+0x1A): file exists.
    FileExists,
    /// `SDR_FILEWERR` (+0x1B): file write failed.
    FileWrite,
    /// `SDR_NOBUFFER` (+0x1C): out of memory.
    NoBuffer,
    /// `SDR_INARGERR` (+0x1D): bad input argument.
    InArg,
    /// `SDR_OUTARGERR` (+0x1E): bad output argument.
    OutArg,
    /// `SDR_USERIDERR` (+0x1F): bad user identifier — new in GM/T 0018-2023 (its
    /// Appendix A, as vendors' 2023 headers define it); a 2012 device never returns it.
    UserId,
    /// Any other value (a vendor's own code), as returned.
    Other(u32),
}

/// `SDR_BASE`.
const SDR_BASE: u32 = 0x0100_0000;

const NAMED: [SdrCode; 31] = [
    SdrCode::Unknown,
    SdrCode::NotSupported,
    SdrCode::CommFail,
    SdrCode::HardFail,
    SdrCode::OpenDevice,
    SdrCode::OpenSession,
    SdrCode::PermissionDenied,
    SdrCode::KeyNotExist,
    SdrCode::AlgNotSupported,
    SdrCode::AlgModeNotSupported,
    SdrCode::PublicKeyOpFailed,
    SdrCode::PrivateKeyOpFailed,
    SdrCode::SignFailed,
    SdrCode::VerifyFailed,
    SdrCode::SymOpFailed,
    SdrCode::StepError,
    SdrCode::FileSize,
    SdrCode::FileNotExist,
    SdrCode::FileOffset,
    SdrCode::KeyType,
    SdrCode::Key,
    SdrCode::EncData,
    SdrCode::Random,
    SdrCode::PrivateKeyAccessRight,
    SdrCode::Mac,
    SdrCode::FileExists,
    SdrCode::FileWrite,
    SdrCode::NoBuffer,
    SdrCode::InArg,
    SdrCode::OutArg,
    SdrCode::UserId,
];

impl SdrCode {
    /// From a function's nonzero return value.
    pub fn from_u32(v: u32) -> Self {
        v.checked_sub(SDR_BASE + 1)
            .and_then(|i| NAMED.get(i as usize).copied())
            .unwrap_or(SdrCode::Other(v))
    }

    /// The value a device returns for it.
    pub fn to_u32(self) -> u32 {
        match self {
            SdrCode::Other(v) => v,
            named => NAMED
                .iter()
                .position(|c| *c == named)
                .map_or(SDR_BASE, |i| SDR_BASE + 1 + i as u32),
        }
    }

    /// The header's name (`SDR_PARDENY`, …), or `None` for a vendor's own code.
    pub fn name(self) -> Option<&'static str> {
        const NAMES: [&str; 31] = [
            "SDR_UNKNOWERR",
            "SDR_NOTSUPPORT",
            "SDR_COMMFAIL",
            "SDR_HARDFAIL",
            "SDR_OPENDEVICE",
            "SDR_OPENSESSION",
            "SDR_PARDENY",
            "SDR_KEYNOTEXIST",
            "SDR_ALGNOTSUPPORT",
            "SDR_ALGMODNOTSUPPORT",
            "SDR_PKOPERR",
            "SDR_SKOPERR",
            "SDR_SIGNERR",
            "SDR_VERIFYERR",
            "SDR_SYMOPERR",
            "SDR_STEPERR",
            "SDR_FILESIZEERR",
            "SDR_FILENOEXIST",
            "SDR_FILEOFSERR",
            "SDR_KEYTYPEERR",
            "SDR_KEYERR",
            "SDR_ENCDATAERR",
            "SDR_RANDERR",
            "SDR_PRKRERR",
            "SDR_MACERR",
            "SDR_FILEEXISTS",
            "SDR_FILEWERR",
            "SDR_NOBUFFER",
            "SDR_INARGERR",
            "SDR_OUTARGERR",
            "SDR_USERIDERR",
        ];
        NAMED.iter().position(|c| *c == self).map(|i| NAMES[i])
    }
}

impl fmt::Display for SdrCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        shangmi_device::fmt_code(f, self.name(), self.to_u32())
    }
}

/// Everything that can go wrong with an SDF device; no device output makes this crate
/// panic.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SdfError {
    /// The library could not be loaded (the loader's message: a path, never a secret).
    Load(String),
    /// The library lacks a function this crate needs.
    MissingSymbol(&'static str),
    /// A function returned an `SDR_*` code.
    Device {
        /// The function.
        function: &'static str,
        /// Its code.
        code: SdrCode,
    },
    /// The device returned something malformed (which function, what was wrong).
    BadOutput(BadOutput),
    /// Every session of the key's pool stayed busy for the whole wait.
    SessionsExhausted,
    /// The key cannot do this: a sign key asked to decrypt, an encryption key to sign, or
    /// an operation the library does not export.
    Unsupported(&'static str),
    /// The input was refused before reaching the device (a malformed ciphertext, a buffer
    /// too short), or an SM2 computation on this side failed.
    Sm2(shangmi_sm2::Error),
}

impl SdfError {
    /// Whether this is the device refusing the PIN or an operation without the access right
    /// (`SDR_PARDENY`, `SDR_PRKRERR`).
    pub fn is_access_denied(&self) -> bool {
        matches!(
            self,
            SdfError::Device {
                code: SdrCode::PermissionDenied | SdrCode::PrivateKeyAccessRight,
                ..
            }
        )
    }
}

impl fmt::Display for SdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SdfError::Load(why) => write!(f, "cannot load the SDF library: {why}"),
            SdfError::MissingSymbol(name) => write!(f, "the SDF library lacks {name}"),
            SdfError::Device { function, code } => write!(f, "{function} failed: {code}"),
            SdfError::BadOutput(e) => e.fmt(f),
            SdfError::SessionsExhausted => f.write_str("every SDF session stayed busy"),
            SdfError::Unsupported(what) => write!(f, "not supported: {what}"),
            SdfError::Sm2(e) => write!(f, "SM2: {e}"),
        }
    }
}

impl std::error::Error for SdfError {}

shangmi_device::error_conversions!(SdfError);

impl shangmi_sm2::KeyOpError for SdfError {
    fn is_refused_input(&self) -> bool {
        match self {
            SdfError::Sm2(e) => e.is_refused_input(),
            SdfError::Device {
                code: SdrCode::EncData,
                ..
            } => true,
            _ => false,
        }
    }
}

/// `Ok` for `SDR_OK`, the named error otherwise.
pub(crate) fn check(function: &'static str, rv: core::ffi::c_int) -> Result<(), SdfError> {
    if rv == 0 {
        Ok(())
    } else {
        Err(SdfError::Device {
            function,
            code: SdrCode::from_u32(rv as u32),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_with_their_names() {
        for (i, c) in NAMED.iter().enumerate() {
            let v = SDR_BASE + 1 + i as u32;
            assert_eq!(SdrCode::from_u32(v), *c);
            assert_eq!(c.to_u32(), v);
        }
        assert_eq!(SdrCode::from_u32(0x0100_0007).name(), Some("SDR_PARDENY"));
        assert_eq!(SdrCode::from_u32(0x0100_001E).name(), Some("SDR_OUTARGERR"));
        // GM/T 0018-2023's one new code; above it, a vendor's own.
        assert_eq!(SdrCode::from_u32(0x0100_001F), SdrCode::UserId);
        assert_eq!(SdrCode::UserId.name(), Some("SDR_USERIDERR"));
        assert_eq!(SdrCode::from_u32(0x0100_0020), SdrCode::Other(0x0100_0020));
        assert_eq!(SdrCode::from_u32(0x0100_0000), SdrCode::Other(0x0100_0000));
        assert_eq!(SdrCode::from_u32(5), SdrCode::Other(5));
        assert_eq!(
            SdrCode::KeyNotExist.to_string(),
            "SDR_KEYNOTEXIST (0x01000008)"
        );
    }
}
