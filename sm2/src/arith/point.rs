//! Points on y² = x³ - 3x + b in Jacobian coordinates (x = X/Z², y = Y/Z³, infinity Z = 0).
//! The formulas are arranged as OpenSSL's `ecp_nistz256` arranges them (few additions and
//! small multiples; the doubling is dbl-2001-b of the Explicit-Formulas Database).

use super::field::FieldElement;
use super::limbs;

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
    pub x: FieldElement,
    /// y coordinate.
    pub y: FieldElement,
}

/// Jacobian point.
#[derive(Clone, Copy, Debug)]
pub struct Jacobian {
    /// X.
    pub x: FieldElement,
    /// Y.
    pub y: FieldElement,
    /// Z (0 for infinity).
    pub z: FieldElement,
}

/// A Jacobian point with Z² and Z³ kept beside it, for points added many times (the
/// verification table): each addition then saves a squaring and a multiplication.
#[derive(Clone, Copy, Debug)]
pub struct Cached {
    /// The point.
    pub p: Jacobian,
    /// Z².
    zz: FieldElement,
    /// Z³.
    zzz: FieldElement,
}

impl Cached {
    /// `p` with its Z² and Z³.
    #[inline(always)]
    pub fn new(p: &Jacobian) -> Cached {
        let zz = p.z.square();
        Cached {
            p: *p,
            zz,
            zzz: zz.multiply(&p.z),
        }
    }

    /// Negation.
    #[inline(always)]
    pub fn neg(&self) -> Cached {
        Cached {
            p: self.p.neg(),
            ..*self
        }
    }
}

impl Affine {
    /// The generator G (used by build.rs and the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub const fn generator() -> Affine {
        Affine {
            x: FieldElement::from_canonical(&limbs::from_be_bytes(&GX)),
            y: FieldElement::from_canonical(&limbs::from_be_bytes(&GY)),
        }
    }

    /// As a Jacobian point with Z = 1.
    #[inline(always)]
    pub const fn to_jacobian(self) -> Jacobian {
        Jacobian {
            x: self.x,
            y: self.y,
            z: FieldElement::ONE,
        }
    }

    /// The uncompressed SEC1 encoding `04` ‖ x ‖ y (a TLS 1.3 `curveSM2` key share).
    pub fn to_uncompressed(self) -> [u8; 65] {
        let mut out = [0u8; 65];
        out[0] = 4;
        out[1..33].copy_from_slice(&self.x.to_be_bytes());
        out[33..].copy_from_slice(&self.y.to_be_bytes());
        out
    }

    /// Negation.
    #[inline(always)]
    pub fn neg(&self) -> Affine {
        Affine {
            x: self.x,
            y: self.y.neg(),
        }
    }

    /// All ones iff y² = x³ - 3x + b (peer key shares in `ecdh`, and the tests).
    pub fn on_curve(&self) -> u64 {
        const COEFF_B: FieldElement = FieldElement::from_canonical(&limbs::from_be_bytes(&B));
        let x3 = self.x.square().multiply(&self.x);
        let three_x = self.x.double().add(&self.x);
        let rhs = x3.sub(&three_x).add(&COEFF_B);
        self.y.square().eq_mask(&rhs)
    }
}

impl Jacobian {
    /// The point at infinity.
    pub const INFINITY: Jacobian = Jacobian {
        x: FieldElement::ONE,
        y: FieldElement::ONE,
        z: FieldElement::ZERO,
    };

    /// All ones iff this is the point at infinity.
    #[inline(always)]
    pub const fn is_infinity(&self) -> u64 {
        self.z.is_zero_mask()
    }

    /// `a` where `mask` is all ones, else `b`.
    #[inline(always)]
    pub fn select(mask: u64, a: &Jacobian, b: &Jacobian) -> Jacobian {
        Jacobian {
            x: FieldElement::select(mask, &a.x, &b.x),
            y: FieldElement::select(mask, &a.y, &b.y),
            z: FieldElement::select(mask, &a.z, &b.z),
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

    /// Doubling for a = -3 (4M + 4S), arranged as in OpenSSL's `ecp_nistz256_point_double`
    /// to need few additions: with S = (2Y)², M = 3(X - Z²)(X + Z²) and T = S·X (= 4XY²),
    /// X3 = M² - 2T, Y3 = M(T - X3) - S²/2, Z3 = 2Y·Z. Infinity (Z = 0) maps to infinity.
    #[inline(always)]
    pub fn double(&self) -> Jacobian {
        self.double_co_z().0
    }

    /// [`Self::double`], also returning this point on the result's Z ("DBLU" of the co-Z
    /// formulas): scaled by λ = Z3/Z = 2Y it is (4XY², 8Y⁴, Z3) = (T, S²/2, Z3), two values the
    /// doubling computes anyway.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    fn double_co_z(&self) -> (Jacobian, Jacobian) {
        let y2 = self.y.double();
        let zz = self.z.square();
        let s = y2.square();
        let z3 = y2.multiply(&self.z);
        let t = self.x.sub(&zz).multiply(&self.x.add(&zz));
        let m = t.double().add(&t);
        let tx = s.multiply(&self.x);
        let x3 = m.square().sub(&tx.double());
        let ss = s.square().half();
        let y3 = tx.sub(&x3).multiply(&m).sub(&ss);
        (
            Jacobian {
                x: x3,
                y: y3,
                z: z3,
            },
            Jacobian {
                x: tx,
                y: ss,
                z: z3,
            },
        )
    }

    /// Mixed addition (8M + 3S) with no case handling, in the arrangement of OpenSSL's
    /// `ecp_nistz256_point_add_affine` (few additions): H = X2·Z1² - X1, R = Y2·Z1³ - Y1,
    /// X3 = R² - H³ - 2·X1·H², Y3 = R·(X1·H² - X3) - Y1·H³, Z3 = H·Z1. Returns the result and
    /// masks that are all ones iff H = 0 (same x: the result is then wrong unless the caller
    /// handles it) and iff R = 0. `self` must not be infinity.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn add_affine_unchecked(&self, q: &Affine) -> (Jacobian, u64, u64) {
        let zz = self.z.square();
        let u2 = zz.multiply(&q.x);
        let s2 = zz.multiply(&self.z).multiply(&q.y);
        let h = u2.sub(&self.x);
        let r = s2.sub(&self.y);
        Self::add_tail(&self.x, &self.y, &h, &r, &self.z, None)
    }

    /// The common end of both additions: with U1, S1 the first point's X, Y scaled to the
    /// common denominator, X3 = R² - H³ - 2·U1·H², Y3 = R·(U1·H² - X3) - S1·H³ and
    /// Z3 = H·Z1, or H·(Z1·Z2) where the second point has a Z; with the masks that are all
    /// ones iff H = 0 and iff R = 0.
    #[inline(always)]
    fn add_tail(
        u1: &FieldElement,
        s1: &FieldElement,
        h: &FieldElement,
        r: &FieldElement,
        z1: &FieldElement,
        z2: Option<&FieldElement>,
    ) -> (Jacobian, u64, u64) {
        let hh = h.square();
        let hhh = hh.multiply(h);
        let v = hh.multiply(u1);
        let x = r.square().sub(&hhh).sub(&v.double());
        let y = v.sub(&x).multiply(r).sub(&hhh.multiply(s1));
        let z = match z2 {
            Some(z2) => h.multiply(&z1.multiply(z2)),
            None => h.multiply(z1),
        };
        (Jacobian { x, y, z }, h.is_zero_mask(), r.is_zero_mask())
    }

    /// Full addition with no case handling, the second point's Z² and Z³ given (11M + 3S), as
    /// OpenSSL's `ecp_nistz256_point_add` arranges it: U1 = X1·Z2², U2 = X2·Z1², S1 = Y1·Z2³,
    /// S2 = Y2·Z1³, H = U2 - U1, R = S2 - S1, then [`Self::add_tail`] and Z3 = H·Z1·Z2; the
    /// masks as in `add_affine_unchecked`.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    fn add_cached_unchecked(&self, q: &Cached) -> (Jacobian, u64, u64) {
        let z1z1 = self.z.square();
        let u1 = self.x.multiply(&q.zz);
        let u2 = z1z1.multiply(&q.p.x);
        let s1 = self.y.multiply(&q.zzz);
        let s2 = z1z1.multiply(&self.z).multiply(&q.p.y);
        let h = u2.sub(&u1);
        let r = s2.sub(&s1);
        Self::add_tail(&u1, &s1, &h, &r, &self.z, Some(&q.p.z))
    }

    /// Addition of a [`Cached`] point handling every case, variable time (public data only).
    pub fn add_cached_vartime(&self, q: &Cached) -> Jacobian {
        if self.is_infinity() != 0 {
            return q.p;
        }
        if q.p.is_infinity() != 0 {
            return *self;
        }
        let (s, h0, r0) = self.add_cached_unchecked(q);
        if h0 != 0 {
            if r0 != 0 {
                return self.double();
            }
            return Jacobian::INFINITY;
        }
        s
    }

    /// Addition handling every case, variable time (public data only): 12M + 4S with the
    /// second point's Z² and Z³ computed here (build.rs and the fast profile's per-key table).
    #[cfg_attr(shangmi_sm2_profile = "size", allow(dead_code))]
    pub fn add_vartime(&self, q: &Jacobian) -> Jacobian {
        self.add_cached_vartime(&Cached::new(q))
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

    /// P1 + P2 and P1 on the sum's Z, for P1 and P2 on the same Z with P1 ≠ ±P2 ("ZADDU",
    /// 5M + 2S): H = X2 - X1, R = Y2 - Y1, W1 = X1·H², W2 = X2·H², A1 = Y1·(W2 - W1); the sum
    /// is (R² - W1 - W2, R(W1 - X3) - A1, Z·H) and P1 becomes (W1, A1, Z·H).
    fn zaddu(p1: &Jacobian, p2: &Jacobian) -> (Jacobian, Jacobian) {
        let h = p2.x.sub(&p1.x);
        let r = p2.y.sub(&p1.y);
        let c = h.square();
        let w1 = c.multiply(&p1.x);
        let w2 = c.multiply(&p2.x);
        let a1 = w2.sub(&w1).multiply(&p1.y);
        let x3 = r.square().sub(&w1).sub(&w2);
        let z3 = h.multiply(&p1.z);
        let sum = Jacobian {
            x: x3,
            y: w1.sub(&x3).multiply(&r).sub(&a1),
            z: z3,
        };
        (
            sum,
            Jacobian {
                x: w1,
                y: a1,
                z: z3,
            },
        )
    }

    /// P, 3P, .., (2N - 1)P for an affine point P of order above 2N, variable time (public
    /// points only), by co-Z additions: [`Self::double_co_z`], then each odd multiple as
    /// (2k - 1)P + 2P with both addends on one Z ([`Self::zaddu`], which also returns 2P on the
    /// sum's Z for the next step). Co-Z formulas: Meloni, "New point addition formulae for
    /// ECC applications" (WAIFI 2007), in the form of Goundar, Joye and Miyaji, "Co-Z
    /// addition formulae and binary ladders" (CHES 2010). No case handling is needed:
    /// (2k - 1)P = ±2P would need 2k - 1 ∓ 2 ≡ 0 modulo P's order.
    pub fn odd_multiples<const N: usize>(p: &Affine) -> [Jacobian; N] {
        let (mut two, first) = p.to_jacobian().double_co_z();
        let mut out = [first; N];
        for k in 1..N {
            (out[k], two) = Self::zaddu(&two, &out[k - 1]);
        }
        out
    }

    /// P, 2P, .., NP for an affine point P of order above N + 1, variable time (public points
    /// only): [`Self::double_co_z`], then (k + 1)P = P + kP by [`Self::zaddu`], which also
    /// returns P on the sum's Z for the next step (kP = ±P would need k ∓ 1 ≡ 0 modulo the
    /// order).
    pub fn multiples<const N: usize>(p: &Affine) -> [Jacobian; N] {
        let (two, mut one) = p.to_jacobian().double_co_z();
        let mut out = [p.to_jacobian(); N];
        if N > 1 {
            out[1] = two;
        }
        for k in 2..N {
            (out[k], one) = Self::zaddu(&one, &out[k - 1]);
        }
        out
    }

    /// Affine forms of `N` points, none of them infinity, with one inversion (Montgomery's
    /// trick: prefix products of the Z, one inversion, then the individual inverses walking
    /// back), constant time (public-key encryption's C1 and k·P, a key pool's batches).
    pub fn batch_to_affine<const N: usize>(points: &[Jacobian; N]) -> [Affine; N] {
        Self::batch_to_affine_with(points, FieldElement::invert_or_zero)
    }

    /// [`Self::batch_to_affine`] with the inversion in variable time: for public points only.
    pub fn batch_to_affine_vartime<const N: usize>(points: &[Jacobian; N]) -> [Affine; N] {
        Self::batch_to_affine_with(points, FieldElement::invert_vartime)
    }

    #[inline(always)]
    fn batch_to_affine_with<const N: usize>(
        points: &[Jacobian; N],
        invert: impl Fn(&FieldElement) -> FieldElement,
    ) -> [Affine; N] {
        let mut prefix = [FieldElement::ONE; N];
        let mut acc = FieldElement::ONE;
        for (pre, p) in prefix.iter_mut().zip(points) {
            *pre = acc;
            acc = acc.multiply(&p.z);
        }
        let mut inv = invert(&acc);
        let mut out = [Affine {
            x: FieldElement::ZERO,
            y: FieldElement::ZERO,
        }; N];
        for i in (0..N).rev() {
            let zi = inv.multiply(&prefix[i]);
            inv = inv.multiply(&points[i].z);
            let zi2 = zi.square();
            out[i] = Affine {
                x: points[i].x.multiply(&zi2),
                y: points[i].y.multiply(&zi2.multiply(&zi)),
            };
        }
        out
    }

    /// Affine form and a mask that is all ones iff the point is not infinity (then the
    /// coordinates returned are zero).
    pub fn to_affine(self) -> (Affine, u64) {
        let zi = self.z.invert_or_zero();
        let zi2 = zi.square();
        let zi3 = zi2.multiply(&zi);
        (
            Affine {
                x: self.x.multiply(&zi2),
                y: self.y.multiply(&zi3),
            },
            !self.is_infinity(),
        )
    }
}
