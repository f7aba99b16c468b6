//! The SM4 S-box's affine maps as 8×8 bit matrices over the AES field, and the algebra of
//! the chains that keep their state in the "P domain" (`crate::x86::gfni_chain`,
//! [`super::aes_chain`]): const fns that derive their constants at compile time.
//!
//! SM4's S-box is A·inv(A·x + 0xD3) + 0xD3 over GF(2^8) mod 0x1F5 (Liu et al., ACISP
//! 2007); a field isomorphism T into the AES field (mod 0x11B) makes it
//! POST·inv(PRE·x ⊕ PRE_C) ⊕ POST_C with the AES field's inverse (the idea of
//! Markku-Juhani Saarinen's sm4ni and the Linux sm4-aesni-avx code). The matrices are in
//! Intel's `gf2p8affineqb` layout (output bit i from byte 7 − i); the tests check the
//! S-box of every engine against GB/T 32907's table.

/// PRE = T·A.
pub(crate) const PRE: u64 = 0x4c28_7db9_1a22_505d;
/// PRE_C = T·0xD3.
pub(crate) const PRE_C: u8 = 0x3e;
/// POST = A·T⁻¹.
pub(crate) const POST: u64 = 0xf3ab_34a9_74a6_b589;
/// POST_C = 0xD3.
pub(crate) const POST_C: u8 = 0xd3;

/// `gf2p8affineqb` on one byte: output bit i is the parity of `x` and byte 7 − i of `a`.
pub(crate) const fn apply(a: u64, x: u8) -> u8 {
    let mut r = 0u8;
    let mut i = 0;
    while i < 8 {
        let row = (a >> (8 * (7 - i))) as u8;
        if (row & x).count_ones() & 1 == 1 {
            r |= 1 << i;
        }
        i += 1;
    }
    r
}

/// The matrix (Intel layout) of the bytewise linear map sending bit k to `img[k]`.
pub(crate) use shangmi_dispatch::bitslice::byte_matrix as matrix;

/// C_d: what L sends from byte i of a word to byte i + d (L = Σ_d rot_{8d} ∘ C_d; from its
/// rotations by 0, 2, 10, 18 and 24 bits). C_1 = C_2.
pub(crate) const fn l_part(d: usize, v: u8) -> u8 {
    match d {
        0 => v ^ (v << 2),
        1 | 2 => (v >> 6) ^ (v << 2),
        _ => (v >> 6) ^ v,
    }
}

/// P⁻¹ for P = [`PRE`] (invertible: T·A of two invertible maps).
pub(crate) const fn pre_inverse() -> u64 {
    let mut img = [0u8; 8];
    let mut k = 0;
    while k < 8 {
        let mut v = 0u16;
        while v < 256 {
            if apply(PRE, v as u8) == 1 << k {
                img[k] = v as u8;
            }
            v += 1;
        }
        k += 1;
    }
    matrix(img)
}

/// P⁻¹ as a matrix.
pub(crate) const PRE_INV: u64 = pre_inverse();
