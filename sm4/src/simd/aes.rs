//! The AES-instruction S-box technique, generic over the register type: SM4's S-box is
//! A·inv(A·x + 0xD3) + 0xD3 over GF(2^8) mod 0x1F5 (Liu et al., ACISP 2007); a field
//! isomorphism T into the AES field turns it into an affine map, the AES S-box (whose own
//! affine map is undone afterwards) and another affine map — the idea of Saarinen's sm4ni
//! and the Linux sm4-aesni-avx code. The affine maps are two 16-entry nibble tables each,
//! applied by byte shuffles inside registers (`pshufb` / `tbl`), so nothing is looked up
//! in memory. Constants from `tools/derive_sbox.py`; the tests check all 256 bytes.

use super::{Sbox, Word, generic_rounds};
use crate::key::RoundKeys;

/// The S-box through an AES last round: affine maps as nibble tables, the AES round with
/// a zero key for the field inversion (after undoing its ShiftRows in advance).
pub(crate) struct AesSbox;

/// x -> T·A·x + T·0xD3, low and high nibble halves.
const AES_PRE_LO: u128 = u128::from_le_bytes([
    0x00, 0x8c, 0x30, 0xbc, 0x85, 0x09, 0xb5, 0x39, 0x9f, 0x13, 0xaf, 0x23, 0x1a, 0x96, 0x2a, 0xa6,
]);
const AES_PRE_HI: u128 = u128::from_le_bytes([
    0x3e, 0xe2, 0x10, 0xcc, 0xfb, 0x27, 0xd5, 0x09, 0x36, 0xea, 0x18, 0xc4, 0xf3, 0x2f, 0xdd, 0x01,
]);
/// y -> M·y + M·0x63 + 0xD3 with M = A·T^-1·A_aes^-1 (undoes AES's own affine map).
const AES_POST_LO: u128 = u128::from_le_bytes([
    0x00, 0xb8, 0xca, 0x72, 0x3e, 0x86, 0xf4, 0x4c, 0x67, 0xdf, 0xad, 0x15, 0x59, 0xe1, 0x93, 0x2b,
]);
const AES_POST_HI: u128 = u128::from_le_bytes([
    0x6c, 0x8c, 0x3c, 0xdc, 0xf1, 0x11, 0xa1, 0x41, 0xac, 0x4c, 0xfc, 0x1c, 0x31, 0xd1, 0x61, 0x81,
]);
/// InvShiftRows as a `pshufb` index, so AESENCLAST's ShiftRows leaves bytes in place.
pub(crate) const INV_SHIFT_ROWS: u128 =
    u128::from_le_bytes([0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3]);
const LOW_NIBBLES: u128 = 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f;

/// One AES last-round step with an all-zero round key on every 128-bit lane: x86
/// AESENCLAST or arm64 AESE, both ShiftRows(SubBytes(x)).
pub(crate) trait AesLast: Word {
    /// ShiftRows(SubBytes(x)) per 128-bit lane.
    fn aes_last(self) -> Self;
    /// The 32 rounds on `N` groups in the P domain with the chain's `MixColumns` round
    /// (`super::aes_chain::group_rounds`), if this register runs AESENC and the pass is
    /// one it shortens; `false`, with nothing done, otherwise.
    #[inline(always)]
    fn mix_rounds<const N: usize>(
        _cpu: Self::Cpu,
        _rk: &RoundKeys,
        _x: &mut [[Self; 4]; N],
    ) -> bool {
        false
    }
}

/// The CBC chain's `MixColumns` round (`super::aes_chain`) as one fixed instruction
/// sequence.
#[cfg(target_arch = "x86_64")]
pub(crate) trait AesMix: Word {
    /// `others ⊕ R(AESENC(u)) ⊕ (1 ⊕ rot24)(Q(AESENCLAST(u)))` for u = `self`, with zero
    /// round keys, R and Q applied to each byte by nibble tables: `t` is the low-nibble
    /// mask and R's and Q's low and high tables. `others` = `partial` ⊕ `y_i` with
    /// `partial` = `ahead` ⊕ `word`, `word` = u ⊕ `pending` (the chain's bookkeeping, see
    /// `super::aes_chain::Round::step`); returns `[the result, word, partial]`.
    fn mix_round(self, pending: Self, ahead: Self, y_i: Self, t: &[Self; 5]) -> [Self; 3];
    /// Lane j of `y[j]` in lane j (blends, which run on every vector pipe, where unpacks
    /// take the shuffle pipes the chain's critical path needs).
    fn blend_words(y: &[Self; 4]) -> Self;
    /// `self ⊕ b` in an `asm!` of its own, which the compiler does not reassociate.
    fn xor_kept(self, b: Self) -> Self;
}

/// An affine map given by its nibble tables.
#[inline(always)]
fn nibble_affine<W: Word>(x: W, lo: u128, hi: u128) -> W {
    let cpu = x.cpu();
    let mask = W::bcast128(cpu, LOW_NIBBLES);
    W::bcast128(cpu, lo)
        .shuffle(x.and(mask))
        .xor(W::bcast128(cpu, hi).shuffle(x.shr4().and(mask)))
}

impl<W: AesLast> Sbox<W> for AesSbox {
    #[inline(always)]
    fn sbox(x: W) -> W {
        let y =
            nibble_affine(x, AES_PRE_LO, AES_PRE_HI).shuffle(W::bcast128(x.cpu(), INV_SHIFT_ROWS));
        nibble_affine(y.aes_last(), AES_POST_LO, AES_POST_HI)
    }
    /// [`mix_or_generic`].
    #[inline(always)]
    fn rounds<const N: usize>(cpu: W::Cpu, rk: &RoundKeys, x: &mut [[W; 4]; N]) {
        mix_or_generic::<W, Self, N>(cpu, rk, x);
    }
}

/// The rounds of an AES-instruction S-box `S`: [`AesLast::mix_rounds`] where the register
/// has it (x86's 128-bit registers, one or two groups), else as every S-box.
#[inline(always)]
fn mix_or_generic<W: AesLast, S: Sbox<W>, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    x: &mut [[W; 4]; N],
) {
    if !W::mix_rounds(cpu, rk, x) {
        generic_rounds::<W, S, N>(cpu, rk, x);
    }
}

/// [`AesSbox`] for registers whose four 32-bit lanes are equal, as in the single-block
/// path (`crate::simd::Single::lanes`): ShiftRows moves byte r of column c to column
/// c - r, which holds the same byte, so it is the identity there and the InvShiftRows
/// shuffle is dropped from the latency chain.
pub(crate) struct AesSboxBroadcast;

impl<W: AesLast> Sbox<W> for AesSboxBroadcast {
    #[inline(always)]
    fn sbox(x: W) -> W {
        let y = nibble_affine(x, AES_PRE_LO, AES_PRE_HI);
        nibble_affine(y.aes_last(), AES_POST_LO, AES_POST_HI)
    }
    /// [`mix_or_generic`], as [`AesSbox`]'s (its InvShiftRows changes nothing on equal
    /// words).
    #[inline(always)]
    fn rounds<const N: usize>(cpu: W::Cpu, rk: &RoundKeys, x: &mut [[W; 4]; N]) {
        mix_or_generic::<W, Self, N>(cpu, rk, x);
    }
}
