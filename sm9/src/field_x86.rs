//! x86-64 arithmetic modulo the SM9 prime p: addition and subtraction in plain x86-64
//! `asm!` (carry chains and `cmov`/masks, on every x86-64 CPU), and Montgomery
//! multiplication with `mulx`/`adcx`/`adox` (BMI2 and ADX: Intel since Broadwell, AMD since
//! Zen 1), the `shangmi-dispatch` "SM9 field" backend `sm9-adx`, chosen at run time through
//! its kernel token [`AdxMul`]; other CPUs run the portable product of `field.rs`, and
//! builds with `--cfg shangmi_backend="portable"` (or `"soft"`) the portable Rust for every
//! operation. The portable code stays the reference (the tests compare both on random and
//! edge inputs).
//!
//! The pattern of SM2's `field_x86.rs` with a generic reduction: the 512-bit product first
//! (one `mulx` row per limb of a, low halves on the OF chain and high halves on the CF
//! chain), then four Montgomery steps on the low half in place (q = r_i·n0' mod 2^64, then
//! r + q·p·2^(64i) on both chains, the step's top word kept in the freed slot r_i), the high
//! half added last and one conditional subtraction of p by `cmov`. No branch and no address
//! depends on the values. p > 2^255, so the sum before the subtraction (below 2p) keeps its
//! carry bit.
#![allow(unsafe_code)]

use crate::field::{Backend, Limbs};
use core::arch::asm;

/// One Montgomery step on the low half: w0 is r_i (q = w0·n0'), w1..w3 the next limbs; adds
/// q·p at limb i on both carry chains and leaves limb i + 4 in w0 (the bound
/// r + q·p < 2^(64(i + 5)) keeps the top word's two carries inside it). `b` points at p, n0'.
macro_rules! reduce_step {
    ($w0:literal, $w1:literal, $w2:literal, $w3:literal) => {
        concat!(
            "mov rdx, ",
            $w0,
            "\n",
            "imul rdx, [{b} + 32]\n",
            "xor eax, eax\n",
            "mulx {u}, {t}, [{b}]\n",
            "adox ",
            $w0,
            ", {t}\n",
            "adcx ",
            $w1,
            ", {u}\n",
            "mulx {u}, {t}, [{b} + 8]\n",
            "adox ",
            $w1,
            ", {t}\n",
            "adcx ",
            $w2,
            ", {u}\n",
            "mulx {u}, {t}, [{b} + 16]\n",
            "adox ",
            $w2,
            ", {t}\n",
            "adcx ",
            $w3,
            ", {u}\n",
            "mulx ",
            $w0,
            ", {t}, [{b} + 24]\n",
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

shangmi_dispatch::kernel_token! {
    /// The [`crate::field::FpMul`] token of the `mulx` form (`sm9-adx`): made only from an
    /// `Available` `sm9-adx` backend, whose probe (`shangmi-dispatch`) found BMI2 and ADX.
    pub(crate) struct AdxMul = Backend::Adx;
}

impl AdxMul {
    /// a·b·2^-256 mod p for a, b < p, fully reduced.
    #[inline(always)]
    pub(crate) fn mul_limbs(self, a: &Limbs, b: &Limbs) -> Limbs {
        // SAFETY: `self` proves BMI2 and ADX (the token's documentation).
        unsafe { mul_adx(a, b) }
    }
}

impl crate::field::FpMul for AdxMul {
    #[inline(always)]
    fn mul(self, a: &crate::field::Fp, b: &crate::field::Fp) -> crate::field::Fp {
        crate::field::Fp(self.mul_limbs(&a.0, &b.0))
    }

    /// Karatsuba with lazy reduction: three 512-bit products (each below p²), the two
    /// coefficients formed mod p·2^256 by [`sub_wide`], then two Montgomery reductions
    /// instead of three.
    #[inline(always)]
    fn mul2(self, a: [&crate::field::Fp; 2], b: [&crate::field::Fp; 2]) -> [crate::field::Fp; 2] {
        use crate::field::Fp;
        let sa = a[0].add(a[1]);
        let sb = b[0].add(b[1]);
        // SAFETY: `self` proves BMI2 and ADX (the token's documentation).
        let (v0, v1, s) = unsafe {
            (
                mul_wide_adx(&a[0].0, &b[0].0),
                mul_wide_adx(&a[1].0, &b[1].0),
                mul_wide_adx(&sa.0, &sb.0),
            )
        };
        // c0 = v0 - 2v1 (u² = -2), c1 = s - v0 - v1; each < p·2^256.
        let c0 = sub_wide(&sub_wide(&v0, &v1), &v1);
        let c1 = sub_wide(&sub_wide(&s, &v0), &v1);
        // SAFETY: as above.
        unsafe { [Fp(redc_adx(&c0)), Fp(redc_adx(&c1))] }
    }
}

/// p's four limbs and n0' = -p^-1 mod 2^64, read by the reduction through a RIP-relative
/// address (no register is left for a pointer).
#[repr(C, align(64))]
struct Modulus([u64; 5]);

static P_N0: Modulus = Modulus([
    crate::field::Fp::MODULUS[0],
    crate::field::Fp::MODULUS[1],
    crate::field::Fp::MODULUS[2],
    crate::field::Fp::MODULUS[3],
    crate::field::Fp::MINV,
]);

/// a·b·2^-256 mod p for a, b < p, fully reduced.
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub(crate) unsafe fn mul_adx(a: &Limbs, b: &Limbs) -> Limbs {
    let (o0, o1, o2, o3): (u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 and ADX; the asm reads the 32 bytes behind `b` and
    // the 40-byte static P_N0, writes only the registers declared below and no memory, and
    // does not touch the stack.
    unsafe {
        asm!(
            // row 0 (a0 in rdx)
            "mulx {r1}, {r0}, [{b}]",
            "mulx {r2}, {t}, [{b} + 8]", "add {r1}, {t}",
            "mulx {r3}, {t}, [{b} + 16]", "adc {r2}, {t}",
            "mulx {r4}, {t}, [{b} + 24]", "adc {r3}, {t}", "adc {r4}, 0",
            // row 1: a1 leaves r5 for rdx
            "mov rdx, {r5}", "xor eax, eax",
            "mulx {u}, {t}, [{b}]", "adox {r1}, {t}", "adcx {r2}, {u}",
            "mulx {u}, {t}, [{b} + 8]", "adox {r2}, {t}", "adcx {r3}, {u}",
            "mulx {u}, {t}, [{b} + 16]", "adox {r3}, {t}", "adcx {r4}, {u}",
            "mulx {r5}, {t}, [{b} + 24]", "adox {r4}, {t}", "adcx {r5}, rax", "adox {r5}, rax",
            // row 2
            "mov rdx, {r6}", "xor eax, eax",
            "mulx {u}, {t}, [{b}]", "adox {r2}, {t}", "adcx {r3}, {u}",
            "mulx {u}, {t}, [{b} + 8]", "adox {r3}, {t}", "adcx {r4}, {u}",
            "mulx {u}, {t}, [{b} + 16]", "adox {r4}, {t}", "adcx {r5}, {u}",
            "mulx {r6}, {t}, [{b} + 24]", "adox {r5}, {t}", "adcx {r6}, rax", "adox {r6}, rax",
            // row 3
            "mov rdx, {r7}", "xor eax, eax",
            "mulx {u}, {t}, [{b}]", "adox {r3}, {t}", "adcx {r4}, {u}",
            "mulx {u}, {t}, [{b} + 8]", "adox {r4}, {t}", "adcx {r5}, {u}",
            "mulx {u}, {t}, [{b} + 16]", "adox {r5}, {t}", "adcx {r6}, {u}",
            "mulx {r7}, {t}, [{b} + 24]", "adox {r6}, {t}", "adcx {r7}, rax", "adox {r7}, rax",
            // b is done: it now points at p, n0'
            "lea {b}, [rip + {pn}]",
            reduce_step!("{r0}", "{r1}", "{r2}", "{r3}"),
            reduce_step!("{r1}", "{r2}", "{r3}", "{r0}"),
            reduce_step!("{r2}", "{r3}", "{r0}", "{r1}"),
            reduce_step!("{r3}", "{r0}", "{r1}", "{r2}"),
            // plus the high half; the top carry into rax
            "xor eax, eax",
            "add {r0}, {r4}",
            "adc {r1}, {r5}",
            "adc {r2}, {r6}",
            "adc {r3}, {r7}",
            "adc rax, 0",
            // minus p; keep the sum where that borrows past the carry
            "mov {r4}, {r0}",
            "mov {r5}, {r1}",
            "mov {r6}, {r2}",
            "mov {r7}, {r3}",
            "sub {r4}, [{b}]",
            "sbb {r5}, [{b} + 8]",
            "sbb {r6}, [{b} + 16]",
            "sbb {r7}, [{b} + 24]",
            "sbb rax, 0",
            "cmovnc {r0}, {r4}",
            "cmovnc {r1}, {r5}",
            "cmovnc {r2}, {r6}",
            "cmovnc {r3}, {r7}",
            pn = sym P_N0,
            b = inout(reg) b.as_ptr() => _,
            r0 = out(reg) o0, r1 = out(reg) o1, r2 = out(reg) o2, r3 = out(reg) o3,
            r4 = out(reg) _,
            r5 = inout(reg) a[1] => _, r6 = inout(reg) a[2] => _, r7 = inout(reg) a[3] => _,
            t = out(reg) _, u = out(reg) _,
            out("rax") _, inout("rdx") a[0] => _,
            options(pure, readonly, nostack),
        );
    }
    [o0, o1, o2, o3]
}

/// a + b mod p for a, b < p (plain x86-64: `add`/`adc`, then the sum minus p by
/// `sub`/`sbb` through the carry word, and `cmov` keeps the sum where that borrows). Runs on
/// every x86-64 CPU; the portable `mod_add` of `field.rs` is the reference.
#[inline(always)]
pub(crate) fn add_p(a: &Limbs, b: &Limbs) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: plain x86-64 instructions; the asm reads only the first 32 bytes of the static
    // P_N0 (RIP-relative), writes only the registers declared below and no memory, and does
    // not touch the stack. No branch or address depends on the values.
    unsafe {
        asm!(
            "xor {c:e}, {c:e}",
            "add {r0}, {b0}",
            "adc {r1}, {b1}",
            "adc {r2}, {b2}",
            "adc {r3}, {b3}",
            // s = a + b < 2p < 2^257: the carry word c is 0 or 1
            "adc {c:e}, 0",
            "mov {b0}, {r0}",
            "mov {b1}, {r1}",
            "mov {b2}, {r2}",
            "mov {b3}, {r3}",
            "sub {b0}, qword ptr [rip + {pn}]",
            "sbb {b1}, qword ptr [rip + {pn} + 8]",
            "sbb {b2}, qword ptr [rip + {pn} + 16]",
            "sbb {b3}, qword ptr [rip + {pn} + 24]",
            // CF set iff s < p (the borrow passes the carry word): keep s, else s - p
            "sbb {c}, 0",
            "cmovnc {r0}, {b0}",
            "cmovnc {r1}, {b1}",
            "cmovnc {r2}, {b2}",
            "cmovnc {r3}, {b3}",
            pn = sym P_N0,
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            b0 = inout(reg) b[0] => _, b1 = inout(reg) b[1] => _,
            b2 = inout(reg) b[2] => _, b3 = inout(reg) b[3] => _,
            c = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// a - b mod p for a, b < p (plain x86-64: `sub`/`sbb`, the borrow widened to a mask by
/// `sbb c, c`, then p AND the mask added back). The portable `mod_sub` is the reference.
#[inline(always)]
pub(crate) fn sub_p(a: &Limbs, b: &Limbs) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3] = *a;
    // SAFETY: as in `add_p`: plain x86-64, reads the first 32 bytes of P_N0 only, writes the
    // declared registers only, no stack, no value-dependent branch or address.
    unsafe {
        asm!(
            "sub {r0}, {b0}",
            "sbb {r1}, {b1}",
            "sbb {r2}, {b2}",
            "sbb {r3}, {b3}",
            // m = all ones where a < b, else zero
            "sbb {m}, {m}",
            "mov {b0}, {m}",
            "mov {b1}, {m}",
            "mov {b2}, {m}",
            "mov {b3}, {m}",
            "and {b0}, qword ptr [rip + {pn}]",
            "and {b1}, qword ptr [rip + {pn} + 8]",
            "and {b2}, qword ptr [rip + {pn} + 16]",
            "and {b3}, qword ptr [rip + {pn} + 24]",
            // (a - b + 2^256) + p wraps back below p where a < b
            "add {r0}, {b0}",
            "adc {r1}, {b1}",
            "adc {r2}, {b2}",
            "adc {r3}, {b3}",
            pn = sym P_N0,
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            b0 = inout(reg) b[0] => _, b1 = inout(reg) b[1] => _,
            b2 = inout(reg) b[2] => _, b3 = inout(reg) b[3] => _,
            m = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// The 512-bit product a·b (no reduction), least significant limb first: the first half of
/// [`mul_adx`]. For a, b < p the product is below p² < p·2^256.
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub(crate) unsafe fn mul_wide_adx(a: &Limbs, b: &Limbs) -> [u64; 8] {
    let (o0, o1, o2, o3, o4, o5, o6, o7): (u64, u64, u64, u64, u64, u64, u64, u64);
    // SAFETY: the caller guarantees BMI2 and ADX; the asm reads the 32 bytes behind `b`,
    // writes only the registers declared below and no memory, and does not touch the stack.
    unsafe {
        asm!(
            // row 0 (a0 in rdx)
            "mulx {r1}, {r0}, [{b}]",
            "mulx {r2}, {t}, [{b} + 8]", "add {r1}, {t}",
            "mulx {r3}, {t}, [{b} + 16]", "adc {r2}, {t}",
            "mulx {r4}, {t}, [{b} + 24]", "adc {r3}, {t}", "adc {r4}, 0",
            // row 1: a1 leaves r5 for rdx
            "mov rdx, {r5}", "xor eax, eax",
            "mulx {u}, {t}, [{b}]", "adox {r1}, {t}", "adcx {r2}, {u}",
            "mulx {u}, {t}, [{b} + 8]", "adox {r2}, {t}", "adcx {r3}, {u}",
            "mulx {u}, {t}, [{b} + 16]", "adox {r3}, {t}", "adcx {r4}, {u}",
            "mulx {r5}, {t}, [{b} + 24]", "adox {r4}, {t}", "adcx {r5}, rax", "adox {r5}, rax",
            // row 2
            "mov rdx, {r6}", "xor eax, eax",
            "mulx {u}, {t}, [{b}]", "adox {r2}, {t}", "adcx {r3}, {u}",
            "mulx {u}, {t}, [{b} + 8]", "adox {r3}, {t}", "adcx {r4}, {u}",
            "mulx {u}, {t}, [{b} + 16]", "adox {r4}, {t}", "adcx {r5}, {u}",
            "mulx {r6}, {t}, [{b} + 24]", "adox {r5}, {t}", "adcx {r6}, rax", "adox {r6}, rax",
            // row 3
            "mov rdx, {r7}", "xor eax, eax",
            "mulx {u}, {t}, [{b}]", "adox {r3}, {t}", "adcx {r4}, {u}",
            "mulx {u}, {t}, [{b} + 8]", "adox {r4}, {t}", "adcx {r5}, {u}",
            "mulx {u}, {t}, [{b} + 16]", "adox {r5}, {t}", "adcx {r6}, {u}",
            "mulx {r7}, {t}, [{b} + 24]", "adox {r6}, {t}", "adcx {r7}, rax", "adox {r7}, rax",
            b = in(reg) b.as_ptr(),
            r0 = out(reg) o0, r1 = out(reg) o1, r2 = out(reg) o2, r3 = out(reg) o3,
            r4 = out(reg) o4,
            r5 = inout(reg) a[1] => o5, r6 = inout(reg) a[2] => o6, r7 = inout(reg) a[3] => o7,
            t = out(reg) _, u = out(reg) _,
            out("rax") _, inout("rdx") a[0] => _,
            options(pure, readonly, nostack),
        );
    }
    [o0, o1, o2, o3, o4, o5, o6, o7]
}

/// Montgomery reduction T·2^-256 mod p for T < p·2^256, fully reduced: the second half of
/// [`mul_adx`] (four steps on the low half, the high half added, one conditional
/// subtraction: the sum is below 2p).
///
/// # Safety
/// The CPU must have BMI2 and ADX.
#[inline(always)]
pub(crate) unsafe fn redc_adx(x: &[u64; 8]) -> Limbs {
    let [mut r0, mut r1, mut r2, mut r3, r4, r5, r6, r7] = *x;
    // SAFETY: the caller guarantees BMI2 and ADX; the asm reads the 40-byte static P_N0
    // only, writes only the registers declared below and no memory, and does not touch the
    // stack; no branch or address depends on the values.
    unsafe {
        asm!(
            "lea {b}, [rip + {pn}]",
            reduce_step!("{r0}", "{r1}", "{r2}", "{r3}"),
            reduce_step!("{r1}", "{r2}", "{r3}", "{r0}"),
            reduce_step!("{r2}", "{r3}", "{r0}", "{r1}"),
            reduce_step!("{r3}", "{r0}", "{r1}", "{r2}"),
            // plus the high half; the top carry into rax
            "xor eax, eax",
            "add {r0}, {r4}",
            "adc {r1}, {r5}",
            "adc {r2}, {r6}",
            "adc {r3}, {r7}",
            "adc rax, 0",
            // minus p; keep the sum where that borrows past the carry
            "mov {r4}, {r0}",
            "mov {r5}, {r1}",
            "mov {r6}, {r2}",
            "mov {r7}, {r3}",
            "sub {r4}, [{b}]",
            "sbb {r5}, [{b} + 8]",
            "sbb {r6}, [{b} + 16]",
            "sbb {r7}, [{b} + 24]",
            "sbb rax, 0",
            "cmovnc {r0}, {r4}",
            "cmovnc {r1}, {r5}",
            "cmovnc {r2}, {r6}",
            "cmovnc {r3}, {r7}",
            pn = sym P_N0,
            b = out(reg) _,
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

/// x - y mod p·2^256 for x, y < p·2^256 (512-bit values, the unreduced products of the lazy
/// F_p² product): the 512-bit difference, plus p·2^256 (p added to the high half) where it
/// borrows, by a mask. The result stays below p·2^256 and is ≡ x - y (mod p).
#[inline(always)]
pub(crate) fn sub_wide(x: &[u64; 8], y: &[u64; 8]) -> [u64; 8] {
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
    // P_N0, writes only the registers declared below and no memory, no stack; no branch or
    // address depends on the values.
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
            // y's pointer is done: all ones where x < y
            "sbb {y}, {y}",
            "mov {t0}, {y}",
            "mov {t1}, {y}",
            "mov {t2}, {y}",
            "mov {t3}, {y}",
            "and {t0}, qword ptr [rip + {pn}]",
            "and {t1}, qword ptr [rip + {pn} + 8]",
            "and {t2}, qword ptr [rip + {pn} + 16]",
            "and {t3}, qword ptr [rip + {pn} + 24]",
            "add {r4}, {t0}",
            "adc {r5}, {t1}",
            "adc {r6}, {t2}",
            "adc {r7}, {t3}",
            pn = sym P_N0,
            y = inout(reg) y.as_ptr() => _,
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            r4 = inout(reg) r4, r5 = inout(reg) r5, r6 = inout(reg) r6, r7 = inout(reg) r7,
            t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3, r4, r5, r6, r7]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{Fp, mont_mul};

    #[test]
    fn add_sub_match_portable() {
        use crate::field::{mod_add, mod_sub};
        let p = Fp::MODULUS;
        let sub = |a: &Limbs, k: u64| crate::field::sub_limbs(a, &[k, 0, 0, 0]).0;
        let edge: [Limbs; 9] = [
            [0; 4],
            [1, 0, 0, 0],
            sub(&p, 1),
            sub(&p, 2),
            [u64::MAX, u64::MAX, u64::MAX, p[3] >> 1],
            [u64::MAX, u64::MAX, u64::MAX, p[3] - 1],
            [0, 0, 0, p[3]],
            Fp::ONE.0,
            crate::field::div_small(&p, 2),
        ];
        let check = |a: &Limbs, b: &Limbs| {
            assert_eq!(add_p(a, b), mod_add(a, b, &p), "{a:x?} + {b:x?}");
            assert_eq!(sub_p(a, b), mod_sub(a, b, &p), "{a:x?} - {b:x?}");
        };
        for a in &edge {
            for b in &edge {
                check(a, b);
            }
        }
        let mut x: u64 = 0x0fed_cba9_8765_4321;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..200_000 {
            let mut a = [next(), next(), next(), next()];
            let mut b = [next(), next(), next(), next()];
            a[3] %= p[3] + 1;
            b[3] %= p[3] + 1;
            // Top limbs equal to p's: keep below p through the lower limbs.
            if a[3] == p[3] || i % 5 == 0 {
                a[3] = p[3];
                a[2] = a[2].min(p[2] - 1);
            }
            if b[3] == p[3] || i % 7 == 0 {
                b[3] = p[3];
                b[2] = b[2].min(p[2] - 1);
            }
            check(&a, &b);
            check(&b, &a);
            check(&a, &a);
        }
    }

    #[test]
    fn lazy_fp2_product_matches_portable() {
        use crate::field::{FpMul, PortableMul};
        let Some(adx) = adx() else {
            return;
        };
        let p = Fp::MODULUS;
        let sub = |a: &Limbs, k: u64| crate::field::sub_limbs(a, &[k, 0, 0, 0]).0;
        let edge: [Limbs; 7] = [
            [0; 4],
            [1, 0, 0, 0],
            sub(&p, 1),
            sub(&p, 2),
            [u64::MAX, u64::MAX, u64::MAX, p[3] >> 1],
            [u64::MAX, u64::MAX, u64::MAX, p[3] - 1],
            Fp::ONE.0,
        ];
        let check = |a: [Limbs; 2], b: [Limbs; 2]| {
            let (a, b) = ([Fp(a[0]), Fp(a[1])], [Fp(b[0]), Fp(b[1])]);
            let want = PortableMul.mul2([&a[0], &a[1]], [&b[0], &b[1]]);
            let got = adx.mul2([&a[0], &a[1]], [&b[0], &b[1]]);
            assert_eq!(got[0].0, want[0].0, "{a:x?} * {b:x?}");
            assert_eq!(got[1].0, want[1].0, "{a:x?} * {b:x?}");
        };
        for a0 in &edge {
            for a1 in &edge {
                for b0 in &edge {
                    for b1 in &edge {
                        check([*a0, *a1], [*b0, *b1]);
                    }
                }
            }
        }
        let mut x: u64 = 0x1357_9bdf_0246_8ace;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut rand = |i: u64| {
            let mut a = [next(), next(), next(), next()];
            a[3] %= p[3];
            if i.is_multiple_of(3) {
                a[3] = p[3];
                a[2] = a[2].min(p[2] - 1);
            }
            a
        };
        for i in 0..50_000 {
            check([rand(i), rand(i + 1)], [rand(i + 2), rand(i / 2)]);
        }
        // The wide pieces on their own: redc of a full product is the Montgomery product,
        // sub_wide of the extremes stays below p·2^256.
        let pm1 = sub(&p, 1);
        // SAFETY: `adx` proves BMI2 and ADX.
        let w = unsafe { mul_wide_adx(&pm1, &pm1) };
        // SAFETY: as above.
        assert_eq!(unsafe { redc_adx(&w) }, mont_mul(&pm1, &pm1, &p, Fp::MINV));
        let d = sub_wide(&[0; 8], &w);
        // 0 - w + p·2^256: the high half is p - 1 - (high half of w) - borrow.
        // SAFETY: as above.
        let back = unsafe { redc_adx(&d) };
        let want = Fp(mont_mul(&pm1, &pm1, &p, Fp::MINV)).neg();
        assert_eq!(back, want.0);
    }

    /// The `mulx` token where this CPU and build have it.
    fn adx() -> Option<AdxMul> {
        shangmi_dispatch::Available::check(Backend::Adx).and_then(AdxMul::new)
    }

    #[test]
    fn adx_matches_portable() {
        let Some(adx) = adx() else {
            return;
        };
        let p = Fp::MODULUS;
        let pm1 = crate::field::sub_limbs(&p, &[1, 0, 0, 0]).0;
        let mut edge: [Limbs; 6] = [
            [0; 4],
            [1, 0, 0, 0],
            pm1,
            [u64::MAX, u64::MAX, u64::MAX, p[3] >> 1],
            Fp::ONE.0,
            crate::field::sub_limbs(&p, &[2, 0, 0, 0]).0,
        ];
        let mut x: u64 = 0x0123_4567_89ab_cdef;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let check = |a: &Limbs, b: &Limbs| {
            let want = mont_mul(a, b, &p, Fp::MINV);
            let got = adx.mul_limbs(a, b);
            assert_eq!(got, want, "{a:x?} * {b:x?}");
        };
        for a in &edge {
            for b in &edge {
                check(a, b);
            }
        }
        for _ in 0..100_000 {
            let mut a = [next(), next(), next(), next()];
            let mut b = [next(), next(), next(), next()];
            a[3] %= p[3];
            b[3] %= p[3];
            // Values just below p too (top limbs equal to p's).
            if next() & 3 == 0 {
                a[3] = p[3];
                a[2] = a[2].min(p[2] - 1);
            }
            check(&a, &b);
            edge[0] = a;
        }
    }
}
