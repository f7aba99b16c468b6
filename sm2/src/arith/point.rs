//! Points on y² = x³ - 3x + b in Jacobian coordinates (x = X/Z², y = Y/Z³, infinity Z = 0).
//! Formulas from the Explicit-Formulas Database (Bernstein–Lange): dbl-2001-b (a = -3),
//! add-2007-bl and madd-2007-bl.

use super::field::Fe;

/// Curve coefficient b (GB/T 32918.5 recommended curve).
pub const B: [u8; 32] = [
    0x28, 0xE9, 0xFA, 0x9E, 0x9D, 0x9F, 0x5E, 0x34, 0x4D, 0x5A, 0x9E, 0x4B, 0xCF, 0x65, 0x09, 0xA7,
    0xF3, 0x97, 0x89, 0xF5, 0x15, 0xAB, 0x8F, 0x92, 0xDD, 0xBC, 0xBD, 0x41, 0x4D, 0x94, 0x0E, 0x93,
];
/// Generator x (GB/T 32918.5).
pub const GX: [u8; 32] = [
    0x32, 0xC4, 0xAE, 0x2C, 0x1F, 0x19, 0x81, 0x19, 0x5F, 0x99, 0x04, 0x46, 0x6A, 0x39, 0xC9, 0x94,
    0x8F, 0xE3, 0x0B, 0xBF, 0xF2, 0x66, 0x0B, 0xE1, 0x71, 0x5A, 0x45, 0x89, 0x33, 0x4C, 0x74, 0xC7,
];
/// Generator y (GB/T 32918.5).
pub const GY: [u8; 32] = [
    0xBC, 0x37, 0x36, 0xA2, 0xF4, 0xF6, 0x77, 0x9C, 0x59, 0xBD, 0xCE, 0xE3, 0x6B, 0x69, 0x21, 0x53,
    0xD0, 0xA9, 0x87, 0x7C, 0xC6, 0x2A, 0x47, 0x40, 0x02, 0xDF, 0x32, 0xE5, 0x21, 0x39, 0xF0, 0xA0,
];

/// Affine point (never the point at infinity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Affine {
    /// x coordinate.
    pub x: Fe,
    /// y coordinate.
    pub y: Fe,
}

/// Jacobian point.
#[derive(Clone, Copy, Debug)]
pub struct Jacobian {
    /// X.
    pub x: Fe,
    /// Y.
    pub y: Fe,
    /// Z (0 for infinity).
    pub z: Fe,
}

impl Affine {
    /// The generator G (used by build.rs and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub const fn generator() -> Affine {
        Affine {
            x: Fe::from_bytes(&GX).0,
            y: Fe::from_bytes(&GY).0,
        }
    }

    /// As a Jacobian point with Z = 1.
    #[inline(always)]
    pub const fn to_jacobian(self) -> Jacobian {
        Jacobian {
            x: self.x,
            y: self.y,
            z: Fe::ONE,
        }
    }

    /// Negation.
    #[inline(always)]
    pub fn neg(&self) -> Affine {
        Affine {
            x: self.x,
            y: self.y.neg(),
        }
    }

    /// All ones iff y² = x³ - 3x + b (used by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn on_curve(&self) -> u64 {
        let b = Fe::from_bytes(&B).0;
        let x3 = self.x.sqr().mul(&self.x);
        let three_x = self.x.double().add(&self.x);
        let rhs = x3.sub(&three_x).add(&b);
        self.y.sqr().ct_eq(&rhs)
    }
}

impl Jacobian {
    /// The point at infinity.
    pub const INFINITY: Jacobian = Jacobian {
        x: Fe::ONE,
        y: Fe::ONE,
        z: Fe::ZERO,
    };

    /// All ones iff this is the point at infinity.
    #[inline(always)]
    pub const fn is_infinity(&self) -> u64 {
        self.z.is_zero()
    }

    /// `a` where `mask` is all ones, else `b`.
    #[inline(always)]
    pub fn select(mask: u64, a: &Jacobian, b: &Jacobian) -> Jacobian {
        Jacobian {
            x: Fe::select(mask, &a.x, &b.x),
            y: Fe::select(mask, &a.y, &b.y),
            z: Fe::select(mask, &a.z, &b.z),
        }
    }

    /// Negation.
    #[inline(always)]
    pub fn neg(&self) -> Jacobian {
        Jacobian {
            x: self.x,
            y: self.y.neg(),
            z: self.z,
        }
    }

    /// Doubling, dbl-2001-b (3M + 5S); infinity maps to infinity.
    #[inline(always)]
    pub fn double(&self) -> Jacobian {
        let delta = self.z.sqr();
        let gamma = self.y.sqr();
        let beta = self.x.mul(&gamma);
        let t = self.x.sub(&delta).mul(&self.x.add(&delta));
        let alpha = t.double().add(&t);
        let beta4 = beta.double().double();
        let x3 = alpha.sqr().sub(&beta4.double());
        let z3 = self.y.add(&self.z).sqr().sub(&gamma).sub(&delta);
        let g2 = gamma.sqr().double().double().double();
        let y3 = alpha.mul(&beta4.sub(&x3)).sub(&g2);
        Jacobian {
            x: x3,
            y: y3,
            z: z3,
        }
    }

    /// Mixed addition madd-2007-bl (7M + 4S) with no case handling. Returns the formula's result
    /// and a mask that is all ones iff `self` and `q` have the same x (H = 0): then the result
    /// is wrong unless handled by the caller. `self` must not be infinity.
    #[inline(always)]
    pub fn add_affine_unchecked(&self, q: &Affine) -> (Jacobian, u64, u64) {
        let z1z1 = self.z.sqr();
        let u2 = q.x.mul(&z1z1);
        let s2 = q.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&self.x);
        let hh = h.sqr();
        let i = hh.double().double();
        let j = h.mul(&i);
        let r = s2.sub(&self.y).double();
        let v = self.x.mul(&i);
        let x3 = r.sqr().sub(&j).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&self.y.mul(&j).double());
        let z3 = self.z.add(&h).sqr().sub(&z1z1).sub(&hh);
        (
            Jacobian {
                x: x3,
                y: y3,
                z: z3,
            },
            h.is_zero(),
            r.is_zero(),
        )
    }

    /// Full addition add-2007-bl (11M + 5S) with no case handling; see `add_affine_unchecked`.
    #[inline(always)]
    pub fn add_unchecked(&self, q: &Jacobian) -> (Jacobian, u64, u64) {
        let z1z1 = self.z.sqr();
        let z2z2 = q.z.sqr();
        let u1 = self.x.mul(&z2z2);
        let u2 = q.x.mul(&z1z1);
        let s1 = self.y.mul(&q.z).mul(&z2z2);
        let s2 = q.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&u1);
        let i = h.double().sqr();
        let j = h.mul(&i);
        let r = s2.sub(&s1).double();
        let v = u1.mul(&i);
        let x3 = r.sqr().sub(&j).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&s1.mul(&j).double());
        let z3 = self.z.add(&q.z).sqr().sub(&z1z1).sub(&z2z2).mul(&h);
        (
            Jacobian {
                x: x3,
                y: y3,
                z: z3,
            },
            h.is_zero(),
            r.is_zero(),
        )
    }

    /// Addition handling every case, variable time (public data only).
    pub fn add_vartime(&self, q: &Jacobian) -> Jacobian {
        if self.is_infinity() != 0 {
            return *q;
        }
        if q.is_infinity() != 0 {
            return *self;
        }
        let (s, h0, r0) = self.add_unchecked(q);
        if h0 != 0 {
            if r0 != 0 {
                return self.double();
            }
            return Jacobian::INFINITY;
        }
        s
    }

    /// Mixed addition handling every case, variable time (public data only).
    pub fn add_affine_vartime(&self, q: &Affine) -> Jacobian {
        if self.is_infinity() != 0 {
            return q.to_jacobian();
        }
        let (s, h0, r0) = self.add_affine_unchecked(q);
        if h0 != 0 {
            if r0 != 0 {
                return self.double();
            }
            return Jacobian::INFINITY;
        }
        s
    }

    /// Affine forms of `N` points, none of them infinity, with one inversion (Montgomery's
    /// trick: prefix products of the Z, one inversion, then the individual inverses walking
    /// back).
    pub fn batch_to_affine<const N: usize>(points: &[Jacobian; N]) -> [Affine; N] {
        let mut prefix = [Fe::ONE; N];
        let mut acc = Fe::ONE;
        for (pre, p) in prefix.iter_mut().zip(points) {
            *pre = acc;
            acc = acc.mul(&p.z);
        }
        let mut inv = acc.invert();
        let mut out = [Affine {
            x: Fe::ZERO,
            y: Fe::ZERO,
        }; N];
        for i in (0..N).rev() {
            let zi = inv.mul(&prefix[i]);
            inv = inv.mul(&points[i].z);
            let zi2 = zi.sqr();
            out[i] = Affine {
                x: points[i].x.mul(&zi2),
                y: points[i].y.mul(&zi2.mul(&zi)),
            };
        }
        out
    }

    /// Affine form and a mask that is all ones iff the point is not infinity (then the
    /// coordinates returned are zero).
    pub fn to_affine(self) -> (Affine, u64) {
        let zi = self.z.invert();
        let zi2 = zi.sqr();
        let zi3 = zi2.mul(&zi);
        (
            Affine {
                x: self.x.mul(&zi2),
                y: self.y.mul(&zi3),
            },
            !self.is_infinity(),
        )
    }
}
