//! Private-key operations behind traits (so keys can live in a crypto card or HSM), the
//! crate's own implementation on `shangmi-sm2`, and the randomness and clock sources.

use crate::error::Error;
use rand_core::TryCryptoRng;
use rustls_pki_types::{CertificateDer, UnixTime};
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::kx::KeyExchange;
use shangmi_sm2::pke::{EncryptingKey, Layout};
use shangmi_sm2::{
    DEFAULT_ID, KeyAgreement, KeyOpError, Peer, PrivateKeyOps, PublicKey, SecretKey,
};
use std::sync::{Arc, OnceLock};
use zeroize::Zeroize;

pub use shangmi_sm2::kx::Role as KxRole;

/// A source of secure random bytes: rustls' own trait, shared with `shangmi-rustls` (the
/// configs hold one; tests may plug a seeded one), so one generator serves TLCP and TLS.
pub use rustls::crypto::SecureRandom;
/// The system clock (rustls' `DefaultTimeProvider`).
pub use rustls::time_provider::DefaultTimeProvider as SystemTime;
/// The current time, for certificate validity, ticket ages and the hello randoms' first
/// four bytes: rustls' own trait, shared with `shangmi-rustls`.
pub use rustls::time_provider::TimeProvider;
/// The operating system's generator (`getrandom`; `shangmi-rustls`' `OsRandom`).
pub use shangmi_rustls::rand::OsRandom as SystemRandom;
/// A fixed clock (for tests and replayed recordings).
pub use shangmi_rustls::time::FixedTime;

/// Now, from `time`; a clock that cannot tell is an error (as rustls'
/// `FailedToGetCurrentTime`).
pub(crate) fn now(time: &dyn TimeProvider) -> Result<UnixTime, Error> {
    time.current_time()
        .ok_or(Error::Crypto("the clock cannot tell the time"))
}

/// The sign key: SM2 signatures with the default ID `1234567812345678`.
///
/// Every [`PrivateKeyOps`] key (in memory: [`Sm2PrivateKey`], `shangmi_sm2`'s `SecretKey`,
/// `SigningKey`, `DecryptingKey`; in a device: `shangmi_sdf::SdfKey`) is one.
pub trait Sm2SignKey: Send + Sync + core::fmt::Debug {
    /// Signs `msg` (the signer computes Z_A with the default ID and e = SM3(Z_A ‖ msg)),
    /// returning the DER signature.
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, Error>;
}

/// The encryption key: SM2 decryption of the premaster (ECC suites) and the GB/T 32918.3
/// key exchange (ECDHE suites). Every [`PrivateKeyOps`] key is one.
pub trait Sm2EncKey: Send + Sync + core::fmt::Debug {
    /// Decrypts an SM2 ciphertext in the ASN.1 (C1C3C2 DER) form.
    fn decrypt(&self, ciphertext_der: &[u8]) -> Result<Vec<u8>, Error>;

    /// Starts a key exchange in `role` with this key as the static key and the default ID,
    /// taking the ephemeral key's randomness from `rng` (a device uses its own).
    fn start_key_exchange(
        &self,
        role: KxRole,
        rng: &dyn SecureRandom,
    ) -> Result<Box<dyn Sm2KeyExchange>, Error>;

    /// Whether [`start_key_exchange`](Self::start_key_exchange) can work: configurations
    /// leave ECDHE suites out (or refuse, if nothing else is left) for a key that cannot.
    fn supports_key_exchange(&self) -> bool {
        true
    }
}

/// One side of a started SM2 key exchange.
pub trait Sm2KeyExchange: Send + core::fmt::Debug {
    /// This side's ephemeral point, uncompressed (04 ‖ X ‖ Y).
    fn ephemeral_public(&self) -> [u8; 65];

    /// Finishes with the peer's static (encryption certificate) key and ephemeral point
    /// and the default ID on both sides, filling `out` with
    /// KDF(x_U ‖ y_U ‖ Z_A ‖ Z_B, len).
    fn complete(self: Box<Self>, peer: PeerPoints<'_>, out: &mut [u8]) -> Result<(), Error>;

    /// Finishes as [`complete`](Self::complete) with a 48-byte output — TLCP's ECDHE
    /// premaster — and returns the master secret PRF(premaster, "master secret",
    /// client random ‖ server random) and this side's ephemeral point. The default
    /// completes into bytes; an exchange whose output stays in a device (GM/T 0018-2023: a
    /// key handle keying the device's HMAC-SM3) computes the PRF there, and only the master
    /// secret leaves it (a device as the responder makes its point there too).
    fn master_secret(
        self: Box<Self>,
        peer: PeerPoints<'_>,
        randoms: HelloRandoms<'_>,
    ) -> Result<([u8; 48], [u8; 65]), Error> {
        via_premaster(self, peer, randoms)
    }
}

/// The master secret from a premaster `kx` completes into (zeroized after).
fn via_premaster<K: Sm2KeyExchange + ?Sized>(
    kx: Box<K>,
    peer: PeerPoints<'_>,
    randoms: HelloRandoms<'_>,
) -> Result<([u8; 48], [u8; 65]), Error> {
    let point = kx.ephemeral_public();
    let mut pms = [0u8; 48];
    kx.complete(peer, &mut pms)?;
    let ms = crate::prf::master_secret(&pms, randoms.client, randoms.server);
    pms.zeroize();
    Ok((ms, point))
}

/// The peer's two points in a key exchange, each uncompressed SEC1 (04 ‖ X ‖ Y).
#[derive(Clone, Copy, Debug)]
pub struct PeerPoints<'a> {
    /// The static key: the one in the peer's encryption certificate.
    pub public: &'a [u8],
    /// The ephemeral point the peer sent in its key exchange message.
    pub ephemeral: &'a [u8],
}

impl PeerPoints<'_> {
    /// The two points parsed and checked to be on the curve.
    fn parse(&self) -> Result<(PublicKey, PublicKey), Error> {
        let bad = || crate::error::bad(crate::AlertDescription::IllegalParameter, BAD_POINT);
        let point = |sec1| shangmi_sm2::keys::public_key_from_sec1(sec1).map_err(|_| bad());
        Ok((point(self.public)?, point(self.ephemeral)?))
    }
}

/// The two hello randoms a master secret is derived over.
#[derive(Clone, Copy, Debug)]
pub struct HelloRandoms<'a> {
    /// The ClientHello's random.
    pub client: &'a [u8; 32],
    /// The ServerHello's random.
    pub server: &'a [u8; 32],
}

const BAD_POINT: &str = "invalid SM2 point";

/// A key operation's error as TLCP reports it: refused input is the peer's fault (`alert`
/// sent), anything else the key holder's (internal_error; a device's own error stays with
/// the device's logs, so no detail or secret reaches the peer).
fn key_error<E: KeyOpError>(e: &E, alert: crate::AlertDescription, what: &'static str) -> Error {
    if e.is_refused_input() {
        Error::PeerMisbehaved(alert, what)
    } else {
        Error::Crypto("the private key's holder failed")
    }
}

impl<K> Sm2SignKey for K
where
    K: PrivateKeyOps + Send + Sync + core::fmt::Debug,
{
    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, Error> {
        PrivateKeyOps::sign(self, msg)
            .map(|sig| sig.to_der().as_ref().to_vec())
            .map_err(|_| Error::Crypto("SM2 signing failed in the private key's holder"))
    }
}

impl<K> Sm2EncKey for K
where
    K: PrivateKeyOps + Send + Sync + core::fmt::Debug,
    K::KeyExchange: Send + core::fmt::Debug + 'static,
{
    fn decrypt(&self, ciphertext_der: &[u8]) -> Result<Vec<u8>, Error> {
        const WHAT: &str = "SM2 decryption failed";
        let alert = crate::AlertDescription::DecryptError;
        let ct = shangmi_sm2::pke::der_to_c1c3c2(ciphertext_der)
            .map_err(|_| Error::PeerMisbehaved(alert, WHAT))?;
        PrivateKeyOps::decrypt(self, &ct).map_err(|e| key_error(&e, alert, WHAT))
    }

    fn start_key_exchange(
        &self,
        role: KxRole,
        rng: &dyn SecureRandom,
    ) -> Result<Box<dyn Sm2KeyExchange>, Error> {
        let mut rng = shangmi_rustls::rand::RandCore(rng);
        let kx = PrivateKeyOps::start_key_exchange(self, &mut rng, role, DEFAULT_ID)
            .map_err(|_| Error::Crypto("SM2 key exchange could not start"))?;
        Ok(Box::new(OwnKx(kx)))
    }

    fn supports_key_exchange(&self) -> bool {
        PrivateKeyOps::supports_key_exchange(self)
    }
}

/// An SM2 private key held in memory, usable as a sign key and as an encryption key.
#[derive(Clone)]
pub struct Sm2PrivateKey {
    secret: SecretKey,
    signing: SigningKey,
}

impl core::fmt::Debug for Sm2PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm2PrivateKey").finish_non_exhaustive()
    }
}

impl Sm2PrivateKey {
    /// From a secret key.
    pub fn new(secret: SecretKey) -> Result<Self, Error> {
        let signing = SigningKey::new(&secret).map_err(|_| Error::Config("invalid SM2 key"))?;
        Ok(Sm2PrivateKey { secret, signing })
    }

    /// From DER (PKCS#8 or SEC1).
    pub fn from_der(der: &[u8]) -> Result<Self, Error> {
        let secret = shangmi_sm2::keys::secret_key_from_der(der)
            .map_err(|_| Error::Config("unreadable SM2 private key"))?;
        Self::new(secret)
    }

    /// From PEM (PKCS#8 `PRIVATE KEY` or SEC1 `EC PRIVATE KEY`).
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        let secret = shangmi_sm2::keys::secret_key_from_pem(pem)
            .map_err(|_| Error::Config("unreadable SM2 private key"))?;
        Self::new(secret)
    }

    /// The public key, uncompressed.
    pub fn public_key_sec1(&self) -> [u8; 65] {
        point_bytes(&self.secret.public_key())
    }
}

fn point_bytes(p: &PublicKey) -> [u8; 65] {
    let enc = p.to_sec1_point(false);
    let mut out = [0u8; 65];
    out.copy_from_slice(enc.as_bytes());
    out
}

/// Signs with the cached signing key, decrypts and exchanges with the secret key.
impl PrivateKeyOps for Sm2PrivateKey {
    type Error = shangmi_sm2::Error;
    type KeyExchange = KeyExchange;

    fn public_key(&self) -> PublicKey {
        *self.signing.verifying_key().public_key()
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, shangmi_sm2::Error> {
        Ok(self.signing.sign_e(e))
    }

    /// With the default ID, whose Z_A the signing key keeps.
    fn sign(&self, msg: &[u8]) -> Result<Signature, shangmi_sm2::Error> {
        let e = self.signing.verifying_key().hash_message(msg);
        Ok(self.signing.sign_e(&e))
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, shangmi_sm2::Error> {
        self.secret.decrypt_into(c1c3c2, out)
    }

    fn start_key_exchange<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        role: KxRole,
        id: &[u8],
    ) -> Result<KeyExchange, shangmi_sm2::Error> {
        KeyExchange::new(rng, role, &self.secret, id)
    }
}

#[derive(Debug)]
struct OwnKx<X>(X);

impl<X: KeyAgreement + Send + core::fmt::Debug> Sm2KeyExchange for OwnKx<X> {
    fn ephemeral_public(&self) -> [u8; 65] {
        point_bytes(&self.0.ephemeral_public())
    }

    fn complete(self: Box<Self>, peer: PeerPoints<'_>, out: &mut [u8]) -> Result<(), Error> {
        let (public, ephemeral) = peer.parse()?;
        self.0
            .finish(
                Peer {
                    public: &public,
                    id: DEFAULT_ID,
                    ephemeral: &ephemeral,
                },
                out,
            )
            .map_err(|e| key_error(&e, crate::AlertDescription::IllegalParameter, BAD_POINT))
    }

    fn master_secret(
        self: Box<Self>,
        peer: PeerPoints<'_>,
        randoms: HelloRandoms<'_>,
    ) -> Result<([u8; 48], [u8; 65]), Error> {
        if !self.0.holds_output() {
            return via_premaster(self, peer, randoms);
        }
        let (public, ephemeral) = peer.parse()?;
        let peer = Peer {
            public: &public,
            id: DEFAULT_ID,
            ephemeral: &ephemeral,
        };
        self.0
            .finish_held(peer, 48, |key| {
                let point = point_bytes(&key.ephemeral_public());
                let hmac = |parts: &[&[u8]]| key.hmac_sm3(parts);
                let ms = crate::prf::master_secret_held(hmac, randoms.client, randoms.server)?;
                Ok((ms, point))
            })
            .map_err(|e| key_error(&e, crate::AlertDescription::IllegalParameter, BAD_POINT))
    }
}

/// Verifies a DER SM2 signature over `msg` with the default ID.
pub(crate) fn verify_sm2(public_sec1: &[u8], msg: &[u8], sig_der: &[u8]) -> bool {
    let Ok(key) = VerifyingKey::from_sec1_bytes(public_sec1) else {
        return false;
    };
    let Ok(sig) = Signature::from_der(sig_der) else {
        return false;
    };
    key.verify_e(&key.hash_message(msg), &sig).is_ok()
}

/// SM2-encrypts `msg` to `public_sec1`, returning the DER (C1C3C2) form.
pub(crate) fn encrypt_sm2(
    public_sec1: &[u8],
    msg: &[u8],
    rng: &dyn SecureRandom,
) -> Result<Vec<u8>, Error> {
    let key = EncryptingKey::from_sec1_bytes(public_sec1)
        .map_err(|_| Error::InvalidCertificate(crate::CertificateError::UnsupportedKey))?;
    for _ in 0..16 {
        let mut k = [0u8; 32];
        rng.fill(&mut k)?;
        let ct = key.encrypt_with_nonce(&k.into(), msg, Layout::C1C3C2);
        k.zeroize();
        if let Ok(ct) = ct {
            return shangmi_sm2::pke::c1c3c2_to_der(&ct)
                .map_err(|_| Error::Crypto("SM2 ciphertext encoding"));
        }
    }
    Err(Error::Crypto("random generator gives no valid scalar"))
}

/// One side's two certificates and keys.
#[derive(Clone, Debug)]
pub struct CertifiedKeys {
    /// The sign certificate first, then its CA chain (without the root, or with it).
    pub sign_chain: Vec<CertificateDer<'static>>,
    /// The sign certificate's key.
    pub sign_key: Arc<dyn Sm2SignKey>,
    /// The encryption certificate.
    pub enc_cert: CertificateDer<'static>,
    /// The encryption certificate's key.
    pub enc_key: Arc<dyn Sm2EncKey>,
}

impl CertifiedKeys {
    /// The pair: the sign certificate (then its chain) with its key, and the encryption
    /// certificate with its key.
    pub fn new(
        sign_chain: Vec<CertificateDer<'static>>,
        sign_key: Arc<dyn Sm2SignKey>,
        enc_cert: CertificateDer<'static>,
        enc_key: Arc<dyn Sm2EncKey>,
    ) -> Self {
        CertifiedKeys {
            sign_chain,
            sign_key,
            enc_cert,
            enc_key,
        }
    }

    /// The list of a single chain (sign certificate, then its chain; no encryption
    /// certificate): what GmSSL's client sends, and its server wants, for client
    /// authentication in the ECC suites.
    pub(crate) fn single_chain_list(&self) -> Vec<&[u8]> {
        self.sign_chain.iter().map(|c| c.as_ref()).collect()
    }

    /// The Certificate message's list: sign, encryption, then the chain.
    pub(crate) fn wire_list(&self) -> Vec<&[u8]> {
        let mut out: Vec<&[u8]> = Vec::new();
        if let Some(first) = self.sign_chain.first() {
            out.push(first.as_ref());
        }
        out.push(self.enc_cert.as_ref());
        for c in self.sign_chain.iter().skip(1) {
            out.push(c.as_ref());
        }
        out
    }
}

/// The configurations' default generator: the OS's ([`SystemRandom`]), one instance for
/// the process, so that a connection can tell it from a generator of the caller's
/// ([`is_default_rng`]).
pub(crate) fn default_rng() -> Arc<dyn SecureRandom> {
    DEFAULT_RNG.get_or_init(|| Arc::new(SystemRandom)).clone()
}

static DEFAULT_RNG: OnceLock<Arc<dyn SecureRandom>> = OnceLock::new();

/// Whether `rng` is [`default_rng`] (the same instance, not only the same type): then a
/// connection draws its explicit CBC IVs from it in batches, while a generator the caller
/// set (a device's, a seeded one) is asked for each IV.
pub(crate) fn is_default_rng(rng: &Arc<dyn SecureRandom>) -> bool {
    DEFAULT_RNG.get().is_some_and(|d| Arc::ptr_eq(rng, d))
}
