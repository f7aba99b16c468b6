//! The constant-time table scan of the comb and of k·P with AVX2 (x86-64): each entry's 64
//! bytes as two 32-byte loads, kept where a vector comparison of the entry's index with the
//! wanted one gives all ones. The index is compared in vector registers, so no per-entry mask passes
//! through a general register (the portable scan needs an optimisation barrier there). Used
//! where `shangmi-dispatch` picks its "SM2 scan" backend `scan-avx2`.
#![allow(unsafe_code)]

use super::field::FieldElement;
use super::point::Affine;
use core::arch::x86_64::{
    __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_cmpeq_epi64, _mm256_loadu_si256,
    _mm256_or_si256, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_storeu_si256,
};
use shangmi_dispatch::{Available, sm2_scan::Backend};

/// The `shangmi-dispatch` "SM2 scan" backend if it is the AVX2 one (`None` on CPUs without
/// AVX2 and in builds that force the portable scan).
#[inline(always)]
pub fn avx2() -> Option<Available<Backend>> {
    let best = Available::<Backend>::best();
    (best.get() == Backend::Avx2).then_some(best)
}

/// [`lookup_avx2`] behind the dispatch crate's proof, called (not inlined) from the
/// multiplications, which stay plain x86-64 code: compiled with AVX2 enabled as a whole, their
/// masked selects and zero tests became 256-bit moves of values just written by the
/// general-purpose registers, whose store forwarding fails (`mul_ct` ran 25% slower on Zen 3).
#[inline(never)]
pub fn lookup<const N: usize>(_avx2: Available<Backend>, table: &[Affine; N], abs: u64) -> Affine {
    // SAFETY: `_avx2` is the dispatch crate's proof that AVX2 runs here.
    unsafe { lookup_avx2(table, abs) }
}

/// The entry for `abs` in 1..=N (all zeros for 0), reading all N.
#[target_feature(enable = "avx2")]
pub fn lookup_avx2<const N: usize>(table: &[Affine; N], abs: u64) -> Affine {
    let want = _mm256_set1_epi64x(abs as i64);
    let one = _mm256_set1_epi64x(1);
    let mut index = one;
    let (mut x, mut y) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    for e in table {
        let keep = _mm256_cmpeq_epi64(index, want);
        // SAFETY: each load reads the 32 bytes of one `[u64; 4]` (unaligned loads).
        let (ex, ey) = unsafe {
            (
                _mm256_loadu_si256(e.x.limbs_at().as_ptr().cast::<__m256i>()),
                _mm256_loadu_si256(e.y.limbs_at().as_ptr().cast::<__m256i>()),
            )
        };
        x = _mm256_or_si256(x, _mm256_and_si256(ex, keep));
        y = _mm256_or_si256(y, _mm256_and_si256(ey, keep));
        index = _mm256_add_epi64(index, one);
    }
    let (mut ox, mut oy) = ([0u64; 4], [0u64; 4]);
    // SAFETY: each store writes the 32 bytes of one `[u64; 4]` (unaligned stores).
    unsafe {
        _mm256_storeu_si256(ox.as_mut_ptr().cast::<__m256i>(), x);
        _mm256_storeu_si256(oy.as_mut_ptr().cast::<__m256i>(), y);
    }
    Affine {
        x: FieldElement::from_limbs(ox),
        y: FieldElement::from_limbs(oy),
    }
}
