//! SM2 digital signatures (GB/T 32918.2-2016, GM/T 0003.2): sign/verify over
//! e = SM3(Z_A ‖ M), with the distinguishing identifier given as bytes.
//!
//! ```
//! use shangmi_sm2::dsa::{SigningKey, Signature};
//! use shangmi_sm2::signature::{Signer, Verifier};
//!
//! let sk = SigningKey::from_bytes(&[7u8; 32].into()).unwrap();
//! let sig: Signature = sk.sign(b"message");
//! sk.verifying_key().verify(b"message", &sig).unwrap();
//! let der = sig.to_der();
//! assert_eq!(Signature::from_der(der.as_ref()).unwrap(), sig);
//! ```

mod context;
mod lazy;
mod nonce;
mod sig;
mod signing;
mod verifying;

pub use context::SigningContext;
pub use sig::{DerSignature, Signature};
pub use signing::SigningKey;
pub(crate) use signing::signing_limbs;
pub use verifying::VerifyingKey;
pub(crate) use verifying::{verify_point, verify_scalars};
