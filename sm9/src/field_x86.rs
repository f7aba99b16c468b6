//! x86-64 arithmetic modulo the SM9 prime p, from the x86-64 forms of `shangmi-limbs`:
//! addition and subtraction in plain x86-64 `asm!` (every x86-64 CPU), and Montgomery
//! multiplication with `mulx`/`adcx`/`adox` (BMI2 and ADX: Intel since Broadwell, AMD since
//! Zen 1), the `shangmi-dispatch` "SM9 field" backend `sm9-adx`, reached only through its
//! kernel token [`AdxMul`]; other CPUs run the portable product of `field.rs`, and builds
//! with `--cfg shangmi_backend="portable"` (or `"soft"`) the portable Rust for every
//! operation. The portable code stays the reference (the tests compare both on random and
//! edge inputs).
#![allow(unsafe_code)]

use crate::primes::P_HEX;
use shangmi_dispatch::sm9_field::Backend;
use shangmi_limbs::{Limbs, Modulus, x86};

/// p and -p^-1 mod 2^64, as the x86-64 forms read them.
pub(crate) static P: Modulus = Modulus::new(&shangmi_limbs::from_hex(P_HEX));

shangmi_dispatch::kernel_token! {
    /// The F_p-product token of the `mulx` form (`sm9-adx`): made only from an
    /// `Available` `sm9-adx` backend, whose probe (`shangmi-dispatch`) found BMI2 and ADX.
    pub(crate) struct AdxMul = Backend::Adx;
}

impl AdxMul {
    /// a·b·2^-256 mod p for a, b < p, fully reduced.
    #[inline(always)]
    pub(crate) fn mul_limbs(self, a: &Limbs, b: &Limbs) -> Limbs {
        // SAFETY: `self` proves BMI2 and ADX (the token's documentation); the block reads
        // `a`, `b` and the static P only.
        unsafe { shangmi_limbs::mont_mul_adx_static!(a, b, P) }
    }

    /// The F_p² product (a0 + a1u)(b0 + b1u), u² = -2, for coefficients below p: Karatsuba
    /// with lazy reduction — three 512-bit products (each below p²), the two coefficients
    /// a0b0 - 2a1b1 and (a0 + a1)(b0 + b1) - a0b0 - a1b1 formed mod p·2^256 by
    /// [`x86::sub_wide`], then two Montgomery reductions instead of three.
    #[inline(always)]
    pub(crate) fn mul2_limbs(self, a: [&Limbs; 2], b: [&Limbs; 2]) -> [Limbs; 2] {
        let sa = x86::add_mod(a[0], a[1], &P);
        let sb = x86::add_mod(b[0], b[1], &P);
        // SAFETY: `self` proves BMI2 and ADX (the token's documentation).
        let (v0, v1, s) = unsafe {
            (
                x86::mul_wide_adx(a[0], b[0]),
                x86::mul_wide_adx(a[1], b[1]),
                x86::mul_wide_adx(&sa, &sb),
            )
        };
        // c0 = v0 - 2v1 (u² = -2), c1 = s - v0 - v1; each < p·2^256.
        let c0 = x86::sub_wide(&x86::sub_wide(&v0, &v1, &P), &v1, &P);
        let c1 = x86::sub_wide(&x86::sub_wide(&s, &v0, &P), &v1, &P);
        // SAFETY: as above.
        unsafe { [x86::redc_adx(&c0, &P), x86::redc_adx(&c1, &P)] }
    }
}
