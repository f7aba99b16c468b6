//! The groups G1 = E(F_p), E: y² = x³ + 5, and G2 ⊂ E'(F_p²), E': y² = x³ + 5u (the
//! sextic twist of GM/T 0044-2016 part 1, A.1), in homogeneous projective coordinates with
//! the complete a = 0 formulas of Renes, Costello and Batina (EUROCRYPT 2016, algorithms 7
//! and 9): no exceptional cases on odd-order groups, so no secret-dependent branches.

use crate::field::{Fp, Limbs};
use crate::tower::Fp2;

/// The coordinate field of a curve group.
pub(crate) trait Coord: Copy + PartialEq {
    const ZERO: Self;
    const ONE: Self;
    /// 3·b of the curve this field carries (15 for G1, 15u for G2).
    fn mul_b3(&self) -> Self;
    /// b of the curve.
    fn b() -> Self;
    fn add(&self, o: &Self) -> Self;
    fn sub(&self, o: &Self) -> Self;
    fn mul(&self, o: &Self) -> Self;
    fn square(&self) -> Self;
    fn neg(&self) -> Self;
    fn invert(&self) -> Self;
    fn is_zero_mask(&self) -> u64;
    fn select(mask: u64, a: &Self, b: &Self) -> Self;
}

const B3: Fp = Fp::from_u64(15);

/// `Coord` for a field type `$t` whose inherent methods carry the same names: the constants
/// and the arithmetic forwarded to them (the four the point formulas run most inlined as
/// before), with `mul_b3` (of `$s`, the element) and `b` given.
macro_rules! coord_impl {
    ($t:ident, |$s:ident| $mul_b3:expr, $b:expr) => {
        impl Coord for $t {
            const ZERO: Self = $t::ZERO;
            const ONE: Self = $t::ONE;
            #[inline(always)]
            fn mul_b3(&self) -> Self {
                let $s = self;
                $mul_b3
            }
            fn b() -> Self {
                $b
            }
            #[inline(always)]
            fn add(&self, o: &Self) -> Self {
                $t::add(self, o)
            }
            #[inline(always)]
            fn sub(&self, o: &Self) -> Self {
                $t::sub(self, o)
            }
            #[inline(always)]
            fn mul(&self, o: &Self) -> Self {
                $t::mul(self, o)
            }
            #[inline(always)]
            fn square(&self) -> Self {
                $t::square(self)
            }
            fn neg(&self) -> Self {
                $t::neg(self)
            }
            fn invert(&self) -> Self {
                $t::invert(self)
            }
            fn is_zero_mask(&self) -> u64 {
                $t::is_zero_mask(self)
            }
            fn select(mask: u64, a: &Self, b: &Self) -> Self {
                $t::select(mask, a, b)
            }
        }
    };
}

coord_impl!(Fp, |x| Fp::mul(x, &B3), Fp::B);
// 15u · (a0 + a1u) = -30a1 + 15a0·u.
coord_impl!(Fp2, |x| x.mul_u().mul_fp(&B3), Fp2::new(Fp::ZERO, Fp::B));

/// A point (X : Y : Z) with x = X/Z, y = Y/Z; the identity is (0 : 1 : 0).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Point<F: Coord> {
    pub(crate) x: F,
    pub(crate) y: F,
    pub(crate) z: F,
}

/// An affine point (never the identity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Affine<F: Coord> {
    pub(crate) x: F,
    pub(crate) y: F,
}

pub(crate) type G1 = Point<Fp>;
pub(crate) type G2 = Point<Fp2>;

/// The generator P1 of G1 (GM/T 0044-2016 part 5, A.1).
pub(crate) const P1: Affine<Fp> = Affine {
    x: Fp::from_hex("93DE051D62BF718FF5ED0704487D01D6E1E4086909DC3280E8C4E4817C66DDDD"),
    y: Fp::from_hex("21FE8DDA4F21E607631065125C395BBC1C1C00CBFA6024350C464CD70A3EA616"),
};

/// The generator P2 of G2 (GM/T 0044-2016 part 5, A.1; each coordinate is written there
/// as (u-part, 1-part)).
pub(crate) const P2: Affine<Fp2> = Affine {
    x: Fp2::new(
        Fp::from_hex("3722755292130B08D2AAB97FD34EC120EE265948D19C17ABF9B7213BAF82D65B"),
        Fp::from_hex("85AEF3D078640C98597B6027B441A01FF1DD2C190F5E93C454806C11D8806141"),
    ),
    y: Fp2::new(
        Fp::from_hex("A7CF28D519BE3DA65F3170153D278FF247EFBA98A71A08116215BBA5C999A7C7"),
        Fp::from_hex("17509B092E845C1266BA0D262CBEE6ED0736A96FA347C8BD856DC76B84EBEB96"),
    ),
};

impl<F: Coord> Affine<F> {
    /// (0, 0), on neither curve: what a wiped key's point is overwritten with.
    #[cfg(feature = "zeroize")]
    pub(crate) const WIPED: Self = Self {
        x: F::ZERO,
        y: F::ZERO,
    };

    /// True if y² = x³ + b.
    pub(crate) fn is_on_curve(&self) -> bool {
        self.y.square() == self.x.square().mul(&self.x).add(&F::b())
    }
    pub(crate) fn neg(&self) -> Self {
        Self {
            x: self.x,
            y: self.y.neg(),
        }
    }
}

impl<F: Coord> From<Affine<F>> for Point<F> {
    fn from(a: Affine<F>) -> Self {
        Self {
            x: a.x,
            y: a.y,
            z: F::ONE,
        }
    }
}

impl<F: Coord> Point<F> {
    pub(crate) const IDENTITY: Self = Self {
        x: F::ZERO,
        y: F::ONE,
        z: F::ZERO,
    };

    /// All ones if this is the identity.
    pub(crate) fn is_identity_mask(&self) -> u64 {
        self.z.is_zero_mask()
    }

    pub(crate) fn is_identity(&self) -> bool {
        self.is_identity_mask() != 0
    }

    /// The affine form, `None` for the identity (constant time up to that outcome).
    pub(crate) fn to_affine(&self) -> Option<Affine<F>> {
        let zi = self.z.invert();
        let a = Affine {
            x: self.x.mul(&zi),
            y: self.y.mul(&zi),
        };
        if self.is_identity() { None } else { Some(a) }
    }

    pub(crate) fn neg(&self) -> Self {
        Self {
            x: self.x,
            y: self.y.neg(),
            z: self.z,
        }
    }

    pub(crate) fn select(mask: u64, a: &Self, b: &Self) -> Self {
        Self {
            x: F::select(mask, &a.x, &b.x),
            y: F::select(mask, &a.y, &b.y),
            z: F::select(mask, &a.z, &b.z),
        }
    }

    /// Complete addition (RCB16 algorithm 7, a = 0).
    pub(crate) fn add(&self, o: &Self) -> Self {
        let (x1, y1, z1) = (&self.x, &self.y, &self.z);
        let (x2, y2, z2) = (&o.x, &o.y, &o.z);
        let t0 = x1.mul(x2);
        let t1 = y1.mul(y2);
        let t2 = z1.mul(z2);
        let t3 = x1.add(y1).mul(&x2.add(y2));
        let t4 = t0.add(&t1);
        let t3 = t3.sub(&t4);
        let t4 = y1.add(z1).mul(&y2.add(z2));
        let x3 = t1.add(&t2);
        let t4 = t4.sub(&x3);
        let x3 = x1.add(z1).mul(&x2.add(z2));
        let y3 = t0.add(&t2);
        let y3 = x3.sub(&y3);
        let x3 = t0.add(&t0);
        let t0 = x3.add(&t0);
        let t2 = t2.mul_b3();
        let z3 = t1.add(&t2);
        let t1 = t1.sub(&t2);
        let y3 = y3.mul_b3();
        let x3 = t4.mul(&y3);
        let t2 = t3.mul(&t1);
        let x3 = t2.sub(&x3);
        let y3 = y3.mul(&t0);
        let t1 = t1.mul(&z3);
        let y3 = t1.add(&y3);
        let t0 = t0.mul(&t3);
        let z3 = z3.mul(&t4);
        let z3 = z3.add(&t0);
        Self {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// Complete doubling (RCB16 algorithm 9, a = 0).
    pub(crate) fn double(&self) -> Self {
        let (x, y, z) = (&self.x, &self.y, &self.z);
        let t0 = y.square();
        let z3 = t0.add(&t0);
        let z3 = z3.add(&z3);
        let z3 = z3.add(&z3);
        let t1 = y.mul(z);
        let t2 = z.square();
        let t2 = t2.mul_b3();
        let x3 = t2.mul(&z3);
        let y3 = t0.add(&t2);
        let z3 = t1.mul(&z3);
        let t1 = t2.add(&t2);
        let t2 = t1.add(&t2);
        let t0 = t0.sub(&t2);
        let y3 = t0.mul(&y3);
        let y3 = x3.add(&y3);
        let t1 = x.mul(y);
        let x3 = t0.mul(&t1);
        let x3 = x3.add(&x3);
        Self {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// k·self for a 256-bit integer k: fixed 4-bit windows, each table entry read by a
    /// masked scan of all 16 (constant time in k and in the point).
    pub(crate) fn mul_ct(&self, k: &Limbs) -> Self {
        let mut table = [Self::IDENTITY; 16];
        crate::window::fill_by_squaring(&mut table, self, Self::double, Self::add);
        let mut r = Self::IDENTITY;
        for w in (0..64).rev() {
            r = r.double().double().double().double();
            let nib = crate::window::nibble(k, w);
            r = r.add(&crate::window::scan(&table, nib, Self::select));
        }
        r
    }

    /// k·self for a public k (variable time: verification only). Width-5 NAF of k over
    /// the odd multiples self, 3·self, …, 15·self, complete formulas throughout.
    pub(crate) fn mul_vartime(&self, k: &Limbs) -> Self {
        let digits = wnaf5(k);
        let twice = self.double();
        let mut odd = [*self; 8];
        for i in 1..8 {
            odd[i] = odd[i - 1].add(&twice);
        }
        let mut r = Self::IDENTITY;
        let mut started = false;
        for &d in digits.iter().rev() {
            if started {
                r = r.double();
            }
            if d != 0 {
                let e = &odd[(d.unsigned_abs() / 2) as usize];
                r = if d > 0 { r.add(e) } else { r.add(&e.neg()) };
                started = true;
            }
        }
        r
    }

    /// Projective equality (X1Z2 = X2Z1, Y1Z2 = Y2Z1).
    #[cfg(test)]
    pub(crate) fn equals(&self, o: &Self) -> bool {
        self.x.mul(&o.z) == o.x.mul(&self.z) && self.y.mul(&o.z) == o.y.mul(&self.z)
    }
}

/// Width-5 non-adjacent form of a 256-bit k (public): digits in {0, ±1, ±3, …, ±15}, least
/// significant first, any nonzero digit followed by at least four zeros.
fn wnaf5(k: &Limbs) -> [i8; 257] {
    let mut out = [0i8; 257];
    // k in five limbs: subtracting a negative digit can carry past 2^256.
    let mut v = [k[0], k[1], k[2], k[3], 0u64];
    for d in out.iter_mut() {
        if v == [0; 5] {
            break;
        }
        if v[0] & 1 == 1 {
            let m = (v[0] & 31) as i64;
            let digit = if m >= 16 { m - 32 } else { m };
            *d = digit as i8;
            // v -= digit (for a negative digit, v += |digit|).
            if digit > 0 {
                v[0] -= digit as u64;
            } else {
                let mut carry = (-digit) as u64;
                for w in v.iter_mut() {
                    let (s, c) = w.overflowing_add(carry);
                    *w = s;
                    carry = c as u64;
                }
            }
        }
        // v >>= 1
        for i in 0..5 {
            v[i] = (v[i] >> 1) | if i < 4 { v[i + 1] << 63 } else { 0 };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Fn;

    #[test]
    fn generators_and_order() {
        assert!(P1.is_on_curve());
        assert!(P2.is_on_curve());
        let n = Fn::MODULUS;
        assert!(G1::from(P1).mul_ct(&n).is_identity());
        assert!(G2::from(P2).mul_ct(&n).is_identity());
        let g = G1::from(P1);
        let three = g.double().add(&g);
        assert!(three.equals(&g.mul_ct(&[3, 0, 0, 0])));
        assert!(g.add(&G1::IDENTITY).equals(&g));
        assert!(g.add(&g.neg()).is_identity());
        assert!(g.add(&g).equals(&g.double()));
        let a = three.to_affine().expect("not identity");
        assert!(a.is_on_curve());
    }

    /// The variable-time product equals the constant-time one on edge and random scalars,
    /// and the NAF digits rebuild k.
    #[test]
    fn vartime_mul_and_naf() {
        let g = G1::from(P1).mul_ct(&[0xdead_beef, 0, 0, 0]);
        let n = Fn::MODULUS;
        let mut ks = std::vec![
            [0u64; 4],
            [1, 0, 0, 0],
            [15, 0, 0, 0],
            [31, 0, 0, 0],
            n,
            [u64::MAX; 4]
        ];
        ks.extend(crate::test_limbs(0x2545_f491_4f6c_dd1du64, 30));
        for k in &ks {
            assert!(g.mul_vartime(k).equals(&g.mul_ct(k)), "k = {k:x?}");
            // Σ d_i 2^i = k, as a 320-bit sum.
            let mut acc = [0i128; 5];
            for (i, &d) in wnaf5(k).iter().enumerate() {
                acc[i / 64] += (d as i128) << (i % 64);
            }
            let mut carry = 0i128;
            let mut got = [0u64; 5];
            for (g, a) in got.iter_mut().zip(acc) {
                let t = a + carry;
                *g = t as u64;
                carry = t >> 64;
            }
            assert_eq!(&got[..4], &k[..], "digits of {k:x?}");
            assert_eq!(got[4], 0);
        }
    }
}
