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
//! operations deep). The state leaves the P domain once per block.

use cipher::Block;

use super::pdomain::{POST, POST_C, PRE, PRE_C, PRE_INV, apply, l_part};
use super::{AesLast, BSWAP32, Single, Word};
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
/// table of its linear part, as `pshufb`/`tbl` operands: f(x) = lo[x & 15] ⊕ hi[x >> 4].
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

const H0: (u128, u128) = tables(h_all(0));
const H1: (u128, u128) = tables(h_all(1));
const H3: (u128, u128) = tables(h_all(3));
const _: () = assert!(tables(h_all(2)).0 == H1.0 && tables(h_all(2)).1 == H1.1);
/// x to P·x; P·rk ⊕ PRE_C for the keys; y to P⁻¹·y.
const P: (u128, u128) = tables(matrix_all(PRE, 0));
const P_KEY: (u128, u128) = tables(matrix_all(PRE, PRE_C));
const P_INV: (u128, u128) = tables(matrix_all(PRE_INV, 0));

/// Rotation masks for byte shuffles: rotate each 32-bit lane left by 8, 16, 24 bits.
const ROTL8: u128 = u128::from_le_bytes([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14]);
const ROTL16: u128 = u128::from_le_bytes([2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13]);
const ROTL24: u128 = u128::from_le_bytes([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]);
const LOW_NIBBLES: u128 = 0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f;

/// A pair of nibble tables in registers.
#[derive(Clone, Copy)]
struct Nibbles<W> {
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

/// The registers the chain needs, loaded once.
struct Consts<W> {
    mask: W,
    bswap: W,
    rot8: W,
    rot16: W,
    rot24: W,
    h0: Nibbles<W>,
    h1: Nibbles<W>,
    h3: Nibbles<W>,
    p: Nibbles<W>,
}

impl<W: Word> Consts<W> {
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

/// Round `I` (mod 4): `y[I] ^= P·L(S(u))`, and `u` becomes the next round's S-box input.
///
/// P·L(S(u)) = r0 ⊕ rot8(r1) ⊕ rot16(r1) ⊕ rot24(r3) with r_d = H_d(AES round of u).
#[inline(always)]
fn round<W: AesLast, const I: usize>(k: &Consts<W>, y: &mut [W; 4], u: &mut W, next_key: W) {
    let (lo, hi) = k.split(u.aes_last());
    let (r0, r1, r3) = (k.h0.on(lo, hi), k.h1.on(lo, hi), k.h3.on(lo, hi));
    let (a, b, c) = (r1.shuffle(k.rot8), r1.shuffle(k.rot16), r3.shuffle(k.rot24));
    let others = y[(I + 2) % 4].xor3(y[(I + 3) % 4], next_key.xor(y[I]));
    *u = others.xor(r0).xor(a).xor(b.xor(c));
    y[I] = y[I].xor(r0).xor(a).xor(b.xor(c));
}

/// The block's four big-endian words mapped by P, each broadcast to a register.
#[inline(always)]
fn enter<W: Single>(cpu: W::Cpu, k: &Consts<W>, block: &Block<Sm4>) -> [W; 4] {
    let x = W::load(cpu, core::slice::from_ref(block)).shuffle(k.bswap);
    k.map(k.p, x).lanes()
}

/// The block whose words are P⁻¹ of `y`'s lanes (leaving the P domain).
#[inline(always)]
fn leave<W: Word>(cpu: W::Cpu, k: &Consts<W>, y: &[W; 4]) -> Block<Sm4> {
    let y = y[0].unpack_lo32(y[1]).unpack_lo64(y[2].unpack_lo32(y[3]));
    let mut result = [Block::<Sm4>::default()];
    k.map(Nibbles::new(cpu, P_INV), y)
        .shuffle(k.bswap)
        .store(&mut result);
    result[0]
}

/// The chain: for each block, `state = E(state ⊕ block)`, written to `out[i]` too for each
/// i < `out.len()` (off the chain's critical path).
#[inline(always)]
pub(crate) fn chain_body<W: Single + AesLast>(
    cpu: W::Cpu,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    let k = Consts {
        mask: W::bcast128(cpu, LOW_NIBBLES),
        bswap: W::bcast128(cpu, BSWAP32),
        rot8: W::bcast128(cpu, ROTL8),
        rot16: W::bcast128(cpu, ROTL16),
        rot24: W::bcast128(cpu, ROTL24),
        h0: Nibbles::new(cpu, H0),
        h1: Nibbles::new(cpu, H1),
        h3: Nibbles::new(cpu, H3),
        p: Nibbles::new(cpu, P),
    };
    // P·rk ⊕ PRE_C per round (a plain loop: see `crate::simd`).
    let p_key = Nibbles::new(cpu, P_KEY);
    let mut keys = [k.mask; 32];
    for (key, &r) in keys.iter_mut().zip(rk.iter()) {
        *key = k.map(p_key, W::splat(cpu, r));
    }
    let mut y = enter(cpu, &k, state);
    let mut out = out.iter_mut();
    for block in blocks {
        let m = enter(cpu, &k, block);
        for (y, m) in y.iter_mut().zip(m) {
            *y = y.xor(m);
        }
        let mut u = y[1].xor(y[2]).xor(keys[0].xor(y[3]));
        for r in (0..32).step_by(4) {
            round::<W, 0>(&k, &mut y, &mut u, keys[r + 1]);
            round::<W, 1>(&k, &mut y, &mut u, keys[r + 2]);
            round::<W, 2>(&k, &mut y, &mut u, keys[r + 3]);
            round::<W, 3>(&k, &mut y, &mut u, keys[(r + 4) % 32]);
        }
        y = [y[3], y[2], y[1], y[0]];
        if let Some(o) = out.next() {
            *o = leave(cpu, &k, &y);
        }
    }
    *state = leave(cpu, &k, &y);
}
