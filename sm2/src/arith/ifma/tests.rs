//! The eight-lane field, k·G, k·P and u1·G + u2·Q against the scalar ones (`FieldElement`,
//! `mul_g`, `mul_ct`, `mul_g_add_vartime`), on random
//! and edge inputs, every lane different. Skipped (with a note) on CPUs without AVX-512 IFMA
//! or in builds that force another "SM2 lanes" backend.
#![allow(unsafe_code)]

use super::super::field::{FieldElement, P};
use super::super::limbs::{self, Limbs};
use super::super::mul::{mul_ct, mul_g, mul_g_add_vartime};
use super::super::point::{Affine, Jacobian};
use super::super::scalar::N;
use super::field::Fe8;
use super::{Ifma, kernel};
use proptest::prelude::*;

/// The kernel, or `None` with a note.
fn ifma() -> Option<Ifma> {
    let k = kernel();
    if k.is_none() {
        std::eprintln!("note: no AVX-512 IFMA here (or another SM2 lanes backend forced): skipped");
    }
    k
}

/// Field values (as Montgomery limbs, below p) at the edges: 0, 1, small, p - 1, p - 2,
/// values at the 52- and 64-bit limb boundaries and just below 2^256.
fn edge_field_values() -> Vec<Limbs> {
    let mut v = vec![[0; 4], [1, 0, 0, 0], [2, 0, 0, 0]];
    for d in [1u64, 2, 3, 1 << 52] {
        v.push(limbs::sub(&P, &[d, 0, 0, 0]).0);
    }
    for bit in [
        51, 52, 53, 63, 64, 103, 104, 155, 156, 207, 208, 223, 224, 255,
    ] {
        let mut l = [0u64; 4];
        l[bit / 64] = 1 << (bit % 64);
        v.push(l);
        v.push(limbs::sub(&l, &[1, 0, 0, 0]).0);
    }
    // Below 2^256 but not below p: reduced once.
    v.push(limbs::reduce_once(&[u64::MAX; 4], &P));
    v.push([u64::MAX, u64::MAX, u64::MAX, 0xFFFF_FFFE_FFFF_FFFF]);
    v.into_iter().map(|l| limbs::reduce_once(&l, &P)).collect()
}

/// A field value below p from any four words.
fn field_value() -> impl Strategy<Value = Limbs> {
    proptest::array::uniform4(any::<u64>()).prop_map(|l| limbs::reduce_once(&l, &P))
}

/// Checks every operation on eight lanes of `a` and `b` against the scalar field.
fn check_field(a: &[Limbs; 8], b: &[Limbs; 8]) -> Result<(), TestCaseError> {
    let fa = a.map(FieldElement::from_limbs);
    let fb = b.map(FieldElement::from_limbs);
    let want = |f: &dyn Fn(&FieldElement, &FieldElement) -> FieldElement| -> [Limbs; 8] {
        core::array::from_fn(|i| f(&fa[i], &fb[i]).limbs())
    };
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn run(a: &[Limbs; 8], b: &[Limbs; 8], plus_p: bool) -> [[Limbs; 8]; 8] {
        let (mut x, mut y) = (Fe8::from_limbs(a), Fe8::from_limbs(b));
        if plus_p {
            // The same values as representatives in [p, 2p).
            (x, y) = (x.plus_p(), y.plus_p());
        }
        [
            x.to_limbs(),
            x.mul(&y).to_limbs(),
            x.square().to_limbs(),
            x.add(&y).to_limbs(),
            x.sub(&y).to_limbs(),
            y.sub(&x).to_limbs(),
            x.neg().to_limbs(),
            x.half().to_limbs(),
        ]
    }
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn zero_and_select(a: &[Limbs; 8], b: &[Limbs; 8]) -> (u8, u8, [Limbs; 8]) {
        let (x, y) = (Fe8::from_limbs(a), Fe8::from_limbs(b));
        let selected = Fe8::select(0b1010_0101, &x, &y).to_limbs();
        (x.is_zero(), x.plus_p().is_zero(), selected)
    }
    for plus_p in [false, true] {
        // SAFETY: the callers hold the IFMA kernel, so the probe found AVX-512 F and IFMA.
        let got = unsafe { run(a, b, plus_p) };
        prop_assert_eq!(got[0], *a);
        prop_assert_eq!(got[1], want(&|x, y| x.multiply(y)));
        prop_assert_eq!(got[2], want(&|x, _| x.square()));
        prop_assert_eq!(got[3], want(&|x, y| x.add(y)));
        prop_assert_eq!(got[4], want(&|x, y| x.sub(y)));
        prop_assert_eq!(got[5], want(&|x, y| y.sub(x)));
        prop_assert_eq!(got[6], want(&|x, _| x.neg()));
        prop_assert_eq!(got[7], want(&|x, _| x.half()));
    }
    // SAFETY: as above.
    let (zero, zero_plus_p, sel) = unsafe { zero_and_select(a, b) };
    let want_zero = (0..8).fold(0u8, |m, i| m | (u8::from(a[i] == [0; 4]) << i));
    prop_assert_eq!(zero, want_zero);
    prop_assert_eq!(zero_plus_p, want_zero);
    let want_sel: [Limbs; 8] =
        core::array::from_fn(|i| if 0xA5 >> i & 1 == 1 { a[i] } else { b[i] });
    prop_assert_eq!(sel, want_sel);
    Ok(())
}

#[test]
fn lanes_field_edge_values_match_scalar() {
    if ifma().is_none() {
        return;
    }
    let edges = edge_field_values();
    // Every pair of edge values, eight pairs a call, in shifting lanes.
    let pairs: Vec<(Limbs, Limbs)> = edges
        .iter()
        .flat_map(|a| edges.iter().map(move |b| (*a, *b)))
        .collect();
    for chunk in pairs.chunks(8) {
        let a = core::array::from_fn(|i| chunk[i % chunk.len()].0);
        let b = core::array::from_fn(|i| chunk[i % chunk.len()].1);
        check_field(&a, &b).expect("edge values");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn lanes_field_matches_scalar(
        a in proptest::array::uniform8(field_value()),
        b in proptest::array::uniform8(field_value()),
    ) {
        if ifma().is_some() {
            check_field(&a, &b)?;
        }
    }
}

/// Checks eight lanes of k·G against the scalar comb (same formulas: the same Jacobian
/// coordinates).
fn check_mul_g(kernel: Ifma, k: &[Limbs; 8]) {
    let got = kernel.mul_g(k);
    for (lane, (k, p)) in k.iter().zip(&got).enumerate() {
        let want = mul_g(k);
        assert_eq!(
            (p.x.limbs(), p.y.limbs(), p.z.limbs()),
            (want.x.limbs(), want.y.limbs(), want.z.limbs()),
            "lane {lane}, k = {k:x?}"
        );
    }
}

/// A small deterministic generator (xorshift).
fn scalars(count: usize) -> impl Iterator<Item = Limbs> {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    (0..count)
        .map(move |_| {
            core::array::from_fn(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            })
        })
        .map(|l| limbs::reduce_once(&l, &N))
}

/// Scalars at the edges: small ones, n - small (n - 6 makes the last addition of k·P a
/// doubling: its last Booth digit is -3, and the sum before it n - 3 ≡ -3), the top window's digits, every 7-bit window at 64 (the comb's largest digit)
/// or 65 (a carry), every 5-bit window at 16 or 17 (the same for k·P), long runs of ones
/// and of alternating bits.
fn edge_scalars() -> Vec<Limbs> {
    let mut edges: Vec<Limbs> = [0u64, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128]
        .iter()
        .map(|&s| [s, 0, 0, 0])
        .collect();
    for d in [1u64, 2, 3, 4, 6, 16, 30, 32, 33, 64, 65, 128] {
        edges.push(limbs::sub(&N, &[d, 0, 0, 0]).0);
    }
    edges.push([0, 0, 0, 1 << 60]);
    edges.push([u64::MAX, u64::MAX, u64::MAX, (1 << 60) - 1]);
    edges.push([u64::MAX, u64::MAX, 0, 0]);
    edges.push([0, 0, u64::MAX, 0x0FFF_FFFF]);
    edges.push([0x5555_5555_5555_5555; 4]);
    edges.push([
        0xAAAA_AAAA_AAAA_AAAA,
        0xAAAA_AAAA_AAAA_AAAA,
        0xAAAA_AAAA_AAAA_AAAA,
        0x2AAA,
    ]);
    for (w, d) in [(7, 64u64), (7, 65), (5, 16), (5, 17)] {
        let mut k = [0u64; 4];
        for pos in (0..256).step_by(w) {
            for bit in 0..w {
                if d >> bit & 1 == 1 && pos + bit < 256 {
                    k[(pos + bit) / 64] |= 1 << ((pos + bit) % 64);
                }
            }
        }
        edges.push(limbs::reduce_once(&k, &N));
    }
    edges
        .into_iter()
        .map(|k| limbs::reduce_once(&k, &N))
        .collect()
}

/// Eight-lane inputs from `edges` and random scalars: windows of eight sliding over
/// both, then each edge in one lane among random ones (the masks must keep lanes apart).
fn lane_sets(edges: &[Limbs]) -> Vec<[Limbs; 8]> {
    let all: Vec<Limbs> = edges.iter().copied().chain(scalars(40)).collect();
    let mut sets: Vec<[Limbs; 8]> = (0..all.len())
        .step_by(5)
        .map(|start| core::array::from_fn(|i| all[(start + i) % all.len()]))
        .collect();
    for (n, e) in edges.iter().enumerate() {
        let mut k: [Limbs; 8] = core::array::from_fn(|_| [0; 4]);
        for (i, r) in scalars(8 + n).skip(n).enumerate() {
            k[i] = r;
        }
        k[n % 8] = *e;
        sets.push(k);
    }
    sets
}

#[test]
fn lanes_mul_g_matches_scalar() {
    let Some(kernel) = ifma() else { return };
    for k in lane_sets(&edge_scalars()) {
        check_mul_g(kernel, &k);
    }
}

/// The points of the k·P tests, lane by lane: G, -G and multiples of G (2G, the point of
/// the scalar n - 1, and the points of the random scalars).
fn points(k: &[Limbs; 8], salt: usize) -> [Affine; 8] {
    core::array::from_fn(|i| {
        let m = match (i + salt) % 4 {
            0 => [1, 0, 0, 0],
            1 => limbs::sub(&N, &[1, 0, 0, 0]).0,
            2 => [2, 0, 0, 0],
            // Unrelated to the lane's own scalar.
            _ => limbs::reduce_once(&[k[(i + 1) % 8][1], k[i][0], 7, k[i][3] >> 3], &N),
        };
        let m = if m == [0; 4] { [5, 0, 0, 0] } else { m };
        mul_g(&m).to_affine().0
    })
}

/// Same Jacobian coordinates.
fn same(a: &Jacobian, b: &Jacobian) -> bool {
    (a.x.limbs(), a.y.limbs(), a.z.limbs()) == (b.x.limbs(), b.y.limbs(), b.z.limbs())
}

#[test]
fn lanes_mul_points_match_scalar() {
    let Some(kernel) = ifma() else { return };
    for (n, k) in lane_sets(&edge_scalars()).iter().enumerate() {
        let p = points(k, n);
        let got = kernel.mul_points(k, &p);
        for lane in 0..8 {
            let want = mul_ct(&k[lane], &p[lane]);
            assert!(same(&got[lane], &want), "lane {lane}, k = {:x?}", k[lane]);
        }
    }
}

#[test]
fn lanes_mul_g_add_matches_scalar() {
    let Some(kernel) = ifma() else { return };
    let edges = edge_scalars();
    for (n, u1) in lane_sets(&edges).iter().enumerate() {
        // u2 from another set: the edge cases meet both halves.
        let u2: [Limbs; 8] = core::array::from_fn(|i| edges[(n * 3 + i) % edges.len()]);
        let q = points(&u2, n + 1);
        let got = kernel.mul_g_add(u1, &u2, &q);
        for lane in 0..8 {
            let want = mul_g_add_vartime(&u1[lane], &u2[lane], &q[lane]);
            // Different schedules: compare the points, not their coordinates.
            let (a, b) = (got[lane].to_affine(), want.to_affine());
            assert_eq!((a.0, a.1), (b.0, b.1), "lane {lane}");
        }
    }
    // u1·G + u2·Q where u2·Q = ±u1·G (the sum is a doubling, or the identity).
    let k: [Limbs; 8] = core::array::from_fn(|i| edges[i + 3]);
    let g = [Affine::generator(); 8];
    let minus: [Limbs; 8] = core::array::from_fn(|i| limbs::sub(&N, &k[i]).0);
    for (u2, want_identity) in [(k, false), (minus, true)] {
        let got = kernel.mul_g_add(&k, &u2, &g);
        for lane in 0..8 {
            let want = mul_g_add_vartime(&k[lane], &u2[lane], &g[lane]);
            assert_eq!(got[lane].is_infinity() != 0, want_identity);
            assert_eq!(got[lane].to_affine(), want.to_affine(), "lane {lane}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn lanes_mul_points_match_scalar_random(
        k in proptest::array::uniform8(proptest::array::uniform4(any::<u64>())),
        m in proptest::array::uniform8(proptest::array::uniform4(any::<u64>())),
    ) {
        if let Some(kernel) = ifma() {
            let k = k.map(|k| limbs::reduce_once(&k, &N));
            let p = m.map(|m| {
                let m = limbs::reduce_once(&m, &N);
                mul_g(&if m == [0; 4] { [1, 0, 0, 0] } else { m }).to_affine().0
            });
            let got = kernel.mul_points(&k, &p);
            for lane in 0..8 {
                prop_assert!(same(&got[lane], &mul_ct(&k[lane], &p[lane])));
            }
        }
    }
}
