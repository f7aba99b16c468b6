//! x86-64 field multiplication and squaring modulo the SM2 prime in `asm!`, using only base
//! x86-64 instructions (`mul`, `add`/`adc`, `sub`/`sbb`, shifts, `cmov`), so there is nothing to
//! detect at run time. Both compute the 512-bit product first, then the Montgomery reduction of
//! `field.rs` (quotient digit = the low limb, q·p from shifts since p = 2^256 - 2^224 - 2^96 +
//! 2^64 - 1), folding the four reduction steps into the low half in place and adding the high
//! half last, then one conditional subtraction of p by `cmov` (no branch, no secret-dependent
//! address). The Rust versions in `field.rs` stay the reference: the tests compare both on
//! random and edge inputs. In a tight loop the Rust is about as fast; inlined into the point
//! formulas it is not (LLVM spills its carry chains there): with it, signing and
//! verification take 1.7x and 2x as long.
#![allow(unsafe_code)]

use super::limbs::Limbs;
use core::arch::asm;

/// The common tail of [`mul`] and [`sqr`], for the 512-bit value in r0..r7: Montgomery-reduce
/// the low half in place (q = r_i; r_i becomes limb i + 4), add the high half (top carry into
/// t), then subtract p when r + (2^256 - p) carries, by `cmov`.
macro_rules! reduce_512 {
    () => {
        concat!(
            // Montgomery-reduce the low half r0..r3 in place (q = r_i; r_i becomes limb i + 4)
            "mov rax, {r0}\n",
            "shl rax, 32\n",
            "mov rdx, {r0}\n",
            "shr rdx, 32\n",
            "add {r1}, {r0}\n",
            "adc {r2}, 0\n",
            "adc {r3}, 0\n",
            "adc {r0}, 0\n",
            "sub {r1}, rax\n",
            "sbb {r2}, rdx\n",
            "sbb {r3}, rax\n",
            "sbb {r0}, rdx\n",
            "mov rax, {r1}\n",
            "shl rax, 32\n",
            "mov rdx, {r1}\n",
            "shr rdx, 32\n",
            "add {r2}, {r1}\n",
            "adc {r3}, 0\n",
            "adc {r0}, 0\n",
            "adc {r1}, 0\n",
            "sub {r2}, rax\n",
            "sbb {r3}, rdx\n",
            "sbb {r0}, rax\n",
            "sbb {r1}, rdx\n",
            "mov rax, {r2}\n",
            "shl rax, 32\n",
            "mov rdx, {r2}\n",
            "shr rdx, 32\n",
            "add {r3}, {r2}\n",
            "adc {r0}, 0\n",
            "adc {r1}, 0\n",
            "adc {r2}, 0\n",
            "sub {r3}, rax\n",
            "sbb {r0}, rdx\n",
            "sbb {r1}, rax\n",
            "sbb {r2}, rdx\n",
            "mov rax, {r3}\n",
            "shl rax, 32\n",
            "mov rdx, {r3}\n",
            "shr rdx, 32\n",
            "add {r0}, {r3}\n",
            "adc {r1}, 0\n",
            "adc {r2}, 0\n",
            "adc {r3}, 0\n",
            "sub {r0}, rax\n",
            "sbb {r1}, rdx\n",
            "sbb {r2}, rax\n",
            "sbb {r3}, rdx\n",
            // plus the high half; top carry into t
            "xor {t:e}, {t:e}\n",
            "add {r0}, {r4}\n",
            "adc {r1}, {r5}\n",
            "adc {r2}, {r6}\n",
            "adc {r3}, {r7}\n",
            "adc {t}, 0\n",
            // subtract p if r + (2^256 - p) carries
            "mov {r4}, {r0}\n",
            "mov {r5}, {r1}\n",
            "mov {r6}, {r2}\n",
            "mov {r7}, {r3}\n",
            "mov eax, 0xFFFFFFFF\n",
            "add {r4}, 1\n",
            "adc {r5}, rax\n",
            "adc {r6}, 0\n",
            "lea rax, [rax + 1]\n",
            "adc {r7}, rax\n",
            "adc {t}, 0\n",
            "cmovnz {r0}, {r4}\n",
            "cmovnz {r1}, {r5}\n",
            "cmovnz {r2}, {r6}\n",
            "cmovnz {r3}, {r7}\n",
        )
    };
}

/// a·b·2^-256 mod p for a, b < p, fully reduced.
#[inline(always)]
pub fn mul(a: &Limbs, b: &Limbs) -> Limbs {
    let (o0, o1, o2, o3): (u64, u64, u64, u64);
    // SAFETY: base x86-64 instructions only (present on every x86-64 CPU); the asm reads the 32
    // bytes behind each reference, writes only the registers declared below and no memory, and
    // does not touch the stack.
    unsafe {
        asm!(
            "mov rax, [{a}]", "mul qword ptr [{b}]", "mov {r0}, rax", "mov {r1}, rdx",
            "mov rax, [{a} + 8]", "mul qword ptr [{b}]", "add {r1}, rax", "adc rdx, 0", "mov {r2}, rdx",
            "mov rax, [{a} + 16]", "mul qword ptr [{b}]", "add {r2}, rax", "adc rdx, 0", "mov {r3}, rdx",
            "mov rax, [{a} + 24]", "mul qword ptr [{b}]", "add {r3}, rax", "adc rdx, 0", "mov {r4}, rdx",
            "mov rax, [{a}]", "mul qword ptr [{b} + 8]", "add {r1}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 8]", "mul qword ptr [{b} + 8]", "add {r2}, {t}", "adc rdx, 0", "add {r2}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 16]", "mul qword ptr [{b} + 8]", "add {r3}, {t}", "adc rdx, 0", "add {r3}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 24]", "mul qword ptr [{b} + 8]", "add {r4}, {t}", "adc rdx, 0", "add {r4}, rax", "adc rdx, 0", "mov {r5}, rdx",
            "mov rax, [{a}]", "mul qword ptr [{b} + 16]", "add {r2}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 8]", "mul qword ptr [{b} + 16]", "add {r3}, {t}", "adc rdx, 0", "add {r3}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 16]", "mul qword ptr [{b} + 16]", "add {r4}, {t}", "adc rdx, 0", "add {r4}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 24]", "mul qword ptr [{b} + 16]", "add {r5}, {t}", "adc rdx, 0", "add {r5}, rax", "adc rdx, 0", "mov {r6}, rdx",
            "mov rax, [{a}]", "mul qword ptr [{b} + 24]", "add {r3}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 8]", "mul qword ptr [{b} + 24]", "add {r4}, {t}", "adc rdx, 0", "add {r4}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 16]", "mul qword ptr [{b} + 24]", "add {r5}, {t}", "adc rdx, 0", "add {r5}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 24]", "mul qword ptr [{b} + 24]", "add {r6}, {t}", "adc rdx, 0", "add {r6}, rax", "adc rdx, 0", "mov {r7}, rdx",
            reduce_512!(),
            a = in(reg) a.as_ptr(),
            b = in(reg) b.as_ptr(),
            r0 = out(reg) o0, r1 = out(reg) o1, r2 = out(reg) o2, r3 = out(reg) o3,
            r4 = out(reg) _, r5 = out(reg) _, r6 = out(reg) _, r7 = out(reg) _,
            t = out(reg) _,
            out("rax") _, out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [o0, o1, o2, o3]
}

/// a²·2^-256 mod p for a < p, fully reduced: six cross products doubled plus four squares.
#[inline(always)]
pub fn sqr(a: &Limbs) -> Limbs {
    let (o0, o1, o2, o3): (u64, u64, u64, u64);
    // SAFETY: as in `mul`: base x86-64 instructions, reads `a` only, writes declared registers.
    unsafe {
        asm!(
            // cross products a_i·a_j (i < j) into r1..r6
            "mov {t}, [{a}]",
            "mov rax, [{a} + 8]", "mul {t}", "mov {r1}, rax", "mov {r2}, rdx",
            "mov rax, [{a} + 16]", "mul {t}", "add {r2}, rax", "adc rdx, 0", "mov {r3}, rdx",
            "mov rax, [{a} + 24]", "mul {t}", "add {r3}, rax", "adc rdx, 0", "mov {r4}, rdx",
            "mov {t}, [{a} + 8]",
            "mov rax, [{a} + 16]", "mul {t}", "add {r3}, rax", "adc rdx, 0", "mov {r5}, rdx",
            "mov rax, [{a} + 24]", "mul {t}", "add {r4}, {r5}", "adc rdx, 0", "add {r4}, rax", "adc rdx, 0", "mov {r5}, rdx",
            "mov {t}, [{a} + 16]",
            "mov rax, [{a} + 24]", "mul {t}", "add {r5}, rax", "adc rdx, 0", "mov {r6}, rdx",
            // double them into r1..r7
            "xor {r7:e}, {r7:e}",
            "add {r1}, {r1}", "adc {r2}, {r2}", "adc {r3}, {r3}", "adc {r4}, {r4}", "adc {r5}, {r5}", "adc {r6}, {r6}", "adc {r7}, 0",
            // add the squares
            "mov rax, [{a}]", "mul rax", "mov {r0}, rax", "mov {t}, rdx",
            "mov rax, [{a} + 8]", "mul rax", "add {r1}, {t}", "adc {r2}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 16]", "mul rax", "add {r3}, {t}", "adc {r4}, rax", "adc rdx, 0", "mov {t}, rdx",
            "mov rax, [{a} + 24]", "mul rax", "add {r5}, {t}", "adc {r6}, rax", "adc {r7}, rdx",
            reduce_512!(),
            a = in(reg) a.as_ptr(),
            r0 = out(reg) o0, r1 = out(reg) o1, r2 = out(reg) o2, r3 = out(reg) o3,
            r4 = out(reg) _, r5 = out(reg) _, r6 = out(reg) _, r7 = out(reg) _,
            t = out(reg) _,
            out("rax") _, out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [o0, o1, o2, o3]
}

/// `x`, through an empty `asm!` the optimiser cannot see into, so it cannot learn that a
/// mask is all-zeros-or-all-ones and turn a masked select into a branch or a load from a
/// selected address (memcheck caught LLVM doing both).
#[inline(always)]
pub fn opaque(mut x: u64) -> u64 {
    // SAFETY: an empty asm block: no instruction, no memory, no flags touched.
    unsafe {
        asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
    }
    x
}
