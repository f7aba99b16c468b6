//! SM2 keys inside PKCS#11 HSMs and tokens, through `cryptoki`, for devices that speak
//! PKCS#11 only.
//!
//! PKCS#11 has no SM2, SM3 or SM4 mechanism (OpenSC pull request 3343), so the vendor's
//! numbers are configuration: [`Mechanisms`], with presets for SANSEC, TASS and Thales
//! Luna. [`Pkcs11Module::load`] loads and initialises a module once per process;
//! [`Pkcs11Key::open`] logs in with a [`Pin`] (zeroized then; a wrong PIN is
//! [`Pkcs11Error::WrongPin`] with the token's count flags, a locked one
//! [`Pkcs11Error::PinLocked`]), finds the private key object and its public key
//! (`CKA_EC_POINT`), and keeps a pool of sessions; it implements `shangmi_sm2`'s
//! [`PrivateKeyOps`]: signing (the module signs
//! e = SM3(Z_A ‖ M), computed here), decryption where the mechanism exists; the key
//! exchange is a typed "unsupported" error. SM3 and SM4 run inside the token too:
//! [`Pkcs11Module::sm3`] digests, [`Pkcs11SecretKey`] encrypts and decrypts with an SM4
//! key object the token holds (ECB and CBC, whole blocks). [`Pkcs11Uri`] parses RFC 7512
//! `pkcs11:` URIs (with `pin-env=VAR` as our extension).
//!
//! Every `CKR_*` code is a named [`Ckr`]; malformed module output (lengths, points off the
//! curve, r or s out of range) is [`Pkcs11Error::BadOutput`]; nothing here panics on a
//! module's answer or prints a PIN. This crate has no `unsafe` of its own: the FFI is
//! `cryptoki`'s.
//!
//! ```no_run
//! use shangmi_pkcs11::{Pkcs11Uri, PrivateKeyOps};
//! let uri = Pkcs11Uri::parse(
//!     "pkcs11:token=HSM;object=tlcp-sign;type=private\
//!      ?module-path=/opt/hsm/libpkcs11.so&pin-env=HSM_PIN&mechanisms=sansec",
//! )?;
//! let key = uri.open_key(None)?;
//! let signature = key.sign(b"message")?;
//! # Ok::<(), shangmi_pkcs11::Pkcs11Error>(())
//! ```

#![forbid(unsafe_code)]
// The README's example compiles as a doctest.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

mod error;
mod key;
mod mechanisms;
mod module;
mod secret;
mod uri;

pub use error::{Ckr, Pkcs11Error};
pub use key::{Capabilities, KeyObject, KeyOptions, MAX_MODULE_ID_LEN, NoKeyExchange, Pkcs11Key};
pub use mechanisms::{Mechanisms, SignatureEncoding};
pub use module::{
    ModuleInfo, ObjectDesc, ObjectKind, ObjectQuery, Pkcs11Module, TokenDesc, TokenQuery,
};
pub use secret::Pkcs11SecretKey;
pub use shangmi_device::BadOutput;
pub use shangmi_device::Pin;
pub use shangmi_sm2::PrivateKeyOps;
pub use uri::{PinSource, Pkcs11Uri, encode_text};
