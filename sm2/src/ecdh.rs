//! Plain elliptic-curve Diffie–Hellman on the SM2 curve: the shared secret is the x-coordinate
//! of d·Q, as TLS 1.3 with `curveSM2` uses it (RFC 8998 §3.2.1 via RFC 8446 §7.4.2).
//!
//! ```
//! use shangmi_sm2::{SecretKey, ecdh};
//! let a = SecretKey::from_bytes(&[1u8; 32].into()).unwrap();
//! let b = SecretKey::from_bytes(&[2u8; 32].into()).unwrap();
//! let ab = ecdh::diffie_hellman(&a, &b.public_key());
//! let ba = ecdh::diffie_hellman(&b, &a.public_key());
//! assert_eq!(ab.as_bytes(), ba.as_bytes());
//! ```

use crate::arith::field::FieldElement;
use crate::arith::point::Affine;
use crate::{Error, PublicKey, SecretKey};
use elliptic_curve::ff::PrimeField;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A shared secret (32 bytes, wiped on drop).
#[derive(Clone)]
pub struct SharedSecret([u8; 32]);

impl SharedSecret {
    /// The shared secret x (big-endian), taken over.
    pub(crate) fn new(x: [u8; 32]) -> SharedSecret {
        SharedSecret(x)
    }

    /// The x-coordinate of the shared point, big-endian.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl core::fmt::Debug for SharedSecret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SharedSecret(..)")
    }
}

impl Drop for SharedSecret {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl ZeroizeOnDrop for SharedSecret {}

/// x(d·Q) in constant time. `PublicKey` guarantees Q is a valid non-identity point and the
/// group has prime order (cofactor 1), so d·Q is never the identity.
pub fn diffie_hellman(secret: &SecretKey, public: &PublicKey) -> SharedSecret {
    let (x, _) = crate::curve::mul_point_ct(public.as_affine(), &secret.to_nonzero_scalar())
        .unwrap_or(([0; 32], [0; 32]));
    SharedSecret(x)
}

/// The uncompressed SEC1 encoding (`04` ‖ x ‖ y) of d·G for `secret`, on this crate's
/// constant-time comb: what an ECDHE key share carries (TLS 1.3 `curveSM2`). Unlike
/// `secret.public_key()`, it does not go through the generic `elliptic-curve` point types
/// (two generic field inversions, about 10 µs, on every ephemeral key).
///
/// ```
/// use shangmi_sm2::{SecretKey, ecdh};
/// use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
/// let d = SecretKey::from_bytes(&[3u8; 32].into()).unwrap();
/// let share = ecdh::public_point_uncompressed(&d);
/// assert_eq!(share[..], *d.public_key().to_sec1_point(false).as_bytes());
/// ```
pub fn public_point_uncompressed(secret: &SecretKey) -> [u8; 65] {
    let k = crate::curve::scalar_to_limbs(&secret.to_nonzero_scalar());
    // d is in [1, n-1], so d·G is never the point at infinity.
    crate::arith::mul::mul_g(&k).to_affine().0.to_uncompressed()
}

/// x(d·Q) for a peer's point given as uncompressed SEC1 bytes (`04` ‖ x ‖ y, the only form
/// TLS 1.3 allows in a key share, RFC 8446 §4.2.8.2). The point is checked on this crate's
/// arithmetic: both coordinates below p and y² = x³ − 3x + b (the group has prime order, so
/// every such point is a valid peer key). Fails with [`Error::InvalidPoint`] otherwise.
///
/// ```
/// use shangmi_sm2::{SecretKey, ecdh};
/// let a = SecretKey::from_bytes(&[1u8; 32].into()).unwrap();
/// let b = SecretKey::from_bytes(&[2u8; 32].into()).unwrap();
/// let ab = ecdh::diffie_hellman_sec1(&a, &ecdh::public_point_uncompressed(&b)).unwrap();
/// let ba = ecdh::diffie_hellman(&b, &a.public_key());
/// assert_eq!(ab.as_bytes(), ba.as_bytes());
/// assert!(ecdh::diffie_hellman_sec1(&a, &[4u8; 65]).is_err());
/// ```
pub fn diffie_hellman_sec1(secret: &SecretKey, peer: &[u8]) -> Result<SharedSecret, Error> {
    let q = peer_point(peer)?;
    let k = crate::curve::scalar_to_limbs(&secret.to_nonzero_scalar());
    let (r, _) = crate::arith::mul::mul_ct(&k, &q).to_affine();
    Ok(SharedSecret(r.x.to_be_bytes()))
}

/// A peer's point from uncompressed SEC1 bytes, checked as [`diffie_hellman_sec1`] says.
pub(crate) fn peer_point(peer: &[u8]) -> Result<Affine, Error> {
    let (Some(&4), Ok(coords)) = (
        peer.first(),
        <&[u8; 64]>::try_from(&peer[1.min(peer.len())..]),
    ) else {
        return Err(Error::InvalidPoint);
    };
    let coordinate = |bytes: &[u8]| {
        let bytes: [u8; 32] = bytes.try_into().ok()?;
        FieldElement::from_repr(bytes.into()).into_option()
    };
    // Public data: branching on the verdicts is fine.
    let (Some(x), Some(y)) = (coordinate(&coords[..32]), coordinate(&coords[32..])) else {
        return Err(Error::InvalidPoint);
    };
    let q = Affine { x, y };
    if q.on_curve() == 0 {
        return Err(Error::InvalidPoint);
    }
    Ok(q)
}
