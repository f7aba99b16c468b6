//! The extension tower of GM/T 0044-2016 part 1, A.2 (as gmsm's `bn256` also builds it):
//! F_p² = F_p\[u\]/(u² + 2), F_p⁴ = F_p²\[v\]/(v² - u), F_p¹² = F_p⁴\[w\]/(w³ - v).
//! Constant time throughout (no branch or index depends on values).
//!
//! The products are generic over an [`FpMul`] token (`*_g`), the public ones choose it once
//! per call; the F_p² product and the F_p⁴ product and squaring are out of line, which
//! measured faster than inlining them into the F_p¹² functions (whose temporaries spill).

use crate::field::{Fp, FpMul, Limbs, with_fp_mul};
use shangmi_limbs::{div_small, sub};

/// What F_p² over F_p and F_p⁴ over F_p² share as quadratic extensions c0 + c1·x:
/// constants, the coefficient-wise sum, difference and negation, and the product and
/// square with the F_p multiplier chosen once per call (over each type's `mul_g` and
/// `square_g`).
macro_rules! quadratic_extension {
    ($name:ident over $base:ident) => {
        impl $name {
            pub(crate) const ZERO: Self = Self {
                c0: $base::ZERO,
                c1: $base::ZERO,
            };
            pub(crate) const ONE: Self = Self {
                c0: $base::ONE,
                c1: $base::ZERO,
            };

            pub(crate) const fn new(c0: $base, c1: $base) -> Self {
                Self { c0, c1 }
            }
            #[inline(always)]
            pub(crate) fn add(&self, o: &Self) -> Self {
                Self::new(self.c0.add(&o.c0), self.c1.add(&o.c1))
            }
            #[inline(always)]
            pub(crate) fn sub(&self, o: &Self) -> Self {
                Self::new(self.c0.sub(&o.c0), self.c1.sub(&o.c1))
            }
            #[inline(always)]
            pub(crate) fn neg(&self) -> Self {
                Self::new(self.c0.neg(), self.c1.neg())
            }
            #[inline(always)]
            pub(crate) fn mul(&self, o: &Self) -> Self {
                with_fp_mul!(|m| self.mul_g(m, o))
            }
            #[inline(always)]
            pub(crate) fn square(&self) -> Self {
                with_fp_mul!(|m| self.square_g(m))
            }
        }
    };
}

quadratic_extension!(Fp2 over Fp);
quadratic_extension!(Fp4 over Fp2);

/// a0 + a1·u with u² = -2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fp2 {
    pub(crate) c0: Fp,
    pub(crate) c1: Fp,
}

impl Fp2 {
    #[inline(always)]
    pub(crate) fn double(&self) -> Self {
        self.add(self)
    }
    /// Karatsuba: (a0 + a1u)(b0 + b1u) = a0b0 - 2a1b1 + ((a0+a1)(b0+b1) - a0b0 - a1b1)u.
    ///
    /// Out of line: inlined into the F_p¹² functions, the 512-bit intermediates of the lazy
    /// reduction spill (measured: F_p¹² multiplication 1.95 µs inlined, 1.69 µs called).
    #[inline(never)]
    pub(crate) fn mul_g<M: FpMul>(&self, m: M, o: &Self) -> Self {
        let [c0, c1] = m.mul2([&self.c0, &self.c1], [&o.c0, &o.c1]);
        Self::new(c0, c1)
    }
    /// (a0 + a1u)² = (a0 + a1)(a0 - 2a1) + a0a1 + 2a0a1·u.
    #[inline(always)]
    pub(crate) fn square_g<M: FpMul>(&self, m: M) -> Self {
        let p = m.mul(&self.c0, &self.c1);
        let t = m.mul(&self.c0.add(&self.c1), &self.c0.sub(&self.c1.double()));
        Self::new(t.add(&p), p.double())
    }
    #[inline(always)]
    pub(crate) fn mul_fp_g<M: FpMul>(&self, m: M, k: &Fp) -> Self {
        Self::new(m.mul(&self.c0, k), m.mul(&self.c1, k))
    }
    /// self + o·u = (a0 - 2b1) + (a1 + b0)u, in three F_p additions.
    #[inline(always)]
    pub(crate) fn add_mul_u(&self, o: &Self) -> Self {
        Self::new(self.c0.sub(&o.c1).sub(&o.c1), self.c1.add(&o.c0))
    }
    /// self - o·u = (a0 + 2b1) + (a1 - b0)u, in three F_p additions.
    #[inline(always)]
    pub(crate) fn sub_mul_u(&self, o: &Self) -> Self {
        Self::new(self.c0.add(&o.c1).add(&o.c1), self.c1.sub(&o.c0))
    }
    /// self · u = -2a1 + a0·u.
    #[inline(always)]
    pub(crate) fn mul_u(&self) -> Self {
        Self::new(self.c1.double().neg(), self.c0)
    }
    #[inline(always)]
    pub(crate) fn mul_fp(&self, k: &Fp) -> Self {
        with_fp_mul!(|m| self.mul_fp_g(m, k))
    }
    /// The conjugate a0 - a1u (= self^p).
    #[inline(always)]
    pub(crate) fn conj(&self) -> Self {
        Self::new(self.c0, self.c1.neg())
    }
    /// 1/(a0 + a1u) = (a0 - a1u)/(a0² + 2a1²); zero maps to zero.
    pub(crate) fn invert(&self) -> Self {
        let n = self.c0.square().add(&self.c1.square().double());
        let ni = n.invert();
        Self::new(self.c0.mul(&ni), self.c1.neg().mul(&ni))
    }
    pub(crate) fn is_zero_mask(&self) -> u64 {
        self.c0.is_zero_mask() & self.c1.is_zero_mask()
    }
    pub(crate) fn select(mask: u64, a: &Self, b: &Self) -> Self {
        Self::new(
            Fp::select(mask, &a.c0, &b.c0),
            Fp::select(mask, &a.c1, &b.c1),
        )
    }
}

/// a0 + a1·v with v² = u.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fp4 {
    pub(crate) c0: Fp2,
    pub(crate) c1: Fp2,
}

impl Fp4 {
    #[inline(never)]
    pub(crate) fn mul_g<M: FpMul>(&self, m: M, o: &Self) -> Self {
        let v0 = self.c0.mul_g(m, &o.c0);
        let v1 = self.c1.mul_g(m, &o.c1);
        let s = self.c0.add(&self.c1).mul_g(m, &o.c0.add(&o.c1));
        Self::new(v0.add_mul_u(&v1), s.sub(&v0).sub(&v1))
    }
    #[inline(never)]
    pub(crate) fn square_g<M: FpMul>(&self, m: M) -> Self {
        // (a0 + a1v)² = a0² + a1²u + 2a0a1 v, with a0² + a1²u = (a0+a1)(a0+a1u) - a0a1 - a0a1u.
        let p = self.c0.mul_g(m, &self.c1);
        let t = self.c0.add(&self.c1).mul_g(m, &self.c0.add_mul_u(&self.c1));
        Self::new(t.sub(&p).sub_mul_u(&p), p.double())
    }
    #[inline(always)]
    pub(crate) fn mul_fp2_g<M: FpMul>(&self, m: M, k: &Fp2) -> Self {
        Self::new(self.c0.mul_g(m, k), self.c1.mul_g(m, k))
    }
    /// self + o·v = (a0 + b1u) + (a1 + b0)v, in five F_p additions.
    #[inline(always)]
    pub(crate) fn add_mul_v(&self, o: &Self) -> Self {
        Self::new(self.c0.add_mul_u(&o.c1), self.c1.add(&o.c0))
    }
    /// self · v = a1u + a0v.
    #[inline(always)]
    pub(crate) fn mul_v(&self) -> Self {
        Self::new(self.c1.mul_u(), self.c0)
    }
    /// a0 - a1v.
    #[inline(always)]
    pub(crate) fn conj(&self) -> Self {
        Self::new(self.c0, self.c1.neg())
    }
    /// (a0 - a1v)/(a0² - a1²u).
    pub(crate) fn invert(&self) -> Self {
        let n = self.c0.square().sub(&self.c1.square().mul_u());
        let ni = n.invert();
        Self::new(self.c0.mul(&ni), self.c1.neg().mul(&ni))
    }
}

/// c0 + c1·w + c2·w² with w³ = v (so w⁶ = u).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fp12 {
    pub(crate) c0: Fp4,
    pub(crate) c1: Fp4,
    pub(crate) c2: Fp4,
}

/// p - 1.
const P_MINUS_1: Limbs = sub(&Fp::MODULUS, &[1, 0, 0, 0]).0;
/// γ = (-2)^((p-1)/12) = w^(p-1) (the Frobenius coefficient of w; gmsm calls it
/// `frobConstant`, 3f23ea58…).
pub(crate) const GAMMA1: Fp = Fp::from_u64(2)
    .neg_const()
    .pow_const(&div_small(&P_MINUS_1, 12));
pub(crate) const GAMMA2: Fp = GAMMA1.square_const();
pub(crate) const GAMMA3: Fp = GAMMA2.mul_const(&GAMMA1);
pub(crate) const GAMMA4: Fp = GAMMA2.square_const();
pub(crate) const GAMMA5: Fp = GAMMA4.mul_const(&GAMMA1);

impl Fp12 {
    pub(crate) const ONE: Self = Self {
        c0: Fp4::ONE,
        c1: Fp4::ZERO,
        c2: Fp4::ZERO,
    };

    pub(crate) const fn new(c0: Fp4, c1: Fp4, c2: Fp4) -> Self {
        Self { c0, c1, c2 }
    }

    /// self · o (one run-time choice of the F_p product, then monomorphic code).
    pub(crate) fn mul(&self, o: &Self) -> Self {
        with_fp_mul!(|m| self.mul_g(m, o))
    }

    fn mul_g<M: FpMul>(&self, m: M, o: &Self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let (b0, b1, b2) = (&o.c0, &o.c1, &o.c2);
        let v0 = a0.mul_g(m, b0);
        let v1 = a1.mul_g(m, b1);
        let v2 = a2.mul_g(m, b2);
        let c0 = v0.add_mul_v(&a1.add(a2).mul_g(m, &b1.add(b2)).sub(&v1).sub(&v2));
        let c1 = a0
            .add(a1)
            .mul_g(m, &b0.add(b1))
            .sub(&v0)
            .sub(&v1)
            .add_mul_v(&v2);
        let c2 = a0.add(a2).mul_g(m, &b0.add(b2)).sub(&v0).sub(&v2).add(&v1);
        Self::new(c0, c1, c2)
    }

    /// Squaring (Chung–Hasan SQR2).
    pub(crate) fn square(&self) -> Self {
        with_fp_mul!(|m| self.square_g(m))
    }

    fn square_g<M: FpMul>(&self, m: M) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let s0 = a0.square_g(m);
        let s1 = a0.mul_g(m, a1);
        let s1 = s1.add(&s1);
        let s2 = a0.sub(a1).add(a2).square_g(m);
        let s3 = a1.mul_g(m, a2);
        let s3 = s3.add(&s3);
        let s4 = a2.square_g(m);
        let c0 = s0.add_mul_v(&s3);
        let c1 = s1.add_mul_v(&s4);
        let c2 = s1.add(&s2).add(&s3).sub(&s0).sub(&s4);
        Self::new(c0, c1, c2)
    }

    /// Multiplication by a sparse element c0 + c2·w² with c2 = (k, 0) ∈ F_p² ⊂ F_p⁴: the
    /// shape of every Miller-loop line here.
    pub(crate) fn mul_line(&self, l0: &Fp4, l2: &Fp2) -> Self {
        with_fp_mul!(|m| self.mul_line_g(m, l0, l2))
    }

    fn mul_line_g<M: FpMul>(&self, m: M, l0: &Fp4, l2: &Fp2) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        // (a0 + a1w + a2w²)(l0 + l2w²) with w³ = v:
        // c0 = a0l0 + a1l2·v, c1 = a1l0 + a2l2·v, c2 = a2l0 + a0l2, where the last is
        // (a0 + a2)(l0 + l2) - a0l0 - a2l2 (Karatsuba on the pair (a0, a2)): 13 F_p²
        // products instead of 15 (each F_p⁴ × F_p⁴ is 3, each F_p⁴ × F_p² is 2).
        let v0 = a0.mul_g(m, l0);
        let v2 = a2.mul_fp2_g(m, l2);
        let l0l2 = Fp4::new(l0.c0.add(l2), l0.c1);
        let c2 = a0.add(a2).mul_g(m, &l0l2).sub(&v0).sub(&v2);
        let c0 = v0.add_mul_v(&a1.mul_fp2_g(m, l2));
        let c1 = a1.mul_g(m, l0).add_mul_v(&v2);
        Self::new(c0, c1, c2)
    }

    /// Squaring in the cyclotomic subgroup (elements of order dividing p⁴ - p² + 1, as
    /// after the final exponentiation's easy part): Granger and Scott, "Faster squaring
    /// in the cyclotomic subgroup of sixth degree extensions" (PKC 2010), with
    /// F_p¹² = F_q⁶ = F_q²\[w\]/(w³ - v) for q = p²: (a0 + a1w + a2w²)² =
    /// (3a0² - 2ā0) + (3v·a2² + 2ā1)w + (3a1² - 2ā2)w², ā the conjugate v ↦ -v.
    pub(crate) fn cyclotomic_square(&self) -> Self {
        with_fp_mul!(|m| self.cyclotomic_square_g(m))
    }

    fn cyclotomic_square_g<M: FpMul>(&self, m: M) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let s0 = a0.square_g(m);
        let s1 = a1.square_g(m);
        let s2 = a2.square_g(m).mul_v();
        // 3s - 2ā = s + 2(s - ā) and 3s + 2ā = s + 2(s + ā), with s ∓ ā formed
        // componentwise (ā = (a.c0, -a.c1)): 12 F_p additions per coefficient instead of 18.
        let minus_conj = |s: &Fp4, a: &Fp4| {
            let d = Fp4::new(s.c0.sub(&a.c0), s.c1.add(&a.c1));
            s.add(&d.add(&d))
        };
        let plus_conj = |s: &Fp4, a: &Fp4| {
            let d = Fp4::new(s.c0.add(&a.c0), s.c1.sub(&a.c1));
            s.add(&d.add(&d))
        };
        let c0 = minus_conj(&s0, a0);
        let c1 = plus_conj(&s2, a1);
        let c2 = minus_conj(&s1, a2);
        Self::new(c0, c1, c2)
    }

    /// Inverse over the cubic extension (zero maps to zero).
    pub(crate) fn invert(&self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let t0 = a0.square().sub(&a1.mul(a2).mul_v());
        let t1 = a2.square().mul_v().sub(&a0.mul(a1));
        let t2 = a1.square().sub(&a0.mul(a2));
        let det = a0.mul(&t0).add(&a2.mul(&t1).add(&a1.mul(&t2)).mul_v());
        let di = det.invert();
        Self::new(t0.mul(&di), t1.mul(&di), t2.mul(&di))
    }

    /// self^(p⁶): w ↦ -w, which negates the odd powers of w (w, w³ = v, w⁵).
    pub(crate) fn conj(&self) -> Self {
        Self::new(self.c0.conj(), self.c1.conj().neg(), self.c2.conj())
    }

    /// self^p: the coefficient of w^j (j = 0..5, w³ = v) becomes its conjugate times γ^j.
    pub(crate) fn frobenius(&self) -> Self {
        let c0 = Fp4::new(self.c0.c0.conj(), self.c0.c1.conj().mul_fp(&GAMMA3));
        let c1 = Fp4::new(
            self.c1.c0.conj().mul_fp(&GAMMA1),
            self.c1.c1.conj().mul_fp(&GAMMA4),
        );
        let c2 = Fp4::new(
            self.c2.c0.conj().mul_fp(&GAMMA2),
            self.c2.c1.conj().mul_fp(&GAMMA5),
        );
        Self::new(c0, c1, c2)
    }

    /// `b` where `mask` is all ones, `a` where it is zero: all 48 limbs under one mask
    /// that passes the optimisation barrier once (the table scans of the G_T powers).
    #[inline(always)]
    pub(crate) fn select(mask: u64, a: &Self, b: &Self) -> Self {
        // `black_box` (a memory round trip) rather than the register-only barrier: the scan
        // then ANDs each limb with the mask from memory, which measured faster here.
        let m = shangmi_dispatch::ct::opaque_const(mask);
        let f = |x: &Fp, y: &Fp| Fp(shangmi_limbs::select_masked(m, &y.0, &x.0));
        let f2 = |x: &Fp2, y: &Fp2| Fp2::new(f(&x.c0, &y.c0), f(&x.c1, &y.c1));
        let f4 = |x: &Fp4, y: &Fp4| Fp4::new(f2(&x.c0, &y.c0), f2(&x.c1, &y.c1));
        Self::new(f4(&a.c0, &b.c0), f4(&a.c1, &b.c1), f4(&a.c2, &b.c2))
    }

    /// The 384-byte encoding of GM/T 0044-2016 part 1 (as GmSSL and gmsm write it): the
    /// coefficients from the highest power down, each F_p² coefficient as (u-part, 1-part).
    pub(crate) fn to_bytes(&self) -> [u8; 384] {
        let mut out = [0u8; 384];
        let parts = [
            self.c2.c1.c1,
            self.c2.c1.c0,
            self.c2.c0.c1,
            self.c2.c0.c0,
            self.c1.c1.c1,
            self.c1.c1.c0,
            self.c1.c0.c1,
            self.c1.c0.c0,
            self.c0.c1.c1,
            self.c0.c1.c0,
            self.c0.c0.c1,
            self.c0.c0.c0,
        ];
        for (chunk, x) in out.chunks_exact_mut(32).zip(parts.iter()) {
            chunk.copy_from_slice(&x.to_bytes());
        }
        out
    }

    /// self^e for a public exponent of up to 64 bits (variable time in `e` only).
    #[cfg(test)]
    pub(crate) fn pow_u64(&self, e: u64) -> Self {
        let mut r = Self::ONE;
        let mut i = 64;
        while i > 0 {
            i -= 1;
            r = r.square();
            if (e >> i) & 1 == 1 {
                r = r.mul(self);
            }
        }
        r
    }

    /// self^k for a secret 256-bit exponent (the reference for the faster
    /// [`crate::pairing::gt_pow`]): a fixed 4-bit window whose table entry is
    /// read by a masked scan of all 16 entries (constant time in `k` and `self`).
    #[cfg(test)]
    pub(crate) fn pow_ct(&self, k: &Limbs) -> Self {
        let table = crate::window::powers(Self::ONE, *self, Self::mul);
        let mut r = Self::ONE;
        for w in (0..64).rev() {
            if w != 63 {
                r = r.square().square().square().square();
            }
            r = r.mul(&crate::window::scan(
                &table,
                crate::window::nibble(k, w),
                Self::select,
            ));
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Fp12 {
        let f = |s| Fp::from_hex(s);
        let a = Fp2::new(
            f("3722755292130B08D2AAB97FD34EC120EE265948D19C17ABF9B7213BAF82D65B"),
            f("85AEF3D078640C98597B6027B441A01FF1DD2C190F5E93C454806C11D8806141"),
        );
        let b = Fp2::new(
            f("A7CF28D519BE3DA65F3170153D278FF247EFBA98A71A08116215BBA5C999A7C7"),
            f("17509B092E845C1266BA0D262CBEE6ED0736A96FA347C8BD856DC76B84EBEB96"),
        );
        Fp12::new(
            Fp4::new(a, b),
            Fp4::new(b, a.square()),
            Fp4::new(a.mul(&b), b.square()),
        )
    }

    #[test]
    fn frobenius_constants() {
        // gmsm v0.44 internal/sm9/bn256/constants.go: frobConstant (w^(p-1)),
        // w2ToPMinus1, vToPMinus1.
        assert_eq!(
            GAMMA1,
            Fp::from_hex("3f23ea58e5720bdb843c6cfa9c08674947c5c86e0ddd04eda91d8354377b698b")
        );
        assert_eq!(
            GAMMA2,
            Fp::from_hex("0000000000000000f300000002a3a6f2780272354f8b78f4d5fc11967be65334")
        );
        assert_eq!(
            GAMMA3,
            Fp::from_hex("6c648de5dc0a3f2cf55acc93ee0baf159f9d411806dc5177f5b21fd3da24d011")
        );
    }

    #[test]
    fn field_laws() {
        let x = sample();
        let y = x.frobenius().square();
        assert_eq!(x.mul(&y), y.mul(&x));
        assert_eq!(x.square(), x.mul(&x));
        assert_eq!(x.mul(&x.invert()), Fp12::ONE);
        // Frobenius is the p-th power: check on F_p² and via the order of frobenius (12).
        let mut z = x;
        for _ in 0..12 {
            z = z.frobenius();
        }
        assert_eq!(z, x);
        let mut z = x;
        for _ in 0..6 {
            z = z.frobenius();
        }
        assert_eq!(z, x.conj());
        assert_eq!(x.frobenius().mul(&y.frobenius()), x.mul(&y).frobenius());
        let l0 = x.c1;
        let l2 = x.c2.c0;
        let sparse = Fp12::new(l0, Fp4::ZERO, Fp4::new(l2, Fp2::ZERO));
        assert_eq!(x.mul_line(&l0, &l2), x.mul(&sparse));
        let k = [0x1234_5678_9abc_def0, 7, 0, 1 << 60];
        let mut slow = Fp12::ONE;
        for i in (0..256).rev() {
            slow = slow.square();
            if (k[i / 64] >> (i % 64)) & 1 == 1 {
                slow = slow.mul(&x);
            }
        }
        assert_eq!(x.pow_ct(&k), slow);
        assert_eq!(x.pow_u64(5), x.square().square().mul(&x));
    }
}
