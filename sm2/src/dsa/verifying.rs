//! Verification key: the public point Q with its Z_A, and the verification equation of
//! GB/T 32918.2 §7 computed as s·G + t·Q with a Straus/wNAF double multiplication.

use super::Signature;
use super::lazy::{Lazy256, bytes_from_words, words_from_bytes};
use crate::arith::field::{FieldElement, P};
use crate::arith::limbs::{self, Limbs};
use crate::arith::mul::{QTable, mul_g_add_table_vartime, mul_g_add_vartime};
use crate::arith::point::{Affine, Jacobian};
use crate::arith::scalar::N;
use crate::hash::{DEFAULT_ID, Sm3, compute_za};
use crate::{Error, PublicKey, Scalar, curve};
use digest::{Digest, Update};
use elliptic_curve::sec1::ToSec1Point;
use signature::hazmat::PrehashVerifier;
use signature::{DigestVerifier, MultipartVerifier, Verifier};

/// An SM2 verification key: a public key bound to a distinguishing identifier (through Z_A).
///
/// Construction is cheap (Z_A is one SM3 call, made on first use with the default identifier;
/// no tables), which suits the common case of a key that checks one signature (a certificate
/// in a TLS handshake). A key that will check
/// many signatures should be turned into a [`precomputed`](Self::precomputed) one: a 4 KiB
/// table of multiples of Q (2^(32j)·(2i+1)·Q), built once for about the cost of one
/// verification, makes every later verification about 2.4x as fast. With the `alloc`
/// feature (on by default) the table lives on the heap, and a key is 184 bytes on x86-64
/// whether it has one or not (4,280 before).
#[derive(Clone)]
pub struct VerifyingKey {
    public: PublicKey,
    point: Affine,
    /// Z_A: computed at construction for an identifier other than the default one, on first
    /// use for the default one (so a cell still empty always means the default identifier).
    za: Lazy256,
    table: Option<TableCell>,
}

/// Where a key keeps its verification table: on the heap with the `alloc` feature, so a
/// key without one (every key that is not [`precomputed`](VerifyingKey::precomputed), and
/// every [`SigningKey`](super::SigningKey)) stays about 100 bytes instead of 4 KiB, which
/// each move of a key copies (key generation copied it several times: 5% of its time);
/// inline without `alloc`.
#[cfg(feature = "alloc")]
type TableCell = alloc::boxed::Box<QTable>;
#[cfg(not(feature = "alloc"))]
type TableCell = QTable;

/// `t` in a [`TableCell`].
fn table_cell(t: QTable) -> TableCell {
    #[cfg(feature = "alloc")]
    return alloc::boxed::Box::new(t);
    #[cfg(not(feature = "alloc"))]
    t
}

impl core::fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("VerifyingKey")
            .field("public", &self.public)
            .field("za", &self.za())
            .field("precomputed", &self.is_precomputed())
            .finish()
    }
}

/// Keys are equal when their public points and Z_A (hence identifiers) are; whether either
/// carries a table does not matter.
impl PartialEq for VerifyingKey {
    fn eq(&self, other: &Self) -> bool {
        self.public == other.public && self.za() == other.za()
    }
}

impl Eq for VerifyingKey {}

impl VerifyingKey {
    /// With the default identifier `1234567812345678`.
    pub fn new(public: &PublicKey) -> Self {
        // The default identifier is 16 bytes, so Z_A cannot fail.
        Self::new_with_id(public, DEFAULT_ID).unwrap_or_else(|_| unreachable!())
    }

    /// With the given distinguishing identifier (at most 8191 bytes).
    pub fn new_with_id(public: &PublicKey, id: &[u8]) -> Result<Self, Error> {
        let point = curve::affine_from_primeorder(public.as_affine()).ok_or(Error::InvalidPoint)?;
        Self::from_parts(*public, point, id)
    }

    /// This key with its verification table built (see the type's documentation): for keys
    /// that verify many signatures. Calling it on a key that has the table already is free.
    ///
    /// ```
    /// use shangmi_sm2::dsa::{SigningKey, VerifyingKey};
    /// use shangmi_sm2::signature::{Signer, Verifier};
    ///
    /// let sk = SigningKey::from_bytes(&[7; 32].into())?;
    /// let point = sk.verifying_key().to_sec1_point(true);
    /// let vk = VerifyingKey::from_sec1_bytes(point.as_bytes())?.precomputed();
    /// for msg in [&b"one"[..], b"two", b"three"] {
    ///     let sig: shangmi_sm2::dsa::Signature = sk.sign(msg);
    ///     assert!(vk.verify(msg, &sig).is_ok());
    /// }
    /// # Ok::<(), shangmi_sm2::Error>(())
    /// ```
    pub fn precomputed(mut self) -> Self {
        if self.table.is_none() {
            self.table = Some(table_cell(QTable::new(&self.point)));
        }
        self
    }

    /// True if the verification table is built.
    pub fn is_precomputed(&self) -> bool {
        self.table.is_some()
    }

    /// From a SEC1 point (compressed or uncompressed), default identifier.
    pub fn from_sec1_bytes(bytes: &[u8]) -> Result<Self, Error> {
        Ok(Self::new(&crate::keys::public_key_from_sec1(bytes)?))
    }

    /// From a SEC1 point (compressed or uncompressed) and an identifier.
    pub fn from_sec1_bytes_with_id(bytes: &[u8], id: &[u8]) -> Result<Self, Error> {
        Self::new_with_id(&crate::keys::public_key_from_sec1(bytes)?, id)
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// SEC1 encoding, compressed (33 bytes) or uncompressed (65 bytes).
    pub fn to_sec1_point(&self, compress: bool) -> crate::Sec1Point {
        self.public.to_sec1_point(compress)
    }

    /// Z_A for this key and identifier.
    pub fn za(&self) -> [u8; 32] {
        bytes_from_words(&self.za.get_or_init(|| {
            // Only the default identifier leaves the cell empty at construction.
            words_from_bytes(
                &self
                    .compute_za(DEFAULT_ID)
                    .unwrap_or_else(|_| unreachable!()),
            )
        }))
    }

    /// Z_A of this key's point with identifier `id`.
    fn compute_za(&self, id: &[u8]) -> Result<[u8; 32], Error> {
        compute_za(id, &self.point.x.to_be_bytes(), &self.point.y.to_be_bytes())
    }

    /// e = SM3(Z_A ‖ msg), the value signed (GB/T 32918.2 §6.1 A1–A2).
    pub fn hash_message(&self, msg: &[u8]) -> [u8; 32] {
        self.hash_parts(&[msg])
    }

    pub(crate) fn hash_parts(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut h = Sm3::new();
        Digest::update(&mut h, self.za());
        for p in parts {
            Digest::update(&mut h, p);
        }
        h.finalize().into()
    }

    /// e = SM3(Z_A ‖ what `feed` writes): the digest the `Digest*` traits of both the signer
    /// and the verifier start with Z_A and let the caller finish.
    pub(crate) fn hash_fed<F: Fn(&mut Sm3) -> Result<(), signature::Error>>(
        &self,
        feed: F,
    ) -> Result<[u8; 32], signature::Error> {
        let mut h = Sm3::new();
        Update::update(&mut h, &self.za());
        feed(&mut h)?;
        Ok(h.finalize().into())
    }

    /// The key for `public` (whose affine form is `point`) and identifier `id`.
    pub(crate) fn from_parts(public: PublicKey, point: Affine, id: &[u8]) -> Result<Self, Error> {
        let mut key = VerifyingKey {
            public,
            point,
            za: Lazy256::empty(),
            table: None,
        };
        if id != DEFAULT_ID {
            key.za = Lazy256::with(&words_from_bytes(&key.compute_za(id)?));
        }
        Ok(key)
    }

    /// Verifies against e (the 32-byte SM3(Z_A ‖ M)).
    pub fn verify_e(&self, e: &[u8; 32], sig: &Signature) -> Result<(), Error> {
        let (r, s, t) = verify_scalars(sig)?;
        // B6: (x1, y1) = s·G + t·Q.
        let p = match &self.table {
            Some(table) => mul_g_add_table_vartime(&s, &t, table),
            None => mul_g_add_vartime(&s, &t, &self.point),
        };
        verify_point(&p, &r, e)
    }

    /// The public point Q.
    pub(crate) fn point(&self) -> &Affine {
        &self.point
    }
}

/// B1–B5 of verification: r, and s and t = r + s mod n as canonical limbs (the scalars of
/// s·G + t·Q), or the failure where t = 0.
pub(crate) fn verify_scalars(sig: &Signature) -> Result<(Scalar, Limbs, Limbs), Error> {
    // B1–B2: r, s in [1, n-1] hold by construction of `Signature`.
    let r = Scalar::from_be_bytes_reduced(sig.r());
    let s = Scalar::from_be_bytes_reduced(sig.s());
    // B5: t = r + s mod n, t != 0.
    let t = r.add(&s);
    if t.is_zero_mask() != 0 {
        return Err(Error::Verification);
    }
    Ok((r, s.to_canonical_limbs(), t.to_canonical_limbs()))
}

/// B7 of verification, given the point p = s·G + t·Q: R = (e + x1) mod n == r.
pub(crate) fn verify_point(p: &Jacobian, r: &Scalar, e: &[u8; 32]) -> Result<(), Error> {
    if p.is_infinity() != 0 {
        return Err(Error::Verification);
    }
    // x1 ≡ r - e (mod n). With x1 = X/Z² and x1 < p < 2n, x1 is c or c + n for
    // c = (r - e) mod n: compare c·Z² with X, no inversion.
    let e = Scalar::from_be_bytes_reduced(e);
    let c = r.sub(&e).to_canonical_limbs();
    let z2 = p.z.square();
    if FieldElement::from_canonical(&c).multiply(&z2).eq_mask(&p.x) != 0 {
        return Ok(());
    }
    let (c2, carry) = limbs::add(&c, &N);
    if carry == 0
        && limbs::lt_mask(&c2, &P) != 0
        && FieldElement::from_canonical(&c2)
            .multiply(&z2)
            .eq_mask(&p.x)
            != 0
    {
        return Ok(());
    }
    Err(Error::Verification)
}

impl From<&PublicKey> for VerifyingKey {
    fn from(pk: &PublicKey) -> Self {
        Self::new(pk)
    }
}

impl AsRef<PublicKey> for VerifyingKey {
    fn as_ref(&self) -> &PublicKey {
        &self.public
    }
}

impl Verifier<Signature> for VerifyingKey {
    fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), signature::Error> {
        Ok(self.verify_e(&self.hash_message(msg), sig)?)
    }
}

impl MultipartVerifier<Signature> for VerifyingKey {
    fn multipart_verify(&self, msg: &[&[u8]], sig: &Signature) -> Result<(), signature::Error> {
        Ok(self.verify_e(&self.hash_parts(msg), sig)?)
    }
}

/// The 32-byte e of the `Prehash*` traits (signer and verifier); another length is
/// `Error::InvalidPrehash`.
pub(crate) fn prehash_e(prehash: &[u8]) -> Result<&[u8; 32], Error> {
    prehash.try_into().map_err(|_| Error::InvalidPrehash)
}

/// The prehash is e = SM3(Z_A ‖ M), 32 bytes.
impl PrehashVerifier<Signature> for VerifyingKey {
    fn verify_prehash(&self, prehash: &[u8], sig: &Signature) -> Result<(), signature::Error> {
        Ok(self.verify_e(prehash_e(prehash)?, sig)?)
    }
}

/// The digest is started with Z_A; the closure feeds the message.
impl DigestVerifier<Sm3, Signature> for VerifyingKey {
    fn verify_digest<F: Fn(&mut Sm3) -> Result<(), signature::Error>>(
        &self,
        f: F,
        sig: &Signature,
    ) -> Result<(), signature::Error> {
        Ok(self.verify_e(&self.hash_fed(f)?, sig)?)
    }
}
