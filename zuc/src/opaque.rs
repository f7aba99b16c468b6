//! An optimisation barrier for masks derived from secrets: LLVM cannot tell that the value
//! is 0 or all-ones, so it cannot turn `x & mask` into a branch or a select it lowers to one
//! (it did, in the MAC's per-bit selection, until the release-mode memcheck run caught it).

/// `x` unchanged, but opaque to the optimiser: an empty `asm!` on x86-64 and AArch64 (no
/// instruction, the value stays in its register), `black_box` elsewhere.
#[inline(always)]
pub(crate) fn opaque(mut x: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the template is only a comment: no instruction runs, no memory or flag is
    // touched; the register holds `x` before and after.
    unsafe {
        core::arch::asm!("/* {0:e} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(target_arch = "aarch64")]
    // SAFETY: as above.
    unsafe {
        core::arch::asm!("/* {0:w} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        x = core::hint::black_box(x);
    }
    x
}
