//! Key decoding that accepts both algorithm identifiers seen in the wild for SM2 keys in
//! PKCS#8 and SPKI: `id-ecPublicKey` (1.2.840.10045.2.1) with the SM2 curve
//! (1.2.156.10197.1.301) as parameter — RFC 5915/5480 style, what OpenSSL writes — and the
//! SM2 OID itself as algorithm (parameter absent or the SM2 OID again), as some GM/T 0010
//! toolkits write. Encoding always uses the first form, through the `elliptic-curve` traits
//! (`EncodePrivateKey`, `EncodePublicKey`, `SecretKey::to_sec1_der`).

use crate::{Error, PublicKey, SecretKey};
use elliptic_curve::pkcs8::der::Decode;
use elliptic_curve::pkcs8::{
    AlgorithmIdentifierRef, ObjectIdentifier, PrivateKeyInfoRef, SubjectPublicKeyInfoRef,
};

/// id-ecPublicKey (RFC 5480).
pub const ID_EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
/// The SM2 curve / algorithm OID (GM/T 0006).
pub const SM2_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.301");

fn algorithm_is_sm2(alg: &AlgorithmIdentifierRef<'_>) -> bool {
    let params = alg.parameters_oid().ok();
    if alg.oid == ID_EC_PUBLIC_KEY {
        params == Some(SM2_OID)
    } else if alg.oid == SM2_OID {
        alg.parameters.is_none() || params == Some(SM2_OID)
    } else {
        false
    }
}

/// A secret key from PKCS#8 DER in either OID form.
pub fn secret_key_from_pkcs8_der(der: &[u8]) -> Result<SecretKey, Error> {
    let pki = PrivateKeyInfoRef::from_der(der).map_err(|_| Error::InvalidSecretKey)?;
    if !algorithm_is_sm2(&pki.algorithm) {
        return Err(Error::InvalidSecretKey);
    }
    SecretKey::from_sec1_der(pki.private_key.as_bytes()).map_err(|_| Error::InvalidSecretKey)
}

/// A public key from SPKI DER in either OID form (compressed or uncompressed point).
pub fn public_key_from_spki_der(der: &[u8]) -> Result<PublicKey, Error> {
    let spki = SubjectPublicKeyInfoRef::from_der(der).map_err(|_| Error::InvalidPoint)?;
    if !algorithm_is_sm2(&spki.algorithm) {
        return Err(Error::InvalidPoint);
    }
    let bits = spki
        .subject_public_key
        .as_bytes()
        .ok_or(Error::InvalidPoint)?;
    public_key_from_sec1(bits)
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

/// A secret key from a PKCS#8 PEM document (`PRIVATE KEY`) in either OID form.
#[cfg(feature = "pem")]
pub fn secret_key_from_pkcs8_pem(pem: &str) -> Result<SecretKey, Error> {
    let (label, mut der) = elliptic_curve::pkcs8::der::pem::decode_vec(pem.as_bytes())
        .map_err(|_| Error::InvalidSecretKey)?;
    let key = if label == "PRIVATE KEY" {
        secret_key_from_pkcs8_der(&der)
    } else {
        Err(Error::InvalidSecretKey)
    };
    zeroize::Zeroize::zeroize(&mut der);
    key
}

/// A public key from an SPKI PEM document (`PUBLIC KEY`) in either OID form.
#[cfg(feature = "pem")]
pub fn public_key_from_spki_pem(pem: &str) -> Result<PublicKey, Error> {
    let (label, der) = elliptic_curve::pkcs8::der::pem::decode_vec(pem.as_bytes())
        .map_err(|_| Error::InvalidPoint)?;
    if label != "PUBLIC KEY" {
        return Err(Error::InvalidPoint);
    }
    public_key_from_spki_der(&der)
}
