//! GM/T 0010-2012 (and RFC 5652) CMS with SM2/SM3/SM4: SignedData (attached or detached,
//! signed attributes, several signers, certificates included) and EnvelopedData (a random
//! SM4 key SM2-encrypted to each recipient's encryption certificate, SM4-CBC content).
//!
//! The layouts follow what gmsm v0.44 writes for its "SM2" variants: content types
//! 1.2.156.10197.6.1.4.2.x, SM3 digest with NULL parameters, signature algorithm sm2-1
//! (1.2.156.10197.1.301.1), signer and recipient identified by issuer and serial number,
//! key transport sm2-3 (1.2.156.10197.1.301.3) with the GM/T 0009 `SM2Cipher` DER as the
//! encrypted key, SM4-CBC (1.2.156.10197.1.104.2) with the IV as an OCTET STRING parameter.
//! [`Oids::Rfc5652`] writes the PKCS#7 content types (`id-data`, `id-signedData`, …)
//! instead, as OpenSSL does. Reading takes every peer's form with no option (either OID
//! set, every SM2 signature and key-transport OID seen, signatures with Z_A — the default
//! ID —, over plain SM3 as OpenSSL/Tongsuo `-noattr`, or in GmSSL 3's form: see
//! [`verify`]); writing defaults to what most peers read (see [`SignatureForm`]).

use crate::oid;
use crate::verify::{Options, VerifyError};
use crate::{Error, PublicKey, SecretKey};
use alloc::vec::Vec;
use cms::cert::{CertificateChoices, IssuerAndSerialNumber};
use cms::content_info::{CmsVersion, ContentInfo};
use cms::enveloped_data::{
    EncryptedContentInfo, EnvelopedData, KeyTransRecipientInfo, RecipientIdentifier, RecipientInfo,
    RecipientInfos,
};
use cms::signed_data::{
    CertificateSet, EncapsulatedContentInfo, SignedData, SignerIdentifier, SignerInfo, SignerInfos,
};
use const_oid::ObjectIdentifier as Oid;
use der::asn1::{Any, OctetString, SetOfVec, UtcTime};
use der::{Decode, Encode};
use digest::Digest;
use shangmi_sm2::PrivateKeyOps;
use shangmi_sm2::dsa;
use shangmi_sm2::pke::EncryptingKey;
use shangmi_sm2::signature::Verifier as _;
use shangmi_sm4_modes::cipher::block_padding::Pkcs7;
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc};
use spki::AlgorithmIdentifierOwned;
use x509_cert::Certificate;
use x509_cert::attr::Attribute;
use zeroize::Zeroizing;

/// Which set of content-type OIDs to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Oids {
    /// GM/T 0010: 1.2.156.10197.6.1.4.2.x (GmSSL, gmsm's SM2 variants, CFCA).
    #[default]
    GmT0010,
    /// RFC 5652: 1.2.840.113549.1.7.x (OpenSSL).
    Rfc5652,
}

impl Oids {
    fn data(self) -> Oid {
        match self {
            Oids::GmT0010 => oid::GM_DATA,
            Oids::Rfc5652 => oid::DATA,
        }
    }
    fn signed_data(self) -> Oid {
        match self {
            Oids::GmT0010 => oid::GM_SIGNED_DATA,
            Oids::Rfc5652 => oid::SIGNED_DATA,
        }
    }
    fn enveloped_data(self) -> Oid {
        match self {
            Oids::GmT0010 => oid::GM_ENVELOPED_DATA,
            Oids::Rfc5652 => oid::ENVELOPED_DATA,
        }
    }
    /// Parameters of the algorithm identifiers written: NULL for GM/T 0010 (as gmsm and
    /// GmSSL), absent for RFC 5652 (as OpenSSL).
    fn params(self) -> Option<Any> {
        match self {
            Oids::GmT0010 => Some(Any::from(der::asn1::Null)),
            Oids::Rfc5652 => None,
        }
    }
}

/// One signer: its certificate, its private key (in memory, or in a device through
/// [`PrivateKeyOps`]), and certificates to include with it.
pub struct Signer<'a, K: ?Sized = SecretKey> {
    /// The signer's certificate.
    pub cert: &'a Certificate,
    /// Its private key.
    pub key: &'a K,
    /// Intermediate certificates to include.
    pub chain: &'a [Certificate],
}

impl<'a, K: ?Sized> Signer<'a, K> {
    /// A signer with no intermediate certificates to include.
    pub fn new(cert: &'a Certificate, key: &'a K) -> Self {
        Self {
            cert,
            key,
            chain: &[],
        }
    }
}

impl<K: ?Sized> Clone for Signer<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K: ?Sized> Copy for Signer<'_, K> {}

impl<K: ?Sized> core::fmt::Debug for Signer<'_, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Signer")
            .field("cert", self.cert)
            .field("chain", &self.chain)
            .finish_non_exhaustive()
    }
}

/// What an SM2 signature in a SignerInfo is computed over. [`verify`] takes every form
/// (each signer's is found by trying them in this order); [`verify_with`] takes one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignatureForm {
    /// GM/T 0010 / RFC 5652: SM2 over Z_A (default ID) and the signed attributes' DER (or
    /// the content without them), as gmsm, Tongsuo, OpenSSL 3 (with signed attributes) and
    /// CFCA sign. Signature algorithm written: sm2-1 (1.2.156.10197.1.301.1).
    #[default]
    Standard,
    /// SM2 with Z_A computed over an empty ID (ENTL = 0), over the signed attributes' DER
    /// (or the content): what OpenSSL 3 (3.0 and 3.6 seen) writes and verifies with signed
    /// attributes, having no default ID in its CMS code. Signature algorithm written:
    /// SM2-with-SM3 (1.2.156.10197.1.501), as OpenSSL writes it.
    ZaEmptyId,
    /// e = SM3(signed attributes' DER, or the content without them) used directly as the
    /// SM2 e, without Z_A: what OpenSSL 3 and Tongsuo write with `cms -sign -noattr` (their
    /// CMS signs the finished digest) and the only form they verify without signed
    /// attributes. Signature algorithm written: SM2-with-SM3 (1.2.156.10197.1.501), as
    /// they write it.
    PlainSm3,
    /// GmSSL 3's `cmssign` (as of 24ae482): e = SM3(DER of the EncapsulatedContentInfo)
    /// used directly as the SM2 e, without Z_A (its source notes the defect); GmSSL writes
    /// no signed attributes (with them, this crate appends their DER, which GmSSL's
    /// `cmsverify` does not take). Signature algorithm written: SM2-with-SM3
    /// (1.2.156.10197.1.501), the only one GmSSL's `cmsverify` takes.
    GmSsl3,
}

impl SignatureForm {
    /// Every form, in the order [`verify`] tries them: Z_A with the caller's ID (default
    /// `1234567812345678`) first, Z_A with an empty ID, then plain SM3, then GmSSL's.
    pub const ALL: [SignatureForm; 4] = [
        SignatureForm::Standard,
        SignatureForm::ZaEmptyId,
        SignatureForm::PlainSm3,
        SignatureForm::GmSsl3,
    ];
}

/// How to sign.
#[derive(Clone, Copy, Debug)]
pub struct SignOptions {
    /// Leave the content out (the verifier supplies it).
    pub detached: bool,
    /// Which content-type OIDs.
    pub oids: Oids,
    /// Include the signers' certificates (and chains).
    pub include_certificates: bool,
    /// Sign attributes (contentType, messageDigest, signingTime) rather than the content itself.
    pub signed_attributes: bool,
    /// What the signature covers.
    pub form: SignatureForm,
}

impl Default for SignOptions {
    fn default() -> Self {
        SignOptions {
            detached: false,
            oids: Oids::GmT0010,
            include_certificates: true,
            signed_attributes: true,
            form: SignatureForm::Standard,
        }
    }
}

/// The DER of `EncapsulatedContentInfo { type, [0] OCTET STRING content }`.
fn eci_der(content_type: Oid, content: &[u8]) -> Result<Vec<u8>, Error> {
    Ok(EncapsulatedContentInfo {
        econtent_type: content_type,
        econtent: Some(Any::encode_from(&OctetString::new(content)?)?),
    }
    .to_der()?)
}

fn alg(oid: Oid, params: Option<Any>) -> AlgorithmIdentifierOwned {
    AlgorithmIdentifierOwned {
        oid,
        parameters: params,
    }
}

fn sm3(data: &[u8]) -> [u8; 32] {
    shangmi_sm3::Sm3::digest(data).into()
}

fn attribute(oid: Oid, value: Any) -> Result<Attribute, Error> {
    let mut values = SetOfVec::new();
    values.insert(value)?;
    Ok(Attribute { oid, values })
}

fn issuer_and_serial(cert: &Certificate) -> IssuerAndSerialNumber {
    IssuerAndSerialNumber {
        issuer: cert.tbs_certificate().issuer().clone(),
        serial_number: cert.tbs_certificate().serial_number().clone(),
    }
}

fn check_key<K: PrivateKeyOps + ?Sized>(cert: &Certificate, key: &K) -> Result<(), Error> {
    let public = crate::sig::sm2_public_key(cert.tbs_certificate().subject_public_key_info())
        .ok_or(Error::KeyMismatch)?;
    if public != key.public_key() {
        return Err(Error::KeyMismatch);
    }
    Ok(())
}

/// Signs `content`; returns the DER `ContentInfo` holding the SignedData.
pub fn sign<K: PrivateKeyOps + ?Sized>(
    content: &[u8],
    signers: &[Signer<'_, K>],
    opts: &SignOptions,
) -> Result<Vec<u8>, Error> {
    if signers.is_empty() {
        return Err(Error::MissingContent);
    }
    let params = opts.oids.params();
    let content_type = opts.oids.data();
    let digest = sm3(content);
    let mut digest_algorithms = SetOfVec::new();
    digest_algorithms.insert(alg(oid::SM3, params.clone()))?;
    let mut signer_infos = SetOfVec::new();
    let mut certs = SetOfVec::new();
    let now = UtcTime::from_unix_duration(core::time::Duration::from_secs(crate::unix_now()))?;
    for s in signers {
        check_key(s.cert, s.key)?;
        let standard = |data: &[u8]| s.key.sign(data).map_err(Error::key_holder);
        let gmssl_e = |attrs: &[u8]| -> Result<dsa::Signature, Error> {
            let mut h = shangmi_sm3::Sm3::new();
            h.update(eci_der(content_type, content)?);
            h.update(attrs);
            let e: [u8; 32] = h.finalize().into();
            s.key.sign_digest(&e).map_err(Error::key_holder)
        };
        let empty_id = |data: &[u8]| s.key.sign_with_id(b"", data).map_err(Error::key_holder);
        let plain_e = |data: &[u8]| s.key.sign_digest(&sm3(data)).map_err(Error::key_holder);
        let (signed_attrs, signature) = if opts.signed_attributes {
            let mut attrs = SetOfVec::new();
            attrs.insert(attribute(
                oid::CONTENT_TYPE,
                Any::encode_from(&content_type)?,
            )?)?;
            attrs.insert(attribute(
                oid::MESSAGE_DIGEST,
                Any::encode_from(&OctetString::new(digest.to_vec())?)?,
            )?)?;
            attrs.insert(attribute(oid::SIGNING_TIME, Any::encode_from(&now)?)?)?;
            let to_sign = attrs.to_der()?;
            let sig: dsa::Signature = match opts.form {
                SignatureForm::Standard => standard(&to_sign)?,
                SignatureForm::ZaEmptyId => empty_id(&to_sign)?,
                SignatureForm::PlainSm3 => plain_e(&to_sign)?,
                SignatureForm::GmSsl3 => gmssl_e(&to_sign)?,
            };
            (Some(attrs), sig)
        } else {
            let sig: dsa::Signature = match opts.form {
                SignatureForm::Standard => standard(content)?,
                SignatureForm::ZaEmptyId => empty_id(content)?,
                SignatureForm::PlainSm3 => plain_e(content)?,
                SignatureForm::GmSsl3 => gmssl_e(&[])?,
            };
            (None, sig)
        };
        signer_infos.insert(SignerInfo {
            version: CmsVersion::V1,
            sid: SignerIdentifier::IssuerAndSerialNumber(issuer_and_serial(s.cert)),
            digest_alg: alg(oid::SM3, params.clone()),
            signed_attrs,
            signature_algorithm: match opts.form {
                SignatureForm::Standard => alg(oid::SM2_SIGN, params.clone()),
                // as OpenSSL and Tongsuo write it; GmSSL checks for this one
                SignatureForm::ZaEmptyId | SignatureForm::PlainSm3 | SignatureForm::GmSsl3 => {
                    alg(oid::SM2_WITH_SM3, None)
                }
            },
            signature: OctetString::new(signature.to_der().as_ref())?,
            unsigned_attrs: None,
        })?;
        if opts.include_certificates {
            for c in core::iter::once(s.cert).chain(s.chain.iter()) {
                let choice = CertificateChoices::Certificate(c.clone());
                if !certs.iter().any(|x| *x == choice) {
                    certs.insert(choice)?;
                }
            }
        }
    }
    let econtent = if opts.detached {
        None
    } else {
        Some(Any::encode_from(&OctetString::new(content)?)?)
    };
    let sd = SignedData {
        version: CmsVersion::V1,
        digest_algorithms,
        encap_content_info: EncapsulatedContentInfo {
            econtent_type: content_type,
            econtent,
        },
        certificates: if certs.is_empty() {
            None
        } else {
            Some(CertificateSet(certs))
        },
        crls: None,
        signer_infos: SignerInfos(signer_infos),
    };
    let ci = ContentInfo {
        content_type: opts.oids.signed_data(),
        content: Any::encode_from(&sd)?,
    };
    Ok(ci.to_der()?)
}

/// Why a SignedData does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CmsVerifyError {
    /// The message is malformed or a signature / digest check failed.
    Message(Error),
    /// A signer's certificate does not chain to a trusted root.
    Chain(VerifyError),
}

impl core::fmt::Display for CmsVerifyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CmsVerifyError::Message(e) => write!(f, "{e}"),
            CmsVerifyError::Chain(e) => write!(f, "signer certificate: {e}"),
        }
    }
}

impl core::error::Error for CmsVerifyError {}

impl From<Error> for CmsVerifyError {
    fn from(e: Error) -> Self {
        CmsVerifyError::Message(e)
    }
}

impl From<der::Error> for CmsVerifyError {
    fn from(e: der::Error) -> Self {
        CmsVerifyError::Message(Error::Der(e))
    }
}

/// A verified SignedData.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The content (the attached one, or the detached one given).
    pub content: Vec<u8>,
    /// Each signer's certificate, in signerInfos order.
    pub signers: Vec<Certificate>,
    /// The form each signer's signature was found in, in signerInfos order.
    pub forms: Vec<SignatureForm>,
}

/// Parses a `ContentInfo` holding a SignedData (either OID set).
pub fn parse_signed_data(der: &[u8]) -> Result<SignedData, Error> {
    let ci = ContentInfo::from_der(der)?;
    if ci.content_type != oid::GM_SIGNED_DATA && ci.content_type != oid::SIGNED_DATA {
        return Err(Error::UnsupportedAlgorithm);
    }
    Ok(ci.content.decode_as::<SignedData>()?)
}

fn find_cert<'c>(sid: &SignerIdentifier, certs: &'c [Certificate]) -> Option<&'c Certificate> {
    certs.iter().find(|c| match sid {
        SignerIdentifier::IssuerAndSerialNumber(isn) => {
            c.tbs_certificate().issuer() == &isn.issuer
                && c.tbs_certificate().serial_number() == &isn.serial_number
        }
        SignerIdentifier::SubjectKeyIdentifier(ski) => {
            crate::sig::subject_key_identifier(c).as_ref() == Some(&ski.0)
        }
    })
}

/// Checks one signer's content type and message digest (with signed attributes) and its
/// signature with `public` in the first of `forms` it verifies in; returns that form.
fn check_signer(
    si: &SignerInfo,
    econtent_type: Oid,
    content: &[u8],
    public: &PublicKey,
    id: &[u8],
    forms: &[SignatureForm],
) -> Result<SignatureForm, Error> {
    if si.digest_alg.oid != oid::SM3 {
        return Err(Error::UnsupportedAlgorithm);
    }
    let sig_oid = si.signature_algorithm.oid;
    if ![
        oid::SM2_SIGN,
        oid::SM2,
        oid::SM2_WITH_SM3,
        oid::EC_PUBLIC_KEY,
    ]
    .contains(&sig_oid)
    {
        return Err(Error::UnsupportedAlgorithm);
    }
    let attrs_der = match &si.signed_attrs {
        Some(attrs) => {
            let mut digest_ok = false;
            let mut type_ok = false;
            for a in attrs.iter() {
                let single = || -> Result<&Any, Error> {
                    if a.values.len() != 1 {
                        return Err(Error::DigestMismatch);
                    }
                    a.values.iter().next().ok_or(Error::DigestMismatch)
                };
                if a.oid == oid::MESSAGE_DIGEST {
                    let v = single()?.decode_as::<OctetString>()?;
                    digest_ok = v.as_bytes() == sm3(content);
                } else if a.oid == oid::CONTENT_TYPE {
                    type_ok = single()?.decode_as::<Oid>()? == econtent_type;
                }
            }
            if !digest_ok || !type_ok {
                return Err(Error::DigestMismatch);
            }
            Some(attrs.to_der()?)
        }
        None => None,
    };
    // what a standard or plain signature covers: the attributes, else the content
    let signed: &[u8] = attrs_der.as_deref().unwrap_or(content);
    let sig = dsa::Signature::from_der(si.signature.as_bytes()).map_err(|_| Error::BadSignature)?;
    let vk = dsa::VerifyingKey::new_with_id(public, id)?;
    for &form in forms {
        let ok = match form {
            SignatureForm::Standard => vk.verify(signed, &sig).is_ok(),
            SignatureForm::ZaEmptyId => dsa::VerifyingKey::new_with_id(public, b"")?
                .verify(signed, &sig)
                .is_ok(),
            SignatureForm::PlainSm3 => vk.verify_e(&sm3(signed), &sig).is_ok(),
            SignatureForm::GmSsl3 => {
                let mut h = shangmi_sm3::Sm3::new();
                h.update(eci_der(econtent_type, content)?);
                h.update(attrs_der.as_deref().unwrap_or(&[]));
                let e: [u8; 32] = h.finalize().into();
                vk.verify_e(&e, &sig).is_ok()
            }
        };
        if ok {
            return Ok(form);
        }
    }
    Err(Error::BadSignature)
}

/// Verifies every signer of a SignedData: signatures, digests, and each signer
/// certificate's chain to `roots` (through the message's certificates and `extra`) with
/// `opts` (its purpose is usually [`crate::verify::Purpose::CmsSign`]). `detached` is the
/// content when the message carries none.
///
/// Every peer's form is taken, with no option: either content-type set (GM/T 0010's
/// 1.2.156.10197.6.1.4.2.x as GmSSL, gmsm and CFCA write, RFC 5652's as OpenSSL and
/// Tongsuo), every SM2 signature-algorithm OID seen (sm2-1, sm2, SM2-with-SM3 — which
/// OpenSSL, Tongsuo and GmSSL all write, so it does not tell a form), and each signature
/// in the first of [`SignatureForm::ALL`] it verifies in: with Z_A (GM/T 0010), with Z_A
/// over an empty ID (OpenSSL 3 with signed attributes), plain SM3 without Z_A
/// (OpenSSL/Tongsuo `-noattr`), then GmSSL 3's. [`Verified::forms`]
/// says which. The forms without Z_A are weaker: whoever holds any SM2 signature with
/// Z_A by the signer's key over `m` can present content `Z_A ‖ m` without attributes as
/// signed in the plain form (OpenSSL's and Tongsuo's verifiers take the same); use
/// [`verify_with`] with [`SignatureForm::Standard`] to refuse them.
pub fn verify(
    der: &[u8],
    detached: Option<&[u8]>,
    extra: &[Certificate],
    roots: &[Certificate],
    opts: &Options<'_>,
) -> Result<Verified, CmsVerifyError> {
    verify_forms(der, detached, extra, roots, opts, &SignatureForm::ALL)
}

/// [`verify`] for signatures in `form` only (every signer must use it).
pub fn verify_with(
    der: &[u8],
    detached: Option<&[u8]>,
    extra: &[Certificate],
    roots: &[Certificate],
    opts: &Options<'_>,
    form: SignatureForm,
) -> Result<Verified, CmsVerifyError> {
    verify_forms(der, detached, extra, roots, opts, &[form])
}

fn verify_forms(
    der: &[u8],
    detached: Option<&[u8]>,
    extra: &[Certificate],
    roots: &[Certificate],
    opts: &Options<'_>,
    forms: &[SignatureForm],
) -> Result<Verified, CmsVerifyError> {
    let sd = parse_signed_data(der)?;
    let content: Vec<u8> = match (&sd.encap_content_info.econtent, detached) {
        (Some(any), _) => any.decode_as::<OctetString>()?.into_bytes().into_vec(),
        (None, Some(d)) => d.to_vec(),
        (None, None) => return Err(Error::MissingContent.into()),
    };
    let mut certs: Vec<Certificate> = sd
        .certificates
        .iter()
        .flat_map(|s| s.0.iter())
        .filter_map(|c| match c {
            CertificateChoices::Certificate(c) => Some(c.clone()),
            _ => None,
        })
        .collect();
    certs.extend(extra.iter().cloned());
    if sd.signer_infos.0.is_empty() {
        return Err(Error::MissingContent.into());
    }
    let mut signers = Vec::new();
    let mut found = Vec::new();
    for si in sd.signer_infos.0.iter() {
        let cert = find_cert(&si.sid, &certs).ok_or(Error::SignerCertificateNotFound)?;
        let public = crate::sig::sm2_public_key(cert.tbs_certificate().subject_public_key_info())
            .ok_or(Error::KeyMismatch)?;
        let form = check_signer(
            si,
            sd.encap_content_info.econtent_type,
            &content,
            &public,
            opts.id,
            forms,
        )?;
        crate::verify::verify_chain(cert, &certs, roots, opts).map_err(CmsVerifyError::Chain)?;
        signers.push(cert.clone());
        found.push(form);
    }
    Ok(Verified {
        content,
        signers,
        forms: found,
    })
}

/// Encrypts `content` to each recipient certificate's SM2 key (SM4-CBC content, a fresh
/// key and IV); returns the DER `ContentInfo` holding the EnvelopedData.
pub fn encrypt(content: &[u8], recipients: &[Certificate], oids: Oids) -> Result<Vec<u8>, Error> {
    encrypt_with_key_algorithm(content, recipients, oids, oid::SM2_ENCRYPT)
}

/// [`encrypt`] naming the key transport `key_algorithm`: [`oid::SM2_ENCRYPT`] (sm2-3, as
/// gmsm and OpenSSL take it) or [`oid::SM2_ENCRYPT_GMSSL`] (the only one GmSSL 3's
/// `cmsdecrypt` takes; written without parameters, as GmSSL requires).
pub fn encrypt_with_key_algorithm(
    content: &[u8],
    recipients: &[Certificate],
    oids: Oids,
    key_algorithm: Oid,
) -> Result<Vec<u8>, Error> {
    encrypt_with_rng(
        content,
        recipients,
        oids,
        key_algorithm,
        &mut getrandom::SysRng,
    )
}

/// [`encrypt_with_key_algorithm`] drawing every random value (the content-encryption key,
/// the IV and each recipient's SM2 encryption nonce) from `rng`: a cryptographic module's
/// DRBG, say.
pub fn encrypt_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
    content: &[u8],
    recipients: &[Certificate],
    oids: Oids,
    key_algorithm: Oid,
    rng: &mut R,
) -> Result<Vec<u8>, Error> {
    if recipients.is_empty() {
        return Err(Error::MissingContent);
    }
    let mut key = Zeroizing::new([0u8; 16]);
    let mut iv = [0u8; 16];
    crate::fill(rng, key.as_mut())?;
    crate::fill(rng, &mut iv)?;
    let version = match oids {
        Oids::GmT0010 => CmsVersion::V1,
        Oids::Rfc5652 => CmsVersion::V0,
    };
    let mut infos = SetOfVec::new();
    for r in recipients {
        let public = crate::sig::sm2_public_key(r.tbs_certificate().subject_public_key_info())
            .ok_or(Error::KeyMismatch)?;
        let enc = EncryptingKey::new(public).encrypt_der(rng, key.as_ref())?;
        infos.insert(RecipientInfo::Ktri(KeyTransRecipientInfo {
            version,
            rid: RecipientIdentifier::IssuerAndSerialNumber(issuer_and_serial(r)),
            // GmSSL refuses parameters after its OID
            key_enc_alg: if key_algorithm == oid::SM2_ENCRYPT_GMSSL {
                alg(key_algorithm, None)
            } else {
                alg(key_algorithm, oids.params())
            },
            enc_key: OctetString::new(enc)?,
        }))?;
    }
    let ct = Sm4CbcEnc::new(&(*key).into(), &iv.into()).encrypt_padded_vec::<Pkcs7>(content);
    let ed = EnvelopedData {
        version,
        originator_info: None,
        recip_infos: RecipientInfos(infos),
        encrypted_content: EncryptedContentInfo {
            content_type: oids.data(),
            content_enc_alg: alg(
                oid::SM4_CBC,
                Some(Any::encode_from(&OctetString::new(iv)?)?),
            ),
            encrypted_content: Some(OctetString::new(ct)?),
        },
        unprotected_attrs: None,
    };
    let ci = ContentInfo {
        content_type: oids.enveloped_data(),
        content: Any::encode_from(&ed)?,
    };
    Ok(ci.to_der()?)
}

/// Decrypts an EnvelopedData for the recipient `cert` with its private key `key` (in
/// memory, or in a device through [`PrivateKeyOps`]).
pub fn decrypt<K: PrivateKeyOps + ?Sized>(
    der: &[u8],
    cert: &Certificate,
    key: &K,
) -> Result<Vec<u8>, Error> {
    check_key(cert, key)?;
    let ci = ContentInfo::from_der(der)?;
    if ci.content_type != oid::GM_ENVELOPED_DATA && ci.content_type != oid::ENVELOPED_DATA {
        return Err(Error::UnsupportedAlgorithm);
    }
    let ed = ci.content.decode_as::<EnvelopedData>()?;
    let ski = crate::sig::subject_key_identifier(cert);
    let ktri = ed
        .recip_infos
        .0
        .iter()
        .find_map(|ri| match ri {
            RecipientInfo::Ktri(k) => {
                let hit = match &k.rid {
                    RecipientIdentifier::IssuerAndSerialNumber(isn) => {
                        *isn == issuer_and_serial(cert)
                    }
                    RecipientIdentifier::SubjectKeyIdentifier(s) => ski.as_ref() == Some(&s.0),
                };
                hit.then_some(k)
            }
            _ => None,
        })
        .ok_or(Error::NoMatchingRecipient)?;
    if ![
        oid::SM2_ENCRYPT,
        oid::SM2_ENCRYPT_GMSSL,
        oid::SM2,
        oid::EC_PUBLIC_KEY,
    ]
    .contains(&ktri.key_enc_alg.oid)
    {
        return Err(Error::UnsupportedAlgorithm);
    }
    let c1c3c2 =
        shangmi_sm2::pke::der_to_c1c3c2(ktri.enc_key.as_bytes()).map_err(|_| Error::Decryption)?;
    let content_key = Zeroizing::new(key.decrypt(&c1c3c2).map_err(Error::from_key_op)?);
    let content_key: Zeroizing<[u8; 16]> = Zeroizing::new(
        content_key
            .as_slice()
            .try_into()
            .map_err(|_| Error::Decryption)?,
    );
    let eci = &ed.encrypted_content;
    if eci.content_enc_alg.oid != oid::SM4_CBC {
        return Err(Error::UnsupportedAlgorithm);
    }
    let iv = eci
        .content_enc_alg
        .parameters
        .as_ref()
        .ok_or(Error::Decryption)?
        .decode_as::<OctetString>()?;
    let iv: [u8; 16] = iv.as_bytes().try_into().map_err(|_| Error::Decryption)?;
    let ct = eci
        .encrypted_content
        .as_ref()
        .ok_or(Error::MissingContent)?;
    Sm4CbcDec::new(&(*content_key).into(), &iv.into())
        .decrypt_padded_vec::<Pkcs7>(ct.as_bytes())
        .map_err(|_| Error::Decryption)
}

/// PEM of a CMS message under `label` (`CMS` as GmSSL and `openssl cms` write it, or `PKCS7`).
pub fn to_pem(der: &[u8], label: &str) -> Result<alloc::string::String, Error> {
    crate::pem::to_pem(label, der)
}

/// A CMS message from DER or PEM (`CMS` or `PKCS7` label).
pub fn from_der_or_pem(data: &[u8]) -> Result<Vec<u8>, Error> {
    let docs = crate::pem::der_documents(data, &["CMS", "PKCS7"])?;
    docs.into_iter().next().ok_or(Error::Pem)
}
