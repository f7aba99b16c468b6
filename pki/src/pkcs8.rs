//! Reading encrypted PKCS#8 (`EncryptedPrivateKeyInfo`, RFC 5958 §3) with this crate's
//! error type. The reader is `shangmi-sm2`'s ([`shangmi_sm2::keys::decrypt_pkcs8_der`]),
//! which takes every PBES2 (RFC 8018 §6.2) combination peers write: PBKDF2 with HMAC-SHA-1,
//! HMAC-SHA-224/256/384/512 or HMAC-SM3 (1.2.156.10197.1.401.3.1 as OpenSSL 3.x writes it,
//! 1.2.156.10197.1.401.2 as GmSSL and gmsm write it), or scrypt; SM4-CBC, SM4-ECB,
//! SM4-GCM, AES-128/192/256-CBC and AES-128/256-GCM; the OIDs of RFC 8018 and of GM/T
//! 0091-2020.
//!
//! An algorithm outside these gives [`Error::UnsupportedScheme`] with its OID; a wrong
//! password [`Error::WrongPassword`]; a malformed structure [`Error::Der`] or
//! [`Error::MalformedScheme`].

use crate::Error;
use crate::SecretKey;
use alloc::vec::Vec;
use shangmi_sm2::keys::Pbes2Error;
pub use shangmi_sm2::keys::pbes2_oid::{PBES2, PBKDF2, SCRYPT, SM_PBES2, SM_PBKDF2};
pub use shangmi_sm2::keys::{MAX_ITERATIONS, MAX_SCRYPT_MEMORY};
use spki::AlgorithmIdentifierRef;
use zeroize::Zeroizing;

impl From<Pbes2Error> for Error {
    fn from(e: Pbes2Error) -> Self {
        match e {
            Pbes2Error::Der(e) => Error::Der(e),
            Pbes2Error::Unsupported(oid) => Error::UnsupportedScheme(oid),
            Pbes2Error::WrongPassword => Error::WrongPassword,
            _ => Error::MalformedScheme,
        }
    }
}

/// Decrypts `data` under a PBES2 `AlgorithmIdentifier` (PKCS#12's EncryptedData).
pub(crate) fn decrypt_with(
    alg: &AlgorithmIdentifierRef<'_>,
    data: &[u8],
    password: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Error> {
    Ok(shangmi_sm2::keys::decrypt_pbes2(alg, data, password)?)
}

/// Decrypts an `EncryptedPrivateKeyInfo` (DER): the `PrivateKeyInfo` DER inside.
///
/// A wrong password gives [`Error::WrongPassword`] (bad padding, a failed GCM tag, or a
/// plaintext that is not a DER SEQUENCE filling the buffer).
pub fn decrypt_der(der: &[u8], password: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
    Ok(shangmi_sm2::keys::decrypt_pkcs8_der(der, password)?)
}

/// An SM2 secret key from an `EncryptedPrivateKeyInfo` (DER) and its password.
pub fn secret_key_from_der(der: &[u8], password: &[u8]) -> Result<SecretKey, Error> {
    let pt = decrypt_der(der, password)?;
    Ok(shangmi_sm2::keys::secret_key_from_der(&pt)?)
}

/// An SM2 secret key from a `-----BEGIN ENCRYPTED PRIVATE KEY-----` block (or DER).
pub fn secret_key_from_pem(data: &[u8], password: &[u8]) -> Result<SecretKey, Error> {
    let ders = crate::pem::der_documents(data, &["ENCRYPTED PRIVATE KEY"])?;
    let der = ders.first().ok_or(Error::Pem)?;
    secret_key_from_der(der, password)
}
