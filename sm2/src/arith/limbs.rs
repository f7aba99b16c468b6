//! 256-bit integers as four little-endian 64-bit limbs: the arithmetic of `shangmi-limbs`
//! (carry chains, constant-time selection, Montgomery multiplication), which SM9's fields
//! share, and here the conversion from and to `crypto-bigint`'s words. `build.rs` includes
//! this file to generate the fixed-base tables with the same arithmetic as the library.

use primefield::bigint::Word;
pub use shangmi_limbs::{
    Limbs, adc, add, add_mod, eq_mask, from_be_bytes, is_zero_mask, lt_mask, mont_minv, mont_mul,
    mont_r2, mul_wide, reduce_once, sbb, select, square_wide, sub, sub_mod, to_be_bytes,
};

/// `crypto-bigint`'s words of a 256-bit integer (64-bit words on 64-bit targets and some
/// 32-bit ones, such as Arm; 32-bit words elsewhere), least significant first.
pub type Words = [Word; 256 / Word::BITS as usize];

/// Words per limb: 1 or 2.
const PER_LIMB: usize = 64 / Word::BITS as usize;

/// The limbs of a `crypto-bigint` integer's words (the same array when words are 64-bit).
#[allow(clippy::unnecessary_cast)] // the casts matter where words are 32-bit
#[inline(always)]
pub const fn from_words(w: Words) -> Limbs {
    let mut r = [0u64; 4];
    let mut i = 0;
    while i < 4 {
        let mut j = 0;
        while j < PER_LIMB {
            r[i] |= (w[i * PER_LIMB + j] as u64) << (j as u32 * Word::BITS);
            j += 1;
        }
        i += 1;
    }
    r
}

/// Limbs as a `crypto-bigint` integer's words (the same array when words are 64-bit).
#[allow(clippy::unnecessary_cast)] // the casts matter where words are 32-bit
#[inline(always)]
pub const fn to_words(l: Limbs) -> Words {
    let mut w = [0 as Word; 256 / Word::BITS as usize];
    let mut i = 0;
    while i < 4 {
        let mut j = 0;
        while j < PER_LIMB {
            w[i * PER_LIMB + j] = (l[i] >> (j as u32 * Word::BITS)) as Word;
            j += 1;
        }
        i += 1;
    }
    w
}
