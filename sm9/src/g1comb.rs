//! Fixed-base multiplication in G1: a point that is used again and again (P1, a master
//! public key Ppub-e, a user's signing key ds) gets a table of its multiples once, and then
//! k·B costs 52 additions and no doubling.
//!
//! The table has 52 rows; row i holds j·32^i·B for j = 1..=16. The scalar is written in
//! signed base-32 digits d_i ∈ [-16, 16] (`crate::window::signed_digits`), and
//! k·B = Σ_i d_i·32^i·B, each term one row entry, negated by a masked select where the
//! digit is negative. Constant time in k: every entry of a row is read (masked scan), the
//! zero digit selects the identity by a mask, and the additions use the complete formulas
//! of `crate::curve` (Renes–Costello–Batina 2016), so no sum of the walk needs a case of
//! its own. The entries stay projective (no inversion when the table is built).
//!
//! Without `alloc` the type keeps just the point and multiplies by `G1::mul_ct`.

#[cfg(feature = "alloc")]
use alloc::{boxed::Box, vec::Vec};

use crate::curve::G1;
use crate::field::Limbs;
#[cfg(feature = "alloc")]
use crate::window::{scan, signed_digits};
#[cfg(feature = "alloc")]
use shangmi_limbs::is_zero_mask;

/// Rows: 52 signed 5-bit digits cover 256 bits and the last carry (260 bits).
#[cfg(feature = "alloc")]
const ROWS: usize = 52;

/// The multiples of a fixed point of G1 (about 78 KiB).
#[cfg(feature = "alloc")]
#[derive(Clone)]
pub(crate) struct G1Base {
    rows: Box<[[G1; 16]]>,
}

/// A fixed point of G1 (no table without `alloc`).
#[cfg(not(feature = "alloc"))]
#[derive(Clone)]
pub(crate) struct G1Base {
    b: G1,
}

#[cfg(not(feature = "alloc"))]
impl G1Base {
    /// The point itself.
    pub(crate) fn new(b: &G1) -> Self {
        Self { b: *b }
    }

    /// k·B (constant time in k and B).
    pub(crate) fn mul(&self, k: &Limbs) -> G1 {
        self.b.mul_ct(k)
    }

    /// Overwrites the point (a secret point, under `zeroize`).
    #[cfg(feature = "zeroize")]
    pub(crate) fn wipe(&mut self) {
        crate::wipe(&mut self.b, G1::IDENTITY);
    }
}

#[cfg(feature = "alloc")]
impl G1Base {
    /// The table of `b` (52 rows of 16 points: 832 additions and 52 doublings).
    pub(crate) fn new(b: &G1) -> Self {
        let mut rows = Vec::with_capacity(ROWS);
        let mut base = *b;
        for _ in 0..ROWS {
            let mut row = [base; 16];
            for j in 1..16 {
                row[j] = row[j - 1].add(&base);
            }
            // 32·base = 2·(16·base).
            base = row[15].double();
            rows.push(row);
        }
        Self {
            rows: rows.into_boxed_slice(),
        }
    }

    /// k·B for any 256-bit k (constant time in k).
    pub(crate) fn mul(&self, k: &Limbs) -> G1 {
        let digits: [(u64, u64); ROWS] = signed_digits(k);
        let mut acc = G1::IDENTITY;
        for (row, (abs, neg)) in self.rows.iter().zip(digits) {
            // Row entry |d| - 1, or the identity for a zero digit.
            let e = scan(row, abs.wrapping_sub(1), G1::select);
            let e = G1::select(is_zero_mask(&[abs, 0, 0, 0]), &e, &G1::IDENTITY);
            acc = acc.add(&G1::select(neg, &e, &e.neg()));
        }
        acc
    }

    /// Overwrites every entry (the table of a secret point, under `zeroize`).
    #[cfg(feature = "zeroize")]
    pub(crate) fn wipe(&mut self) {
        for row in self.rows.iter_mut() {
            for p in row.iter_mut() {
                crate::wipe(p, G1::IDENTITY);
            }
        }
    }
}

debug_name_only!(G1Base);

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::curve::P1;
    use crate::field::Fn;

    /// Every digit position and sign, edge scalars and random ones against `mul_ct`.
    #[test]
    fn matches_mul_ct() {
        let b = G1::from(P1).mul_ct(&[0x1234_5678, 0, 0, 0]);
        let t = G1Base::new(&b);
        let n = Fn::MODULUS;
        let n1 = shangmi_limbs::sub(&n, &[1, 0, 0, 0]).0;
        let mut ks = alloc::vec![[0u64; 4], [1, 0, 0, 0], [16, 0, 0, 0], [17, 0, 0, 0], n1, n];
        // Digits of 16 and 17 (the carry) in every position, and all-ones words.
        for i in 0..ROWS {
            let bit = 5 * i;
            if bit < 252 {
                let mut k = [0u64; 4];
                k[bit / 64] |= 17 << (bit % 64);
                if bit % 64 > 59 {
                    k[bit / 64 + 1] |= 17 >> (64 - bit % 64);
                }
                ks.push(k);
            }
        }
        ks.push([u64::MAX; 4]);
        ks.extend(crate::test_limbs(0x9e37_79b9_7f4a_7c15u64, 40));
        for k in &ks {
            assert!(t.mul(k).equals(&b.mul_ct(k)), "k = {k:x?}");
        }
    }

    /// A wrong table entry is caught (the test above can fail).
    #[test]
    fn detects_a_bad_entry() {
        let b = G1::from(P1);
        let mut t = G1Base::new(&b);
        t.rows[3][4] = t.rows[3][5];
        let k = [5 << 15, 0, 0, 0];
        assert!(!t.mul(&k).equals(&b.mul_ct(&k)));
    }
}
