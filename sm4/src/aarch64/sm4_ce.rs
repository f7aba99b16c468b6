//! `aarch64-sm4`: the Armv8.2 SM4 instructions (FEAT_SM4): `SM4E` runs four rounds on one
//! block held as four words in a vector register, `SM4EKEY` derives four round keys. The
//! intrinsics (`vsm4eq_u32`, …) are unstable, so the instructions go through `asm!`. Eight
//! blocks are interleaved so the instruction's latency overlaps (the Linux kernel's
//! sm4-ce does the same).
//!
//! SAFETY (all blocks below): the functions are `#[inline(always)]` helpers of, or are, the
//! `#[target_feature(enable = "sm4")]` entries, which only the [`Aarch64Sm4`] kernel calls,
//! a token made only from an `Available` `aarch64-sm4` backend (the dispatch probe found
//! FEAT_SM4); loads and stores stay within the slices they are given (lengths checked by
//! `chunks_exact`/indexing first).

use core::arch::aarch64::*;
use core::arch::asm;

use cipher::{Block, consts::U8, inout::InOutBuf, typenum::Unsigned};

use crate::{
    Backend, Sm4,
    consts::{CK, FK},
    engine::Kernel,
    key::RoundKeys,
};

instruction_kernel! {
    /// `aarch64-sm4` (see the module documentation).
    Aarch64Sm4 = Aarch64Sm4, par_blocks U8,
}

/// Blocks interleaved per step: the kernel's `ParBlocks`.
const PAR_BLOCKS: usize = <Aarch64Sm4 as Kernel>::ParBlocks::USIZE;

/// Four SM4 rounds with round keys `rk` on the block `x` (words in lanes 0..3).
#[inline(always)]
fn sm4e(mut x: uint32x4_t, rk: uint32x4_t) -> uint32x4_t {
    // SAFETY: see the module comment; register-only instruction.
    unsafe {
        asm!(
            "sm4e {x:v}.4s, {k:v}.4s",
            x = inout(vreg) x, k = in(vreg) rk,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    x
}

/// Loads a block as four big-endian words.
#[inline(always)]
fn load(block: &Block<Sm4>) -> uint32x4_t {
    // SAFETY: see the module comment; `block` is 16 readable bytes.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block.as_ptr()))) }
}

/// The output of the rounds (X32..X35 in lanes 0..3) as ciphertext bytes X35..X32.
#[inline(always)]
fn finish(x: uint32x4_t) -> uint8x16_t {
    // SAFETY: see the module comment.
    unsafe {
        let r = vrev64q_u32(x);
        vrev32q_u8(vreinterpretq_u8_u32(vextq_u32::<2>(r, r)))
    }
}

#[inline(always)]
fn store(v: uint8x16_t, block: &mut Block<Sm4>) {
    // SAFETY: see the module comment; `block` is 16 writable bytes.
    unsafe { vst1q_u8(block.as_mut_ptr(), v) }
}

#[inline(always)]
fn round_keys(rk: &RoundKeys) -> [uint32x4_t; 8] {
    let mut k = [[0u32; 4]; 8];
    for (dst, src) in k.iter_mut().zip(rk.chunks_exact(4)) {
        dst.copy_from_slice(src);
    }
    // SAFETY: see the module comment; each `k[i]` is 16 readable bytes.
    k.map(|w| unsafe { vld1q_u32(w.as_ptr()) })
}

/// 32 rounds on `N` independent blocks, interleaved.
#[inline(always)]
fn rounds<const N: usize>(k: &[uint32x4_t; 8], x: &mut [uint32x4_t; N]) {
    for rk in k {
        for xi in x.iter_mut() {
            *xi = sm4e(*xi, *rk);
        }
    }
}

/// Encrypts (or, with reversed round keys, decrypts) any number of blocks.
///
/// # Safety
/// The CPU must support FEAT_SM4.
#[target_feature(enable = "sm4")]
unsafe fn crypt(rk: &RoundKeys, mut blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    let k = round_keys(rk);
    if blocks.len() == 1 {
        // One block alone (CBC chains): one lane, not a whole step.
        let mut block = blocks.get(0);
        let mut x = [load(block.get_in())];
        rounds(&k, &mut x);
        store(finish(x[0]), block.get_out());
        return;
    }
    // Whole steps, then the rest as one more step whose missing lanes repeat its first
    // block (their results are dropped), as `ctr32` does: one pass of the rounds' latency
    // instead of one pass per block.
    while !blocks.is_empty() {
        let n = blocks.len().min(PAR_BLOCKS);
        let (mut head, tail) = blocks.split_at(n);
        let input = head.get_in();
        let mut x = [load(&input[0]); PAR_BLOCKS];
        for (xi, b) in x.iter_mut().zip(input) {
            *xi = load(b);
        }
        rounds(&k, &mut x);
        for (xi, b) in x.iter().zip(head.get_out()) {
            store(finish(*xi), b);
        }
        blocks = tail;
    }
}

/// XORs `blocks` with E(ctr), E(ctr + 1), … counting in the last word only (mod 2^32),
/// and advances `ctr`.
///
/// # Safety
/// The CPU must support FEAT_SM4.
#[target_feature(enable = "sm4")]
unsafe fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
    let k = round_keys(rk);
    for chunk in blocks.chunks_mut(PAR_BLOCKS) {
        let mut x = [load(&chunk[0]); PAR_BLOCKS];
        for (j, xi) in x.iter_mut().enumerate() {
            let c = [ctr[0], ctr[1], ctr[2], ctr[3].wrapping_add(j as u32)];
            // SAFETY: see the module comment; `c` is 16 readable bytes.
            *xi = unsafe { vld1q_u32(c.as_ptr()) };
        }
        rounds(&k, &mut x);
        for (xi, b) in x.iter().zip(chunk.iter_mut()) {
            // SAFETY: see the module comment; `b` is 16 readable bytes.
            let data = unsafe { vld1q_u8(b.as_ptr()) };
            store(veorq_u8(finish(*xi), data), b);
        }
        ctr[3] = ctr[3].wrapping_add(chunk.len() as u32);
    }
}

/// Key expansion with `SM4EKEY`.
///
/// # Safety
/// The CPU must support FEAT_SM4.
#[target_feature(enable = "sm4")]
unsafe fn expand_key(key: &[u8; 16]) -> RoundKeys {
    let mut k = [0u32; 4];
    for (i, w) in k.iter_mut().enumerate() {
        *w = u32::from_be_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]])
            ^ FK[i];
    }
    let mut rk = [0u32; 32];
    // SAFETY: see the module comment; all pointers are to 16-byte arrays or chunks.
    unsafe {
        let mut kv = vld1q_u32(k.as_ptr());
        for (out, ck) in rk.chunks_exact_mut(4).zip(CK.chunks_exact(4)) {
            let c = vld1q_u32(ck.as_ptr());
            asm!(
                "sm4ekey {k:v}.4s, {k:v}.4s, {c:v}.4s",
                k = inout(vreg) kv, c = in(vreg) c,
                options(pure, nomem, nostack, preserves_flags)
            );
            vst1q_u32(out.as_mut_ptr(), kv);
        }
    }
    rk
}
