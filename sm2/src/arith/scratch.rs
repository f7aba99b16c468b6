use super::field::Fe;
use super::point::{Affine, Jacobian};
use core::hint::black_box;
use std::time::Instant;

fn t<F: FnMut()>(name: &str, n: u32, mut f: F) {
    let mut best = f64::MAX;
    for _ in 0..7 {
        let s = Instant::now();
        for _ in 0..n {
            f();
        }
        let e = s.elapsed().as_nanos() as f64 / n as f64;
        if e < best {
            best = e;
        }
    }
    println!("{name:24} {best:8.2} ns");
}

#[test]
#[ignore]
fn scratch_timings() {
    let g = Affine::generator();
    let mut a = g.x;
    let b = g.y;
    t("mul latency", 1_000_000, || {
        a = black_box(a.mul(&b));
    });
    t("sqr latency", 1_000_000, || {
        a = black_box(a.sqr());
    });
    let (mut x0, mut x1, mut x2, mut x3) = (g.x, g.y, g.x.add(&g.y), g.x.sub(&g.y));
    t("mul 4 indep (per mul)", 250_000, || {
        x0 = x0.mul(&b);
        x1 = x1.mul(&b);
        x2 = x2.mul(&b);
        x3 = x3.mul(&b);
        black_box((&x0, &x1, &x2, &x3));
    });
    t("add latency", 1_000_000, || {
        a = black_box(a.add(&b));
    });
    t("sub latency", 1_000_000, || {
        a = black_box(a.sub(&b));
    });
    let mut j = g.to_jacobian().double();
    t("double", 200_000, || {
        j = black_box(j.double());
    });
    let mut k = g.to_jacobian().double();
    t("madd", 200_000, || {
        k = black_box(k.add_affine_unchecked(&g).0);
    });
    let q = g.to_jacobian().double().double();
    let mut m = g.to_jacobian().double();
    t("add", 200_000, || {
        m = black_box(m.add_unchecked(&q).0);
    });
}

#[test]
fn scratch_sqr_ok() {
    let g = Affine::generator();
    let mut x = g.x;
    for i in 0..10000u64 {
        assert_eq!(x.sqr(), x.sqr_soft(), "{i}");
        assert_eq!(x.mul(&g.y), x.mul_soft(&g.y), "{i}");
        x = x.add(&g.y).mul(&x);
        if i % 100 == 0 {
            x = super::field::Fe([
                u64::MAX - i,
                u64::MAX,
                0xFFFFFFFF00000000,
                0xFFFFFFFEFFFFFFFF,
            ]);
            x = x.sub(&g.x);
        }
    }
}

#[test]
#[ignore]
fn scratch_verify_parts() {
    use super::mul::*;
    let g = Affine::generator();
    let q = Jacobian::double(&g.to_jacobian()).to_affine().0;
    let u1 = [0x1234_5678_9abc_def1u64, 0xfedc_ba98_7654_3210, 0x0f1e_2d3c_4b5a_6978, 0x7fff_0000_1111_2222];
    let u2 = [0x9234_5678_9abc_def1u64, 0xaedc_ba98_7654_3210, 0x1f1e_2d3c_4b5a_6978, 0x6fff_0000_1111_2222];
    for _ in 0..2 {
        t("mul_g_add_vartime", 2000, || { black_box(mul_g_add_vartime(black_box(&u1), &u2, &q)); });
        t("mul_g (ct)", 2000, || { black_box(mul_g(black_box(&u1))); });
        t("mul_ct", 2000, || { black_box(mul_ct(black_box(&u1), &q)); });
        let mut f = Fe::ONE;
        t("invert", 20000, || { f = black_box(f.add(&Fe::ONE).invert()); });
    }
}
