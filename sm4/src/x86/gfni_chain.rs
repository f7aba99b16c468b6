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
//! `gf2p8affineinvqb` (3 of them, in parallel), a byte rotation and two XOR levels:
//! [`Direct`]. [`Rotated`] also carries the input rotated by 24 bits, so one of the four
//! terms needs no rotation and one three-way XOR level follows the rotations. The state
//! leaves the y domain by P⁻¹ once at the end. (Our construction; the domain change is the
//! usual "merge linear layers into the S-box tables" of table-based AES.)
//!
//! Measured on AMD Zen 5 (4.5 GHz; `gf2p8affineinvqb` 3 cycles, two per cycle;
//! `vpternlogd`, `vprold`, `vpshufb`, `vpxor` 2 cycles each), cycles per round: `Direct`
//! 11.1 in the chain (its dependency path alone is 9), `Rotated` 10.3 (path 7; the extra
//! work competes for the same ports), against 13.5 for the generic single block.
//!
//! On AMD Zen 4 (`benches/examples/floors.rs`): the dependency path is 6.0 cycles a round
//! (`gf2p8affineinvqb` 3, a byte rotation 2, `vpternlogd` 1), and `Rotated`'s round, whose
//! rotations the compiler makes `vprold` on the two units of `gf2p8affineinvqb`, ran 8.3–8.5
//! cycles in the chain; so `Rotated` is `asm!` ([`round_rotated`]), with two of its four
//! rotations on `vpshufb`: 8.2 cycles a round in the chain, its loop of four rounds alone
//! 7.8 (against 8.3), both in one alternated run on a busy machine. Entering and leaving
//! the P domain takes one `gf2p8affineqb` a block each way (P is bytewise, so it maps the
//! whole block around the byte shuffles), three fewer instructions each way on the S-box
//! units beside the chain: CBC encryption 8 KiB 8.03–8.13 → 8.06 cycles a round, CBC-MAC
//! 8.01 → 7.95 (Zen 4, three alternated runs). The chain runs the rounds as
//! [`round_paired`] (three XORs at a round's end instead of four) and starts each block
//! beside the last round of the one before ([`rotated_chain`]): CBC encryption 8 KiB
//! 8.06 → 7.97 cycles a round, CBC-MAC 7.95 → 7.86 (Zen 4, best of 300 in each of two
//! alternated runs; the output's place in the next block and the loop's split moved CBC
//! between 7.85 and 8.7, so they are the measured best).
//!
//! The registers are the kernel's own (`super::words`: `Vl128` on `gfni-avx512`, `X128`
//! on `gfni-avx2`), which carry its token; the only `unsafe` is `Rotated`'s `asm!` round.
//!
//! `Rotated`'s chain can run a hook's steps between its rounds (`crate::ChainHook`, after
//! every eight, in every block but the last): a record layer's HMAC-SM3 four rounds at a
//! time on the general-purpose ALUs, which the chain leaves idle. With `()` (every other
//! caller) the steps vanish and the rounds are the same instructions as without them.

use core::arch::x86_64::__m128i;

use cipher::Block;

use crate::simd::{BSWAP32, Single, Word};
use crate::{ChainHook, Sm4, key::RoundKeys};

use super::words::{Avx512vl, Gfni, GfniAffine, Raw, Vl128};
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

/// Round `I` (mod 4) of [`Direct`]: `y[I] ^= P·L(S(u))`, and `u` becomes the next round's
/// S-box input.
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

/// The 32 rounds of one block in the P domain, in one of two shapes.
pub(super) trait Rounds<W> {
    /// The round keys in the form the rounds use.
    type Keys;
    /// The keys from the round keys.
    fn keys(cpu: W::Cpu, k: &Consts<W>, rk: &RoundKeys) -> Self::Keys
    where
        W: Word;
    /// The chain from `run`'s state through its blocks; the last words. `hook` steps
    /// between the rounds where the shape does that ([`Rotated`]; see `crate::ChainHook`).
    fn chain<H: ChainHook>(run: Run<'_, W, Self::Keys>, hook: &mut H) -> [W; 4]
    where
        W: Single + GfniAffine;
}

/// A chain ready to run: the kernel's token, its registers, the keys in the rounds' form,
/// the state's words (P domain), the blocks and where their outputs go (`out[i]` for each
/// i < `out.len()`).
pub(super) struct Run<'a, W: Word, K> {
    cpu: W::Cpu,
    k: &'a Consts<W>,
    keys: &'a K,
    y: [W; 4],
    blocks: &'a [Block<Sm4>],
    out: &'a mut [Block<Sm4>],
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
/// [`Direct`]'s round: a pass of one or two groups costs its rounds' latency, and this
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

/// [`Direct`]'s 32 rounds on `N` groups of words already in the P domain, interleaved
/// (the chain's blocks and the short passes' groups): each group's first S-box input, then
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

/// The round with one S-box input: three `gf2p8affineinvqb`, the rotations, then the
/// XORs; for kernels whose XORs take two inputs (`gfni-avx2`), where [`Rotated`] has as
/// many XOR levels and more work.
pub(super) struct Direct;

impl<W: GfniAffine> Rounds<W> for Direct {
    type Keys = [W; 32];
    #[inline(always)]
    fn keys(cpu: W::Cpu, k: &Consts<W>, rk: &RoundKeys) -> [W; 32] {
        p_keys(cpu, k, rk)
    }
    /// Block after block; never steps `hook` (only `gfni-avx512`, on [`Rotated`], does).
    #[inline(always)]
    fn chain<H: ChainHook>(run: Run<'_, W, [W; 32]>, _hook: &mut H) -> [W; 4]
    where
        W: Single,
    {
        let Run {
            cpu,
            k,
            keys,
            y: mut x,
            blocks,
            out,
        } = run;
        let mut out = out.iter_mut();
        for block in blocks {
            let m = lanes_p(cpu, k, block);
            let mut y = [[0, 1, 2, 3].map(|i| x[i].xor(m[i]))];
            direct_rounds(k, keys, &mut y);
            let [y] = y;
            x = [y[3], y[2], y[1], y[0]];
            if let Some(o) = out.next() {
                *o = leave_p(cpu, k, &x);
            }
        }
        x
    }
}

/// The round that also carries its input rotated by 24 bits, so that one S-box output
/// needs no rotation and the input of the next round is one three-way XOR after the
/// rotations instead of two: for kernels with `vpternlogd` (`gfni-avx512`), in `asm!`
/// ([`round_rotated`]).
pub(super) struct Rotated;

/// [`Rotated`]'s keys: P·rk_i ⊕ c, and the sums of neighbours `pairs[i]` = `keys[i + 1] ⊕
/// keys[i + 2]`.
pub(super) struct RotatedKeys {
    keys: [__m128i; 32],
    pairs: [__m128i; 32],
}

/// The chain's registers between two rounds i − 1 and i: the words in the P domain, round
/// i's S-box input `u` and its rotation by 24 bits `v`, and what round i XORs into the
/// next input (`o`, and `o24` rotated by 24 bits).
struct State {
    y: [__m128i; 4],
    u: __m128i,
    v: __m128i,
    o: __m128i,
    o24: __m128i,
}

/// The `asm!` of a [`Rotated`] round, for [`round_rotated`] and [`round_paired`]: the five
/// S-box steps, the round's own `$mid` lines, the rotations and the joins into u' (`r0`) and
/// v', then its `$tail`; the operands in one order, the round's own `$ins` (after `o24`) and
/// `$outs` (after `t`) among them, so each round's code is what it would be written out;
/// the `unsafe` block with it.
macro_rules! rotated_asm {
    (
        ($k:ident, $st:ident, $x3:ident, $key:ident, $pair:ident, $u:ident),
        [$($mid:literal),* $(,)?],
        [$($tail:literal),+ $(,)?],
        [$($ins:tt)*],
        [$($outs:tt)*] $(,)?
    ) => {
        // SAFETY: registers only (no memory, no stack); GFNI, AVX-512F and AVX-512VL (EVEX
        // `vprold`, `vpternlogd`, registers xmm16–31), which the round using this enables.
        unsafe {
        core::arch::asm!(
            "vgf2p8affineinvqb {r1:x}, {u:x}, {g1:x}, {c1}",
            "vgf2p8affineinvqb {r3:x}, {u:x}, {g3:x}, {c3}",
            "vgf2p8affineinvqb {r0:x}, {u:x}, {g0:x}, {c0}",
            "vgf2p8affineinvqb {t:x}, {v:x}, {g3:x}, {c3}",
            "vgf2p8affineinvqb {v:x}, {v:x}, {g0:x}, {c0}",
            $($mid,)*
            // o ⊕ r0 ⊕ rot24(r3); o24 ⊕ rot24(r0) ⊕ r1.
            "vpternlogd {r0:x}, {o:x}, {t:x}, 0x96",
            "vpternlogd {v:x}, {o24:x}, {r1:x}, 0x96",
            "vprold {t:x}, {r1:x}, 8",
            "vpshufb {r1:x}, {r1:x}, {m16:x}",
            "vprold {r3:x}, {r3:x}, 16",
            // u' and v'.
            "vpternlogd {r0:x}, {t:x}, {r1:x}, 0x96",
            "vpternlogd {v:x}, {t:x}, {r3:x}, 0x96",
            $($tail,)+
            u = in(zmm_reg) $st.u,
            v = inout(zmm_reg) $st.v,
            o = in(zmm_reg) $st.o,
            o24 = inout(zmm_reg) $st.o24,
            $($ins)*
            x3 = in(zmm_reg) $x3,
            key = in(zmm_reg) $key,
            pair = in(zmm_reg) $pair,
            g0 = in(zmm_reg) $k.g0,
            g1 = in(zmm_reg) $k.g1,
            g3 = in(zmm_reg) $k.g3,
            m16 = in(zmm_reg) $k.rot16,
            m24 = in(zmm_reg) $k.rot24,
            c0 = const G0_C,
            c1 = const G1_C,
            c3 = const G3_C,
            r0 = out(zmm_reg) $u,
            r1 = out(zmm_reg) _,
            r3 = out(zmm_reg) _,
            t = out(zmm_reg) _,
            $($outs)*
            options(pure, nomem, nostack),
        )
        }
    };
}

/// Round `I` (mod 4) of [`Rotated`] on `gfni-avx512`'s registers, with `key` = P·rk_{i+1}
/// ⊕ c and `pair` = `key` ⊕ P·rk_{i+2} ⊕ c.
///
/// P·L(S(u)) = r0 ⊕ rot8(r1) ⊕ rot16(r1) ⊕ rot24(r3) with r_d = P·C_d·S(u) (C_1 = C_2),
/// and each r_d commutes with rotations (a bytewise map), so rot24(r3) is P·C_3·S(v):
/// from `v` it needs no rotation after the S-box. The next input u' = o ⊕ r0 ⊕ rot24(r3)
/// (one three-way XOR as soon as the S-box is done) ⊕ rot8(r1) ⊕ rot16(r1): S-box,
/// rotation, three-way XOR. v' = rot24(u') comes the same way (rot24(P·L(S(u))) =
/// rot24(r0) ⊕ r1 ⊕ rot8(r1) ⊕ rot16(r3), rot24(r0) from `v`). With X_j the words
/// (`y[I]` = X_i, …), the new word X_{i+4} = u' ⊕ X_{i+2} ⊕ X_{i+3} ⊕ key_{i+1}, and the
/// next round's o = X_{i+3} ⊕ X_{i+4} ⊕ X_{i+1} ⊕ key_{i+2} = u' ⊕ X_{i+1} ⊕ X_{i+2} ⊕
/// pair, o24 = rot24(o): nothing else waits for u'.
///
/// In `asm!` because the compiler lowers every byte rotation to `vprold`, which runs on the
/// two units of `gf2p8affineinvqb` (Zen 4): five S-box steps and three rotations on those
/// two units took 7.0 cycles a round, above the 6.0-cycle dependency path. Here two of the
/// four rotations are `vpshufb` (another unit): r1's by 16 and o's by 24. Of the splits
/// timed as the kernel's loop of four rounds (`benches/examples/floors.rs`, Zen 4), this
/// one ran 7.8 cycles a round; r1's by 8 and r3's by 16 on `vpshufb` 8.0–8.1, three
/// `vprold` and o's on `vpshufb` 8.1–8.3, all four `vprold` (the compiler's) 8.3.
#[target_feature(enable = "avx512f,avx512vl,gfni")]
#[inline]
fn round_rotated<const I: usize>(k: &AsmConsts, st: &mut State, key: __m128i, pair: __m128i) {
    let (x1, x2, x3) = (st.y[(I + 1) % 4], st.y[(I + 2) % 4], st.y[(I + 3) % 4]);
    let (u, x4);
    rotated_asm!(
        (k, st, x3, key, pair, u),
        [
            "vpxord {k2:x}, {x2:x}, {pair:x}",
            "vpxord {k3:x}, {x3:x}, {key:x}",
        ],
        [
            // X_{i+4}, o and o24 of the next round.
            "vpternlogd {k3:x}, {r0:x}, {x2:x}, 0x96",
            "vpternlogd {k2:x}, {r0:x}, {x1:x}, 0x96",
            "vpshufb {o24:x}, {k2:x}, {m24:x}",
        ],
        [x1 = in(zmm_reg) x1, x2 = in(zmm_reg) x2,],
        [k2 = out(zmm_reg) st.o, k3 = out(zmm_reg) x4,],
    );
    st.u = u;
    st.y[I] = x4;
}

/// Round `I` (mod 4) of [`Rotated`] as the chain runs it: [`round_rotated`]'s S-box steps,
/// rotations and next input, with the words kept so that the round ends in three XOR
/// instructions instead of four.
///
/// With D_j = X_j ⊕ X_{j+1} (`d[j % 2]` holds the one the next round but one needs): the
/// next round's o = u' ⊕ D_{i+1} ⊕ `pair`, D_{i+3} = u' ⊕ X_{i+2} ⊕ `key` (X_{i+2}, dead
/// after this round, is overwritten), and X_{i+4} = D_{i+3} ⊕ X_{i+3}: the same values as
/// [`round_rotated`]'s (u' ⊕ X_{i+1} ⊕ X_{i+2} ⊕ `pair` and u' ⊕ X_{i+2} ⊕ X_{i+3} ⊕
/// `key`), without its two key XORs; the new word waits one XOR more, off the chain.
/// Loop of four rounds alone on Zen 4 (timed as in `benches/examples/floors.rs`): 7.5
/// cycles a round against [`round_rotated`]'s 7.78; the order of the last four instructions matters
/// (`o24`'s shuffle before D's XOR: 7.8).
#[target_feature(enable = "avx512f,avx512vl,gfni")]
#[inline]
fn round_paired<const I: usize>(
    k: &AsmConsts,
    st: &mut State,
    d: &mut [__m128i; 2],
    key: __m128i,
    pair: __m128i,
) {
    let (d1, x2, x3) = (d[(I + 1) % 2], st.y[(I + 2) % 4], st.y[(I + 3) % 4]);
    let (u, x4, o, d3);
    rotated_asm!(
        (k, st, x3, key, pair, u),
        [],
        [
            // The next o (over D_{i+1}), D_{i+3} (over X_{i+2}), o24, X_{i+4}.
            "vpternlogd {d1:x}, {r0:x}, {pair:x}, 0x96",
            "vpternlogd {x2:x}, {r0:x}, {key:x}, 0x96",
            "vpshufb {o24:x}, {d1:x}, {m24:x}",
            "vpxord {x4:x}, {x2:x}, {x3:x}",
        ],
        [d1 = inout(zmm_reg) d1 => o, x2 = inout(zmm_reg) x2 => d3,],
        [x4 = out(zmm_reg) x4,],
    );
    st.u = u;
    st.o = o;
    st.y[I] = x4;
    d[(I + 1) % 2] = d3;
}

/// [`Rotated`]'s rounds `FROM` to `TO` − 1 ([`round_paired`]; `FROM` and `TO` multiples
/// of 4, with round 31 only if `ALL`, by [`round_rotated`]); `keys` and `pairs` as in
/// [`RotatedKeys`], `d` as [`round_paired`] leaves it; `hook`'s step after rounds 7, 15
/// and 23 and after round 30 (for `()`, nothing). Always inlined, so that a hook's step
/// lands in the chain's loop however large it is (a `target_feature` function of its own,
/// with a step inside, was called rather than inlined, the chain's state spilled around
/// each call); the token `_f` proves the round functions' features.
#[inline(always)]
fn rotated_rounds<F: Gfni + Avx512vl, const FROM: usize, const TO: usize, const ALL: bool, H>(
    _f: F,
    k: &AsmConsts,
    st: &mut State,
    d: &mut [__m128i; 2],
    keys: &[__m128i; 32],
    pairs: &[__m128i; 32],
    hook: &mut H,
) where
    H: ChainHook,
{
    for r in (FROM..TO.min(28)).step_by(4) {
        // SAFETY: the token `F` (`Gfni + Avx512vl`) proves GFNI, AVX-512F and AVX-512VL,
        // the features the round functions enable.
        unsafe {
            round_paired::<0>(k, st, d, keys[r + 1], pairs[r]);
            round_paired::<1>(k, st, d, keys[r + 2], pairs[r + 1]);
            round_paired::<2>(k, st, d, keys[r + 3], pairs[r + 2]);
            round_paired::<3>(k, st, d, keys[r + 4], pairs[r + 3]);
        }
        if (r + 4) % 8 == 0 {
            hook.step();
        }
    }
    if TO == 32 {
        // SAFETY: as above.
        unsafe {
            round_paired::<0>(k, st, d, keys[29], pairs[28]);
            round_paired::<1>(k, st, d, keys[30], pairs[29]);
            round_paired::<2>(k, st, d, keys[31], pairs[30]);
        }
        hook.step();
        if ALL {
            // SAFETY: as above.
            unsafe { round_rotated::<3>(k, st, keys[0], pairs[31]) };
        }
    }
}

/// [`Consts`] as raw vectors for [`round_rotated`].
struct AsmConsts {
    g0: __m128i,
    g1: __m128i,
    g3: __m128i,
    rot16: __m128i,
    rot24: __m128i,
}

impl<F: Gfni + Avx512vl> Rounds<Vl128<F>> for Rotated {
    type Keys = RotatedKeys;
    #[inline(always)]
    fn keys(cpu: <Vl128<F> as Word>::Cpu, k: &Consts<Vl128<F>>, rk: &RoundKeys) -> RotatedKeys {
        let keys = p_keys(cpu, k, rk);
        let mut pairs = [k.pre.raw(); 32];
        for (i, pair) in pairs.iter_mut().enumerate() {
            *pair = keys[(i + 1) % 32].xor(keys[(i + 2) % 32]).raw();
        }
        RotatedKeys {
            keys: keys.map(|k| k.raw()),
            pairs,
        }
    }
    /// [`rotated_chain`]; where there is no output (CBC-MAC, CMAC, CCM's MAC) with the
    /// loop of rounds split after round 3, else after round 15 (Zen 4: each the faster
    /// for its case).
    #[inline(always)]
    fn chain<H: ChainHook>(run: Run<'_, Vl128<F>, RotatedKeys>, hook: &mut H) -> [Vl128<F>; 4] {
        if run.out.is_empty() {
            rotated_chain::<F, 4, H>(run, hook)
        } else {
            rotated_chain::<F, 16, H>(run, hook)
        }
    }
}

/// [`Rounds::chain`] for [`Rotated`]: block after block, but each block after the first
/// starts from round 30's outputs of the one before, beside that block's round 31 (the
/// next S-box input does not need round 31). With m the next block's words (P domain),
/// its first S-box input is u₃₁ ⊕ key₃₁ ⊕ key₀ ⊕ m₁ ⊕ m₂ ⊕ m₃ (u₃₁ = X₃₂ ⊕ X₃₃ ⊕ X₃₄ ⊕
/// key₃₁, its words X₃₄ ⊕ m₁, X₃₃ ⊕ m₂, X₃₂ ⊕ m₃), one XOR after round 30 instead of the
/// new words' XORs and a rotation; and round 31's `o` (u'₃₁ ⊕ X₃₂ ⊕ X₃₃ ⊕ `pair`, with
/// X₃₂ replaced by X₃₂ ⊕ X₃₃ ⊕ X₃₄ ⊕ m₀ ⊕ m₂ ⊕ m₃) is the next block's first `o`, X₃₅ ⊕
/// m₀ ⊕ X₃₃ ⊕ m₂ ⊕ X₃₂ ⊕ m₃ ⊕ key₁ (X₃₅ = u'₃₁ ⊕ X₃₃ ⊕ X₃₄ ⊕ key₀), its rotation as in
/// every round.
///
/// Each block's output is written `SPLIT` rounds (a multiple of 4) into the next block;
/// `hook` steps four times a block ([`rotated_rounds`]), but not in the last block.
#[inline(always)]
fn rotated_chain<F: Gfni + Avx512vl, const SPLIT: usize, H: ChainHook>(
    run: Run<'_, Vl128<F>, RotatedKeys>,
    hook: &mut H,
) -> [Vl128<F>; 4] {
    let Run {
        cpu,
        k,
        keys,
        y,
        blocks,
        out,
    } = run;
    let Some((first, rest)) = blocks.split_first() else {
        return y;
    };
    let (p, kr) = (&keys.pairs, &keys.keys);
    let w = |v| y[0].with(v);
    // [X₂ ⊕ X₃, X₁ ⊕ X₂] of the words [X₀, X₁, X₂, X₃], as `round_paired` takes them.
    let pairs_of = |y: &[__m128i; 4]| [w(y[2]).xor(w(y[3])).raw(), w(y[1]).xor(w(y[2])).raw()];
    let m = lanes_p(cpu, k, first);
    let mut st = rotated_entry(k, keys, [0, 1, 2, 3].map(|i| y[i].xor(m[i])));
    let mut d = pairs_of(&st.y);
    let ak = AsmConsts::new(k);
    let ends = w(kr[31]).xor(w(kr[0]));
    let mut out = out.iter_mut();
    let mut write = |x: &[Vl128<F>; 4]| {
        if let Some(o) = out.next() {
            *o = leave_p(cpu, k, x);
        }
    };
    let mut pending: Option<[Vl128<F>; 4]> = None;
    for block in rest {
        let m = lanes_p(cpu, k, block);
        let cu = ends.xor3(m[1], m[2].xor(m[3]));
        let (cv, co) = (cu.shuffle(k.rot24), m[0].xor3(m[2], m[3]));
        rotated_rounds::<F, 0, SPLIT, false, H>(cpu, &ak, &mut st, &mut d, kr, p, hook);
        if let Some(x) = pending.take() {
            write(&x);
        }
        rotated_rounds::<F, SPLIT, 32, false, H>(cpu, &ak, &mut st, &mut d, kr, p, hook);
        let [x32, x33, x34, x31] = st.y.map(w);
        let mut last = State {
            y: [
                x32.xor3(x33, x34.xor(co)).raw(),
                x33.raw(),
                x34.raw(),
                x31.raw(),
            ],
            ..st
        };
        // SAFETY: the token `F` (`Gfni + Avx512vl`) proves GFNI, AVX-512F and
        // AVX-512VL.
        unsafe { round_rotated::<3>(&ak, &mut last, kr[0], p[31]) };
        let x = [w(last.y[3]), x34, x33, x32];
        pending = Some(x);
        st = State {
            y: [0, 1, 2, 3].map(|i| x[i].xor(m[i]).raw()),
            u: w(st.u).xor(cu).raw(),
            v: w(st.v).xor(cv).raw(),
            o: last.o,
            o24: last.o24,
        };
        d = pairs_of(&st.y);
    }
    // The last block without the hook's steps: its code is then inlined into the loop's
    // four places only, not eight (a hooked chain is a record's, often run with the
    // instruction cache cold, where its size costs more than the last block's overlap).
    rotated_rounds::<F, 0, SPLIT, false, ()>(cpu, &ak, &mut st, &mut d, kr, p, &mut ());
    if let Some(x) = pending {
        write(&x);
    }
    rotated_rounds::<F, SPLIT, 32, true, ()>(cpu, &ak, &mut st, &mut d, kr, p, &mut ());
    let x = [w(st.y[3]), w(st.y[2]), w(st.y[1]), w(st.y[0])];
    write(&x);
    x
}

/// [`Rotated`]'s registers before round 0 of the block whose words are `y`.
#[inline(always)]
fn rotated_entry<F: Gfni + Avx512vl>(
    k: &Consts<Vl128<F>>,
    keys: &RotatedKeys,
    y: [Vl128<F>; 4],
) -> State {
    let (k0, k1) = (y[0].with(keys.keys[0]), y[0].with(keys.keys[1]));
    let u = y[1].xor(y[2]).xor(k0.xor(y[3]));
    let o = y[2].xor3(y[3], k1.xor(y[0]));
    let (v, o24) = (u.shuffle(k.rot24), o.shuffle(k.rot24));
    State {
        y: y.map(|w| w.raw()),
        u: u.raw(),
        v: v.raw(),
        o: o.raw(),
        o24: o24.raw(),
    }
}

impl AsmConsts {
    #[inline(always)]
    fn new<F: Gfni + Avx512vl>(k: &Consts<Vl128<F>>) -> Self {
        AsmConsts {
            g0: k.g0.raw(),
            g1: k.g1.raw(),
            g3: k.g3.raw(),
            rot16: k.rot16.raw(),
            rot24: k.rot24.raw(),
        }
    }
}

/// The chain body: for each block, `state = E(state ⊕ block)`, written to `out[i]` too for
/// each i < `out.len()` (off the chain's critical path). `W` is the kernel's 128-bit
/// register, `R` the round's shape.
#[inline(always)]
pub(super) fn chain_body<W: Single + GfniAffine, R: Rounds<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    chain_with::<W, R, ()>(cpu, rk, state, (blocks, out), &mut ());
}

/// [`chain_body`] with `hook`'s steps between the rounds where the shape runs them
/// ([`Rounds::chain`]).
#[inline(always)]
pub(super) fn chain_with<W: Single + GfniAffine, R: Rounds<W>, H: ChainHook>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    (blocks, out): (&[Block<Sm4>], &mut [Block<Sm4>]),
    hook: &mut H,
) {
    let k = Consts::<W>::new(cpu);
    let keys = R::keys(cpu, &k, rk);
    let run = Run {
        cpu,
        k: &k,
        keys: &keys,
        y: lanes_p(cpu, &k, state),
        blocks,
        out,
    };
    let y = R::chain(run, hook);
    *state = leave_p(cpu, &k, &y);
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

/// EXPERIMENT: the round whose rotation by 16 is `vpshuflw` (valid in the low 64 bits).
pub(super) struct LowHalf;

#[target_feature(enable = "avx512f,avx512vl,gfni")]
#[inline]
fn round_low<const I: usize>(k: &AsmConsts, y: &mut [__m128i; 4], u: &mut __m128i, key: __m128i) {
    let (yi, y2, y3) = (y[I], y[(I + 2) % 4], y[(I + 3) % 4]);
    let (next, new);
    // SAFETY: registers only; GFNI, AVX-512F and AVX-512VL, which this function enables.
    unsafe {
        core::arch::asm!(
            "vgf2p8affineinvqb {r1:x}, {u:x}, {g1:x}, {c1}",
            "vgf2p8affineinvqb {r3:x}, {u:x}, {g3:x}, {c3}",
            "vgf2p8affineinvqb {r0:x}, {u:x}, {g0:x}, {c0}",
            "vpxord {o:x}, {yi:x}, {key:x}",
            "vpternlogd {o:x}, {y2:x}, {y3:x}, 0x96",
            "vpshuflw {b:x}, {r1:x}, 0xb1",
            "vprold {a:x}, {r1:x}, 8",
            "vprold {c:x}, {r3:x}, 24",
            "vpternlogd {o:x}, {r0:x}, {b:x}, 0x96",
            "vpternlogd {r0:x}, {yi:x}, {b:x}, 0x96",
            "vpternlogd {o:x}, {a:x}, {c:x}, 0x96",
            "vpternlogd {r0:x}, {a:x}, {c:x}, 0x96",
            u = in(zmm_reg) *u,
            yi = in(zmm_reg) yi,
            y2 = in(zmm_reg) y2,
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
    *u = next;
    y[I] = new;
}

impl<F: Gfni + Avx512vl> Rounds<Vl128<F>> for LowHalf {
    type Keys = [__m128i; 32];
    #[inline(always)]
    fn keys(cpu: <Vl128<F> as Word>::Cpu, k: &Consts<Vl128<F>>, rk: &RoundKeys) -> [__m128i; 32] {
        p_keys(cpu, k, rk).map(|k| k.raw())
    }
    #[inline(always)]
    fn chain<H: ChainHook>(run: Run<'_, Vl128<F>, [__m128i; 32]>, _hook: &mut H) -> [Vl128<F>; 4] {
        let Run {
            cpu,
            k,
            keys,
            y: mut x,
            blocks,
            out,
        } = run;
        let ak = AsmConsts::new(k);
        let z = x[0];
        let w = |v| z.with(v);
        let mut out = out.iter_mut();
        for block in blocks {
            let m = lanes_p(cpu, k, block);
            let y0 = [0, 1, 2, 3].map(|i| x[i].xor(m[i]));
            let mut u = y0[1].xor(y0[2]).xor(w(keys[0]).xor(y0[3])).raw();
            let mut y = y0.map(|v| v.raw());
            for r in (0..32).step_by(4) {
                // SAFETY: the token `F` proves GFNI, AVX-512F and AVX-512VL.
                unsafe {
                    round_low::<0>(&ak, &mut y, &mut u, keys[(r + 1) % 32]);
                    round_low::<1>(&ak, &mut y, &mut u, keys[(r + 2) % 32]);
                    round_low::<2>(&ak, &mut y, &mut u, keys[(r + 3) % 32]);
                    round_low::<3>(&ak, &mut y, &mut u, keys[(r + 4) % 32]);
                }
            }
            x = [y[3], y[2], y[1], y[0]].map(w);
            if let Some(o) = out.next() {
                *o = leave_p(cpu, k, &x);
            }
        }
        x
    }
}
