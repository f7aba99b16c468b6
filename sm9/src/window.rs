//! Windowed scalars: the digits of a secret scalar and the masked scan that reads a table
//! entry at a secret digit by touching every entry (constant time in the digit). Used by
//! the G1/G2 point multiplications (`curve.rs`, `g1comb.rs`) and the G_T powers
//! (`pairing.rs`).

/// The 4-bit digit `w` of a little-endian multi-word integer.
#[inline(always)]
pub(crate) fn nibble(k: &[u64], w: usize) -> u64 {
    (k[w / 16] >> ((w % 16) * 4)) & 0xf
}

/// The window table x^0 .. x^15 under the product `mul`, from its identity `one` (for the
/// 4-bit windowed powers of `field.rs` and `tower.rs`).
#[inline(always)]
pub(crate) fn powers<T: Copy>(one: T, x: T, mul: impl Fn(&T, &T) -> T) -> [T; 16] {
    let mut table = [one; 16];
    table[1] = x;
    for i in 2..16 {
        table[i] = mul(&table[i - 1], &x);
    }
    table
}

/// Fills the window table x^0 .. x^15 (`table[0]` holds the identity already) with every
/// even entry the square of its half (x^2i = (x^i)^2) and every odd one a product by x: for
/// groups whose squaring (a point doubling, a cyclotomic squaring) is cheaper than a
/// product (`curve.rs`, `pairing.rs`). In place, so the table is not copied out.
#[inline(always)]
pub(crate) fn fill_by_squaring<T: Copy>(
    table: &mut [T; 16],
    x: &T,
    square: impl Fn(&T) -> T,
    mul: impl Fn(&T, &T) -> T,
) {
    table[1] = *x;
    for i in 2..16 {
        table[i] = if i % 2 == 0 {
            square(&table[i / 2])
        } else {
            mul(&table[i - 1], x)
        };
    }
}

/// Masked scan: `table[idx]` read by touching every entry (`table[0]` where `idx` is out of
/// range).
pub(crate) fn scan<T: Copy>(table: &[T; 16], idx: u64, sel: impl Fn(u64, &T, &T) -> T) -> T {
    let mut e = table[0];
    for (j, t) in table.iter().enumerate().skip(1) {
        let m = shangmi_limbs::is_zero_mask(&[idx ^ j as u64, 0, 0, 0]);
        e = sel(m, &e, t);
    }
    e
}

/// Signed base-32 digits of a little-endian integer k of `L` limbs: k = Σ d_i·32^i with
/// d_i ∈ [-16, 16], returned as (|d_i|, all ones where d_i < 0) for `R` digits (enough of
/// them that the last carry lands in a digit). Constant time: the carry and the sign are
/// masks, no branch.
pub(crate) fn signed_digits<const L: usize, const R: usize>(k: &[u64; L]) -> [(u64, u64); R] {
    let mut out = [(0u64, 0u64); R];
    let mut carry = 0u64;
    for (i, o) in out.iter_mut().enumerate() {
        // Bits 5i .. 5i + 4 (they may straddle two limbs; none past the last limb).
        let bit = 5 * i;
        let lo = if bit / 64 < L {
            k[bit / 64] >> (bit % 64)
        } else {
            0
        };
        let hi = if bit % 64 > 59 && bit / 64 + 1 < L {
            k[bit / 64 + 1] << (64 - bit % 64)
        } else {
            0
        };
        // raw ∈ [0, 32]
        let raw = ((lo | hi) & 31) + carry;
        // neg = 1 where raw > 16: the digit is raw - 32 ∈ [-15, -16..] and 1 carries on.
        let neg = 16u64.wrapping_sub(raw) >> 63;
        let mask = neg.wrapping_neg();
        let abs = raw ^ ((raw ^ 32u64.wrapping_sub(raw)) & mask);
        *o = (abs, mask);
        carry = neg;
    }
    out
}
