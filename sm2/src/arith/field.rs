//! Arithmetic modulo the SM2 prime p = 2^256 - 2^224 - 2^96 + 2^64 - 1 (GB/T 32918.5), in the
//! Montgomery domain with R = 2^256. Since p ≡ -1 (mod 2^64), -p^-1 mod 2^64 = 1 and each
//! reduction step's quotient digit is the low limb itself. Constant time throughout.

use super::inv;
use super::limbs::{self, Limbs, adc, mac, sbb};

/// p, little-endian limbs.
pub const P: Limbs = [
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFF_0000_0000,
    0xFFFF_FFFF_FFFF_FFFF,
    0xFFFF_FFFE_FFFF_FFFF,
];
const PINV: u64 = limbs::mont_minv(P[0]);
const R2: Limbs = limbs::mont_r2(&P);

/// The 512-bit product a·b (schoolbook, operand scanning).
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
const fn product(a: &Limbs, b: &Limbs) -> [u64; 8] {
    let mut r = [0u64; 8];
    let mut i = 0;
    while i < 4 {
        let (r0, c) = mac(r[i], a[i], b[0], 0);
        let (r1, c) = mac(r[i + 1], a[i], b[1], c);
        let (r2, c) = mac(r[i + 2], a[i], b[2], c);
        let (r3, c) = mac(r[i + 3], a[i], b[3], c);
        r[i] = r0;
        r[i + 1] = r1;
        r[i + 2] = r2;
        r[i + 3] = r3;
        r[i + 4] = c;
        i += 1;
    }
    r
}

/// The 512-bit square a² (six cross products doubled plus four squares).
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
const fn square(a: &Limbs) -> [u64; 8] {
    let (r1, c) = mac(0, a[0], a[1], 0);
    let (r2, c) = mac(0, a[0], a[2], c);
    let (r3, r4) = mac(0, a[0], a[3], c);
    let (r3, c) = mac(r3, a[1], a[2], 0);
    let (r4, r5) = mac(r4, a[1], a[3], c);
    let (r5, r6) = mac(r5, a[2], a[3], 0);
    let r7 = r6 >> 63;
    let r6 = (r6 << 1) | (r5 >> 63);
    let r5 = (r5 << 1) | (r4 >> 63);
    let r4 = (r4 << 1) | (r3 >> 63);
    let r3 = (r3 << 1) | (r2 >> 63);
    let r2 = (r2 << 1) | (r1 >> 63);
    let r1 = r1 << 1;
    let (r0, c) = mac(0, a[0], a[0], 0);
    let (r1, c) = adc(r1, c, 0);
    let (s2, s3) = mac(0, a[1], a[1], 0);
    let (r2, c) = adc(r2, s2, c);
    let (r3, c) = adc(r3, s3, c);
    let (s4, s5) = mac(0, a[2], a[2], 0);
    let (r4, c) = adc(r4, s4, c);
    let (r5, c) = adc(r5, s5, c);
    let (s6, s7) = mac(0, a[3], a[3], 0);
    let (r6, c) = adc(r6, s6, c);
    let (r7, _) = adc(r7, s7, c);
    [r0, r1, r2, r3, r4, r5, r6, r7]
}

/// Montgomery reduction T·2^-256 mod p for T < p·2^256, without multiplications.
///
/// Each step adds q·p for q = the lowest limb (valid since -p^-1 ≡ 1 mod 2^64). Relative to
/// the next limb, q·p/2^64 contributes X = q·(2^192 - 2^160 - 2^32 + 1) = w·2^160 - w with
/// w = q·(2^32 - 1) = (q << 32) - q, a 96-bit value, so X is built from shifts.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
const fn redc(t: &[u64; 8]) -> Limbs {
    let mut t = *t;
    let mut top = 0u64;
    let mut i = 0;
    while i < 4 {
        let q = t[i];
        let (w_lo, b) = sbb(q << 32, q, 0);
        let w_hi = (q >> 32) - b;
        let (x0, b) = sbb(0, w_lo, 0);
        let (x1, b) = sbb(0, w_hi, b);
        let (x2, b) = sbb(w_lo << 32, 0, b);
        let (x3, _) = sbb((w_lo >> 32) | (w_hi << 32), 0, b);
        let (v, c) = adc(t[i + 1], x0, 0);
        t[i + 1] = v;
        let (v, c) = adc(t[i + 2], x1, c);
        t[i + 2] = v;
        let (v, c) = adc(t[i + 3], x2, c);
        t[i + 3] = v;
        let (v, mut c) = adc(t[i + 4], x3, c);
        t[i + 4] = v;
        let mut j = i + 5;
        while j < 8 {
            let (v, c2) = adc(t[j], 0, c);
            t[j] = v;
            c = c2;
            j += 1;
        }
        top += c;
        i += 1;
    }
    // The result t[4..8] + top·2^256 is below 2p: subtract p once if needed.
    let r = [t[4], t[5], t[6], t[7]];
    let (d, borrow) = limbs::sub(&r, &P);
    let (_, below) = sbb(top, 0, borrow);
    limbs::select(below.wrapping_neg(), &r, &d)
}

/// `x` unchanged, but opaque to the optimiser: masks derived from secrets go through it before
/// they select, so LLVM cannot turn `(a & m) | (b & !m)` into a branch or an indexed load
/// (it did both in the table scans until the memcheck test caught it). An empty `asm!` on
/// x86-64, `black_box` elsewhere.
#[inline(always)]
pub fn opaque(x: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    return super::field_x86::opaque(x);
    #[cfg(not(target_arch = "x86_64"))]
    return core::hint::black_box(x);
}

/// `d + p` if `bit` is 1, `d` if it is 0 (mod 2^256), through an opaque mask.
#[inline(always)]
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
fn add_masked_p(d: &Limbs, bit: u64) -> Limbs {
    let m = opaque(bit.wrapping_neg());
    limbs::add(d, &[P[0] & m, P[1] & m, P[2] & m, P[3] & m]).0
}

/// A field element in Montgomery form (value·2^256 mod p), always fully reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fe(pub Limbs);

impl Fe {
    /// 0.
    pub const ZERO: Fe = Fe([0; 4]);
    /// 1 (that is, R mod p).
    pub const ONE: Fe = Fe::from_canonical(&[1, 0, 0, 0]);

    /// From a canonical integer below p.
    pub const fn from_canonical(a: &Limbs) -> Fe {
        Fe(limbs::mont_mul(a, &R2, &P, PINV))
    }

    /// From 32 big-endian bytes; the mask is all ones iff the integer was below p.
    pub const fn from_bytes(b: &[u8; 32]) -> (Fe, u64) {
        let a = limbs::from_be_bytes(b);
        let ok = limbs::lt_mask(&a, &P);
        let a = limbs::select(ok, &a, &[0; 4]);
        (Fe::from_canonical(&a), ok)
    }

    /// Canonical integer value.
    pub const fn to_canonical(self) -> Limbs {
        limbs::mont_mul(&self.0, &[1, 0, 0, 0], &P, PINV)
    }

    /// 32 big-endian bytes of the canonical value.
    pub const fn to_bytes(self) -> [u8; 32] {
        limbs::to_be_bytes(&self.to_canonical())
    }

    /// Product (portable Rust: the reference for the assembly, and the code on every other
    /// architecture).
    #[inline(always)]
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub const fn mul_soft(&self, b: &Fe) -> Fe {
        Fe(redc(&product(&self.0, &b.0)))
    }

    /// Square (portable Rust).
    #[inline(always)]
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub const fn sqr_soft(&self) -> Fe {
        Fe(redc(&square(&self.0)))
    }

    /// Product. On x86-64 with ADX `self` reaches the assembly in registers and `b` through
    /// memory, so the point formulas pass the value computed last as `self`. Inlined into
    /// the point formulas, except in the size profile (one shared copy).
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn mul(&self, b: &Fe) -> Fe {
        #[cfg(target_arch = "x86_64")]
        return Fe(super::field_x86::mul(&self.0, &b.0));
        #[cfg(not(target_arch = "x86_64"))]
        return self.mul_soft(b);
    }

    /// Square (out of line in the size profile, as [`Fe::mul`]).
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn sqr(&self) -> Fe {
        #[cfg(target_arch = "x86_64")]
        return Fe(super::field_x86::sqr(&self.0));
        #[cfg(not(target_arch = "x86_64"))]
        return self.sqr_soft();
    }

    /// `self^(2^k)`.
    #[inline(always)]
    pub fn sqr_n(&self, k: u32) -> Fe {
        let mut t = *self;
        let mut i = 0;
        while i < k {
            t = t.sqr();
            i += 1;
        }
        t
    }

    /// Sum (portable Rust) as a - (p - b): two of the subtractions below, which LLVM compiles
    /// into tight `sub`/`sbb` chains, where the direct a + b - p form came out twice as slow.
    #[inline(always)]
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub fn add_soft(&self, b: &Fe) -> Fe {
        self.sub_soft(&Fe::ZERO.sub_soft(b))
    }

    /// Difference (portable Rust): a - b, plus p under an [`opaque`] mask if it borrowed.
    #[inline(always)]
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub fn sub_soft(&self, b: &Fe) -> Fe {
        let (d, borrow) = limbs::sub(&self.0, &b.0);
        Fe(add_masked_p(&d, borrow))
    }

    /// Sum.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn add(&self, b: &Fe) -> Fe {
        #[cfg(target_arch = "x86_64")]
        return Fe(super::field_x86::add(&self.0, &b.0));
        #[cfg(not(target_arch = "x86_64"))]
        return self.add_soft(b);
    }

    /// Difference.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn sub(&self, b: &Fe) -> Fe {
        #[cfg(target_arch = "x86_64")]
        return Fe(super::field_x86::sub(&self.0, &b.0));
        #[cfg(not(target_arch = "x86_64"))]
        return self.sub_soft(b);
    }

    /// Half (portable Rust): plus p under the low bit's mask, then a 257-bit shift right.
    #[inline(always)]
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub fn half_soft(&self) -> Fe {
        let (s, carry) = limbs::add(&self.0, &add_masked_p(&[0; 4], self.0[0] & 1));
        Fe([
            (s[0] >> 1) | (s[1] << 63),
            (s[1] >> 1) | (s[2] << 63),
            (s[2] >> 1) | (s[3] << 63),
            (s[3] >> 1) | (carry << 63),
        ])
    }

    /// Half: self·2^-1 mod p.
    #[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
    #[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
    pub fn half(&self) -> Fe {
        #[cfg(target_arch = "x86_64")]
        return Fe(super::field_x86::half(&self.0));
        #[cfg(not(target_arch = "x86_64"))]
        return self.half_soft();
    }

    /// Twice `self`.
    #[inline(always)]
    pub fn double(&self) -> Fe {
        self.add(self)
    }

    /// Negation.
    #[inline(always)]
    pub fn neg(&self) -> Fe {
        Fe::ZERO.sub(self)
    }

    /// All ones iff zero.
    #[inline(always)]
    pub const fn is_zero(&self) -> u64 {
        limbs::is_zero_mask(&self.0)
    }

    /// All ones iff equal.
    #[inline(always)]
    pub const fn ct_eq(&self, b: &Fe) -> u64 {
        limbs::eq_mask(&self.0, &b.0)
    }

    /// `a` where `mask` is all ones, else `b`, with the mask hidden from the optimiser (see
    /// [`opaque`]).
    #[inline(always)]
    pub fn select(mask: u64, a: &Fe, b: &Fe) -> Fe {
        let m = opaque(mask);
        Fe([
            (a.0[0] & m) | (b.0[0] & !m),
            (a.0[1] & m) | (b.0[1] & !m),
            (a.0[2] & m) | (b.0[2] & !m),
            (a.0[3] & m) | (b.0[3] & !m),
        ])
    }

    /// Inverse, 0 for 0: constant-time safegcd ([`super::inv`]) on the Montgomery
    /// representative x·R, giving x^-1·R^-1, then one multiplication by R^3.
    pub fn invert(&self) -> Fe {
        const MODULUS: inv::Modulus = inv::Modulus::new(&P);
        const R3: Fe = Fe(limbs::mont_mul(&R2, &R2, &P, PINV));
        Fe(inv::invert(&self.0, &MODULUS)).mul(&R3)
    }

    /// Inverse by Fermat (`self^(p-2)`), 0 for 0: the reference for [`Fe::invert`]. The
    /// addition chain follows the bit pattern of p - 2 = 1^31 0 1^128 0^32 1^32 1^30 0 1 (most
    /// significant first): 255 squarings and 14 multiplications.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn invert_fermat(&self) -> Fe {
        let x1 = *self;
        let x2 = x1.sqr().mul(&x1);
        let x3 = x2.sqr().mul(&x1);
        let x6 = x3.sqr_n(3).mul(&x3);
        let x12 = x6.sqr_n(6).mul(&x6);
        let x15 = x12.sqr_n(3).mul(&x3);
        let x30 = x15.sqr_n(15).mul(&x15);
        let x31 = x30.sqr().mul(&x1);
        let x32 = x31.sqr().mul(&x1);
        // 1^31 0
        let mut t = x31.sqr();
        // 1^128
        let mut i = 0;
        while i < 4 {
            t = t.sqr_n(32).mul(&x32);
            i += 1;
        }
        // 0^32 then 1^32
        t = t.sqr_n(64).mul(&x32);
        // 1^30
        t = t.sqr_n(30).mul(&x30);
        // 0 1
        t.sqr_n(2).mul(&x1)
    }
}
