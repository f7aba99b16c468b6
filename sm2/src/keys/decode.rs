//! DER decoding of PKCS#8 `PrivateKeyInfo` (RFC 5208/5958), SEC1 `ECPrivateKey`
//! (RFC 5915) and SPKI (RFC 5280/5480) for SM2, with a typed error for each cause.

use super::{ID_EC_PUBLIC_KEY, SM2_OID, public_key_from_sec1};
use crate::{Error, PublicKey, SecretKey};
use elliptic_curve::pkcs8::der::asn1::OctetStringRef;
use elliptic_curve::pkcs8::der::{Decode, Reader, SliceReader};
use elliptic_curve::pkcs8::{AlgorithmIdentifierRef, PrivateKeyInfoRef, SubjectPublicKeyInfoRef};
use sec1::EcParameters;
use zeroize::Zeroize;

/// Checks that an `AlgorithmIdentifier` names an SM2 key in one of the accepted forms.
pub(crate) fn check_algorithm(alg: &AlgorithmIdentifierRef<'_>) -> Result<(), Error> {
    if alg.oid == ID_EC_PUBLIC_KEY {
        // A named curve is required; explicit parameters or none are not SM2 as far as a
        // decoder can tell.
        match alg.parameters_oid() {
            Ok(oid) if oid == SM2_OID => Ok(()),
            _ => Err(Error::WrongCurve),
        }
    } else if alg.oid == SM2_OID {
        match alg.parameters {
            None => Ok(()),
            Some(_) if alg.parameters_oid().ok() == Some(SM2_OID) => Ok(()),
            Some(_) => Err(Error::WrongCurve),
        }
    } else {
        Err(Error::UnsupportedAlgorithm)
    }
}

/// An `EncryptedPrivateKeyInfo` (RFC 5958 §3): the encryption algorithm and the ciphertext.
pub(crate) fn parse_encrypted(der: &[u8]) -> Option<(AlgorithmIdentifierRef<'_>, &[u8])> {
    let mut reader = SliceReader::new(der).ok()?;
    let parsed = reader
        .sequence(|r| {
            let alg = AlgorithmIdentifierRef::decode(r)?;
            let data = <&OctetStringRef>::decode(r)?;
            Ok::<_, elliptic_curve::pkcs8::der::Error>((alg, data.as_bytes()))
        })
        .ok()?;
    reader.finish().ok()?;
    Some(parsed)
}

/// A secret key from PKCS#8 DER in either OID form. An `EncryptedPrivateKeyInfo` gives
/// [`Error::EncryptedKey`].
pub fn secret_key_from_pkcs8_der(der: &[u8]) -> Result<SecretKey, Error> {
    match PrivateKeyInfoRef::from_der(der) {
        Ok(pki) => secret_key_from_pki(&pki),
        Err(_) if parse_encrypted(der).is_some() => Err(Error::EncryptedKey),
        Err(_) => Err(Error::MalformedKey),
    }
}

/// The secret key of a parsed `PrivateKeyInfo`.
pub(crate) fn secret_key_from_pki(pki: &PrivateKeyInfoRef<'_>) -> Result<SecretKey, Error> {
    check_algorithm(&pki.algorithm)?;
    secret_key_from_sec1_der(pki.private_key.as_bytes())
}

/// The public key of a parsed `SubjectPublicKeyInfo`.
pub(crate) fn public_key_from_spki(spki: &SubjectPublicKeyInfoRef<'_>) -> Result<PublicKey, Error> {
    check_algorithm(&spki.algorithm)?;
    let bits = spki
        .subject_public_key
        .as_bytes()
        .ok_or(Error::MalformedKey)?;
    public_key_from_sec1(bits)
}

/// A secret key from SEC1 `ECPrivateKey` DER (RFC 5915; what `openssl ec -outform DER` and
/// `openssl pkey -outform DER` write for SM2 keys). A curve parameter, if present, must be
/// SM2; an embedded public key, if present, must be d·G.
pub fn secret_key_from_sec1_der(der: &[u8]) -> Result<SecretKey, Error> {
    let key = sec1::EcPrivateKey::from_der(der).map_err(|_| Error::MalformedKey)?;
    if let Some(EcParameters::NamedCurve(oid)) = key.parameters
        && oid != SM2_OID
    {
        return Err(Error::WrongCurve);
    }
    // The scalar is 32 bytes (SEC1 §C.4); some encoders drop leading zero bytes.
    let d = key.private_key;
    if d.is_empty() || d.len() > 32 {
        return Err(Error::InvalidSecretKey);
    }
    let mut bytes = [0u8; 32];
    bytes[32 - d.len()..].copy_from_slice(d);
    let secret = SecretKey::from_bytes(&bytes.into()).map_err(|_| Error::InvalidSecretKey);
    bytes.zeroize();
    let secret = secret?;
    if let Some(point) = key.public_key
        && public_key_from_sec1(point)? != secret.public_key()
    {
        return Err(Error::PublicKeyMismatch);
    }
    Ok(secret)
}

/// A secret key from DER of any unencrypted kind: PKCS#8 (either OID form) or SEC1.
/// An `EncryptedPrivateKeyInfo` gives [`Error::EncryptedKey`].
pub fn secret_key_from_der(der: &[u8]) -> Result<SecretKey, Error> {
    match secret_key_from_pkcs8_der(der) {
        Err(Error::MalformedKey) => secret_key_from_sec1_der(der),
        other => other,
    }
}

/// A public key from SPKI DER in either OID form (compressed or uncompressed point).
pub fn public_key_from_spki_der(der: &[u8]) -> Result<PublicKey, Error> {
    let spki = SubjectPublicKeyInfoRef::from_der(der).map_err(|_| Error::MalformedKey)?;
    public_key_from_spki(&spki)
}
