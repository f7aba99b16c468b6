//! The floors of the two serial kernels of issue 38 on this CPU, each bound two ways, and
//! the kernels' own cycles per round beside them:
//! - SM3 one stream (`sm3::x86::rounds_asm`, the `avx2`/`avx512` single-stream rounds);
//! - the SM4 GFNI chain (`sm4::x86::gfni_chain::LowHalf`, CBC encryption and CMAC on
//!   `gfni-avx512`);
//! - the SM4 AES-NI chain (`sm4::simd::aes_chain::MixColumns`, the same modes on
//!   `aesni-avx2` and `vaes-avx2`).
//!
//! A kernel cannot beat max(dependency path, resource bound). The **path** is measured
//! (1) as a loop of the round's critical instructions alone, each waiting for the one
//! before, and (2) as the sum of those instructions' latencies, each timed alone as a
//! chain. The **resource bound** is measured (1) as a loop of the round's instruction mix
//! (the counts read from the kernel's disassembly) with every dependency removed, and (2)
//! from each instruction class's own throughput (independent copies of one instruction, and
//! of pairs of classes, to see which share an execution unit), the mix's counts divided by
//! the units. Where the path and the resource bound are met by different instructions at
//! different times, neither alone is reachable: the SM4 round's dependent steps alone, on
//! the units they share, are timed too (the round's five GFNI steps and three rotations
//! wait for the same inputs and run on the same two units), and so are the kernels' own
//! instruction sequences without the work around them (SM3's rounds without the message
//! expansion, the GFNI chain's loop of four rounds without the per-block steps). SM3's
//! rolled kernel (the one TLCP's stitched seal runs) and one-block calls (HMAC's short
//! messages) are timed beside its unrolled kernel.
//!
//! Cycles are against a dependent 64-bit `imul` chain (3 cycles on every AMD Zen and Intel
//! core since Sandy Bridge), with a dependent `add` chain (1 cycle) as a second clock.
//! Best of 200 runs of at most about a millisecond each: on a busy machine a longer run is
//! preempted in every sample, which once made a 192-cycle chain look 2.5 times slower than
//! its latency. Timings never go into tests: this is an example.
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

    /// `iters` times `$body` in one `asm!` loop (counter in r15, rsi at `$buf`), after the
    /// lines `$pre`, with the operands `$clobbers` (the registers the bodies write).
    macro_rules! asm_loop {
        ($iters:expr, $buf:expr, [$($pre:literal),*], [$($body:expr),+], $($clobbers:tt)+) => {{
            let mut n: u64 = $iters;
            asm!(
                $($pre,)*
                "2:",
                $($body,)+
                "dec r15",
                "jnz 2b",
                inout("r15") n,
                in("rsi") $buf.as_ptr(),
                $($clobbers)+
                options(readonly, nostack),
            );
            std::hint::black_box(n);
        }};
    }

    /// A counted loop of `$body` (asm lines or macros giving them, eight copies of one step
    /// for the chains), with every general register the bodies name as a clobber (eax, ecx,
    /// edx, edi, r8d..r13d written; r14d the constant source; rsi the 64-byte buffer) and
    /// xmm0..xmm15 clobbered (xmm10..xmm15 start at zero as sources): r12..r14 by name, the
    /// others as the C ABI's call-clobbered registers.
    macro_rules! looped {
        ($($body:expr),+ $(,)?) => {
            |iters: u64| {
                let buf = [0x0123_4567u32; 16];
                // SAFETY: register-only instructions and loads from `buf` (rsi, offsets
                // below 64), on the registers declared as clobbered; no stack. Each caller
                // runs only bodies whose instructions its CPU was found to have.
                unsafe {
                    asm_loop!(
                        iters,
                        buf,
                        [
                            "vpxor xmm10, xmm10, xmm10",
                            "vpxor xmm11, xmm11, xmm11",
                            "vpxor xmm12, xmm12, xmm12",
                            "vpxor xmm13, xmm13, xmm13",
                            "vpxor xmm14, xmm14, xmm14",
                            "vpxor xmm15, xmm15, xmm15",
                            "mov r14d, 0x9abcdef"
                        ],
                        [$($body),+],
                        out("r12") _, out("r13") _, out("r14") _, clobber_abi("C"),
                    )
                }
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

    /// Cycles (against clock `$c`) of one copy of `$insn` in a chain of eight, each reading the
    /// last one's result: the latency of an instruction or of a short chain.
    macro_rules! chain {
        ($c:expr; $insn:literal) => {
            $c.cy(best(eight!($insn))) / 8.0
        };
    }

    /// Two rounds' instruction mix an iteration.
    macro_rules! twice {
        ($($i:expr),+ $(,)?) => {
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

    /// Eight independent adds (eax, ecx, edx, edi, r8d..r11d += r14d) as asm lines.
    macro_rules! adds8 {
        () => {
            "add eax, r14d\nadd ecx, r14d\nadd edx, r14d\nadd edi, r14d\nadd r8d, r14d\nadd r9d, r14d\nadd r10d, r14d\nadd r11d, r14d"
        };
    }

    /// Cycles per instruction (reciprocal throughput, against clock `$c`) of ten independent
    /// instructions, thirty an iteration so the loop's own two instructions weigh little.
    macro_rules! ten {
        ($c:expr; $($i:expr),+ $(,)?) => {
            $c.cy(best(looped!($($i),+, $($i),+, $($i),+))) / 30.0
        };
    }

    /// [`ten!`] over the ten destinations `[d0, …, d9]`: `$op0 d$rest0` into the even ones
    /// and `$op1 d$rest1` into the odd ones (the same instruction when one is given).
    macro_rules! ten_into {
        ($c:expr; $d:tt; $op:literal $rest:literal) => {
            ten_into!($c; $d; $op $rest, $op $rest)
        };
        ($c:expr; [$($e:literal, $o:literal),+]; $op0:literal $rest0:literal, $op1:literal $rest1:literal) => {
            ten!($c; $(concat!($op0, " ", $e, $rest0), concat!($op1, " ", $o, $rest1)),+)
        };
    }

    /// [`ten_into!`] eax, ecx, edx, edi and r8d..r13d.
    macro_rules! ten_gpr {
        ($c:expr; $($x:tt)+) => {
            ten_into!($c; ["eax", "ecx", "edx", "edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d"]; $($x)+)
        };
    }

    /// [`ten_into!`] xmm0..xmm9.
    macro_rules! ten_xmm {
        ($c:expr; $($x:tt)+) => {
            ten_into!($c; ["xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9"]; $($x)+)
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

    /// One of the kernel's rounds (`sm3::x86::rounds_asm::round!`, FF the majority and GG
    /// the choice, rounds 16..63) on the registers named A..H, W_j at `$w` and W'_j at `$wp`
    /// in the buffer at rsi, `$k` the displacement of T_j <<< j; `$v0`..`$v7` (asm lines, or
    /// empty) interleaved after the round's 3rd, 6th, 9th, 12th, 15th, 18th, 21st and 24th
    /// instructions.
    #[rustfmt::skip]
    macro_rules! sm3_round {
        ($a:literal, $b:literal, $c:literal, $d:literal, $e:literal, $f:literal,
         $g:literal, $h:literal, $w:literal, $wp:literal, $k:literal,
         $v0:literal, $v1:literal, $v2:literal, $v3:literal, $v4:literal, $v5:literal,
         $v6:literal, $v7:literal) => {
            concat!(
                "rorx ecx, ", $a, ", 20\n",
                "lea edx, [rcx ", $k, "]\n",
                "add edx, ", $e, "\n",
                $v0, "\n",
                "rorx edx, edx, 25\n",
                "xor ecx, edx\n",
                "add ", $h, ", dword ptr [rsi + ", $w, "]\n",
                $v1, "\n",
                "add ", $h, ", eax\n",
                "add ", $d, ", dword ptr [rsi + ", $wp, "]\n",
                "mov edi, ", $b, "\n",
                $v2, "\n",
                "and edi, ", $c, "\n",
                "add ", $d, ", edi\n",
                "mov edi, ", $b, "\n",
                $v3, "\n",
                "xor edi, ", $c, "\n",
                "and edi, ", $a, "\n",
                "add ", $d, ", edi\n",
                $v4, "\n",
                "rorx ", $b, ", ", $b, ", 23\n",
                "rorx ", $f, ", ", $f, ", 13\n",
                "mov eax, ", $e, "\n",
                $v5, "\n",
                "xor eax, ", $f, "\n",
                "add ", $h, ", edx\n",
                "add ", $d, ", ecx\n",
                $v6, "\n",
                "rorx ecx, ", $h, ", 23\n",
                "rorx edx, ", $h, ", 15\n",
                "xor ecx, edx\n",
                $v7, "\n",
                "xor ", $h, ", ecx\n",
                "and eax, ", $h, "\n",
                "xor eax, ", $f, "\n",
            )
        };
    }

    /// The kernel's rounds alone, four a loop iteration on W and W' from a buffer, without
    /// the message expansion that runs beside them in the kernel, with the eight asm lines
    /// (vector instructions on xmm0..xmm7 from xmm10 and xmm11, which start at zero; or
    /// empty) interleaved in every round ([`sm3_round!`]); cycles per round.
    macro_rules! sm3_rounds {
        ($c:expr, $($v:literal),+ $(,)?) => {{
            let run = |iters: u64| {
                // W_0..W_3 at 0, W'_0..W'_3 at 272, the loop counter at 600.
                let mut buf = [0x0123_4567_89ab_cdefu64; 80];
                buf[75] = iters;
                // SAFETY: register-only instructions (x86-64 base, BMI2 `rorx` and AVX on
                // xmm, which the caller detected) on the clobbered registers; reads of
                // `buf` below byte 600 and the counter at 600 read and written; no stack.
                unsafe {
                    asm!(
                        "vpxor xmm10, xmm10, xmm10",
                        "vpxor xmm11, xmm11, xmm11",
                        "2:",
                        sm3_round!("r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d",
                            "0", "272", "+ 0x79cc4519", $($v),+),
                        sm3_round!("r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d",
                            "4", "276", "- 0xc6775ce", $($v),+),
                        sm3_round!("r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d",
                            "8", "280", "- 0x18ceeb9b", $($v),+),
                        sm3_round!("r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d",
                            "12", "284", "- 0x319dd735", $($v),+),
                        "dec qword ptr [rsi + 600]",
                        "jnz 2b",
                        in("rsi") buf.as_mut_ptr(),
                        // r12..r15 by name; eax, ecx, edx, edi, r8..r11 and the xmm
                        // registers as the C ABI's call-clobbered registers.
                        out("r12") _, out("r13") _, out("r14") _, out("r15") _,
                        clobber_abi("C"),
                        options(nostack),
                    );
                }
                std::hint::black_box(buf);
            };
            $c.cy(best(run)) / 4.0
        }};
    }

    fn sm3(c: &Clock) {
        println!("SM3 one stream (cycles per round)");
        // The path: the loop-carried chain of the A word, A <<< 12 (rorx), + T_j (lea
        // with displacement), + E, <<< 7 (rorx) = SS1, ^ (A <<< 12) = SS2, + D' (the
        // rest of TT1, ready early) = the next A. The E word's loop (+ E, <<< 7, + H',
        // P0 = rorx, xor, xor) is as long; both below.
        let a_loop = chain!(c; "rorx ecx, eax, 20\nlea edx, [rcx + 0x79cc4519]\nadd edx, r14d\nrorx edx, edx, 25\nxor ecx, edx\nadd eax, ecx");
        let e_loop = chain!(c; "add edx, eax\nrorx edx, edx, 25\nadd edx, r14d\nrorx ecx, edx, 23\nrorx edi, edx, 15\nxor ecx, edi\nxor edx, ecx\nmov eax, edx");
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
        // The kernel's E loop also carries GG_{j+1} = ch(E_{j+1}, F, G) (`and`, `xor` on
        // the new E, `rounds_asm::next!`): GG and SS1 are both ready two cycles after E, so
        // TT2 = (H + W + GG) + SS1 takes two adds after them, one more than above.
        // (`crate::rounds::Word::p0_ch`'s split takes GG off this loop for two more ALU
        // instructions a round.)
        let e_loop_gg = chain!(c; "mov edx, r14d\nadd edx, eax\nrorx edx, edx, 25\nmov ecx, eax\nand ecx, r14d\nxor ecx, r13d\nadd ecx, r12d\nadd ecx, edx\nrorx edx, ecx, 23\nrorx edi, ecx, 15\nxor edx, edi\nxor ecx, edx\nmov eax, ecx");
        row(
            "path (1''): E's loop with GG from the new E (the kernel's)",
            e_loop_gg,
        );
        let rorx = chain!(c; "rorx eax, eax, 20");
        let lea = chain!(c; "lea eax, [rax + 0x79cc4519]");
        let lea3 = chain!(c; "lea eax, [rax + rcx + 0x79cc4519]");
        let add = chain!(c; "add eax, r14d");
        let xor = chain!(c; "xor eax, r14d");
        println!(
            "  latencies: rorx {rorx:.2}, lea base+disp {lea:.2}, lea base+index+disp {lea3:.2}, add {add:.2}, xor {xor:.2}"
        );
        row(
            "path (2): sum of latencies rorx+lea+add+rorx+xor+add",
            2.0 * rorx + lea + 2.0 * add + xor,
        );
        // Throughputs: independent copies (ten destinations, sources constant).
        let t_add = ten_gpr!(c; "add" ", r14d");
        let t_rorx = ten_gpr!(c; "rorx" ", r14d, 7");
        let t_mem = ten!(
            c;
            "add eax, [rsi]",
            "add ecx, [rsi+4]",
            "add edx, [rsi+8]",
            "add edi, [rsi+12]",
            "add r8d, [rsi+16]",
            "add r9d, [rsi+20]",
            "add r10d, [rsi+24]",
            "add r11d, [rsi+28]",
            "add r12d, [rsi+32]",
            "add r13d, [rsi+36]",
        );
        let t_lea = ten!(
            c;
            "lea eax, [r14 + 1]",
            "lea ecx, [r14 + 2]",
            "lea edx, [r14 + 3]",
            "lea edi, [r14 + 4]",
            "lea r8d, [r14 + 5]",
            "lea r9d, [r14 + 6]",
            "lea r10d, [r14 + 7]",
            "lea r11d, [r14 + 8]",
            "lea r12d, [r14 + 9]",
            "lea r13d, [r14 + 10]",
        );
        // Half rorx, half add: if rorx had units of its own the pair would run faster
        // than either alone.
        let t_pair = ten_gpr!(c; "rorx" ", r14d, 7", "add" ", r14d");
        let t_mov = ten_gpr!(c; "mov" ", r14d");
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
            let trip = chain!(c; "vmovd xmm0, eax\nvprold xmm0, xmm0, 9\nvmovd eax, xmm0");
            let with = c.cy(best(twice!(
                adds8!(),
                adds8!(),
                adds8!(),
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
        row(
            "the kernel's rounds alone, four a loop (no message expansion)",
            sm3_rounds!(c, "", "", "", "", "", "", "", ""),
        );
        // The kernel runs about 8 vector instructions of message expansion beside each
        // round (shifts, ORs, XORs, byte shifts, stores): the same rounds with 8 and 3
        // independent vector instructions a round interleaved. (The `avx512` engine's
        // expansion rotates with `vprold` and XORs three ways with `vpternlogd`, about 20
        // instructions a group of four rounds; with the state in general registers between
        // blocks that took the kernel from 7.33 to 7.00 cycles on Zen 4.)
        row(
            "the rounds with 8 vector ops a round beside",
            sm3_rounds!(
                c,
                "vpslld xmm0, xmm10, 7",
                "vpsrld xmm1, xmm10, 25",
                "vpor xmm2, xmm10, xmm11",
                "vpxor xmm3, xmm10, xmm11",
                "vpslld xmm4, xmm10, 15",
                "vpsrld xmm5, xmm10, 17",
                "vpor xmm6, xmm10, xmm11",
                "vpxor xmm7, xmm10, xmm11",
            ),
        );
        row(
            "the rounds with 3 vector ops a round beside",
            sm3_rounds!(
                c,
                "vpslld xmm0, xmm10, 7",
                "vpsrld xmm1, xmm10, 25",
                "vpor xmm2, xmm10, xmm11",
                "",
                "",
                "",
                "",
                "",
            ),
        );
        let floor = a_loop.max(mix);
        let blocks = vec![[0x5au8; 64]; 128];
        let kernel = [shangmi_sm3::Backend::Avx512, shangmi_sm3::Backend::Avx2]
            .into_iter()
            .find_map(|b| {
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
            // The rolled kernel TLCP's stitched CBC seal runs (`compress_hooked`, here
            // with no step), and one block a call, as HMAC's short messages call it.
            if shangmi_sm3::hazmat::hooks_step_on(b) {
                let mut s = shangmi_sm3::hazmat::IV;
                let t = best(|n| {
                    for _ in 0..n / 1000 {
                        shangmi_sm3::hazmat::compress_hooked(b, &mut s, &blocks, &mut (), &mut ())
                            .expect("available");
                    }
                }) * 1000.0;
                row(
                    "the rolled kernel (hooked, no step), 8 KiB",
                    c.cy(t) / (128.0 * 64.0),
                );
            }
            let mut s = shangmi_sm3::hazmat::IV;
            let one = [[0x5au8; 64]];
            let t = best(|n| {
                for _ in 0..n {
                    shangmi_sm3::hazmat::compress(b, &mut s, &one).expect("available");
                }
            });
            std::hint::black_box(s);
            row("kernel, one block a call (chained)", c.cy(t) / 64.0);
            println!(
                "  floor max(path, resource) {floor:.2}: kernel at {:.2}x",
                k / floor
            );
        }
    }

    /// A loop of `$body` (asm lines naming xmm0..xmm31 and 64 bytes at rsi) in an entry
    /// that enables AVX-512VL and GFNI; `x4;` repeats the body four times an iteration.
    macro_rules! gfni_loop {
        (x4; $($body:literal),+ $(,)?) => {
            gfni_loop!($($body),+, $($body),+, $($body),+, $($body),+)
        };
        ($($body:literal),+ $(,)?) => {{
            #[target_feature(enable = "avx512f,avx512vl,gfni")]
            fn run(iters: u64) {
                let buf = [0u8; 64];
                // SAFETY: register-only instructions and loads from `buf` (rsi, offsets
                // below 64) on clobbered registers; the caller checked AVX-512VL and GFNI.
                unsafe {
                    asm_loop!(
                        iters,
                        buf,
                        [],
                        [$($body),+],
                        // zmm0..zmm31, all call-clobbered in the C ABI.
                        clobber_abi("C"),
                    )
                }
            }
            // SAFETY: `sm4` runs this only after detecting AVX-512F/VL and GFNI.
            |iters: u64| unsafe { run(iters) }
        }};
    }

    /// The dependent steps of session 41's round (5 affine, the input also carried rotated
    /// by 24 bits; 3 rotations, 4 vpternlogd) alone, four rounds an iteration, with `$rot16`
    /// the rotation of r1 by 16 into xmm0 (the other two rotations are vprold).
    macro_rules! rotated_chains {
        ($rot16:literal) => {
            gfni_loop!(x4;
                "vgf2p8affineinvqb xmm2, xmm0, xmm10, 0",
                "vgf2p8affineinvqb xmm3, xmm0, xmm11, 0",
                "vgf2p8affineinvqb xmm4, xmm0, xmm12, 0",
                "vgf2p8affineinvqb xmm5, xmm1, xmm11, 0",
                "vpternlogd xmm5, xmm4, xmm13, 0x96",
                "vgf2p8affineinvqb xmm6, xmm1, xmm12, 0",
                "vprold xmm7, xmm2, 8",
                $rot16,
                "vprold xmm8, xmm3, 16",
                "vpternlogd xmm0, xmm7, xmm5, 0x96",
                "vpternlogd xmm6, xmm2, xmm14, 0x96",
                "vpternlogd xmm6, xmm7, xmm8, 0x96",
                "vmovdqa64 xmm1, xmm6",
            )
        };
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
        // The path (`gfni_chain::LowHalf`): the S-box input u through
        // gf2p8affineinvqb, a byte rotation (vpshufb), one three-way XOR (vpternlogd).
        let path = chain!(c; "vgf2p8affineinvqb xmm0, xmm0, xmm10, 0\nvpshufb xmm0, xmm0, xmm11\nvpternlogd xmm0, xmm12, xmm13, 0x96");
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
        let aff = chain!(c; "vgf2p8affineinvqb xmm0, xmm0, xmm10, 0");
        let shuf = chain!(c; "vpshufb xmm0, xmm0, xmm11");
        let tern = chain!(c; "vpternlogd xmm0, xmm12, xmm13, 0x96");
        let vxor = chain!(c; "vpxor xmm0, xmm0, xmm12");
        println!(
            "  latencies: gf2p8affineinvqb {aff:.2}, vpshufb {shuf:.2}, vpternlogd {tern:.2}, vpxor {vxor:.2}"
        );
        row("path (2): sum of the three latencies", aff + shuf + tern);
        // Other ways to move bytes within a 32-bit word: vprold and vpalignr (on a word
        // broadcast to the register) take as long as vpshufb; vpshuflw (rotation by 16 of
        // the low 64 bits' words, which hold the chain's word) and the whole-word or qword
        // moves take one cycle, but a rotation by 8 or 24 has no one-cycle form. With
        // every rotation by 16 (a sixth S-box step on the rotated copy, all four terms from
        // u and rot24(u)) the round's path is still 6: the next input XORs four S-box
        // outputs and o, two levels of vpternlogd, and two units finish only two S-box
        // steps a cycle; one level would need all four in the same cycle. (On Zen 4 that
        // round, six S-box steps and three vpshuflw, ran its loop at 7.3-7.7 cycles by code
        // placement and the CBC chain at 8.45, against 7.78 and 8.1 for the kernel's.)
        let lw = chain!(c; "vpshuflw xmm0, xmm0, 0xb1");
        let align = chain!(c; "vpalignr xmm0, xmm0, xmm0, 1");
        let dword = chain!(c; "vpshufd xmm0, xmm0, 0x39");
        let qshift = chain!(c; "vpsrlq xmm0, xmm0, 8");
        println!(
            "  latencies: vpshuflw (rot16) {lw:.2}, vpalignr {align:.2}, vpshufd {dword:.2}, vpsrlq {qshift:.2}"
        );
        let t_aff = ten_xmm!(c; "vgf2p8affineinvqb" ", xmm10, xmm11, 0");
        let t_shuf = ten_xmm!(c; "vpshufb" ", xmm10, xmm11");
        let t_tern = ten_xmm!(c; "vpternlogd" ", xmm10, xmm11, 0x96");
        let t_xor = ten_xmm!(c; "vpxor" ", xmm10, xmm11");
        // gf2p8affineinvqb and vpshufb alternated: if they shared their units the pair
        // would run at the slower one's rate.
        let t_rol = ten_xmm!(c; "vprold" ", xmm10, 8");
        let t_aff_rol = ten_xmm!(c; "vgf2p8affineinvqb" ", xmm10, xmm11, 0", "vprold" ", xmm10, 8");
        let t_shuf_rol = ten_xmm!(c; "vpshufb" ", xmm10, xmm11", "vprold" ", xmm10, 8");
        println!("  vpshufb and vprold alternated {t_shuf_rol:.2}");
        let rol = chain!(c; "vprold xmm0, xmm0, 8");
        println!(
            "  vprold: latency {rol:.2}, throughput {t_rol:.2}; with gf2p8affineinvqb alternated {t_aff_rol:.2}"
        );
        let t_aff_shuf =
            ten_xmm!(c; "vgf2p8affineinvqb" ", xmm10, xmm11, 0", "vpshufb" ", xmm10, xmm11");
        println!(
            "  throughput, cycles per instruction: gf2p8affineinvqb {t_aff:.2}, vpshufb {t_shuf:.2}, vpternlogd {t_tern:.2}, vpxor {t_xor:.2}, affine+vpshufb alternated {t_aff_shuf:.2}"
        );
        // The kernel's round (`gfni_chain::round_low_evex`): 3 gf2p8affineinvqb, 2 vprold,
        // 1 vpshuflw, 3 vpternlogd, 2 vpxord (and a key's load). The units
        // (measured above): affine and vprold share two, vpshufb-class shuffles have two
        // (one shared with them), logic has four; the bound is the busiest set's work over
        // its units.
        let counted = (5.0 * t_aff_rol)
            .max(3.0 * t_aff)
            .max(t_shuf)
            .max(11.0 * t_xor.max(t_tern));
        row(
            "resource (2): the round's counts x each class's throughput",
            counted,
        );
        let mix = c.cy(best(twice!(
            "vgf2p8affineinvqb xmm0, xmm10, xmm11, 0",
            "vgf2p8affineinvqb xmm1, xmm10, xmm12, 0",
            "vgf2p8affineinvqb xmm2, xmm10, xmm13, 0",
            "vpshuflw xmm3, xmm10, 0xb1",
            "vprold xmm4, xmm11, 8",
            "vprold xmm5, xmm12, 24",
            "vpternlogd xmm6, xmm12, xmmword ptr [rsi], 0x96",
            "vpxor xmm7, xmm10, xmm11",
            "vpternlogd xmm8, xmm13, xmm14, 0x96",
            "vpternlogd xmm9, xmm11, xmm15, 0x96",
            "vpxor xmm6, xmm12, xmm15",
        ))) / 2.0;
        row(
            "resource (1): the round's 11 instructions, independent",
            mix,
        );
        let floor = path.max(mix);
        // The kernel's dependent steps alone: the S-box steps, the rotations by 8 and 24
        // on vprold (the units of gf2p8affineinvqb) and by 16 on vpshuflw (one cycle, the
        // words of the low 64 bits), the 1-cycle rotation's term joined first; then the
        // same with one of the others on vpshufb, and the earlier rounds' steps.
        macro_rules! low_steps {
            ($r8:literal, $r24:literal) => {
                c.cy(best(gfni_loop!(x4;
                    "vgf2p8affineinvqb xmm2, xmm0, xmm10, 0",
                    "vgf2p8affineinvqb xmm3, xmm0, xmm11, 0",
                    "vgf2p8affineinvqb xmm4, xmm0, xmm12, 0",
                    "vpshuflw xmm5, xmm2, 0xb1",
                    $r8,
                    $r24,
                    "vpternlogd xmm4, xmm13, xmm5, 0x96",
                    "vpternlogd xmm0, xmm7, xmm4, 0x96",
                ))) / 4.0
            };
        }
        let low = low_steps!("vprold xmm0, xmm2, 8", "vprold xmm7, xmm3, 24");
        row(
            "the kernel's dependent steps alone (3 affine, vpshuflw, 2 vprold, 2 vpternlogd)",
            low,
        );
        let low_shuf = low_steps!("vpshufb xmm0, xmm2, xmm15", "vprold xmm7, xmm3, 24");
        row("the same, the rotation by 8 on vpshufb", low_shuf);
        let rotated = c.cy(best(rotated_chains!("vpshufb xmm0, xmm2, xmm15"))) / 4.0;
        row(
            "session 41's round alone (5 affine, input also rotated by 24)",
            rotated,
        );
        let direct = c.cy(best(gfni_loop!(x4;
            "vgf2p8affineinvqb xmm2, xmm0, xmm10, 0",
            "vgf2p8affineinvqb xmm3, xmm0, xmm11, 0",
            "vgf2p8affineinvqb xmm4, xmm0, xmm12, 0",
            "vprold xmm7, xmm2, 8",
            "vprold xmm8, xmm2, 16",
            "vprold xmm9, xmm3, 24",
            "vpternlogd xmm4, xmm13, xmm14, 0x96",
            "vpternlogd xmm7, xmm8, xmm9, 0x96",
            "vpxor xmm0, xmm7, xmm4",
        ))) / 4.0;
        row(
            "Direct's chain alone (3 affine, 3 vprold, 2 vpternlogd, vpxor)",
            direct,
        );
        // The kernel's loop of four rounds as compiled into CBC encryption's entry (round
        // keys from memory), without the per-block work.
        let body = c.cy(best(gfni_loop!(
            "vmovdqa xmm13,xmm3",
            "vmovdqa xmm14,xmm4",
            "vmovaps xmm4,XMMWORD PTR [rsi]",
            "vmovaps xmm15,XMMWORD PTR [rsi+0x10]",
            "vmovaps xmm16,XMMWORD PTR [rsi+0x20]",
            "vmovdqa64 xmm17,xmm1",
            "vmovdqa64 xmm18,xmm2",
            "vgf2p8affineinvqb xmm19,xmm12,xmm8,0x63",
            "vgf2p8affineinvqb xmm20,xmm12,xmm9,0x11",
            "vgf2p8affineinvqb xmm3,xmm12,xmm7,0x72",
            "vprold xmm21,xmm19,0x8",
            "vprold xmm23,xmm20,0x18",
            "vpshuflw xmm22,xmm19,0xb1",
            "vpternlogd xmm1,xmm18,xmm4,0x96",
            "vpxord xmm2,xmm13,xmm1",
            "vpternlogd xmm2,xmm3,xmm22,0x96",
            "vpternlogd xmm2,xmm21,xmm23,0x96",
            "vpxord xmm3,xmm2,xmm1",
            "vmovdqa64 xmm1,xmm18",
            "vgf2p8affineinvqb xmm13,xmm2,xmm8,0x63",
            "vgf2p8affineinvqb xmm19,xmm2,xmm9,0x11",
            "vgf2p8affineinvqb xmm4,xmm2,xmm7,0x72",
            "vprold xmm20,xmm13,0x8",
            "vprold xmm22,xmm19,0x18",
            "vpshuflw xmm21,xmm13,0xb1",
            "vpternlogd xmm1,xmm3,xmm15,0x96",
            "vpxord xmm12,xmm14,xmm1",
            "vpternlogd xmm12,xmm4,xmm21,0x96",
            "vpternlogd xmm12,xmm20,xmm22,0x96",
            "vpxord xmm4,xmm12,xmm1",
            "vmovdqa xmm2,xmm3",
            "vgf2p8affineinvqb xmm14,xmm12,xmm8,0x63",
            "vgf2p8affineinvqb xmm15,xmm12,xmm9,0x11",
            "vgf2p8affineinvqb xmm1,xmm12,xmm7,0x72",
            "vprold xmm19,xmm14,0x8",
            "vprold xmm21,xmm15,0x18",
            "vpshuflw xmm20,xmm14,0xb1",
            "vpternlogd xmm2,xmm4,xmm16,0x96",
            "vpxord xmm13,xmm17,xmm2",
            "vpternlogd xmm13,xmm1,xmm20,0x96",
            "vpternlogd xmm13,xmm19,xmm21,0x96",
            "vpxord xmm1,xmm13,xmm2",
            "vmovaps xmm14,XMMWORD PTR [rsi+0x30]",
            "vmovdqa xmm15,xmm4",
            "vgf2p8affineinvqb xmm16,xmm13,xmm8,0x63",
            "vgf2p8affineinvqb xmm17,xmm13,xmm9,0x11",
            "vgf2p8affineinvqb xmm2,xmm13,xmm7,0x72",
            "vprold xmm19,xmm16,0x8",
            "vprold xmm21,xmm17,0x18",
            "vpshuflw xmm20,xmm16,0xb1",
            "vpternlogd xmm15,xmm1,xmm14,0x96",
            "vpxord xmm12,xmm18,xmm15",
            "vpternlogd xmm12,xmm2,xmm20,0x96",
            "vpternlogd xmm12,xmm19,xmm21,0x96",
            "vpxord xmm2,xmm12,xmm15",
        ))) / 4.0;
        row(
            "the kernel's 4-round loop body alone (its asm!, as compiled)",
            body,
        );

        // The paired round (`gfni_chain`'s `round_paired_evex`, the chain's round on Zen 5):
        // u and rot16(u) carried side by side (xmm0/xmm1, then xmm2/xmm4), five S-box
        // steps, four rotations (`vpshufb`), each new value one three-way XOR after a
        // rotation; its dependent steps alone, two rounds an iteration.
        let paired = c.cy(best(gfni_loop!(
            "vgf2p8affineinvqb xmm5, xmm0, xmm12, 0",
            "vgf2p8affineinvqb xmm6, xmm1, xmm11, 0",
            "vgf2p8affineinvqb xmm8, xmm0, xmm10, 0",
            "vgf2p8affineinvqb xmm7, xmm0, xmm11, 0",
            "vgf2p8affineinvqb xmm9, xmm1, xmm10, 0",
            "vpxord xmm2, xmm13, xmm0",
            "vpxord xmm4, xmm13, xmm1",
            "vpshufb xmm14, xmm6, xmm18",
            "vpshufb xmm15, xmm5, xmm18",
            "vpshufb xmm16, xmm7, xmm18",
            "vpshufb xmm17, xmm5, xmm19",
            "vpternlogd xmm2, xmm8, xmm6, 0x96",
            "vpternlogd xmm4, xmm9, xmm7, 0x96",
            "vpternlogd xmm2, xmm14, xmm15, 0x96",
            "vpternlogd xmm4, xmm16, xmm17, 0x96",
            "vgf2p8affineinvqb xmm5, xmm2, xmm12, 0",
            "vgf2p8affineinvqb xmm6, xmm4, xmm11, 0",
            "vgf2p8affineinvqb xmm8, xmm2, xmm10, 0",
            "vgf2p8affineinvqb xmm7, xmm2, xmm11, 0",
            "vgf2p8affineinvqb xmm9, xmm4, xmm10, 0",
            "vpxord xmm0, xmm13, xmm2",
            "vpxord xmm1, xmm13, xmm4",
            "vpshufb xmm14, xmm6, xmm18",
            "vpshufb xmm15, xmm5, xmm18",
            "vpshufb xmm16, xmm7, xmm18",
            "vpshufb xmm17, xmm5, xmm19",
            "vpternlogd xmm0, xmm8, xmm6, 0x96",
            "vpternlogd xmm1, xmm9, xmm7, 0x96",
            "vpternlogd xmm0, xmm14, xmm15, 0x96",
            "vpternlogd xmm1, xmm16, xmm17, 0x96"
        ))) / 2.0;
        row(
            "the paired round's dependent steps alone (5 affine, 4 vpshufb, 4 vpternlogd)",
            paired,
        );
        if let Some(k) = cbc_kernel(c, shangmi_sm4::Backend::GfniAvx512) {
            row("kernel (gfni-avx512 CBC encryption, 8 KiB)", k);
            // The floor is the larger bound, here the path; against it, the dependent steps
            // of the chain's two rounds (`LowHalf`'s, and the paired one, which the kernel
            // runs on AMD family 26 and later).
            println!(
                "  floor max(path {path:.2}, resource {mix:.2}) = {floor:.2}: kernel at {:.2}x; dependent steps alone: LowHalf's {low:.2}, the paired round's {paired:.2} (kernel at {:.2}x / {:.2}x)",
                k / floor,
                k / low,
                k / paired,
            );
        }
    }

    /// Cycles a round of `backend`'s CBC chain (`Sm4::cbc_chain_into`, 8 KiB a call, ten
    /// calls a sample), or `None` where this CPU cannot run the backend.
    fn cbc_kernel(c: &Clock, backend: shangmi_sm4::Backend) -> Option<f64> {
        let sm4 = shangmi_sm4::Sm4::with_backend(&[0x42u8; 16].into(), backend).ok()?;
        let blocks = vec![shangmi_sm4::cipher::Block::<shangmi_sm4::Sm4>::default(); 512];
        let mut out = blocks.clone();
        let mut iv = Default::default();
        let t = best(|n| {
            for _ in 0..n / 1000 {
                sm4.cbc_chain_into(&mut iv, &blocks, &mut out);
            }
        }) * 1000.0;
        Some(c.cy(t) / (512.0 * 32.0))
    }

    /// Four copies of the AES-NI chain's round (or a part of it) an iteration, in a
    /// [`looped!`] loop: u in xmm0; the zero key, the nibble mask and the tables Q (low,
    /// high) and R (low, high) in xmm10..xmm15.
    macro_rules! aes_rounds {
        ($($i:literal),+ $(,)?) => {
            looped!($($i),+, $($i),+, $($i),+, $($i),+)
        };
    }

    /// The AES-NI chain (`sm4::simd::aes_chain::MixColumns`, CBC encryption and CMAC on
    /// `aesni-avx2` and `vaes-avx2`): its path two ways, its round's parts alone, the round
    /// as the kernel's `asm!` (`sm4::x86::sbox`, `AesMix::mix_round`) alone, and the kernel.
    fn sm4_aes(c: &Clock) {
        if !(is_x86_feature_detected!("aes") && is_x86_feature_detected!("avx2")) {
            println!("SM4 AES-NI chain: no AES-NI/AVX2 here");
            return;
        }
        println!("SM4 AES-NI chain (cycles per round)");
        let aes = chain!(c; "vaesenclast xmm0, xmm0, xmm10");
        let srl = chain!(c; "vpsrlw xmm0, xmm0, 4");
        let and = chain!(c; "vpand xmm0, xmm0, xmm11");
        let look = chain!(c; "vpshufb xmm0, xmm12, xmm0");
        let align = chain!(c; "vpalignr xmm0, xmm0, xmm0, 1");
        let vxor = chain!(c; "vpxor xmm0, xmm0, xmm12");
        println!(
            "  latencies: vaesenclast {aes:.2}, vpsrlw {srl:.2}, vpand {and:.2}, vpshufb (as the index) {look:.2}, vpalignr {align:.2}, vpxor {vxor:.2}"
        );
        // The path: AESENCLAST, the high nibble's shift and mask, its table, the XOR with
        // the low nibble's, the rotation by 24 bits (vpalignr of a broadcast word), the
        // last XOR (the rest of the round joins before it).
        let path = chain!(c; "vaesenclast xmm0, xmm0, xmm10\nvpsrlw xmm0, xmm0, 4\nvpand xmm0, xmm0, xmm11\nvpshufb xmm0, xmm13, xmm0\nvpxor xmm0, xmm0, xmm9\nvpalignr xmm1, xmm0, xmm0, 1\nvpxor xmm0, xmm0, xmm1");
        row(
            "path (1): the round's critical instructions as a chain",
            path,
        );
        row(
            "path (2): sum of their latencies",
            aes + srl + and + look + vxor + align + vxor,
        );
        // Why (1) exceeds (2): a value that crosses between the AES unit and the vector ALUs
        // takes longer than either latency says (family 6 model 207: 6 cycles for the pair
        // against 3 + 1).
        let crossing = chain!(c; "vaesenclast xmm0, xmm0, xmm10\nvpsrlw xmm0, xmm0, 4");
        row(
            "vaesenclast and vpsrlw as a chain (their sum is 4 above)",
            crossing,
        );
        let mix = c.cy(best(twice!(
            "vpxor xmm2, xmm2, xmm2",
            "vaesenclast xmm0, xmm12, xmm10",
            "vaesenc xmm1, xmm13, xmm10",
            "vpxor xmm2, xmm12, xmm13",
            "vpxor xmm3, xmm13, xmm14",
            "vpxor xmm4, xmm14, xmm15",
            "vpsrlw xmm5, xmm12, 4",
            "vpand xmm6, xmm13, xmm11",
            "vpand xmm7, xmm14, xmm11",
            "vpshufb xmm8, xmm12, xmm13",
            "vpshufb xmm9, xmm13, xmm14",
            "vpsrlw xmm0, xmm13, 4",
            "vpand xmm1, xmm14, xmm11",
            "vpand xmm2, xmm15, xmm11",
            "vpshufb xmm3, xmm14, xmm15",
            "vpshufb xmm4, xmm15, xmm12",
            "vpxor xmm5, xmm12, xmm14",
            "vpalignr xmm6, xmm13, xmm13, 1",
            "vpxor xmm7, xmm13, xmm15",
            "vpxor xmm8, xmm14, xmm12",
            "vpxor xmm9, xmm15, xmm13",
            "vpxor xmm0, xmm12, xmm15",
        ))) / 2.0;
        row(
            "resource (1): the round's 22 instructions, independent",
            mix,
        );
        // The round's parts alone: Q's half (AESENCLAST, both nibbles' lookups, the
        // rotation, two XORs), then with R's low nibble beside it, then the whole round as
        // the kernel's asm! orders it, without and with the chain's three bookkeeping XORs.
        let q = c.cy(best(aes_rounds!(
            "vaesenclast xmm1, xmm0, xmm10",
            "vpsrlw xmm3, xmm1, 4",
            "vpand xmm1, xmm1, xmm11",
            "vpand xmm3, xmm3, xmm11",
            "vpshufb xmm1, xmm12, xmm1",
            "vpshufb xmm3, xmm13, xmm3",
            "vpxor xmm1, xmm1, xmm3",
            "vpalignr xmm0, xmm1, xmm1, 1",
            "vpxor xmm2, xmm9, xmm1",
            "vpxor xmm0, xmm0, xmm2",
        ))) / 4.0;
        row(
            "Q's half of the round alone (AESENCLAST, 2 lookups, rotation)",
            q,
        );
        let q_rlo = c.cy(best(aes_rounds!(
            "vaesenclast xmm1, xmm0, xmm10",
            "vaesenc xmm2, xmm0, xmm10",
            "vpsrlw xmm3, xmm1, 4",
            "vpand xmm1, xmm1, xmm11",
            "vpand xmm3, xmm3, xmm11",
            "vpshufb xmm1, xmm12, xmm1",
            "vpshufb xmm3, xmm13, xmm3",
            "vpand xmm2, xmm2, xmm11",
            "vpshufb xmm2, xmm14, xmm2",
            "vpxor xmm1, xmm1, xmm3",
            "vpalignr xmm0, xmm1, xmm1, 1",
            "vpxor xmm2, xmm2, xmm9",
            "vpxor xmm2, xmm2, xmm1",
            "vpxor xmm0, xmm0, xmm2",
        ))) / 4.0;
        row(
            "the same with AESENC and R's low-nibble lookup beside it",
            q_rlo,
        );
        // The kernel's round in its asm!'s order, with `$r` making R's input (AESENC), `$kept`
        // (the chain's bookkeeping XORs, or none) after the AES instructions and `$others`
        // joining R's lookups.
        macro_rules! kernel_round {
            ($r:literal, [$($kept:literal),*], $others:literal) => {
                c.cy(best(aes_rounds!(
                    "vpxor xmm2, xmm2, xmm2",
                    "vaesenclast xmm1, xmm0, xmm2",
                    $r,
                    $($kept,)*
                    "vpsrlw xmm3, xmm1, 4",
                    "vpand xmm1, xmm1, xmm11",
                    "vpand xmm3, xmm3, xmm11",
                    "vpshufb xmm1, xmm12, xmm1",
                    "vpshufb xmm3, xmm13, xmm3",
                    "vpsrlw xmm4, xmm2, 4",
                    "vpand xmm2, xmm2, xmm11",
                    "vpand xmm4, xmm4, xmm11",
                    "vpshufb xmm2, xmm14, xmm2",
                    "vpshufb xmm4, xmm15, xmm4",
                    "vpxor xmm1, xmm1, xmm3",
                    "vpalignr xmm0, xmm1, xmm1, 1",
                    $others,
                    "vpxor xmm2, xmm2, xmm4",
                    "vpxor xmm2, xmm2, xmm1",
                    "vpxor xmm0, xmm0, xmm2",
                ))) / 4.0
            };
        }
        let round = kernel_round!("vaesenc xmm2, xmm0, xmm2", [], "vpxor xmm2, xmm2, xmm9");
        row("the kernel's round alone (its asm!, no bookkeeping)", round);
        // word = u ⊕ pending (the last round's partial), partial = ahead ⊕ word, others =
        // partial ⊕ y[i].
        let kept = kernel_round!(
            "vaesenc xmm2, xmm0, xmm2",
            [
                "vpxor xmm6, xmm7, xmm0",
                "vpxor xmm7, xmm5, xmm6",
                "vpxor xmm8, xmm7, xmm9"
            ],
            "vpxor xmm2, xmm2, xmm8"
        );
        row("the same with the chain's three bookkeeping XORs", kept);
        // R's lookups on u itself (wrong values): they then run while the AES instructions
        // do, and the round falls to Q's path; the difference is what the two tables'
        // lookups cost when both wait for the AES results at once.
        let early = kernel_round!("vmovdqa xmm2, xmm0", [], "vpxor xmm2, xmm2, xmm9");
        row(
            "the round with R's lookups on u, not on AESENC's output",
            early,
        );
        let floor = path.max(mix);
        if let Some(k) = cbc_kernel(c, shangmi_sm4::Backend::AesniAvx2) {
            row("kernel (aesni-avx2 CBC encryption, 8 KiB)", k);
            println!(
                "  floor max(path {path:.2}, resource {mix:.2}) = {floor:.2}: kernel at {:.2}x; its own round with the bookkeeping, {kept:.2}: kernel at {:.2}x",
                k / floor,
                k / kept,
            );
        }
    }

    pub fn run() {
        let c = Clock::measure();
        if is_x86_feature_detected!("bmi2") {
            sm3(&c);
        }
        sm4(&c);
        sm4_aes(&c);
    }
}

fn main() {
    #[cfg(target_arch = "x86_64")]
    x86::run();
    #[cfg(not(target_arch = "x86_64"))]
    println!("the floors are measured on x86-64 only");
}
