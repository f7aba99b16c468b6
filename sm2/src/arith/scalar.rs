//! Arithmetic modulo the SM2 group order n (GB/T 32918.5), Montgomery form, constant time.
//! Used on the signing and verification paths; the `ff`-facing [`crate::Scalar`] wraps the
//! same integers.

use super::inv;
use super::limbs::{self, Limbs};

/// n, little-endian limbs.
pub const N: Limbs = [
    0x53BB_F409_39D5_4123,
    0x7203_DF6B_21C6_052B,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFE_FFFF_FFFF,
];
const NINV: u64 = limbs::mont_minv(N[0]);
const R2: Limbs = limbs::mont_r2(&N);

/// An integer modulo n in Montgomery form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sc(pub Limbs);

impl Sc {
    /// 1.
    pub const ONE: Sc = Sc::from_canonical(&[1, 0, 0, 0]);

    /// From a canonical integer below n.
    pub const fn from_canonical(a: &Limbs) -> Sc {
        Sc(limbs::mont_mul(a, &R2, &N, NINV))
    }

    /// Any 256-bit integer reduced mod n (one subtraction suffices since 2^256 < 2n).
    pub const fn from_limbs_reduced(a: &Limbs) -> Sc {
        Sc::from_canonical(&limbs::reduce_once(a, &N))
    }

    /// 32 big-endian bytes reduced mod n.
    pub const fn from_bytes_reduced(b: &[u8; 32]) -> Sc {
        Sc::from_limbs_reduced(&limbs::from_be_bytes(b))
    }

    /// Canonical value.
    pub const fn to_canonical(self) -> Limbs {
        limbs::mont_mul(&self.0, &[1, 0, 0, 0], &N, NINV)
    }

    /// Big-endian bytes of the canonical value.
    pub const fn to_bytes(self) -> [u8; 32] {
        limbs::to_be_bytes(&self.to_canonical())
    }

    /// Product.
    #[inline]
    pub const fn mul(&self, b: &Sc) -> Sc {
        Sc(limbs::mont_mul(&self.0, &b.0, &N, NINV))
    }

    /// Sum.
    #[inline]
    pub const fn add(&self, b: &Sc) -> Sc {
        Sc(limbs::add_mod(&self.0, &b.0, &N))
    }

    /// Difference.
    #[inline]
    pub const fn sub(&self, b: &Sc) -> Sc {
        Sc(limbs::sub_mod(&self.0, &b.0, &N))
    }

    /// All ones iff zero.
    #[inline]
    pub const fn is_zero(&self) -> u64 {
        limbs::is_zero_mask(&self.0)
    }

    /// Inverse (0 for 0), constant time: safegcd on the Montgomery representative a·R, then
    /// one multiplication by R^3.
    pub fn invert(&self) -> Sc {
        const MODULUS: inv::Modulus = inv::Modulus::new(&N);
        const R3: Sc = Sc(limbs::mont_mul(&R2, &R2, &N, NINV));
        Sc(inv::invert(&self.0, &MODULUS)).mul(&R3)
    }
}

/// True iff the big-endian integer is in [1, n-1] (constant time in the value).
pub fn is_in_range(b: &[u8; 32]) -> u64 {
    let a = limbs::from_be_bytes(b);
    limbs::lt_mask(&a, &N) & !limbs::is_zero_mask(&a)
}
