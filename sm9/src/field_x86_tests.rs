//! The x86-64 forms of `field_x86.rs` against the portable arithmetic of `field.rs`, on
//! edge and random inputs.
#![allow(unsafe_code)]

use crate::field::{Fp, Limbs};
use crate::field_x86::{AdxMul, P};
use shangmi_dispatch::sm9_field::Backend;
use shangmi_limbs::mont_mul;
use shangmi_limbs::x86;

/// Edge values below p: 0, 1, p-1, p-2, the top limb's half and its neighbour, p's top
/// limb alone, one (Montgomery) and p/2.
fn edges() -> [Limbs; 9] {
    let p = Fp::MODULUS;
    let sub = |a: &Limbs, k: u64| shangmi_limbs::sub(a, &[k, 0, 0, 0]).0;
    [
        [0; 4],
        [1, 0, 0, 0],
        sub(&p, 1),
        sub(&p, 2),
        [u64::MAX, u64::MAX, u64::MAX, p[3] >> 1],
        [u64::MAX, u64::MAX, u64::MAX, p[3] - 1],
        [0, 0, 0, p[3]],
        Fp::ONE.0,
        shangmi_limbs::div_small(&p, 2),
    ]
}

#[test]
fn add_sub_match_portable() {
    use shangmi_limbs::{add_mod, sub_mod};
    let p = Fp::MODULUS;
    let edge = edges();
    let check = |a: &Limbs, b: &Limbs| {
        assert_eq!(x86::add_mod(a, b, &P), add_mod(a, b, &p), "{a:x?} + {b:x?}");
        assert_eq!(x86::sub_mod(a, b, &P), sub_mod(a, b, &p), "{a:x?} - {b:x?}");
    };
    for a in &edge {
        for b in &edge {
            check(a, b);
        }
    }
    let mut x: u64 = 0x0fed_cba9_8765_4321;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..200_000 {
        let mut a = [next(), next(), next(), next()];
        let mut b = [next(), next(), next(), next()];
        a[3] %= p[3] + 1;
        b[3] %= p[3] + 1;
        // Top limbs equal to p's: keep below p through the lower limbs.
        if a[3] == p[3] || i % 5 == 0 {
            a[3] = p[3];
            a[2] = a[2].min(p[2] - 1);
        }
        if b[3] == p[3] || i % 7 == 0 {
            b[3] = p[3];
            b[2] = b[2].min(p[2] - 1);
        }
        check(&a, &b);
        check(&b, &a);
        check(&a, &a);
    }
}

#[test]
fn lazy_fp2_product_matches_portable() {
    use crate::field::{FpMul, PortableMul};
    let Some(adx) = adx() else {
        return;
    };
    let p = Fp::MODULUS;
    let edge = edges();
    let check = |a: [Limbs; 2], b: [Limbs; 2]| {
        let (a, b) = ([Fp(a[0]), Fp(a[1])], [Fp(b[0]), Fp(b[1])]);
        let want = PortableMul.mul2([&a[0], &a[1]], [&b[0], &b[1]]);
        let got = adx.mul2([&a[0], &a[1]], [&b[0], &b[1]]);
        assert_eq!(got[0].0, want[0].0, "{a:x?} * {b:x?}");
        assert_eq!(got[1].0, want[1].0, "{a:x?} * {b:x?}");
    };
    for a0 in &edge {
        for a1 in &edge {
            for b0 in &edge {
                for b1 in &edge {
                    check([*a0, *a1], [*b0, *b1]);
                }
            }
        }
    }
    let mut x: u64 = 0x1357_9bdf_0246_8ace;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut rand = |i: u64| {
        let mut a = [next(), next(), next(), next()];
        a[3] %= p[3];
        if i.is_multiple_of(3) {
            a[3] = p[3];
            a[2] = a[2].min(p[2] - 1);
        }
        a
    };
    for i in 0..50_000 {
        check([rand(i), rand(i + 1)], [rand(i + 2), rand(i / 2)]);
    }
    // The wide pieces on their own: redc of a full product is the Montgomery product,
    // sub_wide of the extremes stays below p·2^256.
    let pm1 = edges()[2]; // p - 1
    // SAFETY: `adx` proves BMI2 and ADX.
    let w = unsafe { x86::mul_wide_adx(&pm1, &pm1) };
    // SAFETY: as above.
    let r = unsafe { x86::redc_adx(&w, &P) };
    assert_eq!(r, mont_mul(&pm1, &pm1, &p, Fp::MINV));
    let d = x86::sub_wide(&[0; 8], &w, &P);
    // 0 - w + p·2^256: the high half is p - 1 - (high half of w) - borrow.
    // SAFETY: as above.
    let back = unsafe { x86::redc_adx(&d, &P) };
    let want = Fp(mont_mul(&pm1, &pm1, &p, Fp::MINV)).neg();
    assert_eq!(back, want.0);
}

/// The `mulx` token where this CPU and build have it.
fn adx() -> Option<AdxMul> {
    shangmi_dispatch::Available::check(Backend::Adx).and_then(AdxMul::new)
}

#[test]
fn adx_matches_portable() {
    let Some(adx) = adx() else {
        return;
    };
    let p = Fp::MODULUS;
    let pm1 = shangmi_limbs::sub(&p, &[1, 0, 0, 0]).0;
    let mut edge: [Limbs; 6] = [
        [0; 4],
        [1, 0, 0, 0],
        pm1,
        [u64::MAX, u64::MAX, u64::MAX, p[3] >> 1],
        Fp::ONE.0,
        shangmi_limbs::sub(&p, &[2, 0, 0, 0]).0,
    ];
    let mut x: u64 = 0x0123_4567_89ab_cdef;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let check = |a: &Limbs, b: &Limbs| {
        let want = mont_mul(a, b, &p, Fp::MINV);
        let got = adx.mul_limbs(a, b);
        assert_eq!(got, want, "{a:x?} * {b:x?}");
    };
    for a in &edge {
        for b in &edge {
            check(a, b);
        }
    }
    for _ in 0..100_000 {
        let mut a = [next(), next(), next(), next()];
        let mut b = [next(), next(), next(), next()];
        a[3] %= p[3];
        b[3] %= p[3];
        // Values just below p too (top limbs equal to p's).
        if next() & 3 == 0 {
            a[3] = p[3];
            a[2] = a[2].min(p[2] - 1);
        }
        check(&a, &b);
        edge[0] = a;
    }
}
