//! Arithmetic modulo the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1 (GB/T 32918.5), in the
//! Montgomery domain with R = 2^256. Since p ≡ -1 (mod 2^64), -p^-1 mod 2^64 = 1 and each
//! reduction step's quotient digit is the low limb itself. Constant time throughout.

use super::limbs::{self, Limbs};

/// p, little-endian limbs.
pub const P: Limbs = [
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFF_0000_0000,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFE_FFFF_FFFF,
];
const PINV: u64 = limbs::mont_minv(P[0]);
const R2: Limbs = limbs::mont_r2(&P);

/// A field element in Montgomery form (value·2^256 mod p), always fully reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fe(pub Limbs);

impl Fe {
    /// 0.
    pub const ZERO: Fe = Fe([0; 4]);
    /// 1 (that is, R mod p).
    pub const ONE: Fe = Fe::from_canonical(&[1, 0, 0, 0]);

    /// From a canonical integer below p.
    pub const fn from_canonical(a: &Limbs) -> Fe {
        Fe(limbs::mont_mul(a, &R2, &P, PINV))
    }

    /// From 32 big-endian bytes; the mask is all ones iff the integer was below p.
    pub const fn from_bytes(b: &[u8; 32]) -> (Fe, u64) {
        let a = limbs::from_be_bytes(b);
        let ok = limbs::lt_mask(&a, &P);
        let a = limbs::select(ok, &a, &[0; 4]);
        (Fe::from_canonical(&a), ok)
    }

    /// Canonical integer value.
    pub const fn to_canonical(self) -> Limbs {
        limbs::mont_mul(&self.0, &[1, 0, 0, 0], &P, PINV)
    }

    /// 32 big-endian bytes of the canonical value.
    pub const fn to_bytes(self) -> [u8; 32] {
        limbs::to_be_bytes(&self.to_canonical())
    }

    /// Product.
    #[inline(always)]
    pub const fn mul(&self, b: &Fe) -> Fe {
        Fe(limbs::mont_mul(&self.0, &b.0, &P, PINV))
    }

    /// Square.
    #[inline(always)]
    pub const fn sqr(&self) -> Fe {
        self.mul(self)
    }

    /// `self^(2^k)`.
    #[inline(always)]
    pub const fn sqr_n(&self, k: u32) -> Fe {
        let mut t = *self;
        let mut i = 0;
        while i < k {
            t = t.sqr();
            i += 1;
        }
        t
    }

    /// Sum.
    #[inline(always)]
    pub const fn add(&self, b: &Fe) -> Fe {
        Fe(limbs::add_mod(&self.0, &b.0, &P))
    }

    /// Difference.
    #[inline(always)]
    pub const fn sub(&self, b: &Fe) -> Fe {
        Fe(limbs::sub_mod(&self.0, &b.0, &P))
    }

    /// Twice `self`.
    #[inline(always)]
    pub const fn double(&self) -> Fe {
        self.add(self)
    }

    /// Negation.
    #[inline(always)]
    pub const fn neg(&self) -> Fe {
        Fe::ZERO.sub(self)
    }

    /// All ones iff zero.
    #[inline(always)]
    pub const fn is_zero(&self) -> u64 {
        limbs::is_zero_mask(&self.0)
    }

    /// All ones iff equal.
    #[inline(always)]
    pub const fn ct_eq(&self, b: &Fe) -> u64 {
        limbs::eq_mask(&self.0, &b.0)
    }

    /// `a` where `mask` is all ones, else `b`.
    #[inline(always)]
    pub const fn select(mask: u64, a: &Fe, b: &Fe) -> Fe {
        Fe(limbs::select(mask, &a.0, &b.0))
    }

    /// Inverse by Fermat (`self^(p-2)`), 0 for 0. The addition chain follows the bit pattern
    /// of p - 2 = 1^31 0 1^128 0^32 1^32 1^30 0 1 (most significant first): 255 squarings and
    /// 14 multiplications.
    pub const fn invert(&self) -> Fe {
        let x1 = *self;
        let x2 = x1.sqr().mul(&x1);
        let x3 = x2.sqr().mul(&x1);
        let x6 = x3.sqr_n(3).mul(&x3);
        let x12 = x6.sqr_n(6).mul(&x6);
        let x15 = x12.sqr_n(3).mul(&x3);
        let x30 = x15.sqr_n(15).mul(&x15);
        let x31 = x30.sqr().mul(&x1);
        let x32 = x31.sqr().mul(&x1);
        // 1^31 0
        let mut t = x31.sqr();
        // 1^128
        let mut i = 0;
        while i < 4 {
            t = t.sqr_n(32).mul(&x32);
            i += 1;
        }
        // 0^32 then 1^32
        t = t.sqr_n(64).mul(&x32);
        // 1^30
        t = t.sqr_n(30).mul(&x30);
        // 0 1
        t.sqr_n(2).mul(&x1)
    }
}
