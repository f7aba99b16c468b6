//! Integers modulo the SM2 group order n (GB/T 32918.5), Montgomery form (R = 2^256), constant
//! time. One type, [`Scalar`], serves the `elliptic-curve` traits (through `primefield`'s
//! macro, which stores the same Montgomery words) and the signing and verification
//! equations; its arithmetic is this crate's (CIOS multiplication of `limbs.rs`, safegcd
//! inversion of `inv.rs`).

use super::inv;
use super::limbs::{self, Limbs};
use crate::Sm2;
use elliptic_curve::{
    bigint::U256,
    ff::PrimeField,
    scalar::{FromUintUnchecked, IsHigh},
    subtle::{Choice, ConstantTimeEq, ConstantTimeGreater, CtOption},
};

/// n, little-endian limbs.
pub const N: Limbs = [
    0x53BB_F409_39D5_4123,
    0x7203_DF6B_21C6_052B,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFE_FFFF_FFFF,
];
const NINV: u64 = limbs::mont_minv(N[0]);
const R2: Limbs = limbs::mont_r2(&N);

/// Order n of the SM2 group (GB/T 32918.5), hexadecimal.
pub(crate) const ORDER_HEX: &str =
    "fffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123";

primefield::monty_field_params! {
    name: ScalarParams,
    modulus: ORDER_HEX,
    uint: U256,
    byte_order: primefield::ByteOrder::BigEndian,
    multiplicative_generator: 3,
    doc: "Montgomery parameters for the SM2 group order n"
}

primefield::monty_field_element! {
    name: Scalar,
    params: ScalarParams,
    uint: U256,
    doc: "Element of the SM2 scalar field (integers modulo the group order n), in Montgomery form"
}

primefield::monty_field_reduce! {
    name: Scalar,
    params: ScalarParams,
    uint: U256,
}

elliptic_curve::scalar_impls!(Sm2, Scalar);

primeorder::wnaf::impl_wnaf_size_for_scalar!(Scalar);

impl Scalar {
    /// The Montgomery form (value·2^256 mod n) as four 64-bit limbs.
    #[inline(always)]
    pub(crate) const fn limbs(&self) -> Limbs {
        limbs::from_words(self.0.to_montgomery_words())
    }

    /// From the Montgomery form as four 64-bit limbs (below n).
    #[inline(always)]
    pub(crate) const fn from_limbs(l: Limbs) -> Self {
        Self(primefield::MontyFieldElement::from_montgomery_words(
            limbs::to_words(l),
        ))
    }

    /// From a canonical integer below n.
    pub(crate) const fn from_canonical(a: &Limbs) -> Self {
        Self::from_limbs(limbs::mont_mul(a, &R2, &N, NINV))
    }

    /// From an integer below n (`primefield`'s hook: not checked).
    pub(crate) const fn from_uint_unchecked(w: U256) -> Self {
        Self::from_canonical(&limbs::from_words(w.to_words()))
    }

    /// Any 256-bit integer reduced mod n (one subtraction suffices since 2^256 < 2n).
    pub(crate) const fn from_limbs_reduced(a: &Limbs) -> Self {
        Self::from_canonical(&limbs::reduce_once(a, &N))
    }

    /// 32 big-endian bytes reduced mod n.
    pub(crate) const fn from_be_bytes_reduced(b: &[u8; 32]) -> Self {
        Self::from_limbs_reduced(&limbs::from_be_bytes(b))
    }

    /// The canonical value as limbs.
    pub(crate) const fn to_canonical_limbs(self) -> Limbs {
        limbs::mont_mul(&self.limbs(), &[1, 0, 0, 0], &N, NINV)
    }

    /// The canonical value.
    pub const fn to_canonical(self) -> U256 {
        U256::from_words(limbs::to_words(self.to_canonical_limbs()))
    }

    /// Big-endian bytes of the canonical value.
    pub(crate) const fn to_be_bytes(self) -> [u8; 32] {
        limbs::to_be_bytes(&self.to_canonical_limbs())
    }

    /// Product.
    #[inline]
    pub const fn multiply(&self, rhs: &Self) -> Self {
        Self::from_limbs(limbs::mont_mul(&self.limbs(), &rhs.limbs(), &N, NINV))
    }

    /// Square.
    #[inline]
    pub const fn square(&self) -> Self {
        self.multiply(self)
    }

    /// Sum.
    #[inline]
    pub const fn add(&self, rhs: &Self) -> Self {
        Self::from_limbs(limbs::add_mod(&self.limbs(), &rhs.limbs(), &N))
    }

    /// Twice `self`.
    #[inline]
    pub const fn double(&self) -> Self {
        self.add(self)
    }

    /// Difference.
    #[inline]
    pub const fn sub(&self, rhs: &Self) -> Self {
        Self::from_limbs(limbs::sub_mod(&self.limbs(), &rhs.limbs(), &N))
    }

    /// Negation.
    #[inline]
    pub const fn neg(&self) -> Self {
        Self::ZERO.sub(self)
    }

    /// All ones iff zero.
    #[inline]
    pub(crate) const fn is_zero_mask(&self) -> u64 {
        limbs::is_zero_mask(&self.limbs())
    }

    /// Inverse, `None` for 0 (the `ff` contract).
    pub fn invert(&self) -> CtOption<Self> {
        CtOption::new(self.invert_or_zero(), !self.is_zero())
    }

    /// Inverse, 0 for 0, constant time: safegcd on the Montgomery representative a·R, then
    /// one multiplication by R^3.
    pub(crate) fn invert_or_zero(&self) -> Self {
        const MODULUS: inv::Modulus = inv::Modulus::new(&N);
        const R3: Scalar = Scalar::from_limbs(limbs::mont_mul(&R2, &R2, &N, NINV));
        Self::from_limbs(inv::invert(&self.limbs(), &MODULUS)).multiply(&R3)
    }
}

impl AsRef<Scalar> for Scalar {
    fn as_ref(&self) -> &Scalar {
        self
    }
}

impl FromUintUnchecked for Scalar {
    type Uint = U256;

    fn from_uint_unchecked(uint: Self::Uint) -> Self {
        Self::from_uint_unchecked(uint)
    }
}

impl IsHigh for Scalar {
    fn is_high(&self) -> Choice {
        const HALF: U256 = <Sm2 as elliptic_curve::Curve>::ORDER
            .as_ref()
            .shr_vartime(1);
        self.to_canonical().ct_gt(&HALF)
    }
}

/// True iff the big-endian integer is in [1, n-1] (constant time in the value).
pub fn is_in_range(b: &[u8; 32]) -> u64 {
    let a = limbs::from_be_bytes(b);
    limbs::lt_mask(&a, &N) & !limbs::is_zero_mask(&a)
}
