//! The SM2 base field in eight lanes: one element per 64-bit lane of a 512-bit register,
//! five limbs of 52 bits (one register per limb), Montgomery form with R = 2^260, products
//! by AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`: the low and the high 52 bits of a 52×52-bit
//! product added to a 64-bit lane). The layout and the operand-scanning reduction are the
//! ones of Gueron and Krasnov, "Accelerating big integer arithmetic using Intel IFMA
//! extensions" (ARITH 2016), which Intel's crypto_mb uses for its `mb8` curves.
//!
//! Every value an operation returns is fully reduced (below p) and normalised (limbs below
//! 2^52), so equality with zero is a comparison of limbs. Lane masks (`__mmask8`) select;
//! no branch and no address depends on a value.
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
/// 2^264 mod p: the Montgomery product of a·2^256 (the scalar field's form) with it is
/// a·2^260 (this one's).
const TO_LANES: [u64; 5] = to52(&pow2_mod_p(264));
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

/// Carries each limb's bits above 52 into the next (the top limb keeps its own).
#[inline]
#[target_feature(enable = "avx512f")]
fn normalize(mut t: [__m512i; 5]) -> [__m512i; 5] {
    let m = _mm512_set1_epi64(MASK as i64);
    for j in 0..4 {
        let c = _mm512_srli_epi64::<52>(t[j]);
        t[j] = _mm512_and_si512(t[j], m);
        t[j + 1] = _mm512_add_epi64(t[j + 1], c);
    }
    t
}

/// `t - p` where `t >= p`, else `t`, for normalised `t < 2p`.
#[inline]
#[target_feature(enable = "avx512f")]
fn reduce_once(t: [__m512i; 5]) -> [__m512i; 5] {
    let m = _mm512_set1_epi64(MASK as i64);
    let p = splat(&P52);
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
    /// given limb-major: `w[j]` holds limb j of the eight values.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn from_wide(w: &[__m512i; 4]) -> Fe8 {
        let m = _mm512_set1_epi64(MASK as i64);
        let limbs52 = [
            _mm512_and_si512(w[0], m),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<52>(w[0]), _mm512_slli_epi64::<12>(w[1])),
                m,
            ),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<40>(w[1]), _mm512_slli_epi64::<24>(w[2])),
                m,
            ),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<28>(w[2]), _mm512_slli_epi64::<36>(w[3])),
                m,
            ),
            _mm512_srli_epi64::<16>(w[3]),
        ];
        Fe8(limbs52).mul(&Fe8(splat(&TO_LANES)))
    }

    /// The eight values in the scalar field's form, limb-major (the inverse of
    /// [`Self::from_wide`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn to_wide(self) -> [__m512i; 4] {
        let l = self.mul(&Fe8(splat(&FROM_LANES))).0;
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

    /// The eight values in the scalar field's form (Montgomery limbs).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn to_limbs(self) -> [Limbs; 8] {
        let wide = self.to_wide();
        let w: [[u64; 8]; 4] = core::array::from_fn(|j| store(wide[j]));
        core::array::from_fn(|lane| core::array::from_fn(|j| w[j][lane]))
    }

    /// Montgomery product a·b·2^-260 mod p: per limb of `rhs`, the five products with it,
    /// then the quotient q = t mod 2^52 (-p^-1 ≡ 1 mod 2^52, as p ≡ -1) and q·p, after
    /// which the low limb is zero and is shifted out. Columns accumulate in 64-bit lanes
    /// (at most about 2^57) and are normalised once at the end.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn mul(&self, rhs: &Fe8) -> Fe8 {
        let (a, p) = (&self.0, splat(&P52));
        let zero = _mm512_setzero_si512();
        let mut t = [zero; 6];
        for b in rhs.0 {
            for j in 0..5 {
                t[j] = _mm512_madd52lo_epu64(t[j], a[j], b);
                t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a[j], b);
            }
            // IFMA reads the low 52 bits of each factor: t[0] is its own quotient.
            let q = t[0];
            for j in 0..5 {
                t[j] = _mm512_madd52lo_epu64(t[j], q, p[j]);
                t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], q, p[j]);
            }
            let carry = _mm512_srli_epi64::<52>(t[0]);
            t = [_mm512_add_epi64(t[1], carry), t[2], t[3], t[4], t[5], zero];
        }
        // (a·b + Q·p)/2^260 < 2p for a, b < p.
        Fe8(reduce_once(normalize([t[0], t[1], t[2], t[3], t[4]])))
    }

    /// Square.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(crate) fn square(&self) -> Fe8 {
        self.mul(self)
    }

    /// Sum.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn add(&self, rhs: &Fe8) -> Fe8 {
        let s = core::array::from_fn(|j| _mm512_add_epi64(self.0[j], rhs.0[j]));
        Fe8(reduce_once(normalize(s)))
    }

    /// Twice `self`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn double(&self) -> Fe8 {
        self.add(self)
    }

    /// Difference: limb-wise with the borrow carried, p added back in the lanes that
    /// borrowed out of the top limb (the 2^260 the borrow stands for dropped with it).
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn sub(&self, rhs: &Fe8) -> Fe8 {
        let m = _mm512_set1_epi64(MASK as i64);
        let p = splat(&P52);
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

    /// Half: (a + p)/2 in the lanes where a is odd, a/2 elsewhere.
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

    /// The lanes that hold zero.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(crate) fn is_zero(&self) -> __mmask8 {
        let l = &self.0;
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
