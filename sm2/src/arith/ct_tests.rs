//! Constant-time check under valgrind's memcheck (the ctgrind technique, Adam Langley, 2010),
//! with the harness the crates share (`testsupport/memcheck.rs`): secret scalars and field
//! elements are marked *undefined*, so memcheck reports every branch and memory address that
//! depends on them. Covered: the fixed-base comb `mul_g` (signing, key generation,
//! encryption's C1), the variable-base `mul_ct` (ECDH, decryption, key exchange), both table
//! scans (the portable one, which firmware runs, called by name since the dispatch picks
//! AVX2 where it can), the safegcd inversions, the batch conversion to affine (a key pool's
//! refill), the x86-64 field assembly and the scalar
//! arithmetic of the signing equation, in whichever profile the test is built (`--cfg
//! shangmi_sm2_profile="size"` checks the size profile's comb). Not covered: verification
//! (public inputs only). Valgrind emulates AVX2 but not ADX, so under it the CPUID probe
//! picks the AVX2 scans and the base field forms (the test prints which it checked) and the
//! test calls the base forms by name as well; the `mulx`/`adcx`/`adox` forms are
//! straight-line code on fixed addresses like the base ones.
//!
//! The test re-runs this test binary under valgrind with `SHANGMI_CT_MODE` set: `secret`
//! runs the code above, `leaky` the harness's table lookup by a secret byte that memcheck
//! must report (the negative control). Needs `valgrind` on PATH (CI installs it); without
//! it the test fails when `CI` is set and is skipped otherwise.
#![allow(unsafe_code)]

#[path = "../../tests/support/memcheck.rs"]
mod memcheck;

use super::field::FieldElement;
use super::mul::{mul_ct, mul_g};
use super::point::{Affine, Jacobian};
use super::scalar::Scalar;

/// Whether the `mulx`/ADX forms may run here.
fn has_adx() -> bool {
    shangmi_dispatch::sm2_field::Backend::Adx.is_available()
}

/// The secret-dependent code, on secrets marked undefined; outputs declassified at the end.
fn secret() {
    let g = Affine::generator();
    let mut out = [[0u64; 4]; 13];
    for seed in [0x0123_4567_89AB_CDEFu64, 1, u64::MAX >> 1] {
        // Scalars below n (top limb below n's).
        let mut k = [
            seed,
            seed.rotate_left(17),
            !seed,
            0x7FFF_FFFF_FFFF_FFFF & seed,
        ];
        let mut x = FieldElement::from_limbs([seed ^ 0x55, seed, seed.rotate_left(5), 0x1234]);
        memcheck::secret(&mut k);
        memcheck::secret(&mut x);
        let p = mul_g(&k);
        out[0] = p.x.multiply(&p.z).limbs();
        let q = mul_ct(&k, &g);
        out[1] = q.y.square().limbs();
        let (a, _) = p.to_affine();
        out[2] = a.x.limbs();
        out[3] = x.invert_or_zero().limbs();
        out[4] = x.multiply(&x.square()).add(&x).sub(&x.double()).limbs();
        out[5] = FieldElement::select(x.limbs()[0] & 1, &x, &x.neg()).limbs();
        // The signing equation's scalar arithmetic: s = (1 + d)^-1·(k - r·d) mod n.
        let (d, r) = (
            Scalar::from_canonical(&k),
            Scalar::from_limbs_reduced(&x.limbs()),
        );
        out[6] = d
            .add(&Scalar::ONE)
            .invert_or_zero()
            .multiply(&d.sub(&r.multiply(&d)))
            .limbs();
        // Both assembly forms by name, whichever the dispatch picks.
        {
            use super::field_impl as asm;
            out[7] = asm::mul_base(&asm::sqr_base(&x.limbs()), &k);
            if has_adx() {
                // SAFETY: the dispatch crate's probe saw BMI2 and ADX.
                out[8] = unsafe { asm::mul_adx(asm::sqr_adx(x.limbs()), &k) };
            }
        }
        // The portable scans as well, whichever scan the dispatch picks.
        let (p, q) = super::mul::mul_g_ct_portable(&k, &g);
        out[9] = p.x.multiply(&p.z).limbs();
        out[10] = q.y.square().limbs();
        // A key pool's batch: the affine forms of secret multiples with one shared inversion.
        let [a, b] = Jacobian::batch_to_affine(&[p, q]);
        out[11] = a.y.limbs();
        out[12] = b.x.limbs();
        memcheck::public(&mut out);
    }
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    memcheck::child(|_| {
        secret();
        let with = |b: bool| if b { "with" } else { "without" };
        let (adx, avx2) = (has_adx(), super::scan_x86::avx2().is_some());
        println!(
            "checked sm2 secret paths ({} the mulx/ADX forms, {} the AVX2 scans)",
            with(adx),
            with(avx2)
        );
    });
}

#[test]
fn secret_paths_are_constant_time_under_memcheck() {
    if !memcheck::is_parent() {
        return;
    }
    let log = memcheck::check(
        "arith::ct_tests::memcheck_child",
        "secret",
        &["checked sm2 secret paths".into()],
    );
    let checked = log.lines().find(|l| l.contains("checked sm2 secret paths"));
    println!("{}", checked.unwrap_or_default());
}
