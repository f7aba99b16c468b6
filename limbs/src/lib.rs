#![doc = include_str!("../README.md")]
#![no_std]
//!
//! ## Why a crate of its own
//!
//! SM2 and SM9 share no other code: `shangmi-sm9` does not depend on `shangmi-sm2` (and
//! would pull in the `elliptic-curve` stack with it), and `shangmi-dispatch`, the one crate
//! both depend on, holds backend tables, CPU probes and the constant-time helpers, not
//! arithmetic. So the layer both fields are built on is this crate, between the two: it
//! depends on `shangmi-dispatch` only for [`shangmi_dispatch::ct`]'s barrier, and
//! `shangmi-sm2`'s build script uses it too (the fixed-base tables are computed with the
//! library's own arithmetic).

#[cfg(target_arch = "x86_64")]
pub mod x86;

use shangmi_dispatch::ct;

/// Four 64-bit limbs, least significant first.
pub type Limbs = [u64; 4];

/// A 512-bit value (an unreduced product), eight limbs, least significant first.
pub type Wide = [u64; 8];

/// A modulus for the x86-64 forms: its limbs and -m^-1 mod 2^64, in the order the `asm!`
/// reads them (limb i at byte 8i, the inverse at byte 32).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub struct Modulus {
    /// The modulus, odd, between 2^255 and 2^256.
    pub m: Limbs,
    /// -m^-1 mod 2^64 ([`mont_minv`]).
    pub minv: u64,
}

impl Modulus {
    /// The modulus `m` with its Montgomery constant.
    pub const fn new(m: &Limbs) -> Self {
        Self {
            m: *m,
            minv: mont_minv(m[0]),
        }
    }
}

/// `a + b + carry`, returning (sum, carry out).
#[inline(always)]
pub const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// `a - b - borrow` (borrow in {0, 1}), returning (difference, borrow out in {0, 1}).
#[inline(always)]
pub const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    // Two overflowing subtractions (at most one borrows): LLVM turns this into `sbb`, where
    // the 128-bit form compiled to add/adc/sar sequences.
    let (d, b1) = a.overflowing_sub(b);
    let (d, b2) = d.overflowing_sub(borrow);
    (d, (b1 | b2) as u64)
}

/// `acc + a * b + carry`, returning (low, high).
#[inline(always)]
pub const fn mac(acc: u64, a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = acc as u128 + (a as u128) * (b as u128) + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// The four-limb chain of `$op` ([`adc`] or [`sbb`]) over `$a` and `$b`, least significant
/// limb first: (the four result limbs, the final carry or borrow), written out limb by limb.
macro_rules! chain4 {
    ($op:ident, $a:ident, $b:ident) => {{
        let (r0, c) = $op($a[0], $b[0], 0);
        let (r1, c) = $op($a[1], $b[1], c);
        let (r2, c) = $op($a[2], $b[2], c);
        let (r3, c) = $op($a[3], $b[3], c);
        ([r0, r1, r2, r3], c)
    }};
}

/// `a + b`, returning (sum mod 2^256, carry).
#[inline(always)]
pub const fn add(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    chain4!(adc, a, b)
}

/// `a - b`, returning (difference mod 2^256, borrow).
#[inline(always)]
pub const fn sub(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    chain4!(sbb, a, b)
}

/// `a` where `mask` is all ones, `b` where it is zero, the mask first hidden from the
/// optimiser ([`ct::opaque_const`]) so that it cannot learn that the mask is
/// all-zeros-or-all-ones and compile the select into a branch: LLVM did exactly that to
/// SM2's modular additions until the memcheck test caught it.
#[inline(always)]
pub const fn select(mask: u64, a: &Limbs, b: &Limbs) -> Limbs {
    select_masked(ct::opaque_const(mask), a, b)
}

/// [`select`] for a mask that has already passed a barrier (one barrier for many selects
/// under the same mask). Three operations a limb, `b ^ ((a ^ b) & m)`, where
/// `(a & m) | (b & !m)` takes four without BMI1's `andn` (SM9's table scans select
/// thousands of limbs per exponentiation).
#[inline(always)]
pub const fn select_masked(m: u64, a: &Limbs, b: &Limbs) -> Limbs {
    [
        b[0] ^ ((a[0] ^ b[0]) & m),
        b[1] ^ ((a[1] ^ b[1]) & m),
        b[2] ^ ((a[2] ^ b[2]) & m),
        b[3] ^ ((a[3] ^ b[3]) & m),
    ]
}

/// All ones if `a` is zero, else zero.
#[inline(always)]
pub const fn is_zero_mask(a: &Limbs) -> u64 {
    let t = a[0] | a[1] | a[2] | a[3];
    // (t | -t) has its top bit set exactly when t != 0.
    ((t | t.wrapping_neg()) >> 63).wrapping_sub(1)
}

/// All ones if `a == b`, else zero.
#[inline(always)]
pub const fn eq_mask(a: &Limbs, b: &Limbs) -> u64 {
    is_zero_mask(&[a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]])
}

/// All ones if `a < b`, else zero.
#[inline(always)]
pub const fn lt_mask(a: &Limbs, b: &Limbs) -> u64 {
    let (_, borrow) = sub(a, b);
    borrow.wrapping_neg()
}

/// `(a + b) mod m` for `a, b < m`.
#[inline(always)]
pub const fn add_mod(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    let (s, carry) = add(a, b);
    let (d, borrow) = sub(&s, m);
    // The true sum is s + carry·2^256; it is below m iff the subtraction borrowed past the carry.
    let (_, below) = sbb(carry, 0, borrow);
    select(below.wrapping_neg(), &s, &d)
}

/// `(a - b) mod m` for `a, b < m`.
#[inline(always)]
pub const fn sub_mod(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    let (d, borrow) = sub(a, b);
    add(&d, &and_mask(m, ct::opaque_const(borrow.wrapping_neg()))).0
}

/// `a` with every limb ANDed with `mask` (a multiple of the modulus to add under a mask).
#[inline(always)]
pub const fn and_mask(a: &Limbs, mask: u64) -> Limbs {
    [a[0] & mask, a[1] & mask, a[2] & mask, a[3] & mask]
}

/// `a - m` if `a >= m`, else `a` (for `a < 2m`).
#[inline(always)]
pub const fn reduce_once(a: &Limbs, m: &Limbs) -> Limbs {
    let (d, borrow) = sub(a, m);
    select(borrow.wrapping_neg(), a, &d)
}

/// Montgomery product `a·b·2^-256 mod m` for `a, b < m`, `m` odd, `minv = -m^-1 mod 2^64`
/// (CIOS, Koç–Acar–Kaliski 1996), fully reduced. Out of line in SM2's size profile (one
/// shared copy).
#[cfg_attr(not(shangmi_sm2_profile = "size"), inline(always))]
#[cfg_attr(shangmi_sm2_profile = "size", inline(never))]
pub const fn mont_mul(a: &Limbs, b: &Limbs, m: &Limbs, minv: u64) -> Limbs {
    let mut t = [0u64; 4];
    let mut t4 = 0u64;
    let mut i = 0;
    while i < 4 {
        let (t0, c) = mac(t[0], a[0], b[i], 0);
        let (t1, c) = mac(t[1], a[1], b[i], c);
        let (t2, c) = mac(t[2], a[2], b[i], c);
        let (t3, c) = mac(t[3], a[3], b[i], c);
        let (t4a, t5) = adc(t4, c, 0);
        let q = t0.wrapping_mul(minv);
        let (_, c) = mac(t0, q, m[0], 0);
        let (r0, c) = mac(t1, q, m[1], c);
        let (r1, c) = mac(t2, q, m[2], c);
        let (r2, c) = mac(t3, q, m[3], c);
        let (r3, c) = adc(t4a, c, 0);
        t = [r0, r1, r2, r3];
        t4 = t5 + c;
        i += 1;
    }
    // Here t < 2m (with t4 its 257th bit): subtract m once if t >= m.
    let (d, borrow) = sub(&t, m);
    let (_, below) = sbb(t4, 0, borrow);
    select(below.wrapping_neg(), &t, &d)
}

/// `-m^-1 mod 2^64` for odd `m0` (Newton iteration, doubling correct bits each step).
pub const fn mont_minv(m0: u64) -> u64 {
    let mut inv = 1u64;
    let mut i = 0;
    while i < 7 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
}

/// `2^512 mod m` for `2^255 < m < 2^256` (to enter the Montgomery domain).
pub const fn mont_r2(m: &Limbs) -> Limbs {
    // 2^256 mod m = 2^256 - m.
    let (mut r, _) = sub(&[0, 0, 0, 0], m);
    let mut i = 0;
    while i < 256 {
        r = add_mod(&r, &r, m);
        i += 1;
    }
    r
}

/// The 512-bit product a·b (schoolbook, operand scanning).
#[inline(always)]
pub const fn mul_wide(a: &Limbs, b: &Limbs) -> Wide {
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
#[inline(always)]
pub const fn square_wide(a: &Limbs) -> Wide {
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

/// Big-endian bytes to limbs.
#[inline]
pub const fn from_be_bytes(b: &[u8; 32]) -> Limbs {
    let mut r = [0u64; 4];
    let mut i = 0;
    while i < 4 {
        let mut w = 0u64;
        let mut j = 0;
        while j < 8 {
            w = (w << 8) | b[(3 - i) * 8 + j] as u64;
            j += 1;
        }
        r[i] = w;
        i += 1;
    }
    r
}

/// Limbs to big-endian bytes.
#[inline]
pub const fn to_be_bytes(a: &Limbs) -> [u8; 32] {
    let mut r = [0u8; 32];
    let mut i = 0;
    while i < 4 {
        let w = a[3 - i].to_be_bytes();
        let mut j = 0;
        while j < 8 {
            r[i * 8 + j] = w[j];
            j += 1;
        }
        i += 1;
    }
    r
}

/// Up to 64 hexadecimal digits, most significant first, as limbs (for constants: panics,
/// at compile time in a `const`, on any other character or a longer string).
pub const fn from_hex(s: &str) -> Limbs {
    let b = s.as_bytes();
    assert!(b.len() <= 64, "more than 64 hexadecimal digits");
    let pad = 64 - b.len();
    let mut r = [0u64; 4];
    let mut i = pad;
    while i < 64 {
        let c = b[i - pad];
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => panic!("not a hexadecimal digit"),
        };
        r[3 - i / 16] |= (d as u64) << (4 * (15 - (i % 16)));
        i += 1;
    }
    r
}

/// `floor(a / d)` for a nonzero divisor `d` (for constants such as (p - 1)/12; variable
/// time).
pub const fn div_small(a: &Limbs, d: u64) -> Limbs {
    let mut r = [0u64; 4];
    let mut rem: u128 = 0;
    let mut i = 4;
    while i > 0 {
        i -= 1;
        let cur = (rem << 64) | a[i] as u128;
        r[i] = (cur / d as u128) as u64;
        rem = cur % d as u128;
    }
    r
}

#[cfg(test)]
mod tests;
