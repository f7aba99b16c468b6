//! Many scalar multiplications at once: k·G (key pools, nonce pools), k·P (batch ECDH) and
//! u1·G + u2·Q (batch verification), eight at a time on the "SM2 lanes" backend where the
//! CPU has it (x86-64 with AVX-512 IFMA, [`super::ifma`]), one at a time by the scalar code
//! ([`super::mul`]) otherwise. The secret-scalar ones are constant time either way; the
//! points are the same either way.

use super::limbs::Limbs;
use super::mul::{mul_ct, mul_g, mul_g_add_vartime};
use super::point::{Affine, Jacobian};

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

/// k·P for each canonical k (below n) and public point P, constant time in the k: eight
/// lanes at once when there are exactly eight and the CPU has the lanes, the scalar
/// [`mul_ct`] one by one otherwise (the same coordinates either way). `out` is as long as
/// `k` and `p` (at most eight).
pub(crate) fn mul_ct_many(k: &[Limbs], p: &[Affine], out: &mut [Jacobian]) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(kernel), Ok(k8), Ok(p8)) = (
        super::ifma::kernel(),
        <&[Limbs; 8]>::try_from(k),
        <&[Affine; 8]>::try_from(p),
    ) {
        for (o, r) in out.iter_mut().zip(kernel.mul_points(k8, p8)) {
            *o = r;
        }
        return;
    }
    for ((o, k), p) in out.iter_mut().zip(k).zip(p) {
        *o = mul_ct(k, p);
    }
}

/// u1·G + u2·Q for each triple (verification: public inputs), as [`mul_ct_many`] splits
/// the work: eight lanes for exactly eight, [`mul_g_add_vartime`] one by one otherwise.
pub(crate) fn mul_g_add_many(u1: &[Limbs], u2: &[Limbs], q: &[Affine], out: &mut [Jacobian]) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(kernel), Ok(u1), Ok(u2), Ok(q)) = (
        super::ifma::kernel(),
        <&[Limbs; 8]>::try_from(u1),
        <&[Limbs; 8]>::try_from(u2),
        <&[Affine; 8]>::try_from(q),
    ) {
        for (o, r) in out.iter_mut().zip(kernel.mul_g_add(u1, u2, q)) {
            *o = r;
        }
        return;
    }
    for (((o, u1), u2), q) in out.iter_mut().zip(u1).zip(u2).zip(q) {
        *o = mul_g_add_vartime(u1, u2, q);
    }
}
