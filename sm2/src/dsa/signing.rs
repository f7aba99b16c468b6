//! Signing key and the signing equation of GB/T 32918.2 §6.1:
//! r = (e + x1) mod n with (x1, y1) = k·G, s = (1 + d)^-1·(k - r·d) mod n.

use super::lazy::{Lazy256, limbs_from_words, words_from_limbs};
use super::nonce::NonceGen;
use super::verifying::prehash_e;
use super::{DerSignature, Signature, VerifyingKey};
use crate::arith::limbs::{self, Limbs};
use crate::arith::mul::mul_g;
use crate::arith::point::Affine;
use crate::arith::scalar::{N, is_in_range};
use crate::hash::{DEFAULT_ID, Sm3};
use crate::{Error, FieldBytes, PublicKey, Scalar, SecretKey, curve};
use core::fmt;
use rand_core::TryCryptoRng;
use signature::hazmat::{PrehashSigner, RandomizedPrehashSigner};
use signature::{
    DigestSigner, Keypair, MultipartSigner, RandomizedMultipartSigner, RandomizedSigner, Signer,
};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// d as limbs if it is a signing key's secret: d in [1, n-2], so that 1 + d is invertible
/// (GB/T 32918.1 §6.1); [`Error::InvalidSecretKey`] otherwise.
pub(crate) fn signing_limbs(d: &[u8; 32]) -> Result<Limbs, Error> {
    let (n_minus_1, _) = limbs::sub(&N, &[1, 0, 0, 0]);
    let mut dl = limbs::from_be_bytes(d);
    if is_in_range(d) & !limbs::eq_mask(&dl, &n_minus_1) == 0 {
        dl.zeroize();
        return Err(Error::InvalidSecretKey);
    }
    Ok(dl)
}

/// An SM2 signing key: d in [1, n-2], its public key and Z_A.
///
/// Making a key computes d·G and nothing more; the first signature computes (1 + d)^-1 mod n
/// (and, with the default identifier, Z_A) and the key keeps them for the next ones. A key is
/// `Sync`: threads may sign with one key at once.
#[derive(Clone)]
pub struct SigningKey {
    pub(super) d: Scalar,
    pub(super) d_bytes: [u8; 32],
    /// (1 + d)^-1 mod n (Montgomery form), computed on the first signature.
    d1_inv: Lazy256,
    verifying_key: VerifyingKey,
}

impl SigningKey {
    /// From the 32-byte big-endian secret d with the default identifier (bytes as
    /// [`SecretKey::from_bytes`] takes them: `&[7; 32].into()` from an array).
    pub fn from_bytes(d: &FieldBytes) -> Result<Self, Error> {
        Self::from_bytes_with_id(d, DEFAULT_ID)
    }

    /// From the 32-byte big-endian secret d and a distinguishing identifier.
    pub fn from_bytes_with_id(d: &FieldBytes, id: &[u8]) -> Result<Self, Error> {
        let mut d: [u8; 32] = (*d).into();
        let key = Self::from_array_with_id(&d, id);
        d.zeroize();
        key
    }

    fn from_array_with_id(d: &[u8; 32], id: &[u8]) -> Result<Self, Error> {
        let mut dl = signing_limbs(d)?;
        let (q, _) = mul_g(&dl).to_affine();
        dl.zeroize();
        Self::with_point(d, q, id)
    }

    /// The key for d (the caller checked it with [`signing_limbs`]) whose public point d·G
    /// is `q` (computed by the caller: a [`KeyPool`](crate::keys::KeyPool) makes them in
    /// batches).
    pub(crate) fn with_point(d: &[u8; 32], q: Affine, id: &[u8]) -> Result<Self, Error> {
        let public = PublicKey::from_affine(curve::affine_to_primeorder(&q))
            .map_err(|_| Error::InvalidPoint)?;
        Ok(SigningKey {
            d: Scalar::from_canonical(&limbs::from_be_bytes(d)),
            d_bytes: *d,
            d1_inv: Lazy256::empty(),
            verifying_key: VerifyingKey::from_parts(public, q, id)?,
        })
    }

    /// (1 + d)^-1 mod n, computed on first use.
    pub(super) fn d1_inv(&self) -> Scalar {
        let mut w = self
            .d1_inv
            .get_or_init(|| words_from_limbs(&self.d.add(&Scalar::ONE).invert_or_zero().limbs()));
        let inv = Scalar::from_limbs(limbs_from_words(&w));
        w.zeroize();
        inv
    }

    /// From a [`SecretKey`], default identifier.
    pub fn new(secret: &SecretKey) -> Result<Self, Error> {
        Self::new_with_id(secret, DEFAULT_ID)
    }

    /// From a [`SecretKey`] and an identifier.
    pub fn new_with_id(secret: &SecretKey, id: &[u8]) -> Result<Self, Error> {
        Self::from_bytes_with_id(&secret.to_bytes(), id)
    }

    /// A fresh random key with the default identifier, from any generator:
    /// `getrandom::SysRng`, `rand::rng()`, a seeded `StdRng`. Fails only if the generator
    /// does ([`Error::Rng`]). `elliptic_curve::Generate` is implemented too
    /// (`generate_from_rng`, and `generate()` with the `getrandom` feature).
    ///
    /// ```
    /// use shangmi_sm2::dsa::SigningKey;
    /// let key = SigningKey::random(&mut getrandom::SysRng)?;
    /// # Ok::<(), shangmi_sm2::Error>(())
    /// ```
    pub fn random<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, Error> {
        Self::try_random_with_id(rng, DEFAULT_ID)
    }

    /// A fresh random key with the given identifier.
    pub fn try_random_with_id<R: TryCryptoRng + ?Sized>(
        rng: &mut R,
        id: &[u8],
    ) -> Result<Self, Error> {
        loop {
            let mut b = FieldBytes::default();
            rng.try_fill_bytes(&mut b).map_err(|_| Error::Rng)?;
            let r = Self::from_bytes_with_id(&b, id);
            b.zeroize();
            match r {
                Err(Error::InvalidSecretKey) => continue,
                other => return other,
            }
        }
    }

    /// The secret d, big-endian (as [`SecretKey::to_bytes`]).
    pub fn to_bytes(&self) -> FieldBytes {
        self.d_bytes.into()
    }

    /// The secret as an `elliptic-curve` [`SecretKey`].
    pub fn secret_key(&self) -> SecretKey {
        // d is in [1, n-2], so this always succeeds.
        SecretKey::from_bytes(&self.d_bytes.into()).unwrap_or_else(|_| unreachable!())
    }

    /// The verification key.
    pub fn verifying_key(&self) -> &VerifyingKey {
        &self.verifying_key
    }

    /// Signs e = SM3(Z_A ‖ M) with a deterministic nonce (RFC 6979 style, HMAC-SM3), mixing
    /// in `extra` as additional data (empty for a purely deterministic signature).
    pub fn sign_e_with_extra(&self, e: &[u8; 32], extra: &[u8]) -> Signature {
        let e_sc = Scalar::from_be_bytes_reduced(e);
        let mut gen_ = NonceGen::new(&self.d_bytes, &e_sc.to_be_bytes(), extra);
        loop {
            let k = gen_.next();
            if let Some(sig) = self.sign_with_nonce(&e_sc, &k) {
                return sig;
            }
            gen_.reject();
        }
    }

    /// Signs e deterministically.
    pub fn sign_e(&self, e: &[u8; 32]) -> Signature {
        self.sign_e_with_extra(e, &[])
    }

    /// Signs e with a hedged nonce: 32 random bytes from `rng` as additional data.
    pub fn try_sign_e_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        e: &[u8; 32],
    ) -> Result<Signature, Error> {
        let mut extra = [0u8; 32];
        rng.try_fill_bytes(&mut extra).map_err(|_| Error::Rng)?;
        Ok(self.sign_e_with_extra(e, &extra))
    }

    /// Signs e with a caller-chosen nonce k (hazmat: for published test vectors and
    /// interoperability tests only — a repeated or predictable k reveals the key). Fails if
    /// k is not in [1, n-1] or the equation degenerates (r = 0, r + k = n, s = 0).
    pub fn sign_e_with_nonce(&self, e: &[u8; 32], k: &FieldBytes) -> Result<Signature, Error> {
        let k: [u8; 32] = (*k).into();
        if is_in_range(&k) == 0 {
            return Err(Error::InvalidSecretKey);
        }
        let k = Scalar::from_canonical(&limbs::from_be_bytes(&k));
        self.sign_with_nonce(&Scalar::from_be_bytes_reduced(e), &k)
            .ok_or(Error::InvalidSecretKey)
    }

    /// The signing equation for nonce k; `None` when r = 0, r + k = n or s = 0.
    fn sign_with_nonce(&self, e: &Scalar, k: &Scalar) -> Option<Signature> {
        let p = mul_g(&k.to_canonical_limbs());
        let zi = p.z.invert_or_zero();
        let x = p.x.multiply(&zi.square());
        let x1 = Scalar::from_limbs_reduced(&x.to_canonical_limbs());
        let r = e.add(&x1);
        if r.is_zero_mask() != 0 || r.add(k).is_zero_mask() != 0 {
            return None;
        }
        let s = self.d1_inv().multiply(&k.sub(&r.multiply(&self.d)));
        if s.is_zero_mask() != 0 {
            return None;
        }
        Signature::from_scalars(r.to_be_bytes(), s.to_be_bytes()).ok()
    }
}

impl Drop for SigningKey {
    fn drop(&mut self) {
        self.d.zeroize();
        self.d1_inv.zeroize();
        self.d_bytes.zeroize();
    }
}

impl ZeroizeOnDrop for SigningKey {}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("verifying_key", &self.verifying_key)
            .finish_non_exhaustive()
    }
}

impl AsRef<VerifyingKey> for SigningKey {
    fn as_ref(&self) -> &VerifyingKey {
        &self.verifying_key
    }
}

impl Keypair for SigningKey {
    type VerifyingKey = VerifyingKey;

    fn verifying_key(&self) -> VerifyingKey {
        self.verifying_key.clone()
    }
}

/// Deterministic signatures.
impl Signer<Signature> for SigningKey {
    fn try_sign(&self, msg: &[u8]) -> Result<Signature, signature::Error> {
        Ok(self.sign_e(&self.verifying_key.hash_message(msg)))
    }
}

impl MultipartSigner<Signature> for SigningKey {
    fn try_multipart_sign(&self, msg: &[&[u8]]) -> Result<Signature, signature::Error> {
        Ok(self.sign_e(&self.verifying_key.hash_parts(msg)))
    }
}

/// Hedged signatures (deterministic nonce derivation with 32 random bytes mixed in).
impl RandomizedSigner<Signature> for SigningKey {
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        Ok(self.try_sign_e_with_rng(rng, &self.verifying_key.hash_message(msg))?)
    }
}

impl RandomizedMultipartSigner<Signature> for SigningKey {
    fn try_multipart_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        msg: &[&[u8]],
    ) -> Result<Signature, signature::Error> {
        Ok(self.try_sign_e_with_rng(rng, &self.verifying_key.hash_parts(msg))?)
    }
}

/// The prehash is e = SM3(Z_A ‖ M), 32 bytes.
impl PrehashSigner<Signature> for SigningKey {
    fn sign_prehash(&self, prehash: &[u8]) -> Result<Signature, signature::Error> {
        Ok(self.sign_e(prehash_e(prehash)?))
    }
}

impl RandomizedPrehashSigner<Signature> for SigningKey {
    fn sign_prehash_with_rng<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        prehash: &[u8],
    ) -> Result<Signature, signature::Error> {
        Ok(self.try_sign_e_with_rng(rng, prehash_e(prehash)?)?)
    }
}

/// The digest is started with Z_A; the closure feeds the message.
impl DigestSigner<Sm3, Signature> for SigningKey {
    fn try_sign_digest<F: Fn(&mut Sm3) -> Result<(), signature::Error>>(
        &self,
        f: F,
    ) -> Result<Signature, signature::Error> {
        Ok(self.sign_e(&self.verifying_key.hash_fed(f)?))
    }
}

/// Strict DER (see [`Signature::from_der`]).
impl TryFrom<&[u8]> for DerSignature {
    type Error = signature::Error;

    fn try_from(bytes: &[u8]) -> Result<Self, Self::Error> {
        Ok(Signature::from_der(bytes)?.to_der())
    }
}

impl signature::SignatureEncoding for DerSignature {
    type Repr = DerSignature;
}
