//! A CBC chain (CBC-MAC, CCM, CMAC: state = E(state ⊕ block), block after block) on GFNI,
//! with a shorter round than the generic single-block path.
//!
//! The latency of one round is what counts here. The generic round runs XOR, the S-box's
//! input affine map, the inversion with its output affine map, then L's rotations and XORs.
//! This one keeps the state as y = P·x, P the linear part of the S-box's input map, so
//! the input affine map folds into the state (P is bytewise linear, so P·(x1 ⊕ x2 ⊕ x3 ⊕ rk)
//! is y1 ⊕ y2 ⊕ y3 ⊕ P·rk); and it folds P·L(S(·)) into four `gf2p8affineinvqb` of the same
//! input: L commutes with byte rotation, so L = Σ_d rot_{8d} ∘ C_d with bytewise 8×8
//! matrices C_d, and P·C_d·(post-map) is one matrix. The round is then
//! `gf2p8affineinvqb` (3 of them, in parallel), a byte rotation and two XOR levels
//! ([`round_direct`], the short passes' round, whose registers hold a different block in
//! each 32-bit lane). The chain's round, [`LowHalf`], puts each rotation on the instruction
//! that keeps the path at one S-box step, one rotation and one three-way XOR (`gfni-avx512`;
//! two XOR levels on `gfni-avx2`): the rotation by 16 on `vpshuflw` (one cycle, where the
//! others take two), which rotates only the low 64 bits' words — all the single-block
//! chain needs, every other step working on each 32-bit lane by itself. The state leaves
//! the y domain by P⁻¹ once at the end. (Our construction; the domain change is the usual
//! "merge linear layers into the S-box tables" of table-based AES.)
//!
//! On AMD Zen 5 (family 26 model 2; `gf2p8affineinvqb` 3 cycles, two per cycle;
//! `vpternlogd`, `vprold`, `vpshufb`, `vpshuflw`, `vpxor` 2 cycles each) [`LowHalf`]'s
//! second XOR level waits for its rotation by 16: a path of 3 + 2 + 2 + 2 cycles, its
//! dependent steps alone 9.1–9.5 cycles a round and the chain 11.2–11.5. There the chain
//! runs on the paired round instead ([`round_paired_evex`], chosen by [`paired_chain`]):
//! u and rot16(u) side by side, five S-box steps, each new value one three-way XOR after
//! a rotation; its steps alone 8.5–8.7, the chain 9.2–9.5 (CBC encryption 8 KiB;
//! `benches/examples/floors.rs`, whose path floor there is 7.0).
//!
//! On AMD Zen 4 (family 25 model 17; `benches/examples/floors.rs`) the path is 6.0 cycles a
//! round (`gf2p8affineinvqb` 3, a byte rotation 2, `vpternlogd` 1). The five-step round
//! reached it only on paper: its five S-box steps and two `vprold` share the two units of
//! `gf2p8affineinvqb`, which cannot start all the steps the path needs within a cycle of
//! the input, and it ran 7.96–7.98 cycles a round in the chain (CBC encryption 8 KiB).
//! [`LowHalf`]'s three steps can: its dependent steps alone run 6.00 cycles a round, its
//! loop of four rounds alone 6.33, and the chain 6.52 best and 6.94 median (CBC
//! encryption 8 KiB; CBC-MAC 6.51 / 7.04; PERFORMANCE.md). Entering and leaving the P
//! domain takes one `gf2p8affineqb` a block each way (P is bytewise, so it maps the whole
//! block around the byte shuffles).
//!
//! The registers are the kernel's own (`super::words`: `Vl128` on `gfni-avx512`, `X128`
//! on `gfni-avx2`), which carry its token; the only `unsafe` is the rounds' `asm!`.
//!
//! The chain also runs in steps of four rounds ([`Stepper`], `crate::CbcSteps`; on the
//! paired round where [`paired_chain`] picks it), for another kernel's loop to step: SM3's
//! rounds in a MAC-then-encrypt record layer, which keep the general-purpose ALUs busy while the chain waits on the vector units. The
//! steps need no GFNI target feature where they inline (their GFNI instructions are
//! `asm!`), so they inline into SM3's kernel.

use core::arch::x86_64::{
    __m128i, _mm_loadu_si128, _mm_shuffle_epi8, _mm_shuffle_epi32, _mm_storeu_si128,
    _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_xor_si128,
};

use cipher::Block;

use crate::simd::{BSWAP32, Single, Word};
use crate::{Sm4, key::RoundKeys};

use super::words::{Avx2, Avx512vl, Gfni, GfniAffine, Raw, Vl128, X128};
use crate::simd::pdomain::{POST, POST_C, PRE, PRE_C, PRE_INV, apply, l_part, matrix};

/// P·C_d·POST, the matrix taking inv(u) to P·C_d·S's output.
const fn g(d: usize) -> u64 {
    let mut img = [0u8; 8];
    let mut k = 0;
    while k < 8 {
        img[k] = apply(PRE, l_part(d, apply(POST, 1 << k)));
        k += 1;
    }
    matrix(img)
}

/// P·C_d·0xD3, the constant that goes with [`g`].
const fn gc(d: usize) -> i32 {
    apply(PRE, l_part(d, POST_C)) as i32
}

const G0: u64 = g(0);
const G1: u64 = g(1);
const G3: u64 = g(3);
const G0_C: i32 = gc(0);
const G1_C: i32 = gc(1);
const G3_C: i32 = gc(3);
const _: () = assert!(g(1) == g(2) && gc(1) == gc(2));

/// Rotation masks for `pshufb`: rotate each 32-bit lane left by 8, 16, 24 bits.
const ROTL8: u128 = u128::from_le_bytes([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14]);
const ROTL16: u128 = u128::from_le_bytes([2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13]);
const ROTL24: u128 = u128::from_le_bytes([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]);

/// A bit matrix in both 64-bit lanes of a register.
#[inline(always)]
fn matrix_reg<W: Word>(cpu: W::Cpu, m: u64) -> W {
    W::bcast128(cpu, (u128::from(m) << 64) | u128::from(m))
}

/// The registers the chain needs, loaded once.
pub(super) struct Consts<W> {
    bswap: W,
    rot8: W,
    rot16: W,
    rot24: W,
    pre: W,
    g0: W,
    g1: W,
    g3: W,
}

impl<W: Word> Consts<W> {
    #[inline(always)]
    fn new(cpu: W::Cpu) -> Self {
        Consts {
            bswap: W::bcast128(cpu, BSWAP32),
            rot8: W::bcast128(cpu, ROTL8),
            rot16: W::bcast128(cpu, ROTL16),
            rot24: W::bcast128(cpu, ROTL24),
            pre: matrix_reg(cpu, PRE),
            g0: matrix_reg(cpu, G0),
            g1: matrix_reg(cpu, G1),
            g3: matrix_reg(cpu, G3),
        }
    }
}

/// The block's four big-endian words, each broadcast to a register, mapped by P (one
/// `gf2p8affineqb` for the whole block: P is bytewise and the shuffles only move bytes).
#[inline(always)]
fn lanes_p<W: Single + GfniAffine>(cpu: W::Cpu, k: &Consts<W>, block: &Block<Sm4>) -> [W; 4] {
    W::load(cpu, core::slice::from_ref(block))
        .shuffle(k.bswap)
        .affine::<0>(k.pre)
        .lanes()
}

/// Round `I` (mod 4) of the short passes ([`direct_rounds`]): `y[I] ^= P·L(S(u))`, and
/// `u` becomes the next round's S-box input.
///
/// P·L(S(u)) = r0 ⊕ rot8(r1) ⊕ rot16(r1) ⊕ rot24(r3) with r_d = P·C_d·S(u) (C_1 = C_2).
/// `u` is carried as (the two older words ⊕ next key ⊕ old `y[I]` ⊕ r0) ⊕ the three
/// rotated terms, explicitly grouped (two three-way XORs after the rotations) so that only
/// the newest terms wait for this round.
#[inline(always)]
fn round_direct<W: GfniAffine, const I: usize>(
    k: &Consts<W>,
    y: &mut [W; 4],
    u: &mut W,
    next_key: W,
) {
    let (r0, r1, r3) = (
        u.affine_inv::<G0_C>(k.g0),
        u.affine_inv::<G1_C>(k.g1),
        u.affine_inv::<G3_C>(k.g3),
    );
    let (a, b, c) = (r1.shuffle(k.rot8), r1.shuffle(k.rot16), r3.shuffle(k.rot24));
    let others = y[(I + 2) % 4].xor3(y[(I + 3) % 4], next_key.xor(y[I]));
    *u = others.xor(r0).xor3(a, b).xor(c);
    y[I] = y[I].xor3(r0, a).xor3(b, c);
}

/// P·rk ⊕ the input map's constant, per round (a plain loop: see `crate::simd`).
#[inline(always)]
fn p_keys<W: GfniAffine>(cpu: W::Cpu, k: &Consts<W>, rk: &RoundKeys) -> [W; 32] {
    let mut keys = [k.pre; 32];
    for (key, &r) in keys.iter_mut().zip(rk.iter()) {
        *key = W::splat(cpu, r).affine::<{ PRE_C as i32 }>(k.pre);
    }
    keys
}

/// The 32 rounds on `N` groups of registers in the transposed layout (each 32-bit lane a
/// block's word; or one block's words broadcast), interleaved, in the P domain with
/// [`round_direct`]: a pass of one or two groups costs its rounds' latency, and this
/// round's dependency path is shorter than the generic one's (`gf2p8affineinvqb`, a byte
/// rotation, two XORs against the input map, the inversion, L's rotations and its XORs).
/// The words enter and leave the domain by one `gf2p8affineqb` each (P is bytewise).
#[inline(always)]
pub(super) fn group_rounds<W: GfniAffine, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    x: &mut [[W; 4]; N],
) {
    let k = Consts::<W>::new(cpu);
    let keys = p_keys(cpu, &k, rk);
    let mut y = *x;
    for g in y.iter_mut() {
        for w in g.iter_mut() {
            *w = w.affine::<0>(k.pre);
        }
    }
    direct_rounds(&k, &keys, &mut y);
    let pre_inv = matrix_reg::<W>(cpu, PRE_INV);
    for (g, y) in x.iter_mut().zip(y) {
        for (w, v) in g.iter_mut().zip(y) {
            *w = v.affine::<0>(pre_inv);
        }
    }
}

/// [`round_direct`]'s 32 rounds on `N` groups of words already in the P domain, interleaved
/// (the short passes' groups): each group's first S-box input, then
/// [`round_direct`] after [`round_direct`], its last one computing an input nobody reads.
#[inline(always)]
fn direct_rounds<W: GfniAffine, const N: usize>(
    k: &Consts<W>,
    keys: &[W; 32],
    y: &mut [[W; 4]; N],
) {
    let mut u = [k.pre; N];
    for (g, u) in y.iter().zip(u.iter_mut()) {
        *u = g[1].xor(g[2]).xor(keys[0].xor(g[3]));
    }
    for r in (0..32).step_by(4) {
        macro_rules! round {
            ($($i:literal)*) => {$(
                for (g, u) in y.iter_mut().zip(u.iter_mut()) {
                    round_direct::<W, $i>(k, g, u, keys[(r + $i + 1) % 32]);
                }
            )*};
        }
        round!(0 1 2 3);
    }
}

/// One round of [`LowHalf`] (round i): from the S-box input u and the words `y[i]`, `y[i+2]`,
/// `y[i+3]`, the next input and the new word `y[i]` ⊕ P·L(S(u)), with `key` = P·rk_{i+1} ⊕ c.
///
/// P·L(S(u)) = r0 ⊕ rot8(r1) ⊕ rot16(r1) ⊕ rot24(r3) with r_d = P·C_d·S(u) (C_1 = C_2);
/// s = `key` ⊕ `y[i+2]` ⊕ `y[i+3]` and o = `y[i]` ⊕ s wait for nothing in this round, so u' =
/// (o ⊕ r0 ⊕ rot16(r1)) ⊕ rot8(r1) ⊕ rot24(r3), two `vpternlogd`, and the new word
/// `y[i]` ⊕ P·L(S(u)) = u' ⊕ s, one XOR off the chain: eleven instructions.
///
/// In `asm!` because the compiler makes every byte rotation `vprold`, by 16 too, and
/// reassociates the XORs. The rotations by 8 and 24 are `vprold`, which shares its two
/// units with `gf2p8affineinvqb` (Zen 4), not `vpshufb`: the round's dependent steps alone
/// ran 6.00 cycles a round so and 6.62 with one of them on `vpshufb`
/// (`benches/examples/floors.rs`), where the same steps with three `vprold` run 8.0 and the
/// earlier five-step round (the input also carried rotated by 24 bits) 7.0. The order
/// and count are measured too (Zen 4, CBC encryption 8 KiB, medians of alternated runs):
/// with twelve instructions (the new word as two `vpternlogd` beside u') consecutive calls
/// alternated between 6.9 and 7.5 cycles a round, median 7.46; with eleven, the rotations
/// by 8 and 24 ahead of `vpshuflw`, 6.94.
///
/// Its target features are AVX-512F and AVX-512VL only, so that it inlines into SM3's
/// kernel too ([`Stepper`]); GFNI, which only the template's `gf2p8affineinvqb` needs (the
/// compiler generates none), is proven by the caller's register ([`LowHalf`]'s
/// implementors carry a `Gfni` token).
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn round_low_evex(k: &AsmConsts, [u, yi, y2, y3]: [__m128i; 4], key: __m128i) -> [__m128i; 2] {
    let (next, new);
    // SAFETY: registers only (no memory, no stack); AVX-512F and AVX-512VL (EVEX
    // `vprold`, `vpternlogd`, registers xmm16–31), which this function enables, and GFNI,
    // which the caller proves (see above).
    unsafe {
        core::arch::asm!(
            "vgf2p8affineinvqb {r1:x}, {u:x}, {g1:x}, {c1}",
            "vgf2p8affineinvqb {r3:x}, {u:x}, {g3:x}, {c3}",
            "vgf2p8affineinvqb {r0:x}, {u:x}, {g0:x}, {c0}",
            "vprold {a:x}, {r1:x}, 8",
            "vprold {c:x}, {r3:x}, 24",
            "vpshuflw {b:x}, {r1:x}, 0xb1",
            "vpternlogd {y2:x}, {y3:x}, {key:x}, 0x96",
            "vpxord {o:x}, {yi:x}, {y2:x}",
            "vpternlogd {o:x}, {r0:x}, {b:x}, 0x96",
            "vpternlogd {o:x}, {a:x}, {c:x}, 0x96",
            "vpxord {r0:x}, {o:x}, {y2:x}",
            u = in(zmm_reg) u,
            yi = in(zmm_reg) yi,
            y2 = inout(zmm_reg) y2 => _,
            y3 = in(zmm_reg) y3,
            key = in(zmm_reg) key,
            g0 = in(zmm_reg) k.g0,
            g1 = in(zmm_reg) k.g1,
            g3 = in(zmm_reg) k.g3,
            c0 = const G0_C,
            c1 = const G1_C,
            c3 = const G3_C,
            r0 = out(zmm_reg) new,
            o = out(zmm_reg) next,
            r1 = out(zmm_reg) _,
            r3 = out(zmm_reg) _,
            a = out(zmm_reg) _,
            b = out(zmm_reg) _,
            c = out(zmm_reg) _,
            options(pure, nomem, nostack),
        );
    }
    [next, new]
}

/// [`round_low_evex`] with two-input XORs (`gfni-avx2`, VEX): u' = ((o ⊕ r0) ⊕ rot16(r1))
/// ⊕ (rot8(r1) ⊕ rot24(r3)), the rotations by 8 and 24 on `vpshufb` (no `vprold` without
/// AVX-512), so the path is the S-box step, a rotation and two XORs; o = `y[i]` ⊕ s and
/// the new word u' ⊕ s, with s = `key` ⊕ `y[i+2]` ⊕ `y[i+3]` ready early. (Zen 4, forced:
/// 9.6 → 8.9 cycles a round against [`round_direct`] in the chain, whose rotation by 16
/// the compiler makes two dependent shuffles and whose XORs it reassociates; the steps
/// alone run 8.3, above their 7-cycle path: three shuffles share two units.)
#[target_feature(enable = "avx2,gfni")]
#[inline]
fn round_low_vex(k: &AsmConsts, [u, yi, y2, y3]: [__m128i; 4], key: __m128i) -> [__m128i; 2] {
    let (next, new);
    // SAFETY: registers only (no memory, no stack); AVX and GFNI (VEX
    // `vgf2p8affineinvqb`), which this function enables. Sixteen registers only: r0 takes
    // u's, s y2's and rot16(r1) yi's once each is read for the last time.
    unsafe {
        core::arch::asm!(
            "vgf2p8affineinvqb {r1}, {u}, {g1}, {c1}",
            "vgf2p8affineinvqb {r3}, {u}, {g3}, {c3}",
            "vgf2p8affineinvqb {u}, {u}, {g0}, {c0}",
            "vpxor {s}, {s}, {key}",
            "vpxor {s}, {s}, {y3}",
            "vpxor {o}, {yi}, {s}",
            "vpxor {o}, {o}, {u}",
            "vpshufb {r3}, {r3}, {m24}",
            "vpshufb {yi}, {r1}, {m8}",
            "vpshuflw {r1}, {r1}, 0xb1",
            "vpxor {r3}, {r3}, {yi}",
            "vpxor {o}, {o}, {r1}",
            "vpxor {o}, {o}, {r3}",
            "vpxor {s}, {s}, {o}",
            u = inout(xmm_reg) u => _,
            yi = inout(xmm_reg) yi => _,
            s = inout(xmm_reg) y2 => new,
            y3 = in(xmm_reg) y3,
            key = in(xmm_reg) key,
            g0 = in(xmm_reg) k.g0,
            g1 = in(xmm_reg) k.g1,
            g3 = in(xmm_reg) k.g3,
            m8 = in(xmm_reg) k.rot8,
            m24 = in(xmm_reg) k.rot24,
            c0 = const G0_C,
            c1 = const G1_C,
            c3 = const G3_C,
            o = out(xmm_reg) next,
            r1 = out(xmm_reg) _,
            r3 = out(xmm_reg) _,
            options(pure, nomem, nostack),
        );
    }
    [next, new]
}

/// The round for the single-block chain, in `asm!` ([`round_low_evex`], [`round_low_vex`]):
/// [`round_direct`]'s three S-box steps, with each rotation on an instruction that keeps the
/// round's dependency path at the S-box step, one rotation and one three-way XOR (Zen 4:
/// 3 + 2 + 1 cycles). The rotation by 16 is `vpshuflw`, one cycle, where the others take
/// two; it rotates the words of the low 64 bits only, which is enough here: every other
/// step of the chain works on each 32-bit lane by itself and the block leaves the chain
/// from lane 0 (`leave_p`), so lanes 0 and 1 stay right and lanes 2 and 3 are never read.
/// The next input is then (o ⊕ r0 ⊕ rot16(r1)), ready a cycle before the other two
/// rotations, ⊕ rot8(r1) ⊕ rot24(r3): one three-way XOR after them.
///
/// Implemented by the chain's registers: `gfni-avx512`'s (EVEX, `vprold` and
/// `vpternlogd`) and `gfni-avx2`'s (VEX).
pub(crate) trait LowHalf: Single + GfniAffine + Raw<V = __m128i> {
    /// One round from the S-box input and the words it reads, `[u, y[i], y[i+2], y[i+3]]`
    /// ([`round_low_evex`], [`round_low_vex`]): `[the next input, the new word]`, the
    /// register's token proving the features.
    fn round_low(self, k: &AsmConsts, inputs: [__m128i; 4], key: __m128i) -> [__m128i; 2];

    /// Round `I` (mod 4) on the words `y` and the S-box input `u`.
    #[inline(always)]
    fn round_at<const I: usize>(
        self,
        k: &AsmConsts,
        y: &mut [__m128i; 4],
        u: &mut __m128i,
        key: __m128i,
    ) {
        let [next, new] = self.round_low(k, [*u, y[I], y[(I + 2) % 4], y[(I + 3) % 4]], key);
        *u = next;
        y[I] = new;
    }
}

impl<F: Gfni + Avx512vl> LowHalf for Vl128<F> {
    #[inline(always)]
    fn round_low(self, k: &AsmConsts, inputs: [__m128i; 4], key: __m128i) -> [__m128i; 2] {
        // SAFETY: the token `F` (`Gfni + Avx512vl`) proves GFNI, AVX-512F and AVX-512VL.
        unsafe { round_low_evex(k, inputs, key) }
    }
}

impl<F: Gfni + Avx2> LowHalf for X128<F> {
    #[inline(always)]
    fn round_low(self, k: &AsmConsts, inputs: [__m128i; 4], key: __m128i) -> [__m128i; 2] {
        // SAFETY: the token `F` (`Gfni + Avx2`) proves GFNI and AVX2.
        unsafe { round_low_vex(k, inputs, key) }
    }
}

/// One round of the paired chain ([`Pair`], round i): the S-box input u carried
/// twice, as `a` = u and `b` = rot16(u), so that two of each new input's four S-box terms
/// need no rotation. With r_d = P·C_d·S(u) and rot16(r_d) = P·C_d·S(rot16(u)):
///
/// u' = o ⊕ r0 ⊕ rot16(r1) ⊕ rot8(r1) ⊕ rot24(r3)
///    = (o ⊕ G0(a) ⊕ G1(b)) ⊕ rot24(G1(b)) ⊕ rot24(G3(a)),
/// rot16(u') = (rot16(o) ⊕ G0(b) ⊕ G1(a)) ⊕ rot24(G1(a)) ⊕ rot8(G3(a)),
///
/// five S-box steps (G_d the `gf2p8affineinvqb` by P·C_d·S's matrix), four byte rotations
/// and four `vpternlogd`: the path is an S-box step, a rotation and one three-way XOR
/// after the group (o ⊕ …) that waits for no rotation. o = `y[i]` ⊕ `y[i+2]` ⊕ `y[i+3]` ⊕
/// `key[i+1]` is u ⊕ e with e = `y[i]` ⊕ `y[i+1]` ⊕ `key[i]` ⊕ `key[i+1]` (u is
/// `y[i+1]` ⊕ `y[i+2]` ⊕ `y[i+3]` ⊕ `key[i]`), which the words of rounds three and four
/// back give early; the new word `y[i]` ⊕ P·L(S(u)) is u' ⊕ o ⊕ `y[i]` = u' ⊕ u ⊕ `y[i+1]`
/// ⊕ `key[i]` ⊕ `key[i+1]`, off the chain. `kk` is `key[i]` ⊕ `key[i+1]`.
///
/// For AMD Zen 5, where every vector ALU instruction takes two cycles
/// (`benches/examples/floors.rs`): [`round_low_evex`]'s second XOR level waits for its
/// rotation by 16, a path of 3 + 2 + 2 + 2; this one's is 3 + 2 + 2 with one more
/// S-box step and one more rotation than it, which the two S-box units start within
/// three cycles. The rotations are `vpshufb`: with `vprold` the same steps alone ran
/// 9.5–9.9 cycles a round on Zen 5, with `vpshufb` 8.6–8.9.
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn round_paired_evex(k: &AsmConsts, [a, b, yi, yi1]: [__m128i; 4], kk: __m128i) -> [__m128i; 3] {
    let (na, nb, new);
    // SAFETY: registers only (no memory, no stack); AVX-512F and AVX-512VL (EVEX
    // `vpternlogd`, registers xmm16–31), which this function enables, and GFNI and
    // AVX-512BW (EVEX `vpshufb`), which the caller proves (the `Paired` implementor's
    // token: `Avx512vl` implies `Avx512bw`).
    unsafe {
        core::arch::asm!(
            "vpternlogd {e:x}, {h:x}, {kk:x}, 0x96",
            "vpternlogd {h:x}, {a:x}, {kk:x}, 0x96",
            "vpshufb {e16:x}, {e:x}, {m16:x}",
            "vgf2p8affineinvqb {g3a:x}, {a:x}, {g3:x}, {c3}",
            "vgf2p8affineinvqb {g1b:x}, {b:x}, {g1:x}, {c1}",
            "vgf2p8affineinvqb {g0a:x}, {a:x}, {g0:x}, {c0}",
            "vgf2p8affineinvqb {g1a:x}, {a:x}, {g1:x}, {c1}",
            "vgf2p8affineinvqb {g0b:x}, {b:x}, {g0:x}, {c0}",
            "vpxord {e:x}, {e:x}, {a:x}",
            "vpxord {e16:x}, {e16:x}, {b:x}",
            "vpshufb {m1:x}, {g1b:x}, {m24:x}",
            "vpshufb {m3:x}, {g3a:x}, {m24:x}",
            "vpshufb {n1:x}, {g1a:x}, {m24:x}",
            "vpshufb {n3:x}, {g3a:x}, {m8:x}",
            "vpternlogd {e:x}, {g0a:x}, {g1b:x}, 0x96",
            "vpternlogd {e16:x}, {g0b:x}, {g1a:x}, 0x96",
            "vpternlogd {e:x}, {m1:x}, {m3:x}, 0x96",
            "vpternlogd {e16:x}, {n1:x}, {n3:x}, 0x96",
            "vpxord {h:x}, {h:x}, {e:x}",
            // The inputs, and the two new values (e, e16) with the new word (h).
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            kk = in(zmm_reg) kk,
            e = inout(zmm_reg) yi => na,
            e16 = out(zmm_reg) nb,
            h = inout(zmm_reg) yi1 => new,
            // Each S-box step's matrix and constant, then its results.
            g3 = in(zmm_reg) k.g3,
            c3 = const G3_C,
            g3a = out(zmm_reg) _,
            g1 = in(zmm_reg) k.g1,
            c1 = const G1_C,
            g1a = out(zmm_reg) _,
            g1b = out(zmm_reg) _,
            g0 = in(zmm_reg) k.g0,
            c0 = const G0_C,
            g0a = out(zmm_reg) _,
            g0b = out(zmm_reg) _,
            // The rotations' masks, then the rotated terms.
            m8 = in(zmm_reg) k.rot8,
            m16 = in(zmm_reg) k.rot16,
            m24 = in(zmm_reg) k.rot24,
            m1 = out(zmm_reg) _,
            m3 = out(zmm_reg) _,
            n1 = out(zmm_reg) _,
            n3 = out(zmm_reg) _,
            options(pure, nomem, nostack),
        );
    }
    [na, nb, new]
}

/// The paired round's chain ([`round_paired_evex`]), `gfni-avx512` only (it needs
/// `vpternlogd`).
pub(crate) trait Paired: LowHalf {
    /// One round from `[u, rot16(u), y[i], y[i+1]]` and `kk` = `key[i]` ⊕ `key[i+1]`:
    /// `[u', rot16(u'), the new y[i]]`.
    fn round_paired(self, k: &AsmConsts, inputs: [__m128i; 4], kk: __m128i) -> [__m128i; 3];
}

impl<F: Gfni + Avx512vl> Paired for Vl128<F> {
    #[inline(always)]
    fn round_paired(self, k: &AsmConsts, inputs: [__m128i; 4], kk: __m128i) -> [__m128i; 3] {
        // SAFETY: the token `F` (`Gfni + Avx512vl`) proves GFNI, AVX-512F, AVX-512BW and
        // AVX-512VL.
        unsafe { round_paired_evex(k, inputs, kk) }
    }
}

/// Rounds `r..r + 4` of a block on the paired round (`r` a multiple of 4), on the words
/// `y` and `ab` = [u, rot16(u)], `t` the register that carries the kernel's proof.
#[inline(always)]
fn paired_rounds<W: Paired>(
    t: W,
    ak: &AsmConsts,
    kks: &[__m128i; 32],
    r: usize,
    y: &mut [__m128i; 4],
    ab: &mut [__m128i; 2],
) {
    macro_rules! round {
        ($($i:literal)*) => {$(
            let [a, b, new] = t.round_paired(ak, [ab[0], ab[1], y[$i], y[($i + 1) % 4]], kks[r + $i]);
            *ab = [a, b];
            y[$i] = new;
        )*};
    }
    round!(0 1 2 3);
}

/// `key[i]` ⊕ `key[i + 1 mod 32]` for each round i, the paired round's key input.
#[inline(always)]
fn key_pairs<W: Raw<V = __m128i>>(t: W, keys: &[__m128i; 32]) -> [__m128i; 32] {
    core::array::from_fn(|i| t.with(keys[i]).xor(t.with(keys[(i + 1) % 32])).raw())
}

/// Whether the `gfni-avx512` chain runs on the paired round ([`round_paired_evex`]):
/// on AMD family 26 (Zen 5) and later, where every vector ALU instruction takes two
/// cycles. Measured on Zen 5 (family 26 model 2; `benches/examples/floors.rs`), CBC
/// encryption 8 KiB: 11.2–11.5 cycles a round on [`LowHalf`]'s round, 9.2–9.5 on this
/// one. Elsewhere [`LowHalf`]'s: on Zen 4 its path (one-cycle XORs) is 6 cycles and
/// the chain runs within 1.11x of it; Intel's cores are not measured with this round.
/// CPUID is read once (`shangmi_dispatch::x86_vendor_family`).
fn paired_chain() -> bool {
    matches!(
        shangmi_dispatch::x86_vendor_family(),
        Some((shangmi_dispatch::Vendor::Amd, family)) if family >= 26
    )
}

/// The `gfni-avx512` chain: on the paired round ([`Pair`]) where [`paired_chain`] says so,
/// else [`chain_body`].
#[inline(always)]
pub(super) fn avx512_chain<W: Paired>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    if paired_chain() {
        let k = Consts::<W>::new(cpu);
        let keys = p_keys(cpu, &k, rk).map(|k| k.raw());
        run_chain(
            cpu,
            &k,
            &keys,
            &Pair(&key_pairs(k.pre, &keys)),
            state,
            blocks,
            out,
        );
    } else {
        chain_body::<W>(cpu, rk, state, blocks, out);
    }
}

/// The S-box steps' matrices and the byte rotations' `pshufb` masks as raw vectors for
/// [`LowHalf::round_low`].
pub(crate) struct AsmConsts {
    g0: __m128i,
    g1: __m128i,
    g3: __m128i,
    rot8: __m128i,
    rot16: __m128i,
    rot24: __m128i,
}

impl AsmConsts {
    #[inline(always)]
    fn new<W: Raw<V = __m128i>>(k: &Consts<W>) -> Self {
        AsmConsts {
            g0: k.g0.raw(),
            g1: k.g1.raw(),
            g3: k.g3.raw(),
            rot8: k.rot8.raw(),
            rot16: k.rot16.raw(),
            rot24: k.rot24.raw(),
        }
    }
}

/// A chain round's shape: what it carries from round to round besides the words, and four
/// rounds of it. [`Low`]: [`LowHalf`]'s round, carrying the S-box input u, with the round
/// keys; [`Pair`]: the paired round ([`Paired`]), carrying [u, rot16(u)], with
/// [`key_pairs`].
trait Rounds<W> {
    /// What the rounds carry.
    type Carry;
    /// The carry from a block's first S-box input.
    fn carry(&self, k: &Consts<W>, u: W) -> Self::Carry;
    /// Rounds `r..r + 4` (`r` a multiple of 4) on the words `y`, `t` the register that
    /// carries the kernel's proof.
    fn four(&self, t: W, ak: &AsmConsts, r: usize, y: &mut [__m128i; 4], c: &mut Self::Carry);
}

/// [`LowHalf`]'s round with the P-domain round keys.
struct Low<'a>(&'a [__m128i; 32]);

impl<W: LowHalf> Rounds<W> for Low<'_> {
    type Carry = __m128i;
    #[inline(always)]
    fn carry(&self, _: &Consts<W>, u: W) -> __m128i {
        u.raw()
    }
    #[inline(always)]
    fn four(&self, t: W, ak: &AsmConsts, r: usize, y: &mut [__m128i; 4], u: &mut __m128i) {
        four_rounds(t, ak, self.0, r, y, u);
    }
}

/// The paired round with [`key_pairs`].
struct Pair<'a>(&'a [__m128i; 32]);

impl<W: Paired> Rounds<W> for Pair<'_> {
    type Carry = [__m128i; 2];
    #[inline(always)]
    fn carry(&self, k: &Consts<W>, u: W) -> [__m128i; 2] {
        [u.raw(), u.shuffle(k.rot16).raw()]
    }
    #[inline(always)]
    fn four(&self, t: W, ak: &AsmConsts, r: usize, y: &mut [__m128i; 4], ab: &mut [__m128i; 2]) {
        paired_rounds(t, ak, self.0, r, y, ab);
    }
}

/// One block of the chain from the words `x` (P domain): the block joins them, 32 rounds
/// of `rounds` in a loop of four (a compact body: long unrolled AVX-512 bodies stall this
/// core's instruction supply, PERFORMANCE.md); the next words. The next block's first
/// S-box input needs the words of rounds 28–30 only, so it overlaps round 31 on its own.
#[inline(always)]
fn chain_block<W: LowHalf, R: Rounds<W>>(
    cpu: W::Cpu,
    k: &Consts<W>,
    ak: &AsmConsts,
    keys: &[__m128i; 32],
    rounds: &R,
    x: [W; 4],
    block: &Block<Sm4>,
) -> [W; 4] {
    let m = lanes_p(cpu, k, block);
    let w = |v| x[0].with(v);
    let y0 = [0, 1, 2, 3].map(|i| x[i].xor(m[i]));
    let mut c = rounds.carry(k, y0[1].xor(y0[2]).xor(w(keys[0]).xor(y0[3])));
    let mut y = y0.map(|v| v.raw());
    for r in (0..32).step_by(4) {
        rounds.four(x[0], ak, r, &mut y, &mut c);
    }
    [y[3], y[2], y[1], y[0]].map(w)
}

/// Rounds `r..r + 4` of a block (`r` a multiple of 4) on the words `y` and the S-box input
/// `u`, `t` the register that carries the kernel's proof.
#[inline(always)]
fn four_rounds<W: LowHalf>(
    t: W,
    ak: &AsmConsts,
    keys: &[__m128i; 32],
    r: usize,
    y: &mut [__m128i; 4],
    u: &mut __m128i,
) {
    t.round_at::<0>(ak, y, u, keys[r + 1]);
    t.round_at::<1>(ak, y, u, keys[r + 2]);
    t.round_at::<2>(ak, y, u, keys[r + 3]);
    t.round_at::<3>(ak, y, u, keys[(r + 4) % 32]);
}

/// The chain body: for each block, `state = E(state ⊕ block)`, written to `out[i]` too for
/// each i < `out.len()` (off the chain's critical path), on [`LowHalf`]'s round. `W` is
/// the kernel's 128-bit register.
#[inline(always)]
pub(super) fn chain_body<W: LowHalf>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    let k = Consts::<W>::new(cpu);
    let keys = p_keys(cpu, &k, rk).map(|k| k.raw());
    run_chain(cpu, &k, &keys, &Low(&keys), state, blocks, out);
}

/// The chain over `blocks` on `rounds` ([`chain_block`] after [`chain_block`]).
#[inline(always)]
fn run_chain<W: LowHalf, R: Rounds<W>>(
    cpu: W::Cpu,
    k: &Consts<W>,
    keys: &[__m128i; 32],
    rounds: &R,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    let ak = AsmConsts::new(k);
    let mut x = lanes_p(cpu, k, state);
    let mut out = out.iter_mut();
    for block in blocks {
        x = chain_block(cpu, k, &ak, keys, rounds, x, block);
        if let Some(o) = out.next() {
            *o = leave_p(cpu, k, &x);
        }
    }
    *state = leave_p(cpu, k, &x);
}

/// [`LowHalf`]'s chain in steps of four rounds (`crate::CbcSteps`): a step is four rounds
/// of [`four_rounds`]; a block's first step also takes its input in (mapped into the P
/// domain and joined to the chain's words, as [`chain_block`] does) and its eighth puts its
/// output out (left the P domain and stored, as [`leave_p`] does). The GFNI instructions
/// of both are `asm!` ([`affine_asm`]) and the rest SSE2/SSSE3, so a step needs only
/// AVX-512F/VL enabled where it inlines (SM3's kernel, whose entry enables no GFNI). What a
/// step changes is a [`StepAt`], kept apart so that a loop can hold it in registers.
pub(crate) struct Stepper<'a, W> {
    /// A register that carries the kernel's proof.
    t: W,
    ak: AsmConsts,
    bswap: __m128i,
    pre: __m128i,
    pre_inv: __m128i,
    keys: [__m128i; 32],
    /// Whether the steps run the paired round ([`paired_chain`]), and its key input (the
    /// round keys again where it does not, so a record that never pairs skips the XORs).
    paired: bool,
    kks: [__m128i; 32],
    blocks: &'a [Block<Sm4>],
    out: &'a mut [Block<Sm4>],
}

/// Where a [`Stepper`] stands (the default: nowhere, for a chain that does not step).
#[derive(Clone, Copy)]
pub(crate) struct StepAt {
    /// The chain's words between blocks (P domain).
    x: [__m128i; 4],
    /// The words and the S-box input inside the block in hand (and the input rotated by
    /// 16, which the paired round carries).
    y: [__m128i; 4],
    u: __m128i,
    b: __m128i,
    /// The block in hand (or the next one).
    next: usize,
    /// Steps done in the block in hand (0: none in hand).
    body: usize,
}

impl Default for StepAt {
    fn default() -> Self {
        // SAFETY: SSE2 is part of x86-64.
        let zero = unsafe { core::arch::x86_64::_mm_setzero_si128() };
        StepAt {
            x: [zero; 4],
            y: [zero; 4],
            u: zero,
            b: zero,
            next: 0,
            body: 0,
        }
    }
}

impl<'a, W: Paired> Stepper<'a, W> {
    /// Steps over `blocks` from the chaining value `state`, outputs into `out` (as far as
    /// it reaches), for a caller whose entry enables the kernel's features; with where the
    /// steps start.
    #[inline(always)]
    pub(super) fn new(
        cpu: W::Cpu,
        rk: &RoundKeys,
        state: &Block<Sm4>,
        blocks: &'a [Block<Sm4>],
        out: &'a mut [Block<Sm4>],
    ) -> (Self, StepAt) {
        let k = Consts::<W>::new(cpu);
        let words = lanes_p(cpu, &k, state);
        let x = words.map(|v| v.raw());
        let keys = p_keys(cpu, &k, rk).map(|k| k.raw());
        let paired = paired_chain();
        let stepper = Stepper {
            t: words[0],
            ak: AsmConsts::new(&k),
            bswap: k.bswap.raw(),
            pre: k.pre.raw(),
            pre_inv: matrix_reg::<W>(cpu, PRE_INV).raw(),
            keys,
            paired,
            kks: if paired {
                key_pairs(k.pre, &keys)
            } else {
                keys
            },
            blocks,
            out,
        };
        let at = StepAt {
            x,
            y: x,
            u: x[0],
            b: x[0],
            next: 0,
            body: 0,
        };
        (stepper, at)
    }

    /// Four rounds of the block in hand, taking the next block in first when none is;
    /// nothing once every block is done.
    #[inline(always)]
    pub(crate) fn step(&mut self, at: &mut StepAt) {
        if at.body == 0 {
            let Some(block) = self.blocks.get(at.next) else {
                return;
            };
            self.enter(at, block);
        }
        if self.paired {
            let mut ab = [at.u, at.b];
            paired_rounds(self.t, &self.ak, &self.kks, 4 * at.body, &mut at.y, &mut ab);
            [at.u, at.b] = ab;
        } else {
            four_rounds(
                self.t,
                &self.ak,
                &self.keys,
                4 * at.body,
                &mut at.y,
                &mut at.u,
            );
        }
        at.body += 1;
        if at.body == 8 {
            let y = at.y;
            at.x = [y[3], y[2], y[1], y[0]];
            let block = self.leave(&at.x);
            if let Some(o) = self.out.get_mut(at.next) {
                *o = block;
            }
            at.next += 1;
            at.body = 0;
        }
    }

    /// The block's input joins the chain's words ([`chain_block`]'s start).
    #[inline(always)]
    fn enter(&self, at: &mut StepAt, block: &Block<Sm4>) {
        let (x, key) = (at.x, self.keys[0]);
        // SAFETY: SSE2 and SSSE3 (`pshufb`), which every x86-64 kernel with GFNI has (the
        // proof `t` carries); the load reads the block's 16 bytes.
        unsafe {
            let m = _mm_shuffle_epi8(_mm_loadu_si128(block.as_ptr().cast()), self.bswap);
            let m = affine_asm(m, self.pre);
            let y = [
                _mm_xor_si128(x[0], _mm_shuffle_epi32::<0x00>(m)),
                _mm_xor_si128(x[1], _mm_shuffle_epi32::<0x55>(m)),
                _mm_xor_si128(x[2], _mm_shuffle_epi32::<0xaa>(m)),
                _mm_xor_si128(x[3], _mm_shuffle_epi32::<0xff>(m)),
            ];
            at.u = _mm_xor_si128(_mm_xor_si128(y[1], y[2]), _mm_xor_si128(key, y[3]));
            at.b = _mm_shuffle_epi8(at.u, self.ak.rot16);
            at.y = y;
        }
    }

    /// The block of the chain's words `x`, out of the P domain ([`leave_p`]).
    #[inline(always)]
    fn leave(&self, x: &[__m128i; 4]) -> Block<Sm4> {
        let mut out = Block::<Sm4>::default();
        // SAFETY: SSE2 and SSSE3 (`pshufb`), as in `enter`; the store writes the block's
        // 16 bytes.
        unsafe {
            let v = _mm_unpacklo_epi64(
                _mm_unpacklo_epi32(x[0], x[1]),
                _mm_unpacklo_epi32(x[2], x[3]),
            );
            let v = affine_asm(_mm_shuffle_epi8(v, self.bswap), self.pre_inv);
            _mm_storeu_si128(out.as_mut_ptr().cast(), v);
        }
        out
    }

    /// Finishes the block in hand from `at`; the chaining value, with the blocks not yet
    /// started and the outputs not yet written.
    #[inline(always)]
    pub(super) fn rest(
        mut self,
        mut at: StepAt,
    ) -> (Block<Sm4>, &'a [Block<Sm4>], &'a mut [Block<Sm4>]) {
        while at.body != 0 {
            self.step(&mut at);
        }
        let state = self.leave(&at.x);
        let out = core::mem::take(&mut self.out);
        let from = at.next.min(out.len());
        (state, &self.blocks[at.next..], &mut out[from..])
    }
}

/// The P-domain round keys are key material.
#[cfg(feature = "zeroize")]
impl<W> Drop for Stepper<'_, W> {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.keys);
        zeroize::Zeroize::zeroize(&mut self.kks);
    }
}

/// The bytes of `x` each by the bit matrix in both 64-bit lanes of `m`
/// (`gf2p8affineqb`, no constant), in `asm!` so that its caller needs no GFNI target
/// feature ([`Stepper`]): call only with GFNI proven (a [`LowHalf`] register's token).
#[inline(always)]
fn affine_asm(x: __m128i, m: __m128i) -> __m128i {
    let y;
    // SAFETY: registers only (no memory, no stack); GFNI and AVX (VEX encoding on
    // xmm0–15), which the caller proves (see above).
    unsafe {
        core::arch::asm!(
            "vgf2p8affineqb {y}, {x}, {m}, 0",
            y = lateout(xmm_reg) y,
            x = in(xmm_reg) x,
            m = in(xmm_reg) m,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    y
}

/// The block whose words are P⁻¹ of `y`'s lanes (leaving the P domain): the words
/// gathered first, then one `gf2p8affineqb` for the block (P⁻¹ is bytewise).
#[inline(always)]
fn leave_p<W: GfniAffine>(cpu: W::Cpu, k: &Consts<W>, y: &[W; 4]) -> Block<Sm4> {
    let pre_inv = matrix_reg::<W>(cpu, PRE_INV);
    let mut result = [Block::<Sm4>::default()];
    y[0].unpack_lo32(y[1])
        .unpack_lo64(y[2].unpack_lo32(y[3]))
        .shuffle(k.bswap)
        .affine::<0>(pre_inv)
        .store(&mut result);
    result[0]
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::x86::GfniAvx512;

    /// Both chains' final states and outputs over `blocks` from `state`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,gfni")]
    fn both(
        cpu: GfniAvx512,
        rk: &RoundKeys,
        state: Block<Sm4>,
        blocks: &[Block<Sm4>],
    ) -> [(Block<Sm4>, [Block<Sm4>; 24]); 2] {
        let k = Consts::<Vl128<GfniAvx512>>::new(cpu);
        let keys = p_keys(cpu, &k, rk).map(|k| k.raw());
        let kks = key_pairs(k.pre, &keys);
        let mut runs = [(state, [Block::<Sm4>::default(); 24]); 2];
        let [low, paired] = &mut runs;
        run_chain(cpu, &k, &keys, &Low(&keys), &mut low.0, blocks, &mut low.1);
        run_chain(
            cpu,
            &k,
            &keys,
            &Pair(&kks),
            &mut paired.0,
            blocks,
            &mut paired.1,
        );
        runs
    }

    /// The paired round's chain against [`LowHalf`]'s, whichever of the two this CPU's
    /// `chain` picks (the suite's engine tests cover that one against the portable code):
    /// 24 blocks under 16 keys from a simple generator, every output compared.
    #[test]
    fn paired_chain_equals_low_chain() {
        let available = shangmi_dispatch::Available::check(crate::Backend::GfniAvx512);
        let Some(cpu) = available.and_then(GfniAvx512::new) else {
            std::eprintln!("skipped: this CPU has no gfni-avx512");
            return;
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut byte = || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 56) as u8
        };
        for _ in 0..16 {
            let key: [u8; 16] = core::array::from_fn(|_| byte());
            let rk = crate::key::expand(&key, crate::soft::tau);
            let state = Block::<Sm4>::from(core::array::from_fn::<u8, 16, _>(|_| byte()));
            let blocks: [Block<Sm4>; 24] = core::array::from_fn(|_| {
                Block::<Sm4>::from(core::array::from_fn::<u8, 16, _>(|_| byte()))
            });
            // SAFETY: `cpu` proves AVX-512F/BW/VL, AVX2 and GFNI.
            let [low, paired] = unsafe { both(cpu, &rk, state, &blocks) };
            assert_eq!(low, paired);
        }
    }
}
