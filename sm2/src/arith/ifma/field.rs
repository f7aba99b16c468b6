//! The SM2 base field in eight lanes: one element per 64-bit lane of a 512-bit register,
//! five limbs of 52 bits (one register per limb), Montgomery form with R = 2^260, products
//! by AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`: the low and the high 52 bits of a 52×52-bit
//! product added to a 64-bit lane). The layout and the operand-scanning reduction are the
//! ones of Gueron and Krasnov, "Accelerating big integer arithmetic using Intel IFMA
//! extensions" (ARITH 2016), which Intel's crypto_mb uses for its `mb8` curves.
//!
//! Values are kept below 2p (R = 2^260 > 4p lets a product of two such values come out
//! below 2p with no final subtraction) and normalised (limbs below 2^52, as IFMA reads
//! 52 bits of each factor); the conversion out and the zero test reduce below p. Lane masks
//! (`__mmask8`) select; no branch and no address depends on a value.
#![allow(unsafe_code)]

use super::super::field::P;
use super::super::limbs::{self, Limbs};
use core::arch::x86_64::{
    __m512i, __mmask8, _mm512_add_epi64, _mm512_and_si512, _mm512_cmpeq_epi64_mask,
    _mm512_cmplt_epi64_mask, _mm512_loadu_si512, _mm512_madd52hi_epu64, _mm512_madd52lo_epu64,
    _mm512_mask_add_epi64, _mm512_mask_blend_epi64, _mm512_or_si512, _mm512_set1_epi64,
    _mm512_setzero_si512, _mm512_slli_epi64, _mm512_srai_epi64, _mm512_srli_epi64,
    _mm512_storeu_si512, _mm512_sub_epi64, _mm512_test_epi64_mask,
};

/// 2^52 - 1.
const MASK: u64 = (1 << 52) - 1;

/// A 256-bit value (below 2^256) as five 52-bit limbs, least significant first.
const fn to52(a: &Limbs) -> [u64; 5] {
    [
        a[0] & MASK,
        (a[0] >> 52 | a[1] << 12) & MASK,
        (a[1] >> 40 | a[2] << 24) & MASK,
        (a[2] >> 28 | a[3] << 36) & MASK,
        a[3] >> 16,
    ]
}

/// 2^e mod p for e >= 256 (2^256 mod p = 2^256 - p, then doublings).
const fn pow2_mod_p(e: u32) -> Limbs {
    let (mut r, _) = limbs::sub(&[0; 4], &P);
    let mut i = 256;
    while i < e {
        r = limbs::add_mod(&r, &r, &P);
        i += 1;
    }
    r
}

/// p in 52-bit limbs.
const P52: [u64; 5] = to52(&P);
/// 2p in 52-bit limbs (2p < 2^257).
const P52X2: [u64; 5] = {
    let mut r = [0u64; 5];
    let mut carry = 0;
    let mut j = 0;
    while j < 5 {
        let v = 2 * P52[j] + carry;
        r[j] = if j < 4 { v & MASK } else { v };
        carry = v >> 52;
        j += 1;
    }
    r
};
/// 2^256 mod p: the Montgomery product of a·2^260 with it is a·2^256.
const FROM_LANES: [u64; 5] = to52(&pow2_mod_p(256));
/// 1 in Montgomery form (2^260 mod p).
const ONE: [u64; 5] = to52(&pow2_mod_p(260));

/// Eight field elements, lane i of each limb's register holding element i.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fe8([__m512i; 5]);

/// A constant in every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn splat(c: &[u64; 5]) -> [__m512i; 5] {
    c.map(|w| _mm512_set1_epi64(w as i64))
}

/// Eight 64-bit words as a register.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn load(w: &[u64; 8]) -> __m512i {
    // SAFETY: reads the 64 bytes of `w` (an unaligned load).
    unsafe { _mm512_loadu_si512(w.as_ptr().cast()) }
}

/// A register's eight 64-bit words.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn store(v: __m512i) -> [u64; 8] {
    let mut w = [0u64; 8];
    // SAFETY: writes the 64 bytes of `w` (an unaligned store).
    unsafe { _mm512_storeu_si512(w.as_mut_ptr().cast(), v) };
    w
}

/// Carries each limb's bits above 52 into the next, signed (a negative limb borrows from
/// the next); the top limb keeps its own. The value must not be negative.
#[inline]
#[target_feature(enable = "avx512f")]
fn normalize(mut t: [__m512i; 5]) -> [__m512i; 5] {
    let m = _mm512_set1_epi64(MASK as i64);
    for j in 0..4 {
        let c = _mm512_srai_epi64::<52>(t[j]);
        t[j] = _mm512_and_si512(t[j], m);
        t[j + 1] = _mm512_add_epi64(t[j + 1], c);
    }
    t
}

/// `t - m` where `t >= m`, else `t`, for normalised `t < 2m` (m = p or 2p, in 52-bit limbs).
#[inline]
#[target_feature(enable = "avx512f")]
fn reduce_once(t: [__m512i; 5], modulus: &[u64; 5]) -> [__m512i; 5] {
    let m = _mm512_set1_epi64(MASK as i64);
    let p = splat(modulus);
    let mut d = [_mm512_setzero_si512(); 5];
    let mut borrow = _mm512_setzero_si512();
    for j in 0..5 {
        let x = _mm512_add_epi64(_mm512_sub_epi64(t[j], p[j]), borrow);
        borrow = _mm512_srai_epi64::<52>(x);
        d[j] = _mm512_and_si512(x, m);
    }
    // A borrow out of the top limb: t < p, keep t.
    let below = _mm512_cmplt_epi64_mask(borrow, _mm512_setzero_si512());
    core::array::from_fn(|j| _mm512_mask_blend_epi64(below, d[j], t[j]))
}

impl Fe8 {
    /// Zero in every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn zero() -> Fe8 {
        Fe8([_mm512_setzero_si512(); 5])
    }

    /// One in every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn one() -> Fe8 {
        Fe8(splat(&ONE))
    }

    /// From eight values in the scalar field's form (a·2^256 mod p as 4×64-bit limbs),
    /// given limb-major: `w[j]` holds limb j of the eight values. a·2^260 is 16 times the
    /// value: its 52-bit limbs are the words shifted by 4 more bits, and its bits 256..259
    /// (h) fold back as h·(2^224 + 2^96 - 2^64 + 1) ≡ h·2^256, leaving a value below
    /// 2^256 + 2^229 < 2p.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn from_wide(w: &[__m512i; 4]) -> Fe8 {
        let m = _mm512_set1_epi64(MASK as i64);
        let top = _mm512_srli_epi64::<12>(w[3]);
        let h = _mm512_srli_epi64::<48>(top);
        let l = [
            _mm512_add_epi64(_mm512_and_si512(_mm512_slli_epi64::<4>(w[0]), m), h),
            _mm512_add_epi64(
                _mm512_and_si512(
                    _mm512_or_si512(_mm512_srli_epi64::<48>(w[0]), _mm512_slli_epi64::<16>(w[1])),
                    m,
                ),
                _mm512_sub_epi64(_mm512_slli_epi64::<44>(h), _mm512_slli_epi64::<12>(h)),
            ),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<36>(w[1]), _mm512_slli_epi64::<28>(w[2])),
                m,
            ),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<24>(w[2]), _mm512_slli_epi64::<40>(w[3])),
                m,
            ),
            _mm512_add_epi64(
                _mm512_and_si512(top, _mm512_set1_epi64((1 << 48) - 1)),
                _mm512_slli_epi64::<16>(h),
            ),
        ];
        Fe8(normalize(l))
    }

    /// The eight values in the scalar field's form, limb-major (the inverse of
    /// [`Self::from_wide`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn to_wide(self) -> [__m512i; 4] {
        let l = reduce_once(self.mul(&Fe8(splat(&FROM_LANES))).0, &P52);
        [
            _mm512_or_si512(l[0], _mm512_slli_epi64::<52>(l[1])),
            _mm512_or_si512(_mm512_srli_epi64::<12>(l[1]), _mm512_slli_epi64::<40>(l[2])),
            _mm512_or_si512(_mm512_srli_epi64::<24>(l[2]), _mm512_slli_epi64::<28>(l[3])),
            _mm512_or_si512(_mm512_srli_epi64::<36>(l[3]), _mm512_slli_epi64::<16>(l[4])),
        ]
    }

    /// From eight values in the scalar field's form (Montgomery limbs, each below p).
    #[cfg(test)]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn from_limbs(v: &[Limbs; 8]) -> Fe8 {
        Fe8::from_wide(&core::array::from_fn(|j| {
            load(&core::array::from_fn(|lane| v[lane][j]))
        }))
    }

    /// The same values as their representatives in [p, 2p) (reduced below p, then p
    /// added): for the tests of such inputs, which the operations take and return.
    #[cfg(test)]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn plus_p(&self) -> Fe8 {
        let (p, r) = (splat(&P52), reduce_once(self.0, &P52));
        Fe8(normalize(core::array::from_fn(|j| {
            _mm512_add_epi64(r[j], p[j])
        })))
    }

    /// The eight values in the scalar field's form (Montgomery limbs).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn to_limbs(self) -> [Limbs; 8] {
        let wide = self.to_wide();
        let w: [[u64; 8]; 4] = core::array::from_fn(|j| store(wide[j]));
        core::array::from_fn(|lane| core::array::from_fn(|j| w[j][lane]))
    }

    /// Montgomery product a·b·2^-260 mod p: per limb of `rhs`, the five products with it
    /// (IFMA), then the reduction step by the quotient q = t mod 2^52 (-p^-1 ≡ 1 mod 2^52,
    /// as p ≡ -1), whose q·p = q·(2^256 - 2^224 - 2^96 + 2^64 - 1) is added by shifts: the
    /// low limb becomes a multiple of 2^52 and is shifted out. Limbs are signed 64-bit
    /// accumulators until the end (at most about 2^58 in magnitude), normalised once.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn mul(&self, rhs: &Fe8) -> Fe8 {
        let a = &self.0;
        let m = _mm512_set1_epi64(MASK as i64);
        let zero = _mm512_setzero_si512();
        let mut t = [zero; 6];
        for b in rhs.0 {
            for j in 0..5 {
                t[j] = _mm512_madd52lo_epu64(t[j], a[j], b);
                t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a[j], b);
            }
            let q = _mm512_and_si512(t[0], m);
            // t0 - q·1 is t0's high part times 2^52, carried into t1.
            let carry = _mm512_srai_epi64::<52>(t[0]);
            // q·2^64 and -q·2^96 at limb 1 (2^52·2^12, 2^52·2^44) and limb 2.
            let t1 = _mm512_add_epi64(
                _mm512_add_epi64(t[1], carry),
                _mm512_sub_epi64(
                    _mm512_and_si512(_mm512_slli_epi64::<12>(q), m),
                    _mm512_and_si512(_mm512_slli_epi64::<44>(q), m),
                ),
            );
            let t2 = _mm512_add_epi64(
                t[2],
                _mm512_sub_epi64(_mm512_srli_epi64::<40>(q), _mm512_srli_epi64::<8>(q)),
            );
            // q·2^256 and -q·2^224 at limb 4 (2^208·2^48, 2^208·2^16) and limb 5.
            let t4 = _mm512_add_epi64(
                t[4],
                _mm512_sub_epi64(
                    _mm512_and_si512(_mm512_slli_epi64::<48>(q), m),
                    _mm512_and_si512(_mm512_slli_epi64::<16>(q), m),
                ),
            );
            let t5 = _mm512_add_epi64(
                t[5],
                _mm512_sub_epi64(_mm512_srli_epi64::<4>(q), _mm512_srli_epi64::<36>(q)),
            );
            t = [t1, t2, t[3], t4, t5, zero];
        }
        // (a·b + Q·p)/2^260 < (4p/2^260 + 1)·p < 2p for a, b < 2p.
        Fe8(normalize([t[0], t[1], t[2], t[3], t[4]]))
    }

    /// Square.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn square(&self) -> Fe8 {
        self.mul(self)
    }

    /// Sum (below 4p, less 2p where it is at least 2p).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn add(&self, rhs: &Fe8) -> Fe8 {
        let s = core::array::from_fn(|j| _mm512_add_epi64(self.0[j], rhs.0[j]));
        Fe8(reduce_once(normalize(s), &P52X2))
    }

    /// Twice `self`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn double(&self) -> Fe8 {
        self.add(self)
    }

    /// Difference: limb-wise with the borrow carried, 2p added back in the lanes that
    /// borrowed out of the top limb (the 2^260 the borrow stands for dropped with it).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn sub(&self, rhs: &Fe8) -> Fe8 {
        let m = _mm512_set1_epi64(MASK as i64);
        let p = splat(&P52X2);
        let mut d = [_mm512_setzero_si512(); 5];
        let mut borrow = _mm512_setzero_si512();
        for ((d, a), b) in d.iter_mut().zip(&self.0).zip(&rhs.0) {
            let x = _mm512_add_epi64(_mm512_sub_epi64(*a, *b), borrow);
            borrow = _mm512_srai_epi64::<52>(x);
            *d = _mm512_and_si512(x, m);
        }
        let r = core::array::from_fn(|j| _mm512_add_epi64(d[j], _mm512_and_si512(p[j], borrow)));
        let mut r = normalize(r);
        r[4] = _mm512_and_si512(r[4], m);
        Fe8(r)
    }

    /// Negation.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn neg(&self) -> Fe8 {
        Fe8::zero().sub(self)
    }

    /// Half: (a + p)/2 in the lanes where a is odd (below 3p/2), a/2 elsewhere.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn half(&self) -> Fe8 {
        let m = _mm512_set1_epi64(MASK as i64);
        let p = splat(&P52);
        let odd = _mm512_test_epi64_mask(self.0[0], _mm512_set1_epi64(1));
        let v = normalize(core::array::from_fn(|j| {
            _mm512_mask_add_epi64(self.0[j], odd, self.0[j], p[j])
        }));
        Fe8(core::array::from_fn(|j| {
            let low = _mm512_srli_epi64::<1>(v[j]);
            if j < 4 {
                _mm512_or_si512(low, _mm512_and_si512(_mm512_slli_epi64::<51>(v[j + 1]), m))
            } else {
                low
            }
        }))
    }

    /// The lanes that hold zero (0 or p).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn is_zero(&self) -> __mmask8 {
        let l = &reduce_once(self.0, &P52);
        let or = _mm512_or_si512(
            _mm512_or_si512(l[0], l[1]),
            _mm512_or_si512(_mm512_or_si512(l[2], l[3]), l[4]),
        );
        _mm512_cmpeq_epi64_mask(or, _mm512_setzero_si512())
    }

    /// `a` in the lanes of `mask`, `b` in the others.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn select(mask: __mmask8, a: &Fe8, b: &Fe8) -> Fe8 {
        Fe8(core::array::from_fn(|j| {
            _mm512_mask_blend_epi64(mask, b.0[j], a.0[j])
        }))
    }
}
