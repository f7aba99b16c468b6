//! Constant-time helpers the crates share (one home, so every comparison of a tag, a MAC or
//! a Finished message, and every optimisation barrier in front of a masked selection, is
//! the same reviewed code).

/// Whether `a == b`, without an early exit: the time depends on the lengths only (unequal
/// lengths return at once; lengths are public in every caller: tag, MAC and verify_data
/// sizes). The accumulated difference passes an optimisation barrier, so the compiler
/// cannot turn the loop back into a comparison that stops at the first difference.
///
/// ```
/// assert!(shangmi_dispatch::ct::eq(b"tag", b"tag"));
/// assert!(!shangmi_dispatch::ct::eq(b"tag", b"tab"));
/// assert!(!shangmi_dispatch::ct::eq(b"tag", b"tags"));
/// ```
pub fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut d = 0u8;
    for (x, y) in a.iter().zip(b) {
        d |= x ^ y;
    }
    core::hint::black_box(d) == 0
}

/// `x` unchanged, but opaque to the optimiser: it cannot learn that a mask derived from a
/// secret is all-zeros-or-all-ones, so it cannot turn `(a & m) | (b & !m)` into a branch or
/// a load from a selected address (memcheck caught LLVM doing both, in SM2's table scans
/// and ZUC's MAC). An empty `asm!` on x86-64 and AArch64 (no instruction; the value stays
/// in its register), `black_box` elsewhere.
///
/// ```
/// let m = shangmi_dispatch::ct::opaque_u64(0u64.wrapping_sub(1));
/// assert_eq!((5 & m) | (7 & !m), 5);
/// ```
#[inline(always)]
pub fn opaque_u64(mut x: u64) -> u64 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    // SAFETY: the template is only a comment: no instruction runs, no memory or flag is
    // touched; the register holds `x` before and after.
    unsafe {
        core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        x = core::hint::black_box(x);
    }
    x
}

/// [`opaque_u64`] for a 32-bit value.
///
/// ```
/// assert_eq!(shangmi_dispatch::ct::opaque_u32(7), 7);
/// ```
#[inline(always)]
pub fn opaque_u32(mut x: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: as in `opaque_u64`: an empty template, the register holds `x` throughout.
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

/// `x` unchanged, but opaque to the optimiser, in a `const fn` (`black_box`, which at run
/// time may pass the value through memory): for the constant-time code that also computes
/// constants at compile time, such as the Montgomery arithmetic of `shangmi-limbs`.
///
/// ```
/// const M: u64 = shangmi_dispatch::ct::opaque_const(3u64);
/// assert_eq!(M, 3);
/// ```
#[inline(always)]
pub const fn opaque_const<T: Copy>(x: T) -> T {
    core::hint::black_box(x)
}

#[cfg(test)]
mod tests {
    #[test]
    fn equal_unequal_and_lengths() {
        assert!(super::eq(&[], &[]));
        assert!(super::eq(&[1, 2, 3], &[1, 2, 3]));
        for i in 0..3 {
            let mut b = [1, 2, 3];
            b[i] ^= 0x80;
            assert!(!super::eq(&[1, 2, 3], &b), "{i}");
        }
        assert!(!super::eq(&[1, 2], &[1, 2, 3]));
    }

    #[test]
    fn barriers_keep_the_value() {
        for x in [0, 1, 0x8000_0000_0000_0000, u64::MAX] {
            assert_eq!(super::opaque_u64(x), x);
            assert_eq!(super::opaque_u32(x as u32), x as u32);
            assert_eq!(super::opaque_const(x), x);
        }
    }
}
