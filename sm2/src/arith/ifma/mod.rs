//! Eight-lane SM2 arithmetic on x86-64 with AVX-512 IFMA (the "SM2 lanes" backend
//! `lanes-ifma`): the base field in 52-bit limbs, eight elements a register ([`field`]),
//! k·G for eight scalars with one scan of each comb table for all of them ([`comb`]), and
//! k·P for eight scalars and eight points, each lane with its own table ([`varbase`]).
//! The technique is the one of Intel's crypto_mb `mbx_sm2_*_mb8`; the code is this crate's.
#![allow(unsafe_code)]

pub(crate) mod comb;
pub(crate) mod field;
#[cfg(test)]
mod tests;
mod varbase;

use super::limbs::Limbs;
use super::point::{Affine, Jacobian};
use shangmi_dispatch::{Available, sm2_lanes::Backend};

shangmi_dispatch::kernel_token! {
    /// The eight-lane kernel: holding one proves AVX-512 F, VL and IFMA run here.
    pub(crate) struct Ifma = Backend::Ifma;
}

/// The eight-lane kernel, if the dispatch picks it (CPUs with AVX-512 IFMA, builds that do
/// not force another backend).
#[inline]
pub(crate) fn kernel() -> Option<Ifma> {
    Ifma::new(Available::<Backend>::best())
}

impl Ifma {
    /// k·G for eight canonical scalars (below n), constant time.
    pub(crate) fn mul_g(self, k: &[Limbs; 8]) -> [Jacobian; 8] {
        // SAFETY: `self` exists, so the dispatch's probe found AVX-512 F, VL and IFMA.
        unsafe { comb::mul_g(k).to_jacobians() }
    }

    /// k·P lane by lane for eight canonical scalars (below n) and eight public points,
    /// constant time in the scalars: the coordinates the scalar `mul_ct` gives.
    pub(crate) fn mul_points(self, k: &[Limbs; 8], p: &[Affine; 8]) -> [Jacobian; 8] {
        // SAFETY: `self` exists, so the dispatch's probe found AVX-512 F, VL and IFMA.
        unsafe { varbase::mul(k, &varbase::Table8::new(p)).to_jacobians() }
    }

    /// u1·G + u2·Q lane by lane (verification: every input public): u1·G by the comb
    /// lanes and u2·Q by the k·P lanes, both constant time (cheaper here than branching
    /// lane by lane would be), then one variable-time addition per lane.
    pub(crate) fn mul_g_add(
        self,
        u1: &[Limbs; 8],
        u2: &[Limbs; 8],
        q: &[Affine; 8],
    ) -> [Jacobian; 8] {
        let (a, b) = (self.mul_g(u1), self.mul_points(u2, q));
        core::array::from_fn(|i| a[i].add_vartime(&b[i]))
    }
}
