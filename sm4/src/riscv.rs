//! `riscv-zksed`: the RISC-V scalar crypto instructions `sm4ed` / `sm4ks` (Zksed): each
//! computes S-box(byte bs of rs2), applies the round's linear map and XORs it into rs1, so
//! a round is four instructions. Compiled in when the target has Zksed
//! (`-C target-feature=+zksed`), as runtime detection is not available in `no_std`.
//!
//! Zksed reads bytes of a word loaded little-endian (bs = 0 is the first byte in memory),
//! so this engine keeps the state and its round keys byte-swapped relative to GB/T 32907's
//! big-endian words; `expand_key` produces keys in that form.
//!
//! SAFETY (all `asm!` blocks): this module is compiled only when the target has Zksed
//! (`cfg(target_feature = "zksed")`); the instructions touch registers only.

use core::arch::asm;

use cipher::{Block, consts::U1, inout::InOutBuf};

use crate::{
    Backend, Sm4,
    consts::{CK, FK},
    engine::Kernel,
    key::RoundKeys,
};

shangmi_dispatch::kernel_token! {
    /// `riscv-zksed` (see the module documentation; the instructions are compiled in, so
    /// the token proves nothing the build does not already).
    pub(crate) struct RiscvZksed = Backend::RiscvZksed;
}

impl Kernel for RiscvZksed {
    type ParBlocks = U1;
    #[inline(always)]
    fn crypt(self, rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        crypt(rk, blocks);
    }
    #[inline(always)]
    fn ctr32(self, rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
        ctr32(rk, ctr, blocks);
    }
    #[inline(always)]
    fn expand_key(self, key: &[u8; 16]) -> RoundKeys {
        expand_key(key)
    }
}

/// `acc` with the four bytes of `t` folded in by the Zksed instruction `$insn` (`sm4ed` or
/// `sm4ks`), byte 0 first. A macro because `asm!` needs the mnemonic as a literal.
macro_rules! zksed_four_bytes {
    ($insn:literal, $acc:expr, $t:expr) => {{
        let mut a = $acc as usize;
        // SAFETY: see the module comment.
        unsafe {
            asm!(
                concat!($insn, " {a}, {a}, {t}, 0"), concat!($insn, " {a}, {a}, {t}, 1"),
                concat!($insn, " {a}, {a}, {t}, 2"), concat!($insn, " {a}, {a}, {t}, 3"),
                a = inout(reg) a, t = in(reg) $t as usize,
                options(pure, nomem, nostack)
            );
        }
        a as u32
    }};
}

/// `acc ^ L(S(t))` for the encryption round (`sm4ed`).
#[inline(always)]
fn sm4ed(acc: u32, t: u32) -> u32 {
    zksed_four_bytes!("sm4ed", acc, t)
}

/// `acc ^ L'(S(t))` for the key expansion (`sm4ks`).
#[inline(always)]
fn sm4ks(acc: u32, t: u32) -> u32 {
    zksed_four_bytes!("sm4ks", acc, t)
}

fn words_le(b: &[u8]) -> [u32; 4] {
    let mut w = [0u32; 4];
    for (wi, c) in w.iter_mut().zip(b.chunks_exact(4)) {
        *wi = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    w
}

/// 32 rounds on one block (byte-swapped words).
#[inline(always)]
fn rounds(rk: &RoundKeys, mut x: [u32; 4]) -> [u32; 4] {
    for k in rk.chunks_exact(4) {
        x[0] = sm4ed(x[0], x[1] ^ x[2] ^ x[3] ^ k[0]);
        x[1] = sm4ed(x[1], x[2] ^ x[3] ^ x[0] ^ k[1]);
        x[2] = sm4ed(x[2], x[3] ^ x[0] ^ x[1] ^ k[2]);
        x[3] = sm4ed(x[3], x[0] ^ x[1] ^ x[2] ^ k[3]);
    }
    x
}

fn put(block: &mut Block<Sm4>, x: [u32; 4]) {
    for (c, w) in block.chunks_exact_mut(4).zip([x[3], x[2], x[1], x[0]]) {
        c.copy_from_slice(&w.to_le_bytes());
    }
}

/// Encrypts (or, with reversed round keys, decrypts) any number of blocks.
fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    for mut block in blocks {
        let x = rounds(rk, words_le(block.get_in()));
        put(block.get_out(), x);
    }
}

/// XORs `blocks` with E(ctr), E(ctr + 1), … counting in the last word only (mod 2^32),
/// and advances `ctr` (given as GB/T 32907 big-endian words).
fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
    for block in blocks {
        let c = [
            ctr[0].swap_bytes(),
            ctr[1].swap_bytes(),
            ctr[2].swap_bytes(),
            ctr[3].swap_bytes(),
        ];
        let mut ks = Block::<Sm4>::from([0u8; 16]);
        put(&mut ks, rounds(rk, c));
        for (d, k) in block.iter_mut().zip(ks.iter()) {
            *d ^= k;
        }
        ctr[3] = ctr[3].wrapping_add(1);
    }
}

/// Key expansion with `sm4ks`, producing byte-swapped round keys.
fn expand_key(key: &[u8; 16]) -> RoundKeys {
    let mut k = words_le(key);
    for (ki, fk) in k.iter_mut().zip(FK) {
        *ki ^= fk.swap_bytes();
    }
    let mut rk = [0u32; 32];
    for (i, r) in rk.iter_mut().enumerate() {
        let new = sm4ks(k[0], k[1] ^ k[2] ^ k[3] ^ CK[i].swap_bytes());
        k = [k[1], k[2], k[3], new];
        *r = new;
    }
    rk
}
