//! Signing with SM2 in TLS 1.3 (sm2sig_sm3, RFC 8998 §3.2.1): the signature in
//! CertificateVerify is SM2 over SM3(Z_A ‖ content) with the distinguishing ID
//! `TLSv1.3+GM+Cipher+Suite`, DER-encoded. Signatures are deterministic (the nonce is derived
//! from the key and the message with HMAC-SM3, as `shangmi-sm2` does for every signature).

use rustls::pki_types::{PrivateKeyDer, SubjectPublicKeyInfoDer};
use rustls::sign::{Signer, SigningKey};
use rustls::{Error, SignatureAlgorithm, SignatureScheme};
use shangmi_sm2::dsa;
use shangmi_sm2::signature::Signer as _;
use shangmi_sm2::{PrivateKeyOps, PublicKey, SecretKey, TLS13_ID};
use std::sync::Arc;

/// sm2sig_sm3 (0x0708).
pub const SM2_SM3: SignatureScheme = SignatureScheme::Unknown(0x0708);

/// What [`SigningKey::algorithm`] reports. TLS 1.2's SignatureAlgorithm registry has no SM2
/// and rustls uses the value only to pick TLS 1.2 suites, which this provider has none of;
/// 255 lies in the registry's private-use range.
pub const SM2_SIGNATURE_ALGORITHM: SignatureAlgorithm = SignatureAlgorithm::Unknown(0xff);

/// DER prefix of an SM2 SubjectPublicKeyInfo in the form OpenSSL, Tongsuo and GmSSL write:
/// AlgorithmIdentifier id-ecPublicKey (1.2.840.10045.2.1) with the SM2 curve
/// (1.2.156.10197.1.301) as parameter, then a BIT STRING holding the uncompressed point.
const SPKI_PREFIX: [u8; 27] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d, 0x03, 0x42, 0x00, 0x04,
];

/// An SM2 key that signs TLS 1.3 handshakes.
pub struct Sm2SigningKey {
    key: Arc<dsa::SigningKey>,
    spki: Vec<u8>,
}

impl Sm2SigningKey {
    /// The TLS signing key for `secret` (its Z_A is computed with the TLS 1.3 ID).
    pub fn new(secret: &SecretKey) -> Result<Self, Error> {
        let key = dsa::SigningKey::new_with_id(secret, TLS13_ID)
            .map_err(|e| Error::General(format!("SM2 key: {e}")))?;
        let spki = spki(&key.verifying_key().to_sec1_point(false));
        Ok(Self {
            key: Arc::new(key),
            spki,
        })
    }
}

/// The SPKI (id-ecPublicKey form) of an uncompressed SEC1 point.
fn spki(point: &shangmi_sm2::Sec1Point) -> Vec<u8> {
    let mut spki = Vec::with_capacity(91);
    spki.extend_from_slice(&SPKI_PREFIX);
    spki.extend_from_slice(&point.as_bytes()[1..]);
    spki
}

impl core::fmt::Debug for Sm2SigningKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm2SigningKey").finish_non_exhaustive()
    }
}

/// `SigningKey::choose_scheme` of every SM2 key: sm2sig_sm3 when the peer offers it, signing
/// with what `signer` makes.
fn sm2_sm3(
    offered: &[SignatureScheme],
    signer: impl FnOnce() -> Box<dyn Signer>,
) -> Option<Box<dyn Signer>> {
    offered.contains(&SM2_SM3).then(signer)
}

impl SigningKey for Sm2SigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        sm2_sm3(offered, || {
            Box::new(Sm2Signer {
                key: Arc::clone(&self.key),
            })
        })
    }

    /// The SPKI in the id-ecPublicKey form; rustls compares it with the certificate's bytes
    /// when a configuration is built, so a certificate whose SPKI uses the bare SM2 OID needs
    /// `CertifiedKey::new` (which does not compare) instead of `with_single_cert`.
    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        Some(SubjectPublicKeyInfoDer::from(&self.spki[..]))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SM2_SIGNATURE_ALGORITHM
    }
}

#[derive(Debug)]
struct Sm2Signer {
    key: Arc<dsa::SigningKey>,
}

impl Signer for Sm2Signer {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let signature = self
            .key
            .try_sign(message)
            .map_err(|e| Error::General(format!("SM2 signing: {e}")))?;
        Ok(signature.to_der().as_ref().to_vec())
    }

    fn scheme(&self) -> SignatureScheme {
        SM2_SM3
    }
}

/// A TLS 1.3 signing key (sm2sig_sm3) over any [`PrivateKeyOps`] key: one that stays in a
/// crypto device (`shangmi_sdf::SdfKey`, signing the prepared digest) or one in memory.
/// Z_A is computed here once, from the key's public key and the TLS 1.3 ID
/// `TLSv1.3+GM+Cipher+Suite`; each signature is e = SM3(Z_A ‖ content) signed by the key's
/// holder. Give it to rustls in a [`CertifiedKey`](rustls::sign::CertifiedKey) (for
/// example through `rustls::sign::SingleCertAndKey`).
///
/// ```
/// use shangmi_rustls::sign::DeviceKey;
/// use shangmi_sm2::SecretKey;
/// use std::sync::Arc;
/// let key = DeviceKey::new(Arc::new(SecretKey::from_bytes(&[7u8; 32].into()).unwrap()))?;
/// let _: Arc<dyn rustls::sign::SigningKey> = Arc::new(key);
/// # Ok::<(), rustls::Error>(())
/// ```
pub struct DeviceKey<K> {
    key: Arc<K>,
    verifying: Arc<dsa::VerifyingKey>,
    spki: Vec<u8>,
}

impl<K: PrivateKeyOps> DeviceKey<K> {
    /// Wraps `key` (its public key is read once, here).
    pub fn new(key: Arc<K>) -> Result<Self, Error> {
        let public: PublicKey = key.public_key();
        let verifying = dsa::VerifyingKey::new_with_id(&public, TLS13_ID)
            .map_err(|e| Error::General(format!("SM2 key: {e}")))?;
        let spki = spki(&verifying.to_sec1_point(false));
        Ok(DeviceKey {
            key,
            verifying: Arc::new(verifying),
            spki,
        })
    }
}

impl<K> core::fmt::Debug for DeviceKey<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceKey").finish_non_exhaustive()
    }
}

impl<K: PrivateKeyOps + Send + Sync + 'static> SigningKey for DeviceKey<K> {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn Signer>> {
        sm2_sm3(offered, || {
            Box::new(DeviceSigner {
                key: Arc::clone(&self.key),
                verifying: Arc::clone(&self.verifying),
            })
        })
    }

    /// As [`Sm2SigningKey::public_key`].
    fn public_key(&self) -> Option<SubjectPublicKeyInfoDer<'_>> {
        Some(SubjectPublicKeyInfoDer::from(&self.spki[..]))
    }

    fn algorithm(&self) -> SignatureAlgorithm {
        SM2_SIGNATURE_ALGORITHM
    }
}

struct DeviceSigner<K> {
    key: Arc<K>,
    verifying: Arc<dsa::VerifyingKey>,
}

impl<K> core::fmt::Debug for DeviceSigner<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceSigner").finish_non_exhaustive()
    }
}

impl<K: PrivateKeyOps + Send + Sync> Signer for DeviceSigner<K> {
    /// The key holder's error becomes `Error::General` with its message (which names the
    /// failure, never a PIN).
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let e = self.verifying.hash_message(message);
        let signature = self
            .key
            .sign_digest(&e)
            .map_err(|e| Error::General(format!("SM2 signing in the key's holder: {e}")))?;
        Ok(signature.to_der().as_ref().to_vec())
    }

    fn scheme(&self) -> SignatureScheme {
        SM2_SM3
    }
}

/// Loads SM2 private keys for rustls: PKCS#8 with either algorithm identifier
/// (id-ecPublicKey + SM2 curve, or the SM2 OID itself) and SEC1 `EC PRIVATE KEY`.
#[derive(Debug)]
pub struct Sm2KeyProvider;

/// The key provider of [`crate::provider()`].
pub static KEY_PROVIDER: Sm2KeyProvider = Sm2KeyProvider;

impl rustls::crypto::KeyProvider for Sm2KeyProvider {
    fn load_private_key(
        &self,
        key_der: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn SigningKey>, Error> {
        let secret = match &key_der {
            PrivateKeyDer::Pkcs8(der) => {
                shangmi_sm2::keys::secret_key_from_pkcs8_der(der.secret_pkcs8_der())
            }
            PrivateKeyDer::Sec1(der) => {
                shangmi_sm2::keys::secret_key_from_sec1_der(der.secret_sec1_der())
            }
            _ => {
                return Err(Error::General(
                    "not an SM2 key: only PKCS#8 and SEC1 keys are supported".into(),
                ));
            }
        }
        .map_err(|e| Error::General(format!("not an SM2 private key: {e}")))?;
        Ok(Arc::new(Sm2SigningKey::new(&secret)?))
    }
}
