//! x86-64 forms of the arithmetic, in `asm!`: the 512-bit product and the Montgomery
//! reduction with `mulx`/`adcx`/`adox` (BMI2 and ADX: Intel since Broadwell, AMD since
//! Zen 1), and the modular sum and difference in plain x86-64 (carry chains, `cmov` and
//! masks, every x86-64 CPU). No branch and no address depends on the values.
//!
//! The product takes one `mulx` row per limb of `a` (in registers: `rdx` and three more),
//! `b`'s limbs read from memory, row 0 on one carry chain and rows 1–3 adding the low
//! halves of their products on OF (`adox`) and the high halves on CF (`adcx`). The
//! reduction is four Montgomery steps on the low half in place (q = r_i·m' mod 2^64, then
//! r + q·m·2^(64i) on both chains, the step's top word kept in the freed slot r_i), the
//! high half added last and one conditional subtraction of m by `cmov`; the modulus is
//! above 2^255, so the sum before the subtraction (below 2m) keeps its carry bit.
//!
//! The `mulx` forms are `unsafe fn`s whose caller proves BMI2 and ADX: the SM2 and SM9
//! field crates call them from their `shangmi-dispatch` kernel tokens. The portable
//! functions of the crate root are the reference (the tests compare both on random and
//! edge inputs).
#![allow(unsafe_code)]

use crate::{Limbs, Modulus, Wide};
use core::arch::asm;

/// The `asm!` text of the 512-bit product a·b with `mulx`/`adcx`/`adox`, for the callers'
/// own `asm!` blocks (SM2's field product ends it with its reduction by shifts). Operands
/// the block must name: `{b}` (pointer to b's limbs, read), `rdx` = a0 and `{r5}`, `{r6}`,
/// `{r7}` = a1, a2, a3 on entry; `{r0}`..`{r7}` the product's limbs on exit; `{t}`, `{u}`
/// and `rax` clobbered. The registers holding a1..a3 become limbs 5..7 of the product, so
/// the whole product needs 13 registers.
#[macro_export]
macro_rules! mulx_product {
    () => {
        concat!(
            // row 0 (a0 in rdx)
            "mulx {r1}, {r0}, [{b}]\n",
            "mulx {r2}, {t}, [{b} + 8]\n",
            "add {r1}, {t}\n",
            "mulx {r3}, {t}, [{b} + 16]\n",
            "adc {r2}, {t}\n",
            "mulx {r4}, {t}, [{b} + 24]\n",
            "adc {r3}, {t}\n",
            "adc {r4}, 0\n",
            // row 1: a1 leaves r5 for rdx
            "mov rdx, {r5}\n",
            "xor eax, eax\n",
            "mulx {u}, {t}, [{b}]\n",
            "adox {r1}, {t}\n",
            "adcx {r2}, {u}\n",
            "mulx {u}, {t}, [{b} + 8]\n",
            "adox {r2}, {t}\n",
            "adcx {r3}, {u}\n",
            "mulx {u}, {t}, [{b} + 16]\n",
            "adox {r3}, {t}\n",
            "adcx {r4}, {u}\n",
            "mulx {r5}, {t}, [{b} + 24]\n",
            "adox {r4}, {t}\n",
            "adcx {r5}, rax\n",
            "adox {r5}, rax\n",
            // row 2
            "mov rdx, {r6}\n",
            "xor eax, eax\n",
            "mulx {u}, {t}, [{b}]\n",
            "adox {r2}, {t}\n",
            "adcx {r3}, {u}\n",
            "mulx {u}, {t}, [{b} + 8]\n",
            "adox {r3}, {t}\n",
            "adcx {r4}, {u}\n",
            "mulx {u}, {t}, [{b} + 16]\n",
            "adox {r4}, {t}\n",
            "adcx {r5}, {u}\n",
            "mulx {r6}, {t}, [{b} + 24]\n",
            "adox {r5}, {t}\n",
            "adcx {r6}, rax\n",
            "adox {r6}, rax\n",
            // row 3
            "mov rdx, {r7}\n",
            "xor eax, eax\n",
            "mulx {u}, {t}, [{b}]\n",
            "adox {r3}, {t}\n",
            "adcx {r4}, {u}\n",
            "mulx {u}, {t}, [{b} + 8]\n",
            "adox {r4}, {t}\n",
            "adcx {r5}, {u}\n",
            "mulx {u}, {t}, [{b} + 16]\n",
            "adox {r5}, {t}\n",
            "adcx {r6}, {u}\n",
            "mulx {r7}, {t}, [{b} + 24]\n",
            "adox {r6}, {t}\n",
            "adcx {r7}, rax\n",
            "adox {r7}, rax\n",
        )
    };
}

/// One Montgomery step on the low half, as `asm!` text: w0 is r_i (q = w0·m'), w1..w3 the
/// next limbs; adds q·m at limb i on both carry chains and leaves limb i + 4 in w0 (the
/// bound r + q·m < 2^(64(i + 5)) keeps the top word's two carries inside it). The operand
/// `$m` points at a [`Modulus`]; `{t}`, `{u}`, rax and rdx are clobbered. A piece of
/// [`mont_reduce!`](crate::mont_reduce).
#[doc(hidden)]
#[macro_export]
macro_rules! mont_reduce_step {
    ($m:literal, $w0:literal, $w1:literal, $w2:literal, $w3:literal) => {
        concat!(
            "mov rdx, ",
            $w0,
            "\n",
            "imul rdx, [",
            $m,
            " + 32]\n",
            "xor eax, eax\n",
            "mulx {u}, {t}, [",
            $m,
            "]\n",
            "adox ",
            $w0,
            ", {t}\n",
            "adcx ",
            $w1,
            ", {u}\n",
            "mulx {u}, {t}, [",
            $m,
            " + 8]\n",
            "adox ",
            $w1,
            ", {t}\n",
            "adcx ",
            $w2,
            ", {u}\n",
            "mulx {u}, {t}, [",
            $m,
            " + 16]\n",
            "adox ",
            $w2,
            ", {t}\n",
            "adcx ",
            $w3,
            ", {u}\n",
            "mulx ",
            $w0,
            ", {t}, [",
            $m,
            " + 24]\n",
            "adox ",
            $w3,
            ", {t}\n",
            "adcx ",
            $w0,
            ", rax\n",
            "adox ",
            $w0,
            ", rax\n",
        )
    };
}

/// The `asm!` text of the Montgomery reduction of `{r0}`..`{r7}` (below m·2^256) into
/// `{r0}`..`{r3}`, fully reduced, `$m` naming the operand that points at a [`Modulus`]:
/// four Montgomery steps on the low half in place, the high half added (top carry into
/// rax), minus m where that does not borrow past the carry (by `cmov`). Clobbers
/// `{r4}`..`{r7}`, `{t}`, `{u}`, rax and rdx.
#[macro_export]
macro_rules! mont_reduce {
    ($m:literal) => {
        concat!(
            $crate::mont_reduce_step!($m, "{r0}", "{r1}", "{r2}", "{r3}"),
            $crate::mont_reduce_step!($m, "{r1}", "{r2}", "{r3}", "{r0}"),
            $crate::mont_reduce_step!($m, "{r2}", "{r3}", "{r0}", "{r1}"),
            $crate::mont_reduce_step!($m, "{r3}", "{r0}", "{r1}", "{r2}"),
            // plus the high half; the top carry into rax
            "xor eax, eax\n",
            "add {r0}, {r4}\n",
            "adc {r1}, {r5}\n",
            "adc {r2}, {r6}\n",
            "adc {r3}, {r7}\n",
            "adc rax, 0\n",
            // minus m; keep the sum where that borrows past the carry
            "mov {r4}, {r0}\n",
            "mov {r5}, {r1}\n",
            "mov {r6}, {r2}\n",
            "mov {r7}, {r3}\n",
            "sub {r4}, [",
            $m,
            "]\n",
            "sbb {r5}, [",
            $m,
            " + 8]\n",
            "sbb {r6}, [",
            $m,
            " + 16]\n",
            "sbb {r7}, [",
            $m,
            " + 24]\n",
            "sbb rax, 0\n",
            "cmovnc {r0}, {r4}\n",
            "cmovnc {r1}, {r5}\n",
            "cmovnc {r2}, {r6}\n",
            "cmovnc {r3}, {r7}\n",
        )
    };
}

/// The Montgomery product a·b·2^-256 mod m for a, b < m, fully reduced: [`mul_wide_adx`]
/// then [`redc_adx`]. For a modulus in a `static`,
/// [`mont_mul_adx_static!`](crate::mont_mul_adx_static) does both in one block and reads
/// the modulus RIP-relative.
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub unsafe fn mont_mul_adx(a: &Limbs, b: &Limbs, m: &Modulus) -> Limbs {
    // SAFETY: the caller guarantees BMI2 and ADX.
    unsafe { redc_adx(&mul_wide_adx(a, b), m) }
}

/// The Montgomery product a·b·2^-256 mod m of `$a`, `$b` (`&Limbs`, both below m) for the
/// [`Modulus`] in the `static` `$m`, fully reduced, as one `asm!` block: the 512-bit product
/// ([`mulx_product!`](crate::mulx_product)) and [`mont_reduce!`](crate::mont_reduce), the
/// modulus read RIP-relative once b's
/// pointer is done (all 13 general registers hold operands). `a` comes in registers (the
/// value a formula computed last should be `a`: through memory, the product would first
/// wait for its store). Expands to an `unsafe` operation: the caller's `unsafe` block
/// proves BMI2 and ADX.
#[macro_export]
macro_rules! mont_mul_adx_static {
    ($a:expr, $b:expr, $m:path) => {{
        let (a, b): (&$crate::Limbs, &$crate::Limbs) = ($a, $b);
        // The asm reads the 32 bytes behind `b` and the 40 bytes of `$m`, writes only the
        // registers declared below and no memory, and does not touch the stack.
        $crate::mulx_product_asm!(
            a = a,
            b = [inout(reg) b.as_ptr() => _],
            tail = ["lea {b}, [rip + {pn}]", $crate::mont_reduce!("{b}")],
            high = [_, _, _, _],
            ops = [pn = sym $m,],
        )
    }};
}

/// One `asm!` block: the 512-bit product a·b of [`mulx_product!`](crate::mulx_product), then
/// the caller's `tail` text (none, or a reduction into `{r0}`..`{r3}`), with the
/// product's 13 register operands declared here once: `a` (a [`Limbs`] or a reference to
/// one) in rdx and `{r5}`..`{r7}`, the pointer to b's limbs in `{b}` declared as the tokens
/// in `b = [..]` (`in(reg) ptr`, or `inout(reg) ptr => _` where the tail reuses the
/// register), and the operands in `ops = [..]` (each followed by a comma) before them.
/// Reads memory, writes none, no stack. Evaluates to `[r0, r1, r2, r3]` at the end (the
/// product's low half, or a reduction's result); `high = [..]` names the caller's variables
/// that take `{r4}`..`{r7}` (the high half), or `_` each. Expands to an
/// `unsafe` operation: the caller's `unsafe` block proves BMI2 and ADX.
#[macro_export]
macro_rules! mulx_product_asm {
    (
        a = $a:expr,
        b = [$($b:tt)*],
        tail = [$($tail:expr),* $(,)?],
        high = [$h4:tt, $h5:tt, $h6:tt, $h7:tt],
        ops = [$($ops:tt)*] $(,)?
    ) => {{
        let a = $a;
        let (o0, o1, o2, o3): (u64, u64, u64, u64);
        ::core::arch::asm!(
            $crate::mulx_product!(),
            $($tail,)*
            $($ops)*
            b = $($b)*,
            r0 = out(reg) o0, r1 = out(reg) o1, r2 = out(reg) o2, r3 = out(reg) o3,
            r4 = out(reg) $h4,
            r5 = inout(reg) a[1] => $h5, r6 = inout(reg) a[2] => $h6, r7 = inout(reg) a[3] => $h7,
            t = out(reg) _, u = out(reg) _,
            out("rax") _, inout("rdx") a[0] => _,
            options(pure, readonly, nostack),
        );
        [o0, o1, o2, o3]
    }};
}

/// The 512-bit product a·b (no reduction), least significant limb first.
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub unsafe fn mul_wide_adx(a: &Limbs, b: &Limbs) -> Wide {
    let (o4, o5, o6, o7): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 and ADX; the asm reads the 32 bytes behind `b`,
    // writes only registers and no memory, and does not touch the stack.
    let [o0, o1, o2, o3] = unsafe {
        mulx_product_asm!(
            a = a,
            b = [in(reg) b.as_ptr()],
            tail = [],
            high = [o4, o5, o6, o7],
            ops = [],
        )
    };
    [o0, o1, o2, o3, o4, o5, o6, o7]
}

/// Montgomery reduction x·2^-256 mod m for x < m·2^256, fully reduced.
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub unsafe fn redc_adx(x: &Wide, m: &Modulus) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3, r4, r5, r6, r7] = *x;
    // SAFETY: the caller guarantees BMI2 and ADX; the asm reads the 40 bytes of `m` only,
    // writes only the registers declared below and no memory, and does not touch the stack.
    unsafe {
        asm!(
            mont_reduce!("{m}"),
            m = in(reg) m,
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            r4 = inout(reg) r4 => _, r5 = inout(reg) r5 => _,
            r6 = inout(reg) r6 => _, r7 = inout(reg) r7 => _,
            t = out(reg) _, u = out(reg) _,
            out("rax") _, out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// `asm!` text: one instruction per limb into `{<d>0}`..`{<d>3}`, `$first` on limb 0 and
/// `$rest` on limbs 1–3 (a carry chain, or the same instruction four times), from
/// `{<s>0}`..`{<s>3}`, from m's limbs behind `{m}`, or from one register `{<s>}` for all.
macro_rules! limbwise {
    ($first:literal, $rest:literal: $d:literal from $s:literal) => {
        limbwise!(@four $first, $rest, $d,
            ["{", $s, "0}"], ["{", $s, "1}"], ["{", $s, "2}"], ["{", $s, "3}"])
    };
    ($first:literal, $rest:literal: $d:literal from m) => {
        limbwise!(@four $first, $rest, $d, ["qword ptr [{m}]"], ["qword ptr [{m} + 8]"],
            ["qword ptr [{m} + 16]"], ["qword ptr [{m} + 24]"])
    };
    ($op:literal: $d:literal from all $s:literal) => {
        limbwise!(@four $op, $op, $d, ["{", $s, "}"], ["{", $s, "}"], ["{", $s, "}"], ["{", $s, "}"])
    };
    (@four $first:literal, $rest:literal, $d:literal, [$($s0:literal),+], [$($s1:literal),+],
        [$($s2:literal),+], [$($s3:literal),+]) => {
        concat!(
            $first, " {", $d, "0}, ", $($s0,)+ "\n",
            $rest, " {", $d, "1}, ", $($s1,)+ "\n",
            $rest, " {", $d, "2}, ", $($s2,)+ "\n",
            $rest, " {", $d, "3}, ", $($s3,)+ "\n",
        )
    };
}

/// One `asm!` block of [`add_mod`] or [`sub_mod`]: the `asm!` text over a's limbs in
/// `{r0}`..`{r3}` (the result), b's in `{b0}`..`{b3}` (clobbered), the pointer `{m}` to the
/// modulus and a scratch register `{c}`. Evaluates to the result limbs.
macro_rules! mod_asm {
    ($a:expr, $b:expr, $m:expr; $($text:expr),+ $(,)?) => {{
        let [mut r0, mut r1, mut r2, mut r3] = *$a;
        let b: &Limbs = $b;
        // SAFETY: plain x86-64 instructions; the asm reads the first 32 bytes of `m`, writes
        // only the registers declared below and no memory, and does not touch the stack.
        unsafe {
            asm!(
                $($text,)+
                m = in(reg) $m,
                r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
                b0 = inout(reg) b[0] => _, b1 = inout(reg) b[1] => _,
                b2 = inout(reg) b[2] => _, b3 = inout(reg) b[3] => _,
                c = out(reg) _,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }};
}

/// a + b mod m for a, b < m (plain x86-64: `add`/`adc`, then the sum minus m by `sub`/`sbb`
/// through the carry word, and `cmov` keeps the sum where that borrows).
#[inline(always)]
pub fn add_mod(a: &Limbs, b: &Limbs, m: &Modulus) -> Limbs {
    mod_asm!(a, b, m;
        "xor {c:e}, {c:e}",
        limbwise!("add", "adc": "r" from "b"),
        // s = a + b < 2m < 2^257: the carry word c is 0 or 1
        "adc {c:e}, 0",
        limbwise!("mov", "mov": "b" from "r"),
        limbwise!("sub", "sbb": "b" from m),
        // CF set iff s < m (the borrow passes the carry word): keep s, else s - m
        "sbb {c}, 0",
        limbwise!("cmovnc", "cmovnc": "r" from "b"),
    )
}

/// a - b mod m for a, b < m (plain x86-64: `sub`/`sbb`, the borrow widened to a mask by
/// `sbb c, c`, then m AND the mask added back).
#[inline(always)]
pub fn sub_mod(a: &Limbs, b: &Limbs, m: &Modulus) -> Limbs {
    mod_asm!(a, b, m;
        limbwise!("sub", "sbb": "r" from "b"),
        // c = all ones where a < b, else zero
        "sbb {c}, {c}",
        limbwise!("mov": "b" from all "c"),
        limbwise!("and", "and": "b" from m),
        // (a - b + 2^256) + m wraps back below m where a < b
        limbwise!("add", "adc": "r" from "b"),
    )
}

/// x - y mod m·2^256 for x, y < m·2^256 (512-bit values, such as unreduced products summed
/// lazily): the 512-bit difference, plus m·2^256 (m added to the high half) where it
/// borrows, by a mask. The result stays below m·2^256 and is ≡ x - y (mod m).
#[inline(always)]
pub fn sub_wide(x: &Wide, y: &Wide, m: &Modulus) -> Wide {
    let [
        mut r0,
        mut r1,
        mut r2,
        mut r3,
        mut r4,
        mut r5,
        mut r6,
        mut r7,
    ] = *x;
    // SAFETY: plain x86-64; the asm reads the 64 bytes behind `y` and the first 32 bytes of
    // `m`, writes only the registers declared below and no memory, no stack.
    unsafe {
        asm!(
            "sub {r0}, [{y}]",
            "sbb {r1}, [{y} + 8]",
            "sbb {r2}, [{y} + 16]",
            "sbb {r3}, [{y} + 24]",
            "sbb {r4}, [{y} + 32]",
            "sbb {r5}, [{y} + 40]",
            "sbb {r6}, [{y} + 48]",
            "sbb {r7}, [{y} + 56]",
            // y's pointer is done: all ones where x < y; it becomes the top limb's addend
            "sbb {y}, {y}",
            "mov {t0}, {y}",
            "mov {t1}, {y}",
            "mov {t2}, {y}",
            "and {t0}, qword ptr [{m}]",
            "and {t1}, qword ptr [{m} + 8]",
            "and {t2}, qword ptr [{m} + 16]",
            "and {y}, qword ptr [{m} + 24]",
            "add {r4}, {t0}",
            "adc {r5}, {t1}",
            "adc {r6}, {t2}",
            "adc {r7}, {y}",
            m = in(reg) m,
            y = inout(reg) y.as_ptr() => _,
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            r4 = inout(reg) r4, r5 = inout(reg) r5, r6 = inout(reg) r6, r7 = inout(reg) r7,
            t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3, r4, r5, r6, r7]
}
