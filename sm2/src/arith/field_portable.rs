//! Portable field arithmetic modulo the SM2 prime p on Montgomery limbs (R = 2^256): the
//! code on every target but x86-64, with `--cfg shangmi_backend="soft"`, in `build.rs`, and
//! the reference the tests compare the x86-64 assembly with. Since p ≡ -1 (mod 2^64),
//! -p^-1 mod 2^64 = 1 and each reduction step's quotient digit is the low limb itself.
//! Constant time throughout.

use super::field::P;
use super::limbs::{self, Limbs, adc, sbb};
use shangmi_dispatch::ct;

/// Montgomery reduction T·2^-256 mod p for T < p·2^256, without multiplications.
///
/// Each step adds q·p for q = the lowest limb (valid since -p^-1 ≡ 1 mod 2^64). Relative to
/// the next limb, q·p/2^64 contributes X = q·(2^192 - 2^160 - 2^32 + 1) = w·2^160 - w with
/// w = q·(2^32 - 1) = (q << 32) - q, a 96-bit value, so X is built from shifts.
#[inline(always)]
const fn redc(t: &[u64; 8]) -> Limbs {
    let mut t = *t;
    let mut top = 0u64;
    let mut i = 0;
    while i < 4 {
        let q = t[i];
        let (w_lo, b) = sbb(q << 32, q, 0);
        let w_hi = (q >> 32) - b;
        let (x0, b) = sbb(0, w_lo, 0);
        let (x1, b) = sbb(0, w_hi, b);
        let (x2, b) = sbb(w_lo << 32, 0, b);
        let (x3, _) = sbb((w_lo >> 32) | (w_hi << 32), 0, b);
        let (v, c) = adc(t[i + 1], x0, 0);
        t[i + 1] = v;
        let (v, c) = adc(t[i + 2], x1, c);
        t[i + 2] = v;
        let (v, c) = adc(t[i + 3], x2, c);
        t[i + 3] = v;
        let (v, mut c) = adc(t[i + 4], x3, c);
        t[i + 4] = v;
        let mut j = i + 5;
        while j < 8 {
            let (v, c2) = adc(t[j], 0, c);
            t[j] = v;
            c = c2;
            j += 1;
        }
        top += c;
        i += 1;
    }
    // The result t[4..8] + top·2^256 is below 2p: subtract p once if needed.
    let r = [t[4], t[5], t[6], t[7]];
    let (d, borrow) = limbs::sub(&r, &P);
    let (_, below) = sbb(top, 0, borrow);
    limbs::select(below.wrapping_neg(), &r, &d)
}

/// `d + p` if `bit` is 1, `d` if it is 0 (mod 2^256), through an opaque mask.
#[inline(always)]
fn add_masked_p(d: &Limbs, bit: u64) -> Limbs {
    limbs::add(
        d,
        &shangmi_limbs::and_mask(&P, ct::opaque_u64(bit.wrapping_neg())),
    )
    .0
}

/// a·b·2^-256 mod p for a, b < p, fully reduced.
#[inline(always)]
pub fn mul(a: &Limbs, b: &Limbs) -> Limbs {
    redc(&limbs::mul_wide(a, b))
}

/// a²·2^-256 mod p for a < p, fully reduced.
#[inline(always)]
pub fn sqr(a: &Limbs) -> Limbs {
    redc(&limbs::square_wide(a))
}

/// a + b mod p as a - (p - b): two of the subtractions below, which LLVM compiles into tight
/// `sub`/`sbb` chains, where the direct a + b - p form came out twice as slow.
#[inline(always)]
pub fn add(a: &Limbs, b: &Limbs) -> Limbs {
    sub(a, &sub(&[0; 4], b))
}

/// a - b mod p: the difference, plus p under an opaque mask if it borrowed.
#[inline(always)]
pub fn sub(a: &Limbs, b: &Limbs) -> Limbs {
    let (d, borrow) = limbs::sub(a, b);
    add_masked_p(&d, borrow)
}

/// a/2 mod p: plus p under the low bit's mask, then a 257-bit shift right.
#[inline(always)]
pub fn half(a: &Limbs) -> Limbs {
    let (s, carry) = limbs::add(a, &add_masked_p(&[0; 4], a[0] & 1));
    [
        (s[0] >> 1) | (s[1] << 63),
        (s[1] >> 1) | (s[2] << 63),
        (s[2] >> 1) | (s[3] << 63),
        (s[3] >> 1) | (carry << 63),
    ]
}
