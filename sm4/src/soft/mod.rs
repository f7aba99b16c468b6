//! Portable constant-time engine: a bitsliced boolean circuit for the S-box.
//!
//! The S-box is S(x) = A·inv(A·x + 0xD3) + 0xD3 with inv in GF(2^8) mod
//! x^8+x^7+x^6+x^5+x^4+x^2+1 (Liu et al., "Analysis of the SMS4 block cipher", ACISP 2007).
//! The inversion runs in the isomorphic tower field GF((2^4)^2) (the idea of Canright's
//! compact AES S-box), so the whole S-box is XOR/AND/NOT on bit planes: no table, no
//! branch, no secret-dependent address. Sixteen blocks share one evaluation: the sixteen
//! T-words (64 bytes) are transposed into eight 64-bit bit planes, run through the circuit
//! and transposed back; the linear layer L stays in ordinary word form.
//!
//! One block (a CBC chain, CMAC, a single `encrypt_block`, the key expansion) has one word
//! per round, and the sixteen-lane form would pay for fifteen empty lanes and two full
//! transpositions. [`tau`] runs the same circuit on `u32` planes instead: plane i is the
//! word shifted right by i, so bit 8k of plane i is bit i of byte k. The other bits carry
//! whatever the shifts bring in, and since every gate is bitwise they never reach the bits
//! 8k that are kept. No transposition, no table, no branch: the same constant-time
//! argument as the wide form.

use cipher::{Block, inout::InOutBuf};

use crate::key::RoundKeys;

mod circuit;

use circuit::{sbox_circuit, sbox_planes};

/// Blocks per circuit evaluation.
pub(crate) const PAR_BLOCKS: usize = 16;

/// Up to this many blocks, one narrow evaluation per block ([`crypt_one`]) costs less than
/// one sixteen-lane evaluation (about 0.45 of it each, measured on x86-64).
const NARROW_MAX: usize = 2;

/// tau: the S-box on each byte of sixteen words.
#[inline(always)]
fn tau16(t: &[u32; PAR_BLOCKS]) -> [u32; PAR_BLOCKS] {
    let mut q = [0u64; 8];
    for (k, qk) in q.iter_mut().enumerate() {
        *qk = u64::from(t[k]) | (u64::from(t[k + 8]) << 32);
    }
    let s = sbox_planes(q);
    let mut out = [0u32; PAR_BLOCKS];
    for (k, sk) in s.iter().enumerate() {
        out[k] = *sk as u32;
        out[k + 8] = (*sk >> 32) as u32;
    }
    out
}

/// tau on a single word: the circuit on `u32` planes (see the module documentation).
#[inline(always)]
pub(crate) fn tau(a: u32) -> u32 {
    let planes: [u32; 8] = core::array::from_fn(|i| a >> i);
    let s = sbox_circuit(&planes);
    let mut out = 0;
    for (i, si) in s.iter().enumerate() {
        out |= (si & 0x0101_0101) << i;
    }
    out
}

/// L: B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24).
#[inline(always)]
fn l(b: u32) -> u32 {
    b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24)
}

/// One round: `a ^= L(tau(b ^ c ^ d ^ k))` for sixteen blocks.
#[inline(always)]
fn round(
    a: &mut [u32; PAR_BLOCKS],
    b: &[u32; PAR_BLOCKS],
    c: &[u32; PAR_BLOCKS],
    d: &[u32; PAR_BLOCKS],
    k: u32,
) {
    let t: [u32; PAR_BLOCKS] = core::array::from_fn(|j| b[j] ^ c[j] ^ d[j] ^ k);
    for (aj, sj) in a.iter_mut().zip(tau16(&t)) {
        *aj ^= l(sj);
    }
}

/// 32 rounds on sixteen blocks held as four arrays of words.
fn rounds(rk: &RoundKeys, x: &mut [[u32; PAR_BLOCKS]; 4]) {
    let [x0, x1, x2, x3] = x;
    for k in rk.chunks_exact(4) {
        round(x0, x1, x2, x3, k[0]);
        round(x1, x2, x3, x0, k[1]);
        round(x2, x3, x0, x1, k[2]);
        round(x3, x0, x1, x2, k[3]);
    }
}

/// Encrypts (or, with reversed round keys, decrypts) up to sixteen blocks.
fn crypt_chunk(rk: &RoundKeys, mut blocks: InOutBuf<'_, '_, Block<crate::Sm4>>) {
    let mut x = [[0u32; PAR_BLOCKS]; 4];
    for (j, block) in blocks.get_in().iter().enumerate() {
        for (i, xi) in x.iter_mut().enumerate() {
            xi[j] = u32::from_be_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ]);
        }
    }
    rounds(rk, &mut x);
    for (j, block) in blocks.get_out().iter_mut().enumerate() {
        for i in 0..4 {
            block[4 * i..4 * i + 4].copy_from_slice(&x[3 - i][j].to_be_bytes());
        }
    }
}

/// Encrypts (or, with reversed round keys, decrypts) one block with the narrow [`tau`]:
/// the latency-first path of chains and single blocks.
pub(crate) fn crypt_one(rk: &RoundKeys, block: &Block<crate::Sm4>) -> Block<crate::Sm4> {
    let mut x: [u32; 4] = core::array::from_fn(|i| {
        u32::from_be_bytes([
            block[4 * i],
            block[4 * i + 1],
            block[4 * i + 2],
            block[4 * i + 3],
        ])
    });
    for (i, &k) in rk.iter().enumerate() {
        let t = x[(i + 1) % 4] ^ x[(i + 2) % 4] ^ x[(i + 3) % 4] ^ k;
        x[i % 4] ^= l(tau(t));
    }
    let mut out = Block::<crate::Sm4>::default();
    for i in 0..4 {
        out[4 * i..4 * i + 4].copy_from_slice(&x[3 - i].to_be_bytes());
    }
    out
}

/// Encrypts (or, with reversed round keys, decrypts) any number of blocks.
pub(crate) fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<crate::Sm4>>) {
    let mut rest = blocks;
    while !rest.is_empty() {
        let n = rest.len().min(PAR_BLOCKS);
        let (head, tail) = rest.split_at(n);
        if n <= NARROW_MAX {
            for mut block in head {
                *block.get_out() = crypt_one(rk, block.get_in());
            }
        } else {
            crypt_chunk(rk, head);
        }
        rest = tail;
    }
}

/// XORs `blocks` with E(ctr), E(ctr + 1), … counting in the last word only (mod 2^32),
/// and advances `ctr`.
pub(crate) fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<crate::Sm4>]) {
    for chunk in blocks.chunks_mut(PAR_BLOCKS) {
        if chunk.len() <= NARROW_MAX {
            for block in chunk {
                let mut c = Block::<crate::Sm4>::default();
                for (c, w) in c.chunks_exact_mut(4).zip(*ctr) {
                    c.copy_from_slice(&w.to_be_bytes());
                }
                for (b, k) in block.iter_mut().zip(crypt_one(rk, &c)) {
                    *b ^= k;
                }
                ctr[3] = ctr[3].wrapping_add(1);
            }
            continue;
        }
        let mut x = [
            [ctr[0]; PAR_BLOCKS],
            [ctr[1]; PAR_BLOCKS],
            [ctr[2]; PAR_BLOCKS],
            [ctr[3]; PAR_BLOCKS],
        ];
        for (j, w) in x[3].iter_mut().enumerate() {
            *w = w.wrapping_add(j as u32);
        }
        rounds(rk, &mut x);
        for (j, block) in chunk.iter_mut().enumerate() {
            for i in 0..4 {
                for (b, k) in block[4 * i..4 * i + 4]
                    .iter_mut()
                    .zip(x[3 - i][j].to_be_bytes())
                {
                    *b ^= k;
                }
            }
        }
        ctr[3] = ctr[3].wrapping_add(chunk.len() as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The narrow circuit against the sixteen-lane one, every byte value in every position
    /// of the word (and the other bytes varied, which the narrow form must ignore).
    #[test]
    fn narrow_tau_equals_the_wide_circuit() {
        for v in 0..=255u32 {
            for shift in [0, 8, 16, 24] {
                let a = (v << shift) | (0x9e37_79b9u32.rotate_left(v) & !(0xff << shift));
                let mut t = [0u32; PAR_BLOCKS];
                t[5] = a;
                assert_eq!(tau(a), tau16(&t)[5], "{a:08x}");
            }
        }
    }
}
