//! The 64 single-stream rounds in `asm!` blocks of four rounds, registers fixed.
//!
//! The eight working variables live in r8d..r15d and are renamed round by round as in
//! `crate::rounds` (round j writes TT1 into D's register and P0(TT2) into H's, rotates B
//! and F in place), so after 64 rounds they are back in place. eax carries GG_j, computed
//! at the end of round j - 1; ecx,
//! edx and edi are temporaries; rsi points at the expanded message (W_0..W_67 at offset 0,
//! W'_0..W'_63 at 272). The constant T_j <<< j is the displacement of one `lea`, and W_j
//! and W'_j are memory operands of adds.
//!
//! Two forms of the unrolled rounds, the same instructions but for two places
//! ([`rounds`]' `LEA3`): with it, E joins T_j in the `lea` (A's loop one level and one
//! instruction shorter) and GG is taken from TT2's parts (`next!`'s `split`: E's loop one
//! level shorter, three instructions more). Both loops are then 5 and 6 levels where a
//! three-part `lea` takes one cycle (Intel since Ice Lake: 7.89 → 7.44–7.55 cycles a round
//! on family 6 model 207); where it takes two or three (AMD's Zen cores, Intel's
//! Skylake family) neither loop would shorten and the round would only grow.

use super::Step;
use super::expand::{Ahead, Scratch, Xmm};
use crate::consts::K;
use core::cell::Cell;

/// FF_j added into D with edi as the temporary: `a ^ b ^ c` before round 16, then the
/// majority as `(b & c) + (a & (b ^ c))` (the two terms never share a bit, so `+` is `|`),
/// two separate adds that need one temporary.
#[rustfmt::skip]
macro_rules! ff {
    (xor, $a:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            "mov edi, ", $b, "\n",
            "xor edi, ", $c, "\n",
            "xor edi, ", $a, "\n",
            "add ", $d, ", edi\n",
        )
    };
    (maj, $a:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            "mov edi, ", $b, "\n",
            "and edi, ", $c, "\n",
            "add ", $d, ", edi\n",
            "mov edi, ", $b, "\n",
            "xor edi, ", $c, "\n",
            "and edi, ", $a, "\n",
            "add ", $d, ", edi\n",
        )
    };
}

/// With x = TT2 in `$h` and s = e ^ f in eax (e and f the next round's F and G, f
/// already rotated): `$h` = P0(x), the next round's E, and eax its GG: `E ^ s` before
/// round 16, else ch(E, e, f) = f ^ (E & s). (`crate::rounds::Word::p0_ch`'s split, which
/// takes GG off the chain but costs two more instructions a round, measured slower here:
/// the rounds are as much ALU-bound as latency-bound.)
#[rustfmt::skip]
macro_rules! next {
    (xor3, $f:literal, $h:literal) => {
        concat!(
            "rorx ecx, ", $h, ", 23\n",
            "rorx edx, ", $h, ", 15\n",
            "xor ecx, edx\n",
            "xor ", $h, ", ecx\n",
            "xor eax, ", $h, "\n",
        )
    };
    (ch, $f:literal, $h:literal) => {
        concat!(
            "rorx ecx, ", $h, ", 23\n",
            "rorx edx, ", $h, ", 15\n",
            "xor ecx, edx\n",
            "xor ", $h, ", ecx\n",
            "and eax, ", $h, "\n",
            "xor eax, ", $f, "\n",
        )
    };
    // ch(E, e, f) = f ^ (x & s) ^ ((x <<< 9 ^ x <<< 17) & s), ch distributed over P0's
    // XORs: GG ready one cycle after E instead of two, for three more instructions (edi
    // is free here: FF is done).
    (split, $f:literal, $h:literal) => {
        concat!(
            "rorx ecx, ", $h, ", 23\n",
            "rorx edx, ", $h, ", 15\n",
            "mov edi, ", $h, "\n",
            "and edi, eax\n",
            "xor edi, ", $f, "\n",
            "xor ecx, edx\n",
            "xor ", $h, ", ecx\n",
            "and eax, ecx\n",
            "xor eax, edi\n",
        )
    };
}

/// Round `$j` on the registers named A..H, `$k` the signed displacement of T_j <<< j; eax
/// holds GG_j on entry and GG_{j+1} on exit. The serial path (A <<< 12, + T_j, + E, <<< 7
/// = SS1, then SS2, TT1 and TT2) comes first in program order, so that it is the oldest
/// work when it competes for an ALU with the ops that only prepare the next round.
///
/// With `T` in place of `$k`, T_j <<< j comes from memory at `[rsi + 528 + 4j]` instead
/// ([`rounds_rolled`], whose groups share one template and address the words from `rsi`
/// moved to the group's first round): a load beside the `add` that replaces the `lea`.
#[rustfmt::skip]
macro_rules! round {
    ($ff:ident, $next:ident, $a:literal, $b:literal, $c:literal, $d:literal, $e:literal,
     $f:literal, $g:literal, $h:literal, $j:literal, T) => {
        round!(@ concat!("mov edx, dword ptr [rsi + 528 + 4*", $j, "]\nadd edx, ecx\nadd edx, ", $e, "\n"),
            $ff, $next, $a, $b, $c, $d, $e, $f, $g, $h, $j)
    };
    ($ff:ident, $next:ident, $a:literal, $b:literal, $c:literal, $d:literal, $e:literal,
     $f:literal, $g:literal, $h:literal, $j:literal, $k:literal) => {
        round!(@ concat!("lea edx, [rcx ", $k, "]\nadd edx, ", $e, "\n"),
            $ff, $next, $a, $b, $c, $d, $e, $f, $g, $h, $j)
    };
    ($ff:ident, $next:ident, $a:literal, $b:literal, $c:literal, $d:literal, $e:literal,
     $f:literal, $g:literal, $h:literal, $j:literal, $k:literal, lea3) => {
        round!(@ concat!("lea edx, [ecx + ", $e, " ", $k, "]\n"),
            $ff, $next, $a, $b, $c, $d, $e, $f, $g, $h, $j)
    };
    (@ $t:expr, $ff:ident, $next:ident, $a:literal, $b:literal, $c:literal, $d:literal,
     $e:literal, $f:literal, $g:literal, $h:literal, $j:literal) => {
        concat!(
            "rorx ecx, ", $a, ", 20\n",
            $t,
            "rorx edx, edx, 25\n",
            "xor ecx, edx\n",
            "add ", $h, ", dword ptr [rsi + 4*", $j, "]\n",
            "add ", $h, ", eax\n",
            "add ", $d, ", dword ptr [rsi + 272 + 4*", $j, "]\n",
            ff!($ff, $a, $b, $c, $d),
            "rorx ", $b, ", ", $b, ", 23\n",
            "rorx ", $f, ", ", $f, ", 13\n",
            "mov eax, ", $e, "\n",
            "xor eax, ", $f, "\n",
            "add ", $h, ", edx\n",
            "add ", $d, ", ecx\n",
            next!($next, $f, $h),
        )
    };
}

/// Four rounds in one `asm!` block on the state `$s` and GG `$gg` (registers fixed; the
/// renaming of four rounds leaves every variable in its register), starting a 64-byte line;
/// `rolled`: where the code before it ends (the loop of [`rounds_rolled`], whose padding
/// would run every group).
macro_rules! group {
    ($s:ident, $gg:ident, $p:expr, $($round:expr),+ $(,)?) => {
        group!(@ ".p2align 6", $s, $gg, $p, $($round),+)
    };
    (rolled $s:ident, $gg:ident, $p:expr, $($round:expr),+ $(,)?) => {
        group!(@ "", $s, $gg, $p, $($round),+)
    };
    (@ $align:literal, $s:ident, $gg:ident, $p:expr, $($round:expr),+) => {
        // Unrolled, each group starts a 64-byte line (a few NOPs before it). Where the
        // groups fell after the compiler's expansion code between them moved the kernel by
        // 3% (Zen 4, 8 KiB: 505 -> 519 MB/s with this line; 16-byte alignment 517, 128-byte
        // 508, every round on 16 bytes 516). In a loop the padding is not skipped once but
        // executed every group, up to 63 bytes of multi-prefix NOPs, and what it costs
        // then depends on where the compiler put the loop: on Intel family 6 model 207
        // the rolled kernel ran 800 cycles a block in one build (HMAC's calls inlined
        // beside it) and 493 in another, and 490-540 in both without the padding.
        // SAFETY: the template uses only the registers named as operands (the temporaries
        // declared as clobbered outputs), reads only words at `$p`: W_j at 4j and W'_j at
        // 272 + 4j (and, for `T` rounds, T_j at 528 + 4j), j the round's number in the
        // template, which every caller keeps inside its scratch (`Scratch::words` with
        // j < 64; `rounds_rolled` with `$p` at its group's first round and j < 4); it
        // writes no memory and does not touch the stack; every instruction is in the
        // x86-64 base set or BMI2 (`rorx`), which the caller's kernel token proves (an
        // `asm!` block needs no `target_feature` to assemble them).
        unsafe {
            core::arch::asm!(
                $align,
                $($round),+,
                inout("r8d") $s[0], inout("r9d") $s[1], inout("r10d") $s[2],
                inout("r11d") $s[3], inout("r12d") $s[4], inout("r13d") $s[5],
                inout("r14d") $s[6], inout("r15d") $s[7],
                inout("eax") $gg, out("ecx") _, out("edx") _, out("edi") _,
                in("rsi") $p,
                options(nostack, readonly),
            )
        }
    };
}

/// The 64 rounds of [`rounds`] in sixteen groups with `m`'s expansion between them; `$ch`
/// the `next!` form of rounds 15–63 (`ch` or `split`), and `lea3` T_j's `lea` with E in it.
#[rustfmt::skip]
macro_rules! all_rounds {
    ($s:ident, $gg:ident, $w:ident, $m:ident, $ch:ident $(, $lea3:ident)?) => {
        group!($s, $gg, $w,
            round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 0, "+ 0x79cc4519" $(, $lea3)?),
            round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 1, "- 0xc6775ce" $(, $lea3)?),
            round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 2, "- 0x18ceeb9b" $(, $lea3)?),
            round!(xor, xor3, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 3, "- 0x319dd735" $(, $lea3)?),
        );
        $m.after(0);
        group!($s, $gg, $w,
            round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 4, "- 0x633bae69" $(, $lea3)?),
            round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 5, "+ 0x3988a32f" $(, $lea3)?),
            round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 6, "+ 0x7311465e" $(, $lea3)?),
            round!(xor, xor3, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 7, "- 0x19dd7344" $(, $lea3)?),
        );
        $m.after(1);
        group!($s, $gg, $w,
            round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 8, "- 0x33bae687" $(, $lea3)?),
            round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 9, "- 0x6775cd0d" $(, $lea3)?),
            round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 10, "+ 0x311465e7" $(, $lea3)?),
            round!(xor, xor3, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 11, "+ 0x6228cbce" $(, $lea3)?),
        );
        $m.after(2);
        group!($s, $gg, $w,
            round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 12, "- 0x3bae6864" $(, $lea3)?),
            round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 13, "- 0x775cd0c7" $(, $lea3)?),
            round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 14, "+ 0x11465e73" $(, $lea3)?),
            round!(xor, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 15, "+ 0x228cbce6" $(, $lea3)?),
        );
        $m.after(3);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 16, "- 0x62758579" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 17, "+ 0x3b14f50f" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 18, "+ 0x7629ea1e" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 19, "- 0x13ac2bc4" $(, $lea3)?),
        );
        $m.after(4);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 20, "- 0x27585787" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 21, "- 0x4eb0af0d" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 22, "+ 0x629ea1e7" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 23, "- 0x3ac2bc32" $(, $lea3)?),
        );
        $m.after(5);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 24, "- 0x75857863" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 25, "+ 0x14f50f3b" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 26, "+ 0x29ea1e76" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 27, "+ 0x53d43cec" $(, $lea3)?),
        );
        $m.after(6);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 28, "- 0x58578628" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 29, "+ 0x4f50f3b1" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 30, "- 0x615e189e" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 31, "+ 0x3d43cec5" $(, $lea3)?),
        );
        $m.after(7);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 32, "+ 0x7a879d8a" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 33, "- 0xaf0c4ec" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 34, "- 0x15e189d7" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 35, "- 0x2bc313ad" $(, $lea3)?),
        );
        $m.after(8);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 36, "- 0x57862759" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 37, "+ 0x50f3b14f" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 38, "- 0x5e189d62" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 39, "+ 0x43cec53d" $(, $lea3)?),
        );
        $m.after(9);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 40, "- 0x78627586" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 41, "+ 0xf3b14f5" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 42, "+ 0x1e7629ea" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 43, "+ 0x3cec53d4" $(, $lea3)?),
        );
        $m.after(10);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 44, "+ 0x79d8a7a8" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 45, "- 0xc4eb0b0" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 46, "- 0x189d615f" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 47, "- 0x313ac2bd" $(, $lea3)?),
        );
        $m.after(11);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 48, "- 0x62758579" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 49, "+ 0x3b14f50f" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 50, "+ 0x7629ea1e" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 51, "- 0x13ac2bc4" $(, $lea3)?),
        );
        $m.after(12);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 52, "- 0x27585787" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 53, "- 0x4eb0af0d" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 54, "+ 0x629ea1e7" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 55, "- 0x3ac2bc32" $(, $lea3)?),
        );
        $m.after(13);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 56, "- 0x75857863" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 57, "+ 0x14f50f3b" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 58, "+ 0x29ea1e76" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 59, "+ 0x53d43cec" $(, $lea3)?),
        );
        $m.after(14);
        group!($s, $gg, $w,
            round!(maj, $ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 60, "- 0x58578628" $(, $lea3)?),
            round!(maj, $ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 61, "+ 0x4f50f3b1" $(, $lea3)?),
            round!(maj, $ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 62, "- 0x615e189e" $(, $lea3)?),
            round!(maj, $ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 63, "+ 0x3d43cec5" $(, $lea3)?),
        );
        $m.after(15);
    };
}

/// Runs the 64 rounds and the feed-forward on the chaining value `v` with the message
/// expanded into `scratch` by `m`, whose [`Ahead::after`] runs between the groups of four
/// rounds. `s` holds the same eight words as `v` on entry and on exit: the words stay in
/// general registers from one block to the next, so the feed-forward is eight scalar
/// `xor`s on the chain. (Left to the compiler, the array went through two vector registers
/// and back, `vpinsrd` and `vpextrd`; in the `avx512` entry, which enables AVX-512VL, that
/// kernel ran 2% slower than this one on Zen 4.) `LEA3`: the rounds' form for cores with
/// a one-cycle three-part `lea` (module comment).
#[inline(always)]
#[allow(unused_assignments)] // round 63 computes the GG of a round 64
#[rustfmt::skip]
pub(super) fn rounds<X: Xmm, const LEA3: bool>(
    s: &mut [u32; 8],
    v: &mut [u32; 8],
    scratch: &Scratch,
    m: &mut Ahead<'_, X>,
) {
    let words = scratch.words();
    let mut gg = s[4] ^ s[5] ^ s[6];
    if LEA3 {
        all_rounds!(s, gg, words, m, split, lea3);
    } else {
        all_rounds!(s, gg, words, m, ch);
    }
    feed_forward(s, v);
}

/// The feed-forward: `v` and `s` both become `s ⊕ v`, in general registers.
#[inline(always)]
fn feed_forward(s: &mut [u32; 8], v: &mut [u32; 8]) {
    // SAFETY: reads and writes the eight words of `v` (the pointer of a `&mut [u32; 8]`),
    // with base-set instructions on the registers named as operands; no stack. The `xor`s
    // set the flags, so the block does not claim to preserve them.
    unsafe {
        core::arch::asm!(
            "xor r8d, dword ptr [{v}]",
            "xor r9d, dword ptr [{v} + 4]",
            "xor r10d, dword ptr [{v} + 8]",
            "xor r11d, dword ptr [{v} + 12]",
            "xor r12d, dword ptr [{v} + 16]",
            "xor r13d, dword ptr [{v} + 20]",
            "xor r14d, dword ptr [{v} + 24]",
            "xor r15d, dword ptr [{v} + 28]",
            "mov dword ptr [{v}], r8d",
            "mov dword ptr [{v} + 4], r9d",
            "mov dword ptr [{v} + 8], r10d",
            "mov dword ptr [{v} + 12], r11d",
            "mov dword ptr [{v} + 16], r12d",
            "mov dword ptr [{v} + 20], r13d",
            "mov dword ptr [{v} + 24], r14d",
            "mov dword ptr [{v} + 28], r15d",
            v = in(reg) v.as_mut_ptr(),
            inout("r8d") s[0], inout("r9d") s[1], inout("r10d") s[2],
            inout("r11d") s[3], inout("r12d") s[4], inout("r13d") s[5],
            inout("r14d") s[6], inout("r15d") s[7],
            options(nostack),
        );
    }
}

/// The words [`rounds_rolled`] reads: [`Scratch`] (W at 0, W' at 272) and the round
/// constants T_j <<< j at byte offset 528.
#[repr(C)]
pub(super) struct KScratch {
    pub(super) words: Scratch,
    k: [Cell<u32>; 64],
}

impl KScratch {
    /// Empty words and the constants.
    #[inline(always)]
    pub(super) fn new() -> Self {
        const { assert!(core::mem::offset_of!(KScratch, k) == 528) };
        KScratch {
            words: Scratch::new(),
            k: K.map(Cell::new),
        }
    }
}

/// [`rounds`] with its sixteen groups in a loop, one `asm!` template for each kind of group
/// (rounds 0–11, 12–15, 16–63; the constants from memory, `T`), `step` after each: for the
/// hooked kernel, whose step (another kernel's four rounds) is then inlined once instead
/// of sixteen times. A record layer runs it with the instruction cache cold, where 22 KB
/// of unrolled groups and steps cost more than the loop (Zen 4: the unrolled hooked
/// kernel gained 13% sealing a 177-byte record in a loop and nothing over HTTP).
#[inline(always)]
#[allow(unused_assignments)] // the last group computes the GG of a round 64
#[rustfmt::skip]
pub(super) fn rounds_rolled<X: Xmm>(
    s: &mut [u32; 8],
    v: &mut [u32; 8],
    scratch: &KScratch,
    m: &mut Ahead<'_, X>,
    step: &mut impl Step,
) {
    let mut gg = s[4] ^ s[5] ^ s[6];
    // An opaque count keeps the loop a loop.
    for i in 0..core::hint::black_box(16) {
        // The group's first words: W_{4i}, W'_{4i} and T_{4i} at 0, 272 and 528 from it.
        let p = scratch.words.words().wrapping_add(4 * i);
        match i {
            0..=2 => group!(rolled s, gg, p,
                round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 0, T),
                round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 1, T),
                round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 2, T),
                round!(xor, xor3, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 3, T),
            ),
            3 => group!(rolled s, gg, p,
                round!(xor, xor3, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 0, T),
                round!(xor, xor3, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 1, T),
                round!(xor, xor3, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 2, T),
                round!(xor, ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 3, T),
            ),
            _ => group!(rolled s, gg, p,
                round!(maj, ch, "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d", 0, T),
                round!(maj, ch, "r11d", "r8d", "r9d", "r10d", "r15d", "r12d", "r13d", "r14d", 1, T),
                round!(maj, ch, "r10d", "r11d", "r8d", "r9d", "r14d", "r15d", "r12d", "r13d", 2, T),
                round!(maj, ch, "r9d", "r10d", "r11d", "r8d", "r13d", "r14d", "r15d", "r12d", 3, T),
            ),
        }
        m.after(i);
        step.step();
    }
    feed_forward(s, v);
}
