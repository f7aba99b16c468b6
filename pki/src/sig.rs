//! SM2 signatures and keys as the certificate structures carry them: the public key of an
//! SPKI and the SPKI of a key, signature checks over DER, the subject key identifier, and
//! any [`PrivateKeyOps`] key as the signer `x509-cert`'s builders take. Shared by issuing,
//! requests, CRLs, CMS and chain verification, which build on it.

use crate::oid;
use crate::{Error, PublicKey};
use alloc::string::String;
use der::asn1::OctetString;
use der::{Decode, Encode, Tagged};
use shangmi_sm2::pkcs8::EncodePublicKey;
use shangmi_sm2::signature::Verifier;
use shangmi_sm2::{PrivateKeyOps, dsa};
use spki::{AlgorithmIdentifierOwned, SubjectPublicKeyInfo, SubjectPublicKeyInfoOwned};
use x509_cert::Certificate;
use x509_cert::ext::pkix::SubjectKeyIdentifier;

/// The SM2 public key of an SPKI (id-ecPublicKey + SM2 curve, or the SM2 OID forms).
pub fn sm2_public_key(spki: &SubjectPublicKeyInfoOwned) -> Option<PublicKey> {
    let der = spki.to_der().ok()?;
    shangmi_sm2::keys::public_key_from_spki_der(&der).ok()
}

/// Checks an SM2-with-SM3 signature (DER `SEQUENCE { r, s }`) over `data` under `public`
/// with distinguishing ID `id`; the algorithm identifier must be sm2-with-sm3 with absent
/// or NULL parameters.
pub fn check_signature(
    public: &PublicKey,
    id: &[u8],
    data: &[u8],
    alg: &AlgorithmIdentifierOwned,
    sig: &[u8],
) -> Result<(), Error> {
    if alg.oid != oid::SM2_WITH_SM3 || !params_absent_or_null(alg) {
        return Err(Error::UnsupportedAlgorithm);
    }
    check_raw_signature(public, id, data, sig)
}

/// Checks a DER SM2 signature over `data` (no algorithm identifier).
pub fn check_raw_signature(
    public: &PublicKey,
    id: &[u8],
    data: &[u8],
    sig: &[u8],
) -> Result<(), Error> {
    let sig = shangmi_sm2::dsa::Signature::from_der(sig).map_err(|_| Error::BadSignature)?;
    let vk = shangmi_sm2::dsa::VerifyingKey::new_with_id(public, id)?;
    vk.verify(data, &sig).map_err(|_| Error::BadSignature)
}

pub(crate) fn params_absent_or_null(alg: &AlgorithmIdentifierOwned) -> bool {
    match &alg.parameters {
        None => true,
        Some(p) => p.tag() == der::Tag::Null && p.value().is_empty(),
    }
}

/// The SubjectPublicKeyInfo of an SM2 public key (id-ecPublicKey + SM2 curve, uncompressed).
pub fn spki_of(
    public: &PublicKey,
) -> Result<SubjectPublicKeyInfo<der::asn1::Any, der::asn1::BitString>, Error> {
    let der = public.to_public_key_der().map_err(|_| Error::KeyMismatch)?;
    Ok(SubjectPublicKeyInfo::from_der(der.as_bytes())?)
}

/// The subjectKeyIdentifier of a certificate, if it has one.
pub fn subject_key_identifier(cert: &Certificate) -> Option<OctetString> {
    cert.tbs_certificate()
        .get_extension::<SubjectKeyIdentifier>()
        .ok()
        .flatten()
        .map(|(_, ski)| ski.0)
}

/// Any [`PrivateKeyOps`] key as the signer `x509-cert`'s builders take (SM2-with-SM3, the
/// default ID), keeping the key holder's error, which the builder's own error type drops.
pub(crate) struct KeySigner<'a, K: ?Sized> {
    key: &'a K,
    verifying_key: dsa::VerifyingKey,
    failure: core::cell::RefCell<Option<String>>,
}

impl<'a, K: PrivateKeyOps + ?Sized> KeySigner<'a, K> {
    pub(crate) fn new(key: &'a K) -> Self {
        KeySigner {
            key,
            verifying_key: dsa::VerifyingKey::new(&key.public_key()),
            failure: core::cell::RefCell::new(None),
        }
    }

    /// The builder's result, with a signing failure reported as the key holder's.
    pub(crate) fn finish<T>(
        &self,
        built: Result<T, x509_cert::builder::Error>,
    ) -> Result<T, Error> {
        match (built, self.failure.borrow_mut().take()) {
            (Ok(t), _) => Ok(t),
            (Err(_), Some(why)) => Err(Error::KeyHolder(why)),
            (Err(e), None) => Err(e.into()),
        }
    }
}

impl<K: PrivateKeyOps + ?Sized> shangmi_sm2::signature::Keypair for KeySigner<'_, K> {
    type VerifyingKey = dsa::VerifyingKey;

    fn verifying_key(&self) -> dsa::VerifyingKey {
        self.verifying_key.clone()
    }
}

impl<K: PrivateKeyOps + ?Sized> shangmi_sm2::signature::Signer<dsa::Signature>
    for KeySigner<'_, K>
{
    fn try_sign(&self, msg: &[u8]) -> Result<dsa::Signature, shangmi_sm2::signature::Error> {
        let e = self.verifying_key.hash_message(msg);
        self.key.sign_digest(&e).map_err(|err| {
            *self.failure.borrow_mut() = Some(alloc::string::ToString::to_string(&err));
            shangmi_sm2::signature::Error::new()
        })
    }
}

impl<K: PrivateKeyOps + ?Sized> spki::SignatureAlgorithmIdentifier for KeySigner<'_, K> {
    type Params = der::asn1::AnyRef<'static>;
    const SIGNATURE_ALGORITHM_IDENTIFIER: spki::AlgorithmIdentifierRef<'static> =
        spki::AlgorithmIdentifierRef {
            oid: crate::oid::SM2_WITH_SM3,
            parameters: None,
        };
}
