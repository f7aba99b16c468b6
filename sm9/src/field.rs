//! Montgomery arithmetic (R = 2^256) on four 64-bit limbs for the two 256-bit primes of
//! SM9: the base field prime p ([`Fp`]) and the group order n ([`Fn`]), instances of the
//! limb layer `shangmi-limbs` that SM2's fields share. Constant time: every conditional
//! subtraction is a masked select whose mask passes an optimisation barrier. The portable
//! functions are `const fn`, so that derived constants (Frobenius coefficients, R², the
//! curve's b) are computed by the compiler from p and n alone.
//!
//! At run time F_p uses the x86-64 forms of `field_x86.rs` where they exist (addition and
//! subtraction on every x86-64, the product with BMI2/ADX): the product follows the
//! `shangmi-dispatch` "SM9 field" backend ([`Backend`]) kept in one byte ([`FIELD`]),
//! through an [`FpMul`] token taken once per tower operation; the portable functions here
//! remain the reference and the code of `--cfg shangmi_backend="portable"`/`"soft"`
//! builds and other CPUs.
//!
//! Both primes lie between 2^255 and 2^256, so sums carry out of 256 bits and the
//! reductions keep the carry word.

#[cfg(target_arch = "x86_64")]
use shangmi_dispatch::Family;
pub use shangmi_dispatch::sm9_field::{Backend, BackendError};
use shangmi_dispatch::{Available, BackendCell};

pub(crate) use shangmi_limbs::Limbs;
use shangmi_limbs::{add_mod, mont_minv, mont_mul, mont_r2, sbb, sub, sub_mod};

/// The F_p product's backend, one byte in this crate that every product reads (field
/// elements carry no backend, so the choice is process-wide). It holds an `Available`
/// backend: the best one until [`use_backend`] picks another.
static FIELD: BackendCell<Backend> = BackendCell::new();

/// The F_p product's backend in use (read by the x86-64 products; elsewhere every backend
/// is the portable one).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn field_backend() -> Available<Backend> {
    FIELD.get()
}

/// The SM9 field backend in use (`sm9-adx` where the CPU has BMI2 and ADX, else
/// `portable`; for benchmarks, the speed command and bug reports).
pub fn backend() -> Backend {
    FIELD.get().get()
}

/// Runs SM9's F_p products on `backend` from now on, in every thread of the process (for
/// benchmarks, the speed command and tests: every backend computes the same values), or
/// says why it cannot run here.
///
/// ```
/// use shangmi_sm9::{Backend, backend, use_backend};
/// let best = backend();
/// use_backend(Backend::Portable).expect("the portable backend runs everywhere");
/// assert_eq!(backend(), Backend::Portable);
/// use_backend(best).expect("it ran before");
/// ```
pub fn use_backend(backend: Backend) -> Result<(), BackendError> {
    FIELD.set(Available::require(backend)?);
    Ok(())
}

/// Whether the build forces the portable backend: then addition and subtraction run the
/// portable Rust too (they need no CPU extension, so no other backend changes them).
#[cfg(target_arch = "x86_64")]
const FORCED_PORTABLE: bool = matches!(<Backend as Family>::FORCED, Some(Backend::Portable));

macro_rules! mont_field {
    ($name:ident, $modulus_hex:expr, $mul:path, $add:path, $sub:path, $doc:expr) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default)]
        pub(crate) struct $name(pub(crate) Limbs);

        #[allow(dead_code)]
        impl $name {
            /// The modulus.
            pub(crate) const MODULUS: Limbs = shangmi_limbs::from_hex($modulus_hex);
            /// -m^-1 mod 2^64.
            pub(crate) const MINV: u64 = mont_minv(Self::MODULUS[0]);
            const R2: Limbs = mont_r2(&Self::MODULUS);
            /// Zero.
            pub(crate) const ZERO: Self = Self([0; 4]);
            /// One (R mod m).
            pub(crate) const ONE: Self = Self(sub(&[0; 4], &Self::MODULUS).0);

            /// The element with integer value `a` (must be below the modulus).
            pub(crate) const fn from_limbs(a: &Limbs) -> Self {
                Self(mont_mul(a, &Self::R2, &Self::MODULUS, Self::MINV))
            }

            /// The element from 64 hexadecimal digits (constants).
            pub(crate) const fn from_hex(s: &str) -> Self {
                Self::from_limbs(&shangmi_limbs::from_hex(s))
            }

            /// A small integer.
            pub(crate) const fn from_u64(a: u64) -> Self {
                Self::from_limbs(&[a, 0, 0, 0])
            }

            /// The integer value.
            pub(crate) const fn to_limbs(&self) -> Limbs {
                mont_mul(&self.0, &[1, 0, 0, 0], &Self::MODULUS, Self::MINV)
            }

            /// Big-endian encoding of the integer value.
            pub(crate) const fn to_bytes(&self) -> [u8; 32] {
                shangmi_limbs::to_be_bytes(&self.to_limbs())
            }

            /// Parses a canonical big-endian value (below the modulus); `None` otherwise.
            pub(crate) fn from_bytes(b: &[u8; 32]) -> Option<Self> {
                let a = shangmi_limbs::from_be_bytes(b);
                let (_, borrow) = sub(&a, &Self::MODULUS);
                if borrow == 1 {
                    Some(Self::from_limbs(&a))
                } else {
                    None
                }
            }

            /// self · other (the fastest form the CPU runs).
            #[inline(always)]
            pub(crate) fn mul(&self, other: &Self) -> Self {
                Self($mul(&self.0, &other.0))
            }

            /// self².
            #[inline(always)]
            pub(crate) fn square(&self) -> Self {
                self.mul(self)
            }

            /// self · other in portable code, for constants.
            #[inline(always)]
            pub(crate) const fn mul_const(&self, other: &Self) -> Self {
                Self(mont_mul(&self.0, &other.0, &Self::MODULUS, Self::MINV))
            }

            /// self² in portable code, for constants.
            #[inline(always)]
            pub(crate) const fn square_const(&self) -> Self {
                self.mul_const(self)
            }

            /// self + other (the fastest form the CPU runs).
            #[inline(always)]
            pub(crate) fn add(&self, other: &Self) -> Self {
                Self($add(&self.0, &other.0))
            }

            /// self - other (the fastest form the CPU runs).
            #[inline(always)]
            pub(crate) fn sub(&self, other: &Self) -> Self {
                Self($sub(&self.0, &other.0))
            }

            /// -self.
            #[inline(always)]
            pub(crate) fn neg(&self) -> Self {
                Self::ZERO.sub(self)
            }

            /// 2·self.
            #[inline(always)]
            pub(crate) fn double(&self) -> Self {
                self.add(self)
            }

            /// self + other in portable code, for constants.
            #[inline(always)]
            pub(crate) const fn add_const(&self, other: &Self) -> Self {
                Self(add_mod(&self.0, &other.0, &Self::MODULUS))
            }

            /// -self in portable code, for constants.
            #[inline(always)]
            pub(crate) const fn neg_const(&self) -> Self {
                Self(sub_mod(&[0; 4], &self.0, &Self::MODULUS))
            }

            /// self^e for an exponent given as limbs (square-and-multiply over all 256
            /// bits with a masked multiply: the time depends on neither base nor exponent).
            pub(crate) fn pow(&self, e: &Limbs) -> Self {
                let mut r = Self::ONE;
                let mut i = 256;
                while i > 0 {
                    i -= 1;
                    r = r.square();
                    let bit = (e[i / 64] >> (i % 64)) & 1;
                    let m = r.mul(self);
                    r = Self(shangmi_limbs::select(bit.wrapping_neg(), &m.0, &r.0));
                }
                r
            }

            /// self^e for a public exponent: fixed 4-bit windows whose table index and
            /// whose skipped zero windows depend on `e` only, never on `self` (constant time
            /// in the base).
            pub(crate) fn pow_public(&self, e: &Limbs) -> Self {
                let table = crate::window::powers(Self::ONE, *self, Self::mul);
                let mut r = Self::ONE;
                for w in (0..64).rev() {
                    r = r.square().square().square().square();
                    let nib = crate::window::nibble(e, w) as usize;
                    if nib != 0 {
                        r = r.mul(&table[nib]);
                    }
                }
                r
            }

            /// self^-1 (Fermat with the public exponent m - 2; zero maps to zero). Constant
            /// time in self.
            pub(crate) fn invert(&self) -> Self {
                self.pow_public(&sub(&Self::MODULUS, &[2, 0, 0, 0]).0)
            }

            /// [`Self::pow`] in portable code, for constants.
            pub(crate) const fn pow_const(&self, e: &Limbs) -> Self {
                let mut r = Self::ONE;
                let mut i = 256;
                while i > 0 {
                    i -= 1;
                    r = r.square_const();
                    let bit = (e[i / 64] >> (i % 64)) & 1;
                    let m = r.mul_const(self);
                    r = Self(shangmi_limbs::select(bit.wrapping_neg(), &m.0, &r.0));
                }
                r
            }

            /// [`Self::invert`] in portable code, for constants.
            pub(crate) const fn invert_const(&self) -> Self {
                self.pow_const(&sub(&Self::MODULUS, &[2, 0, 0, 0]).0)
            }

            /// All ones if zero, else zero.
            #[inline(always)]
            pub(crate) const fn is_zero_mask(&self) -> u64 {
                shangmi_limbs::is_zero_mask(&self.0)
            }

            /// True if zero (not for secrets where timing matters: use the mask).
            #[inline(always)]
            pub(crate) const fn is_zero(&self) -> bool {
                self.is_zero_mask() != 0
            }

            /// Equality mask.
            #[inline(always)]
            pub(crate) const fn eq_mask(&self, other: &Self) -> u64 {
                shangmi_limbs::eq_mask(&self.0, &other.0)
            }

            /// `b` where `mask` is all ones, `a` where zero.
            #[inline(always)]
            pub(crate) const fn select(mask: u64, a: &Self, b: &Self) -> Self {
                Self(shangmi_limbs::select(mask, &b.0, &a.0))
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.eq_mask(other) != 0
            }
        }
        impl Eq for $name {}
    };
}

mont_field!(
    Fp,
    crate::primes::P_HEX,
    fp_mul,
    fp_add,
    fp_sub,
    "An element of the base field F_p (GM/T 0044-2016 part 5, A.1: the prime q)."
);
mont_field!(
    Fn,
    crate::primes::N_HEX,
    fn_mul,
    fn_add,
    fn_sub,
    "An integer mod the group order N (GM/T 0044-2016 part 5, A.1)."
);

/// Montgomery product mod p: the `mulx` form where the CPU has BMI2 and ADX, else portable.
#[inline(always)]
fn fp_mul(a: &Limbs, b: &Limbs) -> Limbs {
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = crate::field_x86::AdxMul::new(field_backend()) {
        return adx.mul_limbs(a, b);
    }
    mont_mul(a, b, &Fp::MODULUS, Fp::MINV)
}

/// `$name(a, b)` mod p through `$op` of `shangmi_limbs`: its x86-64 `asm!` form (plain
/// x86-64, no extension needed) unless the build forces the portable backend, else its
/// portable form.
macro_rules! fp_add_sub {
    ($(#[$doc:meta])* fn $name:ident => $op:ident) => {
        $(#[$doc])*
        #[inline(always)]
        fn $name(a: &Limbs, b: &Limbs) -> Limbs {
            #[cfg(target_arch = "x86_64")]
            if !FORCED_PORTABLE {
                return shangmi_limbs::x86::$op(a, b, &crate::field_x86::P);
            }
            $op(a, b, &Fp::MODULUS)
        }
    };
}

fp_add_sub! {
    /// a + b mod p.
    fn fp_add => add_mod
}

fp_add_sub! {
    /// a - b mod p.
    fn fp_sub => sub_mod
}

/// a + b mod n (portable).
#[inline(always)]
fn fn_add(a: &Limbs, b: &Limbs) -> Limbs {
    add_mod(a, b, &Fn::MODULUS)
}

/// a - b mod n (portable).
#[inline(always)]
fn fn_sub(a: &Limbs, b: &Limbs) -> Limbs {
    sub_mod(a, b, &Fn::MODULUS)
}

/// A way to multiply in F_p, as a zero-sized token: the tower's operations are generic over
/// it, so that the run-time choice of the `mulx` form is made once per F_p¹² operation
/// instead of once per F_p product (one monomorphic copy per form, no check inside).
pub(crate) trait FpMul: Copy {
    /// a · b.
    fn mul(self, a: &Fp, b: &Fp) -> Fp;

    /// The F_p² product (a0 + a1u)(b0 + b1u), u² = -2, as its two coefficients: Karatsuba,
    /// a0b0 - 2a1b1 + ((a0 + a1)(b0 + b1) - a0b0 - a1b1)u.
    #[inline(always)]
    fn mul2(self, a: [&Fp; 2], b: [&Fp; 2]) -> [Fp; 2] {
        let v0 = self.mul(a[0], b[0]);
        let v1 = self.mul(a[1], b[1]);
        let s = self.mul(&a[0].add(a[1]), &b[0].add(b[1]));
        [v0.sub(&v1.double()), s.sub(&v0).sub(&v1)]
    }
}

/// The portable Montgomery product (every CPU).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableMul;

impl FpMul for PortableMul {
    // Not `inline(always)`: unoptimised builds would give each tower function a stack slot
    // for every temporary of every inlined product (the F_p¹² functions overflow the 2 MiB
    // test-thread stack).
    #[inline]
    fn mul(self, a: &Fp, b: &Fp) -> Fp {
        Fp(mont_mul(&a.0, &b.0, &Fp::MODULUS, Fp::MINV))
    }
}

/// The `mulx` form (x86-64 with BMI2 and ADX; `field_x86.rs`).
#[cfg(target_arch = "x86_64")]
impl FpMul for crate::field_x86::AdxMul {
    #[inline(always)]
    fn mul(self, a: &Fp, b: &Fp) -> Fp {
        Fp(self.mul_limbs(&a.0, &b.0))
    }

    #[inline(always)]
    fn mul2(self, a: [&Fp; 2], b: [&Fp; 2]) -> [Fp; 2] {
        let [c0, c1] = self.mul2_limbs([&a[0].0, &a[1].0], [&b[0].0, &b[1].0]);
        [Fp(c0), Fp(c1)]
    }
}

/// Runs `$body` with `$m` bound to the [`FpMul`] token of the backend in use (the `mulx`
/// form where the dispatch crate found BMI2 and ADX and nothing picked another), returning
/// its value from the enclosing function: the one match from the SM9 field backend to its
/// code.
macro_rules! with_fp_mul {
    (|$m:ident| $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        if let Some($m) = crate::field_x86::AdxMul::new(crate::field::field_backend()) {
            return $body;
        }
        let $m = crate::field::PortableMul;
        $body
    }};
}
pub(crate) use with_fp_mul;

/// Montgomery product mod n (portable).
#[inline(always)]
fn fn_mul(a: &Limbs, b: &Limbs) -> Limbs {
    mont_mul(a, b, &Fn::MODULUS, Fn::MINV)
}

impl Fp {
    /// The curve coefficient b = 5 (E: y² = x³ + 5).
    pub(crate) const B: Fp = Fp::from_u64(5);
}

impl Fn {
    /// Reduces a big-endian integer of up to 64 bytes modulo `m` = N - 1, then adds one:
    /// the map of GM/T 0044-2016 part 2, 5.4.2 (h = (Ha mod (N-1)) + 1), constant time in
    /// the value (bit-serial shift-and-subtract).
    pub(crate) fn from_hash_bytes(b: &[u8]) -> Fn {
        let m = sub(&Fn::MODULUS, &[1, 0, 0, 0]).0;
        let mut r: Limbs = [0; 4];
        for &byte in b {
            let mut k = 8;
            while k > 0 {
                k -= 1;
                let bit = ((byte >> k) & 1) as u64;
                // r = 2r + bit (r < m < 2^256: 2r + 1 < 2^257).
                let top = r[3] >> 63;
                let s = [
                    (r[0] << 1) | bit,
                    (r[1] << 1) | (r[0] >> 63),
                    (r[2] << 1) | (r[1] >> 63),
                    (r[3] << 1) | (r[2] >> 63),
                ];
                let (d, borrow) = sub(&s, &m);
                let (_, below) = sbb(top, 0, borrow);
                r = shangmi_limbs::select(below.wrapping_neg(), &s, &d);
            }
        }
        // r + 1 <= N - 1 < N: a valid integer below N.
        let (r1, _) = shangmi_limbs::add(&r, &[1, 0, 0, 0]);
        Fn::from_limbs(&r1)
    }

    /// Parses a big-endian scalar, requiring 1 <= k < N.
    pub(crate) fn from_bytes_nonzero(b: &[u8; 32]) -> Option<Fn> {
        let k = Fn::from_bytes(b)?;
        if k.is_zero() { None } else { Some(k) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn montgomery_basics() {
        let a = Fp::from_hex("93DE051D62BF718FF5ED0704487D01D6E1E4086909DC3280E8C4E4817C66DDDD");
        let b = Fp::from_hex("21FE8DDA4F21E607631065125C395BBC1C1C00CBFA6024350C464CD70A3EA616");
        assert_eq!(a.mul(&b), b.mul(&a));
        assert_eq!(a.mul(&a.invert()), Fp::ONE);
        // The windowed public-exponent power against the bitwise one, and the inverses of
        // edge values (zero maps to zero).
        let e = [
            0x0123_4567_89ab_cdef,
            0,
            0xffff_0000_ffff_0000,
            0x8000_0000_0000_0001,
        ];
        assert_eq!(a.pow_public(&e), a.pow(&e));
        assert_eq!(Fp::ZERO.invert(), Fp::ZERO);
        assert_eq!(Fp::ONE.invert(), Fp::ONE);
        assert_eq!(Fp::ONE.neg().invert(), Fp::ONE.neg());
        assert_eq!(a.invert(), a.pow(&sub(&Fp::MODULUS, &[2, 0, 0, 0]).0));
        assert_eq!(a.add(&b).sub(&b), a);
        assert_eq!(a.neg().add(&a), Fp::ZERO);
        assert_eq!(Fp::from_u64(3).mul(&Fp::from_u64(5)), Fp::from_u64(15));
        // p - 1 squared is 1.
        let m1 = Fp::ONE.neg();
        assert_eq!(m1.square(), Fp::ONE);
        assert_eq!(
            m1.to_bytes(),
            shangmi_limbs::to_be_bytes(&sub(&Fp::MODULUS, &[1, 0, 0, 0]).0)
        );
        // Fermat: a^(p-1) = 1.
        let e = sub(&Fp::MODULUS, &[1, 0, 0, 0]).0;
        assert_eq!(a.pow(&e), Fp::ONE);
        let k = Fn::from_hex("0130E78459D78545CB54C587E02CF480CE0B66340F319F348A1D5B1F2DC5F4");
        assert_eq!(k.mul(&k.invert()), Fn::ONE);
        assert_eq!(Fn::from_hash_bytes(&[0]), Fn::ONE);
        // N - 1 itself maps to 0 + 1.
        assert_eq!(
            Fn::from_hash_bytes(&shangmi_limbs::to_be_bytes(
                &sub(&Fn::MODULUS, &[1, 0, 0, 0]).0
            )),
            Fn::ONE
        );
        assert!(Fp::from_bytes(&shangmi_limbs::to_be_bytes(&Fp::MODULUS)).is_none());
    }
}
