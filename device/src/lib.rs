//! What the device crates share: `shangmi-sdf` (GM/T 0018 crypto cards and HSMs) and
//! `shangmi-skf` (GM/T 0016 USB keys) reach their devices through two C interfaces that
//! define the same SM2 structures (coordinates right-aligned in 64-byte fields; the
//! ciphertext as C1's x and y, C3, a 32-bit length and C2), load a vendor's library the same
//! way and take a PIN the same way. Each of those is written once, here:
//!
//! - [`Pin`] (zeroized when dropped, never printed) and [`KeyUsage`] (the sign or the
//!   encryption pair);
//! - [`EccPublicKey`], [`EccSignature`], [`EccCipher`]: GM/T 0018's `ECCrefPublicKey`,
//!   `ECCSignature`, `ECCCipher`, which are GM/T 0016's `ECCPUBLICKEYBLOB`,
//!   `ECCSIGNATUREBLOB`, `ECCCIPHERBLOB` field for field, with conversions that check what a
//!   device returns (a point on the curve, r and s in range, nothing in the high halves);
//! - [`Library`]: a vendor library loaded at run time and its symbols;
//! - [`fmt_code`]: how a named return code prints, and [`BadOutput`]: what a library
//!   returned malformed;
//! - the syntax the key URIs share (`scheme:path?name=value&…`): [`uri_parts`],
//!   [`uri_attributes`], [`set_once`], [`percent_decode`];
//! - [`SessionPool`]: a key's fixed set of sessions, one caller at a time (also used by
//!   `shangmi-pkcs11`).
//!
//! Facts from GmSSL 3.3's `sdf.h` and `skf.h` (GM/T 0018-2012, GM/T 0016-2012 names).
//! `unsafe` is confined to [`Library`]'s loading and symbol lookup and the [`FunctionTable`]
//! a [`function_table!`] declares.

use shangmi_sm2::PublicKey;
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::pke::{Layout, Parts};
use zeroize::{Zeroize, Zeroizing};

/// A PIN (a private key's access password), zeroized when dropped and never printed.
pub struct Pin(Zeroizing<Vec<u8>>);

impl Pin {
    /// From its bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Pin(Zeroizing::new(bytes.into()))
    }

    /// From the environment variable `var`, if set (its value moves into the PIN without a
    /// copy; the variable itself stays in the process environment).
    pub fn from_env(var: &str) -> Option<Self> {
        std::env::var(var).ok().map(|s| Pin::new(s.into_bytes()))
    }

    /// The PIN's bytes, to hand to the device's library.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl core::fmt::Debug for Pin {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Pin(..)")
    }
}

/// Which of the two key pairs: GM/T 0018 keeps a sign pair and an encryption pair under
/// each internal index, GM/T 0016 in each container (`bSignFlag`), as TLCP's dual
/// certificates want.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyUsage {
    /// The sign pair (and certificate).
    Sign,
    /// The encryption pair (and certificate).
    Encrypt,
}

/// The width of a coordinate field (`ECCref_MAX_LEN`, `ECC_MAX_XCOORDINATE_BITS_LEN / 8`).
pub const ECC_MAX_LEN: usize = 64;

/// The low 32 bytes of a right-aligned 64-byte field, if the field is 64 bytes and its high
/// 32 are zero.
pub fn right_aligned(field: &[u8]) -> Option<&[u8; 32]> {
    match field.split_at_checked(32) {
        Some((high, low)) if field.len() == ECC_MAX_LEN && high.iter().all(|&b| b == 0) => {
            low.try_into().ok()
        }
        _ => None,
    }
}

/// A 32-byte value right-aligned in a 64-byte field.
pub fn right_align(value: &[u8; 32]) -> [u8; ECC_MAX_LEN] {
    let mut field = [0u8; ECC_MAX_LEN];
    field[32..].copy_from_slice(value);
    field
}

/// A NUL-padded text field (a maker's or a device's name) as a string: up to the first NUL,
/// trimmed, invalid UTF-8 replaced.
pub fn c_text(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).trim().to_owned()
}

/// Percent-decodes a key URI's value (RFC 3986 §2.1) to bytes: `%` and two hex digits
/// stand for one byte, every other byte for itself. The `skf:` and `pkcs11:` URIs read
/// their values with it.
pub fn percent_decode(s: &str) -> Result<Vec<u8>, &'static str> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let byte = b
                .get(i + 1..i + 3)
                // Two hex digits, not what `from_str_radix` also takes (a sign: "%+1").
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| core::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or("a % not followed by two hex digits")?;
            out.push(byte);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// A key URI `scheme:path?query` split into its path and its query (empty when there is
/// no `?`); `None` when `s` does not start with `scheme` (`skf:`, `pkcs11:`, `sdf:`).
///
/// ```
/// assert_eq!(shangmi_device::uri_parts("skf:/l.so?app=A", "skf:"), Some(("/l.so", "app=A")));
/// assert_eq!(shangmi_device::uri_parts("skf:/l.so", "skf:"), Some(("/l.so", "")));
/// assert_eq!(shangmi_device::uri_parts("sdf:/l.so", "skf:"), None);
/// ```
pub fn uri_parts<'a>(s: &'a str, scheme: &str) -> Option<(&'a str, &'a str)> {
    let rest = s.strip_prefix(scheme)?;
    Some(rest.split_once('?').unwrap_or((rest, "")))
}

/// The `name=value` attributes of a key URI's path or query `part`, separated by
/// `separator` (`&` in a query, `;` in an RFC 7512 path), values as written (percent
/// decoding is the caller's: [`percent_decode`]); empty pieces are skipped, a piece without
/// `=` is an error naming it.
///
/// ```
/// let attrs: Result<Vec<_>, _> = shangmi_device::uri_attributes("a=1&&b=%20", '&').collect();
/// assert_eq!(attrs, Ok(vec![("a", "1"), ("b", "%20")]));
/// assert!(shangmi_device::uri_attributes("a", '&').next().unwrap().is_err());
/// ```
pub fn uri_attributes(
    part: &str,
    separator: char,
) -> impl Iterator<Item = Result<(&str, &str), String>> {
    part.split(separator).filter(|p| !p.is_empty()).map(|pair| {
        pair.split_once('=')
            .ok_or_else(|| format!("attribute {pair:?} has no value"))
    })
}

/// Puts `value` into `slot`, the attribute `name` of a key URI: a second value is an
/// error (`name given twice`).
pub fn set_once<T>(slot: &mut Option<T>, value: T, name: &str) -> Result<(), String> {
    match slot.replace(value) {
        Some(_) => Err(format!("{name} given twice")),
        None => Ok(()),
    }
}

/// `ECCrefPublicKey` / `ECCPUBLICKEYBLOB`: `{ u32 bits; u8 x[64], y[64]; }`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EccPublicKey {
    /// The key size in bits (256 for SM2).
    pub bits: u32,
    /// x, right-aligned.
    pub x: [u8; ECC_MAX_LEN],
    /// y, right-aligned.
    pub y: [u8; ECC_MAX_LEN],
}

const _: () = assert!(core::mem::size_of::<EccPublicKey>() == 132);

impl EccPublicKey {
    /// All zero, for an out-parameter.
    pub const ZERO: Self = EccPublicKey {
        bits: 0,
        x: [0; ECC_MAX_LEN],
        y: [0; ECC_MAX_LEN],
    };

    /// The SM2 public key it holds, checked: 256 bits, both coordinates right-aligned, the
    /// point on the curve; or what was wrong.
    pub fn to_public_key(&self) -> Result<PublicKey, &'static str> {
        if self.bits != 256 {
            return Err("key size is not 256 bits");
        }
        let mut sec1 = [0u8; 65];
        sec1[0] = 0x04;
        sec1[1..33].copy_from_slice(right_aligned(&self.x).ok_or("x wider than 32 bytes")?);
        sec1[33..].copy_from_slice(right_aligned(&self.y).ok_or("y wider than 32 bytes")?);
        shangmi_sm2::keys::public_key_from_sec1(&sec1).map_err(|_| "point not on the curve")
    }
}

/// `ECCSignature` / `ECCSIGNATUREBLOB`: `{ u8 r[64], s[64]; }`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EccSignature {
    /// r, right-aligned.
    pub r: [u8; ECC_MAX_LEN],
    /// s, right-aligned.
    pub s: [u8; ECC_MAX_LEN],
}

impl EccSignature {
    /// All zero, for an out-parameter.
    pub const ZERO: Self = EccSignature {
        r: [0; ECC_MAX_LEN],
        s: [0; ECC_MAX_LEN],
    };

    /// The signature's fields.
    pub fn new(signature: &Signature) -> Self {
        EccSignature {
            r: right_align(signature.r()),
            s: right_align(signature.s()),
        }
    }

    /// The signature it holds, checked: right-aligned, r and s in [1, n-1]; or what was
    /// wrong.
    pub fn to_signature(&self) -> Result<Signature, &'static str> {
        let r = right_aligned(&self.r).ok_or("r wider than 32 bytes")?;
        let s = right_aligned(&self.s).ok_or("s wider than 32 bytes")?;
        Signature::from_scalars(*r, *s).map_err(|_| "r or s out of range")
    }
}

/// The longest C2 an [`EccCipher`] holds (the longest plaintext the device crates decrypt):
/// vendors bound the structure's body differently (GmSSL/SoftSDF: 255 bytes); TLCP's
/// premaster is 48.
pub const MAX_PLAINTEXT: usize = 1024;

/// `ECCCipher` / `ECCCIPHERBLOB` with room for [`MAX_PLAINTEXT`] bytes of C2:
/// `{ u8 x[64], y[64]; u8 C3[32]; u32 length; u8 C2[]; }` (C1's coordinates
/// right-aligned). Vendors declare C2 as `C[1]` or a fixed array; a pointer to this is valid
/// for either (the slack past `c2_len` is zeroes). C2 is wiped when this is dropped.
#[repr(C)]
pub struct EccCipher {
    /// x1, right-aligned.
    pub x: [u8; ECC_MAX_LEN],
    /// y1, right-aligned.
    pub y: [u8; ECC_MAX_LEN],
    /// C3 = SM3(x2 ‖ M ‖ y2).
    pub c3: [u8; 32],
    /// |C2|.
    pub c2_len: u32,
    /// C2, then zeroes.
    pub c2: [u8; MAX_PLAINTEXT],
}

/// The fixed head's size: 164 bytes, where C2 starts.
pub const CIPHER_HEAD: usize = core::mem::offset_of!(EccCipher, c2);

const _: () = assert!(CIPHER_HEAD == 164);

/// Why a ciphertext cannot go to a device as an [`EccCipher`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CipherRefused {
    /// Malformed (or C1 off the curve, or C2 empty): the SM2 error decryption would give.
    Sm2(shangmi_sm2::Error),
    /// C2 is longer than [`MAX_PLAINTEXT`].
    TooLong,
}

impl EccCipher {
    /// A `C1 ‖ C3 ‖ C2` ciphertext (C1 uncompressed or compressed) as the structure, C1
    /// checked on the curve ([`Parts::split`]).
    pub fn from_c1c3c2(ct: &[u8]) -> Result<Box<Self>, CipherRefused> {
        let parts = Parts::split(ct, Layout::C1C3C2).map_err(CipherRefused::Sm2)?;
        let len = parts.c2.len();
        if len > MAX_PLAINTEXT {
            return Err(CipherRefused::TooLong);
        }
        let mut cipher = Box::new(EccCipher {
            x: right_align(&parts.x),
            y: right_align(&parts.y),
            c3: *parts.c3,
            c2_len: len as u32,
            c2: [0; MAX_PLAINTEXT],
        });
        cipher.c2[..len].copy_from_slice(parts.c2);
        Ok(cipher)
    }

    /// C2's length.
    pub fn len(&self) -> usize {
        (self.c2_len as usize).min(MAX_PLAINTEXT)
    }

    /// Whether C2 is empty (never, for one made by [`from_c1c3c2`](Self::from_c1c3c2)).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for EccCipher {
    fn drop(&mut self) {
        self.c2.zeroize();
    }
}

/// A device key's decryption: `c1c3c2` as an [`EccCipher`] (refused before the device if
/// malformed, empty, too long, or if `out` is shorter than C2), then `decrypt(cipher,
/// plain, plain_len)` (the device's function: it writes at most [`MAX_PLAINTEXT`] bytes to
/// `plain` and their count to `plain_len`, which holds the room on input), then the count
/// checked against C2's length (`bad_output` of the reason if it differs) and the
/// plaintext copied to `out`. `plain` is wiped on return; so is the cipher's copy of C2.
pub fn decrypt_through<E: From<CipherRefused>>(
    c1c3c2: &[u8],
    out: &mut [u8],
    decrypt: impl FnOnce(&EccCipher, &mut [u8; MAX_PLAINTEXT], &mut u32) -> Result<(), E>,
    bad_output: impl FnOnce(&'static str) -> E,
) -> Result<usize, E> {
    let cipher = EccCipher::from_c1c3c2(c1c3c2)?;
    let n = cipher.len();
    let out = out
        .get_mut(..n)
        .ok_or(CipherRefused::Sm2(shangmi_sm2::Error::Decryption))?;
    let mut plain = Zeroizing::new([0u8; MAX_PLAINTEXT]);
    let mut len = MAX_PLAINTEXT as u32;
    decrypt(&cipher, &mut plain, &mut len)?;
    if len as usize != n {
        return Err(bad_output("plaintext length differs from the ciphertext's"));
    }
    out.copy_from_slice(&plain[..n]);
    Ok(n)
}

/// The key exchange of a device key that has none (GM/T 0016 USB keys, PKCS#11 tokens: their
/// agreement ends in a key handle and they have no keyed hash with it, so TLCP's ECDHE
/// master secret cannot be had; ECC suites work). No value of this type exists.
pub struct NoKeyExchange<E> {
    never: core::convert::Infallible,
    error: core::marker::PhantomData<fn() -> E>,
}

impl<E> NoKeyExchange<E> {
    /// What a value of this type (which cannot exist) becomes.
    pub fn never(self) -> ! {
        let _ = self.error;
        match self.never {}
    }
}

impl<E> core::fmt::Debug for NoKeyExchange<E> {
    fn fmt(&self, _: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.never {}
    }
}

impl<E: shangmi_sm2::KeyOpError> shangmi_sm2::KeyAgreement for NoKeyExchange<E> {
    type Error = E;

    fn ephemeral_public(&self) -> PublicKey {
        match self.never {}
    }

    fn finish(self, _: shangmi_sm2::Peer<'_>, _: &mut [u8]) -> Result<(), E> {
        self.never()
    }
}

/// The key-exchange methods of `shangmi_sm2::PrivateKeyOps` for a device key without one
/// (its `KeyExchange` a type with no values, such as [`NoKeyExchange`]): to be invoked
/// inside the `impl PrivateKeyOps` block with that type, the error type, and the refusal
/// `start_key_exchange` returns. `supports_key_exchange` is false, so a TLCP configuration
/// leaves the ECDHE suites out. The caller depends on `rand_core`.
#[macro_export]
macro_rules! no_key_exchange {
    ($exchange:ty, $error:ty, $refusal:expr) => {
        /// False: this key has no key exchange (see its `KeyExchange` type).
        fn supports_key_exchange(&self) -> bool {
            false
        }

        fn start_key_exchange<R: ::rand_core::TryCryptoRng + ?Sized>(
            &self,
            _: &mut R,
            _: ::shangmi_sm2::kx::Role,
            _: &[u8],
        ) -> ::core::result::Result<$exchange, $error> {
            ::core::result::Result::Err($refusal)
        }
    };
}

/// The conversions a device crate's error type makes like every other's: a library that
/// does not load ([`LoadError`]), a ciphertext refused before the device
/// ([`CipherRefused`]), malformed output ([`BadOutput`]) and an SM2 error of this side.
/// The type must have the variants `Load(String)`, `MissingSymbol(&'static str)`,
/// `Unsupported(&'static str)`, `BadOutput(BadOutput)` and `Sm2(shangmi_sm2::Error)`; the
/// caller depends on `shangmi_sm2`.
#[macro_export]
macro_rules! error_conversions {
    ($error:ident) => {
        impl ::core::convert::From<$crate::LoadError> for $error {
            fn from(e: $crate::LoadError) -> Self {
                match e {
                    $crate::LoadError::Library(why) => $error::Load(why),
                    $crate::LoadError::MissingSymbol(name) => $error::MissingSymbol(name),
                }
            }
        }

        impl ::core::convert::From<$crate::CipherRefused> for $error {
            fn from(e: $crate::CipherRefused) -> Self {
                match e {
                    $crate::CipherRefused::Sm2(e) => $error::Sm2(e),
                    $crate::CipherRefused::TooLong => {
                        $error::Unsupported("SM2 plaintexts over 1024 bytes")
                    }
                }
            }
        }

        impl ::core::convert::From<$crate::BadOutput> for $error {
            fn from(e: $crate::BadOutput) -> Self {
                $error::BadOutput(e)
            }
        }

        impl ::core::convert::From<::shangmi_sm2::Error> for $error {
            fn from(e: ::shangmi_sm2::Error) -> Self {
                $error::Sm2(e)
            }
        }
    };
}

/// A vendor's library loaded at run time (unloaded when dropped: keep it as long as any
/// function copied out of it).
pub struct Library(libloading::Library);

/// A required function the library does not export (its C name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingSymbol(pub &'static str);

/// Why a vendor library cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The loader's message (a path, never a secret).
    Library(String),
    /// A required function is missing (its C name).
    MissingSymbol(&'static str),
}

/// A vendor library with the table `F` of the functions copied out of it (unloaded when
/// this is dropped, after the table).
pub struct Loaded<F> {
    /// The functions.
    pub fns: F,
    // Declared last: dropped (unloaded) after the table is gone.
    lib: Library,
}

/// A table of C functions, declared by [`function_table!`].
///
/// # Safety
/// Every function pointer `resolve` returns is the library's export of that name, typed
/// with the function's true C signature (what `function_table!`'s `unsafe struct` asserts
/// of the declared types).
pub unsafe trait FunctionTable: Sized {
    /// Looks every function of the table up in `lib` by its C name; the first missing
    /// required one is the error, a missing optional one is `None`.
    ///
    /// # Safety
    /// No pointer may be called after `lib` is dropped ([`Loaded`] keeps the two together).
    unsafe fn resolve(lib: &Library) -> Result<Self, MissingSymbol>;
}

impl<F: FunctionTable> Loaded<F> {
    /// Loads the library at `path` and resolves the table `F` in it.
    pub fn load(path: &std::ffi::OsStr) -> Result<Self, LoadError> {
        let lib = Library::load(path).map_err(LoadError::Library)?;
        // SAFETY: the table's types are the C signatures (`FunctionTable`'s contract), and
        // the table lives here beside the library, which is dropped after it.
        let fns = unsafe { F::resolve(&lib) }.map_err(|m| LoadError::MissingSymbol(m.0))?;
        Ok(Loaded { fns, lib })
    }
}

impl<F> Loaded<F> {
    /// The library, to look up functions the table leaves out (optional ones a caller
    /// resolves when it needs them; the pointers must not outlive this).
    pub fn library(&self) -> &Library {
        &self.lib
    }
}

impl Library {
    /// Loads the library at `path`; the error is the loader's message (a path, never a
    /// secret).
    pub fn load(path: &std::ffi::OsStr) -> Result<Self, String> {
        // SAFETY: loading runs the library's initialisers; the caller chose the library as
        // its device library, which is the trust the device crates rest on.
        unsafe { libloading::Library::new(path) }
            .map(Library)
            .map_err(|e| e.to_string())
    }

    /// Copies the function pointer `name` out of the library, if it exports it.
    ///
    /// # Safety
    /// `T` must be the symbol's true C signature, and the pointer must not be called after
    /// this `Library` is dropped.
    pub unsafe fn symbol<T: Copy>(&self, name: &'static str) -> Option<T> {
        // SAFETY: the caller gives the signature and keeps the library loaded.
        unsafe { self.0.get::<T>(name.as_bytes()) }.ok().map(|s| *s)
    }

    /// [`symbol`](Self::symbol) for a function the caller cannot do without.
    ///
    /// # Safety
    /// As [`symbol`](Self::symbol).
    pub unsafe fn required<T: Copy>(&self, name: &'static str) -> Result<T, MissingSymbol> {
        // SAFETY: forwarded from the caller.
        unsafe { self.symbol(name) }.ok_or(MissingSymbol(name))
    }
}

/// Declares a table of C functions copied out of a [`Library`], and its resolver.
///
/// Each field is `name: required Type = "C_Name"` (a function the caller cannot do
/// without: the field has type `Type`) or `name: optional Type = "C_Name"` (the field is an
/// `Option<Type>`, `None` when the library does not export it). `Type` is the function's
/// exact `unsafe extern "C" fn` type. The struct is declared `unsafe struct`: by writing
/// it, its author asserts that every `Type` is its function's true C signature (say why in
/// a `// SAFETY:` comment above it). The macro writes the struct as declared and its
/// [`FunctionTable`] implementation, which looks every field up by its C name
/// ([`Library::required`], [`Library::symbol`]); [`Loaded::load`] loads a library with it.
///
/// ```
/// use core::ffi::c_int;
/// shangmi_device::function_table! {
///     /// Two functions of a C library.
///     // SAFETY: the signatures of the library's header.
///     unsafe struct Table {
///         pub open: required unsafe extern "C" fn() -> c_int = "Lib_Open",
///         pub info: optional unsafe extern "C" fn(c_int) -> c_int = "Lib_Info",
///     }
/// }
/// fn load(path: &std::ffi::OsStr) -> Result<shangmi_device::Loaded<Table>, shangmi_device::LoadError> {
///     shangmi_device::Loaded::load(path)
/// }
/// # let _ = load;
/// ```
#[macro_export]
macro_rules! function_table {
    (
        $(#[$meta:meta])*
        $vis:vis unsafe struct $name:ident {
            $($fvis:vis $field:ident: $kind:ident $ty:ty = $cname:literal,)*
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $($fvis $field: $crate::function_table!(@type $kind $ty),)*
        }

        // SAFETY: the invocation declares the struct `unsafe struct`: its author asserts
        // that every declared type is its function's true C signature.
        unsafe impl $crate::FunctionTable for $name {
            unsafe fn resolve(
                lib: &$crate::Library,
            ) -> ::core::result::Result<Self, $crate::MissingSymbol> {
                // SAFETY: the declared types (this implementation's contract); the
                // lifetime is forwarded from the caller.
                unsafe {
                    ::core::result::Result::Ok($name {
                        $($field: $crate::function_table!(@get $kind lib $cname),)*
                    })
                }
            }
        }
    };
    (@type required $ty:ty) => { $ty };
    (@type optional $ty:ty) => { ::core::option::Option<$ty> };
    (@get required $lib:ident $cname:literal) => { $lib.required($cname)? };
    (@get optional $lib:ident $cname:literal) => { $lib.symbol($cname) };
}

/// A library returned something malformed: a length beyond the buffer, a point off the
/// curve, a signature out of range, a name that is not text. Each device crate's error
/// carries it as its `BadOutput` variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BadOutput {
    /// The function.
    pub function: &'static str,
    /// What was wrong.
    pub what: &'static str,
}

impl core::fmt::Display for BadOutput {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} returned malformed output: {}",
            self.function, self.what
        )
    }
}

/// `map_err` for malformed output of the library function `function`: what was wrong,
/// as the device crate's error (its `BadOutput` variant, through `From`).
///
/// ```
/// use shangmi_device::{BadOutput, bad_output};
/// let e: BadOutput = bad_output("SKF_EnumDev")("a name is not UTF-8");
/// assert_eq!(e.to_string(), "SKF_EnumDev returned malformed output: a name is not UTF-8");
/// ```
pub fn bad_output<E: From<BadOutput>>(function: &'static str) -> impl Fn(&'static str) -> E + Copy {
    move |what| E::from(BadOutput { function, what })
}

/// How a return code prints: `NAME (0x0A000024)` for a named one, `vendor code
/// 0x…` for a vendor's own.
pub fn fmt_code(
    f: &mut core::fmt::Formatter<'_>,
    name: Option<&str>,
    value: u32,
) -> core::fmt::Result {
    match name {
        Some(name) => write!(f, "{name} (0x{value:08X})"),
        None => write!(f, "vendor code 0x{value:08X}"),
    }
}

/// A fixed set of sessions (or any handles to a device), each handed to one caller at a
/// time: a caller waits up to the pool's wait for one to come back. A lock poisoned by a
/// panicking caller is taken over (the sessions in it are still whole).
pub struct SessionPool<S> {
    idle: std::sync::Mutex<Vec<S>>,
    ready: std::sync::Condvar,
    wait: std::time::Duration,
}

impl<S> SessionPool<S> {
    /// A pool of `sessions`, whose callers wait up to `wait` for a free one.
    pub fn new(sessions: Vec<S>, wait: std::time::Duration) -> Self {
        SessionPool {
            idle: std::sync::Mutex::new(sessions),
            ready: std::sync::Condvar::new(),
            wait,
        }
    }

    /// A free session, waiting up to the pool's wait for one; `None` if every one stayed
    /// busy that long. Hand it back with [`SessionPool::give_back`].
    pub fn take(&self) -> Option<S> {
        use std::sync::PoisonError;
        let deadline = std::time::Instant::now() + self.wait;
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(s) = idle.pop() {
                return Some(s);
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return None;
            }
            idle = self
                .ready
                .wait_timeout(idle, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Hands `session` back and wakes one waiting caller.
    pub fn give_back(&self, session: S) {
        self.idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(session);
        self.ready.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b%2f%2F").unwrap(), b"a b//");
        assert_eq!(percent_decode("%00%ff").unwrap(), [0, 0xff]);
        for bad in ["%", "%2", "%zz", "a%g0", "%+1"] {
            assert!(percent_decode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn coordinates_must_be_right_aligned() {
        let mut f = [0u8; 64];
        f[63] = 1;
        assert_eq!(right_aligned(&f).map(|s| s[31]), Some(1));
        assert_eq!(right_align(right_aligned(&f).unwrap()), f);
        f[31] = 1;
        assert_eq!(right_aligned(&f), None);
        assert_eq!(right_aligned(&[0u8; 32]), None);
        assert_eq!(right_aligned(&[0u8; 65]), None);
    }

    #[test]
    fn device_structures_are_checked() {
        let dk = shangmi_sm2::pke::DecryptingKey::from_bytes(&[3u8; 32].into()).unwrap();
        let public = *dk.encrypting_key().public_key();
        let point = shangmi_sm2::elliptic_curve::sec1::ToSec1Point::to_sec1_point(&public, false);
        let mut raw = EccPublicKey::ZERO;
        raw.bits = 256;
        raw.x[32..].copy_from_slice(&point.as_bytes()[1..33]);
        raw.y[32..].copy_from_slice(&point.as_bytes()[33..]);
        assert_eq!(raw.to_public_key(), Ok(public));
        raw.y[63] ^= 1;
        assert_eq!(raw.to_public_key(), Err("point not on the curve"));
        raw.bits = 512;
        assert_eq!(raw.to_public_key(), Err("key size is not 256 bits"));

        let sig = Signature::from_scalars([1; 32], [2; 32]).unwrap();
        let mut blob = EccSignature::new(&sig);
        assert_eq!(blob.to_signature(), Ok(sig));
        blob.s[0] = 1;
        assert_eq!(blob.to_signature(), Err("s wider than 32 bytes"));
        assert_eq!(
            EccSignature::ZERO.to_signature(),
            Err("r or s out of range")
        );

        let ct = dk
            .encrypting_key()
            .encrypt_with_nonce(&[4u8; 32].into(), b"premaster", Layout::C1C3C2)
            .unwrap();
        let cipher = EccCipher::from_c1c3c2(&ct).unwrap();
        assert_eq!((cipher.len(), &cipher.c2[..9]), (9, &ct[97..]));
        assert_eq!((&cipher.x[32..], &cipher.c3[..]), (&ct[1..33], &ct[65..97]));
        assert_eq!(
            EccCipher::from_c1c3c2(&ct[..97]).err(),
            Some(CipherRefused::Sm2(shangmi_sm2::Error::EmptyMessage))
        );
        let long = dk
            .encrypting_key()
            .encrypt_with_nonce(&[4u8; 32].into(), &[0u8; MAX_PLAINTEXT + 1], Layout::C1C3C2)
            .unwrap();
        assert_eq!(
            EccCipher::from_c1c3c2(&long).err(),
            Some(CipherRefused::TooLong)
        );
    }
}
