//! SM2 key exchange (GB/T 32918.3-2016 §6.1) with the optional confirmation hashes S_A/S_B.
//!
//! Each party holds a static key and identifier, makes an ephemeral key R = r·G, sends R,
//! and on receiving the peer's R derives
//! t = (d + x̄·r) mod n, U = t·(P_peer + x̄_peer·R_peer), K = KDF(x_U ‖ y_U ‖ Z_A ‖ Z_B, klen),
//! where x̄ = 2^127 + (x mod 2^127) (w = 127 for the 256-bit order) and A is the initiator.
//!
//! ```
//! use shangmi_sm2::kx::{KeyExchange, Peer, Role};
//! use shangmi_sm2::SecretKey;
//! let mut rng = getrandom::SysRng; // the operating system's generator
//! let a = SecretKey::from_bytes(&[1u8; 32].into()).unwrap();
//! let b = SecretKey::from_bytes(&[2u8; 32].into()).unwrap();
//! let alice = KeyExchange::new(&mut rng, Role::Initiator, &a, b"alice").unwrap();
//! let bob = KeyExchange::new(&mut rng, Role::Responder, &b, b"bob").unwrap();
//! let (ra, rb) = (alice.ephemeral_public(), bob.ephemeral_public());
//! let (mut ka, mut kb) = ([0u8; 16], [0u8; 16]);
//! let (pa, pb) = (a.public_key(), b.public_key());
//! let ca = alice.finish(Peer { public: &pb, id: b"bob", ephemeral: &rb }, &mut ka).unwrap();
//! let cb = bob.finish(Peer { public: &pa, id: b"alice", ephemeral: &ra }, &mut kb).unwrap();
//! assert_eq!(ka, kb);
//! ca.verify(cb.to_send()).unwrap();
//! cb.verify(ca.to_send()).unwrap();
//! ```

use crate::arith::mul::{mul_ct, mul_g_add_vartime};
use crate::hash::{Sm3, compute_za};
use crate::{Error, FieldBytes, NonZeroScalar, PublicKey, Scalar, SecretKey, curve};
use digest::Digest;
use elliptic_curve::ff::PrimeField;
use elliptic_curve::sec1::ToSec1Point;
use elliptic_curve::subtle::ConstantTimeEq;
use rand_core::TryCryptoRng;
use zeroize::Zeroize;

/// Which side of the protocol this party is: A (initiator) or B (responder). It fixes the
/// order of Z_A ‖ Z_B and of the ephemeral points in the hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// User A, who sends R_A first.
    Initiator,
    /// User B.
    Responder,
}

/// The other party as a key exchange's finishing step needs it: its static public key, its
/// identifier (for Z = SM3(ENTL ‖ ID ‖ a ‖ b ‖ x_G ‖ y_G ‖ x ‖ y)) and the ephemeral point it
/// sent (R_A or R_B). Named fields, so the two points cannot be passed in each other's place.
///
/// ```
/// use shangmi_sm2::{DEFAULT_ID, Peer, SecretKey};
/// let key = SecretKey::from_bytes(&[3u8; 32].into()).unwrap();
/// let (public, ephemeral) = (key.public_key(), key.public_key());
/// let peer = Peer { public: &public, id: DEFAULT_ID, ephemeral: &ephemeral };
/// assert_eq!(peer.id, DEFAULT_ID);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Peer<'a> {
    /// The peer's static public key (P_A or P_B).
    pub public: &'a PublicKey,
    /// The peer's identifier (ID_A or ID_B).
    pub id: &'a [u8],
    /// The peer's ephemeral point (R_A or R_B), as received.
    pub ephemeral: &'a PublicKey,
}

impl<'a> Peer<'a> {
    /// The peer with static key `public` and identifier `id` (known before the exchange,
    /// e.g. from its certificate) and the `ephemeral` point it sent. The same as the
    /// struct literal, in which each field is named.
    pub const fn new(public: &'a PublicKey, id: &'a [u8], ephemeral: &'a PublicKey) -> Self {
        Peer {
            public,
            id,
            ephemeral,
        }
    }
}

/// One party's state between sending its ephemeral point and receiving the peer's.
pub struct KeyExchange {
    role: Role,
    d: NonZeroScalar,
    za: [u8; 32],
    r: NonZeroScalar,
    ephemeral: PublicKey,
}

impl core::fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KeyExchange")
            .field("role", &self.role)
            .field("ephemeral", &self.ephemeral)
            .finish_non_exhaustive()
    }
}

impl Drop for KeyExchange {
    fn drop(&mut self) {
        self.d.zeroize();
        self.r.zeroize();
    }
}

/// The confirmation values: the hash to send and the one expected from the peer.
#[derive(Clone, Debug)]
pub struct Confirmation {
    send: [u8; 32],
    expect: [u8; 32],
}

impl Confirmation {
    /// The value to send (S_B for the responder, S_A for the initiator).
    pub fn to_send(&self) -> &[u8; 32] {
        &self.send
    }

    /// Checks the peer's value (S_B received by A as S_1, S_A received by B as S_2), in
    /// constant time.
    pub fn verify(&self, received: &[u8; 32]) -> Result<(), Error> {
        if bool::from(self.expect.ct_eq(received)) {
            Ok(())
        } else {
            Err(Error::KeyExchange)
        }
    }
}

/// x̄ = 2^127 + (x mod 2^127) as a scalar.
fn x_bar(point: &PublicKey) -> Scalar {
    let enc = point.to_sec1_point(false);
    let mut b = [0u8; 32];
    b[16..].copy_from_slice(&enc.as_bytes()[17..33]);
    b[16] = (b[16] & 0x7F) | 0x80;
    // Below 2^128 < n: always a valid scalar.
    Scalar::from_repr(b.into()).unwrap_or(Scalar::ONE)
}

fn xy(p: &PublicKey) -> [u8; 64] {
    let enc = p.to_sec1_point(false);
    let mut out = [0u8; 64];
    out.copy_from_slice(&enc.as_bytes()[1..]);
    out
}

impl KeyExchange {
    /// Starts the protocol with a fresh ephemeral key.
    pub fn new<R: TryCryptoRng + ?Sized>(
        rng: &mut R,
        role: Role,
        secret: &SecretKey,
        id: &[u8],
    ) -> Result<Self, Error> {
        loop {
            let mut r = FieldBytes::default();
            rng.try_fill_bytes(&mut r).map_err(|_| Error::Rng)?;
            let res = Self::new_with_ephemeral(role, secret, id, &r);
            r.zeroize();
            match res {
                Err(Error::InvalidSecretKey) => continue,
                other => return other,
            }
        }
    }

    /// Starts the protocol with a caller-chosen ephemeral secret r in [1, n-1] (hazmat:
    /// for test vectors; reusing r breaks the protocol).
    pub fn new_with_ephemeral(
        role: Role,
        secret: &SecretKey,
        id: &[u8],
        r: &FieldBytes,
    ) -> Result<Self, Error> {
        let r: Option<NonZeroScalar> = NonZeroScalar::from_repr(*r).into_option();
        let r = r.ok_or(Error::InvalidSecretKey)?;
        let ephemeral = PublicKey::from_secret_scalar(&r);
        let public = secret.public_key();
        let own = xy(&public);
        let mut x = [0u8; 32];
        let mut y = [0u8; 32];
        x.copy_from_slice(&own[..32]);
        y.copy_from_slice(&own[32..]);
        let za = compute_za(id, &x, &y)?;
        Ok(KeyExchange {
            role,
            d: secret.to_nonzero_scalar(),
            za,
            r,
            ephemeral,
        })
    }

    /// This party's ephemeral public point (R_A or R_B), to send to the peer.
    pub fn ephemeral_public(&self) -> PublicKey {
        self.ephemeral
    }

    /// Finishes with the peer's static key, identifier and ephemeral point, filling `key`
    /// (any length) and returning the confirmation values. The peer's points are validated
    /// by [`PublicKey`] (on the curve, not the identity).
    pub fn finish(self, peer: Peer<'_>, key: &mut [u8]) -> Result<Confirmation, Error> {
        let Peer {
            public: peer_public,
            id: peer_id,
            ephemeral: peer_ephemeral,
        } = peer;
        let peer_xy = xy(peer_public);
        let mut px = [0u8; 32];
        let mut py = [0u8; 32];
        px.copy_from_slice(&peer_xy[..32]);
        py.copy_from_slice(&peer_xy[32..]);
        let z_peer = compute_za(peer_id, &px, &py)?;
        // t = (d + x̄·r) mod n
        let t = *self.d + x_bar(&self.ephemeral) * *self.r;
        // U = t·(P_peer + x̄_peer·R_peer); h = 1. The base is public (variable time), U is
        // made in constant time.
        let point = |p: &PublicKey| curve::affine_from_primeorder(p.as_affine());
        let (peer, peer_r) = point(peer_public)
            .zip(point(peer_ephemeral))
            .ok_or(Error::KeyExchange)?;
        let x_bar_peer = x_bar(peer_ephemeral).to_canonical_limbs();
        let (base, finite) = mul_g_add_vartime(&[0; 4], &x_bar_peer, &peer_r)
            .add_affine_vartime(&peer)
            .to_affine();
        let (u, u_finite) = mul_ct(&t.to_canonical_limbs(), &base).to_affine();
        if finite & u_finite == 0 {
            return Err(Error::KeyExchange);
        }
        let (ux, uy) = (u.x.to_be_bytes(), u.y.to_be_bytes());
        let mut u_xy = [0u8; 64];
        u_xy[..32].copy_from_slice(&ux);
        u_xy[32..].copy_from_slice(&uy);
        let (za, zb) = match self.role {
            Role::Initiator => (self.za, z_peer),
            Role::Responder => (z_peer, self.za),
        };
        let (r1, r2) = match self.role {
            Role::Initiator => (xy(&self.ephemeral), xy(peer_ephemeral)),
            Role::Responder => (xy(peer_ephemeral), xy(&self.ephemeral)),
        };
        // K = KDF(x_U ‖ y_U ‖ Z_A ‖ Z_B, klen)
        shangmi_sm3::kdf::kdf(&[&u_xy, &za, &zb], key);
        // inner = SM3(x_U ‖ Z_A ‖ Z_B ‖ x1 ‖ y1 ‖ x2 ‖ y2)
        let mut h = Sm3::new();
        h.update(&u_xy[..32]);
        h.update(za);
        h.update(zb);
        h.update(r1);
        h.update(r2);
        let inner: [u8; 32] = h.finalize().into();
        let confirm = |tag: u8| -> [u8; 32] {
            let mut h = Sm3::new();
            h.update([tag]);
            h.update(&u_xy[32..]);
            h.update(inner);
            h.finalize().into()
        };
        let (s02, s03) = (confirm(0x02), confirm(0x03));
        u_xy.zeroize();
        Ok(match self.role {
            Role::Initiator => Confirmation {
                send: s03,
                expect: s02,
            },
            Role::Responder => Confirmation {
                send: s02,
                expect: s03,
            },
        })
    }
}
