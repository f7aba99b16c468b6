//! SM2 keys and certificates inside GM/T 0016 (SKF) USB keys ("智能密码钥匙", UKey),
//! through any vendor's library loaded at run time (`libloading`).
//!
//! [`SkfLibrary::load`] loads the library and resolves its functions, the optional ones
//! reported by [`Capabilities`] at once (many keys lack `SKF_ECCDecrypt`); then device
//! ([`SkfLibrary::devices`], [`SkfLibrary::connect`]) → application
//! ([`SkfDevice::applications`], [`SkfDevice::open_application`],
//! [`Application::verify_pin`] with the attempts left in [`SkfError::WrongPin`]) →
//! container ([`Application::containers`], [`Application::open_container`]), which holds a
//! sign pair, an encryption pair and their two certificates ([`Container::certificate`]):
//! a TLCP client identity. [`SkfKey`] implements `shangmi_sm2`'s
//! [`PrivateKeyOps`](shangmi_sm2::PrivateKeyOps): signing (`SKF_ECCSignData` over the
//! digest e = SM3(Z_A ‖ M), which this crate computes with Z_A from the exported public
//! key), decryption (`SKF_ECCDecrypt`); the key exchange is a typed "unsupported" error
//! (SKF's agreement functions return a handle, not key material). [`SkfUri`] parses the
//! command line's `skf:` key URIs.
//!
//! Every `SAR_*` code is a named [`SarCode`]; malformed device output (lengths, points
//! off the curve, r or s out of range) is [`SkfError::BadOutput`]; the PIN is zeroized
//! after use and never printed. Calls into one library are serialised (a USB key serves one
//! command at a time), so every handle is `Send + Sync`.
//!
//! ```no_run
//! use shangmi_skf::{KeyUsage, Pin, SkfKey, SkfLibrary};
//! use shangmi_sm2::PrivateKeyOps;
//! let lib = SkfLibrary::load("/opt/ukey/lib/libskf.so")?;
//! let device = lib.connect(&lib.devices()?[0])?;
//! let app = device.open_application("SJY")?;
//! app.verify_pin(Pin::from_env("UKEY_PIN").expect("UKEY_PIN is set"))?;
//! let container = app.open_container("tlcp")?;
//! let key = SkfKey::open(&container, KeyUsage::Sign)?;
//! let signature = key.sign(b"message")?;
//! let sign_cert = container.certificate(KeyUsage::Sign)?;
//! # Ok::<(), shangmi_skf::SkfError>(())
//! ```
//!
//! `unsafe` is confined to the FFI calls (`ffi.rs`, `device.rs`, `key.rs`), each with its
//! SAFETY comment.

// The README's example compiles as a doctest.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

mod device;
mod error;
mod ffi;
mod key;
mod uri;

pub use device::{
    Application, Capabilities, Container, ContainerType, DeviceInfo, KeyUsage, MAX_OUTPUT, Pin,
    SkfDevice, SkfLibrary,
};
pub use error::{SarCode, SkfError};
pub use key::{MAX_PLAINTEXT, NoKeyExchange, SkfKey};
pub use shangmi_device::BadOutput;
pub use uri::SkfUri;
