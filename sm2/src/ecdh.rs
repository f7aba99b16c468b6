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

use crate::{PublicKey, SecretKey};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// A shared secret (32 bytes, wiped on drop).
#[derive(Clone)]
pub struct SharedSecret([u8; 32]);

impl SharedSecret {
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
