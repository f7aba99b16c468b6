//! The x86-64 AES-NI engine: the eight S-box bytes of one F call in one XMM register.
//!
//! * S1 = L(SubBytes(phi(x)) ^ 0x63) ^ 0x55: phi maps S1's field into the AES field,
//!   `aesenclast` does SubBytes (in [`sbox_pair`] the input pre-permuted by the inverse of
//!   ShiftRows so every byte ends where it started; F's loop needs no such shuffle, see
//!   `aesni_loop!`), and L = (A·phi^-1)·A_aes^-1; phi and L run as pairs of
//!   16-entry nibble tables (`pshufb`). The technique is intel-ipsec-mb's; the constants come
//!   from `tools/derive_sbox.py`, which checks them against the specification's S1.
//! * S0 with the nibble decomposition (P1, P2, P3, then the rotation folded into two more
//!   nibble tables), each a `pshufb` lookup.
//!
//! * The MACs' per-bit window sums as one carry-less multiplication per tag word, summed
//!   over sixteen message words in vector registers before the tag bits are taken
//!   ([`aesni_mac16`]).
//! * F's loop ([`aesni_rounds16`], one `asm!` block of sixteen rounds): R1 and R2 stay in
//!   one XMM register from round to round, L1 and L2 run side by side on it, and only W
//!   and the LFSR use general registers.
//!
//! The GFNI engine (`zuc-gfni-avx512`, [`gfni_sbox_pair`]) computes the same S-boxes with
//! fewer dependent steps: S1 = M·phi(x)^-1 + 0x55 is one `gf2p8affineqb` (phi) and one
//! `gf2p8affineinvqb` (the AES-field inverse, then M = L·A_aes and the constant), both
//! matrices derived below from the nibble tables; S0 is a 256-byte table held in four
//! AVX-512 registers and read by two `vpermi2b` (bytes 0..127 and 128..255) and a selection
//! on bit 7.
//!
//! `pshufb`, `vpermi2b` and the affine instructions look up registers, not memory, so no
//! memory address depends on data. The kernel tokens prove the features: [`AesniSse`]
//! (AES-NI, SSSE3, SSE4.1, PCLMULQDQ) and [`GfniAvx512`] (those and GFNI,
//! AVX-512F/BW/VL/VBMI/VBMI2, VPCLMULQDQ, BMI1, BMI2) are made only from an `Available`
//! backend of their kind, whose probe (`shangmi-dispatch`) found them.

use core::arch::{asm, x86_64::*};

use crate::{
    Backend,
    engine::Kernel,
    generic::{Engine, Ops, State},
};

shangmi_dispatch::kernel_token! {
    /// `zuc-aesni`: AES-NI, SSSE3, SSE4.1 and PCLMULQDQ.
    pub(crate) struct AesniSse = Backend::AesniSse;
}

shangmi_dispatch::kernel_token! {
    /// `zuc-gfni-avx512`: GFNI, AVX-512 (F, BW, VL, VBMI, VBMI2), VPCLMULQDQ, BMI1, BMI2,
    /// AES-NI, SSSE3, SSE4.1 and PCLMULQDQ.
    pub(crate) struct GfniAvx512 = Backend::GfniAvx512;
}

pub(crate) const PHI_LO: [u8; 16] = [
    0x00, 0x01, 0x32, 0x33, 0x73, 0x72, 0x41, 0x40, 0x75, 0x74, 0x47, 0x46, 0x06, 0x07, 0x34, 0x35,
];
pub(crate) const PHI_HI: [u8; 16] = [
    0x00, 0xd9, 0xe8, 0x31, 0xcd, 0x14, 0x25, 0xfc, 0x2d, 0xf4, 0xc5, 0x1c, 0xe0, 0x39, 0x08, 0xd1,
];
pub(crate) const L_LO: [u8; 16] = [
    0x55, 0x1a, 0xc5, 0x8a, 0x1e, 0x51, 0x8e, 0xc1, 0x62, 0x2d, 0xf2, 0xbd, 0x29, 0x66, 0xb9, 0xf6,
];
pub(crate) const L_HI: [u8; 16] = [
    0x00, 0x34, 0x42, 0x76, 0x36, 0x02, 0x74, 0x40, 0x66, 0x52, 0x24, 0x10, 0x50, 0x64, 0x12, 0x26,
];
pub(crate) const INV_SHIFT_ROWS: [u8; 16] = [0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3];
/// P1, P2, P3 of S0's decomposition; ROT_T2 | ROT_T3 = rotl8(t3 << 4 | t2, 5).
pub(crate) const P1: [u8; 16] = [9, 15, 0, 14, 15, 15, 2, 10, 0, 4, 0, 12, 7, 5, 3, 9];
pub(crate) const P2: [u8; 16] = [8, 13, 6, 5, 7, 0, 12, 4, 11, 1, 14, 10, 15, 3, 9, 2];
pub(crate) const P3: [u8; 16] = [2, 6, 10, 6, 0, 13, 10, 15, 3, 3, 13, 5, 0, 9, 12, 13];
pub(crate) const ROT_T2: [u8; 16] = [
    0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0, 0x01, 0x21, 0x41, 0x61, 0x81, 0xa1, 0xc1, 0xe1,
];
pub(crate) const ROT_T3: [u8; 16] = [
    0x00, 0x02, 0x04, 0x06, 0x08, 0x0a, 0x0c, 0x0e, 0x10, 0x12, 0x14, 0x16, 0x18, 0x1a, 0x1c, 0x1e,
];

/// A constant vector (folds into one load of a constant).
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1,pclmulqdq")]
pub(crate) fn v(t: [u8; 16]) -> __m128i {
    _mm_set_epi8(
        t[15] as i8,
        t[14] as i8,
        t[13] as i8,
        t[12] as i8,
        t[11] as i8,
        t[10] as i8,
        t[9] as i8,
        t[8] as i8,
        t[7] as i8,
        t[6] as i8,
        t[5] as i8,
        t[4] as i8,
        t[3] as i8,
        t[2] as i8,
        t[1] as i8,
        t[0] as i8,
    )
}

/// The low and high nibbles of every byte.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1,pclmulqdq")]
fn nibbles(x: __m128i) -> (__m128i, __m128i) {
    let mask = _mm_set1_epi8(0x0f);
    (
        _mm_and_si128(x, mask),
        _mm_and_si128(_mm_srli_epi16::<4>(x), mask),
    )
}

/// S = (S0, S1, S0, S1) on `u` and `v`, as `crate::sbox::sbox_pair`.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1,pclmulqdq")]
fn sbox_pair(u: u32, w: u32) -> (u32, u32) {
    let out = sbox_vec(_mm_cvtsi64_si128(
        ((u64::from(u) << 32) | u64::from(w)) as i64,
    ));
    let out = _mm_cvtsi128_si64(out) as u64;
    ((out >> 32) as u32, out as u32)
}

/// S = (S0, S1, S0, S1) on each 32-bit lane of `x` (lanes 0 and 1 are the ones
/// [`sbox_pair`] and [`aesni_rounds16`] read).
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1,pclmulqdq")]
fn sbox_vec(x: __m128i) -> __m128i {
    let (lo, hi) = nibbles(x);
    // S1 on every byte.
    let y = _mm_xor_si128(
        _mm_shuffle_epi8(v(PHI_LO), lo),
        _mm_shuffle_epi8(v(PHI_HI), hi),
    );
    let y = _mm_shuffle_epi8(y, v(INV_SHIFT_ROWS));
    let y = _mm_aesenclast_si128(y, _mm_set1_epi8(0x63));
    let (ylo, yhi) = nibbles(y);
    let s1 = _mm_xor_si128(
        _mm_shuffle_epi8(v(L_LO), ylo),
        _mm_shuffle_epi8(v(L_HI), yhi),
    );
    // S0 on every byte.
    let t1 = _mm_xor_si128(_mm_shuffle_epi8(v(P1), lo), hi);
    let t2 = _mm_xor_si128(_mm_shuffle_epi8(v(P2), t1), lo);
    let t3 = _mm_xor_si128(_mm_shuffle_epi8(v(P3), t2), t1);
    let s0 = _mm_or_si128(
        _mm_shuffle_epi8(v(ROT_T2), t2),
        _mm_shuffle_epi8(v(ROT_T3), t3),
    );
    // S0 on bytes 1, 3, 5, 7 (the high byte of each 16-bit half), S1 on the others.
    _mm_blendv_epi8(s1, s0, _mm_set1_epi16(0xff00_u16 as i16))
}

/// The scalar part of a round shared by `aesni_loop!` and `gfni_loop!`, as template lines:
/// `@key`, the key word Z = W ^ X3 (X3 = s2L || s0H) stored big-endian at `out` (nothing in
/// initialisation); `@lfsr`, s16 = (1 + 2^8) s0 + 2^20 s4 + 2^21 s10 + 2^17 s13 + 2^15 s15
/// (+ W >> 1 in initialisation) mod 2^31 - 1, a 64-bit sum folded twice (2^31 = 1) by
/// `$fold` (z = y mod 2^31, y = y >> 31), with s15 from the register `last` and s16 written
/// over s0 and into `last`.
macro_rules! zuc_scalar {
    (@key true) => { "/* {out} */" };
    (@key false) => {
        "mov {x:e}, dword ptr [{p} + ((zuc_round + 2) % 16) * 4]
         mov {y:e}, dword ptr [{p} + ((zuc_round + 0) % 16) * 4]
         add {y:e}, {y:e}
         shld {x:e}, {y:e}, 16
         xor {x:e}, {w:e}
         bswap {x:e}
         mov dword ptr [{out} + zuc_round * 4], {x:e}"
    };
    (@lfsr $init:tt, $fold:literal) => {
        concat!(
            "mov {y:e}, dword ptr [{p} + ((zuc_round + 0) % 16) * 4]
             imul {y}, {y}, 257
             mov {z:e}, dword ptr [{p} + ((zuc_round + 10) % 16) * 4]
             mov {x:e}, dword ptr [{p} + ((zuc_round + 4) % 16) * 4]
             lea {z}, [{x} + 2 * {z}]
             shl {z}, 20
             add {y}, {z}
             ",
            $crate::x86::zuc_scalar!(@init $init),
            "
             mov {z:e}, dword ptr [{p} + ((zuc_round + 13) % 16) * 4]
             lea {z}, [{last} + 4 * {z}]
             shl {z}, 15
             add {y}, {z}
             ",
            $fold,
            "
             add {y}, {z}
             ",
            $fold,
            "
             add {y:e}, {z:e}
             mov dword ptr [{p} + ((zuc_round + 0) % 16) * 4], {y:e}
             mov {last:e}, {y:e}"
        )
    };
    (@init true) => { "shr {w:e}, 1\n add {y}, {w}" };
    (@init false) => { "/* {w} */" };
}
pub(crate) use zuc_scalar;

/// Sixteen rounds as one `asm!` block (`.rept`): the engine's template lines for F and the
/// vector half of the round (`[$($body),*]`, with its own operands), then the key word and
/// the LFSR's next cell (`zuc_scalar!`, folding by `$fold`). Round i reads cell s_j at
/// `p + 4((i + j) mod 16)` and writes s_16 over s_0, so after sixteen rounds the cells are
/// in order again; `last` holds s15 from one round to the next; `x`, `y`, `z` and `w`
/// (W) are the general registers the template lines share. `$init`: add W >> 1 into the
/// LFSR sum and write no key word; otherwise the big-endian key word at `out`, advanced by
/// 4 a round.
macro_rules! zuc_rounds_asm {
    (
        $init:tt, $p:ident, $out:ident, $last:ident, $fold:literal, [$($body:expr),* $(,)?],
        $($operands:tt)*
    ) => {
        // SAFETY: reads and writes the 16 cells at `$p` (indices below 16) and writes (not
        // in initialisation) bytes 0..64 of `$out`, both exclusive borrows of 64 bytes; the
        // template lines of `$body` read only the statics their caller names beside its
        // call and the registers of `$operands`, with instructions of the features its
        // caller (a `target_feature` function proved by a kernel token) enabled.
        unsafe {
            asm!(
                ".set zuc_round, 0",
                ".rept 16",
                $($body,)*
                $crate::x86::zuc_scalar!(@key $init),
                $crate::x86::zuc_scalar!(@lfsr $init, $fold),
                ".set zuc_round, zuc_round + 1",
                ".endr",
                p = in(reg) $p,
                out = in(reg) $out,
                last = inout(reg) $last,
                x = out(reg) _,
                y = out(reg) _,
                z = out(reg) _,
                w = out(reg) _,
                $($operands)*
            )
        }
    };
}
pub(crate) use zuc_rounds_asm;

/// A 16-byte constant, aligned for the SSE memory operands of `aesni_loop!`.
#[repr(C, align(16))]
struct Xmm([u8; 16]);

/// The constants `aesni_loop!` reads from memory: the S-boxes' nibble tables, AESENCLAST's
/// round key, and the byte shuffles of L1 and L2 (a rotation of a 32-bit lane by 8k bits
/// moves byte j to byte j + k mod 4).
mod aesni_k {
    use super::Xmm;
    pub(super) static PHI_LO: Xmm = Xmm(super::PHI_LO);
    pub(super) static PHI_HI: Xmm = Xmm(super::PHI_HI);
    pub(super) static L_LO: Xmm = Xmm(super::L_LO);
    pub(super) static L_HI: Xmm = Xmm(super::L_HI);
    pub(super) static P1: Xmm = Xmm(super::P1);
    pub(super) static P2: Xmm = Xmm(super::P2);
    pub(super) static P3: Xmm = Xmm(super::P3);
    pub(super) static ROT_T2: Xmm = Xmm(super::ROT_T2);
    pub(super) static ROT_T3: Xmm = Xmm(super::ROT_T3);
    pub(super) static K63: Xmm = Xmm([0x63; 16]);
    /// [W2, W1, W2, W1] to [u, u, v, v], u = W1L || W2H, v = W2L || W1H.
    pub(super) static UUVV: Xmm = Xmm([2, 3, 4, 5, 2, 3, 4, 5, 6, 7, 0, 1, 6, 7, 0, 1]);
    /// [W2, W1, …] to [v, u, v, u] and to [v <<< 8, u <<< 24, …].
    pub(super) static VU: Xmm = Xmm([6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5]);
    pub(super) static VU_8_24: Xmm = Xmm([1, 6, 7, 0, 3, 4, 5, 2, 1, 6, 7, 0, 3, 4, 5, 2]);
    /// `[_, u <<< 2, v <<< 30, _]` to `[b, a, b, a]`, `[b <<< 16, a <<< 8, …]` and
    /// `[b <<< 24, a <<< 16, …]` with a = u <<< 2, b = v <<< 30.
    pub(super) static BA: Xmm = Xmm([8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11, 4, 5, 6, 7]);
    pub(super) static BA_16_8: Xmm = Xmm([10, 11, 8, 9, 7, 4, 5, 6, 10, 11, 8, 9, 7, 4, 5, 6]);
    pub(super) static BA_24_16: Xmm = Xmm([9, 10, 11, 8, 6, 7, 4, 5, 9, 10, 11, 8, 6, 7, 4, 5]);
}

/// The sixteen rounds of [`aesni_rounds16`] as one `asm!` block (`.rept`, as
/// `gfni_loop!`; with intrinsics LLVM packed the LFSR's cells into vector registers and
/// moved them out with extracts). R1 and R2 live in one XMM register as [R2, R1, R2, R1]:
/// * [W2, W1, W2, W1] is an add, an XOR and a blend with [X2, X1, X2, X1]; one shuffle
///   makes [u, u, v, v] (u = W1L || W2H, v = W2L || W1H), whose 64-bit halves shifted left
///   and right by 2 give a = u <<< 2 and b = v <<< 30 side by side (a blend);
///   L1(u) = u ^ (u <<< 24) ^ a ^ (a <<< 8) ^ (a <<< 16) and
///   L2(v) = v ^ (v <<< 8) ^ b ^ (b <<< 16) ^ (b <<< 24) are then shuffles and XORs, laid
///   out as [L2, L1, L2, L1].
/// * With both halves alike, AESENCLAST's ShiftRows leaves rows 0 and 2 — S1's bytes —
///   where they were (byte 2 comes from byte 10, its copy), so S1 needs no pre-shuffle;
///   S0's bytes (rows 1 and 3) come from its own tables and `pblendvb` (mask in XMM0).
///
/// The cells, the key words and `$init` as `zuc_rounds_asm!` says.
macro_rules! aesni_loop {
    ($init:tt, $p:ident, $out:ident, $r:ident, $last:ident) => {
        // The template's memory operands beyond the cells and `$out`: the 16-byte aligned
        // statics of `aesni_k`. Features: AES-NI, SSSE3, SSE4.1 (the caller's).
        $crate::x86::zuc_rounds_asm!(
            $init,
            $p,
            $out,
            $last,
            "mov {z:e}, {y:e}\n and {z:e}, 0x7fffffff\n shr {y}, 31",
            [
                // X1 = s11H || s9L and X2 = s7L || s5H as [X2, X1, X2, X1].
                "mov {x:e}, dword ptr [{p} + ((zuc_round + 11) % 16) * 4]",
                "mov {y:e}, dword ptr [{p} + ((zuc_round + 9) % 16) * 4]",
                "add {y:e}, {y:e}",
                "shld {x:e}, {y:e}, 16",
                "mov {z:e}, dword ptr [{p} + ((zuc_round + 7) % 16) * 4]",
                "mov {y:e}, dword ptr [{p} + ((zuc_round + 5) % 16) * 4]",
                "add {y:e}, {y:e}",
                "shld {z:e}, {y:e}, 16",
                "shl {x}, 32",
                "or {x}, {z}",
                "movq {xv}, {x}",
                "punpcklqdq {xv}, {xv}",
                // W = (X0 ^ R1) + R2, X0 = s15H || s14L, with the registers' old values.
                "movq {z}, {f}",
                "mov {y:e}, {z:e}",
                "shr {z}, 32",
                "mov {w:e}, {last:e}",
                "and {w:e}, 0x7fff8000",
                "add {w:e}, {w:e}",
                "movzx {x:e}, word ptr [{p} + ((zuc_round + 14) % 16) * 4]",
                "or {w:e}, {x:e}",
                "xor {w:e}, {z:e}",
                "add {w:e}, {y:e}",
                // [W2, W1, W2, W1] with W1 = R1 + X1, W2 = R2 ^ X2.
                "movdqa {a}, {f}",
                "paddd {a}, {xv}",
                "pxor {f}, {xv}",
                "pblendw {a}, {f}, 0x33",
                // L2 and L1 as [L2, L1, L2, L1] (the macro's comment).
                "movdqa {b}, {a}",
                "pshufb {b}, xmmword ptr [rip + {uuvv}]",
                "movdqa {c}, {b}",
                "psllq {b}, 2",
                "psrlq {c}, 2",
                "pblendw {b}, {c}, 0xf0",
                "movdqa {c}, {a}",
                "pshufb {c}, xmmword ptr [rip + {vu}]",
                "pshufb {a}, xmmword ptr [rip + {vu_8_24}]",
                "pxor {a}, {c}",
                "movdqa {c}, {b}",
                "movdqa {d}, {b}",
                "pshufb {b}, xmmword ptr [rip + {ba}]",
                "pshufb {c}, xmmword ptr [rip + {ba_16_8}]",
                "pshufb {d}, xmmword ptr [rip + {ba_24_16}]",
                "pxor {a}, {b}",
                "pxor {c}, {d}",
                "pxor {a}, {c}",
                // The nibbles: a low, b high.
                "movdqa {b}, {a}",
                "psrlw {b}, 4",
                "pand {a}, {m}",
                "pand {b}, {m}",
                // S1 up to SubBytes: phi by two nibble tables, then AESENCLAST.
                "movdqa {c}, xmmword ptr [rip + {phi_lo}]",
                "pshufb {c}, {a}",
                "movdqa {d}, xmmword ptr [rip + {phi_hi}]",
                "pshufb {d}, {b}",
                "pxor {c}, {d}",
                "aesenclast {c}, xmmword ptr [rip + {k63}]",
                // S0 beside it: t1 = P1[lo] ^ hi, t2 = P2[t1] ^ lo, t3 = P3[t2] ^ t1,
                // S0 = ROT_T2[t2] | ROT_T3[t3].
                "movdqa {d}, xmmword ptr [rip + {p1}]",
                "pshufb {d}, {a}",
                "pxor {d}, {b}",
                "movdqa {b}, xmmword ptr [rip + {p2}]",
                "pshufb {b}, {d}",
                "pxor {b}, {a}",
                "movdqa {a}, xmmword ptr [rip + {p3}]",
                "pshufb {a}, {b}",
                "pxor {a}, {d}",
                "movdqa {d}, xmmword ptr [rip + {rot_t2}]",
                "pshufb {d}, {b}",
                "movdqa {b}, xmmword ptr [rip + {rot_t3}]",
                "pshufb {b}, {a}",
                "por {d}, {b}",
                // S1's map out of the AES field by two nibble tables; S0 on bytes 1 and 3.
                "movdqa {a}, {c}",
                "psrlw {a}, 4",
                "pand {c}, {m}",
                "pand {a}, {m}",
                "movdqa {f}, xmmword ptr [rip + {l_lo}]",
                "pshufb {f}, {c}",
                "movdqa {b}, xmmword ptr [rip + {l_hi}]",
                "pshufb {b}, {a}",
                "pxor {f}, {b}",
                "pblendvb {f}, {d}, xmm0",
            ],
            f = inout(xmm_reg) $r,
            m = in(xmm_reg) _mm_set1_epi8(0x0f),
            in("xmm0") _mm_set1_epi16(0xff00_u16 as i16),
            xv = out(xmm_reg) _,
            a = out(xmm_reg) _,
            b = out(xmm_reg) _,
            c = out(xmm_reg) _,
            d = out(xmm_reg) _,
            phi_lo = sym aesni_k::PHI_LO,
            phi_hi = sym aesni_k::PHI_HI,
            l_lo = sym aesni_k::L_LO,
            l_hi = sym aesni_k::L_HI,
            p1 = sym aesni_k::P1,
            p2 = sym aesni_k::P2,
            p3 = sym aesni_k::P3,
            rot_t2 = sym aesni_k::ROT_T2,
            rot_t3 = sym aesni_k::ROT_T3,
            k63 = sym aesni_k::K63,
            uuvv = sym aesni_k::UUVV,
            vu = sym aesni_k::VU,
            vu_8_24 = sym aesni_k::VU_8_24,
            ba = sym aesni_k::BA,
            ba_16_8 = sym aesni_k::BA_16_8,
            ba_24_16 = sym aesni_k::BA_24_16,
            options(nostack),
        );
    };
}

/// Sixteen rounds (`Ops::rounds16`) with F in one XMM register (`aesni_loop!`); W and the
/// LFSR stay in general registers beside it.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1,pclmulqdq")]
fn aesni_rounds16<const INIT: bool>(state: &mut State, out: &mut [[u8; 4]; 16]) {
    let (s, r1s, r2s) = state.parts();
    // The newest cell (s15), kept in a register from one round to the next.
    let mut last = u64::from(s[15]);
    let p: *mut u32 = s.as_mut_ptr();
    let o: *mut [u8; 4] = out.as_mut_ptr();
    let (r1, r2) = (*r1s as i32, *r2s as i32);
    let mut r = _mm_setr_epi32(r2, r1, r2, r1);
    if INIT {
        aesni_loop!(true, p, o, r, last);
    } else {
        aesni_loop!(false, p, o, r, last);
    }
    let _ = last;
    *r1s = _mm_extract_epi32::<1>(r) as u32;
    *r2s = _mm_cvtsi128_si32(r) as u32;
}

/// P_j = z_j || z_{j+1}, j < 20: the 64-bit keystream windows the sixteen-word MAC steps
/// multiply.
#[inline(always)]
fn window_pairs(z: &[u32; 21]) -> [u64; 20] {
    core::array::from_fn(|j| (u64::from(z[j]) << 32) | u64::from(z[j + 1]))
}

/// The MAC steps for sixteen message words (`Ops::mac_sum16`) on the AES-NI engine, as one
/// polynomial product. As [`mac_word`], tag word w gets bits 32..64 of
/// sum_i a_i · (z_{i+w} x^32 + z_{i+w+1}) (a_i = rev(m_i), carry-less), that is bits 0..32
/// of S_w and bits 32..64 of S_{w+1}, with S_d = sum_i a_i · z_{i+d}. In the product of
/// A = sum_i a_i x^(32i) and Z = sum_j z_j x^(32(21 - j)), the pair (i, j) lands at
/// x^(32(21 - (j - i))), so S_d sits at 32(21 - d) and tag word w is exactly the 32 bits at
/// 32(21 - w): nothing else reaches them (S_{w-1} starts above, S_{w+2} ends below). The
/// tag words are then bits 576..704 of A·Z, the 64-bit chunks 9 and 10, and with A and Z
/// cut into 64-bit chunks (A_k = a_{2k} || a_{2k+1}, Z_l = z_{21-2l} || z_{20-2l}) only the
/// products A_k·Z_l with k + l in 8..=10 reach them: 24 carry-less products for four tag
/// words, 16 for one or two (where word by word takes 16 per tag word). rev(m_i), read
/// little-endian, is the message bytes with the bits of each byte reversed (two nibble-table
/// lookups), so the block's bytes give A's chunks in order; Z's are unaligned loads with the
/// words reversed.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1,pclmulqdq")]
fn aesni_mac16<const N: usize>(tag: &mut [u32; N], z: &[u32; 21], block: &[[u8; 4]; 16]) {
    const { assert!(N <= 4) };
    let low = _mm_set1_epi8(0x0f);
    // [A_{2q}, A_{2q+1}] for q < 4.
    let a: [__m128i; 4] = core::array::from_fn(|q| {
        // SAFETY: 16 bytes, the four words `block[4q..4q + 4]`; unaligned load.
        let m = unsafe { _mm_loadu_si128(block[4 * q..4 * q + 4].as_ptr().cast()) };
        let (lo, hi) = (
            _mm_and_si128(m, low),
            _mm_and_si128(_mm_srli_epi16::<4>(m), low),
        );
        _mm_or_si128(
            _mm_shuffle_epi8(v(REV_LO), lo),
            _mm_shuffle_epi8(v(REV_HI), hi),
        )
    });
    // [Z_{2p+1}, Z_{2p+2}] for p < 5: z[16 - 4p..20 - 4p] reversed.
    let zs: [__m128i; 5] = core::array::from_fn(|p| {
        // SAFETY: 16 bytes, the four words `z[16 - 4p..20 - 4p]` (p < 5); unaligned load.
        let x = unsafe { _mm_loadu_si128(z[16 - 4 * p..20 - 4 * p].as_ptr().cast()) };
        _mm_shuffle_epi32::<0x1b>(x)
    });
    // sum_k A_k · Z_{s-k}, 128 bits.
    let diagonal = |s: usize| {
        let mut sum = _mm_setzero_si128();
        for k in 0..8 {
            let (x, y) = (a[k / 2], zs[(s - k - 1) / 2]);
            let product = match (k % 2, (s - k - 1) % 2) {
                (0, 0) => _mm_clmulepi64_si128::<0x00>(x, y),
                (0, _) => _mm_clmulepi64_si128::<0x10>(x, y),
                (_, 0) => _mm_clmulepi64_si128::<0x01>(x, y),
                _ => _mm_clmulepi64_si128::<0x11>(x, y),
            };
            sum = _mm_xor_si128(sum, product);
        }
        sum
    };
    let d9 = diagonal(9);
    // [chunk 9, chunk 10] as 32-bit words: tag word w is word 3 - w.
    let chunk10 = _mm_xor_si128(_mm_srli_si128::<8>(d9), diagonal(10));
    let chunk9 = if N > 2 {
        _mm_xor_si128(_mm_srli_si128::<8>(diagonal(8)), d9)
    } else {
        _mm_setzero_si128()
    };
    let chunks = _mm_unpacklo_epi64(chunk9, chunk10);
    let mut words = [0u32; 4];
    // SAFETY: 16 bytes into the 16-byte array `words`; unaligned store.
    unsafe { _mm_storeu_si128(words.as_mut_ptr().cast(), chunks) };
    for (w, t) in tag.iter_mut().enumerate() {
        *t ^= words[3 - w];
    }
}

/// A byte's bits reversed, by nibble: the low nibble n gives rev4(n) << 4, the high one
/// rev4(n).
const REV_LO: [u8; 16] = [
    0x00, 0x80, 0x40, 0xc0, 0x20, 0xa0, 0x60, 0xe0, 0x10, 0x90, 0x50, 0xd0, 0x30, 0xb0, 0x70, 0xf0,
];
const REV_HI: [u8; 16] = [
    0x00, 0x08, 0x04, 0x0c, 0x02, 0x0a, 0x06, 0x0e, 0x01, 0x09, 0x05, 0x0d, 0x03, 0x0b, 0x07, 0x0f,
];

/// The MAC step for one message word `m` whose bits after the message's end are cleared:
/// for every message bit j (most significant first) that is 1, XOR the 32-bit keystream
/// window starting j bits into key word w into tag word w. With
/// `P = window[w] || window[w + 1]`, that window is bits 32..64 of P << j, so the sum over
/// j is bits 32..64 of the carry-less product of P and m with its bits reversed.
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1,pclmulqdq")]
pub(crate) fn mac_word<const N: usize>(tag: &mut [u32; N], window: &[u32; 5], m: u32) {
    let a = _mm_cvtsi32_si128(m.reverse_bits() as i32);
    for (w, t) in tag.iter_mut().enumerate() {
        let p = (u64::from(window[w]) << 32) | u64::from(window[w + 1]);
        let prod = _mm_clmulepi64_si128::<0x00>(a, _mm_cvtsi64_si128(p as i64));
        *t ^= ((_mm_cvtsi128_si64(prod) as u64) >> 32) as u32;
    }
}

/// phi, S1's field into the AES field (the nibble tables' linear map).
const fn phi(x: u8) -> u8 {
    PHI_LO[(x & 15) as usize] ^ PHI_HI[(x >> 4) as usize]
}

/// M = L·A_aes: the map from the AES field's inverse to S1 (without S1's constant 0x55),
/// where A_aes is SubBytes' linear part and L the nibble tables' map back.
const fn s1_out(y: u8) -> u8 {
    let b = y ^ y.rotate_left(1) ^ y.rotate_left(2) ^ y.rotate_left(3) ^ y.rotate_left(4);
    L_LO[(b & 15) as usize] ^ L_HI[(b >> 4) as usize] ^ 0x55
}

/// The GF(2) matrix of a linear byte map given by its images of 1, 2, 4, …, 128, as
/// `gf2p8affineqb` takes it: row i (output bit i) in byte 7 - i, bit j of a row for input
/// bit j.
const fn matrix(images: [u8; 8]) -> i64 {
    shangmi_dispatch::bitslice::byte_matrix(images) as i64
}

/// The images of the basis under `f` (one list per map: `const fn` cannot take a function).
macro_rules! basis_images {
    ($f:ident) => {
        [$f(1), $f(2), $f(4), $f(8), $f(16), $f(32), $f(64), $f(128)]
    };
}

const PHI_MATRIX: i64 = matrix(basis_images!(phi));
const S1_OUT_MATRIX: i64 = matrix(basis_images!(s1_out));

/// S0 as a table, from the nibble decomposition (the tables `sbox_pair` looks up).
static S0_TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        let (h, l) = ((x >> 4) as u8, (x & 15) as u8);
        let t1 = P1[l as usize] ^ h;
        let t2 = P2[t1 as usize] ^ l;
        let t3 = P3[t2 as usize] ^ t1;
        t[x] = ROT_T2[t2 as usize] | ROT_T3[t3 as usize];
        x += 1;
    }
    t
};

/// S = (S0, S1, S0, S1) on `u` and `w` with GFNI and AVX-512 VBMI (see the module comment).
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512bw,avx512vbmi,aes,ssse3,sse4.1,pclmulqdq")]
pub(crate) fn gfni_sbox_pair(u: u32, w: u32) -> (u32, u32) {
    let x = _mm_cvtsi64_si128(((u64::from(u) << 32) | u64::from(w)) as i64);
    let s1 = _mm_gf2p8affineinv_epi64_epi8::<0x55>(
        _mm_gf2p8affine_epi64_epi8::<0>(x, _mm_set1_epi64x(PHI_MATRIX)),
        _mm_set1_epi64x(S1_OUT_MATRIX),
    );
    // SAFETY: each load reads 64 bytes inside the 256-byte table; unaligned loads.
    let [t0, t1, t2, t3] =
        [0, 64, 128, 192].map(|o| unsafe { _mm512_loadu_si512(S0_TABLE[o..].as_ptr().cast()) });
    let xz = _mm512_castsi128_si512(x);
    let low = _mm512_permutex2var_epi8(t0, xz, t1);
    let high = _mm512_permutex2var_epi8(t2, xz, t3);
    let s0 = _mm512_mask_blend_epi8(_mm512_movepi8_mask(xz), low, high);
    let s0 = _mm512_castsi512_si128(s0);
    // S0 on bytes 1, 3, 5, 7 (the high byte of each 16-bit half), S1 on the others.
    let out = _mm_blendv_epi8(s1, s0, _mm_set1_epi16(0xff00_u16 as i16));
    let out = _mm_cvtsi128_si64(out) as u64;
    ((out >> 32) as u32, out as u32)
}

/// The bytes where S0 applies in [R1, R1, R2, R2] (1, 3, 5, …), as a selection mask.
static S0_BYTES: [u16; 8] = [0xff00; 8];

/// The GFNI kernel's registers: S1's two matrices and S0's table.
#[derive(Clone, Copy)]
struct GfniConsts {
    phi: __m128i,
    out: __m128i,
    /// L1's rotations on lanes 0 and 1, L2's on lanes 2 and 3.
    rot: [__m128i; 4],
    s0: [__m512i; 4],
}

impl GfniConsts {
    #[inline]
    #[target_feature(enable = "gfni,avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2")]
    fn new() -> Self {
        Self {
            phi: _mm_set1_epi64x(PHI_MATRIX),
            out: _mm_set1_epi64x(S1_OUT_MATRIX),
            rot: [(2, 8), (10, 14), (18, 22), (24, 30)].map(|(a, b)| _mm_setr_epi32(a, a, b, b)),
            // SAFETY: each load reads 64 bytes inside the 256-byte table; unaligned loads.
            s0: [0, 64, 128, 192]
                .map(|o| unsafe { _mm512_loadu_si512(S0_TABLE[o..].as_ptr().cast()) }),
        }
    }
}

/// The sixteen rounds of [`gfni_rounds16`] as one `asm!` block, written out sixteen times
/// by the assembler (`.rept`; with intrinsics LLVM gathered the cells of several rounds into
/// vector registers with permutes, slower than the scalar loads). The cells, the key words
/// and `$init` as `zuc_rounds_asm!` says.
macro_rules! gfni_loop {
    ($init:tt, $p:ident, $out:ident, $r:ident, $c:ident, $last:ident) => {
        // The template's memory operands beyond the cells and `$out`: the 16 bytes of the
        // static `S0_BYTES`. Features: GFNI, AVX-512 F/BW/VL/VBMI/VBMI2, BMI1, BMI2 (the
        // caller's).
        $crate::x86::zuc_rounds_asm!(
            $init,
            $p,
            $out,
            $last,
            "andn {z}, {hi}, {y}\n shrx {y}, {y}, {c31}",
            [
                // X1 = s11H || s9L, X2 = s7L || s5H (bit reorganisation), broadcast;
                // W1 = R1 + X1, W2 = R2 ^ X2.
                // (X = hi << 16 | lo >> 15 as SHLD of hi and 2·lo: the cells have 31 bits.)
                "mov {x:e}, dword ptr [{p} + ((zuc_round + 11) % 16) * 4]",
                "mov {y:e}, dword ptr [{p} + ((zuc_round + 9) % 16) * 4]",
                "add {y:e}, {y:e}",
                "shld {x:e}, {y:e}, 16",
                "vpbroadcastd {x1:x}, {x:e}",
                "mov {x:e}, dword ptr [{p} + ((zuc_round + 7) % 16) * 4]",
                "mov {y:e}, dword ptr [{p} + ((zuc_round + 5) % 16) * 4]",
                "add {y:e}, {y:e}",
                "shld {x:e}, {y:e}, 16",
                "vpbroadcastd {x2:x}, {x:e}",
                "vpblendd {x1:x}, {x1:x}, {x2:x}, 0xc",
                // W = (X0 ^ R1) + R2 with the registers' old values, X0 = s15H || s14L.
                "vmovd {y:e}, {f:x}",
                "vpextrd {z:e}, {f:x}, 2",
                "mov {w:e}, {last:e}",
                "and {w:e}, 0x7fff8000",
                "add {w:e}, {w:e}",
                "movzx {x:e}, word ptr [{p} + ((zuc_round + 14) % 16) * 4]",
                "or {w:e}, {x:e}",
                "xor {w:e}, {y:e}",
                "add {w:e}, {z:e}",
                // [W1, W1, W2, W2] with W1 = R1 + X1, W2 = R2 ^ X2; with its halves swapped,
                // [u, u, v, v]: u = W1L || W2H, v = W2L || W1H.
                "vpaddd {a:x}, {f:x}, {x1:x}",
                "vpxord {b:x}, {f:x}, {x1:x}",
                "vpblendd {a:x}, {a:x}, {b:x}, 0xc",
                "vpshufd {b:x}, {a:x}, 0x4e",
                "vpshldd {u:x}, {a:x}, {b:x}, 16",
                // L1 on lanes 0, 1 and L2 on lanes 2, 3 (rotation counts per lane).
                "vprolvd {a:x}, {u:x}, {c1:x}",
                "vprolvd {b:x}, {u:x}, {c2:x}",
                "vpternlogd {a:x}, {u:x}, {b:x}, 0x96",
                "vprolvd {b:x}, {u:x}, {c3:x}",
                "vprolvd {u:x}, {u:x}, {c4:x}",
                "vpternlogd {u:x}, {a:x}, {b:x}, 0x96",
                // S: S1 by two affine steps, S0 by the table (bytes 0..127 and 128..255 by
                // bit 7), S0 kept on bytes 1 and 3; the result is [R1, R1, R2, R2].
                "vgf2p8affineqb {f:x}, {u:x}, {phi:x}, 0",
                "vgf2p8affineinvqb {f:x}, {f:x}, {mat:x}, 0x55",
                "vpxor {b:x}, {b:x}, {b:x}",
                "vpcmpgtb {b:x}, {b:x}, {u:x}",
                "vmovdqa64 {a:z}, {u:z}",
                "vpermi2b {a:z}, {t0}, {t1}",
                "vpermi2b {u:z}, {t2}, {t3}",
                // The selections as bitwise ones on byte masks (b: bit 7 of each byte;
                // `S0_BYTES`): `vpternlogd` takes one cycle where `vpblendmb` with
                // a mask register takes three on Intel's family 6 model 207 (one on Zen 4).
                "vpternlogd {a:x}, {u:x}, {b:x}, 0xd8",
                "vpternlogd {f:x}, {a:x}, xmmword ptr [rip + {sel}], 0xd8",
            ],
            hi = in(reg) 0xffff_ffff_8000_0000_u64,
            c31 = in(reg) 31u64,
            x1 = out(xmm_reg) _,
            x2 = out(xmm_reg) _,
            f = inout(xmm_reg) $r,
            c1 = in(xmm_reg) $c.rot[0],
            c2 = in(xmm_reg) $c.rot[1],
            c3 = in(xmm_reg) $c.rot[2],
            c4 = in(xmm_reg) $c.rot[3],
            phi = in(xmm_reg) $c.phi,
            mat = in(xmm_reg) $c.out,
            t0 = in(zmm_reg) $c.s0[0],
            t1 = in(zmm_reg) $c.s0[1],
            t2 = in(zmm_reg) $c.s0[2],
            t3 = in(zmm_reg) $c.s0[3],
            sel = sym S0_BYTES,
            a = out(xmm_reg) _,
            b = out(xmm_reg) _,
            u = out(xmm_reg) _,
            options(nostack),
        );
    };
}

/// Sixteen rounds with F in vector registers (`State::rounds16_with` computes the same with
/// F in general registers): R1 and R2 are kept in one XMM register as [R1, R1, R2, R2], so
/// one round's loop-carried path is [W1, W1, W2, W2] (an add, an XOR and a blend), its
/// halves swapped (`vpshufd`) and exchanged into [u, u, v, v] (`vpshldd`), L1 and L2 side by
/// side (rotations by per-lane counts, two three-way XORs) and the S-boxes (two affine steps
/// for S1, the table for S0 beside them, one selection), which give [R1, R1, R2, R2] again:
/// 16 cycles on Zen 4, with no moves between register files. The selections are
/// `vpternlogd` on byte masks, not `vpblendmb` on mask registers: 1 cycle against 3 on
/// Intel's family 6 model 207, where ZUC-128 went from 391 to 440 MB/s (8 KiB, best of six
/// alternated runs). (R1 and R2 in registers of
/// their own make the path 14 cycles but double the S-box and L instructions, and ran 15%
/// slower.) The LFSR and the bit reorganisation stay in general registers; their values
/// enter by broadcast, off that path (the LFSR feeds F's X1 five rounds later).
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2")]
fn gfni_rounds16<const INIT: bool>(state: &mut State, out: &mut [[u8; 4]; 16]) {
    let c = GfniConsts::new();
    let (s, r1s, r2s) = state.parts();
    let p: *mut u32 = s.as_mut_ptr();
    let o: *mut [u8; 4] = out.as_mut_ptr();
    let (a, b) = (*r1s as i32, *r2s as i32);
    let mut r = _mm_setr_epi32(a, a, b, b);
    // The newest cell (s15), kept in a register from one round to the next: through
    // memory its store and reload would lengthen the LFSR's recurrence.
    // SAFETY: index 15 of the 16 cells.
    let mut last = u64::from(unsafe { *p.add(15) });
    if INIT {
        gfni_loop!(true, p, o, r, c, last);
    } else {
        gfni_loop!(false, p, o, r, c, last);
    }
    let _ = last;
    *r1s = _mm_cvtsi128_si32(r) as u32;
    *r2s = _mm_extract_epi32::<2>(r) as u32;
}

/// The MAC steps for sixteen message words (`Ops::mac_sum16`) with 512-bit carry-less
/// products: as [`mac_word`], word i adds bits 32..64 of rev(m_i) · (z_{i+w} || z_{i+w+1})
/// into tag word w, and since XOR is linear the sixteen products of a tag word are summed
/// before those bits are taken. rev(m_i) is the message bytes with the bits of every byte
/// reversed (one `gf2p8affineqb`), read little-endian; four products per `vpclmulqdq`.
#[inline]
#[target_feature(enable = "gfni,avx512f,avx512bw,avx512vl,vpclmulqdq")]
fn gfni_mac16<const N: usize>(tag: &mut [u32; N], z: &[u32; 21], block: &[[u8; 4]; 16]) {
    let p = window_pairs(z);
    // SAFETY: 64 bytes, the sixteen message words; unaligned load.
    let m = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
    // The matrix that reverses the bits of a byte (row i, byte 7 - i, picks bit 7 - i).
    let rev =
        _mm512_gf2p8affine_epi64_epi8::<0>(m, _mm512_set1_epi64(0x8040_2010_0804_0201_u64 as i64));
    let a_lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(rev));
    let a_hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(rev));
    for (w, t) in tag.iter_mut().enumerate() {
        // SAFETY: qwords w..w + 16 of the 20 (w < 4); unaligned loads.
        let (b_lo, b_hi) = unsafe {
            (
                _mm512_loadu_si512(p[w..].as_ptr().cast()),
                _mm512_loadu_si512(p[w + 8..].as_ptr().cast()),
            )
        };
        let x = _mm512_ternarylogic_epi64::<0x96>(
            _mm512_clmulepi64_epi128::<0x00>(a_lo, b_lo),
            _mm512_clmulepi64_epi128::<0x11>(a_lo, b_lo),
            _mm512_clmulepi64_epi128::<0x00>(a_hi, b_hi),
        );
        let x = _mm512_xor_si512(x, _mm512_clmulepi64_epi128::<0x11>(a_hi, b_hi));
        let y = _mm256_xor_si256(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64::<1>(x));
        let y = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
        *t ^= ((_mm_cvtsi128_si64(y) as u64) >> 32) as u32;
    }
}

/// `Ops` and `Kernel` for an x86 kernel token: its S-box function, the carry-less window
/// sum, and the entry points around the generic code, compiled with `$features` (which the
/// token proves, module comment).
macro_rules! x86_kernel {
    ($Token:ident, $sbox:ident, $features:literal, $rounds16:ident $(, $mac16:ident)?) => {
        impl Ops for $Token {
            #[inline(always)]
            fn rounds16<const INIT: bool>(self, state: &mut State, out: &mut [[u8; 4]; 16]) {
                // SAFETY: `self` proves the features the rounds enable.
                unsafe { $rounds16::<INIT>(state, out) }
            }

            $(
            #[inline(always)]
            fn mac_sum16<const N: usize>(
                self,
                tag: &mut [u32; N],
                z: &[u32; 21],
                block: &[[u8; 4]; 16],
            ) {
                // SAFETY: `self` proves the features the MAC steps enable.
                unsafe { $mac16(tag, z, block) }
            }
            )?

            #[inline(always)]
            fn sbox_pair(self, u: u32, w: u32) -> (u32, u32) {
                // SAFETY: `self` proves the features the S-box function enables.
                unsafe { $sbox(u, w) }
            }

            #[inline(always)]
            fn mac_sum<const N: usize>(
                self,
                tag: &mut [u32; N],
                window: &[u32; 5],
                m: u32,
                bits: u32,
            ) {
                // Only the first `bits` bits count (bits is public).
                let m = if bits >= 32 {
                    m
                } else {
                    m & !(u32::MAX >> bits)
                };
                // SAFETY: `self` proves the features `mac_word` enables (module comment).
                unsafe { mac_word(tag, window, m) }
            }
        }

        /// The kernel's entry points: the shared generic code compiled with the token's
        /// features, where its S-boxes and window sums inline.
        impl Kernel for $Token {
            #[inline]
            fn initialise(self, state: &mut State) {
                #[target_feature(enable = $features)]
                fn entry(k: $Token, state: &mut State) {
                    state.initialise_with(k);
                }
                // SAFETY: `self` proves the features `entry` enables (module comment).
                unsafe { entry(self, state) }
            }

            #[inline]
            fn next_word(self, state: &mut State) -> u32 {
                #[target_feature(enable = $features)]
                fn entry(k: $Token, state: &mut State) -> u32 {
                    state.next_word_with(k)
                }
                // SAFETY: `self` proves the features `entry` enables (module comment).
                unsafe { entry(self, state) }
            }

            #[inline]
            fn fill(self, state: &mut State, out: &mut [[u8; 4]]) {
                #[target_feature(enable = $features)]
                fn entry(k: $Token, state: &mut State, out: &mut [[u8; 4]]) {
                    state.fill_with(k, out);
                }
                // SAFETY: `self` proves the features `entry` enables (module comment).
                unsafe { entry(self, state, out) }
            }

            #[inline]
            fn mac_words<const N: usize>(self, engine: &mut Engine<N>, words: &[[u8; 4]]) {
                #[target_feature(enable = $features)]
                fn entry<const N: usize>(k: $Token, engine: &mut Engine<N>, words: &[[u8; 4]]) {
                    engine.absorb_words_with(k, words);
                }
                // SAFETY: `self` proves the features `entry` enables (module comment).
                unsafe { entry(self, engine, words) }
            }

            #[inline]
            fn mac_bits<const N: usize>(self, engine: &mut Engine<N>, m: u32, bits: u32) {
                #[target_feature(enable = $features)]
                fn entry<const N: usize>(k: $Token, engine: &mut Engine<N>, m: u32, bits: u32) {
                    engine.absorb_bits_with(k, m, bits);
                }
                // SAFETY: `self` proves the features `entry` enables (module comment).
                unsafe { entry(self, engine, m, bits) }
            }
        }
    };
}

x86_kernel!(
    AesniSse,
    sbox_pair,
    "aes,ssse3,sse4.1,pclmulqdq",
    aesni_rounds16,
    aesni_mac16
);
x86_kernel!(
    GfniAvx512,
    gfni_sbox_pair,
    "gfni,avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,vpclmulqdq,bmi1,bmi2,\
     aes,ssse3,sse4.1,pclmulqdq",
    gfni_rounds16,
    gfni_mac16
);

#[cfg(test)]
mod tests {
    use super::*;
    use shangmi_dispatch::Available;

    /// Both x86 S-box functions against the portable circuit on every byte, where the CPU
    /// has them.
    #[test]
    fn sboxes_match_the_circuit() {
        for x in 0..=255u32 {
            // Every byte in every position: S0 on bytes 1 and 3 of each word, S1 on 0 and 2.
            let (u, w) = (x * 0x0101_0101, (255 - x) * 0x0101_0101);
            let want = crate::sbox::sbox_pair(u, w);
            if let Some(k) = Available::check(Backend::AesniSse).and_then(AesniSse::new) {
                assert_eq!(k.sbox_pair(u, w), want, "aesni {x:#x}");
            }
            if let Some(k) = Available::check(Backend::GfniAvx512).and_then(GfniAvx512::new) {
                assert_eq!(k.sbox_pair(u, w), want, "gfni {x:#x}");
            }
        }
    }
}
