//! Instruction latencies on this CPU, for the serial-chain floors in PERFORMANCE.md: each
//! instruction as a dependent chain (every instance reads the previous one's result),
//! timed against two reference chains whose latency is known, 64-bit `imul` (3 cycles on
//! every AMD Zen and Intel core since Sandy Bridge) and 64-bit `add` (1 cycle). The two
//! give the clock independently; a latency is the chain's time per instruction over the
//! reference's time per cycle. Best of 30 runs of 8 × 200,000 instructions each.
//!
//! `cargo run --release -p shangmi-benches --example latency`

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::asm;
    use std::time::Instant;

    const ROUNDS: u64 = 200_000;

    /// Best time of 30 runs of `f` (which runs ROUNDS × 8 chained instructions), in
    /// seconds per instruction.
    fn best(f: impl Fn(u64)) -> f64 {
        (0..30)
            .map(|_| {
                let t = Instant::now();
                f(ROUNDS);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
            / (ROUNDS * 8) as f64
    }

    /// A table row: the instruction's name and its chain (a `chain!`).
    type Chain = (&'static str, fn(u64));

    /// A chain of eight copies of one instruction (or of a short sequence: a round's
    /// dependency path) in a counted loop; the instructions name only registers (`{x}` a
    /// general register, `{e}` its low 32 bits, xmm0..xmm5, ymm0, zmm0; xmm1..xmm5 start
    /// at zero).
    macro_rules! chain {
        ($insn:literal) => {
            |rounds: u64| {
                let mut n = rounds;
                let mut x: u64 = 3;
                // SAFETY: register-only instructions on the operands and the clobbered
                // vector registers named here; no memory, no stack. The caller runs only
                // instructions whose CPU feature it detected.
                unsafe {
                    asm!(
                        "vpxor xmm1, xmm1, xmm1",
                        "vpxor xmm2, xmm2, xmm2",
                        "vpxor xmm3, xmm3, xmm3",
                        "vpxor xmm4, xmm4, xmm4",
                        "vpxor xmm5, xmm5, xmm5",
                        "vpxor xmm6, xmm6, xmm6",
                        "2:",
                        $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn,
                        "dec {n} /* {x} */",
                        "jnz 2b",
                        n = inout(reg) n,
                        x = inout(reg) x,
                        out("xmm0") _, out("xmm1") _, out("xmm2") _,
                        out("xmm3") _, out("xmm4") _, out("xmm5") _, out("xmm6") _,
                        options(nomem, nostack),
                    );
                }
                std::hint::black_box((n, x));
            }
        };
    }

    pub fn run() {
        let imul = best(chain!("imul {x}, {x}"));
        let add = best(chain!("add {x}, {x}"));
        println!(
            "clock: {:.2} GHz by imul (3 cycles), {:.2} GHz by add (1 cycle)",
            3.0 / imul / 1e9,
            1.0 / add / 1e9
        );
        println!(
            "{:<52} {:>12} {:>12}",
            "instruction (dependent chain)", "cycles/imul", "cycles/add"
        );
        // Each chain's time per instruction over `per` (the chains run side by side), in
        // imul's and add's cycles.
        let rows = |per: f64, chains: &[Chain]| {
            for &(name, f) in chains {
                let t = best(f) / per;
                println!("{name:<52} {:>12.2} {:>12.2}", 3.0 * t / imul, t / add);
            }
        };
        let has = |f: bool, name: &str, what: &str| {
            if !f {
                println!("{name:<52} {what:>12}");
            }
            f
        };
        rows(
            1.0,
            &[
                ("vpxor xmm", chain!("vpxor xmm0, xmm0, xmm1")),
                ("vpxor ymm", chain!("vpxor ymm0, ymm0, ymm1")),
                ("vpand xmm", chain!("vpand xmm0, xmm0, xmm1")),
                ("vpaddd xmm", chain!("vpaddd xmm0, xmm0, xmm1")),
                ("vpor xmm", chain!("vpor xmm0, xmm0, xmm1")),
                ("vpsrld xmm, imm", chain!("vpsrld xmm0, xmm0, 7")),
                ("vpsrlw xmm, imm", chain!("vpsrlw xmm0, xmm0, 4")),
                ("vpslld ymm, imm", chain!("vpslld ymm0, ymm0, 7")),
                ("pshufb xmm (SSE encoding)", chain!("pshufb xmm0, xmm1")),
                (
                    "vpshufb xmm (data as index)",
                    chain!("vpshufb xmm0, xmm1, xmm0"),
                ),
                (
                    "vpshufb xmm (data as table)",
                    chain!("vpshufb xmm0, xmm0, xmm1"),
                ),
                ("vpshufb ymm", chain!("vpshufb ymm0, ymm0, ymm1")),
                ("vpshufd xmm", chain!("vpshufd xmm0, xmm0, 0x39")),
                ("vpalignr xmm", chain!("vpalignr xmm0, xmm0, xmm0, 1")),
                ("vpunpckldq xmm", chain!("vpunpckldq xmm0, xmm0, xmm1")),
                ("vpblendvb xmm", chain!("vpblendvb xmm0, xmm0, xmm1, xmm2")),
            ],
        );
        if has(is_x86_feature_detected!("aes"), "aesenclast", "no AES-NI") {
            rows(
                1.0,
                &[
                    (
                        "aesenclast xmm (SSE encoding)",
                        chain!("aesenclast xmm0, xmm1"),
                    ),
                    ("vaesenclast xmm", chain!("vaesenclast xmm0, xmm0, xmm1")),
                    ("aesenc xmm", chain!("aesenc xmm0, xmm1")),
                    // The AES unit's result as another unit's input: a pair of
                    // instructions per chain step (its time minus `vpxor`'s 1 cycle is
                    // AESENCLAST's latency into the vector ALUs).
                    (
                        "vaesenclast + vpxor (pair)",
                        chain!("vaesenclast xmm0, xmm0, xmm1\nvpxor xmm0, xmm0, xmm2"),
                    ),
                ],
            );
        }
        if is_x86_feature_detected!("pclmulqdq") {
            rows(
                1.0,
                &[("vpclmulqdq xmm", chain!("vpclmulqdq xmm0, xmm0, xmm1, 0"))],
            );
        }
        rows(
            1.0,
            &[
                (
                    "vmovq r64, xmm + vmovq xmm, r64 (round trip)",
                    chain!("vmovq {x}, xmm0\nvmovq xmm0, {x}"),
                ),
                (
                    "movd r32, xmm + pinsrd xmm, r32, 0 (round trip)",
                    chain!("movd {x:e}, xmm0\npinsrd xmm0, {x:e}, 0"),
                ),
                (
                    "vpextrd r32, xmm, 3 + vpinsrd (round trip)",
                    chain!("vpextrd {x:e}, xmm0, 3\nvpinsrd xmm0, xmm0, {x:e}, 3"),
                ),
                (
                    "vmovd xmm, r32 + vpbroadcastd + vmovd r32 (trip)",
                    chain!("vmovd xmm0, {x:e}\nvpbroadcastd xmm0, xmm0\nvmovd {x:e}, xmm0"),
                ),
            ],
        );
        if has(
            is_x86_feature_detected!("gfni"),
            "gf2p8affine(inv)qb",
            "no GFNI",
        ) {
            rows(
                1.0,
                &[
                    ("gf2p8affineqb xmm", chain!("gf2p8affineqb xmm0, xmm1, 0")),
                    (
                        "gf2p8affineinvqb xmm",
                        chain!("gf2p8affineinvqb xmm0, xmm1, 0"),
                    ),
                ],
            );
        }
        let avx512 = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl");
        if has(avx512, "vprold / vpternlogd", "no AVX-512") {
            rows(
                1.0,
                &[
                    ("vprold xmm (AVX-512VL)", chain!("vprold xmm0, xmm0, 7")),
                    (
                        "vpternlogd xmm",
                        chain!("vpternlogd xmm0, xmm1, xmm2, 0x96"),
                    ),
                    ("vpxord zmm", chain!("vpxord zmm0, zmm0, zmm1")),
                ],
            );
        }

        // Independent instructions: six chains of one instruction interleaved, so a
        // latency-3 instruction with two units shows 0.5 cycles.
        println!(
            "{:<52} {:>12} {:>12}",
            "instruction (6 independent chains), per insn", "cycles/imul", "cycles/add"
        );
        rows(
            6.0,
            &[
                (
                    "vpshufb xmm",
                    chain!(
                        "vpshufb xmm0, xmm0, xmm1\nvpshufb xmm2, xmm2, xmm1\nvpshufb xmm3, xmm3, xmm1\nvpshufb xmm4, xmm4, xmm1\nvpshufb xmm5, xmm5, xmm1\nvpshufb xmm6, xmm6, xmm1"
                    ),
                ),
                (
                    "vpxor xmm",
                    chain!(
                        "vpxor xmm0, xmm0, xmm1\nvpxor xmm2, xmm2, xmm1\nvpxor xmm3, xmm3, xmm1\nvpxor xmm4, xmm4, xmm1\nvpxor xmm5, xmm5, xmm1\nvpxor xmm6, xmm6, xmm1"
                    ),
                ),
            ],
        );
        if is_x86_feature_detected!("aes") {
            rows(
                6.0,
                &[(
                    "vaesenclast xmm",
                    chain!(
                        "vaesenclast xmm0, xmm0, xmm1\nvaesenclast xmm2, xmm2, xmm1\nvaesenclast xmm3, xmm3, xmm1\nvaesenclast xmm4, xmm4, xmm1\nvaesenclast xmm5, xmm5, xmm1\nvaesenclast xmm6, xmm6, xmm1"
                    ),
                )],
            );
        }
        if is_x86_feature_detected!("gfni") {
            rows(
                6.0,
                &[(
                    "gf2p8affineinvqb xmm",
                    chain!(
                        "gf2p8affineinvqb xmm0, xmm1, 0\ngf2p8affineinvqb xmm2, xmm1, 0\ngf2p8affineinvqb xmm3, xmm1, 0\ngf2p8affineinvqb xmm4, xmm1, 0\ngf2p8affineinvqb xmm5, xmm1, 0\ngf2p8affineinvqb xmm6, xmm1, 0"
                    ),
                )],
            );
        }
        if avx512 {
            rows(
                6.0,
                &[
                    (
                        "vpternlogd xmm",
                        chain!(
                            "vpternlogd xmm0, xmm1, xmm1, 0x96\nvpternlogd xmm2, xmm1, xmm1, 0x96\nvpternlogd xmm3, xmm1, xmm1, 0x96\nvpternlogd xmm4, xmm1, xmm1, 0x96\nvpternlogd xmm5, xmm1, xmm1, 0x96\nvpternlogd xmm6, xmm1, xmm1, 0x96"
                        ),
                    ),
                    (
                        "vprold xmm",
                        chain!(
                            "vprold xmm0, xmm0, 7\nvprold xmm2, xmm2, 7\nvprold xmm3, xmm3, 7\nvprold xmm4, xmm4, 7\nvprold xmm5, xmm5, 7\nvprold xmm6, xmm6, 7"
                        ),
                    ),
                ],
            );
        }

        // The dependency path of one SM4 round of the serial chains, alone (each line
        // waits for the one before), per round.
        println!(
            "{:<52} {:>12} {:>12}",
            "SM4 round dependency path (per round)", "cycles/imul", "cycles/add"
        );
        if is_x86_feature_detected!("aes") {
            rows(
                1.0,
                &[
                    // `sm4::simd::aes_chain` before 2026-11-29: AESENCLAST, the high
                    // nibble (shift, mask), its table, XOR with the low nibble's, a byte
                    // rotation, two XOR levels.
                    (
                        "aes_chain (aesenclast, nibble tables, rotation)",
                        chain!(
                            "vaesenclast xmm0, xmm0, xmm1\nvpsrlw xmm2, xmm0, 4\nvpand xmm2, xmm2, xmm3\nvpshufb xmm2, xmm4, xmm2\nvpxor xmm2, xmm2, xmm5\nvpshufb xmm2, xmm2, xmm3\nvpxor xmm2, xmm2, xmm5\nvpxor xmm0, xmm2, xmm4"
                        ),
                    ),
                    // `sm4::simd::aes_chain::MixColumns`: AESENC, the high nibble, its
                    // table, the XOR with the low nibble's, a byte rotation, one XOR.
                    (
                        "aes_chain MixColumns (aesenc, tables, rotation)",
                        chain!(
                            "vaesenc xmm0, xmm0, xmm1\nvpsrlw xmm2, xmm0, 4\nvpand xmm2, xmm2, xmm3\nvpshufb xmm2, xmm4, xmm2\nvpxor xmm2, xmm2, xmm5\nvpshufb xmm2, xmm2, xmm3\nvpxor xmm0, xmm2, xmm5"
                        ),
                    ),
                ],
            );
        }
        if is_x86_feature_detected!("bmi2") {
            // SM3's loop-carried chain per round (GB/T 32905): A <<< 12, + T_j, + E,
            // <<< 7 = SS1, ^ (A <<< 12) = SS2, + (FF + D + W') = TT1, the next A.
            rows(
                1.0,
                &[(
                    "SM3 round (rorx, add, add, rorx, xor, add)",
                    chain!(
                        "rorx {x:e}, {x:e}, 20\nadd {x:e}, 7\nadd {x:e}, {x:e}\nrorx {x:e}, {x:e}, 25\nxor {x:e}, 9\nadd {x:e}, 11"
                    ),
                )],
            );
        }
        if is_x86_feature_detected!("gfni") && avx512 {
            rows(
                1.0,
                &[
                    // As for AESENCLAST: the GFNI unit's result into the vector
                    // ALUs, and into the GFNI unit again.
                    (
                        "vgf2p8affineinvqb + vpxor (pair)",
                        chain!("vgf2p8affineinvqb xmm0, xmm0, xmm1, 0\nvpxor xmm0, xmm0, xmm2"),
                    ),
                    (
                        "vgf2p8affineinvqb + vgf2p8affineqb (pair)",
                        chain!(
                            "vgf2p8affineinvqb xmm0, xmm0, xmm1, 0\nvgf2p8affineqb xmm0, xmm0, xmm1, 0"
                        ),
                    ),
                    // `sm4::x86::gfni_chain::LowHalf`: GF2P8AFFINEINVQB, a byte rotation,
                    // one three-way XOR.
                    (
                        "gfni_chain LowHalf (affineinv, rotation, xor3)",
                        chain!(
                            "vgf2p8affineinvqb xmm0, xmm0, xmm1, 0\nvpshufb xmm0, xmm0, xmm2\nvpternlogd xmm0, xmm3, xmm4, 0x96"
                        ),
                    ),
                    (
                        "GFNI without rotation (affineinv, 2 xor3)",
                        chain!(
                            "vgf2p8affineinvqb xmm0, xmm0, xmm1, 0\nvpternlogd xmm0, xmm3, xmm4, 0x96\nvpternlogd xmm0, xmm3, xmm4, 0x96"
                        ),
                    ),
                ],
            );
        }
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::run();
    #[cfg(not(target_arch = "x86_64"))]
    println!("the latency chains are written for x86-64 only");
}
