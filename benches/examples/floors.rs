//! The floors of the two serial kernels of issue 38 on this CPU, each bound two ways, and
//! the kernels' own cycles per round beside them:
//! - SM3 one stream (`sm3::x86::rounds_asm`, the `avx2`/`avx512` single-stream rounds);
//! - the SM4 GFNI chain (`sm4::x86::gfni_chain::Rotated`, CBC encryption and CMAC on
//!   `gfni-avx512`).
//!
//! A kernel cannot beat max(dependency path, resource bound). The **path** is measured
//! (1) as a loop of the round's critical instructions alone, each waiting for the one
//! before, and (2) as the sum of those instructions' latencies, each timed alone as a
//! chain. The **resource bound** is measured (1) as a loop of the round's instruction mix
//! (the counts read from the kernel's disassembly) with every dependency removed, and (2)
//! from each instruction class's own throughput (independent copies of one instruction, and
//! of pairs of classes, to see which share an execution unit), the mix's counts divided by
//! the units. Cycles are against a dependent 64-bit `imul` chain (3 cycles on every AMD
//! Zen and Intel core since Sandy Bridge), with a dependent `add` chain (1 cycle) as a
//! second clock. Best of 200 runs of about a millisecond or less each (a busy machine preempts longer runs). Timings never go into tests: this is an example.
//!
//! `cargo run --release -p shangmi-benches --example floors`

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::asm;
    use std::time::Instant;

    const ITERS: u64 = 10_000;

    /// Best time of 200 runs of `f(ITERS)`, in seconds per iteration.
    fn best(mut f: impl FnMut(u64)) -> f64 {
        (0..200)
            .map(|_| {
                let t = Instant::now();
                f(ITERS);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::INFINITY, f64::min)
            / ITERS as f64
    }

    /// A counted loop of `$body` (asm lines, eight copies of one step for the chains),
    /// with every general register the bodies name as a clobber (eax, ecx, edx, edi,
    /// r8d..r13d written; r14d the constant source; rsi the 64-byte buffer) and xmm0..xmm15
    /// clobbered (xmm10..xmm15 start at zero as sources).
    macro_rules! looped {
        ($($body:literal),+ $(,)?) => {
            |iters: u64| {
                let buf = [0x0123_4567u32; 16];
                let mut n = iters;
                // SAFETY: register-only instructions and loads from `buf` (rsi, offsets
                // below 64), on the registers declared as clobbered; no stack. Each caller
                // runs only bodies whose instructions its CPU was found to have.
                unsafe {
                    asm!(
                        "vpxor xmm10, xmm10, xmm10",
                        "vpxor xmm11, xmm11, xmm11",
                        "vpxor xmm12, xmm12, xmm12",
                        "vpxor xmm13, xmm13, xmm13",
                        "vpxor xmm14, xmm14, xmm14",
                        "vpxor xmm15, xmm15, xmm15",
                        "mov r14d, 0x9abcdef",
                        "2:",
                        $($body,)+
                        "dec {n}",
                        "jnz 2b",
                        n = inout(reg) n,
                        in("rsi") buf.as_ptr(),
                        out("eax") _, out("ecx") _, out("edx") _, out("edi") _,
                        out("r8d") _, out("r9d") _, out("r10d") _, out("r11d") _,
                        out("r12d") _, out("r13d") _, out("r14d") _,
                        out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
                        out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
                        out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
                        out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
                        options(readonly, nostack),
                    );
                }
                std::hint::black_box(n);
            }
        };
    }

    /// Eight copies of one instruction (or a short chain), each reading the last one's
    /// result.
    macro_rules! eight {
        ($insn:literal) => {
            looped!($insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn)
        };
    }

    /// Two rounds' instruction mix an iteration.
    macro_rules! twice {
        ($($i:literal),+ $(,)?) => {
            looped!($($i),+, $($i),+)
        };
    }

    /// Thirty-two copies of one step, each reading the last one's result (a block's chain).
    macro_rules! thirty_two {
        ($insn:literal) => {
            looped!(
                $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn,
                $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn,
                $insn, $insn, $insn, $insn, $insn, $insn, $insn, $insn
            )
        };
    }

    /// Seconds per cycle and the two clocks.
    struct Clock {
        cycle: f64,
    }

    impl Clock {
        fn measure() -> Self {
            let imul = best(eight!("imul eax, eax")) / 8.0 / 3.0;
            let add = best(eight!("add eax, ecx")) / 8.0;
            println!(
                "clock: {:.2} GHz by a dependent imul chain (3 cycles), {:.2} GHz by add (1 cycle)",
                1e-9 / imul,
                1e-9 / add
            );
            Clock { cycle: imul }
        }
        /// Cycles for `t` seconds.
        fn cy(&self, t: f64) -> f64 {
            t / self.cycle
        }
    }

    fn row(name: &str, cycles: f64) {
        println!("  {name:<66} {cycles:>7.2}");
    }

    fn sm3(c: &Clock) {
        println!("SM3 one stream (cycles per round)");
        // The path: the loop-carried chain of the A word, A <<< 12 (rorx), + T_j (lea
        // with displacement), + E, <<< 7 (rorx) = SS1, ^ (A <<< 12) = SS2, + D' (the
        // rest of TT1, ready early) = the next A. The E word's loop (+ E, <<< 7, + H',
        // P0 = rorx, xor, xor) is as long; both below.
        let a_loop = c.cy(best(eight!(
            "rorx ecx, eax, 20\nlea edx, [rcx + 0x79cc4519]\nadd edx, r14d\nrorx edx, edx, 25\nxor ecx, edx\nadd eax, ecx"
        ))) / 8.0;
        let e_loop = c.cy(best(eight!(
            "add edx, eax\nrorx edx, edx, 25\nadd edx, r14d\nrorx ecx, edx, 23\nrorx edi, edx, 15\nxor ecx, edi\nxor edx, ecx\nmov eax, edx"
        ))) / 8.0;
        row(
            "path (1): A's loop as a chain (rorx lea add rorx xor add)",
            a_loop,
        );
        let a_loop32 = c.cy(best(thirty_two!(
            "rorx ecx, eax, 20\nlea edx, [rcx + 0x79cc4519]\nadd edx, r14d\nrorx edx, edx, 25\nxor ecx, edx\nadd eax, ecx"
        ))) / 32.0;
        row("path (1), 32 rounds a loop iteration", a_loop32);
        row(
            "path (1'): E's loop as a chain (add rorx add, P0 rorx xor xor)",
            e_loop,
        );
        let rorx = c.cy(best(eight!("rorx eax, eax, 20"))) / 8.0;
        let lea = c.cy(best(eight!("lea eax, [rax + 0x79cc4519]"))) / 8.0;
        let lea3 = c.cy(best(eight!("lea eax, [rax + rcx + 0x79cc4519]"))) / 8.0;
        let add = c.cy(best(eight!("add eax, r14d"))) / 8.0;
        let xor = c.cy(best(eight!("xor eax, r14d"))) / 8.0;
        println!(
            "  latencies: rorx {rorx:.2}, lea base+disp {lea:.2}, lea base+index+disp {lea3:.2}, add {add:.2}, xor {xor:.2}"
        );
        row(
            "path (2): sum of latencies rorx+lea+add+rorx+xor+add",
            2.0 * rorx + lea + 2.0 * add + xor,
        );
        // Throughputs: independent copies (ten destinations, sources constant), thirty an
        // iteration so the loop's own two instructions weigh little.
        macro_rules! ten {
            ($($i:literal),+) => {
                c.cy(best(looped!($($i),+, $($i),+, $($i),+))) / 30.0
            };
        }
        let t_add = ten!(
            "add eax, r14d",
            "add ecx, r14d",
            "add edx, r14d",
            "add edi, r14d",
            "add r8d, r14d",
            "add r9d, r14d",
            "add r10d, r14d",
            "add r11d, r14d",
            "add r12d, r14d",
            "add r13d, r14d"
        );
        let t_rorx = ten!(
            "rorx eax, r14d, 7",
            "rorx ecx, r14d, 7",
            "rorx edx, r14d, 7",
            "rorx edi, r14d, 7",
            "rorx r8d, r14d, 7",
            "rorx r9d, r14d, 7",
            "rorx r10d, r14d, 7",
            "rorx r11d, r14d, 7",
            "rorx r12d, r14d, 7",
            "rorx r13d, r14d, 7"
        );
        let t_mem = ten!(
            "add eax, [rsi]",
            "add ecx, [rsi+4]",
            "add edx, [rsi+8]",
            "add edi, [rsi+12]",
            "add r8d, [rsi+16]",
            "add r9d, [rsi+20]",
            "add r10d, [rsi+24]",
            "add r11d, [rsi+28]",
            "add r12d, [rsi+32]",
            "add r13d, [rsi+36]"
        );
        let t_lea = ten!(
            "lea eax, [r14 + 1]",
            "lea ecx, [r14 + 2]",
            "lea edx, [r14 + 3]",
            "lea edi, [r14 + 4]",
            "lea r8d, [r14 + 5]",
            "lea r9d, [r14 + 6]",
            "lea r10d, [r14 + 7]",
            "lea r11d, [r14 + 8]",
            "lea r12d, [r14 + 9]",
            "lea r13d, [r14 + 10]"
        );
        // Half rorx, half add: if rorx had units of its own the pair would run faster
        // than either alone.
        let t_pair = ten!(
            "rorx eax, r14d, 7",
            "add ecx, r14d",
            "rorx edx, r14d, 7",
            "add edi, r14d",
            "rorx r8d, r14d, 7",
            "add r9d, r14d",
            "rorx r10d, r14d, 7",
            "add r11d, r14d",
            "rorx r12d, r14d, 7",
            "add r13d, r14d"
        );
        let t_mov = ten!(
            "mov eax, r14d",
            "mov ecx, r14d",
            "mov edx, r14d",
            "mov edi, r14d",
            "mov r8d, r14d",
            "mov r9d, r14d",
            "mov r10d, r14d",
            "mov r11d, r14d",
            "mov r12d, r14d",
            "mov r13d, r14d"
        );
        println!(
            "  throughput, cycles per instruction: add {t_add:.2}, rorx {t_rorx:.2}, add r, m32 {t_mem:.2}, lea {t_lea:.2}, rorx+add mix {t_pair:.2}, mov r, r {t_mov:.2}"
        );
        // The kernel's round (`rounds_asm::round!` with `maj` and `ch`, rounds 16..63):
        // 6 rorx, 1 lea, 6 add r,r, 2 add r,m32, 6 xor, 3 and, 3 mov = 24 ALU ops + 3 moves.
        let counted = (24.0 * t_add).max(6.0 * t_rorx).max(2.0 * t_mem);
        row(
            "resource (2): 24 ALU ops x add's throughput, 6 rorx x rorx's",
            counted,
        );
        let mix = c.cy(best(twice!(
            "rorx eax, r14d, 20",
            "lea ecx, [r14 + 0x79cc4519]",
            "add edx, r14d",
            "rorx edi, r14d, 25",
            "xor r8d, r14d",
            "add r9d, dword ptr [rsi + 4]",
            "add r10d, r14d",
            "add r11d, dword ptr [rsi + 8]",
            "mov r12d, r14d",
            "and r13d, r14d",
            "add eax, r14d",
            "mov ecx, r14d",
            "xor edx, r14d",
            "xor edi, r14d",
            "and r8d, r14d",
            "add r9d, r14d",
            "rorx r10d, r14d, 23",
            "rorx r11d, r14d, 13",
            "mov r12d, r14d",
            "xor r13d, r14d",
            "add eax, r14d",
            "add ecx, r14d",
            "rorx edx, r14d, 23",
            "rorx edi, r14d, 15",
            "xor r8d, r14d",
            "xor r9d, r14d",
            "and r10d, r14d",
            "xor r11d, r14d",
        ))) / 2.0;
        row(
            "resource (1): the round's 27 instructions, independent",
            mix,
        );
        if is_x86_feature_detected!("avx512vl") {
            // A rotation in a vector register (in, vprold, out): its latency, and whether
            // its transfers take an integer ALU (24 adds with two such trips beside).
            let trip = c.cy(best(eight!(
                "vmovd xmm0, eax\nvprold xmm0, xmm0, 9\nvmovd eax, xmm0"
            ))) / 8.0;
            let with = c.cy(best(twice!(
                "add eax, r14d",
                "add ecx, r14d",
                "add edx, r14d",
                "add edi, r14d",
                "add r8d, r14d",
                "add r9d, r14d",
                "add r10d, r14d",
                "add r11d, r14d",
                "add eax, r14d",
                "add ecx, r14d",
                "add edx, r14d",
                "add edi, r14d",
                "add r8d, r14d",
                "add r9d, r14d",
                "add r10d, r14d",
                "add r11d, r14d",
                "add eax, r14d",
                "add ecx, r14d",
                "add edx, r14d",
                "add edi, r14d",
                "add r8d, r14d",
                "add r9d, r14d",
                "add r10d, r14d",
                "add r11d, r14d",
                "vmovd xmm0, r12d",
                "vprold xmm0, xmm0, 9",
                "vmovd r12d, xmm0",
                "vmovd xmm1, r13d",
                "vprold xmm1, xmm1, 9",
                "vmovd r13d, xmm1",
            ))) / 2.0;
            println!(
                "  a rotation through a vector register: latency {trip:.2}; 24 adds with two beside {with:.2} (24 adds alone {:.2})",
                24.0 * t_add
            );
        }
        let floor = a_loop.max(mix);
        let kernel = [shangmi_sm3::Backend::Avx512, shangmi_sm3::Backend::Avx2]
            .into_iter()
            .find_map(|b| {
                let blocks = vec![[0x5au8; 64]; 128];
                let mut s = shangmi_sm3::hazmat::IV;
                shangmi_sm3::hazmat::compress(b, &mut s, &blocks).ok()?;
                let t = best(|n| {
                    for _ in 0..n / 1000 {
                        shangmi_sm3::hazmat::compress(b, &mut s, &blocks).expect("available");
                    }
                }) * 1000.0;
                std::hint::black_box(s);
                Some((b, c.cy(t) / (128.0 * 64.0)))
            });
        if let Some((b, k)) = kernel {
            row(&format!("kernel ({b}, 8 KiB of blocks)"), k);
            println!(
                "  floor max(path, resource) {floor:.2}: kernel at {:.2}x",
                k / floor
            );
        }
    }

    fn sm4(c: &Clock) {
        if !(is_x86_feature_detected!("gfni")
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl"))
        {
            println!("SM4 GFNI chain: no GFNI/AVX-512VL here");
            return;
        }
        println!("SM4 GFNI chain (cycles per round)");
        // The path (`gfni_chain::Rotated`): the S-box input u through
        // gf2p8affineinvqb, a byte rotation (vpshufb), one three-way XOR (vpternlogd).
        let path = c.cy(best(eight!(
            "vgf2p8affineinvqb xmm0, xmm0, xmm10, 0\nvpshufb xmm0, xmm0, xmm11\nvpternlogd xmm0, xmm12, xmm13, 0x96"
        ))) / 8.0;
        row(
            "path (1): gf2p8affineinvqb, vpshufb, vpternlogd as a chain",
            path,
        );
        let path32 = c.cy(best(thirty_two!(
            "vgf2p8affineinvqb xmm0, xmm0, xmm10, 0\nvpshufb xmm0, xmm0, xmm11\nvpternlogd xmm0, xmm12, xmm13, 0x96"
        ))) / 32.0;
        row(
            "path (1), 32 rounds a loop iteration (a whole block)",
            path32,
        );
        let path32p = c.cy(best(thirty_two!(
            "vgf2p8affineinvqb xmm0, xmm0, xmm10, 0\nvpshufb xmm0, xmm0, xmm11\nvpternlogd xmm0, xmm12, xmm13, 0x96\nvgf2p8affineinvqb xmm1, xmm1, xmm10, 0\nvpshufb xmm1, xmm1, xmm11\nvpternlogd xmm1, xmm12, xmm13, 0x96"
        ))) / 32.0;
        row("path (1), 32 rounds, two such chains side by side", path32p);
        let aff = c.cy(best(eight!("vgf2p8affineinvqb xmm0, xmm0, xmm10, 0"))) / 8.0;
        let shuf = c.cy(best(eight!("vpshufb xmm0, xmm0, xmm11"))) / 8.0;
        let tern = c.cy(best(eight!("vpternlogd xmm0, xmm12, xmm13, 0x96"))) / 8.0;
        let vxor = c.cy(best(eight!("vpxor xmm0, xmm0, xmm12"))) / 8.0;
        println!(
            "  latencies: gf2p8affineinvqb {aff:.2}, vpshufb {shuf:.2}, vpternlogd {tern:.2}, vpxor {vxor:.2}"
        );
        row("path (2): sum of the three latencies", aff + shuf + tern);
        macro_rules! ten {
            ($($i:literal),+) => {
                c.cy(best(looped!($($i),+, $($i),+, $($i),+))) / 30.0
            };
        }
        let t_aff = ten!(
            "vgf2p8affineinvqb xmm0, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm1, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm2, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm3, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm4, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm5, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm6, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm7, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm8, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm9, xmm10, xmm11, 0"
        );
        let t_shuf = ten!(
            "vpshufb xmm0, xmm10, xmm11",
            "vpshufb xmm1, xmm10, xmm11",
            "vpshufb xmm2, xmm10, xmm11",
            "vpshufb xmm3, xmm10, xmm11",
            "vpshufb xmm4, xmm10, xmm11",
            "vpshufb xmm5, xmm10, xmm11",
            "vpshufb xmm6, xmm10, xmm11",
            "vpshufb xmm7, xmm10, xmm11",
            "vpshufb xmm8, xmm10, xmm11",
            "vpshufb xmm9, xmm10, xmm11"
        );
        let t_tern = ten!(
            "vpternlogd xmm0, xmm10, xmm11, 0x96",
            "vpternlogd xmm1, xmm10, xmm11, 0x96",
            "vpternlogd xmm2, xmm10, xmm11, 0x96",
            "vpternlogd xmm3, xmm10, xmm11, 0x96",
            "vpternlogd xmm4, xmm10, xmm11, 0x96",
            "vpternlogd xmm5, xmm10, xmm11, 0x96",
            "vpternlogd xmm6, xmm10, xmm11, 0x96",
            "vpternlogd xmm7, xmm10, xmm11, 0x96",
            "vpternlogd xmm8, xmm10, xmm11, 0x96",
            "vpternlogd xmm9, xmm10, xmm11, 0x96"
        );
        let t_xor = ten!(
            "vpxor xmm0, xmm10, xmm11",
            "vpxor xmm1, xmm10, xmm11",
            "vpxor xmm2, xmm10, xmm11",
            "vpxor xmm3, xmm10, xmm11",
            "vpxor xmm4, xmm10, xmm11",
            "vpxor xmm5, xmm10, xmm11",
            "vpxor xmm6, xmm10, xmm11",
            "vpxor xmm7, xmm10, xmm11",
            "vpxor xmm8, xmm10, xmm11",
            "vpxor xmm9, xmm10, xmm11"
        );
        // gf2p8affineinvqb and vpshufb alternated: if they shared their units the pair
        // would run at the slower one's rate.
        let t_aff_shuf = ten!(
            "vgf2p8affineinvqb xmm0, xmm10, xmm11, 0",
            "vpshufb xmm1, xmm10, xmm11",
            "vgf2p8affineinvqb xmm2, xmm10, xmm11, 0",
            "vpshufb xmm3, xmm10, xmm11",
            "vgf2p8affineinvqb xmm4, xmm10, xmm11, 0",
            "vpshufb xmm5, xmm10, xmm11",
            "vgf2p8affineinvqb xmm6, xmm10, xmm11, 0",
            "vpshufb xmm7, xmm10, xmm11",
            "vgf2p8affineinvqb xmm8, xmm10, xmm11, 0",
            "vpshufb xmm9, xmm10, xmm11"
        );
        println!(
            "  throughput, cycles per instruction: gf2p8affineinvqb {t_aff:.2}, vpshufb {t_shuf:.2}, vpternlogd {t_tern:.2}, vpxor {t_xor:.2}, affine+vpshufb alternated {t_aff_shuf:.2}"
        );
        // `Rotated`'s round from the disassembly: 5 gf2p8affineinvqb, 4 vpshufb, 6
        // vpternlogd, 4 vpxor.
        // The units: affine and vpshufb each on two, the pair on three, logic on four; the
        // bound is the busiest set's work over its units.
        let counted = (5.0 * t_aff)
            .max(4.0 * t_shuf)
            .max(9.0 * t_aff_shuf)
            .max(19.0 * t_xor.max(t_tern));
        row(
            "resource (2): the round's counts x each class's throughput",
            counted,
        );
        let mix = c.cy(best(twice!(
            "vgf2p8affineinvqb xmm0, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm1, xmm10, xmm12, 0",
            "vgf2p8affineinvqb xmm2, xmm10, xmm13, 0",
            "vgf2p8affineinvqb xmm3, xmm14, xmm11, 0",
            "vgf2p8affineinvqb xmm4, xmm14, xmm13, 0",
            "vpshufb xmm5, xmm10, xmm15",
            "vpshufb xmm6, xmm10, xmm14",
            "vpshufb xmm7, xmm13, xmm14",
            "vpternlogd xmm8, xmm10, xmm11, 0x96",
            "vpternlogd xmm9, xmm10, xmm12, 0x96",
            "vpternlogd xmm8, xmm13, xmm14, 0x96",
            "vpternlogd xmm9, xmm11, xmm15, 0x96",
            "vpxor xmm5, xmm12, xmmword ptr [rsi]",
            "vpternlogd xmm0, xmm10, xmm11, 0x96",
            "vpternlogd xmm1, xmm12, xmm13, 0x96",
            "vpxor xmm6, xmm11, xmmword ptr [rsi + 16]",
            "vpxor xmm7, xmm13, xmmword ptr [rsi + 32]",
            "vpxor xmm2, xmm10, xmm15",
            "vpshufb xmm3, xmm12, xmm15",
        ))) / 2.0;
        row(
            "resource (1): the round's 19 instructions, independent",
            mix,
        );
        let floor = path.max(mix);
        let key = [0x42u8; 16];
        if let Ok(sm4) =
            shangmi_sm4::Sm4::with_backend(&key.into(), shangmi_sm4::Backend::GfniAvx512)
        {
            let blocks = vec![shangmi_sm4::cipher::Block::<shangmi_sm4::Sm4>::default(); 512];
            let mut out = blocks.clone();
            let mut iv = Default::default();
            let t = best(|n| {
                for _ in 0..n / 1000 {
                    sm4.cbc_chain_into(&mut iv, &blocks, &mut out);
                }
            }) * 1000.0;
            let k = c.cy(t) / (512.0 * 32.0);
            row("kernel (gfni-avx512 CBC encryption, 8 KiB)", k);
            println!(
                "  floor max(path, resource) {floor:.2}: kernel at {:.2}x",
                k / floor
            );
        }
    }

    pub fn run() {
        let c = Clock::measure();
        if is_x86_feature_detected!("bmi2") {
            sm3(&c);
        }
        sm4(&c);
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::run();
    #[cfg(not(target_arch = "x86_64"))]
    println!("the floors are measured on x86-64 only");
}
