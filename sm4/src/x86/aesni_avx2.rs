//! `aesni-avx2`: the AES-NI S-box (affine maps by `pshufb`, inversion by AESENCLAST) on
//! 256-bit registers, 32 blocks per step in four interleaved groups (the design point of
//! the Linux kernel's sm4-aesni-avx2).

use core::arch::x86_64::{__m128i, __m256i};

use cipher::{Block, inout::InOutBuf};

use crate::simd::{
    AesSbox, AesSboxBroadcast, crypt_groups, crypt_partial, crypt1, ctr_groups, ctr_partial,
};
use crate::{Sm4, key::RoundKeys};

/// Blocks handed to one call by the cipher traits.
pub(crate) const PAR_BLOCKS: usize = 32;

/// Encrypts any number of blocks.
///
/// # Safety
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "avx2,aes")]
pub(crate) unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    let rest = crypt_groups::<__m256i, AesSbox, 4>(rk, blocks);
    let rest = crypt_groups::<__m256i, AesSbox, 1>(rk, rest);
    let rest = crypt_groups::<__m128i, AesSbox, 1>(rk, rest);
    crypt_partial::<__m128i, AesSbox>(rk, rest);
}

/// Encrypts one block (the latency-bound path).
///
/// # Safety
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "avx2,aes")]
pub(crate) unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
    crypt1::<__m128i, AesSboxBroadcast>(rk, block)
}

/// XORs `blocks` with the keystream E(ctr), E(ctr + 1), … (last word counting mod 2^32)
/// and advances `ctr`.
///
/// # Safety
/// The CPU must support AES-NI and AVX2.
#[target_feature(enable = "avx2,aes")]
pub(crate) unsafe fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
    let rest = ctr_groups::<__m256i, AesSbox, 4>(rk, ctr, blocks);
    let rest = ctr_groups::<__m256i, AesSbox, 1>(rk, ctr, rest);
    let rest = ctr_groups::<__m128i, AesSbox, 1>(rk, ctr, rest);
    ctr_partial::<__m128i, AesSbox>(rk, ctr, rest);
}

/// The S-box on each byte of a word (key expansion).
///
/// # Safety
/// As for [`crypt`].
#[target_feature(enable = "avx2,aes")]
pub(crate) unsafe fn tau(a: u32) -> u32 {
    crate::simd::tau::<__m128i, AesSbox>(a)
}
