//! `gfni-avx512`: GFNI S-box on 512-bit registers, 64 blocks per step in four interleaved
//! groups; native rotates (`vprold`) and three-way XORs (`vpternlogd`) for L.

use core::arch::x86_64::{__m256i, __m512i};

use cipher::{Block, inout::InOutBuf};

use super::{crypt_groups, crypt_partial, sbox::Gfni, words::Vl128};
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

/// The S-box on each byte of a word (key expansion).
///
/// # Safety
/// As for [`crypt`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
pub(crate) unsafe fn tau(a: u32) -> u32 {
    super::tau::<Vl128, Gfni>(a)
}
