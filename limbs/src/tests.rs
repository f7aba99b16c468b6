//! The Montgomery arithmetic against a bit-serial reference (shift and subtract, nothing
//! shared with the code under test but `add`/`sub`), for the four moduli of the crates that
//! use it, and the x86-64 forms against the portable ones.

use super::*;
extern crate std;
use proptest::prelude::*;
use std::{vec, vec::Vec};

/// SM2's p and n (GB/T 32918.5), SM9's p and N (GM/T 0044-2016 part 5, A.1).
const MODULI: [&str; 4] = [
    "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF",
    "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123",
    "B640000002A3A6F1D603AB4FF58EC74521F2934B1A7AEEDBE56F9B27E351457D",
    "B640000002A3A6F1D603AB4FF58EC74449F2934B18EA8BEEE56EE19CD69ECF25",
];

/// `w mod m` for a 512-bit `w`, one bit at a time (the reference).
fn reduce_wide_ref(w: &Wide, m: &Limbs) -> Limbs {
    let mut r = [0u64; 4];
    for i in (0..512).rev() {
        let top = r[3] >> 63;
        let s = [
            (r[0] << 1) | ((w[i / 64] >> (i % 64)) & 1),
            (r[1] << 1) | (r[0] >> 63),
            (r[2] << 1) | (r[1] >> 63),
            (r[3] << 1) | (r[2] >> 63),
        ];
        let (d, borrow) = sub(&s, m);
        r = if top == 1 || borrow == 0 { d } else { s };
    }
    r
}

/// a·b mod m by the reference.
fn mul_ref(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    reduce_wide_ref(&mul_wide(a, b), m)
}

/// a·2^256 mod m by the reference (into the Montgomery domain).
fn to_mont_ref(a: &Limbs, m: &Limbs) -> Limbs {
    reduce_wide_ref(&[0, 0, 0, 0, a[0], a[1], a[2], a[3]], m)
}

/// Values below `m`: the edges and the reduction of `raw`.
fn below(m: &Limbs, raw: &Limbs) -> Vec<Limbs> {
    vec![
        [0; 4],
        [1, 0, 0, 0],
        sub(m, &[1, 0, 0, 0]).0,
        sub(m, &[2, 0, 0, 0]).0,
        div_small(m, 2),
        reduce_wide_ref(&[raw[0], raw[1], raw[2], raw[3], 0, 0, 0, 0], m),
    ]
}

#[test]
fn constants() {
    for hex in MODULI {
        let m = from_hex(hex);
        assert_eq!(m[0].wrapping_mul(mont_minv(m[0])), u64::MAX, "{hex}");
        assert_eq!(
            mont_r2(&m),
            to_mont_ref(&to_mont_ref(&[1, 0, 0, 0], &m), &m)
        );
        assert_eq!(from_be_bytes(&to_be_bytes(&m)), m);
        assert_eq!(
            to_be_bytes(&m)[0],
            u8::from_str_radix(&hex[..2], 16).unwrap()
        );
    }
    // Short strings are zero-extended; 2^256 - 1 / 3 in limbs.
    assert_eq!(from_hex("1f"), [0x1f, 0, 0, 0]);
    assert_eq!(div_small(&[u64::MAX; 4], 3), [0x5555_5555_5555_5555; 4]);
}

proptest! {
    #[test]
    fn montgomery_matches_reference(raw in any::<[[u64; 4]; 2]>()) {
        for hex in MODULI {
            let m = from_hex(hex);
            let minv = mont_minv(m[0]);
            for a in below(&m, &raw[0]) {
                for b in below(&m, &raw[1]) {
                    let want = mul_ref(&a, &b, &m);
                    let am = mont_mul(&a, &mont_r2(&m), &m, minv);
                    prop_assert_eq!(am, to_mont_ref(&a, &m));
                    // (aR)·b·R^-1 = a·b.
                    prop_assert_eq!(mont_mul(&am, &b, &m, minv), want);
                    prop_assert_eq!(add_mod(&a, &b, &m), reduce_wide_ref(&{
                        let (s, c) = add(&a, &b);
                        [s[0], s[1], s[2], s[3], c, 0, 0, 0]
                    }, &m));
                    prop_assert_eq!(add_mod(&sub_mod(&a, &b, &m), &b, &m), a);
                    prop_assert_eq!(mul_wide(&a, &a), square_wide(&a));
                    prop_assert_eq!(eq_mask(&a, &b), if a == b { u64::MAX } else { 0 });
                    prop_assert_eq!(lt_mask(&a, &b), if (a[3], a[2], a[1], a[0]) < (b[3], b[2], b[1], b[0]) { u64::MAX } else { 0 });
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86_forms {
    use super::*;
    use crate::x86;

    /// SM9's p for the static form of the product.
    static SM9_P: Modulus = Modulus::new(&from_hex(MODULI[2]));

    /// Whether the `mulx` forms may run here (the dispatch crate's probe).
    fn has_adx() -> bool {
        shangmi_dispatch::sm9_field::Backend::Adx.is_available()
    }

    proptest! {
        #[test]
        fn x86_match_portable(raw in any::<[[u64; 4]; 4]>()) {
            for hex in MODULI {
                let m = from_hex(hex);
                let modulus = Modulus::new(&m);
                for a in below(&m, &raw[0]) {
                    for b in below(&m, &raw[1]) {
                        prop_assert_eq!(x86::add_mod(&a, &b, &modulus), add_mod(&a, &b, &m));
                        prop_assert_eq!(x86::sub_mod(&a, &b, &modulus), sub_mod(&a, &b, &m));
                        // Wide values below m·2^256: m - 1 or less in the high half.
                        let x = mul_wide(&a, &b);
                        let y = mul_wide(&b, &sub(&m, &[1, 0, 0, 0]).0);
                        let d = x86::sub_wide(&x, &y, &modulus);
                        prop_assert!(sub(&[d[4], d[5], d[6], d[7]], &m).1 == 1);
                        prop_assert_eq!(
                            add_mod(&reduce_wide_ref(&d, &m), &reduce_wide_ref(&y, &m), &m),
                            reduce_wide_ref(&x, &m)
                        );
                        if has_adx() {
                            let want = mont_mul(&a, &b, &m, modulus.minv);
                            // SAFETY: the dispatch crate's probe found BMI2 and ADX.
                            let (p, w) = unsafe { (x86::mont_mul_adx(&a, &b, &modulus), x86::mul_wide_adx(&a, &b)) };
                            prop_assert_eq!(p, want);
                            if hex == MODULI[2] {
                                // SAFETY: as above.
                                let q = unsafe { crate::mont_mul_adx_static!(&a, &b, SM9_P) };
                                prop_assert_eq!(q, want);
                            }
                            prop_assert_eq!(w, mul_wide(&a, &b));
                            // SAFETY: as above.
                            prop_assert_eq!(unsafe { x86::redc_adx(&w, &modulus) }, want);
                            // SAFETY: as above.
                            prop_assert_eq!(unsafe { x86::redc_adx(&d, &modulus) }, mont_mul(&reduce_wide_ref(&d, &m), &[1, 0, 0, 0], &m, modulus.minv));
                        }
                    }
                }
            }
        }
    }
}
