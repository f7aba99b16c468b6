//! Every backend of the workspace, one table per family, best first: the only place that
//! names a backend, says what it needs and ranks it. Adding a backend is one line here
//! (plus its name in the workspace's `shangmi_backend` check-cfg) and one arm in the
//! crate's `match` from backend to code.
//!
//! `--cfg shangmi_backend="soft"` forces the portable backend of every family; any other
//! name forces the family that has a backend of that name (its other backends become
//! unavailable; where the CPU lacks the forced one, the portable one runs).

family! {
    /// SM4 (GB/T 32907-2016) block cipher backends, `shangmi-sm4`.
    ///
    /// Priority (like the Linux kernel's crypto priorities): `gfni-avx512` > `gfni-avx2` >
    /// `vaes-avx2` > `aesni-avx2` > `soft` on x86-64; `aarch64-sm4` > `aarch64-neon-aes` >
    /// `soft` on arm64; `riscv-zvksed` > `riscv-zksed` > `soft` on RISC-V.
    pub mod sm4("SM4", portable: Soft) {
        /// x86-64 GFNI S-box on AVX-512 registers (64 blocks per step).
        GfniAvx512 = "gfni-avx512" if crate::cpu::gfni_avx512();
        /// x86-64 GFNI S-box on AVX2 registers (32 blocks per step).
        GfniAvx2 = "gfni-avx2" if crate::cpu::gfni_avx2();
        /// x86-64 AES-NI S-box on AVX2 registers with 256-bit AESENCLAST (VAES; CPUs with
        /// VAES but no GFNI, such as AMD Zen 3), 32 blocks per step.
        VaesAvx2 = "vaes-avx2" if crate::cpu::vaes_avx2();
        /// x86-64 AES-NI S-box on AVX2 registers (32 blocks per step).
        AesniAvx2 = "aesni-avx2" if crate::cpu::aesni_avx2();
        /// aarch64 SM4 instructions (FEAT_SM4: `sm4e`, `sm4ekey`), 8 blocks interleaved.
        Aarch64Sm4 = "aarch64-sm4" if crate::cpu::aarch64_sm4();
        /// aarch64 AES instructions with NEON nibble tables (cores without SM4), 16 blocks
        /// per step.
        Aarch64NeonAes = "aarch64-neon-aes" if crate::cpu::aarch64_aes();
        /// RISC-V vector crypto `vsm4k` / `vsm4r` (Zvksed, with Zvkb's `vrev8`), a register
        /// group of blocks per step (8 at VLEN = 128); found by Linux's hwprobe, or compiled
        /// in with `+v,+zvksed,+zvkb`.
        RiscvZvksed = "riscv-zvksed" if crate::cpu::riscv_zvksed();
        /// RISC-V scalar crypto `sm4ed` / `sm4ks` (Zksed), compiled in with `+zksed`.
        RiscvZksed = "riscv-zksed" if crate::cpu::riscv_zksed();
        /// Portable, constant-time bitsliced circuit (16 blocks per evaluation).
        Soft = "soft" if true;
    }
}

family! {
    /// SM3 (GB/T 32905-2016) hash backends, `shangmi-sm3`.
    ///
    /// Priority: `avx512` > `avx2` > `soft` on x86-64; `aarch64-sm3` > `soft` on arm64;
    /// `riscv-zvksh` > `riscv-zksh` > `soft` on RISC-V.
    pub mod sm3("SM3", portable: Soft) {
        /// x86-64 AVX-512 (F, VL, BW) + BMI1/2: message expansion with
        /// `vprold`/`vpternlogd`, `rorx` rotates in the rounds; multi-buffer hashing of 16
        /// messages in AVX-512 lanes.
        Avx512 = "avx512" if crate::cpu::avx512_bmi();
        /// x86-64 AVX2 + BMI2: message expansion in SSE/AVX registers, `rorx` rotates in
        /// the rounds; multi-buffer hashing of 8 messages in AVX2 lanes.
        Avx2 = "avx2" if crate::cpu::avx2_bmi();
        /// aarch64 SM3 instructions (FEAT_SM3: `sm3ss1`, `sm3tt1a/b`, `sm3tt2a/b`,
        /// `sm3partw1/2`).
        Aarch64Sm3 = "aarch64-sm3" if crate::cpu::aarch64_sm3();
        /// RISC-V vector crypto `vsm3me` / `vsm3c` (Zvksh, with Zvkb's `vrev8`); found by
        /// Linux's hwprobe, or compiled in with `+v,+zvksh,+zvkb`.
        RiscvZvksh = "riscv-zvksh" if crate::cpu::riscv_zvksh();
        /// RISC-V scalar crypto `sm3p0` / `sm3p1` (Zksh), compiled in with `+zksh`.
        RiscvZksh = "riscv-zksh" if crate::cpu::riscv_zksh();
        /// Portable scalar code: unrolled rounds, scalar message expansion.
        Soft = "soft" if true;
    }
}

impl sm3::Backend {
    /// How many messages `Sm3::digest_many` hashes at once on this backend.
    pub const fn lanes(self) -> usize {
        match self {
            sm3::Backend::Avx512 => 16,
            sm3::Backend::Avx2 => 8,
            _ => 1,
        }
    }
}

family! {
    /// GHASH (NIST SP 800-38D §6.4) and POLYVAL (RFC 8452) backends, `shangmi-sm4-modes`
    /// (GCM, GCM-SIV, HCTR).
    pub mod ghash("GHASH", portable: Soft) {
        /// x86-64 VPCLMULQDQ on AVX-512 registers, 32 blocks per reduction.
        VpclmulqdqAvx512 = "vpclmulqdq-avx512" if crate::cpu::vpclmulqdq_avx512();
        /// x86-64 VPCLMULQDQ on AVX2 registers, 16 blocks per reduction.
        VpclmulqdqAvx2 = "vpclmulqdq-avx2" if crate::cpu::vpclmulqdq_avx2();
        /// x86-64 PCLMULQDQ on 128-bit registers, 8 blocks per reduction.
        Pclmulqdq = "pclmulqdq" if crate::cpu::pclmulqdq();
        /// aarch64 PMULL (FEAT_PMULL, with FEAT_AES), 8 blocks per reduction.
        Pmull = "pmull" if crate::cpu::aarch64_aes();
        /// Portable constant-time multiplication (integer products with holes).
        Soft = "soft" if true;
    }
}

family! {
    /// XTS tweak doubling (IEEE 1619 and GB/T 17964) backends, `shangmi-sm4-modes`.
    pub mod xts("XTS", portable: Soft) {
        /// x86-64 AVX-512 (F, BW): eight tweaks per step in two 512-bit registers.
        Avx512 = "xts-avx512" if crate::cpu::avx512bw();
        /// Portable: one doubling per block.
        Soft = "soft" if true;
    }
}

family! {
    /// SM2 base-field multiplication backends, `shangmi-sm2`.
    pub mod sm2_field("SM2 field", portable: Portable) {
        /// x86-64 assembly with `mulx`/`adcx`/`adox` (ADX and BMI2).
        Adx = "adx" if crate::cpu::adx();
        /// x86-64 assembly with `mul`/`adc` (every x86-64 CPU).
        Base = "base" if crate::cpu::x86_64();
        /// Portable Rust (64-bit limbs).
        Portable = "portable" if true;
    }
}

family! {
    /// SM2 constant-time table scans (precomputed point tables), `shangmi-sm2`.
    pub mod sm2_scan("SM2 scan", portable: Portable) {
        /// x86-64 AVX2: one 256-bit compare-and-mask per table row.
        Avx2 = "scan-avx2" if crate::cpu::avx2();
        /// Portable masked selection.
        Portable = "portable" if true;
    }
}

family! {
    /// ZUC single-stream S-box engines (ZUC-128/256 keystreams, 128-EEA3/EIA3, the ZUC-256
    /// MAC), `shangmi-zuc`.
    pub mod zuc("ZUC", portable: Soft) {
        /// x86-64 GFNI with AVX-512 (F, BW, VL, VBMI, VBMI2), VPCLMULQDQ, BMI1, BMI2, AES-NI,
        /// SSSE3, SSE4.1, PCLMULQDQ: F in vector registers, S1 as two affine steps
        /// (`gf2p8affineqb`, `gf2p8affineinvqb`), S0 as a 256-byte table in registers
        /// (`vpermi2b`), the MACs' window sums as 512-bit carry-less products.
        GfniAvx512 = "zuc-gfni-avx512" if crate::cpu::zuc_gfni_avx512();
        /// x86-64 AES-NI, SSSE3, SSE4.1, PCLMULQDQ: S1 through `aesenclast` between two
        /// nibble-table maps, S0 as `pshufb` nibble lookups, the MACs' window sums as
        /// carry-less products.
        AesniSse = "zuc-aesni" if crate::cpu::zuc_aesni();
        /// Portable: the S-boxes as boolean circuits on bit planes.
        Soft = "soft" if true;
    }
}

family! {
    /// Many ZUC-128 keystreams at once (`shangmi_zuc::eea3_many`, `apply_keystream_many`),
    /// `shangmi-zuc`.
    pub mod zuc_many("ZUC many", portable: OneByOne) {
        /// The eight-lane AVX2 kernel compiled with AVX-512F/VL as well (32 vector
        /// registers), x86-64.
        Avx512x8 = "zuc-avx512-x8" if crate::cpu::zuc_avx512_aesni();
        /// x86-64 AVX2 with AES-NI, SSSE3, SSE4.1, PCLMULQDQ: eight generators in the
        /// 32-bit lanes of AVX2 registers.
        Avx2x8 = "zuc-avx2-x8" if crate::cpu::zuc_avx2_aesni();
        /// Each job on its own single-stream generator (the best `zuc` backend).
        OneByOne = "one-by-one" if true;
    }
}

family! {
    /// SM9 base-field multiplication backends (the prime p of GM/T 0044), `shangmi-sm9`.
    /// Addition and subtraction are plain x86-64 `asm!` on every x86-64 CPU unless the
    /// build forces the portable backend.
    pub mod sm9_field("SM9 field", portable: Portable) {
        /// x86-64 assembly with `mulx`/`adcx`/`adox` (ADX and BMI2).
        Adx = "sm9-adx" if crate::cpu::adx();
        /// Portable Rust (64-bit limbs, CIOS Montgomery).
        Portable = "portable" if true;
    }
}

family! {
    /// SM2 fixed-base multiplication of many scalars at once (key pools), `shangmi-sm2`.
    pub mod sm2_lanes("SM2 lanes", portable: Portable) {
        /// x86-64 AVX-512 IFMA (with F and VL): eight k·G at once, 52-bit limbs
        /// (`vpmadd52luq`/`vpmadd52huq`), one table scan shared by the eight.
        Ifma = "lanes-ifma" if crate::cpu::avx512_ifma();
        /// One k·G at a time (the comb of the "SM2 scan" and "SM2 field" backends).
        Portable = "portable" if true;
    }
}
