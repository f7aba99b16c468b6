//! Typed errors: every `SAR_*` code by name, and what can go wrong around the device.
//!
//! Codes from GmSSL 3.3's `src/skf/skf.h` (GM/T 0016-2012 §A: `SAR_FAIL` 0x0A000001 up to
//! `SAR_REACH_MAX_CONTAINER_COUNT` 0x0A000032). No error carries a PIN or key material.

use core::fmt;

use shangmi_device::BadOutput;

macro_rules! sar_codes {
    ($($variant:ident = $value:literal, $name:literal, $doc:literal;)*) => {
        /// The `SAR_*` codes of GM/T 0016 (the value after each name is what a device
        /// returns).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum SarCode {
            $(
                #[doc = concat!("`", $name, "` (", stringify!($value), "): ", $doc, ".")]
                $variant,
            )*
            /// Any other value (a vendor's own code), as returned.
            Other(u32),
        }

        impl SarCode {
            /// From a function's nonzero return value.
            pub fn from_u32(v: u32) -> Self {
                match v {
                    $($value => SarCode::$variant,)*
                    other => SarCode::Other(other),
                }
            }

            /// The value a device returns for it.
            pub fn to_u32(self) -> u32 {
                match self {
                    $(SarCode::$variant => $value,)*
                    SarCode::Other(v) => v,
                }
            }

            /// The header's name (`SAR_PIN_INCORRECT`, …), or `None` for a vendor's own
            /// code.
            pub fn name(self) -> Option<&'static str> {
                match self {
                    $(SarCode::$variant => Some($name),)*
                    SarCode::Other(_) => None,
                }
            }
        }

        #[cfg(test)]
        const ALL: &[(SarCode, u32)] = &[$((SarCode::$variant, $value),)*];
    };
}

sar_codes! {
    Fail = 0x0A00_0001, "SAR_FAIL", "failure";
    Unknown = 0x0A00_0002, "SAR_UNKNOWNERR", "unknown error";
    NotSupported = 0x0A00_0003, "SAR_NOTSUPPORTYETERR", "not supported";
    File = 0x0A00_0004, "SAR_FILEERR", "file error";
    InvalidHandle = 0x0A00_0005, "SAR_INVALIDHANDLEERR", "invalid handle";
    InvalidParam = 0x0A00_0006, "SAR_INVALIDPARAMERR", "invalid parameter";
    ReadFile = 0x0A00_0007, "SAR_READFILEERR", "reading a file failed";
    WriteFile = 0x0A00_0008, "SAR_WRITEFILEERR", "writing a file failed";
    NameLength = 0x0A00_0009, "SAR_NAMELENERR", "name length error";
    KeyUsage = 0x0A00_000A, "SAR_KEYUSAGEERR", "key usage error";
    ModulusLength = 0x0A00_000B, "SAR_MODULUSLENERR", "modulus length error";
    NotInitialized = 0x0A00_000C, "SAR_NOTINITIALIZEERR", "not initialised";
    Object = 0x0A00_000D, "SAR_OBJERR", "object error";
    Memory = 0x0A00_000E, "SAR_MEMORYERR", "out of memory";
    Timeout = 0x0A00_000F, "SAR_TIMEOUTERR", "timed out";
    InDataLength = 0x0A00_0010, "SAR_INDATALENERR", "input length error";
    InData = 0x0A00_0011, "SAR_INDATAERR", "input data error";
    GenRandom = 0x0A00_0012, "SAR_GENRANDERR", "random generation failed";
    HashObject = 0x0A00_0013, "SAR_HASHOBJERR", "hash object error";
    Hash = 0x0A00_0014, "SAR_HASHERR", "hash operation failed";
    GenRsaKey = 0x0A00_0015, "SAR_GENRSAKEYERR", "RSA key generation failed";
    RsaModulusLength = 0x0A00_0016, "SAR_RSAMODULUSLENERR", "RSA modulus length error";
    ImportPublicKey = 0x0A00_0017, "SAR_CSPIMPRTPUBKEYERR", "public-key import failed";
    RsaEncrypt = 0x0A00_0018, "SAR_RSAENCERR", "RSA encryption failed";
    RsaDecrypt = 0x0A00_0019, "SAR_RSADECERR", "RSA decryption failed";
    HashNotEqual = 0x0A00_001A, "SAR_HASHNOTEQUALERR", "hash values differ";
    KeyNotFound = 0x0A00_001B, "SAR_KEYNOTFOUNTERR", "key not found";
    CertNotFound = 0x0A00_001C, "SAR_CERTNOTFOUNTERR", "certificate not found";
    NotExported = 0x0A00_001D, "SAR_NOTEXPORTERR", "object not exported";
    DecryptPad = 0x0A00_001E, "SAR_DECRYPTPADERR", "padding error in decryption";
    MacLength = 0x0A00_001F, "SAR_MACLENERR", "MAC length error";
    BufferTooSmall = 0x0A00_0020, "SAR_BUFFER_TOO_SMALL", "buffer too small";
    KeyInfoType = 0x0A00_0021, "SAR_KEYINFOTYPEERR", "key type error";
    NoEvent = 0x0A00_0022, "SAR_NOT_EVENTERR", "no event";
    DeviceRemoved = 0x0A00_0023, "SAR_DEVICE_REMOVED", "device removed";
    PinIncorrect = 0x0A00_0024, "SAR_PIN_INCORRECT", "PIN incorrect";
    PinLocked = 0x0A00_0025, "SAR_PIN_LOCKED", "PIN locked";
    PinInvalid = 0x0A00_0026, "SAR_PIN_INVALID", "PIN invalid";
    PinLength = 0x0A00_0027, "SAR_PIN_LEN_RANGE", "PIN length out of range";
    AlreadyLoggedIn = 0x0A00_0028, "SAR_USER_ALREADY_LOGGED_IN", "user already logged in";
    PinNotInitialized = 0x0A00_0029, "SAR_USER_PIN_NOT_INITIALIZED", "user PIN not initialised";
    UserTypeInvalid = 0x0A00_002A, "SAR_USER_TYPE_INVALID", "invalid PIN type";
    ApplicationNameInvalid = 0x0A00_002B, "SAR_APPLICATION_NAME_INVALID", "invalid application name";
    ApplicationExists = 0x0A00_002C, "SAR_APPLICATION_EXISTS", "application exists";
    NotLoggedIn = 0x0A00_002D, "SAR_USER_NOT_LOGGED_IN", "user not logged in";
    ApplicationNotExists = 0x0A00_002E, "SAR_APPLICATION_NOT_EXISTS", "no such application";
    FileExists = 0x0A00_002F, "SAR_FILE_ALREADY_EXIST", "file exists";
    NoRoom = 0x0A00_0030, "SAR_NO_ROOM", "no room left";
    FileNotExist = 0x0A00_0031, "SAR_FILE_NOT_EXIST", "no such file";
    MaxContainers = 0x0A00_0032, "SAR_REACH_MAX_CONTAINER_COUNT", "container limit reached";
}

impl fmt::Display for SarCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        shangmi_device::fmt_code(f, self.name(), self.to_u32())
    }
}

/// Everything that can go wrong with an SKF device; no device output makes this crate
/// panic, and no variant holds a PIN.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkfError {
    /// The library could not be loaded (the loader's message: a path, never a secret).
    Load(String),
    /// The library lacks a function: a required one when loading, an optional one
    /// ([`Capabilities`](crate::Capabilities)) when asked for what it does.
    MissingSymbol(&'static str),
    /// A function returned a `SAR_*` code.
    Device {
        /// The function.
        function: &'static str,
        /// Its code.
        code: SarCode,
    },
    /// `SKF_VerifyPIN` refused the PIN; `retries_left` more wrong PINs are allowed before
    /// the PIN locks (as the device reported it).
    WrongPin {
        /// Attempts left.
        retries_left: u32,
    },
    /// The PIN is locked (`SAR_PIN_LOCKED`, or a wrong PIN with no attempts left): only
    /// the administrator can unblock it.
    PinLocked,
    /// The device returned something malformed (which function, what was wrong).
    BadOutput(BadOutput),
    /// No device, application or container of that name.
    NotFound {
        /// What was looked for (`device`, `application`, `container`).
        kind: &'static str,
        /// The name asked for.
        name: String,
    },
    /// A name or PIN with a NUL byte inside, which C strings cannot carry.
    InteriorNul(&'static str),
    /// The key cannot do this: a sign key asked to decrypt, an encryption key to sign, a
    /// key exchange (SKF's agreement functions return a key handle, not key material).
    Unsupported(&'static str),
    /// An `skf:` URI is malformed (the reason; the URI itself is not repeated).
    Uri(String),
    /// The input was refused before reaching the device (a malformed ciphertext, a buffer
    /// too short), or an SM2 computation on this side failed.
    Sm2(shangmi_sm2::Error),
}

impl SkfError {
    /// Whether this is a refused or locked PIN, or an operation without the PIN verified.
    pub fn is_access_denied(&self) -> bool {
        matches!(
            self,
            SkfError::WrongPin { .. }
                | SkfError::PinLocked
                | SkfError::Device {
                    code: SarCode::PinIncorrect | SarCode::PinLocked | SarCode::NotLoggedIn,
                    ..
                }
        )
    }
}

impl fmt::Display for SkfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkfError::Load(why) => write!(f, "cannot load the SKF library: {why}"),
            SkfError::MissingSymbol(name) => write!(f, "the SKF library lacks {name}"),
            SkfError::Device { function, code } => write!(f, "{function} failed: {code}"),
            SkfError::WrongPin { retries_left } => {
                write!(f, "wrong PIN: {retries_left} attempts left before it locks")
            }
            SkfError::PinLocked => f.write_str("the PIN is locked"),
            SkfError::BadOutput(e) => e.fmt(f),
            SkfError::NotFound { kind, name } => write!(f, "no {kind} named {name:?}"),
            SkfError::InteriorNul(what) => write!(f, "the {what} has a NUL byte inside"),
            SkfError::Unsupported(what) => write!(f, "not supported: {what}"),
            SkfError::Uri(why) => write!(f, "bad skf: URI: {why}"),
            SkfError::Sm2(e) => write!(f, "SM2: {e}"),
        }
    }
}

impl std::error::Error for SkfError {}

shangmi_device::error_conversions!(SkfError);

impl shangmi_sm2::KeyOpError for SkfError {
    fn is_refused_input(&self) -> bool {
        match self {
            SkfError::Sm2(e) => e.is_refused_input(),
            SkfError::Device {
                code: SarCode::InData | SarCode::HashNotEqual,
                ..
            } => true,
            _ => false,
        }
    }
}

/// `Ok` for `SAR_OK`, the named error otherwise.
pub(crate) fn check(function: &'static str, rv: u32) -> Result<(), SkfError> {
    if rv == 0 {
        Ok(())
    } else {
        Err(SkfError::Device {
            function,
            code: SarCode::from_u32(rv),
        })
    }
}

/// [`check`] for a function that opens the `kind` (device, application, container) named
/// `name`: the codes in `absent`, which is how devices say there is none, are
/// [`SkfError::NotFound`].
pub(crate) fn check_open(
    function: &'static str,
    rv: u32,
    kind: &'static str,
    name: &str,
    absent: &[SarCode],
) -> Result<(), SkfError> {
    check(function, rv).map_err(|e| match e {
        SkfError::Device { code, .. } if absent.contains(&code) => SkfError::NotFound {
            kind,
            name: name.to_owned(),
        },
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_with_their_names() {
        assert_eq!(ALL.len(), 50);
        for (i, &(c, v)) in ALL.iter().enumerate() {
            assert_eq!(v, 0x0A00_0001 + i as u32, "{c:?}");
            assert_eq!(SarCode::from_u32(v), c);
            assert_eq!(c.to_u32(), v);
            assert!(c.name().unwrap().starts_with("SAR_"));
        }
        assert_eq!(
            SarCode::from_u32(0x0A00_0024).name(),
            Some("SAR_PIN_INCORRECT")
        );
        assert_eq!(SarCode::from_u32(0x0A00_0033), SarCode::Other(0x0A00_0033));
        assert_eq!(SarCode::from_u32(5), SarCode::Other(5));
        assert_eq!(
            SarCode::KeyNotFound.to_string(),
            "SAR_KEYNOTFOUNTERR (0x0A00001B)"
        );
        assert_eq!(SarCode::Other(7).to_string(), "vendor code 0x00000007");
    }
}
