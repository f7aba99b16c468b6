//! x86-64 Montgomery multiplication modulo the SM9 prime p with `mulx`/`adcx`/`adox` (BMI2
//! and ADX: Intel since Broadwell, AMD since Zen 1), chosen at run time; other CPUs and
//! builds with `--cfg shangmi_backend="portable"` (or `"soft"`) run the portable Rust of
//! `field.rs`, which stays the reference (the tests compare both on random and edge inputs).
//!
//! The pattern of SM2's `field_x86.rs` with a generic reduction: the 512-bit product first
//! (one `mulx` row per limb of a, low halves on the OF chain and high halves on the CF
//! chain), then four Montgomery steps on the low half in place (q = r_i·n0' mod 2^64, then
//! r + q·p·2^(64i) on both chains, the step's top word kept in the freed slot r_i), the high
//! half added last and one conditional subtraction of p by `cmov`. No branch and no address
//! depends on the values. p > 2^255, so the sum before the subtraction (below 2p) keeps its
//! carry bit.
#![allow(unsafe_code)]

use crate::field::Limbs;
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

cpufeatures::new!(cpu_adx, "adx", "bmi2");

/// Whether the build forces the portable code.
const FORCED_PORTABLE: bool = cfg!(any(shangmi_backend = "portable", shangmi_backend = "soft"));

/// True where the `mulx` form runs.
#[inline(always)]
pub(crate) fn have_adx() -> bool {
    !FORCED_PORTABLE && cpu_adx::get()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::{Fp, mont_mul};

    #[test]
    fn adx_matches_portable() {
        if !have_adx() {
            return;
        }
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
            // SAFETY: have_adx() saw BMI2 and ADX.
            let got = unsafe { mul_adx(a, b) };
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
