//! `riscv-zksh`: the RISC-V scalar crypto instructions `sm3p0` / `sm3p1` (Zksh) for the
//! permutations P0 and P1, inside the shared unrolled rounds (`crate::rounds`). Compiled in
//! when the target has Zksh (`-C target-feature=+zksh`): `no_std` has no runtime probe.
//!
//! SAFETY (the `asm!` blocks): this module is compiled only when the target has Zksh
//! (`cfg(target_feature = "zksh")`); the instructions touch registers only.

use core::arch::asm;

use crate::{
    Backend,
    engine::Kernel,
    rounds::{Word, expand, rounds},
};

shangmi_dispatch::kernel_token! {
    /// `riscv-zksh` (see the module documentation; the instructions are compiled in, so
    /// the token proves nothing the build does not already).
    pub(crate) struct RiscvZksh = Backend::RiscvZksh;
}

impl Kernel for RiscvZksh {
    #[inline(always)]
    fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
        compress(state, blocks);
    }
}

/// The permutation instruction `$insn` (`sm3p0` or `sm3p1`) on the word `$x`.
macro_rules! perm {
    ($insn:literal, $x:expr) => {{
        let r: usize;
        // SAFETY: see the module comment.
        unsafe {
            asm!(concat!($insn, " {r}, {x}"), r = lateout(reg) r, x = in(reg) $x.0 as usize, options(pure, nomem, nostack))
        };
        Zksh(r as u32)
    }};
}

/// A word whose P0 and P1 are the Zksh instructions.
#[derive(Clone, Copy)]
struct Zksh(u32);

impl Word for Zksh {
    #[inline(always)]
    fn splat(self, k: u32) -> Self {
        Zksh(k)
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Zksh(self.0.wrapping_add(o.0))
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        Zksh(self.0 ^ o.0)
    }
    #[inline(always)]
    fn rotl<const N: i32>(self) -> Self {
        Zksh(self.0.rotate_left(N as u32))
    }
    #[inline(always)]
    fn maj(a: Self, b: Self, c: Self) -> Self {
        Zksh(u32::maj(a.0, b.0, c.0))
    }
    #[inline(always)]
    fn ch(a: Self, b: Self, c: Self) -> Self {
        Zksh(u32::ch(a.0, b.0, c.0))
    }
    #[inline(always)]
    fn p0(self) -> Self {
        perm!("sm3p0", self)
    }
    #[inline(always)]
    fn p1(self) -> Self {
        perm!("sm3p1", self)
    }
}

/// Compresses `blocks` into `state`.
fn compress(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut s = state.map(Zksh);
    let mut w = [Zksh(0); 68];
    let mut wp = [Zksh(0); 64];
    for block in blocks {
        for (wi, c) in w.iter_mut().zip(block.chunks_exact(4)) {
            *wi = Zksh(u32::from_be_bytes([c[0], c[1], c[2], c[3]]));
        }
        expand(&mut w, &mut wp);
        rounds(&mut s, &w, &wp);
    }
    *state = s.map(|z| z.0);
}
