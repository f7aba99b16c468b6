//! k·P for eight scalars and eight points at once (batch ECDH, and the u2·Q half of batch
//! verification): the schedule and formulas of the scalar [`crate::arith::mul::mul_ct`] (signed
//! 5-bit windows, 52 of them, five doublings and one mixed addition each, the doubling selected in
//! the last addition where H = R = 0) over eight lanes of [`Fe8`](super::field::Fe8). Each lane has
//! its own table 1·P .. 16·P of its own point; a lookup reads every entry of all eight tables and
//! keeps, in each lane, the one the lane's digit names (a lane-wise compare gives the mask), so
//! neither a branch nor an address depends on a digit.
#![allow(unsafe_code)]

use super::comb::{Accumulator8, Affine8, Jacobian8, abs};
use super::field::load;
use crate::arith::limbs::Limbs;
use crate::arith::mul::{CT_WINDOWS, recode};
use crate::arith::point::{Affine, Jacobian};
use core::arch::x86_64::{__m512i, _mm512_add_epi64, _mm512_cmpeq_epi64_mask, _mm512_set1_epi64};

/// Entries of a lane's table: |digit|·P for |digit| in 1..=16.
const ENTRIES: usize = 16;

/// Eight tables, entry j of every lane in one [`Affine8`].
pub(super) struct Table8([Affine8; ENTRIES]);

impl Table8 {
    /// The tables of eight public points (none the identity): 1·P .. 16·P for each by the
    /// scalar code's co-Z additions ([`Jacobian::multiples`]), the 128 points made affine
    /// with one shared inversion, all in variable time (the points are public). The entries
    /// are the ones the scalar `mul_ct` builds (affine coordinates are unique).
    #[target_feature(enable = "avx512f")]
    pub(super) fn new(p: &[Affine; 8]) -> Table8 {
        let mut jac = [Jacobian::INFINITY; 8 * ENTRIES];
        for (rows, p) in jac.chunks_exact_mut(ENTRIES).zip(p) {
            rows.copy_from_slice(&Jacobian::multiples::<ENTRIES>(p));
        }
        let aff = Jacobian::batch_to_affine_vartime(&jac);
        Table8(core::array::from_fn(|j| {
            Affine8::from_affines(&core::array::from_fn(|lane| aff[lane * ENTRIES + j]))
        }))
    }

    /// In each lane, the entry its |digit| names (1-based; zeros for 0), every entry read.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn lookup(&self, abs: __m512i) -> Affine8 {
        let one = _mm512_set1_epi64(1);
        let mut index = one;
        let mut acc = Affine8::zero();
        for e in &self.0 {
            acc = Affine8::select(_mm512_cmpeq_epi64_mask(index, abs), e, &acc);
            index = _mm512_add_epi64(index, one);
        }
        acc
    }
}

/// k·P in each lane for canonical scalars (below n) and the points of `table`, constant
/// time in the scalars: the same Jacobian coordinates as the scalar `mul_ct` lane by lane.
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn mul(k: &[Limbs; 8], table: &Table8) -> Jacobian8 {
    let digits = k.map(|k| recode::<5, CT_WINDOWS>(&k));
    let window = |i: usize| load(&core::array::from_fn(|lane| digits[lane][i] as u64));
    let d = window(CT_WINDOWS - 1);
    let mut acc = Accumulator8::start(table.lookup(abs(d)), d);
    for w in (0..CT_WINDOWS - 1).rev() {
        for _ in 0..5 {
            acc.point = acc.point.double();
        }
        let d = window(w);
        acc.add_digit(table.lookup(abs(d)), d, w == 0);
    }
    acc.point
}
