//! k·G for eight scalars at once: the scalar comb's schedule and formulas
//! (`super::super::mul`, `super::super::point`) over eight lanes of [`Fe8`], each comb table
//! scanned once for all eight (every entry read, each lane keeping the one its digit names
//! under a lane mask), the special cases of the additions selected per lane.
#![allow(unsafe_code)]

use super::field::{Fe8, load};
use crate::arith::field::FieldElement;
use crate::arith::limbs::Limbs;
use crate::arith::mul::{COMB, COMB_STEPS, COMB_W, COMB_WINDOWS, recode};
use crate::arith::point::{Affine, Jacobian};
use core::arch::x86_64::{
    __m512i, __mmask8, _mm512_abs_epi64, _mm512_add_epi64, _mm512_cmpeq_epi64_mask,
    _mm512_cmplt_epi64_mask, _mm512_mask_blend_epi64, _mm512_set1_epi64, _mm512_setzero_si512,
};

/// Eight affine points.
#[derive(Clone, Copy)]
pub(super) struct Affine8 {
    x: Fe8,
    y: Fe8,
}

/// Eight Jacobian points (Z = 0 for infinity).
#[derive(Clone, Copy)]
pub(super) struct Jacobian8 {
    x: Fe8,
    y: Fe8,
    z: Fe8,
}

impl Affine8 {
    /// Eight affine points in the scalar code's form, one a lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn from_affines(p: &[Affine; 8]) -> Affine8 {
        let lanes = |f: &dyn Fn(&Affine) -> Limbs| -> Fe8 {
            let l = p.map(|p| f(&p));
            Fe8::from_wide(&core::array::from_fn(|j| {
                load(&core::array::from_fn(|lane| l[lane][j]))
            }))
        };
        Affine8 {
            x: lanes(&|p| p.x.limbs()),
            y: lanes(&|p| p.y.limbs()),
        }
    }

    /// `a` in the lanes of `mask`, `b` in the others.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn select(mask: __mmask8, a: &Affine8, b: &Affine8) -> Affine8 {
        Affine8 {
            x: Fe8::select(mask, &a.x, &b.x),
            y: Fe8::select(mask, &a.y, &b.y),
        }
    }

    /// Zero coordinates in every lane (a scan's starting value).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn zero() -> Affine8 {
        Affine8 {
            x: Fe8::zero(),
            y: Fe8::zero(),
        }
    }

    /// As Jacobian points with Z = 1.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn to_jacobian(self) -> Jacobian8 {
        Jacobian8 {
            x: self.x,
            y: self.y,
            z: Fe8::one(),
        }
    }
}

impl Jacobian8 {
    /// The point at infinity in every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn infinity() -> Jacobian8 {
        Jacobian8 {
            x: Fe8::one(),
            y: Fe8::one(),
            z: Fe8::zero(),
        }
    }

    /// `a` in the lanes of `mask`, `b` in the others.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn select(mask: __mmask8, a: &Jacobian8, b: &Jacobian8) -> Jacobian8 {
        Jacobian8 {
            x: Fe8::select(mask, &a.x, &b.x),
            y: Fe8::select(mask, &a.y, &b.y),
            z: Fe8::select(mask, &a.z, &b.z),
        }
    }

    /// Doubling for a = -3, the formula of [`Jacobian::double`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn double(&self) -> Jacobian8 {
        let y2 = self.y.double();
        let zz = self.z.square();
        let s = y2.square();
        let z3 = y2.mul(&self.z);
        let t = self.x.sub(&zz).mul(&self.x.add(&zz));
        let m = t.double().add(&t);
        let tx = s.mul(&self.x);
        let x3 = m.square().sub(&tx.double());
        let ss = s.square().half();
        let y3 = tx.sub(&x3).mul(&m).sub(&ss);
        Jacobian8 {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// Mixed addition with no case handling, the formula of
    /// [`Jacobian::add_affine_unchecked`]: the sums and the lanes where H = 0 and R = 0.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn add_affine_unchecked(&self, q: &Affine8) -> (Jacobian8, __mmask8, __mmask8) {
        let zz = self.z.square();
        let u2 = zz.mul(&q.x);
        let s2 = zz.mul(&self.z).mul(&q.y);
        let h = u2.sub(&self.x);
        let r = s2.sub(&self.y);
        let hh = h.square();
        let hhh = hh.mul(&h);
        let v = hh.mul(&self.x);
        let x3 = r.square().sub(&hhh).sub(&v.double());
        let y3 = v.sub(&x3).mul(&r).sub(&hhh.mul(&self.y));
        let z3 = h.mul(&self.z);
        (
            Jacobian8 {
                x: x3,
                y: y3,
                z: z3,
            },
            h.is_zero(),
            r.is_zero(),
        )
    }

    /// The eight points in the scalar code's form.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn to_jacobians(self) -> [Jacobian; 8] {
        let (x, y, z) = (self.x.to_limbs(), self.y.to_limbs(), self.z.to_limbs());
        core::array::from_fn(|i| Jacobian {
            x: FieldElement::from_limbs(x[i]),
            y: FieldElement::from_limbs(y[i]),
            z: FieldElement::from_limbs(z[i]),
        })
    }
}

/// For each lane, the entry |digit| of `table` (1-based; zeros for 0), every entry read:
/// one comparison of the entry's index with the eight wanted ones gives a lane mask, under
/// which the entry's limbs, broadcast, replace the lanes' accumulators.
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn lookup<const N: usize>(table: &[Affine; N], abs: __m512i) -> Affine8 {
    let one = _mm512_set1_epi64(1);
    let mut index = one;
    let mut acc = [_mm512_setzero_si512(); 8];
    for e in table {
        let keep = _mm512_cmpeq_epi64_mask(index, abs);
        let (x, y) = (e.x.limbs_at(), e.y.limbs_at());
        for j in 0..4 {
            acc[j] = _mm512_mask_blend_epi64(keep, acc[j], _mm512_set1_epi64(x[j] as i64));
            acc[4 + j] = _mm512_mask_blend_epi64(keep, acc[4 + j], _mm512_set1_epi64(y[j] as i64));
        }
        index = _mm512_add_epi64(index, one);
    }
    Affine8 {
        x: Fe8::from_wide(&[acc[0], acc[1], acc[2], acc[3]]),
        y: Fe8::from_wide(&[acc[4], acc[5], acc[6], acc[7]]),
    }
}

/// The eight lanes' accumulators and the lanes still at the identity (the scalar
/// `Accumulator` of `super::super::mul`, lane by lane), for the comb and for k·P.
pub(super) struct Accumulator8 {
    pub(super) point: Jacobian8,
    infinity: __mmask8,
}

/// Each lane's |digit| (the index a table scan looks for).
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn abs(d: __m512i) -> __m512i {
    _mm512_abs_epi64(d)
}

impl Accumulator8 {
    /// d·T for each lane's digit d, given `p` = |d|·T (the scan's result): the entry, its y
    /// negated where d < 0, and the lanes whose digit is zero.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn signed_entry(mut p: Affine8, d: __m512i) -> (Affine8, __mmask8) {
        let negative = _mm512_cmplt_epi64_mask(d, _mm512_setzero_si512());
        p.y = Fe8::select(negative, &p.y.neg(), &p.y);
        (p, _mm512_cmpeq_epi64_mask(abs(d), _mm512_setzero_si512()))
    }

    /// The first digits, on identity accumulators: d·T (the identity where d = 0), with
    /// `p` = |d|·T.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn start(p: Affine8, d: __m512i) -> Accumulator8 {
        let (p, zero) = Self::signed_entry(p, d);
        Accumulator8 {
            point: Jacobian8::select(zero, &Jacobian8::infinity(), &p.to_jacobian()),
            infinity: zero,
        }
    }

    /// Adds d·T lane by lane (`p` = |d|·T) as [`super::super::mul`]'s
    /// `Accumulator::add_digit` does: the identity accumulators take the entry, zero digits
    /// keep the accumulator, and when `last` the doubling is selected where H = R = 0 and
    /// the identity is read from Z.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn add_digit(&mut self, p: Affine8, d: __m512i, last: bool) {
        let (p, zero) = Self::signed_entry(p, d);
        let (sum, h0, r0) = self.point.add_affine_unchecked(&p);
        let mut next = sum;
        if last {
            let same = h0 & r0 & !self.infinity;
            next = Jacobian8::select(same, &self.point.double(), &next);
        }
        next = Jacobian8::select(self.infinity, &p.to_jacobian(), &next);
        self.point = Jacobian8::select(zero, &self.point, &next);
        self.infinity = if last {
            self.point.z.is_zero()
        } else {
            self.infinity & zero
        };
    }
}

/// k·G for eight canonical scalars (below n), constant time: the comb of
/// [`crate::arith::mul::mul_g`] (its schedule, tables and exceptional-case handling), lane
/// by lane.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn mul_g(k: &[Limbs; 8]) -> Jacobian8 {
    let digits = k.map(|k| recode::<COMB_W, COMB_WINDOWS>(&k));
    let window = |i: usize| load(&core::array::from_fn(|lane| digits[lane][i] as u64));
    let mut acc: Option<Accumulator8> = None;
    for step in (0..COMB_STEPS).rev() {
        if let Some(acc) = acc.as_mut().filter(|_| step + 1 < COMB_STEPS) {
            for _ in 0..COMB_W {
                acc.point = acc.point.double();
            }
        }
        for (m, table) in COMB.iter().enumerate() {
            let i = step + COMB_STEPS * m;
            if i >= COMB_WINDOWS {
                continue;
            }
            let last = step == 0 && (COMB_STEPS > 1 || i == COMB_WINDOWS - 1);
            let d = window(i);
            let p = lookup(table, abs(d));
            match acc.as_mut() {
                None => acc = Some(Accumulator8::start(p, d)),
                Some(acc) => acc.add_digit(p, d, last),
            }
        }
    }
    match acc {
        Some(acc) => acc.point,
        None => Jacobian8::infinity(),
    }
}
