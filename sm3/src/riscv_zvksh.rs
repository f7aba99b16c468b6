//! `riscv-zvksh`: the RISC-V vector crypto instructions of Zvksh (`vsm3me.vv`: eight words
//! of the message expansion; `vsm3c.vi`: two compression rounds) with Zvkb's `vrev8.v`,
//! after "RISC-V Cryptography Extensions Volume II: Vector Instructions" v1.0 (the technique
//! as in Linux's `sm3-riscv64-zvksh-zvkb.S`).
//!
//! The state {A..H} is one 256-bit element group (LMUL = 2 at VLEN = 128), as are eight
//! message words. `vsm3c.vi` reads W_j, W_j+1 from elements 0, 1 and W_j+4, W_j+5 from
//! elements 4, 5 (it forms W' itself), so each eight words W_8k.. feed four of them: as
//! loaded, slid down by 2, joined with the next eight (slid down by 4, then up by 4), and
//! that slid down by 2. Both instructions byte-swap their 32-bit inputs and outputs, so the
//! block is loaded as it lies in memory and only the state is swapped (`vrev8.v`) on the
//! way in and out.
//!
//! [`compress`] needs V, Zvksh and Zvkb (callers hold the probe's answer). Its `asm!` block
//! names the extensions with `.option arch` (the Rust target need not enable them),
//! clobbers only the vector registers it declares, and puts `vl`/`vtype` back as it found
//! them.

use core::arch::asm;

use crate::Backend;

shangmi_dispatch::kernel_token! {
    /// `riscv-zvksh`: made only from an `Available` backend of its kind, so the dispatch
    /// probe (Linux `riscv_hwprobe`, or the compiled-in target features) found V, Zvksh
    /// and Zvkb.
    pub(crate) struct RiscvZvksh = Backend::RiscvZvksh;
    impl crate::engine::Kernel {
        fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]);
    }
}

/// Rounds 8k..8k+7 with W_8k.. in `$wa` and W_8k+8.. in `$wb` (`$r0`..`$r3` = 4k..4k+3, the
/// `vsm3c.vi` round-pair numbers); v8 and v10 are scratch.
#[rustfmt::skip]
macro_rules! eight_rounds {
    ($wa:literal, $wb:literal, $r0:literal, $r1:literal, $r2:literal, $r3:literal) => {
        concat!(
            "vsm3c.vi v2, ", $wa, ", ", $r0, "\n",
            "vslidedown.vi v8, ", $wa, ", 2\n",
            "vsm3c.vi v2, v8, ", $r1, "\n",
            "vslidedown.vi v8, ", $wa, ", 4\n",
            "vslideup.vi v8, ", $wb, ", 4\n",
            "vsm3c.vi v2, v8, ", $r2, "\n",
            "vslidedown.vi v10, v8, 2\n",
            "vsm3c.vi v2, v10, ", $r3, "\n",
        )
    };
}

/// Sixteen rounds with W_16k.. in v4 and W_16k+8.. in v6 (`$r`: the round pairs 8k..8k+7),
/// leaving the next sixteen message words in v4 and v6.
macro_rules! sixteen_rounds {
    ($r0:literal, $r1:literal, $r2:literal, $r3:literal,
     $r4:literal, $r5:literal, $r6:literal, $r7:literal) => {
        concat!(
            eight_rounds!("v4", "v6", $r0, $r1, $r2, $r3),
            "vsm3me.vv v4, v6, v4\n",
            eight_rounds!("v6", "v4", $r4, $r5, $r6, $r7),
            "vsm3me.vv v6, v4, v6\n",
        )
    };
}

/// Compresses `blocks` into `state` (GB/T 32905-2016 5.3), one after another.
///
/// # Safety
/// The CPU must have V, Zvksh and Zvkb.
pub(crate) unsafe fn compress(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    if blocks.is_empty() {
        return;
    }
    // SAFETY: the caller guarantees the extensions. The block reads and writes the 32 bytes
    // of `state` and reads the 64 * len bytes of `blocks` (len > 0, counted down in `n`).
    // Registers: v0–v1 the state before the block, v2–v3 the state, v4–v7 two groups of
    // eight message words (they alternate as the older and newer group), v8–v11 scratch.
    unsafe {
        asm!(
            ".option push",
            ".option arch, +v, +zvksh, +zvkb",
            "csrr {vl0}, vl",
            "csrr {vt0}, vtype",
            "vsetivli zero, 8, e32, m2, ta, ma",
            "vle32.v v2, ({state})",
            "vrev8.v v2, v2",
            "2:",
            "vmv.v.v v0, v2",
            "vle32.v v4, ({p})",
            "addi {p}, {p}, 32",
            "vle32.v v6, ({p})",
            "addi {p}, {p}, 32",
            sixteen_rounds!(0, 1, 2, 3, 4, 5, 6, 7),
            sixteen_rounds!(8, 9, 10, 11, 12, 13, 14, 15),
            sixteen_rounds!(16, 17, 18, 19, 20, 21, 22, 23),
            eight_rounds!("v4", "v6", 24, 25, 26, 27),
            "vsm3me.vv v4, v6, v4",
            eight_rounds!("v6", "v4", 28, 29, 30, 31),
            "vxor.vv v2, v2, v0",
            "addi {n}, {n}, -1",
            "bnez {n}, 2b",
            "vrev8.v v2, v2",
            "vse32.v v2, ({state})",
            "vsetvl zero, {vl0}, {vt0}",
            ".option pop",
            state = in(reg) state.as_mut_ptr(),
            p = inout(reg) blocks.as_ptr() => _,
            n = inout(reg) blocks.len() => _,
            vl0 = out(reg) _,
            vt0 = out(reg) _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _,
            out("v4") _, out("v5") _, out("v6") _, out("v7") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            options(nostack),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{consts::IV, soft};

    extern crate std;

    fn present() -> bool {
        crate::Backend::RiscvZvksh.is_available()
    }

    /// Prints that this CPU lacks the extensions, or fails where CI runs on a CPU model
    /// with them (`SHANGMI_REQUIRE_RISCV_VECTOR_CRYPTO` set) so the tests cannot pass
    /// unexercised.
    fn skipped() {
        assert!(
            std::env::var_os("SHANGMI_REQUIRE_RISCV_VECTOR_CRYPTO").is_none(),
            "riscv-zvksh: the CPU lacks the extensions but the run requires them"
        );
        std::println!("riscv-zvksh: not on this CPU, skipped");
    }

    /// GB/T 32905-2016 Appendix A.1: "abc" padded to one block, and its digest.
    #[test]
    fn gbt_32905_example_1() {
        if !present() {
            return skipped();
        }
        let (block, digest) = crate::consts::test_data::ABC;
        let mut state = IV;
        // SAFETY: `present` said the CPU has the extensions.
        unsafe { compress(&mut state, &[block]) };
        assert_eq!(state, digest);
    }

    #[test]
    fn equals_soft_for_every_count() {
        if !present() {
            return skipped();
        }
        let data = crate::consts::test_data::test_blocks::<9>();
        for n in 0..=data.len() {
            let (mut want, mut got) = (IV, IV);
            soft::compress(&mut want, &data[..n]);
            // SAFETY: `present` said the CPU has the extensions.
            unsafe { compress(&mut got, &data[..n]) };
            assert_eq!(got, want, "{n} blocks");
        }
    }
}
