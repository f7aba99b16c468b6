//! Every CPU probe of the workspace: one function per feature set a backend needs, `false`
//! on other architectures. x86-64 and aarch64 ask the CPU (through `cpufeatures`, which
//! caches the answer and checks that the OS saves the wider registers); RISC-V has no
//! portable run-time probe in `no_std`: its scalar-crypto backends follow the compilation
//! target, its vector-crypto ones ask Linux (`riscv_hwprobe`, in `riscv`) or, elsewhere,
//! follow the compilation target too.

/// Defines `pub(crate) fn $name() -> bool`: `$body` on `$arch`, `false` elsewhere.
macro_rules! probe {
    ($(#[$doc:meta])* $name:ident on $arch:meta => $body:expr) => {
        $(#[$doc])*
        #[inline]
        pub(crate) fn $name() -> bool {
            #[cfg($arch)]
            {
                $body
            }
            #[cfg(not($arch))]
            {
                false
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::sync::atomic::{AtomicU64, Ordering};

    cpufeatures::new!(aesni_avx2, "aes", "avx2", "ssse3");
    cpufeatures::new!(avx2, "avx2");
    cpufeatures::new!(avx2_bmi, "avx2", "bmi1", "bmi2");
    cpufeatures::new!(
        gfni_avx512,
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx2",
        "gfni"
    );
    cpufeatures::new!(
        avx512_bmi, "avx512f", "avx512vl", "avx512bw", "avx2", "bmi1", "bmi2"
    );
    cpufeatures::new!(
        vpclmulqdq_avx512,
        "avx512f",
        "avx512bw",
        "avx512vl",
        "vpclmulqdq",
        "pclmulqdq",
        "ssse3",
        "sse4.1"
    );
    cpufeatures::new!(pclmulqdq, "pclmulqdq", "ssse3", "sse4.1");
    cpufeatures::new!(avx512bw, "avx512f", "avx512bw");
    cpufeatures::new!(adx, "adx", "bmi2");
    cpufeatures::new!(avx512_ifma, "avx512f", "avx512vl", "avx512ifma");

    pub(crate) use {
        adx::get as adx, aesni_avx2::get as aesni_avx2, avx2::get as avx2,
        avx2_bmi::get as avx2_bmi, avx512_bmi::get as avx512_bmi, avx512_ifma::get as avx512_ifma,
        avx512bw::get as avx512bw, gfni_avx512::get as gfni_avx512, pclmulqdq::get as pclmulqdq,
        vpclmulqdq_avx512::get as vpclmulqdq_avx512,
    };

    /// CPUID leaf 7, sub-leaf 0, ECX: read once. `cpufeatures` reports the bits of this word
    /// that AVX-512 CPUs introduced (GFNI, VPCLMULQDQ) only together with AVX-512 register
    /// state, but Zen 3 and Intel's E-cores have them on 256-bit registers without AVX-512;
    /// their AVX2 forms need no more OS state than AVX2 itself, which the callers require.
    fn leaf7_ecx() -> u32 {
        const PROBED: u64 = 1 << 32;
        static ECX: AtomicU64 = AtomicU64::new(0);
        let mut bits = ECX.load(Ordering::Relaxed);
        if bits & PROBED == 0 {
            // `__cpuid_count` is a safe function since Rust 1.94 and an `unsafe` one before;
            // the block keeps the declared rust-version (1.89) building.
            #[allow(unused_unsafe)]
            // SAFETY: CPUID is present on every x86-64 CPU, and reading leaf 7 has no side
            // effect.
            let leaf7 = unsafe { core::arch::x86_64::__cpuid_count(7, 0) };
            bits = PROBED | u64::from(leaf7.ecx);
            ECX.store(bits, Ordering::Relaxed);
        }
        bits as u32
    }

    /// CPUID leaf 0's vendor and leaf 1's family (the base family plus, where it reads 15,
    /// the extended one): read once.
    pub(crate) fn vendor_family() -> (crate::Vendor, u32) {
        const PROBED: u64 = 1 << 40;
        static WORD: AtomicU64 = AtomicU64::new(0);
        let mut word = WORD.load(Ordering::Relaxed);
        if word & PROBED == 0 {
            // `__cpuid` is a safe function since Rust 1.94 and an `unsafe` one before;
            // the block keeps the declared rust-version (1.89) building.
            #[allow(unused_unsafe)]
            // SAFETY: CPUID is present on every x86-64 CPU; leaves 0 and 1 always exist
            // and reading them has no side effect.
            let (leaf0, leaf1) = unsafe {
                (
                    core::arch::x86_64::__cpuid(0),
                    core::arch::x86_64::__cpuid(1).eax,
                )
            };
            let vendor: u64 = match [leaf0.ebx, leaf0.edx, leaf0.ecx] {
                // "GenuineIntel" and "AuthenticAMD" as CPUID returns them.
                [0x756e_6547, 0x4965_6e69, 0x6c65_746e] => 1,
                [0x6874_7541, 0x6974_6e65, 0x444d_4163] => 2,
                _ => 0,
            };
            let base = (leaf1 >> 8) & 0xf;
            let family = if base == 0xf {
                base + ((leaf1 >> 20) & 0xff)
            } else {
                base
            };
            word = PROBED | vendor << 32 | u64::from(family);
            WORD.store(word, Ordering::Relaxed);
        }
        let vendor = match (word >> 32) & 0xff {
            1 => crate::Vendor::Intel,
            2 => crate::Vendor::Amd,
            _ => crate::Vendor::Other,
        };
        (vendor, word as u32)
    }

    /// An Intel core with GFNI (leaf 7 ECX bit 8).
    pub(crate) fn intel_gfni() -> bool {
        vendor_family().0 == crate::Vendor::Intel && leaf7_ecx() & (1 << 8) != 0
    }

    /// GFNI (leaf 7 ECX bit 8) together with AVX2 (no AVX-512).
    pub(crate) fn gfni_avx2() -> bool {
        leaf7_ecx() & (1 << 8) != 0 && avx2()
    }

    /// VAES (leaf 7 ECX bit 9) together with AES-NI, AVX2 and SSSE3.
    pub(crate) fn vaes_avx2() -> bool {
        leaf7_ecx() & (1 << 9) != 0 && aesni_avx2()
    }

    /// VPCLMULQDQ (leaf 7 ECX bit 10) on AVX2 registers, with PCLMULQDQ, SSSE3 and SSE4.1.
    pub(crate) fn vpclmulqdq_avx2() -> bool {
        leaf7_ecx() & (1 << 10) != 0 && avx2() && pclmulqdq()
    }

    // ZUC: the single-stream engine and the eight-lane one.
    cpufeatures::new!(zuc_sse, "aes", "ssse3", "sse4.1", "pclmulqdq");
    cpufeatures::new!(zuc_avx2, "avx2", "aes", "ssse3", "sse4.1", "pclmulqdq");

    /// AES-NI, SSSE3, SSE4.1 and PCLMULQDQ.
    pub(crate) fn zuc_aesni() -> bool {
        zuc_sse::get()
    }

    /// AVX2 with AES-NI, SSSE3, SSE4.1 and PCLMULQDQ.
    pub(crate) fn zuc_avx2_aesni() -> bool {
        zuc_avx2::get()
    }

    cpufeatures::new!(
        zuc_gfni,
        "gfni",
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx512vbmi",
        "avx512vbmi2",
        "vpclmulqdq",
        "bmi1",
        "bmi2",
        "aes",
        "ssse3",
        "sse4.1",
        "pclmulqdq"
    );

    cpufeatures::new!(
        zuc_avx512,
        "avx512f",
        "avx512vl",
        "avx2",
        "aes",
        "ssse3",
        "sse4.1",
        "pclmulqdq"
    );

    /// AVX-512F/VL, AVX2, AES-NI, SSSE3, SSE4.1 and PCLMULQDQ.
    pub(crate) fn zuc_avx512_aesni() -> bool {
        zuc_avx512::get()
    }

    /// GFNI, AVX-512 (F, BW, VL, VBMI, VBMI2), VPCLMULQDQ, BMI1, BMI2, AES-NI, SSSE3, SSE4.1
    /// and PCLMULQDQ.
    pub(crate) fn zuc_gfni_avx512() -> bool {
        zuc_gfni::get()
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::vendor_family;

#[cfg(target_arch = "aarch64")]
mod arm {
    // FEAT_SM4 and FEAT_SM3: Linux reports them as separate hwcaps, `cpufeatures`' "sm4"
    // (like Rust's `sm4` target feature) stands for both instruction sets.
    cpufeatures::new!(sm3_sm4, "sm4");
    cpufeatures::new!(aes, "aes");

    pub(crate) use {aes::get as aes, sm3_sm4::get as sm3_sm4};
}

probe!(
    /// SM4: GFNI on AVX-512 (F, BW, VL) registers.
    gfni_avx512 on target_arch = "x86_64" => x86::gfni_avx512()
);
probe!(
    /// SM4: GFNI on AVX2 registers.
    gfni_avx2 on target_arch = "x86_64" => x86::gfni_avx2()
);
probe!(
    /// SM4: AES-NI with AVX2 and SSSE3, and VAES (AESENCLAST on 256-bit registers).
    vaes_avx2 on target_arch = "x86_64" => x86::vaes_avx2()
);
probe!(
    /// SM4: AES-NI with AVX2 and SSSE3.
    aesni_avx2 on target_arch = "x86_64" => x86::aesni_avx2()
);
probe!(
    /// SM3's rounds: a three-part `lea` (base, index and displacement) in one cycle, as on
    /// Intel's cores since Ice Lake; those are the Intel cores with GFNI.
    fast_three_part_lea on target_arch = "x86_64" => x86::intel_gfni()
);
probe!(
    /// SM3: AVX-512 (F, VL, BW), AVX2, BMI1, BMI2.
    avx512_bmi on target_arch = "x86_64" => x86::avx512_bmi()
);
probe!(
    /// SM3: AVX2, BMI1, BMI2.
    avx2_bmi on target_arch = "x86_64" => x86::avx2_bmi()
);
probe!(
    /// GHASH: VPCLMULQDQ on AVX-512 (F, BW, VL), PCLMULQDQ, SSSE3, SSE4.1.
    vpclmulqdq_avx512 on target_arch = "x86_64" => x86::vpclmulqdq_avx512()
);
probe!(
    /// GHASH: VPCLMULQDQ on AVX2, PCLMULQDQ, SSSE3, SSE4.1.
    vpclmulqdq_avx2 on target_arch = "x86_64" => x86::vpclmulqdq_avx2()
);
probe!(
    /// GHASH: PCLMULQDQ, SSSE3, SSE4.1.
    pclmulqdq on target_arch = "x86_64" => x86::pclmulqdq()
);
probe!(
    /// XTS tweaks: AVX-512F and AVX-512BW.
    avx512bw on target_arch = "x86_64" => x86::avx512bw()
);
probe!(
    /// SM2 and SM9 fields: ADX and BMI2 (`mulx`, `adcx`, `adox`).
    adx on target_arch = "x86_64" => x86::adx()
);
probe!(
    /// SM2 field: plain x86-64 (the `mul`/`adc` assembly), every x86-64 CPU.
    x86_64 on target_arch = "x86_64" => true
);
probe!(
    /// SM2 table scans: AVX2.
    avx2 on target_arch = "x86_64" => x86::avx2()
);
probe!(
    /// ZUC: GFNI, AVX-512 (F, BW, VL, VBMI, VBMI2), VPCLMULQDQ, BMI1, BMI2, AES-NI, SSSE3,
    /// SSE4.1, PCLMULQDQ.
    zuc_gfni_avx512 on target_arch = "x86_64" => x86::zuc_gfni_avx512()
);
probe!(
    /// ZUC: AES-NI, SSSE3, SSE4.1, PCLMULQDQ.
    zuc_aesni on target_arch = "x86_64" => x86::zuc_aesni()
);
probe!(
    /// ZUC, eight streams: AVX-512F/VL, AVX2, AES-NI, SSSE3, SSE4.1, PCLMULQDQ.
    zuc_avx512_aesni on target_arch = "x86_64" => x86::zuc_avx512_aesni()
);
probe!(
    /// ZUC, eight streams: AVX2, AES-NI, SSSE3, SSE4.1, PCLMULQDQ.
    zuc_avx2_aesni on target_arch = "x86_64" => x86::zuc_avx2_aesni()
);
probe!(
    /// SM2 eight-lane k·G: AVX-512 F, VL and IFMA (`vpmadd52luq`/`vpmadd52huq`).
    avx512_ifma on target_arch = "x86_64" => x86::avx512_ifma()
);
probe!(
    /// SM4: FEAT_SM4.
    aarch64_sm4 on target_arch = "aarch64" => arm::sm3_sm4()
);
probe!(
    /// SM3: FEAT_SM3.
    aarch64_sm3 on target_arch = "aarch64" => arm::sm3_sm4()
);
probe!(
    /// SM4 and GHASH: the AES instructions with PMULL (Rust's and `cpufeatures`' "aes"),
    /// with NEON.
    aarch64_aes on target_arch = "aarch64" => arm::aes()
);
probe!(
    /// SM4: Zksed, compiled in with `+zksed`.
    riscv_zksed on all(any(target_arch = "riscv32", target_arch = "riscv64"), target_feature = "zksed") => true
);
probe!(
    /// SM4: V, Zvksed and Zvkb (vector crypto).
    riscv_zvksed on any(target_arch = "riscv32", target_arch = "riscv64") => {
        use crate::riscv::{Extensions, has};
        has(Extensions::V.with(Extensions::ZVKSED).with(Extensions::ZVKB))
    }
);
probe!(
    /// SM3: V, Zvksh and Zvkb (vector crypto).
    riscv_zvksh on any(target_arch = "riscv32", target_arch = "riscv64") => {
        use crate::riscv::{Extensions, has};
        has(Extensions::V.with(Extensions::ZVKSH).with(Extensions::ZVKB))
    }
);
probe!(
    /// SM3: Zksh, compiled in with `+zksh`.
    riscv_zksh on all(any(target_arch = "riscv32", target_arch = "riscv64"), target_feature = "zksh") => true
);
