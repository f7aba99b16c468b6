//! Typed errors: every `CKR_*` return code by name, and what can go wrong around a module.
//!
//! The codes and their names are PKCS#11's (`pkcs11t.h`, version 3.1, as `cryptoki-sys`
//! declares them). No error carries a PIN or key material.

use core::fmt;

use cryptoki::error::RvError;
use shangmi_device::BadOutput;

macro_rules! ckr_codes {
    ($($variant:ident = $name:ident;)*) => {
        /// A PKCS#11 return code (`CKR_*`), with its header name and value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Ckr(RvError);

        impl Ckr {
            /// The code as `cryptoki` reports it.
            pub fn rv(self) -> RvError {
                self.0
            }

            /// The header's name (`CKR_PIN_INCORRECT`, …), or `None` for a vendor's own
            /// code (`CKR_VENDOR_DEFINED` and above) or one this crate does not know.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $(RvError::$variant => Some(stringify!($name)),)*
                    _ => None,
                }
            }

            /// The value a module returns for it.
            pub fn value(self) -> u64 {
                #[allow(clippy::unnecessary_cast)] // CK_RV is u64 on LP64, u32 on LLP64
                match self.0 {
                    $(RvError::$variant => cryptoki_sys::$name as u64,)*
                    RvError::VendorDefined(v) | RvError::UnknownErrorCode(v) => v as u64,
                }
            }
        }

        #[cfg(test)]
        const ALL: &[(RvError, cryptoki_sys::CK_RV)] = &[$((RvError::$variant, cryptoki_sys::$name),)*];
    };
}

ckr_codes! {
    Cancel = CKR_CANCEL;
    HostMemory = CKR_HOST_MEMORY;
    SlotIdInvalid = CKR_SLOT_ID_INVALID;
    GeneralError = CKR_GENERAL_ERROR;
    FunctionFailed = CKR_FUNCTION_FAILED;
    ArgumentsBad = CKR_ARGUMENTS_BAD;
    NoEvent = CKR_NO_EVENT;
    NeedToCreateThreads = CKR_NEED_TO_CREATE_THREADS;
    CantLock = CKR_CANT_LOCK;
    AttributeReadOnly = CKR_ATTRIBUTE_READ_ONLY;
    AttributeSensitive = CKR_ATTRIBUTE_SENSITIVE;
    AttributeTypeInvalid = CKR_ATTRIBUTE_TYPE_INVALID;
    AttributeValueInvalid = CKR_ATTRIBUTE_VALUE_INVALID;
    ActionProhibited = CKR_ACTION_PROHIBITED;
    DataInvalid = CKR_DATA_INVALID;
    DataLenRange = CKR_DATA_LEN_RANGE;
    DeviceError = CKR_DEVICE_ERROR;
    DeviceMemory = CKR_DEVICE_MEMORY;
    DeviceRemoved = CKR_DEVICE_REMOVED;
    EncryptedDataInvalid = CKR_ENCRYPTED_DATA_INVALID;
    EncryptedDataLenRange = CKR_ENCRYPTED_DATA_LEN_RANGE;
    FunctionCanceled = CKR_FUNCTION_CANCELED;
    FunctionNotParallel = CKR_FUNCTION_NOT_PARALLEL;
    FunctionNotSupported = CKR_FUNCTION_NOT_SUPPORTED;
    CurveNotSupported = CKR_CURVE_NOT_SUPPORTED;
    KeyHandleInvalid = CKR_KEY_HANDLE_INVALID;
    KeySizeRange = CKR_KEY_SIZE_RANGE;
    KeyTypeInconsistent = CKR_KEY_TYPE_INCONSISTENT;
    KeyNotNeeded = CKR_KEY_NOT_NEEDED;
    KeyChanged = CKR_KEY_CHANGED;
    KeyNeeded = CKR_KEY_NEEDED;
    KeyIndigestible = CKR_KEY_INDIGESTIBLE;
    KeyFunctionNotPermitted = CKR_KEY_FUNCTION_NOT_PERMITTED;
    KeyNotWrappable = CKR_KEY_NOT_WRAPPABLE;
    KeyUnextractable = CKR_KEY_UNEXTRACTABLE;
    MechanismInvalid = CKR_MECHANISM_INVALID;
    MechanismParamInvalid = CKR_MECHANISM_PARAM_INVALID;
    ObjectHandleInvalid = CKR_OBJECT_HANDLE_INVALID;
    OperationActive = CKR_OPERATION_ACTIVE;
    OperationNotInitialized = CKR_OPERATION_NOT_INITIALIZED;
    PinIncorrect = CKR_PIN_INCORRECT;
    PinInvalid = CKR_PIN_INVALID;
    PinLenRange = CKR_PIN_LEN_RANGE;
    PinExpired = CKR_PIN_EXPIRED;
    PinLocked = CKR_PIN_LOCKED;
    SessionClosed = CKR_SESSION_CLOSED;
    SessionCount = CKR_SESSION_COUNT;
    SessionHandleInvalid = CKR_SESSION_HANDLE_INVALID;
    SessionParallelNotSupported = CKR_SESSION_PARALLEL_NOT_SUPPORTED;
    SessionReadOnly = CKR_SESSION_READ_ONLY;
    SessionExists = CKR_SESSION_EXISTS;
    SessionReadOnlyExists = CKR_SESSION_READ_ONLY_EXISTS;
    SessionReadWriteSoExists = CKR_SESSION_READ_WRITE_SO_EXISTS;
    SignatureInvalid = CKR_SIGNATURE_INVALID;
    SignatureLenRange = CKR_SIGNATURE_LEN_RANGE;
    TemplateIncomplete = CKR_TEMPLATE_INCOMPLETE;
    TemplateInconsistent = CKR_TEMPLATE_INCONSISTENT;
    TokenNotPresent = CKR_TOKEN_NOT_PRESENT;
    TokenNotRecognized = CKR_TOKEN_NOT_RECOGNIZED;
    TokenWriteProtected = CKR_TOKEN_WRITE_PROTECTED;
    UnwrappingKeyHandleInvalid = CKR_UNWRAPPING_KEY_HANDLE_INVALID;
    UnwrappingKeySizeRange = CKR_UNWRAPPING_KEY_SIZE_RANGE;
    UnwrappingKeyTypeInconsistent = CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT;
    UserAlreadyLoggedIn = CKR_USER_ALREADY_LOGGED_IN;
    UserNotLoggedIn = CKR_USER_NOT_LOGGED_IN;
    UserPinNotInitialized = CKR_USER_PIN_NOT_INITIALIZED;
    UserTypeInvalid = CKR_USER_TYPE_INVALID;
    UserAnotherAlreadyLoggedIn = CKR_USER_ANOTHER_ALREADY_LOGGED_IN;
    UserTooManyTypes = CKR_USER_TOO_MANY_TYPES;
    WrappedKeyInvalid = CKR_WRAPPED_KEY_INVALID;
    WrappedKeyLenRange = CKR_WRAPPED_KEY_LEN_RANGE;
    WrappingKeyHandleInvalid = CKR_WRAPPING_KEY_HANDLE_INVALID;
    WrappingKeySizeRange = CKR_WRAPPING_KEY_SIZE_RANGE;
    WrappingKeyTypeInconsistent = CKR_WRAPPING_KEY_TYPE_INCONSISTENT;
    RandomSeedNotSupported = CKR_RANDOM_SEED_NOT_SUPPORTED;
    RandomNoRng = CKR_RANDOM_NO_RNG;
    DomainParamsInvalid = CKR_DOMAIN_PARAMS_INVALID;
    BufferTooSmall = CKR_BUFFER_TOO_SMALL;
    SavedStateInvalid = CKR_SAVED_STATE_INVALID;
    InformationSensitive = CKR_INFORMATION_SENSITIVE;
    StateUnsaveable = CKR_STATE_UNSAVEABLE;
    CryptokiNotInitialized = CKR_CRYPTOKI_NOT_INITIALIZED;
    CryptokiAlreadyInitialized = CKR_CRYPTOKI_ALREADY_INITIALIZED;
    MutexBad = CKR_MUTEX_BAD;
    MutexNotLocked = CKR_MUTEX_NOT_LOCKED;
    NewPinMode = CKR_NEW_PIN_MODE;
    NextOtp = CKR_NEXT_OTP;
    ExceededMaxIterations = CKR_EXCEEDED_MAX_ITERATIONS;
    FipsSelfTestFailed = CKR_FIPS_SELF_TEST_FAILED;
    LibraryLoadFailed = CKR_LIBRARY_LOAD_FAILED;
    PinTooWeak = CKR_PIN_TOO_WEAK;
    PublicKeyInvalid = CKR_PUBLIC_KEY_INVALID;
    FunctionRejected = CKR_FUNCTION_REJECTED;
}

impl From<RvError> for Ckr {
    fn from(rv: RvError) -> Self {
        Ckr(rv)
    }
}

impl fmt::Display for Ckr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name} (0x{:X})", self.value()),
            None => write!(f, "vendor code 0x{:X}", self.value()),
        }
    }
}

/// Everything that can go wrong with a PKCS#11 module; no module output makes this crate
/// panic, and no variant holds a PIN.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pkcs11Error {
    /// The module could not be loaded (the loader's message: a path, never a secret).
    Load(String),
    /// The module's function table lacks a function this crate calls (a null entry).
    MissingFunction(&'static str),
    /// A function returned a `CKR_*` code.
    Device {
        /// The function (`C_Sign`, …).
        function: &'static str,
        /// Its code.
        code: Ckr,
    },
    /// `C_Login` refused the PIN (`CKR_PIN_INCORRECT`). PKCS#11 reports no count of the
    /// attempts left, only the token's flags, read after the failure.
    WrongPin {
        /// `CKF_USER_PIN_COUNT_LOW`: a wrong PIN has been entered since the last success.
        count_low: bool,
        /// `CKF_USER_PIN_FINAL_TRY`: one more wrong PIN locks it.
        final_try: bool,
    },
    /// The user PIN is locked (`CKR_PIN_LOCKED`, or `CKF_USER_PIN_LOCKED` after a wrong
    /// PIN): only the security officer can unblock it.
    PinLocked,
    /// The module returned something malformed (which function, what was wrong).
    BadOutput(BadOutput),
    /// No token or object matches (what was looked for, as the caller named it).
    NotFound {
        /// `token` or `object`.
        kind: &'static str,
        /// The attributes asked for.
        what: String,
    },
    /// More than one token or object matches: the URI must say which.
    Ambiguous {
        /// `token` or `object`.
        kind: &'static str,
        /// How many matched.
        count: usize,
    },
    /// The configured mechanism for an operation is absent from the token's mechanism list.
    MechanismUnavailable {
        /// The operation (`sign a digest`, `decrypt`, …).
        operation: &'static str,
        /// The configured number.
        mechanism: u64,
    },
    /// Every session of the key's pool stayed busy for the whole wait.
    SessionsExhausted,
    /// The key or the configuration cannot do this: a sign key asked to decrypt, an
    /// operation without a configured mechanism, a key exchange.
    Unsupported(&'static str),
    /// The input was refused before reaching the module: SM4-ECB/CBC data that is not a
    /// whole number of 16-byte blocks (the mechanisms do not pad), a signer identifier the
    /// SM3-inside mechanism cannot take.
    InvalidInput(&'static str),
    /// A `pkcs11:` URI is malformed (the reason; the URI itself is not repeated, as it
    /// may hold a `pin-value`).
    Uri(String),
    /// Any other failure inside the `cryptoki` layer (an integer or text conversion).
    Library(String),
    /// The input was refused before reaching the module (a malformed ciphertext, a buffer
    /// too short), or an SM2 computation on this side failed.
    Sm2(shangmi_sm2::Error),
}

impl Pkcs11Error {
    /// Whether this is a refused or locked PIN, or an operation without a login.
    pub fn is_access_denied(&self) -> bool {
        matches!(
            self,
            Pkcs11Error::WrongPin { .. }
                | Pkcs11Error::PinLocked
                | Pkcs11Error::Device {
                    code: Ckr(RvError::PinIncorrect
                        | RvError::PinLocked
                        | RvError::UserNotLoggedIn),
                    ..
                }
        )
    }

    /// The `cryptoki` error of a call to `function`, typed.
    pub(crate) fn from_cryptoki(function: &'static str, e: cryptoki::error::Error) -> Self {
        use cryptoki::error::Error as E;
        match e {
            E::LibraryLoading(e) => Pkcs11Error::Load(e.to_string()),
            E::Pkcs11(rv, _) => Pkcs11Error::Device {
                function,
                code: Ckr(rv),
            },
            E::NullFunctionPointer => Pkcs11Error::MissingFunction(function),
            E::MissingSymbol(name) => Pkcs11Error::MissingFunction(name),
            other => Pkcs11Error::Library(format!("{function}: {other}")),
        }
    }

    /// The `CKR_*` code, if this is a module's refusal.
    pub fn code(&self) -> Option<Ckr> {
        match self {
            Pkcs11Error::Device { code, .. } => Some(*code),
            _ => None,
        }
    }
}

impl From<BadOutput> for Pkcs11Error {
    fn from(e: BadOutput) -> Self {
        Pkcs11Error::BadOutput(e)
    }
}

/// `map_err` for a `cryptoki` call to `function`.
pub(crate) fn ck(function: &'static str) -> impl Fn(cryptoki::error::Error) -> Pkcs11Error {
    move |e| Pkcs11Error::from_cryptoki(function, e)
}

impl fmt::Display for Pkcs11Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pkcs11Error::Load(why) => write!(f, "cannot load the PKCS#11 module: {why}"),
            Pkcs11Error::MissingFunction(name) => {
                write!(f, "the PKCS#11 module does not provide {name}")
            }
            Pkcs11Error::Device { function, code } => write!(f, "{function} failed: {code}"),
            Pkcs11Error::WrongPin {
                final_try: true, ..
            } => f.write_str("wrong PIN: one more wrong PIN locks it"),
            Pkcs11Error::WrongPin { .. } => f.write_str("wrong PIN"),
            Pkcs11Error::PinLocked => f.write_str("the user PIN is locked"),
            Pkcs11Error::BadOutput(e) => e.fmt(f),
            Pkcs11Error::NotFound { kind, what } => write!(f, "no {kind} matches {what}"),
            Pkcs11Error::InvalidInput(why) => write!(f, "input refused: {why}"),
            Pkcs11Error::Ambiguous { kind, count } => {
                write!(f, "{count} {kind}s match: say which")
            }
            Pkcs11Error::MechanismUnavailable {
                operation,
                mechanism,
            } => write!(
                f,
                "the token does not list mechanism 0x{mechanism:X}, configured to {operation}"
            ),
            Pkcs11Error::SessionsExhausted => {
                f.write_str("every session of the key's pool stayed busy")
            }
            Pkcs11Error::Unsupported(what) => write!(f, "not supported: {what}"),
            Pkcs11Error::Uri(why) => write!(f, "bad pkcs11: URI: {why}"),
            Pkcs11Error::Library(why) => write!(f, "PKCS#11: {why}"),
            Pkcs11Error::Sm2(e) => write!(f, "SM2: {e}"),
        }
    }
}

impl std::error::Error for Pkcs11Error {}

impl From<shangmi_sm2::Error> for Pkcs11Error {
    fn from(e: shangmi_sm2::Error) -> Self {
        Pkcs11Error::Sm2(e)
    }
}

impl shangmi_sm2::KeyOpError for Pkcs11Error {
    fn is_refused_input(&self) -> bool {
        match self {
            Pkcs11Error::Sm2(e) => e.is_refused_input(),
            Pkcs11Error::Device {
                code:
                    Ckr(
                        RvError::EncryptedDataInvalid
                        | RvError::EncryptedDataLenRange
                        | RvError::DataInvalid
                        | RvError::DataLenRange,
                    ),
                ..
            } => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cryptoki::error::Rv;

    #[test]
    fn codes_round_trip_with_their_names() {
        assert!(ALL.len() >= 90, "{}", ALL.len());
        for &(rv, value) in ALL {
            let c = Ckr(rv);
            assert_eq!(Rv::from(value), Rv::Error(rv), "{c}");
            #[allow(clippy::useless_conversion)] // CK_RV is u32 on LLP64 targets
            let value = u64::from(value);
            assert_eq!(c.value(), value);
            assert!(c.name().unwrap().starts_with("CKR_"));
        }
        assert_eq!(
            Ckr(RvError::PinIncorrect).to_string(),
            "CKR_PIN_INCORRECT (0xA0)"
        );
        assert_eq!(
            Ckr(RvError::VendorDefined(0x8000_0007)).to_string(),
            "vendor code 0x80000007"
        );
        let Rv::Error(rv) = Rv::from(0x8000_0001) else {
            panic!("vendor codes are errors")
        };
        assert_eq!(Ckr(rv).name(), None);
    }

    #[test]
    fn access_and_input_classes() {
        use shangmi_sm2::KeyOpError;
        assert!(Pkcs11Error::PinLocked.is_access_denied());
        let dev = |rv| Pkcs11Error::Device {
            function: "C_Decrypt",
            code: Ckr(rv),
        };
        assert!(dev(RvError::UserNotLoggedIn).is_access_denied());
        assert!(!dev(RvError::DeviceError).is_access_denied());
        assert!(dev(RvError::EncryptedDataInvalid).is_refused_input());
        assert!(!dev(RvError::DeviceError).is_refused_input());
        assert!(Pkcs11Error::Sm2(shangmi_sm2::Error::Decryption).is_refused_input());
    }
}
