//! Constant-time modular inversion by Bernstein–Yang "safegcd" (D. J. Bernstein, B.-Y. Yang,
//! "Fast constant-time gcd computation and modular inversion", TCHES 2019), in the half-delta
//! form whose bound P. Wuille computed for libsecp256k1: 590 divsteps suffice for any
//! modulus below 2^256 and any input below it. The steps run in batches of 59 on the low 64
//! bits of f and g (a batch depends on nothing else), each batch gives a 2x2 transition
//! matrix, and the matrix is applied to the full f, g (an exact division by 2^62, see below)
//! and to the Bézout coefficients d, e (kept modulo M by adding the multiple of M that clears
//! their low 62 bits). Every step is masks and shifts: no branch and no memory index depends
//! on the input.
//!
//! [`invert_vartime`], for public values only, runs the same updates on batches of 62
//! divsteps of the original (full δ) form, several at a time, until g = 0 (the variable-time
//! variant of libsecp256k1's `modinv64_var`).
//!
//! f, g, d, e are five signed 62-bit limbs (the top one carries the sign). The matrix starts
//! at 2^3·identity, so after 59 steps it is scaled by 2^62 and its application divides by
//! exactly one limb (the trick libsecp256k1's constant-time `modinv64` uses to run 10
//! batches of 59 = 590 steps in radix 2^62).

use super::limbs::Limbs;

const M62: u64 = (1 << 62) - 1;
/// Divsteps per batch.
const BATCH: u32 = 59;
/// Batches: 10 · 59 = 590 divsteps.
const BATCHES: usize = 10;

/// A signed integer Σ v\[i\]·2^(62i): v\[0..4\] in \[0, 2^62), v\[4\] signed.
type Signed62 = [i64; 5];

/// A modulus for [`invert`]: M in signed-62 form and M^-1 mod 2^62.
pub struct Modulus {
    m: Signed62,
    m_inv62: u64,
}

impl Modulus {
    /// For an odd M below 2^256.
    pub const fn new(m: &Limbs) -> Modulus {
        // Newton's iteration for the inverse mod 2^64 (each step doubles the correct bits).
        let mut inv = 1u64;
        let mut i = 0;
        while i < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m[0].wrapping_mul(inv)));
            i += 1;
        }
        Modulus {
            m: to_signed62(m),
            m_inv62: inv & M62,
        }
    }
}

const fn to_signed62(a: &Limbs) -> Signed62 {
    [
        (a[0] & M62) as i64,
        ((a[0] >> 62 | a[1] << 2) & M62) as i64,
        ((a[1] >> 60 | a[2] << 4) & M62) as i64,
        ((a[2] >> 58 | a[3] << 6) & M62) as i64,
        (a[3] >> 56) as i64,
    ]
}

/// Back to four 64-bit limbs (for a value in [0, 2^256)).
fn from_signed62(v: &Signed62) -> Limbs {
    let v = v.map(|x| x as u64);
    [
        v[0] | v[1] << 62,
        v[1] >> 2 | v[2] << 60,
        v[2] >> 4 | v[3] << 58,
        v[3] >> 6 | v[4] << 56,
    ]
}

/// 2x2 transition matrix of a batch: 2^62·[f'; g'] = [u v; q r]·[f; g].
struct Matrix {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// 59 half-delta divsteps on the low 64 bits of f and g. `delta2` is 2δ (an odd integer,
/// starting at 1 for δ = 1/2). One divstep: if δ > 0 and g is odd, (δ, f, g) ←
/// (1 - δ, g, (g - f)/2), else (1 + δ, f, (g + (g mod 2)·f)/2). The matrix is kept integral
/// by doubling the f row instead of halving the g row.
#[inline(always)]
fn divsteps(delta2: &mut i64, f0: u64, g0: u64) -> Matrix {
    let (mut f, mut g) = (f0, g0);
    let one = 1u64 << (62 - BATCH);
    let (mut u, mut v, mut q, mut r) = (one, 0u64, 0u64, one);
    let mut d = *delta2 as u64;
    for _ in 0..BATCH {
        // All ones iff g is odd; all ones iff δ > 0 and g is odd.
        let odd = (g & 1).wrapping_neg();
        let swap = ((d.wrapping_neg() as i64) >> 63) as u64 & odd;
        // With swap: g ← g - f, (q, r) ← (q - u, r - v), then f ← old g, (u, v) ← old (q, r).
        // Without: g ← g + (g mod 2)·f, (q, r) ← (q, r) + (g mod 2)·(u, v).
        let x = (f ^ swap).wrapping_sub(swap);
        let y = (u ^ swap).wrapping_sub(swap);
        let z = (v ^ swap).wrapping_sub(swap);
        g = g.wrapping_add(x & odd);
        q = q.wrapping_add(y & odd);
        r = r.wrapping_add(z & odd);
        f = f.wrapping_add(g & swap);
        u = u.wrapping_add(q & swap);
        v = v.wrapping_add(r & swap);
        // 2δ ← 2 - 2δ (swap) or 2δ + 2.
        d = (d ^ swap).wrapping_sub(swap).wrapping_add(2);
        g = ((g as i64) >> 1) as u64;
        u <<= 1;
        v <<= 1;
    }
    *delta2 = d as i64;
    Matrix {
        u: u as i64,
        v: v as i64,
        q: q as i64,
        r: r as i64,
    }
}

/// The carry pass of [`update_fg`] and [`update_de`], for (x, y) ← (u·x + v·y, q·x + r·y) /
/// 2^62: from the limb-0 sums `cx`, `cy` (their low 62 bits zero), shift down 62 bits, add
/// the products of limbs 1..5 (and the `plus` terms of limb `i`), limb i landing at i - 1
/// (the top limb keeps the sign). A macro so that both updates compile to the loop written
/// out in each.
macro_rules! shift_rows {
    (($x:ident, $y:ident) from ($cx:ident, $cy:ident) by ($u:ident, $v:ident, $q:ident, $r:ident)
        $(plus |$i:ident| ($ex:expr, $ey:expr))?) => {
        $cx >>= 62;
        $cy >>= 62;
        for i in 1..5 {
            $(let $i = i;)?
            $cx += $u * $x[i] as i128 + $v * $y[i] as i128 $(+ $ex)?;
            $cy += $q * $x[i] as i128 + $r * $y[i] as i128 $(+ $ey)?;
            $x[i - 1] = ($cx as u64 & M62) as i64;
            $y[i - 1] = ($cy as u64 & M62) as i64;
            $cx >>= 62;
            $cy >>= 62;
        }
        $x[4] = $cx as i64;
        $y[4] = $cy as i64;
    };
}

/// (f, g) ← (u·f + v·g, q·f + r·g) / 2^62 (exact).
#[inline(always)]
fn update_fg(f: &mut Signed62, g: &mut Signed62, t: &Matrix) {
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let mut cf = u * f[0] as i128 + v * g[0] as i128;
    let mut cg = q * f[0] as i128 + r * g[0] as i128;
    // The low 62 bits are zero by construction of the matrix.
    shift_rows!((f, g) from (cf, cg) by (u, v, q, r));
}

/// (d, e) ← (u·d + v·e, q·d + r·e) / 2^62 mod M, keeping both in (-2M, M): first add M·u
/// and/or M·v where d or e is negative (so the sums are not too negative), then the multiple
/// of M that clears the low 62 bits, then shift.
#[inline(always)]
fn update_de(d: &mut Signed62, e: &mut Signed62, t: &Matrix, m: &Modulus) {
    let sd = d[4] >> 63;
    let se = e[4] >> 63;
    let mut md = (t.u & sd).wrapping_add(t.v & se);
    let mut me = (t.q & sd).wrapping_add(t.r & se);
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let mut cd = u * d[0] as i128 + v * e[0] as i128;
    let mut ce = q * d[0] as i128 + r * e[0] as i128;
    // md -= (M^-1·cd + md) mod 2^62, so that cd + M·md ≡ 0 (mod 2^62).
    md = md.wrapping_sub((m.m_inv62.wrapping_mul(cd as u64).wrapping_add(md as u64) & M62) as i64);
    me = me.wrapping_sub((m.m_inv62.wrapping_mul(ce as u64).wrapping_add(me as u64) & M62) as i64);
    let (md128, me128) = (md as i128, me as i128);
    cd += m.m[0] as i128 * md128;
    ce += m.m[0] as i128 * me128;
    shift_rows!((d, e) from (cd, ce) by (u, v, q, r)
        plus |i| (m.m[i] as i128 * md128, m.m[i] as i128 * me128));
}

/// `a + M` where `mask` is all ones, else `a`; limbs renormalised to [0, 2^62) except the top.
#[inline(always)]
fn add_masked(a: &Signed62, m: &Signed62, mask: i64) -> Signed62 {
    let mut out = [0i64; 5];
    let mut c = 0i64;
    for i in 0..4 {
        c += a[i] + (m[i] & mask);
        out[i] = c & M62 as i64;
        c >>= 62;
    }
    out[4] = a[4] + (m[4] & mask) + c;
    out
}

/// `-a` where `mask` is all ones, else `a`.
#[inline(always)]
fn neg_masked(a: &Signed62, mask: i64) -> Signed62 {
    let mut out = [0i64; 5];
    let mut c = 0i64;
    for i in 0..4 {
        c += (a[i] ^ mask) - mask;
        out[i] = c & M62 as i64;
        c >>= 62;
    }
    out[4] = ((a[4] ^ mask) - mask) + c;
    out
}

/// x^-1 mod M for x in [0, M) (0 maps to 0), constant time.
pub fn invert(x: &Limbs, m: &Modulus) -> Limbs {
    let (mut delta2, mut batches) = (1i64, 0);
    run(x, m, |_, f0, g0| {
        batches += 1;
        (batches <= BATCHES).then(|| divsteps(&mut delta2, f0, g0))
    })
}

/// The batches both inversions share: starting from f = M, g = x, d = 0, e = 1, `batch`
/// gives the next batch's matrix from g and the low 64 bits of f and g (`None` when done);
/// the matrix is applied to (f, g) and (d, e), and d becomes the inverse.
#[inline(always)]
fn run(
    x: &Limbs,
    m: &Modulus,
    mut batch: impl FnMut(&Signed62, u64, u64) -> Option<Matrix>,
) -> Limbs {
    let mut f = m.m;
    let mut g = to_signed62(x);
    let mut d = [0i64; 5];
    let mut e = [1i64, 0, 0, 0, 0];
    loop {
        let f0 = (f[0] as u64) | (f[1] as u64) << 62;
        let g0 = (g[0] as u64) | (g[1] as u64) << 62;
        let Some(t) = batch(&g, f0, g0) else { break };
        update_fg(&mut f, &mut g, &t);
        update_de(&mut d, &mut e, &t, m);
    }
    normalize(&d, &f, m)
}

/// The end of both inversions: g = 0 and f = ±gcd = ±1 (or ±M, with d = 0, for x = 0). d·f
/// is the inverse, in (-2M, M): bring it to [0, M).
#[inline(always)]
fn normalize(d: &Signed62, f: &Signed62, m: &Modulus) -> Limbs {
    let d = add_masked(d, &m.m, d[4] >> 63);
    let d = neg_masked(&d, f[4] >> 63);
    let d = add_masked(&d, &m.m, d[4] >> 63);
    from_signed62(&d)
}

/// Divsteps of the variable-time inversion: 62 of them on the low 64 bits of f and g, in the
/// original (full-delta) form with η = -δ, several at once where the bits allow (a run of
/// zeros in g is one shift; an odd g has up to 6 (η < 0) or 4 (η >= 0) low bits cancelled by
/// one multiple of f, the formulas of libsecp256k1's `modinv64_divsteps_62_var`). The matrix
/// starts at the identity, so after 62 steps it is scaled by 2^62 as [`update_fg`] expects.
fn divsteps_var(eta: &mut i64, f0: u64, g0: u64) -> Matrix {
    let (mut u, mut v, mut q, mut r) = (1u64, 0u64, 0u64, 1u64);
    let (mut f, mut g) = (f0, g0);
    let mut i = 62u32;
    loop {
        // The sentinel bit stops the count at the steps left.
        let zeros = (g | (u64::MAX << i)).trailing_zeros();
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        *eta -= i64::from(zeros);
        i -= zeros;
        if i == 0 {
            break;
        }
        // f and g are odd here; at most min(η + 1, i) bits can be cancelled before η
        // changes sign or the batch ends.
        let w = if *eta < 0 {
            *eta = -*eta;
            (f, g) = (g, f.wrapping_neg());
            (u, q) = (q, u.wrapping_neg());
            (v, r) = (r, v.wrapping_neg());
            let limit = (*eta + 1).min(i64::from(i)) as u32;
            // f·g·(f² - 2) ≡ -g/f (mod 2^6) for odd f: cancels min(limit, 6) bits.
            let m = (u64::MAX >> (64 - limit)) & 63;
            f.wrapping_mul(g)
                .wrapping_mul(f.wrapping_mul(f).wrapping_sub(2))
                & m
        } else {
            let limit = (*eta + 1).min(i64::from(i)) as u32;
            // f + ((f + 1) & 4)·2 is f^-1 mod 16: cancels min(limit, 4) bits.
            let m = (u64::MAX >> (64 - limit)) & 15;
            let w = f.wrapping_add((f.wrapping_add(1) & 4) << 1);
            w.wrapping_neg().wrapping_mul(g) & m
        };
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    Matrix {
        u: u as i64,
        v: v as i64,
        q: q as i64,
        r: r as i64,
    }
}

/// x^-1 mod M for x in [0, M) (0 maps to 0), variable time: for public values only. Batches
/// of [`divsteps_var`] until g = 0 (about half the divsteps [`invert`] has to budget for).
pub fn invert_vartime(x: &Limbs, m: &Modulus) -> Limbs {
    let mut eta = -1i64;
    run(x, m, |g, f0, g0| {
        (*g != [0; 5]).then(|| divsteps_var(&mut eta, f0, g0))
    })
}
