//! SM2 keys as files hold them: PKCS#8, SEC1 and SPKI in DER or PEM, encrypted PKCS#8.
//!
//! Decoding accepts both algorithm identifiers seen in the wild for SM2 keys:
//! `id-ecPublicKey` (1.2.840.10045.2.1) with the SM2 curve (1.2.156.10197.1.301) as
//! parameter — RFC 5480/5915 style, what OpenSSL and GmSSL write — and the SM2 OID itself as
//! algorithm (parameter absent or the SM2 OID again), as Tongsuo and some GM/T 0010 toolkits
//! write. PEM input may carry explanatory text around the block and `EC PARAMETERS` blocks
//! before the key (what `openssl ecparam -genkey -name SM2` writes; OpenSSL 3 labels them
//! `SM2 PARAMETERS`, and SEC1 keys `SM2 PRIVATE KEY`). Encoding uses the first
//! form unless asked otherwise ([`AlgorithmForm`]). Every failure names its cause
//! ([`Error`]: wrong PEM label, not PKCS#8, encrypted, wrong curve, …).
//!
//! The key types also implement the RustCrypto traits, so `x509-cert`, `pkcs8` and `spki`
//! tooling works with them: [`DecodePrivateKey`](elliptic_curve::pkcs8::DecodePrivateKey)
//! and `EncodePrivateKey` on [`SigningKey`](crate::dsa::SigningKey) and `DecryptingKey`,
//! `DecodePublicKey`/`EncodePublicKey` on
//! [`VerifyingKey`](crate::dsa::VerifyingKey) and `EncryptingKey`,
//! `AssociatedAlgorithmIdentifier` on all four, `SignatureAlgorithmIdentifier`
//! (sm2-with-sm3, 1.2.156.10197.1.501, no parameters) on both DSA key types.
//!
//! ```
//! # #[cfg(feature = "pem")] {
//! use shangmi_sm2::{keys, dsa::SigningKey};
//! // `openssl ecparam -genkey -name SM2` (OpenSSL 3.0) output, with a note before it.
//! let pem = "\
//! Test key; do not use.
//! -----BEGIN SM2 PARAMETERS-----
//! BggqgRzPVQGCLQ==
//! -----END SM2 PARAMETERS-----
//! -----BEGIN PRIVATE KEY-----
//! MIGHAgEAMBMGByqGSM49AgEGCCqBHM9VAYItBG0wawIBAQQg2hxa5xNk5gelIJhj
//! 8Y42g0ZqMog6zAx83XdA/inHiJOhRANCAASUoT83klZuWgAujzl2QYQIYX9kE3Ud
//! UYLLtOadlVtqR4o6FSoPSaU2xSdb0oB3kBTgBcWs+4spm9/1ij+uEyVA
//! -----END PRIVATE KEY-----
//! ";
//! let signing_key = SigningKey::new(&keys::secret_key_from_pem(pem)?)?;
//! # }
//! # Ok::<(), shangmi_sm2::Error>(())
//! ```

#[cfg(feature = "pkcs8")]
mod decode;
#[cfg(all(feature = "pkcs8", feature = "alloc"))]
mod encode;
#[cfg(feature = "encryption")]
mod encrypted;
mod generate;
#[cfg(feature = "pem")]
mod pem;
mod pool;
#[cfg(feature = "serde")]
mod serde;
#[cfg(feature = "pkcs8")]
mod traits;

#[cfg(feature = "pkcs8")]
pub use decode::{
    public_key_from_spki_der, secret_key_from_der, secret_key_from_pkcs8_der,
    secret_key_from_sec1_der,
};
#[cfg(all(feature = "pkcs8", feature = "alloc"))]
pub use encode::{public_key_to_spki_der, secret_key_to_pkcs8_der};
#[cfg(feature = "pem")]
pub use encode::{public_key_to_spki_pem, secret_key_to_pkcs8_pem};
#[cfg(feature = "encryption")]
pub use encrypted::{
    EncryptionScheme, MAX_ITERATIONS, MAX_SCRYPT_MEMORY, Pbes2Error, decrypt_pbes2,
    decrypt_pkcs8_der, encrypt_pbes2, secret_key_from_encrypted_pkcs8_der,
    secret_key_to_encrypted_pkcs8_der,
};
/// The OIDs of the password-based schemes [`decrypt_pbes2`] reads.
#[cfg(feature = "encryption")]
pub mod pbes2_oid {
    pub use super::encrypted::{
        HMAC_SM3, HMAC_SM3_GMSSL, PBES2, PBKDF2, SCRYPT, SM_PBES2, SM_PBKDF2,
    };
}
#[cfg(all(feature = "encryption", feature = "pem"))]
pub use encrypted::{secret_key_from_pem_with_password, secret_key_to_encrypted_pkcs8_pem};
pub use generate::{check_key_pair, generate_checked};
#[cfg(feature = "pem")]
pub use pem::{
    public_key_from_pem, public_key_from_spki_pem, secret_key_from_pem, secret_key_from_pkcs8_pem,
};
pub use pool::KeyPool;

use crate::{Error, PublicKey};
use elliptic_curve::pkcs8::ObjectIdentifier;

/// id-ecPublicKey (RFC 5480).
pub const ID_EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
/// The SM2 curve / algorithm OID (GM/T 0006).
pub const SM2_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.301");
/// The SM2-with-SM3 signature algorithm (GM/T 0006: `sm2sign-with-sm3`), used without
/// parameters in X.509 certificates and CRLs.
pub const SM2_WITH_SM3_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.501");

/// Which `AlgorithmIdentifier` a PKCS#8 or SPKI encoding carries. Decoding takes all three.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AlgorithmForm {
    /// `id-ecPublicKey` with the SM2 curve OID as parameter (RFC 5480/5915; OpenSSL, GmSSL,
    /// RustCrypto). The default.
    #[default]
    EcPublicKey,
    /// The SM2 OID as algorithm with the SM2 OID again as parameter (Tongsuo's test keys).
    Sm2,
    /// The SM2 OID as algorithm, no parameter.
    Sm2Bare,
}

/// A public key from a SEC1 point, strictly: 33 bytes compressed (`02`/`03` ‖ x) or
/// 65 bytes uncompressed (`04` ‖ x ‖ y), on the curve. Unlike `PublicKey::from_sec1_bytes`
/// of `elliptic-curve`, which this crate's own parsers no longer use, it rejects the
/// identity (`00`) and the x-only "compact" form (`05` ‖ x), which no SM2 standard defines
/// and which would let two byte strings stand for one key.
pub fn public_key_from_sec1(bytes: &[u8]) -> Result<PublicKey, Error> {
    match (bytes.len(), bytes.first()) {
        (33, Some(0x02 | 0x03)) | (65, Some(0x04)) => {
            PublicKey::from_sec1_bytes(bytes).map_err(|_| Error::InvalidPoint)
        }
        _ => Err(Error::InvalidPoint),
    }
}

/// A public key from the raw forms toolkits exchange: a SEC1 point (33 bytes compressed or
/// 65 bytes uncompressed, as [`public_key_from_sec1`]) or the bare 64-byte `x ‖ y` that
/// GmSSL's Python package and sm-crypto write without the `04` prefix. The one reader the
/// command line and the bindings share.
pub fn public_key_from_bytes(bytes: &[u8]) -> Result<PublicKey, Error> {
    match <&[u8; 64]>::try_from(bytes) {
        Ok(xy) => {
            let mut point = [0u8; 65];
            point[0] = 0x04;
            point[1..].copy_from_slice(xy);
            public_key_from_sec1(&point)
        }
        Err(_) => public_key_from_sec1(bytes),
    }
}
