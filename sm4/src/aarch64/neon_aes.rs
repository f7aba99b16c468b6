//! `aarch64-neon-aes`: for arm64 cores with the AES instructions but without SM4 (Cortex-A
//! cores, Graviton, Apple): the S-box through AESE with NEON `tbl` nibble tables
//! (`crate::simd::AesSbox`), on 128-bit registers holding one word of four blocks, 16
//! blocks per step in four interleaved groups.
//!
//! SAFETY (all blocks below): these methods are `#[inline(always)]` and reached only from
//! the `#[target_feature(enable = "neon,aes")]` entries of this file, which
//! `crate::engine` calls only after the dispatch probe found the AES instructions (NEON is
//! part of the aarch64 baseline); loads and stores check the slice length first.

use core::arch::aarch64::*;

use cipher::{Block, inout::InOutBuf};

use crate::simd::{
    AesLast, AesSbox, AesSboxBroadcast, Single, Word, crypt_groups, crypt_partial, crypt1,
    ctr_groups, ctr_partial,
};
use crate::{Sm4, key::RoundKeys};

/// Blocks handed to one call by the cipher traits.
pub(crate) const PAR_BLOCKS: usize = 16;

#[inline(always)]
fn bytes(x: uint32x4_t) -> uint8x16_t {
    // SAFETY: see the module comment.
    unsafe { vreinterpretq_u8_u32(x) }
}

#[inline(always)]
fn words(x: uint8x16_t) -> uint32x4_t {
    // SAFETY: see the module comment.
    unsafe { vreinterpretq_u32_u8(x) }
}

/// Rotates each lane left by `L` bits; `R` must be `32 - L` (shift right, insert left).
#[inline(always)]
fn rotl<const L: i32, const R: i32>(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: see the module comment.
    unsafe { vsliq_n_u32::<L>(vshrq_n_u32::<R>(x), x) }
}

impl Word for uint32x4_t {
    const BLOCKS: usize = 1;
    #[inline(always)]
    fn load(src: &[Block<Sm4>]) -> Self {
        assert!(!src.is_empty());
        // SAFETY: see the module comment; `src` holds at least 16 bytes.
        words(unsafe { vld1q_u8(src.as_ptr().cast()) })
    }
    #[inline(always)]
    fn store(self, dst: &mut [Block<Sm4>]) {
        assert!(!dst.is_empty());
        // SAFETY: see the module comment; `dst` holds at least 16 bytes.
        unsafe { vst1q_u8(dst.as_mut_ptr().cast(), bytes(self)) }
    }
    #[inline(always)]
    fn splat(w: u32) -> Self {
        // SAFETY: see the module comment.
        unsafe { vdupq_n_u32(w) }
    }
    #[inline(always)]
    fn bcast128(v: u128) -> Self {
        let b = v.to_le_bytes();
        // SAFETY: see the module comment; `b` is 16 readable bytes.
        words(unsafe { vld1q_u8(b.as_ptr()) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { veorq_u32(self, o) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { vandq_u32(self, o) }
    }
    #[inline(always)]
    fn shuffle(self, idx: Self) -> Self {
        // SAFETY: see the module comment (`tbl`: indices here are always 0..=15).
        words(unsafe { vqtbl1q_u8(bytes(self), bytes(idx)) })
    }
    #[inline(always)]
    fn shr4(self) -> Self {
        // SAFETY: see the module comment.
        unsafe { vreinterpretq_u32_u16(vshrq_n_u16::<4>(vreinterpretq_u16_u32(self))) }
    }
    #[inline(always)]
    fn l(self) -> Self {
        // L(B) = B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2)
        let t = self.xor3(rotl::<8, 24>(self), rotl::<16, 16>(self));
        self.xor3(rotl::<24, 8>(self), rotl::<2, 30>(t))
    }
    #[inline(always)]
    fn add32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { vaddq_u32(self, o) }
    }
    #[inline(always)]
    fn block_index() -> Self {
        let i = [0u32, 1, 2, 3];
        // SAFETY: see the module comment; `i` is 16 readable bytes.
        unsafe { vld1q_u32(i.as_ptr()) }
    }
    #[inline(always)]
    fn unpack_lo32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { vzip1q_u32(self, o) }
    }
    #[inline(always)]
    fn unpack_hi32(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe { vzip2q_u32(self, o) }
    }
    #[inline(always)]
    fn unpack_lo64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe {
            vreinterpretq_u32_u64(vzip1q_u64(
                vreinterpretq_u64_u32(self),
                vreinterpretq_u64_u32(o),
            ))
        }
    }
    #[inline(always)]
    fn unpack_hi64(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe {
            vreinterpretq_u32_u64(vzip2q_u64(
                vreinterpretq_u64_u32(self),
                vreinterpretq_u64_u32(o),
            ))
        }
    }
}

/// AESE with a zero key: ShiftRows(SubBytes(x)), as x86's AESENCLAST with a zero key.
/// `#[inline]` with its feature (not `inline(always)`): it inlines once the callers are
/// inlined into the entries below, which enable AES.
#[target_feature(enable = "aes")]
#[inline]
unsafe fn aese_zero(x: uint8x16_t) -> uint8x16_t {
    vaeseq_u8(x, vdupq_n_u8(0))
}

impl Single for uint32x4_t {
    #[inline(always)]
    fn lanes(self) -> [Self; 4] {
        // SAFETY: see the module comment.
        unsafe {
            [
                vdupq_laneq_u32::<0>(self),
                vdupq_laneq_u32::<1>(self),
                vdupq_laneq_u32::<2>(self),
                vdupq_laneq_u32::<3>(self),
            ]
        }
    }
}

impl AesLast for uint32x4_t {
    #[inline(always)]
    fn aes_last(self) -> Self {
        // SAFETY: see the module comment (AES enabled by the entries).
        words(unsafe { aese_zero(bytes(self)) })
    }
}

/// Encrypts any number of blocks.
///
/// # Safety
/// The CPU must support the AES instructions.
#[target_feature(enable = "neon,aes")]
pub(crate) unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    let rest = crypt_groups::<uint32x4_t, AesSbox, 4>(rk, blocks);
    let rest = crypt_groups::<uint32x4_t, AesSbox, 1>(rk, rest);
    crypt_partial::<uint32x4_t, AesSbox>(rk, rest);
}

/// Encrypts one block (the latency-bound path).
///
/// # Safety
/// The CPU must support the AES instructions.
#[target_feature(enable = "neon,aes")]
pub(crate) unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
    crypt1::<uint32x4_t, AesSboxBroadcast>(rk, block)
}

/// XORs `blocks` with the keystream E(ctr), E(ctr + 1), … (last word counting mod 2^32)
/// and advances `ctr`.
///
/// # Safety
/// The CPU must support the AES instructions.
#[target_feature(enable = "neon,aes")]
pub(crate) unsafe fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
    let rest = ctr_groups::<uint32x4_t, AesSbox, 4>(rk, ctr, blocks);
    let rest = ctr_groups::<uint32x4_t, AesSbox, 1>(rk, ctr, rest);
    ctr_partial::<uint32x4_t, AesSbox>(rk, ctr, rest);
}

/// The S-box on each byte of a word (key expansion).
///
/// # Safety
/// The CPU must support the AES instructions.
#[target_feature(enable = "neon,aes")]
pub(crate) unsafe fn tau(a: u32) -> u32 {
    crate::simd::tau::<uint32x4_t, AesSbox>(a)
}
