//! Scalar multiplication.
//!
//! * `mul_g`: k·G in constant time with a signed-window comb (Booth digits, one table of
//!   affine multiples for every `COMB_STEPS`-th window, the entry chosen by a masked scan of
//!   the whole table; the technique of OpenSSL/BoringSSL's P-256 `ecp_nistz256`). The fast
//!   profile has a table for every 7-bit window on 64-bit targets (37 tables of 64 points,
//!   148 KiB, 36 mixed additions, no doublings; GmSSL's window) and for every 6-bit window
//!   elsewhere (43 tables of 32 points, 88 KiB, 42 additions); the size profile
//!   (`--cfg shangmi_sm2_profile="size"`) 6
//!   tables of 16 points for 5-bit windows (6 KB, 51 mixed additions, 46 doublings).
//!   `build.rs` generates the tables.
//! * `mul_g_add_vartime`: u1·G + u2·Q for verification (public inputs only): one doubling
//!   loop with a width-5 NAF for Q and a NAF over odd multiples of G (a static table: width
//!   12 on 64-bit targets, 8 elsewhere; the size profile reads 1·G, 3·G, .., 15·G from the
//!   comb's first table instead, width 5).
//! * `mul_g_add_table_vartime`: the same with a per-key table for Q (32 doublings), G by the
//!   comb (zero digits skipped); the size profile keeps no per-key table.

use super::field::FieldElement;
use super::limbs::Limbs;
use super::point::{Affine, Cached, Jacobian};
use shangmi_dispatch::ct;

include!(concat!(env!("OUT_DIR"), "/comb_table.rs"));

/// Entries per comb table: |digit|·B for |digit| in 1..=2^(W-1).
const COMB_ENTRIES: usize = 1 << (COMB_W - 1);

/// Window i of width W of `k`: bits `W·i .. W·i + W` (positions are public; bits at 256 and
/// above read as zero).
#[inline(always)]
fn window<const W: usize>(k: &Limbs, i: usize) -> u64 {
    bits::<W>(k, W * i)
}

/// Signed base-2^W digits d_i in [-2^(W-1) + 1, 2^(W-1)] with k = Σ d_i·2^(W·i) (Booth
/// recoding), constant time; `N` windows must cover 256 bits and the final carry.
pub(crate) fn recode<const W: usize, const N: usize>(k: &Limbs) -> [i64; N] {
    let mut d = [0i64; N];
    let mut carry = 0i64;
    for (i, di) in d.iter_mut().enumerate() {
        let v = window::<W>(k, i) as i64 + carry;
        // v in [0, 2^W]; digits above 2^(W-1) become v - 2^W with a carry into the next window.
        carry = ((1 << (W - 1)) - v) >> 63 & 1;
        *di = v - (carry << W);
    }
    d
}

/// All ones iff `a == b` (constant time; `a ^ b` < 2^63 here), opaque to the optimiser.
#[inline(always)]
fn eq_mask(a: u64, b: u64) -> u64 {
    ct::opaque_u64(((a ^ b).wrapping_sub(1) >> 63).wrapping_neg())
}

/// The entry for |digit| in 1..=N (all zeros for 0) by scanning the whole table (one 8-limb
/// accumulator, so the compiler keeps it in vector registers).
#[inline(always)]
pub(crate) fn lookup<const N: usize>(table: &[Affine; N], abs: u64) -> Affine {
    let mut acc = [0u64; 8];
    for (j, e) in table.iter().enumerate() {
        let m = eq_mask(j as u64 + 1, abs);
        let (x, y) = (e.x.limbs(), e.y.limbs());
        let limbs = [x[0], x[1], x[2], x[3], y[0], y[1], y[2], y[3]];
        for (a, l) in acc.iter_mut().zip(limbs) {
            *a |= l & m;
        }
    }
    Affine {
        x: FieldElement::from_limbs([acc[0], acc[1], acc[2], acc[3]]),
        y: FieldElement::from_limbs([acc[4], acc[5], acc[6], acc[7]]),
    }
}

/// k·G for a canonical k in [0, n-1], constant time, by the comb ([`comb_walk`]).
///
/// Exceptional additions (accumulator = ± addend): at step j the accumulator is
/// Σ d_i'·2^(W(i' - j))·G over the windows i' added so far, and the addend of window i is
/// d_i·2^(W(i - j))·G, at a position no i' - j takes. Digits are at most 2^(W-1) in
/// magnitude, so a sum whose top nonzero digit sits above i - j exceeds |addend| and one whose
/// top digit sits below is smaller than 2^(W(i - j)) <= |addend|: as integers they differ.
/// They can still be congruent modulo n once one of them reaches n/2, which the bounds rule
/// out before the last step (the size profile's accumulator stays below 2^254.1 there) and,
/// with one table per window, before the last window. Those last additions compute the
/// doubling and select it when H = R = 0, and read a sum at acc = -addend (the identity,
/// Z = 0) back from Z for the next addition. For the SM2 order no such k is known in either
/// profile (the test `comb_exceptional_additions_only_where_handled` searches for them): the
/// handling is a guard costing one doubling per addition of the last step.
pub fn mul_g(k: &Limbs) -> Jacobian {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = super::scan_x86::avx2() {
        return mul_g_body(k, |t, abs| super::scan_x86::lookup(avx2, t, abs));
    }
    mul_g_body(k, lookup)
}

/// [`mul_g`] and [`mul_ct`] with the portable scan (the one firmware runs), for the
/// constant-time test on machines where the dispatch picks the AVX2 scan.
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) fn mul_g_ct_portable(k: &Limbs, p: &Affine) -> (Jacobian, Jacobian) {
    (mul_g_body(k, lookup), mul_ct_body(k, p, lookup))
}

/// The comb, with the table scan given.
#[inline(always)]
fn mul_g_body(k: &Limbs, lookup: impl Fn(&[Affine; COMB_ENTRIES], u64) -> Affine) -> Jacobian {
    let mut acc = Accumulator::new();
    comb_walk(
        k,
        &mut acc,
        |acc| acc.point = acc.point.double(),
        |acc, d, table, first, last| {
            if first {
                acc.start(d, |abs| lookup(table, abs));
            } else {
                acc.add_digit(d, last, |abs| lookup(table, abs));
            }
        },
    );
    acc.point
}

/// The comb's schedule, shared by [`mul_g`] and the verification comb: with Booth digits d_i
/// of k in `COMB_W`-bit windows and `COMB[m][j] = (j + 1)·2^(W·S·m)·G` (S = `COMB_STEPS`),
/// k·G = Σ_s 2^(W·s)·Σ_m d_(s + S·m)·COMB[m][|d| - 1], evaluated from the top step s = S - 1
/// down with W doublings between steps (none with S = 1). `add(acc, digit, table, first,
/// last)` adds digit·entry; `first` marks the first addition (to the identity) and `last`
/// the additions where the accumulator may equal ± the addend (see [`mul_g`]). Window
/// positions are public; digits are passed as they are.
#[inline(always)]
fn comb_walk<A>(
    k: &Limbs,
    acc: &mut A,
    double: impl Fn(&mut A),
    add: impl Fn(&mut A, i64, &[Affine; COMB_ENTRIES], bool, bool),
) {
    let digits = recode::<COMB_W, COMB_WINDOWS>(k);
    for step in (0..COMB_STEPS).rev() {
        if step + 1 < COMB_STEPS {
            for _ in 0..COMB_W {
                double(acc);
            }
        }
        for (m, table) in COMB.iter().enumerate() {
            let i = step + COMB_STEPS * m;
            if i < COMB_WINDOWS {
                let first = step + 1 == COMB_STEPS && m == 0;
                let last = step == 0 && (COMB_STEPS > 1 || i == COMB_WINDOWS - 1);
                add(acc, digits[i], table, first, last);
            }
        }
    }
}

/// The accumulator of the constant-time signed-digit multiplications (the comb and k·P):
/// the point and a mask that is all ones while it is still the identity.
struct Accumulator {
    point: Jacobian,
    infinity: u64,
}

impl Accumulator {
    fn new() -> Accumulator {
        Accumulator {
            point: Jacobian::INFINITY,
            infinity: u64::MAX,
        }
    }

    /// The first digit, on the identity accumulator: it becomes d·T (the identity for d = 0)
    /// with no addition.
    #[inline(always)]
    fn start(&mut self, d: i64, lookup: impl FnOnce(u64) -> Affine) {
        let (p, abs) = signed_entry(d, lookup);
        let zero = eq_mask(abs, 0);
        self.point = Jacobian::select(zero, &Jacobian::INFINITY, &p.to_jacobian());
        self.infinity = zero;
    }

    /// Adds d·T, where `lookup(|d|)` scans the table for |d|·T, by one mixed addition whose
    /// special cases are selected by masks: the identity accumulator takes the entry, a zero
    /// digit keeps the accumulator, and when `last` (the additions where the accumulator may
    /// equal ± the entry) the doubling is computed and selected if H = R = 0, and whether the
    /// result is the identity (the sum at acc = -entry) is read from its Z.
    #[inline(always)]
    fn add_digit(&mut self, d: i64, last: bool, lookup: impl FnOnce(u64) -> Affine) {
        let (p, abs) = signed_entry(d, lookup);
        let (sum, h0, r0) = self.point.add_affine_unchecked(&p);
        let mut next = sum;
        if last {
            // The formula's masks pass the barrier before they are combined: without it LLVM
            // turned this select into a conditional jump on them (memcheck caught it).
            let dbl = self.point.double();
            let same = ct::opaque_u64(h0) & ct::opaque_u64(r0) & !self.infinity;
            next = Jacobian::select(same, &dbl, &next);
        }
        next = Jacobian::select(self.infinity, &p.to_jacobian(), &next);
        let zero = eq_mask(abs, 0);
        self.point = Jacobian::select(zero, &self.point, &next);
        self.infinity = if last {
            self.point.is_infinity()
        } else {
            self.infinity & zero
        };
    }
}

/// d·T as the entry `lookup(|d|)` with its sign applied by a masked negation, and |d|.
#[inline(always)]
fn signed_entry(d: i64, lookup: impl FnOnce(u64) -> Affine) -> (Affine, u64) {
    let sign = (d >> 63) as u64; // all ones iff negative
    let abs = ((d as u64) ^ sign).wrapping_sub(sign);
    let mut p = lookup(abs);
    p.y = FieldElement::select(sign, &p.y.neg(), &p.y);
    (p, abs)
}

/// Width-`W` non-adjacent form of k (W <= 16, so digits fit in `i16`): odd digits in
/// (-2^(W-1), 2^(W-1)), at most one nonzero in any W consecutive positions. Windows are read
/// straight from k with a carry (the way libsecp256k1's `ecmult_wnaf` walks the bits), so a
/// digit costs one window read and a zero one bit test.
pub(crate) fn wnaf<const W: usize>(k: &Limbs) -> [i16; 257] {
    let mut out = [0i16; 257];
    let (mut pos, mut carry) = (0usize, 0u64);
    while pos < 257 {
        if bits::<1>(k, pos) == carry {
            pos += 1;
            continue;
        }
        let word = bits::<W>(k, pos) + carry;
        carry = (word >> (W - 1)) & 1;
        out[pos] = (word as i64 - ((carry as i64) << W)) as i16;
        pos += W;
    }
    out
}

/// Bits `pos .. pos + W` of `k` (W <= 16; bits at 256 and above read as zero).
#[inline(always)]
fn bits<const W: usize>(k: &Limbs, pos: usize) -> u64 {
    let (w, s) = (pos / 64, pos % 64);
    if w >= 4 {
        return 0;
    }
    let lo = k[w] >> s;
    let hi = if s > 64 - W && w < 3 {
        k[w + 1] << (64 - s)
    } else {
        0
    };
    (lo | hi) & ((1 << W) - 1)
}

/// Chunks of a verification scalar: u2 = Σ c_j·2^(32j).
#[cfg(not(shangmi_sm2_profile = "size"))]
pub const CHUNKS: usize = 8;

/// Per-key table for verification: `t[j][i] = (2i + 1)·2^(32j)·Q`, affine. With it, u2·Q
/// needs 32 doublings instead of 256 (the 2^(32j) shifts are paid once per key).
#[cfg(not(shangmi_sm2_profile = "size"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QTable {
    t: [[Affine; 8]; CHUNKS],
}

/// The size profile keeps no per-key table: a "precomputed" key holds Q alone and verifies by
/// [`mul_g_add_vartime`], so a `VerifyingKey` (and the `SigningKey` that embeds one) holds no
/// 4 KiB table inline in builds without `alloc` (with it the fast profile's table is on the
/// heap).
#[cfg(shangmi_sm2_profile = "size")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QTable {
    q: Affine,
}

#[cfg(shangmi_sm2_profile = "size")]
impl QTable {
    /// Keeps Q.
    pub fn new(q: &Affine) -> QTable {
        QTable { q: *q }
    }
}

/// u1·G + u2·Q for a "precomputed" key in the size profile: the plain verification path.
#[cfg(shangmi_sm2_profile = "size")]
pub fn mul_g_add_table_vartime(u1: &Limbs, u2: &Limbs, table: &QTable) -> Jacobian {
    mul_g_add_vartime(u1, u2, &table.q)
}

#[cfg(not(shangmi_sm2_profile = "size"))]
impl QTable {
    /// Builds the table for Q (not the identity): 224 doublings, 56 additions and one
    /// batched inversion (Montgomery's trick).
    pub fn new(q: &Affine) -> QTable {
        let mut jac = [[Jacobian::INFINITY; 8]; CHUNKS];
        let mut base = q.to_jacobian();
        for (j, row) in jac.iter_mut().enumerate() {
            if j > 0 {
                for _ in 0..32 {
                    base = base.double();
                }
            }
            let b2 = base.double();
            row[0] = base;
            for i in 1..8 {
                row[i] = row[i - 1].add_vartime(&b2);
            }
        }
        // None is infinity: Q has prime order n and every multiple here is below n.
        let flat: [Jacobian; CHUNKS * 8] = core::array::from_fn(|n| jac[n / 8][n % 8]);
        let affine = Jacobian::batch_to_affine_vartime(&flat);
        QTable {
            t: core::array::from_fn(|j| core::array::from_fn(|i| affine[j * 8 + i])),
        }
    }
}

/// Width-5 NAF of a 32-bit chunk: odd digits in [-15, 15] (33 digits cover the carry).
#[cfg(not(shangmi_sm2_profile = "size"))]
fn wnaf5_u32(c: u32) -> [i8; 33] {
    let mut out = [0i8; 33];
    let mut k = i64::from(c);
    let mut i = 0;
    while k != 0 {
        if k & 1 == 1 {
            let mut d = k & 31;
            if d > 16 {
                d -= 32;
            }
            out[i] = d as i8;
            k -= d;
        }
        k >>= 1;
        i += 1;
    }
    out
}

/// The G part u1·G through the comb table, variable time (the comb's schedule, zero digits
/// skipped, every case handled by the additions).
#[cfg(not(shangmi_sm2_profile = "size"))]
fn comb_vartime(u1: &Limbs) -> Jacobian {
    let mut g_acc = Jacobian::INFINITY;
    comb_walk(
        u1,
        &mut g_acc,
        |acc| *acc = acc.double(),
        |acc, d, table, _, _| {
            if d != 0 {
                let e = &table[(d.unsigned_abs() - 1) as usize];
                *acc = acc.add_affine_vartime(&if d < 0 { e.neg() } else { *e });
            }
        },
    );
    g_acc
}

/// (2i + 1)·G, for the width-`G_NAF_WIDTH` NAF of verification's u1: the static table of odd
/// multiples, or in the size profile the comb's first table (1·G .. 16·G).
#[inline(always)]
pub(crate) fn g_odd(i: usize) -> &'static Affine {
    #[cfg(not(shangmi_sm2_profile = "size"))]
    return &G_ODD[i];
    #[cfg(shangmi_sm2_profile = "size")]
    return &COMB[0][2 * i];
}

/// Number of odd multiples of G that [`g_odd`] serves (for the tests).
#[cfg(test)]
pub(crate) const G_ODD_COUNT: usize = 1 << (G_NAF_WIDTH - 2);

/// u1·G + u2·Q with Q's per-key table, variable time (verification).
#[cfg(not(shangmi_sm2_profile = "size"))]
pub fn mul_g_add_table_vartime(u1: &Limbs, u2: &Limbs, table: &QTable) -> Jacobian {
    let mut nafs = [[0i8; 33]; CHUNKS];
    for (j, naf) in nafs.iter_mut().enumerate() {
        *naf = wnaf5_u32((u2[j / 2] >> (32 * (j % 2))) as u32);
    }
    let mut acc = Jacobian::INFINITY;
    for i in (0..33).rev() {
        acc = acc.double();
        for (naf, row) in nafs.iter().zip(table.t.iter()) {
            let d = naf[i];
            if d != 0 {
                let e = &row[(d.unsigned_abs() / 2) as usize];
                let p = if d < 0 { e.neg() } else { *e };
                acc = acc.add_affine_vartime(&p);
            }
        }
    }
    acc.add_vartime(&comb_vartime(u1))
}

/// u1·G + u2·Q in variable time (verification: every input is public): one doubling loop
/// (Straus), Q by a width-5 NAF over its odd multiples Q .. 15Q made here by co-Z additions
/// ([`Jacobian::odd_multiples`]) and kept with their Z² and Z³ (see [`Cached`]), G by a
/// width-`G_NAF_WIDTH` NAF over static odd multiples of G ([`g_odd`]; mixed additions: with
/// width 12 about 20 of them, with width 8 about 28, with the size profile's 5 about 43).
pub fn mul_g_add_vartime(u1: &Limbs, u2: &Limbs, q: &Affine) -> Jacobian {
    let tbl = Jacobian::odd_multiples::<8>(q).map(|p| Cached::new(&p));
    let (nq, ng) = (wnaf::<5>(u2), wnaf::<G_NAF_WIDTH>(u1));
    let mut top = nq.len();
    while top > 0 && nq[top - 1] == 0 && ng[top - 1] == 0 {
        top -= 1;
    }
    let mut acc = Jacobian::INFINITY;
    for i in (0..top).rev() {
        acc = acc.double();
        let d = nq[i];
        if d != 0 {
            let e = &tbl[(d.unsigned_abs() / 2) as usize];
            acc = acc.add_cached_vartime(&if d < 0 { e.neg() } else { *e });
        }
        let d = ng[i];
        if d != 0 {
            let e = g_odd((d.unsigned_abs() / 2) as usize);
            acc = acc.add_affine_vartime(&if d < 0 { e.neg() } else { *e });
        }
    }
    acc
}

/// k·P for a public point P and a secret canonical k (below n), constant time: signed 5-bit
/// windows (Booth digits in [-15, 16], 52 windows) over an affine table of 1·P .. 16·P (one
/// shared inversion, in variable time: P is public), five doublings and one mixed addition
/// per window, the entry chosen by a scan of the whole table and its sign applied by a masked
/// negation.
///
/// Only the last addition can meet an exceptional case. Before window w the accumulator is
/// 32·m·P with m = ⌊k / 2^(5w+5)⌋ or one more (the recoding's carry), and it is added to
/// d·P with |d| <= 16. Equal or opposite points need 32·m ≡ ±d (mod n); for w >= 1,
/// 0 <= 32·m <= k/32 + 32 < n - 16, so only m = d = 0 qualifies (the accumulator-at-infinity
/// and zero-digit cases, which the masks select around). In the last window 32·m can reach
/// k + 32 - (k mod 32) >= n: for k = n - 2|d| with d < 0 the accumulator equals d·P, so the
/// doubling is computed there and selected by the formula's H = R = 0 masks.
pub fn mul_ct(k: &Limbs, p: &Affine) -> Jacobian {
    #[cfg(target_arch = "x86_64")]
    if let Some(avx2) = super::scan_x86::avx2() {
        return mul_ct_body(k, p, |t, abs| super::scan_x86::lookup(avx2, t, abs));
    }
    mul_ct_body(k, p, lookup)
}

/// Windows of [`mul_ct`]: 52 five-bit windows cover 256 bits and the final carry.
pub(crate) const CT_WINDOWS: usize = 52;

/// [`mul_ct`], with the table scan given.
#[inline(always)]
fn mul_ct_body(k: &Limbs, p: &Affine, lookup: impl Fn(&[Affine; 16], u64) -> Affine) -> Jacobian {
    // Multiples 1·P .. 16·P by co-Z additions, then affine, both in variable time (P is
    // public). None of them is infinity: P has prime order n > 17.
    let table = Jacobian::batch_to_affine_vartime(&Jacobian::multiples::<16>(p));
    let digits = recode::<5, CT_WINDOWS>(k);
    let mut acc = Accumulator::new();
    acc.start(digits[CT_WINDOWS - 1], |abs| lookup(&table, abs));
    for w in (0..CT_WINDOWS - 1).rev() {
        for _ in 0..5 {
            acc.point = acc.point.double();
        }
        acc.add_digit(digits[w], w == 0, |abs| lookup(&table, abs));
    }
    acc.point
}
