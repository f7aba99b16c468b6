//! Key generation from the generators people pass: fallible ones (`getrandom::SysRng`)
//! through `random`/`try_generate_from_rng`, infallible ones (`rand::rng()`) through the
//! same or `generate_from_rng`, the operating system's through `Generate::generate()` with
//! the `getrandom` feature (RustCrypto's `Generate` trait, as `p256`/`ecdsa` 0.14/0.17);
//! and for a certified module's key generation, [`generate_checked`] with the
//! pairwise-consistency test of GM/T 0028 (ISO/IEC 19790's conditional self-test).

use crate::dsa::{SigningKey, VerifyingKey};
use crate::hash::DEFAULT_ID;
#[cfg(feature = "alloc")]
use crate::pke::DecryptingKey;
use crate::{Error, PublicKey, SecretKey};
use elliptic_curve::Generate;
use rand_core::TryCryptoRng;
use zeroize::Zeroize;

/// A fresh key with the default identifier: 32 random bytes until they are in [1, n-2]
/// (rejection sampling, so the key is uniform; a retry happens with probability ~2^-32).
impl Generate for SigningKey {
    fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        loop {
            let mut d = crate::FieldBytes::default();
            rng.try_fill_bytes(&mut d)?;
            let key = SigningKey::from_bytes_with_id(&d, DEFAULT_ID);
            d.zeroize();
            if let Ok(key) = key {
                return Ok(key);
            }
        }
    }
}

/// A fresh key, d uniform in [1, n-1].
#[cfg(feature = "alloc")]
impl Generate for DecryptingKey {
    fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        SecretKey::try_generate_from_rng(rng).map(DecryptingKey::new)
    }
}

#[cfg(feature = "alloc")]
impl DecryptingKey {
    /// A fresh random key from any generator: `getrandom::SysRng`, `rand::rng()`, a seeded
    /// `StdRng`. Fails only if the generator does ([`Error::Rng`]).
    ///
    /// ```
    /// use shangmi_sm2::pke::DecryptingKey;
    /// let key = DecryptingKey::random(&mut getrandom::SysRng)?;
    /// # Ok::<(), shangmi_sm2::Error>(())
    /// ```
    pub fn random<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, Error> {
        Self::try_generate_from_rng(rng).map_err(|_| Error::Rng)
    }
}

/// The message of the pairwise-consistency test (public: nothing of the key is secret in it).
const PAIRWISE_MESSAGE: &[u8; 32] = b"shangmi pairwise-consistency msg";

/// The pairwise-consistency test of a key pair (GM/T 0028-2014's conditional self-test on
/// key generation, ISO/IEC 19790 7.10.3.3): signs a fixed message with `secret` (the
/// deterministic nonce) and verifies it under `public`; with the `alloc` feature also
/// encrypts the message to `public` and decrypts it with `secret`. Fails with
/// [`Error::PairwiseConsistency`] when the two do not belong together (or `secret` is
/// n - 1, which cannot sign). About one signature, one verification and three scalar
/// multiplications.
///
/// ```
/// use shangmi_sm2::{Error, keys};
/// let a = keys::generate_checked(&mut getrandom::SysRng)?;
/// let b = keys::generate_checked(&mut getrandom::SysRng)?;
/// keys::check_key_pair(&a, &a.public_key())?;
/// assert_eq!(keys::check_key_pair(&a, &b.public_key()), Err(Error::PairwiseConsistency));
/// # Ok::<(), Error>(())
/// ```
pub fn check_key_pair(secret: &SecretKey, public: &PublicKey) -> Result<(), Error> {
    let signer = SigningKey::new(secret).map_err(|_| Error::PairwiseConsistency)?;
    let verifier = VerifyingKey::new(public);
    let e = verifier.hash_message(PAIRWISE_MESSAGE);
    let sig = signer.sign_e(&e);
    verifier
        .verify_e(&e, &sig)
        .map_err(|_| Error::PairwiseConsistency)?;
    #[cfg(feature = "alloc")]
    {
        use crate::pke::{EncryptingKey, Layout};
        // A fixed k is harmless here: the plaintext is public and the ciphertext is
        // dropped. It keeps the test deterministic (no generator needed).
        let k = crate::FieldBytes::from(*b"shangmi pairwise encryption k ..");
        let ct = EncryptingKey::new(*public)
            .encrypt_with_nonce(&k, PAIRWISE_MESSAGE, Layout::C1C3C2)
            .map_err(|_| Error::PairwiseConsistency)?;
        let pt = DecryptingKey::new(secret.clone())
            .decrypt(&ct, Layout::C1C3C2)
            .map_err(|_| Error::PairwiseConsistency)?;
        if pt != PAIRWISE_MESSAGE {
            return Err(Error::PairwiseConsistency);
        }
    }
    Ok(())
}

/// A fresh key (d uniform in [1, n-2], so it can sign and decrypt) that has passed the
/// pairwise-consistency test ([`check_key_pair`] with its own public key): key generation
/// as a certified module does it. Fails with [`Error::Rng`] if the generator does, and
/// with [`Error::PairwiseConsistency`] if the test fails (a fault in the arithmetic; a
/// module then enters its error state).
pub fn generate_checked<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<SecretKey, Error> {
    let secret = SigningKey::try_generate_from_rng(rng)
        .map_err(|_| Error::Rng)?
        .secret_key();
    check_key_pair(&secret, &secret.public_key())?;
    Ok(secret)
}
