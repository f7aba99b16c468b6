//! RISC-V extension probe for the vector crypto engines: Linux's `riscv_hwprobe` system
//! call (key `RISCV_HWPROBE_KEY_IMA_EXT_0`, Linux 6.4+; vector crypto bits since 6.8) where
//! the target is Linux, and the compilation target's features everywhere (they are the only
//! source in `no_std` builds for bare metal, and are trusted where hwprobe is older than the
//! binary's requirements).
//!
//! The bit values are those of Linux's `arch/riscv/include/uapi/asm/hwprobe.h`.

/// An extension set as `RISCV_HWPROBE_KEY_IMA_EXT_0` reports it: a bit per extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Extensions(u64);

impl Extensions {
    /// The V extension (and the kernel lets this process use it).
    pub(crate) const V: Extensions = Extensions(1 << 2);
    /// Zvbb: vector basic bit manipulation (a superset of Zvkb).
    pub(crate) const ZVBB: Extensions = Extensions(1 << 17);
    /// Zvkb: vector bit manipulation for cryptography (`vrev8.v`, `vror`, `vandn`).
    pub(crate) const ZVKB: Extensions = Extensions(1 << 19);
    /// Zvksed: vector SM4 (`vsm4k.vi`, `vsm4r.vv`/`.vs`).
    pub(crate) const ZVKSED: Extensions = Extensions(1 << 24);
    /// Zvksh: vector SM3 (`vsm3me.vv`, `vsm3c.vi`).
    pub(crate) const ZVKSH: Extensions = Extensions(1 << 25);

    /// The union of both sets.
    pub(crate) const fn with(self, other: Extensions) -> Extensions {
        Extensions(self.0 | other.0)
    }

    /// Whether every extension of `self` is in `other`.
    const fn within(self, other: Extensions) -> bool {
        self.0 & !other.0 == 0
    }
}

/// The extensions the compilation target enables (`-C target-feature`; the vector ones are
/// unstable target features in current Rust, so this needs a nightly or bootstrapped build).
const fn compiled() -> Extensions {
    let mut bits = 0;
    if cfg!(target_feature = "v") {
        bits |= Extensions::V.0;
    }
    if cfg!(target_feature = "zvbb") {
        bits |= Extensions::ZVBB.0 | Extensions::ZVKB.0;
    }
    if cfg!(target_feature = "zvkb") {
        bits |= Extensions::ZVKB.0;
    }
    if cfg!(target_feature = "zvksed") {
        bits |= Extensions::ZVKSED.0;
    }
    if cfg!(target_feature = "zvksh") {
        bits |= Extensions::ZVKSH.0;
    }
    Extensions(bits)
}

/// Whether this CPU has every extension in `needed`: compiled in, or reported by Linux's
/// hwprobe (asked once per process, then cached).
pub(crate) fn has(needed: Extensions) -> bool {
    let compiled = compiled();
    needed.within(compiled) || needed.within(compiled.with(probed()))
}

#[cfg(target_os = "linux")]
fn probed() -> Extensions {
    use core::sync::atomic::{AtomicU32, Ordering};

    // Bit 31 of the cache marks "probed"; the extensions used here are all below it.
    const PROBED: u32 = 1 << 31;
    const USED: u64 = Extensions::V
        .with(Extensions::ZVBB)
        .with(Extensions::ZVKB)
        .with(Extensions::ZVKSED)
        .with(Extensions::ZVKSH)
        .0;
    const _: () = assert!(USED < PROBED as u64);
    static CACHE: AtomicU32 = AtomicU32::new(0);

    let mut bits = CACHE.load(Ordering::Relaxed);
    if bits & PROBED == 0 {
        let mut ext = hwprobe_ima_ext_0();
        if ext & Extensions::ZVBB.0 != 0 {
            // Zvbb is a superset of Zvkb, whether or not the kernel reports both.
            ext |= Extensions::ZVKB.0;
        }
        bits = PROBED | (ext & USED) as u32;
        CACHE.store(bits, Ordering::Relaxed);
    }
    Extensions(u64::from(bits & !PROBED))
}

#[cfg(not(target_os = "linux"))]
fn probed() -> Extensions {
    Extensions(0)
}

/// `riscv_hwprobe(&[{IMA_EXT_0, _}], 1, 0, NULL, 0)`: the extensions every online CPU has,
/// or none where the kernel lacks the call (before 6.4) or the key.
#[cfg(target_os = "linux")]
fn hwprobe_ima_ext_0() -> u64 {
    /// `struct riscv_hwprobe`.
    #[repr(C)]
    struct Pair {
        key: i64,
        value: u64,
    }
    const NR_RISCV_HWPROBE: usize = 258;
    const KEY_IMA_EXT_0: i64 = 4;

    let mut pair = Pair {
        key: KEY_IMA_EXT_0,
        value: 0,
    };
    let ret: isize;
    // SAFETY: the system call reads and writes the one `Pair` it is given (count 1) and
    // nothing else (an empty CPU set means all CPUs); an unknown call returns -ENOSYS.
    unsafe {
        core::arch::asm!(
            "ecall",
            inlateout("a0") &mut pair as *mut Pair => ret,
            in("a1") 1usize,
            in("a2") 0usize,
            in("a3") 0usize,
            in("a4") 0usize,
            in("a7") NR_RISCV_HWPROBE,
            options(nostack),
        );
    }
    // The kernel sets `key` to -1 for a key it does not know.
    if ret == 0 && pair.key == KEY_IMA_EXT_0 {
        pair.value
    } else {
        0
    }
}
