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

    /// A chain of eight copies of one instruction in a counted loop; the instruction names
    /// only registers (`{x}` a general register, xmm0..xmm2, ymm0, zmm0).
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
                        "2:",
                        $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn,
                        "dec {n} /* {x} */",
                        "jnz 2b",
                        n = inout(reg) n,
                        x = inout(reg) x,
                        out("xmm0") _, out("xmm1") _, out("xmm2") _,
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
            "{:<44} {:>12} {:>12}",
            "instruction (dependent chain)", "cycles/imul", "cycles/add"
        );
        let row = |name: &str, t: f64| {
            println!("{name:<44} {:>12.2} {:>12.2}", 3.0 * t / imul, t / add);
        };
        row("vpxor xmm", best(chain!("vpxor xmm0, xmm0, xmm1")));
        row("vpxor ymm", best(chain!("vpxor ymm0, ymm0, ymm1")));
        row("vpaddd xmm", best(chain!("vpaddd xmm0, xmm0, xmm1")));
        row("vpor xmm", best(chain!("vpor xmm0, xmm0, xmm1")));
        row("vpsrld xmm, imm", best(chain!("vpsrld xmm0, xmm0, 7")));
        row("vpslld ymm, imm", best(chain!("vpslld ymm0, ymm0, 7")));
        row("vpshufb xmm", best(chain!("vpshufb xmm0, xmm0, xmm1")));
        row("vpshufb ymm", best(chain!("vpshufb ymm0, ymm0, ymm1")));
        row(
            "vpblendvb xmm",
            best(chain!("vpblendvb xmm0, xmm0, xmm1, xmm2")),
        );
        if is_x86_feature_detected!("aes") {
            row("aesenclast xmm", best(chain!("aesenclast xmm0, xmm1")));
        }
        if is_x86_feature_detected!("pclmulqdq") {
            row(
                "vpclmulqdq xmm",
                best(chain!("vpclmulqdq xmm0, xmm0, xmm1, 0")),
            );
        }
        row(
            "vmovq r64, xmm + vmovq xmm, r64 (round trip)",
            best(chain!("vmovq {x}, xmm0\nvmovq xmm0, {x}")),
        );
        if is_x86_feature_detected!("gfni") {
            row(
                "gf2p8affineinvqb xmm",
                best(chain!("gf2p8affineinvqb xmm0, xmm1, 0")),
            );
        } else {
            println!("{:<44} {:>12}", "gf2p8affineinvqb", "no GFNI");
        }
        if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") {
            row(
                "vprold xmm (AVX-512VL)",
                best(chain!("vprold xmm0, xmm0, 7")),
            );
            row(
                "vpternlogd xmm",
                best(chain!("vpternlogd xmm0, xmm1, xmm2, 0x96")),
            );
            row("vpxord zmm", best(chain!("vpxord zmm0, zmm0, zmm1")));
        } else {
            println!("{:<44} {:>12}", "vprold / vpternlogd", "no AVX-512");
        }
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::run();
    #[cfg(not(target_arch = "x86_64"))]
    println!("the latency chains are written for x86-64 only");
}
