//! The SM2 base field: integers modulo p = 2^256 - 2^224 - 2^96 + 2^64 - 1 (GB/T 32918.5),
//! in the Montgomery domain with R = 2^256. One type, [`FieldElement`], serves both the
//! `elliptic-curve`/`primeorder` traits (through `primefield`'s macro, which stores the same
//! Montgomery words) and this crate's own point formulas; its arithmetic is the field
//! implementation chosen once in `arith/mod.rs` (x86-64 assembly or portable Rust), the way
//! RustCrypto's `p256` plugs its `field_impl` into the same macro. Constant time throughout.

use super::field_impl;
use super::inv;
use super::limbs::{self, Limbs};
use primefield::bigint::U256;
#[allow(unused_imports)] // named by the code `primefield`'s macro expands to
use primefield::{
    ff::PrimeField,
    subtle::{Choice, ConstantTimeEq, CtOption},
};
use shangmi_dispatch::ct;

/// The product's and the square's inlining, written once for both: `inline(always)` into
/// the point formulas, `inline(never)` in the size profile and on WebAssembly (see
/// [`FieldElement::multiply`]).
macro_rules! product_inlining {
    ($($item:item)+) => {
        $(
            #[cfg_attr(
                not(any(shangmi_sm2_profile = "size", target_family = "wasm")),
                inline(always)
            )]
            #[cfg_attr(
                any(shangmi_sm2_profile = "size", target_family = "wasm"),
                inline(never)
            )]
            $item
        )+
    };
}

/// p, little-endian limbs.
pub const P: Limbs = [
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFF_0000_0000,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFE_FFFF_FFFF,
];
const PINV: u64 = limbs::mont_minv(P[0]);
const R2: Limbs = limbs::mont_r2(&P);

/// Field prime p (GB/T 32918.5), hexadecimal.
const MODULUS_HEX: &str = "fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff";

primefield::monty_field_params! {
    name: FieldParams,
    modulus: MODULUS_HEX,
    uint: U256,
    byte_order: primefield::ByteOrder::BigEndian,
    multiplicative_generator: 13,
    doc: "Montgomery parameters for the SM2 field prime p"
}

primefield::monty_field_element! {
    name: FieldElement,
    params: FieldParams,
    uint: U256,
    doc: "Element of the SM2 base field (integers modulo p), in Montgomery form"
}

// `&x.limbs_at()` borrows a reference on x86-64 and a copy elsewhere.
#[allow(clippy::needless_borrow)]
impl FieldElement {
    /// The Montgomery form (value·2^256 mod p) as four 64-bit limbs.
    #[inline(always)]
    pub const fn limbs(&self) -> Limbs {
        limbs::from_words(self.0.to_montgomery_words())
    }

    /// The Montgomery limbs where the element lives (x86-64, where `crypto-bigint`'s words
    /// are the limbs), so the assembly reads a second operand in place instead of from a
    /// fresh copy whose store it would wait for.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub const fn limbs_at(&self) -> &Limbs {
        self.0.as_montgomery().as_words()
    }

    /// The Montgomery limbs of the element (a copy; the portable code works on values).
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub const fn limbs_at(&self) -> Limbs {
        self.limbs()
    }

    /// From the Montgomery form as four 64-bit limbs (below p).
    #[inline(always)]
    pub const fn from_limbs(l: Limbs) -> Self {
        Self(primefield::MontyFieldElement::from_montgomery_words(
            limbs::to_words(l),
        ))
    }

    /// From a canonical integer below p.
    pub const fn from_canonical(a: &Limbs) -> Self {
        Self::from_limbs(limbs::mont_mul(a, &R2, &P, PINV))
    }

    /// From an integer below p (`primefield`'s hook: not checked).
    pub(crate) const fn from_uint_unchecked(w: U256) -> Self {
        Self::from_canonical(&limbs::from_words(w.to_words()))
    }

    /// The canonical integer value as limbs.
    pub const fn to_canonical_limbs(self) -> Limbs {
        limbs::mont_mul(&self.limbs(), &[1, 0, 0, 0], &P, PINV)
    }

    /// The canonical integer value.
    pub const fn to_canonical(self) -> U256 {
        U256::from_words(limbs::to_words(self.to_canonical_limbs()))
    }

    /// 32 big-endian bytes of the canonical value.
    pub const fn to_be_bytes(self) -> [u8; 32] {
        limbs::to_be_bytes(&self.to_canonical_limbs())
    }

    product_inlining! {
        /// Product. With the x86-64 assembly `self` reaches it in registers and `rhs` through
        /// memory, so the point formulas pass the value computed last as `self`. Inlined into
        /// the point formulas, except in the size profile and on WebAssembly (one shared copy:
        /// there the portable 64-bit limb code inlined into every formula made the fast
        /// profile's module 763 KB, and the call costs little against the product's 128-bit
        /// arithmetic).
        pub fn multiply(&self, rhs: &Self) -> Self {
            Self::from_limbs(field_impl::mul(&self.limbs(), &rhs.limbs_at()))
        }

        /// Square (out of line in the size profile and on WebAssembly, as [`Self::multiply`]).
        pub fn square(&self) -> Self {
            Self::from_limbs(field_impl::sqr(&self.limbs_at()))
        }
    }

    /// `self^(2^k)`.
    #[inline(always)]
    pub fn square_n(&self, k: u32) -> Self {
        let mut t = *self;
        for _ in 0..k {
            t = t.square();
        }
        t
    }

    /// Sum.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn add(&self, rhs: &Self) -> Self {
        Self::from_limbs(field_impl::add(&self.limbs(), &rhs.limbs_at()))
    }

    /// Difference.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn sub(&self, rhs: &Self) -> Self {
        Self::from_limbs(field_impl::sub(&self.limbs(), &rhs.limbs_at()))
    }

    /// Half: self·2^-1 mod p.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn half(&self) -> Self {
        Self::from_limbs(field_impl::half(&self.limbs_at()))
    }

    /// Twice `self`.
    #[inline(always)]
    pub fn double(&self) -> Self {
        self.add(self)
    }

    /// Negation.
    #[inline(always)]
    pub fn neg(&self) -> Self {
        Self::ZERO.sub(self)
    }

    /// All ones iff zero.
    #[inline(always)]
    pub const fn is_zero_mask(&self) -> u64 {
        limbs::is_zero_mask(&self.limbs())
    }

    /// All ones iff equal.
    #[inline(always)]
    pub const fn eq_mask(&self, rhs: &Self) -> u64 {
        limbs::eq_mask(&self.limbs(), &rhs.limbs())
    }

    /// `a` where `mask` is all ones, else `b`, with the mask hidden from the optimiser
    /// ([`ct::opaque_u64`]: LLVM turned such selects into branches and indexed loads in the
    /// table scans until the memcheck test caught it).
    #[inline(always)]
    pub fn select(mask: u64, a: &Self, b: &Self) -> Self {
        Self::from_limbs(shangmi_limbs::select_masked(
            ct::opaque_u64(mask),
            &a.limbs(),
            &b.limbs(),
        ))
    }

    /// Inverse, `None` for 0 (the `ff` contract).
    pub fn invert(&self) -> CtOption<Self> {
        CtOption::new(self.invert_or_zero(), !self.is_zero())
    }

    /// Inverse, 0 for 0: constant-time safegcd ([`super::inv`]) on the Montgomery
    /// representative x·R, giving x^-1·R^-1, then one multiplication by R^3.
    pub fn invert_or_zero(&self) -> Self {
        const MODULUS: inv::Modulus = inv::Modulus::new(&P);
        const R3: FieldElement = FieldElement::from_limbs(limbs::mont_mul(&R2, &R2, &P, PINV));
        Self::from_limbs(inv::invert(&self.limbs(), &MODULUS)).multiply(&R3)
    }

    /// Inverse, 0 for 0, in variable time ([`inv::invert_vartime`]): for public values only
    /// (the normalisation of tables of multiples of a public point).
    pub fn invert_vartime(&self) -> Self {
        const MODULUS: inv::Modulus = inv::Modulus::new(&P);
        const R3: FieldElement = FieldElement::from_limbs(limbs::mont_mul(&R2, &R2, &P, PINV));
        Self::from_limbs(inv::invert_vartime(&self.limbs(), &MODULUS)).multiply(&R3)
    }

    /// Inverse by Fermat (`self^(p-2)`), 0 for 0: the reference for
    /// [`Self::invert_or_zero`]. The addition chain follows the bit pattern of
    /// p - 2 = 1^31 0 1^128 0^32 1^32 1^30 0 1 (most significant first): 255 squarings and 14
    /// multiplications.
    #[cfg(test)]
    pub fn invert_fermat(&self) -> Self {
        let x1 = *self;
        let x2 = x1.square().multiply(&x1);
        let x3 = x2.square().multiply(&x1);
        let x6 = x3.square_n(3).multiply(&x3);
        let x12 = x6.square_n(6).multiply(&x6);
        let x15 = x12.square_n(3).multiply(&x3);
        let x30 = x15.square_n(15).multiply(&x15);
        let x31 = x30.square().multiply(&x1);
        let x32 = x31.square().multiply(&x1);
        // 1^31 0
        let mut t = x31.square();
        // 1^128
        for _ in 0..4 {
            t = t.square_n(32).multiply(&x32);
        }
        // 0^32 then 1^32
        t = t.square_n(64).multiply(&x32);
        // 1^30
        t = t.square_n(30).multiply(&x30);
        // 0 1
        t.square_n(2).multiply(&x1)
    }
}
