//! The SM4 rounds on SIMD registers holding one word of many blocks, generic over the
//! register type and the S-box technique (used by the x86-64 and aarch64 engines).
//!
//! Blocks are loaded, byte-swapped into big-endian words and transposed 4x4 within each
//! 128-bit lane, so register X_i holds word i of 4, 8 or 16 blocks (the layout of the
//! Linux kernel's sm4-aesni-avx2). The engines only pick the register type, the S-box and
//! how many independent register groups to interleave, inside a `target_feature` entry.
//!
//! Every function here is `#[inline(always)]` so that it is compiled inside the engine's
//! `target_feature` entry; a closure handed to a std adaptor (`array::from_fn`,
//! `for_each`) may stay out of line and lose that, so plain loops are used instead.

use cipher::{Block, inout::InOutBuf};

use crate::{Sm4, key::RoundKeys};

mod aes;
pub(crate) mod aes_chain;
pub(crate) mod pdomain;
#[cfg(target_arch = "x86_64")]
pub(crate) use aes::AesMix;
pub(crate) use aes::{AesLast, AesSbox, AesSboxBroadcast};

/// One SIMD register seen as 32-bit lanes.
///
/// A register is made only from a proof [`Word::Cpu`] that its instructions run here (the
/// constructors take one; the register types keep their fields private), or from another
/// register: so its methods, safe and `#[inline(always)]`, may run the instructions. Each
/// engine's entry enables the features with `target_feature` so that they inline.
pub(crate) trait Word: Copy {
    /// The proof that this register's instructions run here: a kernel token (see
    /// `crate::engine::Kernel`).
    type Cpu: Copy;
    /// Blocks in one register before the transpose (register bytes / 16).
    const BLOCKS: usize;
    /// Whether interleaved groups run each round stage by stage across the groups (the
    /// round's input XORs for every group, then every S-box, then every L) instead of
    /// group after group. Measured on Zen 3 (family 25 model 1) with 256-bit registers,
    /// whose 16 registers cannot hold four groups: ECB 2.77 -> 2.57 cycles/byte on
    /// `vaes-avx2`, 3.44 -> 3.17 on `aesni-avx2`.
    const STAGED_ROUNDS: bool = false;
    /// The proof this register was made with.
    fn cpu(self) -> Self::Cpu;
    /// Loads `BLOCKS` blocks from the start of `src`.
    fn load(cpu: Self::Cpu, src: &[Block<Sm4>]) -> Self;
    /// Stores `BLOCKS` blocks at the start of `dst`.
    fn store(self, dst: &mut [Block<Sm4>]);
    /// The word `w` in every lane.
    fn splat(cpu: Self::Cpu, w: u32) -> Self;
    /// The 16 bytes of `v` (little-endian) in every 128-bit lane.
    fn bcast128(cpu: Self::Cpu, v: u128) -> Self;
    /// Bitwise XOR.
    fn xor(self, o: Self) -> Self;
    /// Three-way XOR.
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        self.xor(b).xor(c)
    }
    /// Bitwise AND.
    fn and(self, o: Self) -> Self;
    /// Byte shuffle within each 128-bit lane (`pshufb`).
    fn shuffle(self, idx: Self) -> Self;
    /// Right shift of each 16-bit lane by 4 (for nibble extraction).
    fn shr4(self) -> Self;
    /// The SM4 linear transform L on every lane.
    fn l(self) -> Self;
    /// `self ^ L(b)`.
    #[inline(always)]
    fn xor_l(self, b: Self) -> Self {
        self.xor(b.l())
    }
    /// Lane-wise 32-bit addition (wrapping).
    fn add32(self, o: Self) -> Self;
    /// In the transposed layout, the index within the group of the block each lane
    /// belongs to (lane k of the 128-bit lanes, element m: block m * BLOCKS + k).
    fn block_index(cpu: Self::Cpu) -> Self;
    /// Interleaves the low / high 32-bit and 64-bit halves within each 128-bit lane.
    fn unpack_lo32(self, o: Self) -> Self;
    /// See [`Word::unpack_lo32`].
    fn unpack_hi32(self, o: Self) -> Self;
    /// See [`Word::unpack_lo32`].
    fn unpack_lo64(self, o: Self) -> Self;
    /// See [`Word::unpack_lo32`].
    fn unpack_hi64(self, o: Self) -> Self;
}

/// A 128-bit register, for the latency-bound single-block path.
pub(crate) trait Single: Word {
    /// Each 32-bit lane broadcast to all four: `[lane 0; 4], [lane 1; 4], …`.
    fn lanes(self) -> [Self; 4];
}

/// An S-box technique for registers of type `W`.
pub(crate) trait Sbox<W: Word>: Sized {
    /// The SM4 S-box on every byte.
    fn sbox(x: W) -> W;
    /// The 32 rounds on `N` interleaved groups (`rounds`): the generic rounds below unless
    /// the technique has a round with a shorter dependency path for a pass whose latency
    /// is all it costs (GFNI's and AES-NI's: the CBC chains' rounds, in the domain of the
    /// S-box's input map, on one or two groups of narrow registers).
    #[inline(always)]
    fn rounds<const N: usize>(cpu: W::Cpu, rk: &RoundKeys, x: &mut [[W; 4]; N]) {
        generic_rounds::<W, Self, N>(cpu, rk, x);
    }
}

/// Byte-swaps every 32-bit lane (GB/T 32907 words are big-endian).
pub(crate) const BSWAP32: u128 =
    u128::from_le_bytes([3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12]);

/// Transposes the 4x4 matrix of 32-bit words in each 128-bit lane of `r`.
#[inline(always)]
fn transpose<W: Word>(r: [W; 4]) -> [W; 4] {
    let t0 = r[0].unpack_lo32(r[1]);
    let t1 = r[0].unpack_hi32(r[1]);
    let t2 = r[2].unpack_lo32(r[3]);
    let t3 = r[2].unpack_hi32(r[3]);
    [
        t0.unpack_lo64(t2),
        t0.unpack_hi64(t2),
        t1.unpack_lo64(t3),
        t1.unpack_hi64(t3),
    ]
}

/// Round `R` (mod 4) of one group: `x[R] ^= L(S(x[R+1] ^ x[R+2] ^ x[R+3] ^ key))`.
#[inline(always)]
fn round<W: Word, S: Sbox<W>, const R: usize>(x: &mut [W; 4], key: W) {
    x[R] = x[R].xor_l(S::sbox(round_input::<W, R>(x, key)));
}

/// The S-box input of round `R` (mod 4): `x[R+1] ^ x[R+2] ^ x[R+3] ^ key`.
#[inline(always)]
fn round_input<W: Word, const R: usize>(x: &[W; 4], key: W) -> W {
    // The newest word (R + 3) joins last: it is the one on the critical path.
    x[(R + 1) % 4].xor3(x[(R + 2) % 4], key).xor(x[(R + 3) % 4])
}

/// Round `R` on `N` groups: group after group, or stage by stage across them
/// ([`Word::STAGED_ROUNDS`]).
#[inline(always)]
fn round_n<W: Word, S: Sbox<W>, const R: usize, const N: usize>(x: &mut [[W; 4]; N], key: W) {
    if !W::STAGED_ROUNDS {
        for g in x.iter_mut() {
            round::<W, S, R>(g, key);
        }
        return;
    }
    let mut t = [key; N];
    for (t, g) in t.iter_mut().zip(x.iter()) {
        *t = round_input::<W, R>(g, key);
    }
    for t in t.iter_mut() {
        *t = S::sbox(*t);
    }
    for (t, g) in t.iter().zip(x.iter_mut()) {
        g[R] = g[R].xor_l(*t);
    }
}

/// 32 rounds on `N` independent groups of four registers, interleaved so the
/// out-of-order core overlaps their latency chains. Four rounds per iteration keep every
/// register index constant, so the state stays in registers.
#[inline(always)]
fn rounds<W: Word, S: Sbox<W>, const N: usize>(cpu: W::Cpu, rk: &RoundKeys, x: &mut [[W; 4]; N]) {
    S::rounds::<N>(cpu, rk, x);
}

/// [`rounds`] as every technique runs them ([`round`] after [`round`]).
#[inline(always)]
pub(crate) fn generic_rounds<W: Word, S: Sbox<W>, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    x: &mut [[W; 4]; N],
) {
    rounds_with::<W, W, S, N, 0, ()>(cpu, rk, x, &mut [], &mut (), &[], &[]);
}

/// Work run between the rounds of a wide step (see `crate::CtrHook`): step `i` of 8 runs
/// after rounds 4i..4i+3, given the previous step's blocks (`prev`, as written) and this
/// step's (`cur`, as given).
pub(crate) trait Between {
    /// Step `i`.
    fn step(&mut self, i: usize, prev: &[Block<Sm4>], cur: &[Block<Sm4>]);
}

impl Between for () {
    #[inline(always)]
    fn step(&mut self, _: usize, _: &[Block<Sm4>], _: &[Block<Sm4>]) {}
}

/// [`rounds`] on `N` groups of `W` and `M` more groups of `P` (a narrower register, for
/// blocks that ride along a wide step), all interleaved.
#[inline(always)]
fn rounds_with<W, P, S, const N: usize, const M: usize, B: Between>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    x: &mut [[W; 4]; N],
    y: &mut [[P; 4]; M],
    between: &mut B,
    prev: &[Block<Sm4>],
    cur: &[Block<Sm4>],
) where
    W: Word,
    P: Word<Cpu = W::Cpu>,
    S: Sbox<W> + Sbox<P>,
{
    for (i, k) in rk.chunks_exact(4).enumerate() {
        // Plain loops, no closures: a closure handed to a std adaptor may stay out of line,
        // outside the `target_feature` context, and lose its intrinsics' inlining.
        // Round r of the four with key k[r], on the wide registers and on the side ones.
        macro_rules! quarter {
            ($($r:literal)*) => {$(
                let (key, side) = (W::splat(cpu, k[$r]), P::splat(cpu, k[$r]));
                round_n::<W, S, $r, N>(x, key);
                for g in y.iter_mut() {
                    round::<P, S, $r>(g, side);
                }
            )*};
        }
        quarter!(0 1 2 3);
        between.step(i, prev, cur);
    }
}

/// Encrypts exactly `4 * W::BLOCKS * N` blocks.
#[inline(always)]
fn crypt_full<W: Word, S: Sbox<W>, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    mut blocks: InOutBuf<'_, '_, Block<Sm4>>,
) {
    let bswap = W::bcast128(cpu, BSWAP32);
    let per_group = 4 * W::BLOCKS;
    let mut x = [[bswap; 4]; N];
    let input = blocks.get_in();
    for (g, group) in x.iter_mut().enumerate() {
        // No `array::from_fn`: its closure may stay out of line, outside the
        // `target_feature` context, and lose the intrinsics' inlining.
        let load = |m: usize| W::load(cpu, &input[g * per_group + m * W::BLOCKS..]).shuffle(bswap);
        *group = transpose([load(0), load(1), load(2), load(3)]);
    }
    rounds::<W, S, N>(cpu, rk, &mut x);
    let output = blocks.get_out();
    for (g, group) in x.iter().enumerate() {
        let regs = transpose([group[3], group[2], group[1], group[0]]);
        for (m, r) in regs.iter().enumerate() {
            r.shuffle(bswap)
                .store(&mut output[g * per_group + m * W::BLOCKS..]);
        }
    }
}

/// Encrypts as many whole groups of `4 * W::BLOCKS * N` blocks as `blocks` holds and
/// returns the rest.
#[inline(always)]
pub(crate) fn crypt_groups<'i, 'o, W: Word, S: Sbox<W>, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    mut blocks: InOutBuf<'i, 'o, Block<Sm4>>,
) -> InOutBuf<'i, 'o, Block<Sm4>> {
    let per_call = 4 * W::BLOCKS * N;
    while blocks.len() >= per_call {
        let (head, tail) = blocks.split_at(per_call);
        crypt_full::<W, S, N>(cpu, rk, head);
        blocks = tail;
    }
    blocks
}

/// Fewer than four blocks (`BLOCKS` = 1) as one group in the transposed layout, the
/// missing blocks being zero.
#[inline(always)]
fn load_partial<W: Word>(cpu: W::Cpu, src: &[Block<Sm4>]) -> [W; 4] {
    debug_assert!(W::BLOCKS == 1 && src.len() <= 4);
    let bswap = W::bcast128(cpu, BSWAP32);
    let zero = W::splat(cpu, 0);
    let load = |m: usize| {
        if m < src.len() {
            W::load(cpu, &src[m..]).shuffle(bswap)
        } else {
            zero
        }
    };
    transpose([load(0), load(1), load(2), load(3)])
}

/// The output of the rounds on a [`load_partial`] group: its first `dst.len()` blocks.
#[inline(always)]
fn store_partial<W: Word>(x: &[W; 4], dst: &mut [Block<Sm4>]) {
    let bswap = W::bcast128(x[0].cpu(), BSWAP32);
    let regs = transpose([x[3], x[2], x[1], x[0]]);
    for (m, r) in regs.iter().take(dst.len()).enumerate() {
        r.shuffle(bswap).store(&mut dst[m..]);
    }
}

/// Encrypts up to four blocks through one group of 128-bit registers, the missing blocks
/// being zero (their results are discarded).
#[inline(always)]
pub(crate) fn crypt_partial<W: Word, S: Sbox<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    mut blocks: InOutBuf<'_, '_, Block<Sm4>>,
) {
    debug_assert!(W::BLOCKS == 1 && blocks.len() <= 4);
    if blocks.is_empty() {
        return;
    }
    let mut x = [load_partial::<W>(cpu, blocks.get_in())];
    rounds::<W, S, 1>(cpu, rk, &mut x);
    store_partial(&x[0], blocks.get_out());
}

/// One block, with as little around the rounds as possible (CBC encryption, CBC-MAC and
/// CMAC are chains of single blocks): the words are broadcast into four registers, so no
/// transpose is needed, and gathered back with two unpacks.
#[inline(always)]
pub(crate) fn crypt1<W: Single, S: Sbox<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    block: &Block<Sm4>,
) -> Block<Sm4> {
    let bswap = W::bcast128(cpu, BSWAP32);
    let mut x = [W::load(cpu, core::slice::from_ref(block))
        .shuffle(bswap)
        .lanes()];
    rounds::<W, S, 1>(cpu, rk, &mut x);
    let [x0, x1, x2, x3] = x[0];
    let out = x3
        .unpack_lo32(x2)
        .unpack_lo64(x1.unpack_lo32(x0))
        .shuffle(bswap);
    let mut result = [Block::<Sm4>::from([0u8; 16])];
    out.store(&mut result);
    result[0]
}

/// Counter mode on exactly `4 * W::BLOCKS * N` blocks: XORs them with E(ctr + i) where
/// only the last counter word counts (mod 2^32), built in registers in the transposed
/// layout (no counter blocks or keystream in memory). With `M` = 1 it also encrypts the
/// (at most four) blocks of `side` in place, as one more group of `P` registers.
#[inline(always)]
fn ctr_full<W, P, S, const N: usize, const M: usize, B: Between>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &[u32; 4],
    blocks: &mut [Block<Sm4>],
    side: &mut [Block<Sm4>],
    between: &mut B,
    prev: &[Block<Sm4>],
) where
    W: Word,
    P: Word<Cpu = W::Cpu>,
    S: Sbox<W> + Sbox<P>,
{
    let mut x = counters::<W, N>(cpu, ctr);
    let mut y = [[P::splat(cpu, 0); 4]; M];
    for group in y.iter_mut() {
        *group = load_partial::<P>(cpu, side);
    }
    rounds_with::<W, P, S, N, M, B>(cpu, rk, &mut x, &mut y, between, prev, blocks);
    xor_keystream(cpu, &x, blocks);
    for group in y.iter() {
        store_partial(group, side);
    }
}

/// `N` groups of counter blocks from `ctr` (only the last word counts, mod 2^32), built in
/// registers in the transposed layout.
#[inline(always)]
fn counters<W: Word, const N: usize>(cpu: W::Cpu, ctr: &[u32; 4]) -> [[W; 4]; N] {
    let per_group = 4 * W::BLOCKS;
    let index = W::block_index(cpu);
    let mut x = [[index; 4]; N];
    for (g, group) in x.iter_mut().enumerate() {
        let first = ctr[3].wrapping_add((g * per_group) as u32);
        *group = [
            W::splat(cpu, ctr[0]),
            W::splat(cpu, ctr[1]),
            W::splat(cpu, ctr[2]),
            W::splat(cpu, first).add32(index),
        ];
    }
    x
}

/// XORs the keystream of `N` groups after their rounds (transposed layout) into `blocks`
/// (exactly as many).
#[inline(always)]
fn xor_keystream<W: Word, const N: usize>(cpu: W::Cpu, x: &[[W; 4]; N], blocks: &mut [Block<Sm4>]) {
    let bswap = W::bcast128(cpu, BSWAP32);
    let per_group = 4 * W::BLOCKS;
    for (g, group) in x.iter().enumerate() {
        let regs = transpose([group[3], group[2], group[1], group[0]]);
        for (m, r) in regs.iter().enumerate() {
            let at = g * per_group + m * W::BLOCKS;
            r.shuffle(bswap)
                .xor(W::load(cpu, &blocks[at..]))
                .store(&mut blocks[at..]);
        }
    }
}

/// Counter mode on as many whole groups as `blocks` holds; advances `ctr` and returns the
/// rest.
#[inline(always)]
pub(crate) fn ctr_groups<'d, W: Word, S: Sbox<W>, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &mut [u32; 4],
    mut blocks: &'d mut [Block<Sm4>],
) -> &'d mut [Block<Sm4>] {
    let per_call = 4 * W::BLOCKS * N;
    while blocks.len() >= per_call {
        let (head, tail) = blocks.split_at_mut(per_call);
        ctr_full::<W, W, S, N, 0, ()>(cpu, rk, ctr, head, &mut [], &mut (), &[]);
        ctr[3] = ctr[3].wrapping_add(per_call as u32);
        blocks = tail;
    }
    blocks
}

/// Counter mode on as many whole groups as `blocks[at..]` holds, with `between`'s steps
/// between the rounds of each (given the previous group's blocks, none before `at`), and
/// `side` (at most four blocks) encrypted along the first if `at` is 0; advances `ctr` and
/// returns where the rest starts. (Only `gfni-avx512` runs work between its rounds.)
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn ctr_groups_between<W, P, S, const N: usize, B: Between>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &mut [u32; 4],
    blocks: &mut [Block<Sm4>],
    mut at: usize,
    between: &mut B,
    side: &mut [Block<Sm4>],
) -> usize
where
    W: Word,
    P: Word<Cpu = W::Cpu>,
    S: Sbox<W> + Sbox<P>,
{
    let per_call = 4 * W::BLOCKS * N;
    while blocks.len() - at >= per_call {
        let (done, rest) = blocks.split_at_mut(at);
        let prev = &done[at.saturating_sub(per_call)..];
        let cur = &mut rest[..per_call];
        if at == 0 && !side.is_empty() {
            ctr_full::<W, P, S, N, 1, B>(cpu, rk, ctr, cur, side, between, prev);
        } else {
            ctr_full::<W, W, S, N, 0, B>(cpu, rk, ctr, cur, &mut [], between, prev);
        }
        ctr[3] = ctr[3].wrapping_add(per_call as u32);
        at += per_call;
    }
    at
}

/// Counter mode on the first whole group of `blocks`, with the (at most four) blocks of
/// `side` encrypted in place as one more group of `P` registers interleaved with it:
/// advances `ctr` and returns the rest, or returns `Err(blocks)` (nothing done) if
/// `blocks` has no whole group.
#[inline(always)]
pub(crate) fn ctr_group_with_side<'d, W, P, S, const N: usize>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &mut [u32; 4],
    blocks: &'d mut [Block<Sm4>],
    side: &mut [Block<Sm4>],
) -> Result<&'d mut [Block<Sm4>], &'d mut [Block<Sm4>]>
where
    W: Word,
    P: Word<Cpu = W::Cpu>,
    S: Sbox<W> + Sbox<P>,
{
    let per_call = 4 * W::BLOCKS * N;
    if blocks.len() < per_call {
        return Err(blocks);
    }
    let (head, tail) = blocks.split_at_mut(per_call);
    ctr_full::<W, P, S, N, 1, ()>(cpu, rk, ctr, head, side, &mut (), &[]);
    ctr[3] = ctr[3].wrapping_add(per_call as u32);
    Ok(tail)
}

/// `$body` with `$N` a constant of 1 to 4 (`$groups`, at least 1; more counts as 4): the
/// number of interleaved groups is a const parameter of the rounds.
macro_rules! by_groups {
    ($groups:expr, $N:ident => $body:expr) => {
        match $groups {
            1 => {
                const $N: usize = 1;
                $body
            }
            2 => {
                const $N: usize = 2;
                $body
            }
            3 => {
                const $N: usize = 3;
                $body
            }
            _ => {
                const $N: usize = 4;
                $body
            }
        }
    };
}

/// Blocks of the stack buffer [`crypt_rest`] and [`ctr_rest`] fill out a last group in:
/// four groups of the widest register (sixteen blocks in a 512-bit group).
pub(crate) const REST_BUFFER: usize = 64;

/// `len` zero blocks (`len` ≤ [`REST_BUFFER`]) on the stack, in `$one` (one widest group,
/// 16 blocks) where they fit, else in `$four` ([`REST_BUFFER`]): zeroing the whole 1 KiB
/// for a pass of one group (a short record's CBC decryption or CTR: 5 or 14 blocks) cost
/// about 45 of its 610–660 cycles (`gfni-avx512`, Zen 4). A macro, not a function taking
/// a closure: the closure stayed out of line, outside the `target_feature` context.
macro_rules! stack_buffer {
    ($len:expr, $one:ident, $four:ident) => {{
        let len = $len;
        if len <= REST_BUFFER / 4 {
            $one = [Block::<Sm4>::default(); REST_BUFFER / 4];
            &mut $one[..len]
        } else {
            $four = [Block::<Sm4>::default(); REST_BUFFER];
            &mut $four[..len]
        }
    }};
}

/// Encrypts the blocks after the wide steps (any number, in practice fewer than one step)
/// in passes of up to four interleaved groups of `W`; a last group the blocks do not fill
/// runs in a stack buffer filled out with zero blocks, whose results are discarded. Every
/// pass costs the rounds' full latency however few blocks it holds, so one pass of a few
/// groups beats a ladder of narrower passes one after another (15 blocks on `gfni-avx512`:
/// one pass instead of three).
#[inline(always)]
pub(crate) fn crypt_rest<W: Word, S: Sbox<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    mut blocks: InOutBuf<'_, '_, Block<Sm4>>,
) {
    let per_group = 4 * W::BLOCKS;
    debug_assert!(4 * per_group <= REST_BUFFER);
    while !blocks.is_empty() {
        let n = blocks.len().min(4 * per_group);
        let (mut head, tail) = blocks.split_at(n);
        let groups = n.div_ceil(per_group);
        if n.is_multiple_of(per_group) {
            by_groups!(groups, N => crypt_full::<W, S, N>(cpu, rk, head));
        } else {
            let (mut one, mut four);
            let buf = stack_buffer!(groups * per_group, one, four);
            buf[..n].copy_from_slice(head.get_in());
            by_groups!(groups, N => crypt_full::<W, S, N>(cpu, rk, (&mut *buf).into()));
            head.get_out().copy_from_slice(&buf[..n]);
        }
        blocks = tail;
    }
}

/// Counter mode on the blocks after the wide steps as [`crypt_rest`] runs them (the
/// keystream of a filled-out group's extra lanes is discarded), with the (at most four)
/// blocks of `side` encrypted in place along the first pass as one more group of `P`
/// registers; advances `ctr`.
#[inline(always)]
pub(crate) fn ctr_rest<W, P, S>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &mut [u32; 4],
    mut blocks: &mut [Block<Sm4>],
    mut side: &mut [Block<Sm4>],
) where
    W: Word,
    P: Word<Cpu = W::Cpu>,
    S: Sbox<W> + Sbox<P>,
{
    let per_group = 4 * W::BLOCKS;
    debug_assert!(4 * per_group <= REST_BUFFER);
    while !blocks.is_empty() {
        let n = blocks.len().min(4 * per_group);
        let (head, tail) = core::mem::take(&mut blocks).split_at_mut(n);
        if n.is_multiple_of(per_group) {
            ctr_pass::<W, P, S>(cpu, rk, ctr, head, side);
        } else {
            let (mut one, mut four);
            let buf = stack_buffer!(n.div_ceil(per_group) * per_group, one, four);
            buf[..n].copy_from_slice(head);
            ctr_pass::<W, P, S>(cpu, rk, ctr, buf, side);
            head.copy_from_slice(&buf[..n]);
        }
        side = &mut [];
        ctr[3] = ctr[3].wrapping_add(n as u32);
        blocks = tail;
    }
}

/// One pass of [`ctr_rest`]: `blocks` is one to four whole groups of `W`.
#[inline(always)]
fn ctr_pass<W, P, S>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &[u32; 4],
    blocks: &mut [Block<Sm4>],
    side: &mut [Block<Sm4>],
) where
    W: Word,
    P: Word<Cpu = W::Cpu>,
    S: Sbox<W> + Sbox<P>,
{
    let groups = blocks.len() / (4 * W::BLOCKS);
    if side.is_empty() {
        by_groups!(groups, N => ctr_full::<W, P, S, N, 0, ()>(cpu, rk, ctr, blocks, side, &mut (), &[]));
    } else {
        by_groups!(groups, N => ctr_full::<W, P, S, N, 1, ()>(cpu, rk, ctr, blocks, side, &mut (), &[]));
    }
}

/// `$body` with `$N` a constant of 1 or 2 (`$groups`): [`by_groups`] for the short
/// passes, which then instantiate their rounds twice, not four times.
#[cfg(target_arch = "x86_64")]
macro_rules! by_two_groups {
    ($groups:expr, $N:ident => $body:expr) => {
        if $groups == 1 {
            const $N: usize = 1;
            $body
        } else {
            const $N: usize = 2;
            $body
        }
    };
}

/// `$pass` on the short rest `$blocks` (an `InOutBuf` of at most two groups of `$W`) as
/// `$work`, with `$N` its number of groups (1 or 2): on the blocks themselves when they
/// fill whole groups, else on a stack copy filled out with zero blocks, whose results
/// past the rest are dropped. One call site of the rounds either way (each is a large
/// inlined body, in a debug build a large stack frame too). A macro, not a function taking
/// a closure (see `stack_buffer`).
#[cfg(target_arch = "x86_64")]
macro_rules! short_pass {
    ($W:ty, $blocks:expr, $N:ident, $work:ident => $pass:expr) => {{
        let mut blocks: InOutBuf<'_, '_, Block<Sm4>> = $blocks;
        let per_group = 4 * <$W>::BLOCKS;
        let n = blocks.len();
        debug_assert!(n <= 2 * per_group && 2 * per_group <= REST_BUFFER / 4);
        let groups = n.div_ceil(per_group);
        let whole = n.is_multiple_of(per_group);
        let mut buf = [Block::<Sm4>::default(); REST_BUFFER / 4];
        let mut $work: InOutBuf<'_, '_, Block<Sm4>> = if whole {
            blocks.reborrow()
        } else {
            buf[..n].copy_from_slice(blocks.get_in());
            (&mut buf[..groups * per_group]).into()
        };
        by_two_groups!(groups, $N => $pass);
        if !whole {
            blocks.get_out().copy_from_slice(&buf[..n]);
        }
    }};
}

/// Encrypts a short rest (at most two groups of `W`) in one pass, as [`crypt_rest`] would:
/// on a kernel whose widest groups are more than a short input fills (`gfni-avx512`'s
/// sixteen blocks), a pass of one or two narrower groups runs the S-box's own
/// [`Sbox::rounds`] (the chains' shorter rounds on GFNI and AES-NI) and costs less latency.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn crypt_short<W: Word, S: Sbox<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    blocks: InOutBuf<'_, '_, Block<Sm4>>,
) {
    short_pass!(W, blocks, N, work => crypt_full::<W, S, N>(cpu, rk, work.reborrow()));
}

/// Counter mode on a short rest (at most two groups of `W`) in one pass, as
/// [`crypt_short`] runs it (the counter blocks built in registers); advances `ctr`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn ctr_short<W: Word, S: Sbox<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &mut [u32; 4],
    blocks: &mut [Block<Sm4>],
) {
    let n = blocks.len();
    short_pass!(W, blocks.into(), N, work => {
        let mut x = counters::<W, N>(cpu, ctr);
        rounds::<W, S, N>(cpu, rk, &mut x);
        xor_keystream(cpu, &x, work.get_out());
    });
    ctr[3] = ctr[3].wrapping_add(n as u32);
}

/// Counter mode on up to four blocks (one group of 128-bit registers).
#[inline(always)]
pub(crate) fn ctr_partial<W: Word, S: Sbox<W>>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    ctr: &mut [u32; 4],
    blocks: &mut [Block<Sm4>],
) {
    debug_assert!(W::BLOCKS == 1 && blocks.len() <= 4);
    let n = blocks.len();
    if n == 0 {
        return;
    }
    let bswap = W::bcast128(cpu, BSWAP32);
    let mut x = counters::<W, 1>(cpu, ctr);
    rounds::<W, S, 1>(cpu, rk, &mut x);
    let regs = transpose([x[0][3], x[0][2], x[0][1], x[0][0]]);
    for (m, r) in regs.iter().take(n).enumerate() {
        r.shuffle(bswap)
            .xor(W::load(cpu, &blocks[m..]))
            .store(&mut blocks[m..]);
    }
    ctr[3] = ctr[3].wrapping_add(n as u32);
}

/// The S-box on the four bytes of one word, through 128-bit registers.
#[inline(always)]
pub(crate) fn tau<W: Word, S: Sbox<W>>(cpu: W::Cpu, a: u32) -> u32 {
    let mut b = [Block::<Sm4>::from([0u8; 16])];
    b[0][..4].copy_from_slice(&a.to_le_bytes());
    S::sbox(W::load(cpu, &b)).store(&mut b);
    u32::from_le_bytes([b[0][0], b[0][1], b[0][2], b[0][3]])
}

/// Defines kernel `$Kernel` of backend `$backend` (`Backend` must be in scope) on the
/// rounds above: its token (`shangmi_dispatch::kernel_token!`) and its `Kernel`
/// implementation, whose `#[target_feature(enable = $features)]` entries run ECB (`crypt`)
/// and counter mode (`ctr32`) as steps of `$Wide` registers in as many interleaved groups
/// as `$Par` blocks fill, then the rest in one pass of up to four such groups (or, up to
/// four blocks, one group of `$Partial` registers; or, where `$Short` is given and the rest
/// fits two groups of it, those: a counter-mode call with a side block excepted); one block
/// goes through `$One` with the S-box `$OneSbox`, and the CBC chain through `$chain` if
/// given (in an entry with the same features). The register types take the kernel as their
/// proof (`Word::Cpu`).
macro_rules! simd_kernel {
    (
        $(#[$doc:meta])*
        $Kernel:ident = $backend:ident, enable $features:literal, par_blocks $Par:ty,
        sbox $Sbox:ty, one ($One:ident, $OneSbox:ty),
        wide $Wide:ident, partial $Partial:ident $(, short $Short:ident)?
        $(, chain $($chain:ident)::+ $(::<$($X:ty),+>)?)? $(,)?
    ) => {
        shangmi_dispatch::kernel_token! {
            $(#[$doc])* pub(crate) struct $Kernel = Backend::$backend;
        }

        const _: () = {
            use cipher::typenum::Unsigned;
            use $crate::simd::Word;
            let per_group = 4 * <$Wide<$Kernel> as Word>::BLOCKS;
            assert!(<$Par>::USIZE % per_group == 0 && <$Par>::USIZE >= per_group);
            assert!(4 * per_group <= $crate::simd::REST_BUFFER);
        };

        impl $Kernel {
            /// Counter mode (`Kernel::ctr32`), with `side` (none or one block) encrypted
            /// too: it rides along the first wide step, or the pass of the rest, as one
            /// more group of `$Partial` registers, and goes alone only when there are no
            /// blocks.
            #[target_feature(enable = $features)]
            fn ctr_entry(
                self,
                rk: &$crate::key::RoundKeys,
                ctr: &mut [u32; 4],
                blocks: &mut [cipher::Block<$crate::Sm4>],
                side: &mut [cipher::Block<$crate::Sm4>],
            ) {
                use $crate::simd::{ctr_group_with_side, ctr_groups, ctr_partial, ctr_rest};
                let mut side = side;
                let mut rest = blocks;
                if !side.is_empty() {
                    rest = match ctr_group_with_side::<
                        $Wide<$Kernel>, $Partial<$Kernel>, $Sbox, { $Kernel::GROUPS },
                    >(self, rk, ctr, rest, side) {
                        Ok(rest) => {
                            side = &mut [];
                            rest
                        }
                        Err(rest) => rest,
                    };
                }
                let rest = ctr_groups::<$Wide<$Kernel>, $Sbox, { $Kernel::GROUPS }>(
                    self, rk, ctr, rest,
                );
                if rest.is_empty() {
                    if let Some(one) = side.first_mut() {
                        *one = $crate::simd::crypt1::<$One<$Kernel>, $OneSbox>(self, rk, one);
                    }
                } else if rest.len() <= 4 && side.is_empty() {
                    ctr_partial::<$Partial<$Kernel>, $Sbox>(self, rk, ctr, rest);
                } $(else if rest.len() <= 8 * <$Short<$Kernel> as $crate::simd::Word>::BLOCKS
                    && side.is_empty()
                {
                    $crate::simd::ctr_short::<$Short<$Kernel>, $Sbox>(self, rk, ctr, rest);
                })? else {
                    ctr_rest::<$Wide<$Kernel>, $Partial<$Kernel>, $Sbox>(self, rk, ctr, rest, side);
                }
            }
        }

        impl $crate::engine::Kernel for $Kernel {
            type ParBlocks = $Par;

            #[inline(always)]
            fn crypt(self, rk: &$crate::key::RoundKeys, blocks: $crate::engine::Blocks<'_, '_>) {
                #[target_feature(enable = $features)]
                fn entry(
                    k: $Kernel,
                    rk: &$crate::key::RoundKeys,
                    blocks: cipher::inout::InOutBuf<'_, '_, cipher::Block<$crate::Sm4>>,
                ) {
                    use $crate::simd::{crypt_groups, crypt_partial, crypt_rest};
                    let rest = crypt_groups::<$Wide<$Kernel>, $Sbox, { $Kernel::GROUPS }>(
                        k, rk, blocks,
                    );
                    if rest.len() <= 4 {
                        crypt_partial::<$Partial<$Kernel>, $Sbox>(k, rk, rest);
                    } $(else if rest.len() <= 8 * <$Short<$Kernel> as $crate::simd::Word>::BLOCKS {
                        $crate::simd::crypt_short::<$Short<$Kernel>, $Sbox>(k, rk, rest);
                    })? else {
                        crypt_rest::<$Wide<$Kernel>, $Sbox>(k, rk, rest);
                    }
                }
                // SAFETY: `self` exists only for an `Available` backend of this kernel,
                // whose probe found the features `entry` enables.
                unsafe { entry(self, rk, blocks) }
            }

            #[inline(always)]
            fn crypt_one(
                self,
                rk: &$crate::key::RoundKeys,
                block: &cipher::Block<$crate::Sm4>,
            ) -> cipher::Block<$crate::Sm4> {
                #[target_feature(enable = $features)]
                fn entry(
                    k: $Kernel,
                    rk: &$crate::key::RoundKeys,
                    block: &cipher::Block<$crate::Sm4>,
                ) -> cipher::Block<$crate::Sm4> {
                    $crate::simd::crypt1::<$One<$Kernel>, $OneSbox>(k, rk, block)
                }
                // SAFETY: as for `crypt`.
                unsafe { entry(self, rk, block) }
            }

            #[inline(always)]
            fn ctr32(
                self, rk: &$crate::key::RoundKeys, ctr: &mut [u32; 4],
                blocks: &mut [cipher::Block<$crate::Sm4>],
            ) {
                // SAFETY: as for `crypt`.
                unsafe { self.ctr_entry(rk, ctr, blocks, &mut []) }
            }

            #[inline(always)]
            fn ctr32_side(
                self, rk: &$crate::key::RoundKeys, ctr: &mut [u32; 4],
                blocks: &mut [cipher::Block<$crate::Sm4>],
                side: &mut cipher::Block<$crate::Sm4>,
            ) {
                // SAFETY: as for `crypt`.
                unsafe { self.ctr_entry(rk, ctr, blocks, core::slice::from_mut(side)) }
            }

            $(
            #[inline(always)]
            fn chain(
                self,
                rk: &$crate::key::RoundKeys,
                state: &mut cipher::Block<$crate::Sm4>,
                blocks: &[cipher::Block<$crate::Sm4>],
                out: &mut [cipher::Block<$crate::Sm4>],
            ) {
                #[target_feature(enable = $features)]
                fn entry(
                    k: $Kernel,
                    rk: &$crate::key::RoundKeys,
                    state: &mut cipher::Block<$crate::Sm4>,
                    blocks: &[cipher::Block<$crate::Sm4>],
                    out: &mut [cipher::Block<$crate::Sm4>],
                ) {
                    $($chain)::+ $(::<$($X),+>)?(k, rk, state, blocks, out)
                }
                // SAFETY: as for `crypt`.
                unsafe { entry(self, rk, state, blocks, out) }
            }
            )?

            #[inline(always)]
            fn tau(self, a: u32) -> u32 {
                #[target_feature(enable = $features)]
                fn entry(k: $Kernel, a: u32) -> u32 {
                    $crate::simd::tau::<$Partial<$Kernel>, $Sbox>(k, a)
                }
                // SAFETY: as for `crypt`.
                unsafe { entry(self, a) }
            }
        }

        impl $Kernel {
            /// Interleaved groups of the widest step: `ParBlocks` over the blocks of one
            /// group (checked to divide above).
            const GROUPS: usize = <$Par as cipher::typenum::Unsigned>::USIZE
                / (4 * <$Wide<$Kernel> as $crate::simd::Word>::BLOCKS);
        }
    };
}
