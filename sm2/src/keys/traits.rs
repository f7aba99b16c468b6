//! The RustCrypto `pkcs8`/`spki` traits on the key and signature types, so `x509-cert`'s
//! builder, `pkcs8` and `spki` tooling take them: decoding accepts both OID forms, encoding
//! writes id-ecPublicKey + SM2; the signature algorithm is sm2-with-sm3
//! (1.2.156.10197.1.501) without parameters, and certificate signatures are DER.

use super::decode::{public_key_from_spki, secret_key_from_pki};
use super::{ID_EC_PUBLIC_KEY, SM2_OID, SM2_WITH_SM3_OID};
use crate::Error;
use crate::dsa::{DerSignature, Signature, SigningKey, VerifyingKey};
use elliptic_curve::pkcs8::der::AnyRef;
use elliptic_curve::pkcs8::spki::{
    AlgorithmIdentifier, AlgorithmIdentifierRef, AssociatedAlgorithmIdentifier,
    SignatureAlgorithmIdentifier,
};
use elliptic_curve::pkcs8::{
    self, KeyError, ObjectIdentifier, PrivateKeyInfoRef, SubjectPublicKeyInfoRef, spki,
};
#[cfg(feature = "alloc")]
use {
    crate::pke::{DecryptingKey, EncryptingKey},
    elliptic_curve::pkcs8::der::{Document, SecretDocument, asn1::BitString},
    elliptic_curve::pkcs8::spki::SignatureBitStringEncoding,
    elliptic_curve::pkcs8::{EncodePrivateKey, EncodePublicKey},
};

/// id-ecPublicKey with the SM2 curve: the key algorithm of every SM2 key type.
const KEY_ALGORITHM: AlgorithmIdentifier<ObjectIdentifier> = AlgorithmIdentifier {
    oid: ID_EC_PUBLIC_KEY,
    parameters: Some(SM2_OID),
};

/// sm2-with-sm3, no parameters (GM/T 0006; as OpenSSL, Tongsuo and GmSSL write it).
const SIGNATURE_ALGORITHM: AlgorithmIdentifierRef<'static> = AlgorithmIdentifierRef {
    oid: SM2_WITH_SM3_OID,
    parameters: None,
};

fn pkcs8_error(alg: &AlgorithmIdentifierRef<'_>, e: Error) -> pkcs8::Error {
    match e {
        Error::UnsupportedAlgorithm => spki::Error::OidUnknown { oid: alg.oid }.into(),
        Error::WrongCurve => pkcs8::Error::ParametersMalformed,
        _ => KeyError::Invalid.into(),
    }
}

fn spki_error(alg: &AlgorithmIdentifierRef<'_>, e: Error) -> spki::Error {
    match e {
        Error::UnsupportedAlgorithm => spki::Error::OidUnknown { oid: alg.oid },
        _ => spki::Error::KeyMalformed,
    }
}

/// Either OID form; the signing key uses the default identifier.
impl TryFrom<PrivateKeyInfoRef<'_>> for SigningKey {
    type Error = pkcs8::Error;

    fn try_from(pki: PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
        let secret = secret_key_from_pki(&pki).map_err(|e| pkcs8_error(&pki.algorithm, e))?;
        SigningKey::new(&secret).map_err(|e| pkcs8_error(&pki.algorithm, e))
    }
}

/// Either OID form; the verifying key uses the default identifier.
impl TryFrom<SubjectPublicKeyInfoRef<'_>> for VerifyingKey {
    type Error = spki::Error;

    fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
        let public = public_key_from_spki(&spki).map_err(|e| spki_error(&spki.algorithm, e))?;
        Ok(VerifyingKey::new(&public))
    }
}

/// id-ecPublicKey + SM2 form.
#[cfg(feature = "alloc")]
impl EncodePrivateKey for SigningKey {
    fn to_pkcs8_der(&self) -> pkcs8::Result<SecretDocument> {
        self.secret_key().to_pkcs8_der()
    }
}

/// id-ecPublicKey + SM2 form, uncompressed point.
#[cfg(feature = "alloc")]
impl EncodePublicKey for VerifyingKey {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        self.public_key().to_public_key_der()
    }
}

impl AssociatedAlgorithmIdentifier for SigningKey {
    type Params = ObjectIdentifier;
    const ALGORITHM_IDENTIFIER: AlgorithmIdentifier<ObjectIdentifier> = KEY_ALGORITHM;
}

impl AssociatedAlgorithmIdentifier for VerifyingKey {
    type Params = ObjectIdentifier;
    const ALGORITHM_IDENTIFIER: AlgorithmIdentifier<ObjectIdentifier> = KEY_ALGORITHM;
}

/// sm2-with-sm3 (`DynSignatureAlgorithmIdentifier` follows with `alloc`).
impl SignatureAlgorithmIdentifier for SigningKey {
    type Params = AnyRef<'static>;
    const SIGNATURE_ALGORITHM_IDENTIFIER: AlgorithmIdentifierRef<'static> = SIGNATURE_ALGORITHM;
}

/// sm2-with-sm3 (`DynSignatureAlgorithmIdentifier` follows with `alloc`).
impl SignatureAlgorithmIdentifier for VerifyingKey {
    type Params = AnyRef<'static>;
    const SIGNATURE_ALGORITHM_IDENTIFIER: AlgorithmIdentifierRef<'static> = SIGNATURE_ALGORITHM;
}

impl AssociatedAlgorithmIdentifier for Signature {
    type Params = AnyRef<'static>;
    const ALGORITHM_IDENTIFIER: AlgorithmIdentifierRef<'static> = SIGNATURE_ALGORITHM;
}

impl AssociatedAlgorithmIdentifier for DerSignature {
    type Params = AnyRef<'static>;
    const ALGORITHM_IDENTIFIER: AlgorithmIdentifierRef<'static> = SIGNATURE_ALGORITHM;
}

/// The BIT STRING of an X.509 signature holds the DER form `SEQUENCE { r, s }`
/// (GM/T 0009 §7.2, as ECDSA in RFC 5480), not the fixed 64 bytes.
#[cfg(feature = "alloc")]
impl SignatureBitStringEncoding for Signature {
    fn to_bitstring(&self) -> pkcs8::der::Result<BitString> {
        BitString::from_bytes(self.to_der().as_ref())
    }
}

/// The DER form, as certificates carry it.
#[cfg(feature = "alloc")]
impl SignatureBitStringEncoding for DerSignature {
    fn to_bitstring(&self) -> pkcs8::der::Result<BitString> {
        BitString::from_bytes(self.as_ref())
    }
}

/// Either OID form.
#[cfg(feature = "alloc")]
impl TryFrom<PrivateKeyInfoRef<'_>> for DecryptingKey {
    type Error = pkcs8::Error;

    fn try_from(pki: PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
        let secret = secret_key_from_pki(&pki).map_err(|e| pkcs8_error(&pki.algorithm, e))?;
        Ok(DecryptingKey::new(secret))
    }
}

/// Either OID form.
#[cfg(feature = "alloc")]
impl TryFrom<SubjectPublicKeyInfoRef<'_>> for EncryptingKey {
    type Error = spki::Error;

    fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
        let public = public_key_from_spki(&spki).map_err(|e| spki_error(&spki.algorithm, e))?;
        Ok(EncryptingKey::new(public))
    }
}

/// id-ecPublicKey + SM2 form.
#[cfg(feature = "alloc")]
impl EncodePrivateKey for DecryptingKey {
    fn to_pkcs8_der(&self) -> pkcs8::Result<SecretDocument> {
        self.secret_key().to_pkcs8_der()
    }
}

/// id-ecPublicKey + SM2 form, uncompressed point.
#[cfg(feature = "alloc")]
impl EncodePublicKey for EncryptingKey {
    fn to_public_key_der(&self) -> spki::Result<Document> {
        self.public_key().to_public_key_der()
    }
}

#[cfg(feature = "alloc")]
impl AssociatedAlgorithmIdentifier for DecryptingKey {
    type Params = ObjectIdentifier;
    const ALGORITHM_IDENTIFIER: AlgorithmIdentifier<ObjectIdentifier> = KEY_ALGORITHM;
}

#[cfg(feature = "alloc")]
impl AssociatedAlgorithmIdentifier for EncryptingKey {
    type Params = ObjectIdentifier;
    const ALGORITHM_IDENTIFIER: AlgorithmIdentifier<ObjectIdentifier> = KEY_ALGORITHM;
}
