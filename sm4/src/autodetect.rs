//! Which engine runs: probed once per process, cached, highest priority first.
//!
//! Priority (like the Linux kernel's crypto priorities): `gfni-avx512` > `gfni-avx2` >
//! `aesni-avx2` > `soft` on x86-64; `aarch64-sm4` > `aarch64-neon-aes` > `soft` on arm64; `riscv-zksed` >
//! `soft` on RISC-V. `--cfg shangmi_backend="NAME"` makes NAME the only engine
//! (falling back to `soft` where the CPU lacks it), for tests and for firmware that wants
//! the smallest code.

use core::{fmt, str::FromStr};

/// An SM4 engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable, constant-time bitsliced circuit (16 blocks per evaluation).
    Soft,
    /// x86-64 AES-NI S-box on AVX2 registers (32 blocks per step).
    AesniAvx2,
    /// x86-64 GFNI S-box on AVX2 registers (32 blocks per step).
    GfniAvx2,
    /// x86-64 GFNI S-box on AVX-512 registers (64 blocks per step).
    GfniAvx512,
    /// aarch64 SM4 instructions (FEAT_SM4: `sm4e`, `sm4ekey`), 8 blocks interleaved.
    Aarch64Sm4,
    /// aarch64 AES instructions with NEON nibble tables (cores without SM4), 16 blocks per
    /// step.
    Aarch64NeonAes,
    /// RISC-V scalar crypto `sm4ed` / `sm4ks` (Zksed), compiled in with `+zksed`.
    RiscvZksed,
}

/// The error of [`crate::Sm4::with_backend`] and of parsing a [`Backend`] name.
pub type BackendError = shangmi_dispatch::BackendError<Backend>;

/// The engine forced at compile time, if any.
const FORCED_BY_CFG: Option<Backend> = if cfg!(shangmi_backend = "soft") {
    Some(Backend::Soft)
} else if cfg!(shangmi_backend = "aesni-avx2") {
    Some(Backend::AesniAvx2)
} else if cfg!(shangmi_backend = "gfni-avx2") {
    Some(Backend::GfniAvx2)
} else if cfg!(shangmi_backend = "gfni-avx512") {
    Some(Backend::GfniAvx512)
} else if cfg!(shangmi_backend = "aarch64-sm4") {
    Some(Backend::Aarch64Sm4)
} else if cfg!(shangmi_backend = "aarch64-neon-aes") {
    Some(Backend::Aarch64NeonAes)
} else if cfg!(shangmi_backend = "riscv-zksed") {
    Some(Backend::RiscvZksed)
} else {
    None
};

impl Backend {
    /// Every engine, in priority order (best first).
    pub const ALL: [Backend; 7] = [
        Backend::GfniAvx512,
        Backend::GfniAvx2,
        Backend::AesniAvx2,
        Backend::Aarch64Sm4,
        Backend::Aarch64NeonAes,
        Backend::RiscvZksed,
        Backend::Soft,
    ];

    /// The engine's name, as `--backend` and `--cfg shangmi_backend` spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Soft => "soft",
            Backend::AesniAvx2 => "aesni-avx2",
            Backend::GfniAvx2 => "gfni-avx2",
            Backend::GfniAvx512 => "gfni-avx512",
            Backend::Aarch64Sm4 => "aarch64-sm4",
            Backend::Aarch64NeonAes => "aarch64-neon-aes",
            Backend::RiscvZksed => "riscv-zksed",
        }
    }

    /// Whether this engine can run here (CPU features present and not excluded by a
    /// `shangmi_backend` cfg).
    pub fn is_available(self) -> bool {
        shangmi_dispatch::is_available(self)
    }

    /// The best engine available here; the CPU is probed once per process.
    pub fn best() -> Backend {
        static BEST: shangmi_dispatch::BestCache = shangmi_dispatch::BestCache::new();
        BEST.get()
    }

    /// The engines available here, best first.
    pub fn available() -> impl Iterator<Item = Backend> {
        shangmi_dispatch::available()
    }
}

/// Compile-time check that [`Backend::ALL`] lists every variant exactly once: adding a
/// variant breaks this match until it is counted.
const _: () = {
    const fn bit(b: Backend) -> u32 {
        1 << match b {
            Backend::Soft => 0,
            Backend::AesniAvx2 => 1,
            Backend::GfniAvx2 => 2,
            Backend::GfniAvx512 => 3,
            Backend::Aarch64Sm4 => 4,
            Backend::RiscvZksed => 5,
            Backend::Aarch64NeonAes => 6,
        }
    }
    let mut seen = 0u32;
    let mut i = 0;
    while i < Backend::ALL.len() {
        assert!(
            seen & bit(Backend::ALL[i]) == 0,
            "a backend is listed twice"
        );
        seen |= bit(Backend::ALL[i]);
        i += 1;
    }
    assert!(seen == 0b111_1111, "Backend::ALL misses a variant");
};

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = BackendError;

    /// Parses an engine name as [`Backend::name`] spells it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        shangmi_dispatch::parse(s)
    }
}

impl shangmi_dispatch::Engine for Backend {
    const ALGORITHM: &'static str = "SM4";
    const ALL: &'static [Self] = &Backend::ALL;
    const PORTABLE: Self = Backend::Soft;
    const FORCED: Option<Self> = FORCED_BY_CFG;
    fn name(self) -> &'static str {
        Backend::name(self)
    }
    fn cpu_has(self) -> bool {
        cpu_has(self)
    }
}

#[cfg(target_arch = "x86_64")]
fn cpu_has(b: Backend) -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};

    cpufeatures::new!(cpu_aesni_avx2, "aes", "avx2", "ssse3");
    cpufeatures::new!(cpu_avx2, "avx2");
    cpufeatures::new!(
        cpu_gfni_avx512,
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx2",
        "gfni"
    );

    const PROBED: u8 = 0x80;
    static FEATURES: AtomicU8 = AtomicU8::new(0);

    let mut bits = FEATURES.load(Ordering::Relaxed);
    if bits & PROBED == 0 {
        // cpufeatures reports GFNI only together with AVX-512 state, so GFNI with AVX2
        // alone is read from CPUID leaf 7 (ECX bit 8) directly; AVX2 already implies the
        // OS saves YMM state.
        // `__cpuid_count` is a safe function since Rust 1.94 and an `unsafe` one before; the
        // block keeps the declared rust-version (1.89) building.
        #[allow(unused_unsafe)]
        // SAFETY: CPUID is present on every x86-64 CPU, and reading leaf 7 has no side effect.
        let leaf7 = unsafe { core::arch::x86_64::__cpuid_count(7, 0) };
        let gfni = leaf7.ecx & (1 << 8) != 0;
        bits = PROBED
            | (u8::from(cpu_aesni_avx2::get()) << Backend::AesniAvx2 as u8)
            | (u8::from(cpu_avx2::get() && gfni) << Backend::GfniAvx2 as u8)
            | (u8::from(cpu_gfni_avx512::get()) << Backend::GfniAvx512 as u8);
        FEATURES.store(bits, Ordering::Relaxed);
    }
    bits & (1 << b as u8) != 0
}

#[cfg(target_arch = "aarch64")]
fn cpu_has(b: Backend) -> bool {
    // FEAT_SM4 (the Linux/Android hwcap; cpufeatures caches the probe).
    cpufeatures::new!(cpu_sm4, "sm4");
    cpufeatures::new!(cpu_aes, "aes");
    match b {
        Backend::Aarch64Sm4 => cpu_sm4::get(),
        Backend::Aarch64NeonAes => cpu_aes::get(),
        _ => false,
    }
}

#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
fn cpu_has(b: Backend) -> bool {
    // Compile-time: `no_std` has no portable runtime probe for Zksed.
    b == Backend::RiscvZksed && cfg!(target_feature = "zksed")
}

#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv32",
    target_arch = "riscv64"
)))]
fn cpu_has(_: Backend) -> bool {
    false
}
