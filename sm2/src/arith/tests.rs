//! Unit tests of the arithmetic against independent code: the field and scalar operations
//! against `crypto-bigint`'s Montgomery arithmetic on the same words (the `primefield`
//! element inside each type), the x86-64 assembly against the portable Rust, the point
//! formulas and multiplications against `primeorder`'s complete projective formulas, and the
//! comb against RustCrypto's `sm2` crate (a separate field, too).

use super::field::FieldElement;
use super::limbs;
use super::mul::{mul_g, mul_g_add_vartime};
use super::point::{Affine, Jacobian};
use super::scalar::N;
use crate::curve::{ProjectivePoint, Scalar, jacobian_to_projective, scalar_to_limbs};
use elliptic_curve::ff::PrimeField;
use elliptic_curve::group::Group;

/// A small deterministic generator (xorshift) so the tests need no RNG crate.
fn scalars(count: usize) -> impl Iterator<Item = [u8; 32]> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    (0..count).map(move |_| {
        let mut b = [0u8; 32];
        for chunk in b.chunks_mut(8) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            chunk.copy_from_slice(&s.to_be_bytes());
        }
        b
    })
}

fn generic_scalar(b: &[u8; 32]) -> Scalar {
    let l = limbs::reduce_once(&limbs::from_be_bytes(b), &N);
    Option::from(Scalar::from_repr(limbs::to_be_bytes(&l).into())).expect("reduced")
}

fn edge_scalars() -> Vec<[u8; 32]> {
    let mut v = Vec::new();
    for small in [0u64, 1, 2, 3, 31, 32, 33, 63, 64, 65] {
        let mut b = [0u8; 32];
        b[24..].copy_from_slice(&small.to_be_bytes());
        v.push(b);
    }
    // n - 2j for j = 1..=16: k·P's last Booth window adds d·P to an accumulator equal to it.
    for sub in [
        1u64, 2, 3, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 33, 64,
    ] {
        let (l, _) = limbs::sub(&N, &[sub, 0, 0, 0]);
        v.push(limbs::to_be_bytes(&l));
    }
    // Digits at the very top: 2^252·j and neighbours.
    for j in 1u64..16 {
        let l = [0, 0, 0, j << 60];
        v.push(limbs::to_be_bytes(&l));
        v.push(limbs::to_be_bytes(&[
            u64::MAX,
            u64::MAX,
            u64::MAX,
            (j << 60) - 1,
        ]));
    }
    // Every 6-bit window equal to 32 (the largest positive digit) or 33 (carry).
    v.push(limbs::to_be_bytes(&[0x8208_2082_0820_8208; 4]));
    v.push(limbs::to_be_bytes(&[0x8618_6186_1861_8618; 4]));
    // Every 7-bit window (the 64-bit targets' comb) equal to 64 (the largest positive digit)
    // or 65 (carry); both are below n.
    for d in [64, 65] {
        let mut k = [0u64; 4];
        for pos in (0..256).step_by(7) {
            for bit in 0..7 {
                if d >> bit & 1 == 1 && pos + bit < 256 {
                    k[(pos + bit) / 64] |= 1 << ((pos + bit) % 64);
                }
            }
        }
        v.push(limbs::to_be_bytes(&k));
    }
    // Every 5-bit window equal to 16 (k·P's largest digit) or 17 (carry), below n.
    v.push(limbs::to_be_bytes(&[
        0x4210_8421_0842_1084,
        0x1084_2108_4210_8421,
        0x8421_0842_1084_2108,
        0x7210_8421_0842_1084,
    ]));
    v.push(limbs::to_be_bytes(&[
        0x8c63_18c6_318c_6318,
        0x18c6_318c_6318_c631,
        0xc631_8c63_18c6_318c,
        0x6318_c631_8c63_18c6,
    ]));
    v
}

/// A field element from big-endian bytes, `None` unless below p.
fn field_element(b: &[u8; 32]) -> Option<FieldElement> {
    FieldElement::from_repr((*b).into()).into_option()
}

#[test]
fn field_inverse_and_roundtrip() {
    for b in scalars(64) {
        let Some(x) = field_element(&b) else {
            continue;
        };
        assert_eq!(x.to_be_bytes(), b);
        assert_eq!(<[u8; 32]>::from(x.to_repr()), b);
        if x.is_zero_mask() == 0 {
            assert_eq!(x.multiply(&x.invert_or_zero()), FieldElement::ONE);
            assert_eq!(x * x.invert().unwrap(), FieldElement::ONE);
        }
    }
    assert_eq!(FieldElement::ZERO.invert_or_zero(), FieldElement::ZERO);
    assert!(bool::from(FieldElement::ZERO.invert().is_none()));
    assert!(field_element(&limbs::to_be_bytes(&super::field::P)).is_none());
}

/// Our field operations (the ones the `ff` traits and operators call, too) equal
/// `crypto-bigint`'s generic Montgomery arithmetic on the same words.
#[test]
fn field_matches_crypto_bigint() {
    for (a, b) in scalars(64).zip(scalars(65).skip(1)) {
        let (Some(x), Some(y)) = (field_element(&a), field_element(&b)) else {
            continue;
        };
        let (gx, gy) = (x.0, y.0);
        assert_eq!(x.multiply(&y), FieldElement(gx.multiply(&gy)));
        assert_eq!(x * y, FieldElement(gx.multiply(&gy)));
        assert_eq!(x.add(&y), FieldElement(gx.add(&gy)));
        assert_eq!(x - y, FieldElement(gx.sub(&gy)));
        assert_eq!(x.square(), FieldElement(gx.square()));
        assert_eq!(-x, FieldElement(gx.neg()));
        assert_eq!(x.half().double(), x);
        assert_eq!(x.to_canonical(), gx.to_canonical());
        assert_eq!(
            x.invert_or_zero(),
            FieldElement(gx.invert().unwrap_or(gx.neg().sub(&gx)))
        );
        let w = primefield::bigint::U256::from_be_slice(&a);
        assert_eq!(FieldElement::from_uint_unchecked(w), x);
    }
}

/// Our scalar operations equal `crypto-bigint`'s on the same words.
#[test]
fn scalar_matches_crypto_bigint() {
    for (a, b) in scalars(64).zip(scalars(65).skip(1)) {
        let (x, y) = (generic_scalar(&a), generic_scalar(&b));
        let (gx, gy) = (x.0, y.0);
        assert_eq!(x * y, Scalar::from(gx.multiply(&gy)));
        assert_eq!(x + y, Scalar::from(gx.add(&gy)));
        assert_eq!(x - y, Scalar::from(gx.sub(&gy)));
        assert_eq!(-x, Scalar::from(gx.neg()));
        assert_eq!(x.square(), Scalar::from(gx.square()));
        assert_eq!(x.to_canonical(), gx.to_canonical());
        assert_eq!(Scalar::from_be_bytes_reduced(&a), x);
    }
}

/// Field elements (Montgomery limbs below p) biased towards the carry-heavy edges: 0, 1, p - k,
/// all-ones limbs, single set limbs.
#[cfg(target_arch = "x86_64")]
fn field_limbs() -> impl proptest::strategy::Strategy<Value = limbs::Limbs> {
    use proptest::prelude::*;
    let p = super::field::P;
    prop_oneof![
        any::<[u64; 4]>().prop_map(move |l| limbs::reduce_once(&l, &p)),
        (0u64..4).prop_map(move |k| limbs::sub(&p, &[k + 1, 0, 0, 0]).0),
        (0u64..3).prop_map(|k| [k, 0, 0, 0]),
        (0usize..4, any::<u64>()).prop_map(|(i, v)| {
            let mut l = [0; 4];
            l[i] = v;
            l
        }),
        Just([u64::MAX, u64::MAX, u64::MAX, 0xFFFF_FFFE_FFFF_FFFE]),
        Just([
            u64::MAX,
            0xFFFF_FFFF_0000_0000,
            u64::MAX,
            0x7FFF_FFFF_FFFF_FFFF
        ]),
    ]
}

#[cfg(target_arch = "x86_64")]
proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]

    /// The x86-64 field operations equal the portable Rust ones, every assembly form checked
    /// by name (the `mulx`/ADX forms where the CPU has them), so the form that the dispatch
    /// does not pick here is tested too.
    #[test]
    fn field_asm_matches_portable(a in field_limbs(), b in field_limbs()) {
        use super::field_impl as asm;
        use super::field_portable as portable;
        let (x, y) = (FieldElement::from_limbs(a), FieldElement::from_limbs(b));
        let m = portable::mul(&a, &b);
        proptest::prop_assert_eq!(x.multiply(&y).limbs(), m);
        proptest::prop_assert_eq!(y.multiply(&x).limbs(), m);
        proptest::prop_assert_eq!(x.square().limbs(), portable::sqr(&a));
        proptest::prop_assert_eq!(y.square().limbs(), portable::sqr(&b));
        proptest::prop_assert_eq!(x.add(&y).limbs(), portable::add(&a, &b));
        proptest::prop_assert_eq!(x.sub(&y).limbs(), portable::sub(&a, &b));
        proptest::prop_assert_eq!(y.sub(&x).limbs(), portable::sub(&b, &a));
        proptest::prop_assert_eq!(x.neg().limbs(), portable::sub(&[0; 4], &a));
        proptest::prop_assert_eq!(x.half().limbs(), portable::half(&a));
        let h = portable::half(&a);
        proptest::prop_assert_eq!(portable::add(&h, &h), a);
        proptest::prop_assert_eq!(asm::mul_base(&a, &b), m);
        proptest::prop_assert_eq!(asm::sqr_base(&a), portable::sqr(&a));
        #[allow(unsafe_code)]
        if has_adx() {
            // SAFETY: the dispatch crate's probe saw BMI2 and ADX.
            let (mx, sx) = unsafe { (asm::mul_adx(a, &b), asm::sqr_adx(a)) };
            proptest::prop_assert_eq!(mx, m);
            proptest::prop_assert_eq!(sx, portable::sqr(&a));
        }
    }
}

/// Whether the `mulx`/ADX forms may run here (the CPU has them and the build does not
/// force another backend).
#[cfg(target_arch = "x86_64")]
fn has_adx() -> bool {
    shangmi_dispatch::sm2_field::Backend::Adx.is_available()
}

/// Values whose inversion stresses safegcd: 0, 1, 2, small, M - k, powers of two, all-ones
/// patterns, and random ones.
fn inversion_inputs(m: &limbs::Limbs) -> Vec<limbs::Limbs> {
    let mut v: Vec<limbs::Limbs> = vec![[0; 4], [1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0]];
    for k in 1..5u64 {
        v.push(limbs::sub(m, &[k, 0, 0, 0]).0);
    }
    for bit in [1u32, 61, 62, 63, 64, 127, 128, 200, 248, 254] {
        let mut l = [0u64; 4];
        l[(bit / 64) as usize] = 1 << (bit % 64);
        v.push(limbs::reduce_once(&l, m));
    }
    v.push([u64::MAX, u64::MAX, u64::MAX, 0x0FFF_FFFF_FFFF_FFFF]);
    v.push([0x5555_5555_5555_5555; 4]);
    v.push(limbs::reduce_once(&[0xAAAA_AAAA_AAAA_AAAA; 4], m));
    for b in scalars(200) {
        v.push(limbs::reduce_once(&limbs::from_be_bytes(&b), m));
    }
    v
}

#[test]
fn safegcd_field_inverse_matches_fermat() {
    for x in inversion_inputs(&super::field::P) {
        let fe = FieldElement::from_limbs(x);
        let inv = fe.invert_or_zero();
        assert_eq!(inv, fe.invert_fermat(), "{x:x?}");
        if fe.is_zero_mask() == 0 {
            assert_eq!(fe.multiply(&inv), FieldElement::ONE);
        }
    }
}

/// The variable-time inversion equals the constant-time one modulo p and n, on the edge
/// values of [`inversion_inputs`] (0, 1, M - 1, ...) and random ones.
#[test]
fn vartime_inverse_matches_constant_time() {
    for m in [super::field::P, N] {
        let modulus = super::inv::Modulus::new(&m);
        for x in inversion_inputs(&m) {
            let ct = super::inv::invert(&x, &modulus);
            assert_eq!(super::inv::invert_vartime(&x, &modulus), ct, "{x:x?}");
        }
    }
    for x in inversion_inputs(&super::field::P) {
        let fe = FieldElement::from_limbs(x);
        assert_eq!(fe.invert_vartime(), fe.invert_or_zero(), "{x:x?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5_000))]

    #[test]
    fn vartime_inverse_matches_constant_time_random(
        x in proptest::array::uniform4(proptest::prelude::any::<u64>()),
        modulo_n in proptest::prelude::any::<bool>(),
    ) {
        let m = if modulo_n { N } else { super::field::P };
        let x = limbs::reduce_once(&x, &m);
        let modulus = super::inv::Modulus::new(&m);
        proptest::prop_assert_eq!(
            super::inv::invert_vartime(&x, &modulus),
            super::inv::invert(&x, &modulus)
        );
    }
}

#[test]
fn safegcd_plain_inverse_mod_n() {
    let modulus = super::inv::Modulus::new(&N);
    for x in inversion_inputs(&N) {
        let inv = super::inv::invert(&x, &modulus);
        let g = generic_scalar(&limbs::to_be_bytes(&x));
        let expected = <[u8; 32]>::from(g.invert().unwrap_or(Scalar::ZERO).to_repr());
        assert_eq!(limbs::to_be_bytes(&inv), expected, "{x:x?}");
    }
}

#[test]
fn scalar_inverse() {
    for x in inversion_inputs(&N) {
        let x = Scalar::from_canonical(&x);
        let inv = x.invert_or_zero();
        if x.is_zero_mask() == 0 {
            assert_eq!(x.multiply(&inv), Scalar::ONE);
        }
        let g = Scalar::from(x.0.invert().unwrap_or(x.0));
        assert_eq!(inv, g);
        let g = generic_scalar(&x.to_be_bytes());
        assert_eq!(
            inv.to_be_bytes(),
            <[u8; 32]>::from(g.invert().unwrap_or(Scalar::ZERO).to_repr())
        );
    }
}

#[test]
fn comb_matches_generic_multiplication() {
    for b in scalars(48).chain(edge_scalars()) {
        let k = limbs::reduce_once(&limbs::from_be_bytes(&b), &N);
        let ours = jacobian_to_projective(&mul_g(&k));
        let generic = ProjectivePoint::GENERATOR * generic_scalar(&b);
        assert_eq!(ours, generic, "k = {k:x?}");
    }
}

/// build.rs's comb: COMB[m][j] = (j + 1)·2^(W·S·m)·G by the generic arithmetic, on the curve.
#[test]
fn comb_table_entries_match_generic() {
    use super::mul::{COMB, COMB_STEPS, COMB_W};
    assert_ne!(Affine::generator().on_curve(), 0);
    let mut base = ProjectivePoint::GENERATOR;
    for row in COMB.iter() {
        let mut m = base;
        for e in row {
            assert_ne!(e.on_curve(), 0);
            assert_eq!(jacobian_to_projective(&e.to_jacobian()), m);
            m += base;
        }
        for _ in 0..COMB_W * COMB_STEPS {
            base = base.double();
        }
    }
}

/// The comb's schedule followed on scalars modulo n: the sums rebuild k, and no addition
/// meets an accumulator equal to ± its addend (modulo n) outside the ones `mul_g` handles
/// (the last step; with one table per window, the last window), for random and edge scalars
/// and for k = a·2^(W·S·m) + b·2^(W·S·(m + 1)) mod n with small a, b (scalars just below n
/// whose high digits are few, where the accumulator wraps). `mul_g` is checked against the
/// generic arithmetic on every case found and on a sample of the family.
#[test]
fn comb_exceptional_additions_only_where_handled() {
    use super::mul::{COMB, COMB_STEPS, COMB_W, COMB_WINDOWS, recode};
    // unit[m] = 2^(W·S·m) mod n, the weight of table m.
    let two = Scalar::from_canonical(&[2, 0, 0, 0]);
    let mut unit = vec![Scalar::ONE];
    for _ in 0..COMB.len() {
        let mut u = unit[unit.len() - 1];
        for _ in 0..COMB_W * COMB_STEPS {
            u = u.multiply(&two);
        }
        unit.push(u);
    }
    let small = |v: i64| {
        let s = Scalar::from_canonical(&[v.unsigned_abs(), 0, 0, 0]);
        if v < 0 { Scalar::ZERO.sub(&s) } else { s }
    };
    // Follows the schedule; returns whether a handled exceptional addition occurred.
    let follow = |kl: &limbs::Limbs| {
        let digits = recode::<COMB_W, COMB_WINDOWS>(kl);
        let mut acc = Scalar::ZERO;
        let mut hit = false;
        for step in (0..COMB_STEPS).rev() {
            if step + 1 < COMB_STEPS {
                for _ in 0..COMB_W {
                    acc = acc.add(&acc);
                }
            }
            for (t, u) in unit.iter().take(COMB.len()).enumerate() {
                let i = step + COMB_STEPS * t;
                if i >= COMB_WINDOWS {
                    continue;
                }
                let addend = small(digits[i]).multiply(u);
                if digits[i] != 0 && acc.is_zero_mask() == 0 {
                    let (same, opposite) = (acc == addend, acc.add(&addend).is_zero_mask() != 0);
                    if same || opposite {
                        let handled = step == 0 && (COMB_STEPS > 1 || i == COMB_WINDOWS - 1);
                        assert!(handled, "k = {kl:x?}: window {i} in step {step}");
                        hit = true;
                    }
                }
                acc = acc.add(&addend);
            }
        }
        assert_eq!(
            acc,
            Scalar::from_canonical(kl),
            "the schedule rebuilds k = {kl:x?}"
        );
        hit
    };
    let check = |kl: &limbs::Limbs| {
        let b = limbs::to_be_bytes(kl);
        let generic = ProjectivePoint::GENERATOR * generic_scalar(&b);
        assert_eq!(jacobian_to_projective(&mul_g(kl)), generic, "k = {kl:x?}");
    };
    for b in scalars(200).chain(edge_scalars()) {
        follow(&limbs::reduce_once(&limbs::from_be_bytes(&b), &N));
    }
    let (mut hits, mut count) = (0, 0);
    for m in 0..COMB.len() {
        for a in -16i64..=16 {
            for b in -16i64..=16 {
                let k = small(a)
                    .multiply(&unit[m])
                    .add(&small(b).multiply(&unit[m + 1]));
                let kl = k.to_canonical_limbs();
                count += 1;
                if follow(&kl) {
                    hits += 1;
                    check(&kl);
                } else if count % 61 == 0 {
                    check(&kl);
                }
            }
        }
    }
    println!("{count} scalars near n, {hits} with an exceptional addition (handled)");
}

/// The AVX2 comb scan picks what the portable scan picks, for every digit of every window.
#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_scan_matches_portable() {
    if super::scan_x86::avx2().is_none() {
        return;
    }
    for window in super::mul::COMB.iter() {
        for abs in 0..=window.len() as u64 {
            #[allow(unsafe_code)]
            // SAFETY: the dispatch crate's probe saw AVX2.
            let fast = unsafe { super::scan_x86::lookup_avx2(window, abs) };
            assert_eq!(fast, super::mul::lookup(window, abs), "digit {abs}");
        }
    }
}

/// The odd multiples of G for verification (build.rs's table, or the comb's first table in
/// the size profile): (2i + 1)·G by the generic (RustCrypto `primeorder`) arithmetic.
#[test]
fn odd_multiples_of_g_match_generic() {
    let mut m = ProjectivePoint::GENERATOR;
    let g2 = m.double();
    for i in 0..super::mul::G_ODD_COUNT {
        let ours = jacobian_to_projective(&super::mul::g_odd(i).to_jacobian());
        assert_eq!(ours, m);
        m += g2;
    }
}

/// The co-Z multiples P, 3P, .., 15P and P, 2P, .., 16P equal the generic arithmetic's, for
/// random points, G and -G.
#[test]
fn co_z_multiples_match_generic() {
    let mut points: Vec<ProjectivePoint> = scalars(40)
        .map(|b| ProjectivePoint::GENERATOR * generic_scalar(&b))
        .collect();
    points.push(ProjectivePoint::GENERATOR);
    points.push(-ProjectivePoint::GENERATOR);
    for p in points {
        let pa = crate::curve::projective_to_affine(&p).expect("not identity");
        let mut m = p;
        for e in Jacobian::odd_multiples::<8>(&pa) {
            assert_eq!(jacobian_to_projective(&e), m);
            m += p.double();
        }
        let mut m = p;
        for e in Jacobian::multiples::<16>(&pa) {
            assert_eq!(jacobian_to_projective(&e), m);
            m += p;
        }
    }
}

#[test]
fn double_multiplication_matches_generic() {
    let q_scalar = generic_scalar(&[0x5A; 32]);
    let q = ProjectivePoint::GENERATOR * q_scalar;
    let qa = crate::curve::projective_to_affine(&q).expect("not identity");
    let list: Vec<[u8; 32]> = scalars(24).chain(edge_scalars()).collect();
    for (a, b) in list.iter().zip(list.iter().rev()) {
        let (ga, gb) = (generic_scalar(a), generic_scalar(b));
        let ours = jacobian_to_projective(&mul_g_add_vartime(
            &scalar_to_limbs(&ga),
            &scalar_to_limbs(&gb),
            &qa,
        ));
        let generic = ProjectivePoint::GENERATOR * ga + q * gb;
        assert_eq!(ours, generic);
    }
    let table = super::mul::QTable::new(&qa);
    for (a, b) in list.iter().zip(list.iter().skip(3)) {
        let (ga, gb) = (generic_scalar(a), generic_scalar(b));
        let (la, lb) = (scalar_to_limbs(&ga), scalar_to_limbs(&gb));
        assert_eq!(
            jacobian_to_projective(&super::mul::mul_g_add_table_vartime(&la, &lb, &table)),
            ProjectivePoint::GENERATOR * ga + q * gb
        );
    }
    // u1·G + u2·Q = identity when Q = G and u2 = -u1.
    let g = crate::curve::projective_to_affine(&ProjectivePoint::GENERATOR).expect("G");
    let u = generic_scalar(&[3; 32]);
    let sum = mul_g_add_vartime(&scalar_to_limbs(&u), &scalar_to_limbs(&(-u)), &g);
    assert_ne!(sum.is_infinity(), 0);
    assert!(bool::from(ProjectivePoint::identity().is_identity()));
}

#[test]
fn variable_base_matches_generic() {
    let q_scalar = generic_scalar(&[0x6B; 32]);
    let q = ProjectivePoint::GENERATOR * q_scalar;
    let qa = crate::curve::projective_to_affine(&q).expect("not identity");
    for b in scalars(24).chain(edge_scalars()) {
        let k = generic_scalar(&b);
        let ours = jacobian_to_projective(&super::mul::mul_ct(&scalar_to_limbs(&k), &qa));
        assert_eq!(ours, q * k);
    }
    // P = G with k = 1, 2, 15, 16, 17 exercises table entries equal to the accumulator.
    let g = crate::curve::projective_to_affine(&ProjectivePoint::GENERATOR).expect("G");
    for small in [1u64, 2, 15, 16, 17, 255, 256, 4097] {
        let k = Scalar::from(small);
        let ours = jacobian_to_projective(&super::mul::mul_ct(&scalar_to_limbs(&k), &g));
        assert_eq!(ours, ProjectivePoint::GENERATOR * k);
    }
}

/// The width-W NAF rebuilds its scalar, has only odd digits below 2^(W-1) in magnitude, and
/// at most one nonzero digit in any W consecutive positions.
fn check_wnaf<const W: usize>(k: &limbs::Limbs) {
    let naf = super::mul::wnaf::<W>(k);
    // Σ d_i·2^i, accumulated from the top as 320-bit two's complement (k < 2^256).
    let mut acc = [0u64; 5];
    for &d in naf.iter().rev() {
        let mut c = 0u64;
        for l in acc.iter_mut() {
            let v = (*l << 1) | c;
            c = *l >> 63;
            *l = v;
        }
        let add = d as i64 as u64;
        let ext = if d < 0 { u64::MAX } else { 0 };
        let mut carry = 0u128;
        for (i, l) in acc.iter_mut().enumerate() {
            let v = *l as u128 + if i == 0 { add } else { ext } as u128 + carry;
            *l = v as u64;
            carry = v >> 64;
        }
    }
    assert_eq!(acc, [k[0], k[1], k[2], k[3], 0], "NAF of {k:x?}");
    let mut last: Option<usize> = None;
    for (i, &d) in naf.iter().enumerate() {
        if d != 0 {
            assert!(d % 2 != 0 && i32::from(d).abs() < 1 << (W - 1), "digit {d}");
            if let Some(j) = last {
                assert!(i - j >= W, "digits at {j} and {i}");
            }
            last = Some(i);
        }
    }
}

#[test]
fn wnaf_digits_rebuild_the_scalar() {
    for b in scalars(200).chain(edge_scalars()) {
        let k = limbs::from_be_bytes(&b);
        check_wnaf::<5>(&k);
        check_wnaf::<8>(&k);
        check_wnaf::<12>(&k);
    }
    check_wnaf::<5>(&[u64::MAX; 4]);
    check_wnaf::<8>(&[u64::MAX; 4]);
    check_wnaf::<12>(&[u64::MAX; 4]);
}

/// A build with `--cfg shangmi_backend="soft"` runs the portable field and scans (CI runs
/// the crate's tests that way too): the code paths follow the dispatch crate's choice.
#[test]
fn backends_follow_the_forced_configuration() {
    use shangmi_dispatch::{sm2_field, sm2_scan};
    let (f, s) = (
        sm2_field::Backend::best().name(),
        sm2_scan::Backend::best().name(),
    );
    #[cfg(target_arch = "x86_64")]
    {
        let forms = super::field_x86::backend().get();
        assert_eq!(forms.name(), f);
        assert_eq!(super::scan_x86::avx2().is_some(), s == "scan-avx2");
    }
    if cfg!(shangmi_backend = "soft") {
        assert_eq!((f, s), ("portable", "portable"));
    } else if cfg!(target_arch = "x86_64") {
        assert_ne!(f, "portable", "x86-64 has at least the base forms");
    }
    println!("SM2 field: {f}, SM2 scan: {s}");
}
