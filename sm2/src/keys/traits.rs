//! The RustCrypto `pkcs8`/`spki` traits on the key and signature types, so `x509-cert`'s
//! builder, `pkcs8` and `spki` tooling take them: decoding accepts both OID forms, encoding
//! writes id-ecPublicKey + SM2; the signature algorithm is sm2-with-sm3
//! (1.2.156.10197.1.501) without parameters, and certificate signatures are DER.

use super::decode::{public_key_from_spki, secret_key_from_pki};
use super::{ID_EC_PUBLIC_KEY, SM2_OID, SM2_WITH_SM3_OID};
use crate::dsa::{DerSignature, Signature, SigningKey, VerifyingKey};
use crate::{Error, PublicKey, SecretKey};
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

/// The pkcs8/spki traits of a private and a public key type: decoding from either OID form
/// (the key made from the decoded secret or public key by `$from_secret`/`$from_public`;
/// signing and verifying keys take the default identifier), encoding with `alloc` as
/// id-ecPublicKey + SM2 (the point uncompressed), and the key algorithm; `$cfg` gates all.
macro_rules! key_pair_traits {
    ($(#[$cfg:meta])* $private:ty = $from_secret:expr, $public:ty = $from_public:expr) => {
        /// Either OID form.
        $(#[$cfg])*
        impl TryFrom<PrivateKeyInfoRef<'_>> for $private {
            type Error = pkcs8::Error;

            fn try_from(pki: PrivateKeyInfoRef<'_>) -> pkcs8::Result<Self> {
                let make: fn(SecretKey) -> Result<Self, Error> = $from_secret;
                secret_key_from_pki(&pki)
                    .and_then(make)
                    .map_err(|e| pkcs8_error(&pki.algorithm, e))
            }
        }

        /// Either OID form.
        $(#[$cfg])*
        impl TryFrom<SubjectPublicKeyInfoRef<'_>> for $public {
            type Error = spki::Error;

            fn try_from(spki: SubjectPublicKeyInfoRef<'_>) -> spki::Result<Self> {
                let make: fn(PublicKey) -> Self = $from_public;
                let public =
                    public_key_from_spki(&spki).map_err(|e| spki_error(&spki.algorithm, e))?;
                Ok(make(public))
            }
        }

        /// id-ecPublicKey + SM2 form.
        #[cfg(feature = "alloc")]
        $(#[$cfg])*
        impl EncodePrivateKey for $private {
            fn to_pkcs8_der(&self) -> pkcs8::Result<SecretDocument> {
                self.secret_key().to_pkcs8_der()
            }
        }

        /// id-ecPublicKey + SM2 form, uncompressed point.
        #[cfg(feature = "alloc")]
        $(#[$cfg])*
        impl EncodePublicKey for $public {
            fn to_public_key_der(&self) -> spki::Result<Document> {
                self.public_key().to_public_key_der()
            }
        }

        $(#[$cfg])*
        impl AssociatedAlgorithmIdentifier for $private {
            type Params = ObjectIdentifier;
            const ALGORITHM_IDENTIFIER: AlgorithmIdentifier<ObjectIdentifier> = KEY_ALGORITHM;
        }

        $(#[$cfg])*
        impl AssociatedAlgorithmIdentifier for $public {
            type Params = ObjectIdentifier;
            const ALGORITHM_IDENTIFIER: AlgorithmIdentifier<ObjectIdentifier> = KEY_ALGORITHM;
        }
    };
}

key_pair_traits!(
    SigningKey = |s| SigningKey::new(&s),
    VerifyingKey = |p| VerifyingKey::new(&p)
);
key_pair_traits!(
    #[cfg(feature = "alloc")]
    DecryptingKey = |s| Ok(DecryptingKey::new(s)),
    EncryptingKey = EncryptingKey::new
);

/// sm2-with-sm3 as the algorithm `$konst` of the trait `$trait` for each type.
macro_rules! sm2_with_sm3 {
    ($trait:ident::$konst:ident for $($ty:ty),+) => {
        $(
            impl $trait for $ty {
                type Params = AnyRef<'static>;
                const $konst: AlgorithmIdentifierRef<'static> = SIGNATURE_ALGORITHM;
            }
        )+
    };
}

// The keys' signature algorithm (`DynSignatureAlgorithmIdentifier` follows with `alloc`)
// and the signatures' algorithm.
sm2_with_sm3!(SignatureAlgorithmIdentifier::SIGNATURE_ALGORITHM_IDENTIFIER for SigningKey, VerifyingKey);
sm2_with_sm3!(AssociatedAlgorithmIdentifier::ALGORITHM_IDENTIFIER for Signature, DerSignature);

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
