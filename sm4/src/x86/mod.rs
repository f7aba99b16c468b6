//! x86-64 engines: the SM4 rounds on SIMD registers holding one word of many blocks.
//!
//! Blocks are loaded, byte-swapped into big-endian words and transposed 4x4 within each
//! 128-bit lane, so register X_i holds word i of 4, 8 or 16 blocks (the layout of the
//! Linux kernel's sm4-aesni-avx2). One generic round loop serves every width and S-box
//! technique; the engines (one file each) only pick the register width, the S-box and
//! how many independent register groups to interleave, inside a `target_feature` entry.

use cipher::{Block, inout::InOutBuf};

use crate::{Sm4, key::RoundKeys};

pub(crate) mod aesni_avx2;
pub(crate) mod gfni_avx2;
pub(crate) mod gfni_avx512;
mod sbox;
mod words;

/// One SIMD register seen as 32-bit lanes.
///
/// Every method is `#[inline(always)]` and only called from the engines' `target_feature`
/// entry points, which run only after the CPU probe confirmed the features.
pub(crate) trait Word: Copy {
    /// Blocks in one register before the transpose (register bytes / 16).
    const BLOCKS: usize;
    /// Loads `BLOCKS` blocks from the start of `src`.
    fn load(src: &[Block<Sm4>]) -> Self;
    /// Stores `BLOCKS` blocks at the start of `dst`.
    fn store(self, dst: &mut [Block<Sm4>]);
    /// The word `w` in every lane.
    fn splat(w: u32) -> Self;
    /// The 64-bit value `q` in every 64-bit lane.
    fn splat64(q: u64) -> Self;
    /// The 16 bytes of `v` (little-endian) in every 128-bit lane.
    fn bcast128(v: u128) -> Self;
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
    /// Interleaves the low / high 32-bit and 64-bit halves within each 128-bit lane.
    fn unpack_lo32(self, o: Self) -> Self;
    /// See [`Word::unpack_lo32`].
    fn unpack_hi32(self, o: Self) -> Self;
    /// See [`Word::unpack_lo32`].
    fn unpack_lo64(self, o: Self) -> Self;
    /// See [`Word::unpack_lo32`].
    fn unpack_hi64(self, o: Self) -> Self;
}

/// An S-box technique for registers of type `W`.
pub(crate) trait Sbox<W: Word> {
    /// The SM4 S-box on every byte.
    fn sbox(x: W) -> W;
}

/// Byte-swaps every 32-bit lane (GB/T 32907 words are big-endian).
const BSWAP32: u128 = u128::from_le_bytes([3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12]);

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

/// 32 rounds on `N` independent groups of four registers, interleaved so the
/// out-of-order core overlaps their latency chains.
#[inline(always)]
fn rounds<W: Word, S: Sbox<W>, const N: usize>(rk: &RoundKeys, x: &mut [[W; 4]; N]) {
    for (i, &k) in rk.iter().enumerate() {
        let key = W::splat(k);
        for g in x.iter_mut() {
            // The newest word (i + 3) joins last: it is the one on the critical path.
            let t = g[(i + 1) % 4].xor3(g[(i + 2) % 4], key).xor(g[(i + 3) % 4]);
            g[i % 4] = g[i % 4].xor(S::sbox(t).l());
        }
    }
}

/// Encrypts exactly `4 * W::BLOCKS * N` blocks.
#[inline(always)]
fn crypt_full<W: Word, S: Sbox<W>, const N: usize>(
    rk: &RoundKeys,
    mut blocks: InOutBuf<'_, '_, Block<Sm4>>,
) {
    let bswap = W::bcast128(BSWAP32);
    let per_group = 4 * W::BLOCKS;
    let mut x = [[bswap; 4]; N];
    let input = blocks.get_in();
    for (g, group) in x.iter_mut().enumerate() {
        let regs = core::array::from_fn(|m| {
            W::load(&input[g * per_group + m * W::BLOCKS..]).shuffle(bswap)
        });
        *group = transpose(regs);
    }
    rounds::<W, S, N>(rk, &mut x);
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
fn crypt_groups<'i, 'o, W: Word, S: Sbox<W>, const N: usize>(
    rk: &RoundKeys,
    mut blocks: InOutBuf<'i, 'o, Block<Sm4>>,
) -> InOutBuf<'i, 'o, Block<Sm4>> {
    let per_call = 4 * W::BLOCKS * N;
    while blocks.len() >= per_call {
        let (head, tail) = blocks.split_at(per_call);
        crypt_full::<W, S, N>(rk, head);
        blocks = tail;
    }
    blocks
}

/// Encrypts fewer than four blocks through one zero-padded group of 128-bit registers.
#[inline(always)]
fn crypt_partial<W: Word, S: Sbox<W>>(rk: &RoundKeys, mut blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    debug_assert!(W::BLOCKS == 1 && blocks.len() < 4);
    if blocks.is_empty() {
        return;
    }
    let n = blocks.len();
    let mut buf = [Block::<Sm4>::default(); 4];
    buf[..n].copy_from_slice(blocks.get_in());
    crypt_full::<W, S, 1>(rk, (&mut buf[..]).into());
    blocks.get_out().copy_from_slice(&buf[..n]);
}

/// The S-box on the four bytes of one word, through 128-bit registers.
#[inline(always)]
fn tau<W: Word, S: Sbox<W>>(a: u32) -> u32 {
    let mut b = [Block::<Sm4>::default()];
    b[0][..4].copy_from_slice(&a.to_le_bytes());
    S::sbox(W::load(&b)).store(&mut b);
    u32::from_le_bytes([b[0][0], b[0][1], b[0][2], b[0][3]])
}
