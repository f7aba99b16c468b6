//! 256-bit integers as four little-endian 64-bit limbs: carry chains, constant-time selection and
//! Montgomery multiplication (CIOS, Koç–Acar–Kaliski 1996), and the conversion from and to
//! `crypto-bigint`'s words. `build.rs` includes this file to generate the fixed-base tables
//! with the same arithmetic as the library.

use primefield::bigint::Word;

/// Four 64-bit limbs, least significant first.
pub type Limbs = [u64; 4];

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

/// `a + b`, returning (sum mod 2^256, carry).
#[inline(always)]
pub const fn add(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    let (r0, c) = adc(a[0], b[0], 0);
    let (r1, c) = adc(a[1], b[1], c);
    let (r2, c) = adc(a[2], b[2], c);
    let (r3, c) = adc(a[3], b[3], c);
    ([r0, r1, r2, r3], c)
}

/// `a - b`, returning (difference mod 2^256, borrow).
#[inline(always)]
pub const fn sub(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    let (r0, c) = sbb(a[0], b[0], 0);
    let (r1, c) = sbb(a[1], b[1], c);
    let (r2, c) = sbb(a[2], b[2], c);
    let (r3, c) = sbb(a[3], b[3], c);
    ([r0, r1, r2, r3], c)
}

/// `m`, hidden from the optimiser (`black_box`, usable in `const fn`), so that it cannot learn
/// that a mask is all-zeros-or-all-ones and compile a masked select into a branch: LLVM did
/// exactly that to these modular additions until the memcheck test caught it.
#[inline(always)]
pub const fn opaque_mask(m: u64) -> u64 {
    core::hint::black_box(m)
}

/// `a` where `mask` is all ones, `b` where it is zero (the mask made opaque first).
#[inline(always)]
pub const fn select(mask: u64, a: &Limbs, b: &Limbs) -> Limbs {
    let mask = opaque_mask(mask);
    [
        (a[0] & mask) | (b[0] & !mask),
        (a[1] & mask) | (b[1] & !mask),
        (a[2] & mask) | (b[2] & !mask),
        (a[3] & mask) | (b[3] & !mask),
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
    let mask = opaque_mask(borrow.wrapping_neg());
    let (r, _) = add(&d, &[m[0] & mask, m[1] & mask, m[2] & mask, m[3] & mask]);
    r
}

/// `a - m` if `a >= m`, else `a` (for `a < 2m`).
#[inline(always)]
pub const fn reduce_once(a: &Limbs, m: &Limbs) -> Limbs {
    let (d, borrow) = sub(a, m);
    select(borrow.wrapping_neg(), a, &d)
}

/// Montgomery product `a·b·2^-256 mod m` for `a, b < m`, `m` odd, `minv = -m^-1 mod 2^64`
/// (one shared copy in the size profile).
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

/// `crypto-bigint`'s words of a 256-bit integer (64-bit words on 64-bit targets and some
/// 32-bit ones, such as Arm; 32-bit words elsewhere), least significant first.
pub type Words = [Word; 256 / Word::BITS as usize];

/// Words per limb: 1 or 2.
const PER_LIMB: usize = 64 / Word::BITS as usize;

/// The limbs of a `crypto-bigint` integer's words (the same array when words are 64-bit).
#[allow(clippy::unnecessary_cast)] // the casts matter where words are 32-bit
#[inline(always)]
pub const fn from_words(w: Words) -> Limbs {
    let mut r = [0u64; 4];
    let mut i = 0;
    while i < 4 {
        let mut j = 0;
        while j < PER_LIMB {
            r[i] |= (w[i * PER_LIMB + j] as u64) << (j as u32 * Word::BITS);
            j += 1;
        }
        i += 1;
    }
    r
}

/// Limbs as a `crypto-bigint` integer's words (the same array when words are 64-bit).
#[allow(clippy::unnecessary_cast)] // the casts matter where words are 32-bit
#[inline(always)]
pub const fn to_words(l: Limbs) -> Words {
    let mut w = [0 as Word; 256 / Word::BITS as usize];
    let mut i = 0;
    while i < 4 {
        let mut j = 0;
        while j < PER_LIMB {
            w[i * PER_LIMB + j] = (l[i] >> (j as u32 * Word::BITS)) as Word;
            j += 1;
        }
        i += 1;
    }
    w
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
