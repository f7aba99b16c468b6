//! ZUC's S-boxes as boolean circuits, so that no table is indexed by a secret byte.
//!
//! The eight bytes of one F-function call (the words `u` and `v`) are kept in one `u64`;
//! bit plane k is that word shifted right by k, whose bit 8j is bit k of byte j (the other
//! bits are junk that no gate moves into bit 8j, and the final mask drops them). Every gate
//! is a bitwise AND or XOR on these planes.
//!
//! * S0 follows the nibble decomposition of Intel's intel-ipsec-mb: with `h`, `l` the high
//!   and low nibble, `t1 = P1(l) ^ h`, `t2 = P2(t1) ^ l`, `t3 = P3(t2) ^ t1`,
//!   `S0 = rotl8(t3 << 4 | t2, 5)`; P1, P2, P3 are 4-bit functions evaluated from their
//!   algebraic normal form.
//! * S1 is `A·x^-1 + 0x55` in GF(2^8) mod `x^8 + x^7 + x^3 + x + 1` (the ZUC specification's
//!   design notes); the inversion runs in the tower field GF(16)\[y\]/(y^2 + y + 8),
//!   GF(16) = GF(2)\[z\]/(z^4 + z + 1), reached by a linear change of basis.
//!
//! Every constant comes from `tools/derive_sbox.py`, which checks each circuit exhaustively
//! against the specification's tables; the unit test below checks the Rust circuits the same way.

// Product in GF(16) = GF(2)[z]/(z^4 + z + 1), shared with SM4's S-box circuit.
use shangmi_dispatch::bitslice::gf16_mul as mul16;

/// Bit planes of the eight bytes (plane k = the packed word shifted right by k).
type Planes = [u64; 8];
type Nibble = [u64; 4];

/// Rows of the map from S1's field into the tower field (row i: input bits XORed into bit i).
const S1_IN_ROWS: [u8; 8] = [0x2d, 0x40, 0x3a, 0xfc, 0xd8, 0x38, 0x14, 0xde];
/// Rows of the map back from the tower field composed with S1's affine matrix.
const S1_OUT_ROWS: [u8; 8] = [0x9d, 0x55, 0x37, 0xb2, 0x75, 0xf8, 0x0a, 0x43];
/// S1's affine constant (S1(0)).
const S1_CONST: u8 = 0x55;
/// `lambda · t^2` in GF(16), a linear map.
const LAMBDA_SQ_ROWS: [u8; 4] = [0x04, 0x0e, 0x02, 0x0d];
/// `t^2` in GF(16), a linear map.
const SQ_ROWS: [u8; 4] = [0x05, 0x04, 0x0a, 0x08];
/// Algebraic normal forms (bit m of row i: monomial `prod_{j in m} x_j` in output bit i).
const INV16_ANF: [u16; 4] = [0x41f6, 0x0d68, 0x2338, 0x5714];
const P1_ANF: [u16; 4] = [0x1505, 0x0232, 0x0072, 0x050d];
const P2_ANF: [u16; 4] = [0x17d2, 0x573c, 0x625e, 0x1e95];
const P3_ANF: [u16; 4] = [0x1120, 0x0451, 0x0602, 0x002c];

/// Bytes 1, 3, 5, 7 of the packed word go through S0 (the high byte of each 16-bit half).
const S0_LANES: u64 = 0x0100_0100_0100_0100;
/// Bytes 0, 2, 4, 6 go through S1.
const S1_LANES: u64 = 0x0001_0001_0001_0001;

/// A linear map over `N` planes: `rows` are public constants, so this unrolls into a fixed
/// XOR network (the `if` tests constants, never data).
#[inline(always)]
fn linear<const N: usize>(rows: &[u8; N], x: &[u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    for (o, row) in out.iter_mut().zip(rows) {
        for (j, xj) in x.iter().enumerate() {
            if (row >> j) & 1 == 1 {
                *o ^= xj;
            }
        }
    }
    out
}

/// A 4-bit function from its algebraic normal form: 11 ANDs for the monomials, then a fixed
/// XOR network picked by the constant `anf`.
#[inline(always)]
fn nibble_function(anf: &[u16; 4], x: &Nibble) -> Nibble {
    let [x0, x1, x2, x3] = *x;
    let (x01, x23) = (x0 & x1, x2 & x3);
    let monomials: [u64; 16] = [
        !0,
        x0,
        x1,
        x01,
        x2,
        x0 & x2,
        x1 & x2,
        x01 & x2,
        x3,
        x0 & x3,
        x1 & x3,
        x01 & x3,
        x23,
        x0 & x23,
        x1 & x23,
        x01 & x23,
    ];
    let mut out = [0u64; 4];
    for (o, row) in out.iter_mut().zip(anf) {
        for (m, mono) in monomials.iter().enumerate() {
            if (row >> m) & 1 == 1 {
                *o ^= mono;
            }
        }
    }
    out
}

#[inline(always)]
fn xor4(a: &Nibble, b: &Nibble) -> Nibble {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

/// S0 on every lane of the planes.
#[inline(always)]
fn s0(x: &Planes) -> Planes {
    let l = [x[0], x[1], x[2], x[3]];
    let h = [x[4], x[5], x[6], x[7]];
    let t1 = xor4(&nibble_function(&P1_ANF, &l), &h);
    let t2 = xor4(&nibble_function(&P2_ANF, &t1), &l);
    let t3 = xor4(&nibble_function(&P3_ANF, &t2), &t1);
    // y = t3 << 4 | t2, then rotated left by 5: bit k of y lands at bit (k + 5) mod 8.
    let y = [t2[0], t2[1], t2[2], t2[3], t3[0], t3[1], t3[2], t3[3]];
    [y[3], y[4], y[5], y[6], y[7], y[0], y[1], y[2]]
}

/// S1 on every lane of the planes.
#[inline(always)]
fn s1(x: &Planes) -> Planes {
    let t = linear(&S1_IN_ROWS, x);
    let lo = [t[0], t[1], t[2], t[3]];
    let hi = [t[4], t[5], t[6], t[7]];
    // (hi·y + lo)^-1 = (hi·e)·y + (hi + lo)·e with e = (lambda·hi^2 + hi·lo + lo^2)^-1.
    let d = xor4(
        &xor4(&linear(&LAMBDA_SQ_ROWS, &hi), &mul16(&hi, &lo)),
        &linear(&SQ_ROWS, &lo),
    );
    let e = nibble_function(&INV16_ANF, &d);
    let out_hi = mul16(&hi, &e);
    let out_lo = mul16(&xor4(&hi, &lo), &e);
    let inv = [
        out_lo[0], out_lo[1], out_lo[2], out_lo[3], out_hi[0], out_hi[1], out_hi[2], out_hi[3],
    ];
    let mut y = linear(&S1_OUT_ROWS, &inv);
    for (k, plane) in y.iter_mut().enumerate() {
        if (S1_CONST >> k) & 1 == 1 {
            *plane = !*plane;
        }
    }
    y
}

/// ZUC's S = (S0, S1, S0, S1) from the most significant byte down, applied to `u` and `v`.
#[inline]
pub(crate) fn sbox_pair(u: u32, v: u32) -> (u32, u32) {
    let packed = (u64::from(u) << 32) | u64::from(v);
    let mut planes = [0u64; 8];
    for (k, plane) in planes.iter_mut().enumerate() {
        *plane = packed >> k;
    }
    let y0 = s0(&planes);
    let y1 = s1(&planes);
    let mut out = 0u64;
    for k in 0..8 {
        out |= ((y0[k] & S0_LANES) | (y1[k] & S1_LANES)) << k;
    }
    ((out >> 32) as u32, out as u32)
}

// S0 and S1 from the ZUC specification, used only to check the circuits (the table file
// the tests share).
#[cfg(test)]
#[path = "../tests/support/sbox_tables.rs"]
mod sbox_tables;

#[cfg(test)]
mod tests {
    use super::sbox_tables::{S0_TABLE, S1_TABLE};

    #[test]
    fn circuits_equal_the_specification_tables() {
        for x in 0..=255u32 {
            // Every byte position of both words, with different bytes around it.
            let word = u32::from_be_bytes([x as u8, x as u8, x as u8, x as u8]);
            let expect = u32::from_be_bytes([
                S0_TABLE[x as usize],
                S1_TABLE[x as usize],
                S0_TABLE[x as usize],
                S1_TABLE[x as usize],
            ]);
            let other = word.rotate_left(8) ^ 0x5a3c_96e1;
            let (u, v) = super::sbox_pair(word, other);
            assert_eq!(u, expect, "u {x:#04x}");
            let (u2, v2) = super::sbox_pair(other, word);
            assert_eq!(v2, expect, "v {x:#04x}");
            assert_eq!(u2, v, "lanes independent {x:#04x}");
            assert_eq!(u, v2);
        }
    }
}
