//! Constant-time check under valgrind's memcheck (the ctgrind technique, Adam Langley,
//! 2010), with the harness the crates share (`testsupport/memcheck.rs`): secret scalars and
//! points are marked *undefined*, so memcheck reports every branch and memory address that
//! depends on them. Covered: user key extraction's scalar arithmetic (t1 = H1 + ks,
//! t2 = ks·t1⁻¹ by Fermat), the G1 and G2 multiplications by secret scalars (`mul_ct`,
//! `g2_mul` with its λ-split, the fixed-base tables of `G1Base` built from a secret point,
//! as a signing key's are), G_T powers by secret exponents (`gt_pow` and the fixed-base
//! tables of `GtBase`), the pairing with a
//! secret G2 argument (decryption, key exchange), the `mulx` field multiplication and the
//! lazy-reduction pieces of the F_p² product (called directly where the CPU has them:
//! valgrind hides ADX from the probe), the affine conversions' inversions and
//! the G_T encoding hashed by the KDF. Not covered: the rejection and zero tests whose
//! outcome is public by design (a scalar out of range, l = 0, K1 = 0, the C3 comparison's
//! result), verification (public inputs only).
//!
//! The test re-runs this test binary under valgrind with `SHANGMI_CT_MODE` set: `secret`
//! runs the code above, `leaky` the harness's table lookup by a secret byte that memcheck
//! must report (the negative control). Needs `valgrind` on PATH (CI installs it); without
//! it the test fails when `CI` is set and is skipped otherwise. Release builds only (CI's
//! `cargo test --release`): debug builds' overflow checks branch on every carry.
#![cfg(all(target_arch = "x86_64", not(debug_assertions)))]

extern crate std;

#[path = "../tests/support/memcheck.rs"]
mod memcheck;

use crate::curve::{G1, G2, P1, P2};
use crate::field::Fn;
use crate::pairing::{g2_mul, gt_pow, pairing};
use std::println;

fn secret(mulx: bool) {
    let mut out = [[0u8; 32]; 10];
    for seed in [0x0123_4567_89AB_CDEFu64, 3] {
        let mut k = [
            seed,
            seed.rotate_left(17),
            !seed,
            0x7FFF_FFFF_FFFF_FFFF & seed,
        ];
        let mut ks = Fn::from_limbs(&[seed ^ 0x55, seed, 7, 0x1234]);
        memcheck::secret(&mut k);
        memcheck::secret(&mut ks);
        // Extraction: t2 = ks / (h1 + ks).
        let h1 = crate::hash::h1(b"Alice", 1);
        let t2 = ks.mul(&h1.add(&ks).invert());
        out[0] = t2.to_bytes();
        let d = G1::from(P1).mul_ct(&t2.to_limbs());
        let a = d.x.mul(&d.z.invert());
        out[1] = a.to_bytes();
        let q = g2_mul(&G2::from(P2), &k);
        let zi = q.z.invert();
        let qa = crate::curve::Affine {
            x: q.x.mul(&zi),
            y: q.y.mul(&zi),
        };
        out[2] = qa.x.c0.to_bytes();
        let e = pairing(&P1, &qa);
        out[3][..].copy_from_slice(&e.to_bytes()[..32]);
        let w = gt_pow(&e, &k);
        out[4][..].copy_from_slice(&w.to_bytes()[352..]);
        let w = crate::pairing::GtBase::new(e).pow(&k);
        out[6][..].copy_from_slice(&w.to_bytes()[..32]);
        let s = G1::from(P1).mul_ct(&k);
        out[5] = s.y.to_bytes();
        // A signing key's table (a secret point) and a product by a secret scalar.
        let s = crate::g1comb::G1Base::new(&d).mul(&k);
        out[8] = s.x.to_bytes();
        if mulx {
            use crate::field_x86::P;
            use shangmi_limbs::x86;
            // SAFETY: the parent saw BMI2 and ADX on this CPU (valgrind 3.19 hides those
            // CPUID bits, so the dispatch picks the portable form, but runs the instructions).
            let m = unsafe { shangmi_limbs::mont_mul_adx_static!(&ks.0, &t2.0, P) };
            out[7] = shangmi_limbs::to_be_bytes(&m);
            // SAFETY: as above (the F_p² product's 512-bit product and reduction).
            let (w0, w1) = unsafe {
                (
                    x86::mul_wide_adx(&ks.0, &t2.0),
                    x86::mul_wide_adx(&m, &ks.0),
                )
            };
            // SAFETY: as above.
            let r = unsafe { x86::redc_adx(&x86::sub_wide(&w0, &w1, &P), &P) };
            out[9] = shangmi_limbs::to_be_bytes(&r);
        }
        memcheck::public(&mut out);
    }
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    memcheck::child(|mode| {
        secret(mode == "secret-mulx");
        println!("checked sm9 secret paths");
        if mode == "secret-mulx" {
            println!("with the mulx field multiplication");
        }
    });
}

#[test]
fn secret_paths_are_constant_time_under_memcheck() {
    if !memcheck::is_parent() {
        return;
    }
    // Where this CPU has BMI2 and ADX, the child runs the `mulx` form on secrets too (called
    // directly: under valgrind the CPUID probe does not see ADX).
    let mut expected = std::vec!["checked sm9 secret paths".into()];
    let mode = if crate::field::Backend::Adx.is_available() {
        expected.push("with the mulx field multiplication".into());
        "secret-mulx"
    } else {
        "secret"
    };
    memcheck::check("ct_tests::memcheck_child", mode, &expected);
}
