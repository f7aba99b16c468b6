//! Key pairs made ahead, in batches that share one field inversion.

use crate::arith::field::FieldElement;
use crate::arith::lanes::mul_g_many;
use crate::arith::point::{Affine, Jacobian};
use crate::dsa::{SigningKey, signing_limbs};
use crate::hash::DEFAULT_ID;
use crate::{Error, SecretKey};
use rand_core::TryCryptoRng;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Key pairs per batch.
const BATCH: usize = 32;

/// A pool of fresh key pairs (d, d·G), made [`KeyPool::BATCH`] at a time with one shared
/// constant-time field inversion (Montgomery's trick) instead of one per key: for callers
/// that need many keys, such as a TLS server's ephemeral key shares, public-key encryption
/// (its k and C1 = k·G, see [`EncryptingKey::encrypt_with_pool`]) or a batch of key
/// generation.
///
/// A key pair costs one fixed-base multiplication either way; the pool saves the affine
/// conversion's inversion (the separate key generation's second-largest cost) and moves the
/// work to the refill. Each d is uniform in [1, n-2] (rejection sampling, as
/// [`SigningKey::random`]), every pair is handed out once and wiped from the pool as it is
/// taken, and the rest is wiped on drop. The pool holds secrets: keep it where the keys it
/// hands out would be kept (and make a new one in a child process after `fork`, which would
/// otherwise hand out the parent's keys again). No `alloc` needed: the pool is 3 KiB inline.
///
/// [`EncryptingKey::encrypt_with_pool`]: crate::pke::EncryptingKey::encrypt_with_pool
///
/// ```
/// use shangmi_sm2::{ecdh, keys::KeyPool};
/// use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
///
/// let mut pool = KeyPool::new();
/// pool.refill(&mut rand::rng())?; // 32 key pairs, one inversion
/// let (secret, share) = pool.take_ecdh(&mut rand::rng())?;
/// assert_eq!(share[..], *secret.public_key().to_sec1_point(false).as_bytes());
/// let signing = pool.take_signing_key(&mut rand::rng())?;
/// assert_eq!(pool.available(), KeyPool::BATCH - 2);
/// # Ok::<(), shangmi_sm2::Error>(())
/// ```
pub struct KeyPool {
    /// The secrets d (big-endian); entries below `next` are used and wiped.
    secrets: [[u8; 32]; BATCH],
    /// d·G for each secret.
    points: [Affine; BATCH],
    next: usize,
}

impl KeyPool {
    /// Key pairs per batch (one field inversion each).
    pub const BATCH: usize = BATCH;

    /// An empty pool: the first key taken (or [`Self::refill`]) makes a batch.
    pub const fn new() -> Self {
        const ORIGIN: Affine = Affine {
            x: FieldElement::ZERO,
            y: FieldElement::ZERO,
        };
        KeyPool {
            secrets: [[0; 32]; BATCH],
            points: [ORIGIN; BATCH],
            next: BATCH,
        }
    }

    /// Key pairs left before the next refill.
    pub fn available(&self) -> usize {
        BATCH - self.next
    }

    /// Replaces the pool with a fresh batch of [`KeyPool::BATCH`] key pairs (to pay for it
    /// ahead of need). Fails only if the generator does ([`Error::Rng`]); the pool is then empty.
    pub fn refill<R: TryCryptoRng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        let mut scalars = [[0u64; 4]; BATCH];
        let mut drawn = Ok(());
        for (d, limbs) in self.secrets.iter_mut().zip(&mut scalars) {
            match draw(rng, d) {
                Ok(l) => *limbs = l,
                Err(e) => {
                    drawn = Err(e);
                    break;
                }
            }
        }
        if let Err(e) = drawn {
            // The secrets are partly new and the points old: empty the pool.
            scalars.zeroize();
            self.secrets.zeroize();
            self.next = BATCH;
            return Err(e);
        }
        // Each d is in [1, n-2]: d·G is never the identity, so no Z below is zero. Eight at
        // a time where the CPU has the eight-lane backend.
        let points = mul_g_many(&scalars);
        scalars.zeroize();
        self.points = Jacobian::batch_to_affine(&points);
        self.next = 0;
        Ok(())
    }

    /// The next key pair (refilling first if the pool is empty), wiped from the pool.
    pub(crate) fn take<R: TryCryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
    ) -> Result<([u8; 32], Affine), Error> {
        if self.next == BATCH {
            self.refill(rng)?;
        }
        let i = self.next;
        self.next += 1;
        let pair = (self.secrets[i], self.points[i]);
        self.secrets[i].zeroize();
        Ok(pair)
    }

    /// An ECDH key pair: the secret and its uncompressed SEC1 share (`04` ‖ x ‖ y, what a
    /// TLS 1.3 `curveSM2` key share carries; the same bytes as
    /// [`ecdh::public_point_uncompressed`](crate::ecdh::public_point_uncompressed)).
    pub fn take_ecdh<R: TryCryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
    ) -> Result<(SecretKey, [u8; 65]), Error> {
        let (mut d, q) = self.take(rng)?;
        let secret = SecretKey::from_bytes(&d.into());
        d.zeroize();
        Ok((
            secret.map_err(|_| Error::InvalidSecretKey)?,
            q.to_uncompressed(),
        ))
    }

    /// A signing key with the default identifier (the same key as
    /// [`SigningKey::from_bytes`] of its secret, without a second d·G).
    pub fn take_signing_key<R: TryCryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
    ) -> Result<SigningKey, Error> {
        let (mut d, q) = self.take(rng)?;
        let key = SigningKey::with_point(&d, q, DEFAULT_ID);
        d.zeroize();
        key
    }
}

/// A secret d uniform in [1, n-2] (rejection sampling) into `d`, and its limbs.
fn draw<R: TryCryptoRng + ?Sized>(rng: &mut R, d: &mut [u8; 32]) -> Result<[u64; 4], Error> {
    loop {
        rng.try_fill_bytes(d).map_err(|_| Error::Rng)?;
        if let Ok(limbs) = signing_limbs(d) {
            return Ok(limbs);
        }
    }
}

impl Default for KeyPool {
    fn default() -> Self {
        Self::new()
    }
}

impl core::fmt::Debug for KeyPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyPool")
            .field("available", &self.available())
            .finish_non_exhaustive()
    }
}

impl Drop for KeyPool {
    fn drop(&mut self) {
        self.secrets.zeroize();
    }
}

impl ZeroizeOnDrop for KeyPool {}
