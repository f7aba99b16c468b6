//! Eight-lane SM2 arithmetic on x86-64 with AVX-512 IFMA (the "SM2 lanes" backend
//! `lanes-ifma`): the base field in 52-bit limbs, eight elements a register ([`field`]),
//! and k·G for eight scalars with one scan of each comb table for all of them ([`comb`]).
//! The technique is the one of Intel's crypto_mb `mbx_sm2_*_mb8`; the code is this crate's.
#![allow(unsafe_code)]

pub(crate) mod comb;
pub(crate) mod field;
#[cfg(test)]
mod tests;

use super::limbs::Limbs;
use super::point::Jacobian;
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
        unsafe { comb::mul_g(k) }
    }
}
