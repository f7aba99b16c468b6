//! A signing context: a key with (1 + d)^-1 and Z_A at hand and a pool of precomputed
//! nonces, made [`SigningContext::BATCH`] at a time with one shared field inversion.
//!
//! The idea is GmSSL's (`src/sm2_sign.c`, its signing context): the costly part of an SM2
//! signature that does not depend on the message — k·G and the inversion that brings it to
//! affine x1 — is done ahead, in batches, and the inversions of a batch are shared by
//! Montgomery's trick (P. L. Montgomery, "Speeding the Pollard and elliptic curve methods of
//! factorization", Math. Comp. 48, 1987, §10.3.1). The code here is this crate's own.
//!
//! Nonces are hedged (the "hedged signatures" of RFC 6979 §3.6 and
//! draft-irtf-cfrg-det-sigs-with-noise): a batch is the output of the RFC 6979 §3.2
//! HMAC-SM3 generator keyed by the secret d, with the batch counter in the place of the
//! message hash and 32 fresh bytes of the caller's generator (plus a label) as the additional
//! data, so k is a pseudo-random function of d: an attacker who knows or biases the
//! generator's output learns nothing about k without d.

use super::nonce::NonceGen;
use super::{Signature, SigningKey, VerifyingKey};
use crate::arith::field::FieldElement;
use crate::arith::lanes::mul_g_many;
use crate::arith::point::Jacobian;
use crate::{Error, Scalar};
use core::fmt;
use digest::Digest;
use rand_core::TryCryptoRng;
use signature::{RandomizedMultipartSignerMut, RandomizedSignerMut};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Nonces precomputed per batch (one field inversion each): GmSSL's figure.
const BATCH: usize = 32;

/// The label in the additional data of the nonce generator, so that its inputs differ from
/// those of [`SigningKey`]'s one-shot nonces (which have 0 or 32 bytes there).
const LABEL: &[u8; 16] = b"sm2-sign-context";

/// An SM2 signing context: a [`SigningKey`] with (1 + d)^-1 and Z_A computed once and a
/// pool of [`SigningContext::BATCH`] precomputed nonces (k, x1 of k·G), refilled from the caller's
/// generator when it runs out.
///
/// Signing with a context is randomized (hedged, see below), never deterministic, and takes
/// `&mut self` (the pool); for reproducible signatures use [`SigningKey`]'s deterministic
/// [`Signer`](signature::Signer). Each refill costs [`SigningContext::BATCH`] fixed-base multiplications,
/// one constant-time field inversion and [`SigningContext::BATCH`] + 8 HMAC-SM3 tags; each signature then
/// costs the message hash and a few scalar multiplications mod n.
///
/// # Nonces
/// A refill draws 32 bytes ρ from the generator and runs the HMAC-SM3 generator of RFC 6979
/// §3.2 (the one [`SigningKey`] uses) with x = d, h = the context's batch counter (32 bytes
/// big-endian) and additional data ρ ‖ `"sm2-sign-context"` (RFC 6979 §3.6), taking
/// [`SigningContext::BATCH`] successive outputs in [1, n-1] as the nonces. A biased, predictable or
/// compromised generator therefore does not bias or reveal k. What the hedge cannot do, as
/// nonces are made before the message is known: if the generator repeats its output (a
/// constant or re-seeded generator) then two contexts of the same key, or one context made
/// again after a restart, repeat their nonces, and two signatures of different messages
/// with one nonce reveal the key. Where the generator may be that broken, sign with
/// [`SigningKey`] (its nonces bind the message). Contexts are not `Clone` for the same
/// reason.
///
/// ```
/// use shangmi_sm2::dsa::{SigningContext, SigningKey};
/// use shangmi_sm2::signature::{RandomizedSignerMut, Verifier};
///
/// let key = SigningKey::from_bytes(&[7u8; 32].into()).unwrap();
/// let mut ctx = SigningContext::new(key);
/// let sig = ctx.sign_with_rng(&mut rand::rng(), b"message");
/// ctx.verifying_key().verify(b"message", &sig).unwrap();
/// ```
pub struct SigningContext {
    key: SigningKey,
    /// (1 + d)^-1 mod n.
    d1_inv: Scalar,
    /// Z_A of the key's identifier.
    za: [u8; 32],
    /// The nonces k and the x1 of k·G reduced mod n; entries below `next` are used.
    k: [Scalar; BATCH],
    x1: [Scalar; BATCH],
    next: usize,
    /// Batches made so far.
    batches: u64,
}

impl SigningContext {
    /// Nonces precomputed per batch, with one field inversion (GmSSL's figure).
    pub const BATCH: usize = BATCH;

    /// A context for `key` (computes (1 + d)^-1 and Z_A if the key has not yet; the pool
    /// starts empty and is filled by the first signature or by [`Self::refill`]).
    pub fn new(key: SigningKey) -> Self {
        SigningContext {
            d1_inv: key.d1_inv(),
            za: key.verifying_key().za(),
            key,
            k: [Scalar::ZERO; BATCH],
            x1: [Scalar::ZERO; BATCH],
            next: BATCH,
            batches: 0,
        }
    }

    /// The signing key.
    pub fn signing_key(&self) -> &SigningKey {
        &self.key
    }

    /// The verification key.
    pub fn verifying_key(&self) -> &VerifyingKey {
        self.key.verifying_key()
    }

    /// Precomputed nonces left before the next refill.
    pub fn available(&self) -> usize {
        BATCH - self.next
    }

    /// Replaces the pool with a fresh batch of [`SigningContext::BATCH`] nonces (to pay for it ahead of the
    /// signatures). Fails only if the generator does ([`Error::Rng`]).
    pub fn refill<R: TryCryptoRng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        let mut extra = [0u8; 32 + LABEL.len()];
        rng.try_fill_bytes(&mut extra[..32])
            .map_err(|_| Error::Rng)?;
        extra[32..].copy_from_slice(LABEL);
        let mut h = [0u8; 32];
        h[24..].copy_from_slice(&self.batches.to_be_bytes());
        self.batches = self.batches.wrapping_add(1);
        let mut gen_ = NonceGen::new(&self.key.d_bytes, &h, &extra);
        extra.zeroize();
        for k in &mut self.k {
            *k = gen_.next();
        }
        drop(gen_);
        batch_x1(&self.k, &mut self.x1);
        self.next = 0;
        Ok(())
    }

    /// The next precomputed nonce and its x1, refilling the pool first if it is empty.
    fn take<R: TryCryptoRng + ?Sized>(&mut self, rng: &mut R) -> Result<(Scalar, Scalar), Error> {
        if self.next == BATCH {
            self.refill(rng)?;
        }
        let i = self.next;
        let pair = (self.k[i], self.x1[i]);
        self.k[i] = Scalar::ZERO;
        self.x1[i] = Scalar::ZERO;
        self.next += 1;
        Ok(pair)
    }

    /// Signs e = SM3(Z_A ‖ M) with the next precomputed nonce (the next ones after a nonce
    /// the equation rejects: r = 0, r + k = n or s = 0).
    pub fn try_sign_e_with_rng<R: TryCryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
        e: &[u8; 32],
    ) -> Result<Signature, Error> {
        let e = Scalar::from_be_bytes_reduced(e);
        loop {
            let (mut k, x1) = self.take(rng)?;
            let sig = sign_with(&self.key.d, &self.d1_inv, &e, &k, &x1);
            k.zeroize();
            if let Some(sig) = sig {
                return Ok(sig);
            }
        }
    }

    /// e = SM3(Z_A ‖ parts).
    fn hash_parts(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut h = crate::Sm3::new();
        Digest::update(&mut h, self.za);
        for p in parts {
            Digest::update(&mut h, p);
        }
        h.finalize().into()
    }
}

/// The signing equation of GB/T 32918.2 §6.1 for nonce k with x1 of k·G (mod n); `None`
/// when r = 0, r + k = n or s = 0 (the check reveals only that a nonce was discarded).
fn sign_with(
    d: &Scalar,
    d1_inv: &Scalar,
    e: &Scalar,
    k: &Scalar,
    x1: &Scalar,
) -> Option<Signature> {
    let (r, s, bad) = equation(d, d1_inv, e, k, x1);
    if bad != 0 {
        return None;
    }
    Signature::from_scalars(r.to_be_bytes(), s.to_be_bytes()).ok()
}

/// r = e + x1, s = (1 + d)^-1·(k - r·d), all mod n, and a mask that is all ones iff r = 0,
/// r + k = n or s = 0; constant time.
fn equation(
    d: &Scalar,
    d1_inv: &Scalar,
    e: &Scalar,
    k: &Scalar,
    x1: &Scalar,
) -> (Scalar, Scalar, u64) {
    let r = e.add(x1);
    let s = d1_inv.multiply(&k.sub(&r.multiply(d)));
    let bad = r.is_zero_mask() | r.add(k).is_zero_mask() | s.is_zero_mask();
    (r, s, bad)
}

/// x1 mod n of k·G for every k in [1, n-1] (so no point is infinity and no Z is zero), with
/// one constant-time inversion: prefix products of the Z, the inverse of their product, then
/// each Z^-1 walking back (Montgomery's trick). No branch or address depends on the k.
fn batch_x1(k: &[Scalar; BATCH], x1: &mut [Scalar; BATCH]) {
    let mut limbs: [_; BATCH] = core::array::from_fn(|i| k[i].to_canonical_limbs());
    // Eight at a time where the CPU has the eight-lane backend.
    let mut points = mul_g_many(&limbs);
    limbs.zeroize();
    let mut prefix = [FieldElement::ONE; BATCH];
    let mut acc = FieldElement::ONE;
    for (pre, p) in prefix.iter_mut().zip(&points) {
        *pre = acc;
        acc = acc.multiply(&p.z);
    }
    let mut inv = acc.invert_or_zero();
    for i in (0..BATCH).rev() {
        let zi = inv.multiply(&prefix[i]);
        inv = inv.multiply(&points[i].z);
        let x = points[i].x.multiply(&zi.square());
        x1[i] = Scalar::from_limbs_reduced(&x.to_canonical_limbs());
    }
    points.fill(Jacobian::INFINITY);
    prefix.zeroize();
    inv.zeroize();
    acc.zeroize();
}

impl Drop for SigningContext {
    fn drop(&mut self) {
        self.k.zeroize();
        self.x1.zeroize();
        self.d1_inv.zeroize();
    }
}

/// The key is wiped by its own `Drop`, the pool and (1 + d)^-1 by the context's.
impl ZeroizeOnDrop for SigningContext {}

impl fmt::Debug for SigningContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningContext")
            .field("verifying_key", self.key.verifying_key())
            .field("available", &self.available())
            .finish_non_exhaustive()
    }
}

impl AsRef<VerifyingKey> for SigningContext {
    fn as_ref(&self) -> &VerifyingKey {
        self.key.verifying_key()
    }
}

/// Hedged randomized signatures from the pool.
impl RandomizedSignerMut<Signature> for SigningContext {
    fn try_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
        msg: &[u8],
    ) -> Result<Signature, signature::Error> {
        let e = self.hash_parts(&[msg]);
        Ok(self.try_sign_e_with_rng(rng, &e)?)
    }
}

impl RandomizedMultipartSignerMut<Signature> for SigningContext {
    fn try_multipart_sign_with_rng<R: TryCryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
        msg: &[&[u8]],
    ) -> Result<Signature, signature::Error> {
        let e = self.hash_parts(msg);
        Ok(self.try_sign_e_with_rng(rng, &e)?)
    }
}

/// The memcheck harness (also loaded by `arith::ct_tests`, privately there).
#[cfg(all(test, target_arch = "x86_64"))]
#[allow(unsafe_code, clippy::duplicate_mod)]
#[path = "../../tests/support/memcheck.rs"]
mod memcheck;

/// Constant time under valgrind's memcheck with the crates' shared harness (see
/// `arith::ct_tests`): the batch precomputation (the 32 fixed-base multiplications, the
/// prefix products, the shared inversion and the walk back) and the signing equation on
/// secrets marked undefined. The nonce generator's range check (a candidate at or above n,
/// probability about 2^-32, as in the one-shot signer) is the one secret-dependent branch
/// and is not run here. The harness's leaky table lookup is the negative control.
#[cfg(all(test, target_arch = "x86_64"))]
mod ct_tests {
    use super::memcheck;
    use super::*;

    fn secret() {
        let mut k: [Scalar; BATCH] = core::array::from_fn(|i| {
            Scalar::from_canonical(&[0x0123_4567_89AB_CDEF ^ i as u64, i as u64, !0, 0x7FFF_FFFF])
        });
        let mut d = Scalar::from_canonical(&[5, 6, 7, 8]);
        memcheck::secret(&mut k);
        memcheck::secret(&mut d);
        let mut x1 = [Scalar::ZERO; BATCH];
        batch_x1(&k, &mut x1);
        let d1_inv = d.add(&Scalar::ONE).invert_or_zero();
        let e = Scalar::from_canonical(&[1, 2, 3, 4]);
        let mut out = [(Scalar::ZERO, Scalar::ZERO, 0u64); BATCH];
        for ((o, k), x1) in out.iter_mut().zip(&k).zip(&x1) {
            *o = equation(&d, &d1_inv, &e, k, x1);
        }
        memcheck::public(&mut out);
    }

    #[test]
    fn memcheck_child() {
        memcheck::child(|_| {
            secret();
            println!("checked sm2 signing context");
        });
    }

    #[test]
    fn context_is_constant_time_under_memcheck() {
        if !memcheck::is_parent() {
            return;
        }
        memcheck::check(
            "dsa::context::ct_tests::memcheck_child",
            "secret",
            &["checked sm2 signing context".into()],
        );
    }
}
