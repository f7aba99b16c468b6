//! The eight-lane field and k·G against the scalar ones (`FieldElement`, `mul_g`), on random
//! and edge inputs, every lane different. Skipped (with a note) on CPUs without AVX-512 IFMA
//! or in builds that force another "SM2 lanes" backend.
#![allow(unsafe_code)]

use super::super::field::{FieldElement, P};
use super::super::limbs::{self, Limbs};
use super::super::mul::mul_g;
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

#[test]
fn lanes_mul_g_matches_scalar() {
    let Some(kernel) = ifma() else { return };
    let mut edges: Vec<Limbs> = [0u64, 1, 2, 3, 63, 64, 65, 127, 128]
        .iter()
        .map(|&s| [s, 0, 0, 0])
        .collect();
    for d in [1u64, 2, 3, 64, 65, 128] {
        edges.push(limbs::sub(&N, &[d, 0, 0, 0]).0);
    }
    // Top window digits, and every 7-bit window at 64 (the largest digit) or 65 (a carry).
    edges.push([0, 0, 0, 1 << 60]);
    edges.push([u64::MAX, u64::MAX, u64::MAX, (1 << 60) - 1]);
    for d in [64u64, 65] {
        let mut k = [0u64; 4];
        for pos in (0..256).step_by(7) {
            for bit in 0..7 {
                if d >> bit & 1 == 1 && pos + bit < 256 {
                    k[(pos + bit) / 64] |= 1 << ((pos + bit) % 64);
                }
            }
        }
        edges.push(limbs::reduce_once(&k, &N));
    }
    let all: Vec<Limbs> = edges.iter().copied().chain(scalars(40)).collect();
    for start in (0..all.len()).step_by(5) {
        let k = core::array::from_fn(|i| all[(start + i) % all.len()]);
        check_mul_g(kernel, &k);
    }
    // One lane special, the others random: the masks must keep the lanes apart.
    for e in &edges {
        let mut k: [Limbs; 8] = core::array::from_fn(|_| [0; 4]);
        for (i, r) in scalars(8).enumerate() {
            k[i] = r;
        }
        k[3] = *e;
        check_mul_g(kernel, &k);
    }
}
