//! The CBC chain (CBC-MAC, CCM, CMAC, CBC and CFB encryption) on the AES-instruction
//! S-box (`aesni-avx2`, `aarch64-neon-aes`): narrow and latency-first, one block in four
//! registers that each hold one word in every lane.
//!
//! The round of `x86::gfni_chain` with nibble tables in place of GFNI: the state is kept
//! as y = P·x (P the linear part of the S-box's input map, bytewise), so the S-box's input
//! map folds into the state and the round keys (P·rk ⊕ PRE_C), and the AES round
//! (AESENCLAST / AESE with a zero key; ShiftRows does nothing to a register whose four
//! words are equal) starts the round. After it, P·C_d·(the rest of the S-box) is one
//! bytewise affine map H_d per byte distance d of L (L = Σ_d rot_{8d} ∘ C_d, C_1 = C_2),
//! applied by two 16-entry tables (`pshufb` / `tbl`) on the output's nibbles. A round is
//! then the AES round, the nibble split, three pairs of table lookups, three byte
//! rotations and the XORs: against the generic single block it drops the input map's
//! tables and L's rotations and shifts from the critical path (36 → about 16 two-input
//! operations deep). The state leaves the P domain once per block. That round is `Lookup`
//! (arm64).
//!
//! `MixColumns` (x86; our construction) lets the AES round's MixColumns do most of L: both
//! are circulant over the four bytes of a word (MixColumns' coefficients 2, 1, 1, 3 by
//! byte distance; L's C_0, C_1, C_1, C_3 with C_3 = C_0 ⊕ C_1, as 3 = 2 ⊕ 1), so
//! P·L(S(u)) = R(AESENC(u)) ⊕ (1 ⊕ rot24)(Q(AESENCLAST(u))) for two bytewise maps R and Q
//! (derived at `q_all`), AESENC and AESENCLAST running side by side: one rotation and two
//! table pairs instead of three rotations and three pairs. Its path on Zen 4 is 12 cycles
//! (AES 4, nibble split 2, `pshufb` 2, XOR, rotation 2, XOR) against 13, and it issues 21
//! instructions a round against 30 (Q's rotation is one `vpalignr` of the whole register, its
//! four words being equal; PERFORMANCE.md has the measurements).

use cipher::Block;

use super::AesLast;
#[cfg(target_arch = "x86_64")]
use super::AesMix;
use super::pdomain::{POST, POST_C, PRE, PRE_C, PRE_INV, apply, l_part};
use super::{BSWAP32, Single, Word};
use crate::{Sm4, key::RoundKeys};

/// The linear part of AES's S-box output map (SubBytes = A_aes·inv ⊕ 0x63).
const fn aes_affine(b: u8) -> u8 {
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4)
}

/// Its inverse (FIPS 197's InvSubBytes map without the constant).
const fn aes_affine_inverse(b: u8) -> u8 {
    b.rotate_left(1) ^ b.rotate_left(3) ^ b.rotate_left(6)
}

const _: () = {
    let mut b = 0;
    while b < 256 {
        assert!(aes_affine(aes_affine_inverse(b as u8)) == b as u8);
        b += 1;
    }
};

/// H_d: the AES round's output byte s to P·C_d·S's output: S's output is
/// POST·inv ⊕ POST_C and inv = A_aes⁻¹·(s ⊕ 0x63).
const fn h(d: usize, s: u8) -> u8 {
    apply(
        PRE,
        l_part(d, apply(POST, aes_affine_inverse(s ^ 0x63)) ^ POST_C),
    )
}

/// The low-nibble table of the affine map `f` (with its constant) and the high-nibble
/// table of its linear part, as `pshufb`/`tbl` operands: f(x) = lo\[x & 15\] ⊕ hi\[x >> 4\].
const fn tables(f: [u8; 256]) -> (u128, u128) {
    let (mut lo, mut hi) = ([0u8; 16], [0u8; 16]);
    let mut n = 0;
    while n < 16 {
        lo[n] = f[n];
        hi[n] = f[n << 4] ^ f[0];
        n += 1;
    }
    (u128::from_le_bytes(lo), u128::from_le_bytes(hi))
}

/// The table of every byte under H_d.
const fn h_all(d: usize) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut s = 0;
    while s < 256 {
        t[s] = h(d, s as u8);
        s += 1;
    }
    t
}

/// The table of every byte under the matrix `m` (Intel layout), then ⊕ `c`.
const fn matrix_all(m: u64, c: u8) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        t[x] = apply(m, x as u8) ^ c;
        x += 1;
    }
    t
}

/// Multiplication by 2 in the AES field (mod 0x11B).
#[cfg(target_arch = "x86_64")]
const fn xtime(b: u8) -> u8 {
    (b << 1) ^ if b & 0x80 != 0 { 0x1b } else { 0 }
}

/// Q for [`MixColumns`]: with y = inv(u) and A the AES S-box's linear map, AESENC gives
/// MC(A·y) and AESENCLAST A·y (both ⊕ 0x63). R = K_1·A⁻¹ (K_d = P·C_d·POST) matches L's
/// terms at distances 1 and 2 (MixColumns' coefficient 1); at distance 0 R·2·A leaves
/// K_0 ⊕ K_1·A⁻¹·2·A, which Q·A supplies, and the same Q·A completes distance 3
/// (R·3·A ⊕ Q·A = K_1 ⊕ K_0 = K_3). R with the constant is H_1; Q is linear (its
/// constant would cancel in (1 ⊕ rot24) anyway).
#[cfg(target_arch = "x86_64")]
const fn q_all() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut s = 0;
    while s < 256 {
        let k0 = apply(PRE, l_part(0, apply(POST, aes_affine_inverse(s as u8))));
        let k1 = apply(
            PRE,
            l_part(1, apply(POST, aes_affine_inverse(xtime(s as u8)))),
        );
        t[s] = k0 ^ k1;
        s += 1;
    }
    t
}

#[cfg(target_arch = "x86_64")]
const Q: (u128, u128) = tables(q_all());
const H1: (u128, u128) = tables(h_all(1));
const _: () = assert!(tables(h_all(2)).0 == H1.0 && tables(h_all(2)).1 == H1.1);
/// x to P·x; P·rk ⊕ PRE_C for the keys; y to P⁻¹·y.
const P: (u128, u128) = tables(matrix_all(PRE, 0));
const P_KEY: (u128, u128) = tables(matrix_all(PRE, PRE_C));
const P_INV: (u128, u128) = tables(matrix_all(PRE_INV, 0));
const LOW_NIBBLES: u128 = 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f;

/// A pair of nibble tables in registers.
#[derive(Clone, Copy)]
pub(crate) struct Nibbles<W> {
    lo: W,
    hi: W,
}

impl<W: Word> Nibbles<W> {
    #[inline(always)]
    fn new(cpu: W::Cpu, (lo, hi): (u128, u128)) -> Self {
        Nibbles {
            lo: W::bcast128(cpu, lo),
            hi: W::bcast128(cpu, hi),
        }
    }

    /// The map on the bytes whose nibbles are `lo` and `hi`.
    #[inline(always)]
    fn on(self, lo: W, hi: W) -> W {
        self.lo.shuffle(lo).xor(self.hi.shuffle(hi))
    }
}

/// The registers every round shape needs, loaded once.
pub(crate) struct Consts<W> {
    mask: W,
    bswap: W,
    p: Nibbles<W>,
}

impl<W: Word> Consts<W> {
    /// Loads them.
    #[inline(always)]
    fn new(cpu: W::Cpu) -> Self {
        Consts {
            mask: W::bcast128(cpu, LOW_NIBBLES),
            bswap: W::bcast128(cpu, BSWAP32),
            p: Nibbles::new(cpu, P),
        }
    }

    /// Splits every byte of `x` into its low and high nibbles.
    #[inline(always)]
    fn split(&self, x: W) -> (W, W) {
        (x.and(self.mask), x.shr4().and(self.mask))
    }

    /// `t` applied to every byte of `x`.
    #[inline(always)]
    fn map(&self, t: Nibbles<W>, x: W) -> W {
        let (lo, hi) = self.split(x);
        t.on(lo, hi)
    }
}

/// A round's shape: the next S-box input from this one's.
pub(crate) trait Round<W: Word> {
    /// The shape's own constants in registers.
    type Tables;
    /// Loads them.
    fn tables(cpu: W::Cpu) -> Self::Tables;
    /// The round with the previous round's bookkeeping: that round's word update is
    /// `pending` (its word becomes `u ⊕ pending`), `ahead` is y[I+2] ⊕ the next round key
    /// and `y_i` the word this round updates. Returns the next S-box input
    /// `others ⊕ P·L(S(u))`, the previous round's word and this round's `partial`
    /// (`ahead` ⊕ that word; its own word becomes the next S-box input ⊕ `partial`), with
    /// `others` = `partial` ⊕ `y_i`, ready long before P·L(S(u)).
    fn step(k: &Consts<W>, t: &Self::Tables, u: W, pending: W, ahead: W, y_i: W) -> [W; 3];
    /// `a ⊕ b` as written: the block entry's XORs, grouped so that the words the last
    /// rounds gave come last (the compiler would reassociate plain XORs).
    #[inline(always)]
    fn xor_kept(a: W, b: W) -> W {
        a.xor(b)
    }
    /// The register whose lane j is word j of the state (`y[j]` holds it in every lane).
    #[inline(always)]
    fn gather(y: &[W; 4]) -> W {
        y[0].unpack_lo32(y[1]).unpack_lo64(y[2].unpack_lo32(y[3]))
    }
}

/// The round on AESENCLAST alone (AESE on arm64): P·L(S(u)) = r0 ⊕ rot8(r1) ⊕ rot16(r1) ⊕
/// rot24(r3) with r_d = H_d(AES round of u): the AES round, the nibble split, the
/// lookups, a byte rotation and two XOR levels.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) struct Lookup;

/// [`Lookup`]'s tables: H_0, H_1, H_3 and the byte rotations by 8, 16, 24 bits.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) struct LookupTables<W> {
    h: [Nibbles<W>; 3],
    rot: [W; 3],
}

#[cfg(not(target_arch = "x86_64"))]
impl<W: AesLast> Round<W> for Lookup {
    type Tables = LookupTables<W>;
    #[inline(always)]
    fn tables(cpu: W::Cpu) -> LookupTables<W> {
        LookupTables {
            h: [
                Nibbles::new(cpu, tables(h_all(0))),
                Nibbles::new(cpu, H1),
                Nibbles::new(cpu, tables(h_all(3))),
            ],
            rot: [
                W::bcast128(
                    cpu,
                    u128::from_le_bytes([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14]),
                ),
                W::bcast128(
                    cpu,
                    u128::from_le_bytes([2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13]),
                ),
                W::bcast128(
                    cpu,
                    u128::from_le_bytes([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]),
                ),
            ],
        }
    }
    #[inline(always)]
    fn step(k: &Consts<W>, t: &LookupTables<W>, u: W, pending: W, ahead: W, y_i: W) -> [W; 3] {
        let word = u.xor(pending);
        let partial = ahead.xor(word);
        let others = partial.xor(y_i);
        let (lo, hi) = k.split(u.aes_last());
        let [h0, h1, h3] = t.h;
        let (r0, r1, r3) = (h0.on(lo, hi), h1.on(lo, hi), h3.on(lo, hi));
        let (a, b, c) = (
            r1.shuffle(t.rot[0]),
            r1.shuffle(t.rot[1]),
            r3.shuffle(t.rot[2]),
        );
        [others.xor(r0).xor(a).xor(b.xor(c)), word, partial]
    }
}

/// The round on AESENC and AESENCLAST (see the module comment): R (= H_1) on AESENC's
/// output, Q on AESENCLAST's, then Q's output rotated by 24 bits; one fixed instruction
/// sequence (`AesMix`).
#[cfg(target_arch = "x86_64")]
pub(crate) struct MixColumns;

#[cfg(target_arch = "x86_64")]
impl<W: AesMix> Round<W> for MixColumns {
    /// The nibble mask, R's tables, Q's tables.
    type Tables = [W; 5];
    #[inline(always)]
    fn tables(cpu: W::Cpu) -> [W; 5] {
        let (r, q) = (Nibbles::<W>::new(cpu, H1), Nibbles::<W>::new(cpu, Q));
        [W::bcast128(cpu, LOW_NIBBLES), r.lo, r.hi, q.lo, q.hi]
    }
    #[inline(always)]
    fn step(_: &Consts<W>, t: &[W; 5], u: W, pending: W, ahead: W, y_i: W) -> [W; 3] {
        u.mix_round(pending, ahead, y_i, t)
    }
    #[inline(always)]
    fn xor_kept(a: W, b: W) -> W {
        a.xor_kept(b)
    }
    #[inline(always)]
    fn gather(y: &[W; 4]) -> W {
        W::blend_words(y)
    }
}

/// AESENC with an all-zero round key, on a register that has it (x86's 128-bit ones):
/// MixColumns(ShiftRows(SubBytes(x))).
#[cfg(target_arch = "x86_64")]
pub(crate) trait AesEnc: AesLast {
    /// AESENC of `self` with a zero key.
    fn aes_enc(self) -> Self;
}

/// The 32 rounds on `N` groups in the transposed layout (each 32-bit lane a block's word,
/// or one block's words broadcast), interleaved, in the P domain with [`MixColumns`]'s
/// round: a pass of a few blocks costs the rounds' latency, and this round's path is
/// InvShiftRows, the AES round, one table pair, a rotation and two XORs, where the generic
/// one's also has the input map's tables, the output map's and L's rotations and XORs (Zen
/// 4: a pass of one to four blocks 862–869 → 640–658 cycles, about 27 → 20 a round). In
/// the transposed layout a column of the AES state is one block's word, so MixColumns
/// works on each word as in the chain; ShiftRows, which moves bytes between columns, is
/// undone ahead of both AES instructions (one `pshufb`), and the rotation by 24 bits is a
/// `pshufb` of each word.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn group_rounds<W: AesEnc, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    x: &mut [[W; 4]; N],
) {
    let k = Consts::new(cpu);
    let (r, q) = (Nibbles::<W>::new(cpu, H1), Nibbles::<W>::new(cpu, Q));
    let isr = W::bcast128(cpu, super::aes::INV_SHIFT_ROWS);
    let rot24 = W::bcast128(
        cpu,
        u128::from_le_bytes([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]),
    );
    let p_key = Nibbles::new(cpu, P_KEY);
    let mut keys = [k.mask; 32];
    for (key, &rk) in keys.iter_mut().zip(rk.iter()) {
        *key = k.map(p_key, W::splat(cpu, rk));
    }
    let mut y = *x;
    for g in y.iter_mut() {
        for w in g.iter_mut() {
            *w = k.map(k.p, *w);
        }
    }
    for i in (0..32).step_by(4) {
        // Round i + $r on every group, its word $r updated.
        macro_rules! round {
            ($($r:literal)*) => {$(
                for g in y.iter_mut() {
                    let u = g[($r + 1) % 4]
                        .xor3(g[($r + 2) % 4], keys[i + $r])
                        .xor(g[($r + 3) % 4])
                        .shuffle(isr);
                    let qu = k.map(q, u.aes_last());
                    let ru = k.map(r, u.aes_enc());
                    g[$r] = g[$r].xor(ru).xor(qu.xor(qu.shuffle(rot24)));
                }
            )*};
        }
        round!(0 1 2 3);
    }
    let p_inv = Nibbles::new(cpu, P_INV);
    for (g, y) in x.iter_mut().zip(y) {
        for (w, v) in g.iter_mut().zip(y) {
            *w = k.map(p_inv, v);
        }
    }
}

/// Round `I` (mod 4): `y[I] ^= P·L(S(u))`, and `u` becomes the next round's S-box input.
/// The update of `y[I]` is left `pending` (`y[I]` = the next `u` ⊕ `pending`) and done at
/// the start of the next round, after its AES instructions have issued: on Zen 4 the
/// bookkeeping's XORs ahead of them cost 0.5–0.8 cycles a round.
#[inline(always)]
fn round<W: Word, R: Round<W>, const I: usize>(
    k: &Consts<W>,
    t: &R::Tables,
    y: &mut [W; 4],
    u: &mut W,
    pending: &mut W,
    next_key: W,
) {
    // u' = y[I+2] ⊕ y[I+3] ⊕ y[I]' ⊕ key' with y[I]' = y[I] ⊕ P·L(S(u)); y[I+3] is the
    // previous round's word, updated here.
    let ahead = y[(I + 2) % 4].xor(next_key);
    let [next, word, partial] = R::step(k, t, *u, *pending, ahead, y[I]);
    y[(I + 3) % 4] = word;
    *u = next;
    *pending = partial;
}

/// The block's four big-endian words mapped by P, each broadcast to a register.
#[inline(always)]
fn enter<W: Single>(cpu: W::Cpu, k: &Consts<W>, block: &Block<Sm4>) -> [W; 4] {
    let x = W::load(cpu, core::slice::from_ref(block)).shuffle(k.bswap);
    k.map(k.p, x).lanes()
}

/// The block whose words are P⁻¹ of `y`'s lanes (leaving the P domain).
#[inline(always)]
fn leave<W: Word, R: Round<W>>(cpu: W::Cpu, k: &Consts<W>, y: &[W; 4]) -> Block<Sm4> {
    let y = R::gather(y);
    let mut result = [Block::<Sm4>::default()];
    k.map(Nibbles::new(cpu, P_INV), y)
        .shuffle(k.bswap)
        .store(&mut result);
    result[0]
}

/// The chain: for each block, `state = E(state ⊕ block)`, written to `out[i]` too for each
/// i < `out.len()` (off the chain's critical path).
#[inline(always)]
pub(crate) fn chain_body<W: Single, R: Round<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    let k = Consts::new(cpu);
    let t = R::tables(cpu);
    // P·rk ⊕ PRE_C per round (a plain loop: see `crate::simd`).
    let p_key = Nibbles::new(cpu, P_KEY);
    let mut keys = [k.mask; 32];
    for (key, &r) in keys.iter_mut().zip(rk.iter()) {
        *key = k.map(p_key, W::splat(cpu, r));
    }
    // Two loops, measured apart (Zen 4): the MACs' (no output) with the block entry's
    // XORs grouped as written, CBC/CFB encryption's with the compiler's grouping, each the
    // faster of the two for its mode.
    if out.is_empty() {
        blocks_loop::<W, R, false>(cpu, &k, &t, &keys, state, blocks, out);
    } else {
        blocks_loop::<W, R, true>(cpu, &k, &t, &keys, state, blocks, out);
    }
}

/// [`chain_body`]'s loop over the blocks, writing each block's output if `OUT`.
#[inline(always)]
fn blocks_loop<W: Single, R: Round<W>, const OUT: bool>(
    cpu: W::Cpu,
    k: &Consts<W>,
    t: &R::Tables,
    keys: &[W; 32],
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    let mut y = enter(cpu, k, state);
    // Word 0 of the next block's input before the plaintext, as `tail ⊕ tail_pending`: the
    // last round's S-box output and its pending bookkeeping, left unjoined so that the
    // plaintext word can join the bookkeeping off the chain.
    let (mut tail, mut tail_pending) = (y[0], k.mask.xor(k.mask));
    let mut out = out.iter_mut();
    for block in blocks {
        let m = enter(cpu, k, block);
        // Round 0's S-box input y1 ⊕ y2 ⊕ y3 ⊕ key 0 needs words 1-3 only, which the last
        // block's rounds 29-31 gave (word 1 = round 31's bookkeeping, ready with its
        // S-box input), so it overlaps round 31. In the MACs' loop it is one XOR after
        // word 1, the rest done ahead of it; in the encryption loop the compiler's
        // grouping (four XORs after word 1) measured faster (13.20 against 13.8 cycles a
        // round, Zen 4), the block's output shuffles then meeting fewer of the round's.
        let y2 = y[2].xor(m[2]);
        let y3 = y[3].xor(m[3]);
        let ahead = y2.xor(y3).xor(keys[0].xor(m[1]));
        let (mut u, y0) = if OUT {
            (y[1].xor(ahead), tail.xor(tail_pending.xor(m[0])))
        } else {
            (
                R::xor_kept(y[1], ahead),
                R::xor_kept(tail, R::xor_kept(tail_pending, m[0])),
            )
        };
        y = [y0, y[1].xor(m[1]), y2, y3];
        // Round 0's "previous round" leaves y[3] as it is.
        let mut pending = u.xor(y[3]);
        for r in (0..32).step_by(4) {
            round::<W, R, 0>(k, t, &mut y, &mut u, &mut pending, keys[r + 1]);
            round::<W, R, 1>(k, t, &mut y, &mut u, &mut pending, keys[r + 2]);
            round::<W, R, 2>(k, t, &mut y, &mut u, &mut pending, keys[r + 3]);
            round::<W, R, 3>(k, t, &mut y, &mut u, &mut pending, keys[(r + 4) % 32]);
        }
        (tail, tail_pending) = (u, pending);
        y = [y[3], y[2], y[1], y[0]];
        if OUT && let Some(o) = out.next() {
            let mut words = y;
            words[0] = tail.xor(tail_pending);
            *o = leave::<W, R>(cpu, k, &words);
        }
    }
    y[0] = tail.xor(tail_pending);
    *state = leave::<W, R>(cpu, k, &y);
}
