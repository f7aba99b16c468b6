//! Which engine runs: probed once per process (cpufeatures caches the answer), highest
//! priority first.
//!
//! Priority: `avx512`, `avx2`, `soft` on x86-64; `aarch64-sm3` (the SM3 instructions),
//! `soft` on arm64; `riscv-zksh` (`sm3p0`, `sm3p1`), `soft` on RISC-V.
//! `--cfg shangmi_backend="NAME"` makes NAME the only engine (falling back to `soft` where
//! the CPU lacks it), for tests and for firmware that wants the smallest code.

use core::{fmt, str::FromStr};

/// An SM3 engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable scalar code: unrolled rounds, scalar message expansion.
    Soft,
    /// x86-64 AVX2 + BMI2: message expansion in SSE/AVX registers, `rorx` rotates in the
    /// rounds; multi-buffer hashing of 8 messages in AVX2 lanes.
    Avx2,
    /// x86-64 AVX-512 (F, VL, BW) + BMI1/2: message expansion with `vprold`/`vpternlogd`,
    /// `rorx` rotates in the rounds; multi-buffer hashing of 16 messages in AVX-512 lanes.
    Avx512,
    /// aarch64 SM3 instructions (FEAT_SM3: `sm3ss1`, `sm3tt1a/b`, `sm3tt2a/b`,
    /// `sm3partw1/2`).
    Aarch64Sm3,
    /// RISC-V scalar crypto `sm3p0` / `sm3p1` (Zksh), compiled in with `+zksh`.
    RiscvZksh,
}

/// The error of [`crate::Sm3::with_backend`] and of parsing a [`Backend`] name.
pub type BackendError = shangmi_dispatch::BackendError<Backend>;

/// The engine forced at compile time, if any.
const FORCED_BY_CFG: Option<Backend> = if cfg!(shangmi_backend = "soft") {
    Some(Backend::Soft)
} else if cfg!(shangmi_backend = "avx2") {
    Some(Backend::Avx2)
} else if cfg!(shangmi_backend = "avx512") {
    Some(Backend::Avx512)
} else if cfg!(shangmi_backend = "aarch64-sm3") {
    Some(Backend::Aarch64Sm3)
} else if cfg!(shangmi_backend = "riscv-zksh") {
    Some(Backend::RiscvZksh)
} else {
    None
};

impl Backend {
    /// Every engine, in priority order (best first).
    pub const ALL: [Backend; 5] = [
        Backend::Avx512,
        Backend::Avx2,
        Backend::Aarch64Sm3,
        Backend::RiscvZksh,
        Backend::Soft,
    ];

    /// The engine's name, as `--cfg shangmi_backend` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Soft => "soft",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
            Backend::Aarch64Sm3 => "aarch64-sm3",
            Backend::RiscvZksh => "riscv-zksh",
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

    /// How many messages [`crate::Sm3::digest_many`] hashes at once on this engine.
    pub const fn lanes(self) -> usize {
        match self {
            Backend::Soft | Backend::Aarch64Sm3 | Backend::RiscvZksh => 1,
            Backend::Avx2 => 8,
            Backend::Avx512 => 16,
        }
    }
}

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
    const ALGORITHM: &'static str = "SM3";
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
cpufeatures::new!(cpuid_avx2, "avx2", "bmi1", "bmi2");
#[cfg(target_arch = "x86_64")]
cpufeatures::new!(
    cpuid_avx512,
    "avx512f",
    "avx512vl",
    "avx512bw",
    "avx2",
    "bmi1",
    "bmi2"
);

/// Whether the CPU has what engine `b` needs (cached after the first call).
#[cfg(target_arch = "x86_64")]
fn cpu_has(b: Backend) -> bool {
    match b {
        Backend::Soft => true,
        Backend::Avx2 => cpuid_avx2::get(),
        Backend::Avx512 => cpuid_avx512::get(),
        _ => false,
    }
}

#[cfg(target_arch = "aarch64")]
cpufeatures::new!(cpuid_sm3, "sm4");

/// Whether the CPU has what engine `b` needs (cached after the first call).
#[cfg(target_arch = "aarch64")]
fn cpu_has(b: Backend) -> bool {
    // cpufeatures' "sm4" is the Linux hwcaps SM3 | SM4 (Rust's `sm4` target feature covers
    // both instruction sets).
    match b {
        Backend::Soft => true,
        Backend::Aarch64Sm3 => cpuid_sm3::get(),
        _ => false,
    }
}

/// Whether the target has what engine `b` needs (RISC-V: compile time).
#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
fn cpu_has(b: Backend) -> bool {
    match b {
        Backend::Soft => true,
        Backend::RiscvZksh => cfg!(target_feature = "zksh"),
        _ => false,
    }
}

/// Whether the CPU has what engine `b` needs.
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv32",
    target_arch = "riscv64"
)))]
fn cpu_has(b: Backend) -> bool {
    matches!(b, Backend::Soft)
}
