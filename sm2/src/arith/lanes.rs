//! k·G for many scalars at once (key pools, nonce pools): eight at a time on the "SM2 lanes"
//! backend where the CPU has it (x86-64 with AVX-512 IFMA, [`super::ifma`]), one at a time
//! by the comb ([`super::mul::mul_g`]) otherwise. Constant time either way; the points are
//! the same Jacobian coordinates either way.

use super::limbs::Limbs;
use super::mul::mul_g;
use super::point::Jacobian;

/// k·G for each canonical k (below n).
pub(crate) fn mul_g_many<const N: usize>(k: &[Limbs; N]) -> [Jacobian; N] {
    let mut out = [Jacobian::INFINITY; N];
    #[cfg(target_arch = "x86_64")]
    if let Some(kernel) = super::ifma::kernel() {
        let (k8, k_rest) = k.as_chunks::<8>();
        let (out8, out_rest) = out.as_chunks_mut::<8>();
        for (o, k) in out8.iter_mut().zip(k8) {
            *o = kernel.mul_g(k);
        }
        for (o, k) in out_rest.iter_mut().zip(k_rest) {
            *o = mul_g(k);
        }
        return out;
    }
    for (o, k) in out.iter_mut().zip(k) {
        *o = mul_g(k);
    }
    out
}
