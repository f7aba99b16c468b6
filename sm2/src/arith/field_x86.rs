//! x86-64 field arithmetic modulo the SM2 prime in `asm!`: multiplication and squaring in two
//! forms, plus addition, subtraction and halving. The form is the `shangmi-dispatch` "SM2
//! field" backend: `adx` where the CPU has it, else `base`; a build with
//! `--cfg shangmi_backend="soft"` (or `"portable"`) runs the portable Rust of
//! `field_portable.rs` for every operation instead.
//!
//! * `*_adx`: `mulx` with two carry chains at once (`adcx` on CF, `adox` on OF), for CPUs with
//!   BMI2 and ADX (Intel since Broadwell, AMD since Zen 1): per product row one `mulx` per
//!   limb and no moves through `rax`/`rdx`; the first operand comes in registers.
//! * `*_base`: base x86-64 only (`mul`, `add`/`adc`, `cmov`), for every other x86-64 CPU.
//!
//! Both compute the 512-bit product first, then the Montgomery reduction of
//! `field_portable.rs` (quotient digit = the low limb, q·p from shifts since
//! p = 2^256 - 2^224 - 2^96 + 2^64 - 1), folding the four reduction steps into the low half in
//! place and adding the high half last, then one conditional subtraction of p by `cmov` (no
//! branch, no secret-dependent address). Addition and subtraction are one carry chain each
//! with the correction by `cmov` or by a borrow mask, where the Rust versions need two
//! subtractions for an addition. The portable Rust stays the reference: the tests compare
//! every form with it on random and edge inputs. The point formulas pass the value they
//! computed last as the first operand, which the ADX forms take in registers: through
//! memory, each multiplication would first wait for the store of its input to be forwarded.
#![allow(unsafe_code)]

use super::field_portable as portable;
use super::limbs::Limbs;
use core::arch::asm;
use core::sync::atomic::{AtomicU8, Ordering};
use shangmi_dispatch::{Available, Family, sm2_field::Backend};

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

/// One `asm!` block of a base-x86-64 form ([`mul_base`], [`sqr_base`]): the product text,
/// which leaves the 512-bit value in `{r0}`..`{r7}` reading the limbs behind `{a}` (and
/// `{b}`), then [`reduce_512!`]; `{t}`, rax and rdx scratch. Reads memory, writes none, no
/// stack. Evaluates to the reduced `[r0, r1, r2, r3]`; the caller's `unsafe` block holds it.
macro_rules! base_asm {
    (a = $a:expr $(, b = $b:expr)?; $($product:expr),+ $(,)?) => {{
        let (o0, o1, o2, o3): (u64, u64, u64, u64);
        asm!(
            $($product,)+
            reduce_512!(),
            a = in(reg) $a.as_ptr(),
            $(b = in(reg) $b.as_ptr(),)?
            r0 = out(reg) o0, r1 = out(reg) o1, r2 = out(reg) o2, r3 = out(reg) o3,
            r4 = out(reg) _, r5 = out(reg) _, r6 = out(reg) _, r7 = out(reg) _,
            t = out(reg) _,
            out("rax") _, out("rdx") _,
            options(pure, readonly, nostack),
        );
        [o0, o1, o2, o3]
    }};
}

/// The backend in use: the dispatch crate's choice (its probe runs once per process).
#[inline(always)]
pub fn backend() -> Available<Backend> {
    Available::<Backend>::best()
}

/// [`backend`] kept here as one byte (0 = not asked yet, then 1 = `adx`, 2 = `base`,
/// 3 = portable): every multiplication asks, and one load and compare cost less than the
/// dispatch crate's cache lookup.
static FORMS: AtomicU8 = AtomicU8::new(0);

/// The backend in use as [`FORMS`] codes it.
#[inline(always)]
fn forms() -> u8 {
    match FORMS.load(Ordering::Relaxed) {
        0 => {
            let code = match backend().get() {
                Backend::Adx => 1,
                Backend::Base => 2,
                _ => 3,
            };
            FORMS.store(code, Ordering::Relaxed);
            code
        }
        code => code,
    }
}

/// Whether the build forces the portable backend (then no assembly runs).
const FORCED_PORTABLE: bool = matches!(<Backend as Family>::FORCED, Some(Backend::Portable));

/// a·b·2^-256 mod p for a, b < p, fully reduced, by the backend in use.
#[inline(always)]
pub fn mul(a: &Limbs, b: &Limbs) -> Limbs {
    match forms() {
        // SAFETY: the dispatch crate picked `adx`: its probe saw BMI2 and ADX.
        1 => unsafe { mul_adx(*a, b) },
        2 => mul_base(a, b),
        _ => portable::mul(a, b),
    }
}

/// a²·2^-256 mod p for a < p, fully reduced, by the backend in use.
#[inline(always)]
pub fn sqr(a: &Limbs) -> Limbs {
    match forms() {
        // SAFETY: the dispatch crate picked `adx`: its probe saw BMI2 and ADX.
        1 => unsafe { sqr_adx(*a) },
        2 => sqr_base(a),
        _ => portable::sqr(a),
    }
}

/// a·b·2^-256 mod p for a, b < p, fully reduced.
#[inline(always)]
pub fn mul_base(a: &Limbs, b: &Limbs) -> Limbs {
    // SAFETY: base x86-64 instructions only (present on every x86-64 CPU); the asm reads the 32
    // bytes behind each reference, writes only the registers `base_asm!` declares and no
    // memory, and does not touch the stack.
    unsafe {
        base_asm!(a = a, b = b;
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
        )
    }
}

/// As [`mul_base`], with `mulx` and `a` passed in registers: the 512-bit product of
/// `shangmi-limbs` (one product row per limb of a, b's limbs read from memory, low halves on
/// OF, high halves on CF; a1..a3 arrive in the registers that later hold limbs 5..7 of the
/// product, which keeps the whole routine in 13 registers), then this field's reduction
/// (see the module documentation for why `a` comes in registers).
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub unsafe fn mul_adx(a: Limbs, b: &Limbs) -> Limbs {
    // SAFETY: the caller guarantees BMI2 and ADX; reads the 32 bytes behind `b`, writes only
    // declared registers.
    unsafe {
        shangmi_limbs::mulx_product_asm!(
            a = a,
            b = [in(reg) b.as_ptr()],
            tail = [reduce_512!()],
            high = [_, _, _, _],
            ops = [],
        )
    }
}

/// a²·2^-256 mod p for a < p, fully reduced: six cross products doubled plus four squares.
#[inline(always)]
pub fn sqr_base(a: &Limbs) -> Limbs {
    // SAFETY: as in `mul_base`: base x86-64 instructions, reads `a` only, writes declared registers.
    unsafe {
        base_asm!(a = a;
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
        )
    }
}

/// As [`sqr_base`], with `mulx` and `a` passed in registers: the six cross products on both
/// carry chains, then doubling them (CF) and adding the four squares (OF) in one pass. a1 and
/// a2 arrive in the registers that r0 and rax take over once the cross products are done,
/// and copies in xmm0..xmm3 feed the squares.
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub unsafe fn sqr_adx(a: Limbs) -> Limbs {
    let (o0, o1, o2, o3): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 and ADX; registers only (no memory).
    unsafe {
        asm!(
            "movq xmm0, rdx", "movq xmm1, {r0}", "movq xmm2, rax", "movq xmm3, {x3}",
            // cross products a_i·a_j (i < j) into r1..r6 (r0 = a1, rax = a2, rdx = a0)
            "mulx {r2}, {r1}, {r0}",
            "mulx {r3}, {t}, rax",
            "mulx {r4}, {u}, {x3}",
            "xor {r7:e}, {r7:e}",
            "adcx {r2}, {t}",
            "adcx {r3}, {u}",
            "mov rdx, {r0}",
            "mulx {u}, {t}, rax",
            "adox {r3}, {t}",
            "adox {r4}, {u}",
            "mulx {r5}, {t}, {x3}",
            "adcx {r4}, {t}",
            "mov rdx, rax",
            "mulx {r6}, {t}, {x3}",
            "adcx {r5}, {t}",
            "adox {r5}, {r7}",
            "adcx {r6}, {r7}",
            "adox {r6}, {r7}",
            // 2·cross + squares: doubling on CF, squares on OF
            "xor {t:e}, {t:e}",
            "movq rdx, xmm0", "mulx {t}, {r0}, rdx",
            "adcx {r1}, {r1}", "adox {r1}, {t}",
            "movq rdx, xmm1", "mulx {u}, {t}, rdx",
            "adcx {r2}, {r2}", "adox {r2}, {t}",
            "adcx {r3}, {r3}", "adox {r3}, {u}",
            "movq rdx, xmm2", "mulx {u}, {t}, rdx",
            "adcx {r4}, {r4}", "adox {r4}, {t}",
            "adcx {r5}, {r5}", "adox {r5}, {u}",
            "movq rdx, xmm3", "mulx {u}, {t}, rdx",
            "adcx {r6}, {r6}", "adox {r6}, {t}",
            "adcx {r7}, {r7}", "adox {r7}, {u}",
            reduce_512!(),
            r0 = inout(reg) a[1] => o0, r1 = out(reg) o1, r2 = out(reg) o2, r3 = out(reg) o3,
            r4 = out(reg) _, r5 = out(reg) _, r6 = out(reg) _, r7 = out(reg) _,
            x3 = inout(reg) a[3] => _,
            t = out(reg) _, u = out(reg) _,
            inout("rax") a[2] => _, inout("rdx") a[0] => _,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
            options(pure, nomem, nostack),
        );
    }
    [o0, o1, o2, o3]
}

/// a + b mod p for a, b < p: the sum, then its difference with p kept by `cmov` when
/// a + b >= p.
#[inline(always)]
pub fn add(a: &Limbs, b: &Limbs) -> Limbs {
    if FORCED_PORTABLE {
        return portable::add(a, b);
    }
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: base x86-64 instructions on registers only.
    unsafe {
        asm!(
            "xor {t:e}, {t:e}",
            "add {r0}, {b0}", "adc {r1}, {b1}", "adc {r2}, {b2}", "adc {r3}, {b3}", "adc {t}, 0",
            "mov {b0}, {r0}", "mov {b1}, {r1}", "mov {b2}, {r2}", "mov {b3}, {r3}",
            "mov {k:e}, 0xFFFFFFFF",
            "add {b0}, 1", "adc {b1}, {k}", "adc {b2}, 0", "lea {k}, [{k} + 1]", "adc {b3}, {k}", "adc {t}, 0",
            "cmovnz {r0}, {b0}", "cmovnz {r1}, {b1}", "cmovnz {r2}, {b2}", "cmovnz {r3}, {b3}",
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            b0 = inout(reg) b[0] => _, b1 = inout(reg) b[1] => _, b2 = inout(reg) b[2] => _, b3 = inout(reg) b[3] => _,
            t = out(reg) _, k = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// r0..r3 += p & m for the mask m (all ones or zero) in `{m}`, the carry left in CF: p's limbs
/// are m, m << 32, m and m with bit 32 cleared.
macro_rules! add_p_masked {
    () => {
        concat!(
            "mov {k1}, {m}\n",
            "shl {k1}, 32\n",
            "mov {k3}, {m}\n",
            "btr {k3}, 32\n",
            "add {r0}, {m}\n",
            "adc {r1}, {k1}\n",
            "adc {r2}, {m}\n",
            "adc {r3}, {k3}\n",
        )
    };
}

/// a - b mod p for a, b < p: the difference, plus p under the borrow's mask.
#[inline(always)]
pub fn sub(a: &Limbs, b: &Limbs) -> Limbs {
    if FORCED_PORTABLE {
        return portable::sub(a, b);
    }
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: base x86-64 instructions on registers only.
    unsafe {
        asm!(
            "sub {r0}, {b0}", "sbb {r1}, {b1}", "sbb {r2}, {b2}", "sbb {r3}, {b3}",
            "sbb {m}, {m}",
            add_p_masked!(),
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            b0 = in(reg) b[0], b1 = in(reg) b[1], b2 = in(reg) b[2], b3 = in(reg) b[3],
            m = out(reg) _, k1 = out(reg) _, k3 = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// a/2 mod p for a < p: a + p when a is odd (mask from the low bit), then a 257-bit shift
/// right by one.
#[inline(always)]
pub fn half(a: &Limbs) -> Limbs {
    if FORCED_PORTABLE {
        return portable::half(a);
    }
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: base x86-64 instructions on registers only.
    unsafe {
        asm!(
            "mov {m}, {r0}", "and {m}, 1", "neg {m}",
            add_p_masked!(),
            "setc {m:l}",
            "shrd {r0}, {r1}, 1", "shrd {r1}, {r2}, 1", "shrd {r2}, {r3}, 1", "shrd {r3}, {m}, 1",
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            m = out(reg) _, k1 = out(reg) _, k3 = out(reg) _,
            options(pure, nomem, nostack),
        );
    }
    [r0, r1, r2, r3]
}
