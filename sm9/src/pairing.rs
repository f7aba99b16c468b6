//! The R-ate pairing of GM/T 0044-2016 part 1, B.4 (the optimal ate pairing of the BN
//! curve, loop length a = 6t + 2) with its final exponentiation.
//!
//! Lines: the twist point T = (X : Y : Z) on E' untwists to (x·w⁻², y·w⁻³) on E. Each line
//! value at P is multiplied by factors in proper subfields (w³ = v ∈ F_p⁴ and elements of
//! F_p²), which the final exponentiation removes, leaving the sparse shape l0 + l2·w² with
//! l0 ∈ F_p⁴ and l2 ∈ F_p².
//!
//! Tangent at T: l0 = (3X³ - 2Y²Z) + (2YZ²·yP)·v, l2 = -3X²Z·xP.
//! Line through T and affine Q: with D = X - xQ·Z and N = Y - yQ·Z,
//! l0 = (xQ·N - yQ·D) + (yP·D)·v, l2 = -xP·N.
//!
//! Constant time: the loop follows the public bits of a; no value decides a branch.

use crate::curve::{Affine, G2};
use crate::field::{Fp, Limbs};
use crate::tower::{Fp2, Fp4, Fp12, GAMMA2, GAMMA3};
use crate::window::{fill_by_squaring, nibble, scan, signed_digits};
use shangmi_limbs::sub;

/// The BN parameter t (GM/T 0044-2016 part 5, A.1).
pub(crate) const T: u64 = 0x6000_0000_0058_F98A;
/// 6t + 2 = 0x2_4000_0000_0215_D93E (66 bits).
const A: u128 = 6 * (T as u128) + 2;

const GAMMA2_INV: Fp = GAMMA2.invert_const();
const GAMMA3_INV: Fp = GAMMA3.invert_const();

/// The Frobenius endomorphism π_p on the twist: untwist, raise to p, twist back.
pub(crate) fn twist_frobenius(q: &Affine<Fp2>) -> Affine<Fp2> {
    Affine {
        x: q.x.conj().mul_fp(&GAMMA2_INV),
        y: q.y.conj().mul_fp(&GAMMA3_INV),
    }
}

/// A line with P factored out: l0 = a + (b·yP)·v, l2 = c·xP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Line {
    a: Fp2,
    b: Fp2,
    c: Fp2,
}

impl Line {
    #[inline(always)]
    fn eval(&self, p: &Affine<Fp>) -> (Fp4, Fp2) {
        (Fp4::new(self.a, self.b.mul_fp(&p.y)), self.c.mul_fp(&p.x))
    }
}

/// Tangent at T (P factored out) and 2T.
fn double_step(t: &G2) -> (Line, G2) {
    let (x, y, z) = (&t.x, &t.y, &t.z);
    let x2 = x.square();
    let yz = y.mul(z);
    let three_x2 = x2.double().add(&x2);
    // 3X³ - 2Y²Z, 2YZ² (times yP), -3X²Z (times xP)
    let a = three_x2.mul(x).sub(&yz.mul(y).double());
    let b = yz.mul(z).double();
    let c = three_x2.mul(z).neg();
    (Line { a, b, c }, t.double())
}

/// Line through T and Q (P factored out) and T + Q.
fn add_step(t: &G2, q: &Affine<Fp2>) -> (Line, G2) {
    let d = t.x.sub(&q.x.mul(&t.z));
    let n = t.y.sub(&q.y.mul(&t.z));
    let a = q.x.mul(&n).sub(&q.y.mul(&d));
    (
        Line {
            a,
            b: d,
            c: n.neg(),
        },
        t.add(&G2::from(*q)),
    )
}

/// The non-adjacent form of a public k > 0: digits in {-1, 0, 1}, least significant first,
/// no two adjacent ones non-zero, and the number of digits (the top one is 1).
const fn naf(mut k: u128) -> ([i8; 130], usize) {
    let mut d = [0i8; 130];
    let mut n = 0;
    while k != 0 {
        if k & 1 == 1 {
            // 1 where k ≡ 1 (mod 4), -1 where k ≡ 3 (mod 4).
            if k & 3 == 1 {
                d[n] = 1;
                k -= 1;
            } else {
                d[n] = -1;
                k += 1;
            }
        }
        k >>= 1;
        n += 1;
    }
    (d, n)
}

/// The number of non-zero digits.
const fn weight(d: &([i8; 130], usize)) -> usize {
    let mut w = 0;
    let mut i = 0;
    while i < d.1 {
        if d.0[i] != 0 {
            w += 1;
        }
        i += 1;
    }
    w
}

/// a = 6t + 2 in non-adjacent form: 66 digits, 11 non-zero (16 ones in binary), so the
/// Miller loop adds T ± Q 10 times instead of 15 (the line through T and -Q serves a digit
/// -1; the vertical lines it leaves out lie in a proper subfield, which the final
/// exponentiation removes).
const A_NAF: ([i8; 130], usize) = naf(A);
/// Doubling steps (the digits of a below its top digit).
const DOUBLINGS: usize = A_NAF.1 - 1;
/// Lines of one Miller loop: a doubling per digit, an addition per further non-zero digit,
/// and the two Frobenius additions.
pub(crate) const LINES: usize = DOUBLINGS + weight(&A_NAF) - 1 + 2;
/// t in non-adjacent form (64 digits, 11 non-zero instead of 14 ones).
const T_NAF: ([i8; 130], usize) = naf(T as u128);

/// The Miller loop's lines for a fixed Q (independent of P): computed once for a
/// decryption key or a master public key, they leave the loop only the F_p¹² work.
#[derive(Clone, Debug)]
pub(crate) struct G2Prepared {
    lines: [Line; LINES],
}

impl G2Prepared {
    /// Overwrites every line with zeros (the lines reveal the point).
    #[cfg(feature = "zeroize")]
    pub(crate) fn wipe(&mut self) {
        for l in self.lines.iter_mut() {
            crate::wipe(l, Line::default());
        }
    }

    pub(crate) fn new(q: &Affine<Fp2>) -> Self {
        let mut lines = [Line::default(); LINES];
        let mut n = 0;
        let mut t = G2::from(*q);
        let qn = q.neg();
        for i in (0..DOUBLINGS).rev() {
            let (l, t2) = double_step(&t);
            lines[n] = l;
            n += 1;
            t = t2;
            if A_NAF.0[i] != 0 {
                let (l, tq) = add_step(&t, if A_NAF.0[i] > 0 { q } else { &qn });
                lines[n] = l;
                n += 1;
                t = tq;
            }
        }
        let q1 = twist_frobenius(q);
        let q2 = twist_frobenius(&q1).neg();
        let (l, tq) = add_step(&t, &q1);
        lines[n] = l;
        lines[n + 1] = add_step(&tq, &q2).0;
        Self { lines }
    }
}

/// The product of the Miller functions of the R-ate pairing for several (P, Q) pairs
/// with prepared Q, sharing the squarings of f.
pub(crate) fn miller_loop_prepared(pairs: &[(&Affine<Fp>, &G2Prepared)]) -> Fp12 {
    let mut f = Fp12::ONE;
    let mut n = 0;
    let mul_lines = |f: Fp12, n: usize| {
        pairs.iter().fold(f, |f, (p, q)| {
            let (l0, l2) = q.lines[n].eval(p);
            f.mul_line(&l0, &l2)
        })
    };
    for i in (0..DOUBLINGS).rev() {
        f = mul_lines(if n == 0 { f } else { f.square() }, n);
        n += 1;
        if A_NAF.0[i] != 0 {
            f = mul_lines(f, n);
            n += 1;
        }
    }
    f = mul_lines(f, n);
    mul_lines(f, n + 1)
}

/// The Miller function of the R-ate pairing before the final exponentiation.
fn miller_loop(p: &Affine<Fp>, q: &Affine<Fp2>) -> Fp12 {
    miller_loop_prepared(&[(p, &G2Prepared::new(q))])
}

/// f^((p¹² - 1)/N): the easy part (p⁶ - 1)(p² + 1), then the hard part
/// (p⁴ - p² + 1)/N = λ3·p³ + λ2·p² + λ1·p + λ0 (Devegili, Scott, Dahab, "Implementing
/// cryptographic pairings over Barreto-Naehrig curves", 2007) with the addition chain of
/// Scott et al., "On the final exponentiation for calculating pairings on ordinary
/// elliptic curves" (2009).
pub(crate) fn final_exponentiation(f: &Fp12) -> Fp12 {
    // Easy part.
    let f = f.conj().mul(&f.invert());
    let f = f.frobenius().frobenius().mul(&f);
    // Hard part.
    let ft = cyclotomic_pow_t(&f);
    let ft2 = cyclotomic_pow_t(&ft);
    let ft3 = cyclotomic_pow_t(&ft2);
    let fp = f.frobenius();
    let fp2 = fp.frobenius();
    let fp3 = fp2.frobenius();
    let y0 = fp.mul(&fp2).mul(&fp3);
    let y1 = f.conj();
    let y2 = ft2.frobenius().frobenius();
    let y3 = ft.frobenius().conj();
    let y4 = ft.mul(&ft2.frobenius()).conj();
    let y5 = ft2.conj();
    let y6 = ft3.mul(&ft3.frobenius()).conj();
    let t0 = y6.cyclotomic_square().mul(&y4).mul(&y5);
    let t1 = y3.mul(&y5).mul(&t0);
    let t0 = t0.mul(&y2);
    let t1 = t1.cyclotomic_square().mul(&t0).cyclotomic_square();
    let t0 = t1.mul(&y1);
    let t1 = t1.mul(&y0);
    t0.cyclotomic_square().mul(&t1)
}

/// f^t for f in the cyclotomic subgroup (t is public): over the non-adjacent form of t, a
/// digit -1 multiplying by f⁻¹ = conj(f).
fn cyclotomic_pow_t(f: &Fp12) -> Fp12 {
    let fi = f.conj();
    let mut r = *f;
    for i in (0..T_NAF.1 - 1).rev() {
        r = r.cyclotomic_square();
        match T_NAF.0[i] {
            1 => r = r.mul(f),
            -1 => r = r.mul(&fi),
            _ => {}
        }
    }
    r
}

/// λ = 6t² = p mod N: Frobenius acts on G_T and on G2 (through the twisted Frobenius
/// ψ) as exponentiation / multiplication by λ.
pub(crate) const LAMBDA: u128 = 6 * (T as u128) * (T as u128);

/// Splits k < 2^256 as k0 + k1·λ with k0 < λ < 2^128 and k1 < 2^129, by a bit-serial
/// division whose steps are masked (constant time in k).
pub(crate) fn split(k: &Limbs) -> (u128, [u64; 3]) {
    let mut rem: u128 = 0;
    let mut q = [0u64; 4];
    for i in (0..256).rev() {
        let bit = ((k[i / 64] >> (i % 64)) & 1) as u128;
        let carry = rem >> 127;
        rem = (rem << 1) | bit;
        let (d, borrow) = rem.overflowing_sub(LAMBDA);
        let ge = carry | (!borrow as u128);
        let mask = shangmi_dispatch::ct::opaque_const(ge.wrapping_neg());
        rem ^= (rem ^ d) & mask;
        q[i / 64] |= (ge as u64) << (i % 64);
    }
    // k / λ < 2^256 / 2^127 = 2^129: q[3] is zero.
    (rem, [q[0], q[1], q[2]])
}

/// g^k for g in G_T and a secret k < 2^256: k = k0 + k1·λ, g^k = g^k0 · (g^p)^k1 with
/// both 4-bit-window tables scanned in full and cyclotomic squarings (33 windows instead
/// of 64). Constant time in k and g.
pub(crate) fn gt_pow(g: &Fp12, k: &Limbs) -> Fp12 {
    let (k0, k1) = split(k);
    let k0 = [k0 as u64, (k0 >> 64) as u64, 0];
    let mut t0 = [Fp12::ONE; 16];
    fill_by_squaring(&mut t0, g, Fp12::cyclotomic_square, Fp12::mul);
    let t1 = t0.map(|x| x.frobenius());
    let mut r = Fp12::ONE;
    for w in (0..33).rev() {
        if w != 32 {
            r = r
                .cyclotomic_square()
                .cyclotomic_square()
                .cyclotomic_square()
                .cyclotomic_square();
        }
        r = r.mul(&scan(&t0, nibble(&k0, w), Fp12::select));
        r = r.mul(&scan(&t1, nibble(&k1, w), Fp12::select));
    }
    r
}

/// Signed base-32 digits of a 129-bit integer k < 2^129 (three limbs, the top one below 2),
/// for `GTBASE_ROWS` digits (see [`signed_digits`]).
fn signed_digits32(k: &[u64; 3]) -> [(u64, u64); GTBASE_ROWS] {
    signed_digits(k)
}

/// Rows of the fixed-base table: 26 signed 5-bit digits cover the λ-split halves (below
/// 2^129) with the final carry (26·5 = 130 bits).
const GTBASE_ROWS: usize = 26;

/// A fixed g in G_T (e(P1, Ppub-s) or e(Ppub-e, P2)) and, with `alloc`, its fixed-base
/// table rows\[i\]\[j\] = g^(j·32^i) for j = 0..=16 and 26 rows (about 170 KB): with the λ
/// split and signed 5-bit digits (a negative digit takes the entry's inverse, the conjugate
/// in G_T), a power costs 52 multiplications and no squaring.
#[derive(Clone)]
pub(crate) struct GtBase {
    #[cfg_attr(feature = "alloc", allow(dead_code))]
    pub(crate) g: Fp12,
    #[cfg(feature = "alloc")]
    rows: alloc::boxed::Box<[[Fp12; 17]]>,
}

impl GtBase {
    pub(crate) fn new(g: Fp12) -> Self {
        #[cfg(feature = "alloc")]
        {
            let mut rows = alloc::vec::Vec::with_capacity(GTBASE_ROWS);
            let mut base = g;
            for _ in 0..GTBASE_ROWS {
                let mut row = [Fp12::ONE; 17];
                row[1] = base;
                for j in 2..17 {
                    row[j] = row[j - 1].mul(&base);
                }
                rows.push(row);
                base = row[16].square();
            }
            Self {
                g,
                rows: rows.into_boxed_slice(),
            }
        }
        #[cfg(not(feature = "alloc"))]
        Self { g }
    }

    /// g^k for a secret k (constant time: every table entry of a row is scanned, and the
    /// conjugation of a negative digit is a masked select).
    pub(crate) fn pow(&self, k: &Limbs) -> Fp12 {
        #[cfg(feature = "alloc")]
        {
            let (k0, k1) = split(k);
            let d0 = signed_digits32(&[k0 as u64, (k0 >> 64) as u64, 0]);
            let d1 = signed_digits32(&k1);
            let entry = |row: &[Fp12; 17], (abs, neg): (u64, u64)| {
                let mut e = row[0];
                for (j, t) in row.iter().enumerate().skip(1) {
                    let m = shangmi_limbs::is_zero_mask(&[abs ^ j as u64, 0, 0, 0]);
                    e = Fp12::select(m, &e, t);
                }
                Fp12::select(neg, &e, &e.conj())
            };
            let mut a = entry(&self.rows[0], d0[0]);
            let mut b = entry(&self.rows[0], d1[0]);
            for i in 1..GTBASE_ROWS {
                a = a.mul(&entry(&self.rows[i], d0[i]));
                b = b.mul(&entry(&self.rows[i], d1[i]));
            }
            a.mul(&b.frobenius())
        }
        #[cfg(not(feature = "alloc"))]
        gt_pow(&self.g, k)
    }
}

debug_name_only!(GtBase);

/// k·Q for Q in G2 and a secret k < 2^256: k = k0 + k1·λ, kQ = k0·Q + k1·ψ(Q), both
/// tables scanned in full, complete formulas (constant time in k and Q).
pub(crate) fn g2_mul(q: &G2, k: &Limbs) -> G2 {
    let (k0, k1) = split(k);
    let k0 = [k0 as u64, (k0 >> 64) as u64, 0];
    let mut t0 = [G2::IDENTITY; 16];
    fill_by_squaring(&mut t0, q, G2::double, G2::add);
    let t1 = t0.map(|p| G2 {
        x: p.x.conj().mul_fp(&GAMMA2_INV),
        y: p.y.conj().mul_fp(&GAMMA3_INV),
        z: p.z.conj(),
    });
    let mut r = G2::IDENTITY;
    for w in (0..33).rev() {
        r = r.double().double().double().double();
        r = r.add(&scan(&t0, nibble(&k0, w), G2::select));
        r = r.add(&scan(&t1, nibble(&k1, w), G2::select));
    }
    r
}

/// e(P, Q) for P in G1 and Q in G2 (both affine, so neither is the identity).
pub(crate) fn pairing(p: &Affine<Fp>, q: &Affine<Fp2>) -> Fp12 {
    final_exponentiation(&miller_loop(p, q))
}

/// e(P, Q) with Q prepared.
pub(crate) fn pairing_prepared(p: &Affine<Fp>, q: &G2Prepared) -> Fp12 {
    final_exponentiation(&miller_loop_prepared(&[(p, q)]))
}

/// e(P1, Q1)·e(P2, Q2) with both Q prepared (one shared loop, one final exponentiation).
pub(crate) fn pairing_product2(
    p1: &Affine<Fp>,
    q1: &G2Prepared,
    p2: &Affine<Fp>,
    q2: &G2Prepared,
) -> Fp12 {
    final_exponentiation(&miller_loop_prepared(&[(p1, q1), (p2, q2)]))
}

/// N - 1 as an exponent (for tests).
#[allow(dead_code)]
pub(crate) const N_MINUS_1: [u64; 4] = sub(&crate::field::Fn::MODULUS, &[1, 0, 0, 0]).0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::{G1, P1, P2};
    use crate::field::Fn;

    fn gt_from_hex(h: &[&str; 12]) -> Fp12 {
        let f = |i: usize| Fp::from_hex(h[i]);
        // The encoding order of Fp12::to_bytes.
        Fp12::new(
            Fp4::new(Fp2::new(f(11), f(10)), Fp2::new(f(9), f(8))),
            Fp4::new(Fp2::new(f(7), f(6)), Fp2::new(f(5), f(4))),
            Fp4::new(Fp2::new(f(3), f(2)), Fp2::new(f(1), f(0))),
        )
    }

    /// GM/T 0044-2016 part 5, A.2 (signature example): g = e(P1, Ppub-s) with
    /// ks = 0130E784…; the value as gmsm v0.44 internal/sm9/bn256/bn_pair_test.go
    /// (`expected1`) reproduces it.
    #[test]
    fn pairing_appendix_a() {
        let ks = Fn::from_hex("0130E78459D78545CB54C587E02CF480CE0B66340F319F348A1D5B1F2DC5F4");
        let ppub = G2::from(P2)
            .mul_ct(&ks.to_limbs())
            .to_affine()
            .expect("point");
        let expected = gt_from_hex(&[
            "4e378fb5561cd0668f906b731ac58fee25738edf09cadc7a29c0abc0177aea6d",
            "28b3404a61908f5d6198815c99af1990c8af38655930058c28c21bb539ce0000",
            "38bffe40a22d529a0c66124b2c308dac9229912656f62b4facfced408e02380f",
            "a01f2c8bee81769609462c69c96aa923fd863e209d3ce26dd889b55e2e3873db",
            "67e0e0c2eed7a6993dce28fe9aa2ef56834307860839677f96685f2b44d0911f",
            "5a1ae172102efd95df7338dbc577c66d8d6c15e0a0158c7507228efb078f42a6",
            "1604a3fcfa9783e667ce9fcb1062c2a5c6685c316dda62de0548baa6ba30038b",
            "93634f44fa13af76169f3cc8fbea880adaff8475d5fd28a75deb83c44362b439",
            "b3129a75d31d17194675a1bc56947920898fbf390a5bf5d931ce6cbb3340f66d",
            "4c744e69c4a2e1c8ed72f796d151a17ce2325b943260fc460b9f73cb57c9014b",
            "84b87422330d7936eaba1109fa5a7a7181ee16f2438b0aeb2f38fd5f7554e57a",
            "aab9f06a4eeba4323a7833db202e4e35639d93fa3305af73f0f071d7d284fcfb",
        ]);
        let g = pairing(&P1, &ppub);
        assert_eq!(g, expected);
    }

    #[test]
    fn cyclotomic_square_matches() {
        let e = pairing(&P1, &P2);
        assert_eq!(e.cyclotomic_square(), e.square());
        let m = miller_loop(&P1, &P2);
        let easy = m.conj().mul(&m.invert());
        let easy = easy.frobenius().frobenius().mul(&easy);
        assert_eq!(easy.cyclotomic_square(), easy.square());
    }

    #[test]
    fn decompositions() {
        // λ = p mod N.
        let pm = shangmi_limbs::sub(&Fp::MODULUS, &Fn::MODULUS).0;
        assert_eq!(pm, [LAMBDA as u64, (LAMBDA >> 64) as u64, 0, 0]);
        let k = [
            0xffff_ffff_ffff_fff1,
            0x0fed_cba9_8765_4321,
            0x5555,
            0xb640_0000_0000_0000,
        ];
        let (k0, k1) = split(&k);
        assert!(k0 < LAMBDA);
        // k0 + k1·λ == k (as integers), checked mod N through the scalar field.
        let l = Fn::from_limbs(&[LAMBDA as u64, (LAMBDA >> 64) as u64, 0, 0]);
        let kk = Fn::from_limbs(&[k0 as u64, (k0 >> 64) as u64, 0, 0])
            .add(&Fn::from_limbs(&[k1[0], k1[1], k1[2], 0]).mul(&l));
        assert_eq!(kk, Fn::from_limbs(&k));
        let e = pairing(&P1, &P2);
        assert_eq!(gt_pow(&e, &k), e.pow_ct(&k));
        assert_eq!(gt_pow(&e, &[0; 4]), Fp12::ONE);
        let base = GtBase::new(e);
        assert_eq!(base.pow(&k), e.pow_ct(&k));
        assert_eq!(base.pow(&[0; 4]), Fp12::ONE);
        assert_eq!(base.pow(&N_MINUS_1).mul(&e), Fp12::ONE);
        let q = G2::from(P2);
        // ψ(Q) = λQ on G2.
        let lq = q
            .mul_ct(&[LAMBDA as u64, (LAMBDA >> 64) as u64, 0, 0])
            .to_affine();
        assert_eq!(lq, Some(twist_frobenius(&P2)));
        let a = g2_mul(&q, &k).to_affine();
        assert_eq!(a, q.mul_ct(&k).to_affine());
    }

    #[test]
    fn naf_digits() {
        for k in [A, T as u128, 1, 3, 7, 0x5555, u64::MAX as u128] {
            let (d, n) = naf(k);
            let mut v: i128 = 0;
            for i in (0..n).rev() {
                v = 2 * v + d[i] as i128;
                assert!(i == 0 || d[i] == 0 || d[i - 1] == 0, "adjacent digits");
            }
            assert_eq!(v as u128, k);
            assert_eq!(d[n - 1], 1);
        }
        assert_eq!((A_NAF.1, weight(&A_NAF)), (66, 11));
        assert_eq!((T_NAF.1, weight(&T_NAF)), (64, 11));
        // f^t over the NAF against the plain power, on an element of G_T.
        let e = pairing(&P1, &P2);
        assert_eq!(cyclotomic_pow_t(&e), e.pow_u64(T));
    }

    #[test]
    fn signed_digits_and_fixed_base_powers() {
        // Σ d_i·32^i = k, checked mod N (k < 2^129 < N), on edge and random values.
        let mut x: u64 = 0x2468_ace0_1357_9bdf;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut ks: std::vec::Vec<[u64; 3]> = std::vec![
            [0, 0, 0],
            [u64::MAX, u64::MAX, 1],
            [u64::MAX, u64::MAX, 0],
            [0x8421_0842_1084_2108, 0x4210_8421_0842_1084, 1],
            [0x7bde_f7bd_ef7b_def7, 0xbdef_7bde_f7bd_ef7b, 1],
            [16, 0, 0],
            [17, 0, 0],
        ];
        for _ in 0..200 {
            ks.push([next(), next(), next() & 1]);
        }
        let b32 = Fn::from_u64(32);
        for k in &ks {
            let mut acc = Fn::ZERO;
            let mut w = Fn::ONE;
            for (abs, neg) in signed_digits32(k) {
                assert!(abs <= 16 && (neg == 0 || neg == u64::MAX));
                let t = Fn::from_u64(abs).mul(&w);
                acc = if neg == 0 { acc.add(&t) } else { acc.sub(&t) };
                w = w.mul(&b32);
            }
            assert_eq!(acc, Fn::from_limbs(&[k[0], k[1], k[2], 0]), "{k:x?}");
        }
        // GtBase::pow against the plain window power on scalars whose halves have digits
        // of every sign.
        let e = pairing(&P1, &P2);
        let base = GtBase::new(e);
        let mut scalars = std::vec![
            N_MINUS_1,
            [u64::MAX, u64::MAX, u64::MAX, 0x0fff_ffff_ffff_ffff],
            [1, 0, 0, 0],
            [LAMBDA as u64, (LAMBDA >> 64) as u64, 0, 0],
        ];
        for _ in 0..4 {
            scalars.push([next(), next(), next(), next() >> 4]);
        }
        for k in &scalars {
            assert_eq!(base.pow(k), e.pow_ct(k), "{k:x?}");
        }
    }

    #[test]
    fn prepared_and_products() {
        let a = [5, 6, 7, 8];
        let pa = G1::from(P1).mul_ct(&a).to_affine().expect("point");
        let q = G2::from(P2)
            .mul_ct(&[9, 0, 1, 0])
            .to_affine()
            .expect("point");
        let prep = G2Prepared::new(&q);
        let e1 = pairing(&pa, &q);
        assert_eq!(pairing_prepared(&pa, &prep), e1);
        let e2 = pairing(&P1, &P2);
        let p2 = G2Prepared::new(&P2);
        assert_eq!(pairing_product2(&pa, &prep, &P1, &p2), e1.mul(&e2));
    }

    #[test]
    fn bilinear() {
        let a = [0x1234_5678_9abc_def1, 0x0fed_cba9_8765_4321, 0x5555, 0x0123];
        let b = [0x0bad_cafe_dead_beef, 7, 0x1111_2222_3333_4444, 0x0456];
        let pa = G1::from(P1).mul_ct(&a).to_affine().expect("point");
        let qb = G2::from(P2).mul_ct(&b).to_affine().expect("point");
        let e = pairing(&P1, &P2);
        assert_ne!(e, Fp12::ONE);
        let ab = Fn::from_limbs(&a).mul(&Fn::from_limbs(&b)).to_limbs();
        assert_eq!(pairing(&pa, &qb), e.pow_ct(&ab));
        // Order N.
        assert_eq!(e.pow_ct(&N_MINUS_1).mul(&e), Fp12::ONE);
    }
}

#[cfg(test)]
mod timing {
    extern crate std;
    use super::*;
    use crate::curve::{G1, P1, P2};
    use std::time::Instant;

    /// The fastest of 7 rounds of `n` calls (the machine is shared: the minimum is the
    /// least disturbed figure).
    fn t<R>(name: &str, n: u32, mut f: impl FnMut() -> R) {
        let mut best = f64::MAX;
        for _ in 0..7 {
            let s = Instant::now();
            for _ in 0..n {
                core::hint::black_box(f());
            }
            best = best.min(s.elapsed().as_secs_f64() * 1e6 / n as f64);
        }
        std::println!("{name:<12} {best:>10.3} us");
    }

    #[test]
    #[ignore]
    fn components() {
        let k = [
            0x1234_5678_9abc_def1,
            0x0fed_cba9_8765_4321,
            0x5555,
            0x0123_0000_0000_0000,
        ];
        let a = P1.x;
        t("fp mul", 100000, || core::hint::black_box(a).mul(&a));
        let (b, c, d) = (P1.y, P2.x.c0, P2.y.c1);
        t("fp mul x4", 100000, || {
            let (a, b, c, d) = core::hint::black_box((a, b, c, d));
            (a.mul(&a), b.mul(&b), c.mul(&c), d.mul(&d))
        });
        t("fp add", 100000, || core::hint::black_box(a).add(&a));
        t("fp sub", 100000, || core::hint::black_box(a).sub(&P1.y));
        let a2 = P2.x;
        t("fp2 mul", 100000, || core::hint::black_box(a2).mul(&a2));
        t("fp2 sqr", 100000, || core::hint::black_box(a2).square());
        let e = pairing(&P1, &P2);
        t("fp12 mul", 10000, || core::hint::black_box(e).mul(&e));
        t("fp12 sqr", 10000, || core::hint::black_box(e).square());
        t("fp12 cyc sqr", 10000, || {
            core::hint::black_box(e).cyclotomic_square()
        });
        let (l0, l2) = (e.c1, e.c2.c0);
        t("fp12 line", 10000, || {
            core::hint::black_box(e).mul_line(&l0, &l2)
        });
        t("miller", 200, || miller_loop(&P1, &P2));
        let m = miller_loop(&P1, &P2);
        t("final exp", 200, || final_exponentiation(&m));
        t("gt pow_ct", 200, || e.pow_ct(&k));
        t("gt_pow", 200, || gt_pow(&e, &k));
        t("g2_mul", 200, || g2_mul(&crate::curve::G2::from(P2), &k));
        t("g1 mul_ct", 200, || G1::from(P1).mul_ct(&k));
        t("g2 mul_ct", 200, || crate::curve::G2::from(P2).mul_ct(&k));
        t("fp invert", 1000, || a.invert());
        let base = GtBase::new(e);
        t("gtbase pow", 200, || base.pow(&k));
        let prep = G2Prepared::new(&P2);
        t("miller prep2", 200, || {
            miller_loop_prepared(&[(&P1, &prep), (&P1, &prep)])
        });
        // The `shangmi speed` SM9 rows' work (cli/src/rows/sm9.rs).
        use crate::{EncryptMasterKey, SignMasterKey};
        use rand::{SeedableRng, rngs::StdRng};
        use signature::Verifier;
        let mut rng = StdRng::seed_from_u64(9);
        let msg = [0x5A; 32];
        let kgc = SignMasterKey::from_bytes(&[0x42; 32]).expect("key");
        let alice = kgc.extract(b"Alice").expect("extract");
        let sig = alice.sign_with_rng(&mut rng, &msg).expect("sign");
        let vk = kgc.public_key().clone();
        let kgce = EncryptMasterKey::from_bytes(&[0x42; 32]).expect("key");
        let enc = kgce.public_key().clone();
        t("sm9 sign", 100, || alice.sign_with_rng(&mut rng, &msg).ok());
        t("sm9 verify", 100, || {
            vk.verifying_key(b"Alice").verify(&msg, &sig).is_ok()
        });
        t("sm9 encrypt", 100, || {
            enc.encrypt(&mut rng, b"Bob", &msg).ok()
        });
        // What the per-key tables cost when a key is made.
        let (ds, ppub, ppub_e) = (alice.to_uncompressed(), vk.to_bytes(), enc.to_bytes());
        t("signing key", 20, || {
            crate::SigningKey::from_bytes(&ds, &vk).ok()
        });
        t("sign mpk", 10, || {
            crate::SignMasterPublicKey::from_bytes(&ppub).ok()
        });
        t("enc mpk", 10, || {
            crate::EncryptMasterPublicKey::from_bytes(&ppub_e).ok()
        });
    }
}
