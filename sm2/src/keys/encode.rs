//! PKCS#8 and SPKI encoding in a chosen [`AlgorithmForm`].

use super::{AlgorithmForm, ID_EC_PUBLIC_KEY, SM2_OID};
use crate::{Error, PublicKey, SecretKey};
use elliptic_curve::pkcs8::der::asn1::{BitStringRef, OctetStringRef};
use elliptic_curve::pkcs8::der::{Document, SecretDocument};
use elliptic_curve::pkcs8::spki::{AlgorithmIdentifier, SubjectPublicKeyInfo};
use elliptic_curve::pkcs8::{ObjectIdentifier, PrivateKeyInfo};
use elliptic_curve::sec1::ToSec1Point;
use zeroize::Zeroizing;
#[cfg(feature = "pem")]
use {super::pem::PKCS8, alloc::string::String, elliptic_curve::pkcs8::LineEnding};

impl AlgorithmForm {
    /// The `AlgorithmIdentifier` of this form.
    pub(crate) fn identifier(self) -> AlgorithmIdentifier<ObjectIdentifier> {
        let (oid, parameters) = match self {
            AlgorithmForm::EcPublicKey => (ID_EC_PUBLIC_KEY, Some(SM2_OID)),
            AlgorithmForm::Sm2 => (SM2_OID, Some(SM2_OID)),
            AlgorithmForm::Sm2Bare => (SM2_OID, None),
        };
        AlgorithmIdentifier { oid, parameters }
    }
}

/// PKCS#8 `PrivateKeyInfo` DER in the given form; the inner SEC1 `ECPrivateKey` carries
/// the public key and no curve parameter (as OpenSSL writes it).
pub fn secret_key_to_pkcs8_der(
    secret: &SecretKey,
    form: AlgorithmForm,
) -> Result<SecretDocument, Error> {
    let d = Zeroizing::new(secret.to_bytes());
    let point = secret.public_key().to_sec1_point(false);
    let ec_private_key = sec1::EcPrivateKey {
        private_key: &d,
        parameters: None,
        public_key: Some(point.as_bytes()),
    };
    let inner = SecretDocument::encode_msg(&ec_private_key).map_err(|_| Error::Encoding)?;
    let pki = PrivateKeyInfo::<ObjectIdentifier, &OctetStringRef, BitStringRef<'_>> {
        algorithm: form.identifier(),
        private_key: OctetStringRef::new(inner.as_bytes()).map_err(|_| Error::Encoding)?,
        public_key: None,
    };
    SecretDocument::encode_msg(&pki).map_err(|_| Error::Encoding)
}

/// SPKI DER in the given form, with the uncompressed point.
pub fn public_key_to_spki_der(public: &PublicKey, form: AlgorithmForm) -> Result<Document, Error> {
    let point = public.to_sec1_point(false);
    let spki = SubjectPublicKeyInfo::<ObjectIdentifier, BitStringRef<'_>> {
        algorithm: form.identifier(),
        subject_public_key: BitStringRef::from_bytes(point.as_bytes())
            .map_err(|_| Error::Encoding)?,
    };
    Document::encode_msg(&spki).map_err(|_| Error::Encoding)
}

/// PKCS#8 PEM (`PRIVATE KEY`) in the given form.
#[cfg(feature = "pem")]
pub fn secret_key_to_pkcs8_pem(
    secret: &SecretKey,
    form: AlgorithmForm,
    line_ending: LineEnding,
) -> Result<Zeroizing<String>, Error> {
    let der = secret_key_to_pkcs8_der(secret, form)?;
    der.to_pem(PKCS8, line_ending).map_err(|_| Error::Encoding)
}

/// SPKI PEM (`PUBLIC KEY`) in the given form.
#[cfg(feature = "pem")]
pub fn public_key_to_spki_pem(
    public: &PublicKey,
    form: AlgorithmForm,
    line_ending: LineEnding,
) -> Result<String, Error> {
    let der = public_key_to_spki_der(public, form)?;
    der.to_pem("PUBLIC KEY", line_ending)
        .map_err(|_| Error::Encoding)
}
