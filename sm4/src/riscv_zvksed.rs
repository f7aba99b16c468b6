//! `riscv-zvksed`: the RISC-V vector crypto instructions of Zvksed (`vsm4k.vi`: four rounds
//! of the key schedule; `vsm4r.vs`: four cipher rounds on every 128-bit element group with
//! one group's round keys) with Zvkb's `vrev8.v`, after "RISC-V Cryptography Extensions
//! Volume II: Vector Instructions" v1.0 (the technique as in Linux's
//! `sm4-riscv64-zvksed-zvkb.S`, which does one block per call; this engine does a register
//! group of blocks).
//!
//! A block is one element group of four 32-bit elements, so LMUL = 8 holds VLEN / 16
//! blocks (8 at VLEN = 128) and eight `vsm4r.vs` encrypt them all, the 32 round keys kept
//! in v0–v7. The instructions take GB/T 32907's word values: blocks are loaded as
//! little-endian words and byte-swapped with `vrev8.v`; the output words come in reverse
//! order (X35 is written first), so they are stored with an indexed store whose offsets
//! swap the four words of each block.
//!
//! Every function here needs V, Zvksed and Zvkb (callers hold the probe's answer). Each
//! `asm!` block ([`vector_asm!`]) names the extensions with `.option arch` (the Rust target
//! need not enable them), declares every vector register clobbered, and puts `vl`/`vtype`
//! back as it found them (compiled code may rely on them across the block).

use core::arch::asm;

use cipher::{Block, inout::InOutBuf};

use crate::{Backend, Sm4, consts::FK, key::RoundKeys};

instruction_kernel! {
    /// `riscv-zvksed`: made only from an `Available` backend of its kind, so the dispatch
    /// probe (Linux `riscv_hwprobe`, or the compiled-in target features) found V, Zvksed
    /// and Zvkb.
    // Two register groups at the minimum VLEN (128), one at VLEN = 256.
    RiscvZvksed = RiscvZvksed, par_blocks cipher::consts::U16,
}

/// `asm!` with the vector extensions this engine uses enabled for the assembler, `vl` and
/// `vtype` saved before `$body` and restored after it, and every vector register clobbered.
macro_rules! vector_asm {
    ($($body:expr),+ ; $($operands:tt)*) => {
        asm!(
            ".option push",
            ".option arch, +v, +zvksed, +zvkb",
            "csrr {vl0}, vl",
            "csrr {vt0}, vtype",
            $($body,)+
            "vsetvl zero, {vl0}, {vt0}",
            ".option pop",
            $($operands)*
            vl0 = out(reg) _,
            vt0 = out(reg) _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _,
            out("v4") _, out("v5") _, out("v6") _, out("v7") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            out("v16") _, out("v17") _, out("v18") _, out("v19") _,
            out("v20") _, out("v21") _, out("v22") _, out("v23") _,
            out("v24") _, out("v25") _, out("v26") _, out("v27") _,
            out("v28") _, out("v29") _, out("v30") _, out("v31") _,
            options(nostack),
        )
    };
}

/// Loads the 32 round keys at `{rk}` into v0–v7 (four per register), using `{t}`.
macro_rules! load_round_keys {
    () => {
        concat!(
            "vsetivli zero, 4, e32, m1, ta, ma\n",
            "vle32.v v0, ({rk})\n",
            "addi {t}, {rk}, 16\n",
            "vle32.v v1, ({t})\n",
            "addi {t}, {t}, 16\n",
            "vle32.v v2, ({t})\n",
            "addi {t}, {t}, 16\n",
            "vle32.v v3, ({t})\n",
            "addi {t}, {t}, 16\n",
            "vle32.v v4, ({t})\n",
            "addi {t}, {t}, 16\n",
            "vle32.v v5, ({t})\n",
            "addi {t}, {t}, 16\n",
            "vle32.v v6, ({t})\n",
            "addi {t}, {t}, 16\n",
            "vle32.v v7, ({t})\n",
        )
    };
}

/// The 32 rounds on the blocks in v8–v15 (eight `vsm4r.vs`, four rounds each).
macro_rules! rounds {
    () => {
        concat!(
            "vsm4r.vs v8, v0\n",
            "vsm4r.vs v8, v1\n",
            "vsm4r.vs v8, v2\n",
            "vsm4r.vs v8, v3\n",
            "vsm4r.vs v8, v4\n",
            "vsm4r.vs v8, v5\n",
            "vsm4r.vs v8, v6\n",
            "vsm4r.vs v8, v7\n",
        )
    };
}

/// v16–v23 := the byte offsets that write element i of a register group to word
/// `i ^ 3` (the four words of each block in reverse order).
macro_rules! reversed_word_offsets {
    () => {
        concat!(
            "vid.v v16\n",
            "vxor.vi v16, v16, 3\n",
            "vsll.vi v16, v16, 2\n",
        )
    };
}

/// Blocks in one register group at LMUL = 8 at V's minimum VLEN (128): a lower bound that
/// spares short calls the [`group_blocks`] query.
const MIN_GROUP_BLOCKS: usize = 8;

/// Blocks in one register group at LMUL = 8 (VLEN / 16: 8 at the minimum VLEN of 128).
///
/// # Safety
/// The CPU must have V.
#[inline]
unsafe fn group_blocks() -> usize {
    let words: usize;
    // SAFETY: the caller guarantees V; `vsetvli` with rs1 = zero only sets vl and vtype,
    // which `vector_asm!` restores.
    unsafe {
        vector_asm!(
            "vsetvli {words}, zero, e32, m8, ta, ma";
            words = out(reg) words,
        );
    }
    words / 4
}

/// Expands `key` into the encryption round keys (GB/T 32907 word values, as the soft
/// engine's), eight `vsm4k.vi`.
///
/// # Safety
/// The CPU must have V, Zvksed and Zvkb.
pub(crate) unsafe fn expand_key(key: &[u8; 16]) -> RoundKeys {
    let mut rk = [0u32; 32];
    // SAFETY: the caller guarantees the extensions; the block reads 16 bytes of `key` and
    // 16 of `FK`, and writes the 128 bytes of `rk`.
    unsafe {
        vector_asm!(
            "vsetivli zero, 4, e32, m1, ta, ma",
            "vle32.v v1, ({key})",
            "vrev8.v v1, v1",
            "vle32.v v2, ({fk})",
            "vxor.vv v1, v1, v2",
            "vsm4k.vi v1, v1, 0",
            "vse32.v v1, ({rk})",
            "vsm4k.vi v1, v1, 1",
            "addi {rk}, {rk}, 16",
            "vse32.v v1, ({rk})",
            "vsm4k.vi v1, v1, 2",
            "addi {rk}, {rk}, 16",
            "vse32.v v1, ({rk})",
            "vsm4k.vi v1, v1, 3",
            "addi {rk}, {rk}, 16",
            "vse32.v v1, ({rk})",
            "vsm4k.vi v1, v1, 4",
            "addi {rk}, {rk}, 16",
            "vse32.v v1, ({rk})",
            "vsm4k.vi v1, v1, 5",
            "addi {rk}, {rk}, 16",
            "vse32.v v1, ({rk})",
            "vsm4k.vi v1, v1, 6",
            "addi {rk}, {rk}, 16",
            "vse32.v v1, ({rk})",
            "vsm4k.vi v1, v1, 7",
            "addi {rk}, {rk}, 16",
            "vse32.v v1, ({rk})";
            key = in(reg) key.as_ptr(),
            fk = in(reg) FK.as_ptr(),
            rk = inout(reg) rk.as_mut_ptr() => _,
        );
    }
    rk
}

/// Encrypts (or, with reversed round keys, decrypts) any number of blocks, a register
/// group at a time.
///
/// # Safety
/// The CPU must have V, Zvksed and Zvkb.
pub(crate) unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    let total = blocks.len();
    let (mut inp, mut outp) = blocks.into_raw();
    let group = if total <= MIN_GROUP_BLOCKS {
        MIN_GROUP_BLOCKS
    } else {
        // SAFETY: the caller guarantees V.
        unsafe { group_blocks() }
    };
    let mut done = 0;
    while done < total {
        let n = group.min(total - done);
        // SAFETY: the caller guarantees the extensions. `inp`/`outp` point at `n` blocks
        // (16 n bytes) of the `InOutBuf`, which are either the same memory or disjoint;
        // every block is loaded before any is stored. `n <= group`, so vl = 4 n exactly
        // (a multiple of the element group size, 4). Registers: v0–v7 round keys, v8–v15
        // the blocks, v16–v23 the store offsets.
        unsafe {
            vector_asm!(
                load_round_keys!(),
                "vsetvli zero, {words}, e32, m8, ta, ma",
                "vle32.v v8, ({inp})",
                "vrev8.v v8, v8",
                rounds!(),
                "vrev8.v v8, v8",
                reversed_word_offsets!(),
                "vsuxei32.v v8, ({outp}), v16";
                rk = in(reg) rk.as_ptr(),
                t = out(reg) _,
                words = in(reg) 4 * n,
                inp = in(reg) inp,
                outp = in(reg) outp,
            );
        }
        done += n;
        // SAFETY: both stay within (or one past the end of) the `total` blocks.
        unsafe {
            inp = inp.add(n);
            outp = outp.add(n);
        }
    }
}

/// XORs `blocks` with E(ctr), E(ctr + 1), … counting in the last word only (mod 2^32),
/// and advances `ctr` (GB/T 32907 big-endian words). The counter blocks are built in
/// registers: element i is `ctr[i % 4]`, plus `i / 4` in the last word.
///
/// # Safety
/// The CPU must have V, Zvksed and Zvkb.
pub(crate) unsafe fn ctr32(rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
    let group = if blocks.len() <= MIN_GROUP_BLOCKS {
        MIN_GROUP_BLOCKS
    } else {
        // SAFETY: the caller guarantees V.
        unsafe { group_blocks() }
    };
    for chunk in blocks.chunks_mut(group) {
        let n = chunk.len();
        // SAFETY: the caller guarantees the extensions. The block reads the 16 bytes of
        // `ctr` and reads and writes the 16 n bytes of `chunk`; `n <= group`, so vl = 4 n.
        // Registers: v0–v7 round keys, v8–v15 counters then keystream, v16–v23 word
        // index then offsets, v24–v31 counter words, block numbers, then data.
        unsafe {
            vector_asm!(
                load_round_keys!(),
                "vle32.v v24, ({ctr})",
                "vsetvli zero, {words}, e32, m8, ta, ma",
                // v8[i] = ctr[i % 4]
                "vid.v v16",
                "vand.vi v16, v16, 3",
                "vrgather.vv v8, v24, v16",
                // v8[i] += i / 4 where i % 4 == 3: (i / 4) * ((i % 4 + 1) / 4)
                "vid.v v24",
                "vsrl.vi v24, v24, 2",
                "vadd.vi v16, v16, 1",
                "vsrl.vi v16, v16, 2",
                "vmul.vv v24, v24, v16",
                "vadd.vv v8, v8, v24",
                rounds!(),
                "vrev8.v v8, v8",
                reversed_word_offsets!(),
                // The data words in the keystream's (reversed) order, XORed, written back.
                "vluxei32.v v24, ({data}), v16",
                "vxor.vv v24, v24, v8",
                "vsuxei32.v v24, ({data}), v16";
                rk = in(reg) rk.as_ptr(),
                t = out(reg) _,
                ctr = in(reg) ctr.as_ptr(),
                words = in(reg) 4 * n,
                data = in(reg) chunk.as_mut_ptr(),
            );
        }
        ctr[3] = ctr[3].wrapping_add(n as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{key, soft};

    extern crate std;
    use std::vec::Vec;

    fn present() -> bool {
        crate::Backend::RiscvZvksed.is_available()
    }

    /// Prints that this CPU lacks the extensions, or fails where CI runs on a CPU model
    /// with them (`SHANGMI_REQUIRE_RISCV_VECTOR_CRYPTO` set) so the tests cannot pass
    /// unexercised.
    fn skipped() {
        assert!(
            std::env::var_os("SHANGMI_REQUIRE_RISCV_VECTOR_CRYPTO").is_none(),
            "riscv-zvksed: the CPU lacks the extensions but the run requires them"
        );
        std::println!("riscv-zvksed: not on this CPU, skipped");
    }

    /// Deterministic test data (a 32-bit LCG's high bytes).
    fn bytes(seed: u32, len: usize) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect()
    }

    fn blocks(seed: u32, n: usize) -> Vec<Block<Sm4>> {
        bytes(seed, 16 * n)
            .chunks_exact(16)
            .map(|c| Block::<Sm4>::try_from(c).expect("16 bytes"))
            .collect()
    }

    // GB/T 32907-2016 Appendix A, example 1: key = plaintext = 0123456789abcdeffedcba9876543210.
    const GBT_KEY: [u8; 16] = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
        0x10,
    ];
    const GBT_CIPHERTEXT: [u8; 16] = [
        0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e, 0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e, 0x42,
        0x46,
    ];

    #[test]
    fn gbt_32907_example_1_and_key_schedule() {
        if !present() {
            return skipped();
        }
        // SAFETY: `present` said the CPU has the extensions.
        let rk = unsafe { expand_key(&GBT_KEY) };
        assert_eq!(rk, key::expand(&GBT_KEY, soft::tau));
        // The appendix's first and last round keys.
        assert_eq!(rk[0], 0xf121_86f9);
        assert_eq!(rk[31], 0x9124_a012);
        let mut block = [Block::<Sm4>::from(GBT_KEY)];
        // SAFETY: as above.
        unsafe { crypt(&rk, (&mut block[..]).into()) };
        assert_eq!(block[0], Block::<Sm4>::from(GBT_CIPHERTEXT));
        // SAFETY: as above.
        unsafe { crypt(&key::reversed(&rk), (&mut block[..]).into()) };
        assert_eq!(block[0], Block::<Sm4>::from(GBT_KEY));
    }

    #[test]
    fn equals_soft_for_every_count_in_place_and_out_of_place() {
        if !present() {
            return skipped();
        }
        // Counts across several register groups (8 blocks each at VLEN = 128).
        for n in 0..=35 {
            let key: [u8; 16] = bytes(n as u32, 16).try_into().expect("16 bytes");
            let rk = key::expand(&key, soft::tau);
            for dir in [rk, key::reversed(&rk)] {
                let input = blocks(1000 + n as u32, n);
                let mut want = input.clone();
                soft::crypt(&dir, (&mut want[..]).into());

                let mut in_place = input.clone();
                // SAFETY: `present` said the CPU has the extensions.
                unsafe { crypt(&dir, (&mut in_place[..]).into()) };
                assert_eq!(in_place, want, "{n} blocks in place");

                let mut out = std::vec![Block::<Sm4>::default(); n];
                let buf = InOutBuf::new(&input[..], &mut out[..]).expect("same length");
                // SAFETY: as above.
                unsafe { crypt(&dir, buf) };
                assert_eq!(out, want, "{n} blocks out of place");
            }
        }
    }

    #[test]
    fn ctr32_equals_soft_across_the_counter_wrap() {
        if !present() {
            return skipped();
        }
        let rk = key::expand(&GBT_KEY, soft::tau);
        for n in [0, 1, 3, 7, 8, 9, 16, 17, 33] {
            // The last word starts 5 below 2^32, so longer runs wrap inside one group.
            let start = [0x0123_4567, 0x89ab_cdef, 0xfedc_ba98, 0xffff_fffb];
            let data = blocks(7 + n as u32, n);
            let (mut want, mut got) = (data.clone(), data);
            let (mut c_want, mut c_got) = (start, start);
            soft::ctr32(&rk, &mut c_want, &mut want);
            // SAFETY: `present` said the CPU has the extensions.
            unsafe { ctr32(&rk, &mut c_got, &mut got) };
            assert_eq!(got, want, "{n} blocks");
            assert_eq!(c_got, c_want, "{n} blocks: counter after");
        }
    }
}
