//! `gfni-avx512`: GFNI S-box on 512-bit registers, 64 blocks per step in four interleaved
//! groups; native rotates (`vprold`) and three-way XORs (`vpternlogd`) for L.

use core::arch::x86_64::{__m256i, __m512i};

use cipher::{Block, inout::InOutBuf};

use super::sbox::Gfni;
use super::words::Vl128;
use crate::simd::{crypt_groups, crypt_partial, crypt1, ctr_groups, ctr_partial};
use crate::{Sm4, key::RoundKeys};

/// Blocks handed to one call by the cipher traits.
pub(crate) const PAR_BLOCKS: usize = 64;

/// Encrypts any number of blocks.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW, AVX-512VL, AVX2 and GFNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
pub(crate) unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    let rest = crypt_groups::<__m512i, Gfni, 4>(rk, blocks);
    let rest = crypt_groups::<__m512i, Gfni, 1>(rk, rest);
    let rest = crypt_groups::<__m256i, Gfni, 1>(rk, rest);
    let rest = crypt_groups::<Vl128, Gfni, 1>(rk, rest);
    crypt_partial::<Vl128, Gfni>(rk, rest);
}

/// Encrypts one block (the latency-bound path).
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW, AVX-512VL, AVX2 and GFNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
pub(crate) unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
    crypt1::<Vl128, Gfni>(rk, block)
}

/// XORs `blocks` with the keystream E(ctr), E(ctr + 1), … (last word counting mod 2^32)
/// and advances `ctr`.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW, AVX-512VL, AVX2 and GFNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
pub(crate) unsafe fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
    let rest = ctr_groups::<__m512i, Gfni, 4>(rk, ctr, blocks);
    let rest = ctr_groups::<__m512i, Gfni, 1>(rk, ctr, rest);
    let rest = ctr_groups::<__m256i, Gfni, 1>(rk, ctr, rest);
    let rest = ctr_groups::<Vl128, Gfni, 1>(rk, ctr, rest);
    ctr_partial::<Vl128, Gfni>(rk, ctr, rest);
}

/// The S-box on each byte of a word (key expansion).
///
/// # Safety
/// As for [`crypt`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
pub(crate) unsafe fn tau(a: u32) -> u32 {
    crate::simd::tau::<Vl128, Gfni>(a)
}
