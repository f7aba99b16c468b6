//! The ZUC state machine shared by ZUC-128 and ZUC-256: the 16-cell LFSR over
//! GF(2^31 - 1), the bit reorganisation and the nonlinear function F (3GPP "Document 2:
//! ZUC Specification" v1.6, section 3). The two ciphers differ only in how the key and IV
//! are loaded ([`State::new_128`], [`State::new_256`]).

use shangmi_dispatch::Available;

use crate::{
    Backend,
    engine::{Fill, Initialise, NextWord, Ops, run},
};

/// Runs `$body` with `$i` bound to 0, 1, …, 15 in turn, written out sixteen times, so that
/// every index computed from `$i` is a constant (a loop here is not unrolled by LLVM, which
/// then reads the cells at run-time indices).
macro_rules! unroll16 {
    (|$i:ident| $body:expr) => {{
        unroll16!(@ $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }};
    (@ $i:ident, $body:expr, $($n:literal)*) => {
        $({
            let $i: usize = $n;
            $body;
        })*
    };
}

/// 2^31 - 1.
const P: u32 = 0x7fff_ffff;

/// The ZUC-128 key-loading constants d_i (15 bits each), section 3.5.1.
pub(crate) const D128: [u32; 16] = [
    0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af, 0x4d78, 0x2f13, 0x6bc4, 0x1af1,
    0x5e26, 0x3c4d, 0x789a, 0x47ac,
];

/// The ZUC-256 key-loading constants d_i (7 bits each) of "The ZUC-256 Stream Cipher"
/// (2018), section 2.2 for the keystream and section 3 for the MAC, one row per use.
pub(crate) const D256: [[u8; 16]; 4] = [
    // keystream
    [
        0x22, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
    // 32-bit MAC
    [
        0x22, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
    // 64-bit MAC
    [
        0x23, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
    // 128-bit MAC
    [
        0x23, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
];

/// `x · 2^k mod (2^31 - 1)` for a 31-bit `x`: a rotation within 31 bits.
#[inline(always)]
fn rot31(x: u32, k: u32) -> u32 {
    ((x << k) | (x >> (31 - k))) & P
}

/// The LFSR's next cell in round i of a 16-round block (cell s_j at index (i + j) mod 16;
/// `u` as in [`State::lfsr_step`]): the sum of the shifted cells in 64 bits, folded twice
/// (2^31 = 1 mod 2^31 - 1), which maps a nonzero sum into 1..=2^31-1 and a multiple of
/// 2^31 - 1 to 2^31 - 1 itself, branch-free. The newest cell's term is added last: it
/// carries the recurrence from one round to the next.
#[inline(always)]
pub(crate) fn lfsr_next(s: &[u32; 16], i: usize, u: u32) -> u32 {
    let at = |j: usize| u64::from(s[(i + j) % 16]);
    // At most 2^31 (2^0 + 2^8 + 2^20 + 2^21 + 2^17 + 2^15 + 1) < 2^54: no overflow.
    let rest = at(0)
        .wrapping_add(at(0) << 8)
        .wrapping_add(at(4) << 20)
        .wrapping_add(at(10) << 21)
        .wrapping_add(at(13) << 17)
        .wrapping_add(u64::from(u));
    let sum = rest.wrapping_add(at(15) << 15);
    let sum = (sum & u64::from(P)).wrapping_add(sum >> 31);
    ((sum & u64::from(P)).wrapping_add(sum >> 31)) as u32
}

#[inline(always)]
pub(crate) fn l1(x: u32) -> u32 {
    x ^ x.rotate_left(2) ^ x.rotate_left(10) ^ x.rotate_left(18) ^ x.rotate_left(24)
}

#[inline(always)]
pub(crate) fn l2(x: u32) -> u32 {
    x ^ x.rotate_left(8) ^ x.rotate_left(14) ^ x.rotate_left(22) ^ x.rotate_left(30)
}

/// The generator state (public only to name it in the sealed traits): LFSR cells s0..s15
/// (31 bits each, never 0), the registers R1, R2, and the backend that runs it.
#[derive(Clone)]
pub struct State {
    s: [u32; 16],
    r1: u32,
    r2: u32,
    backend: Available<Backend>,
}

impl State {
    /// ZUC-128 key loading (section 3.5.1: s_i = k_i || d_i || iv_i) and initialisation.
    pub(crate) fn new_128(key: &[u8; 16], iv: &[u8; 16], backend: Available<Backend>) -> Self {
        let mut s = [0u32; 16];
        for (i, cell) in s.iter_mut().enumerate() {
            *cell = (u32::from(key[i]) << 23) | (D128[i] << 8) | u32::from(iv[i]);
        }
        Self::initialise(s, backend)
    }

    /// ZUC-256 key loading ("The ZUC-256 Stream Cipher", section 2.2) and initialisation.
    /// `iv` is the 25-byte form IV0..IV24 where IV17..IV24 are 6-bit values in the low bits
    /// of their bytes (the two high bits are ignored); `d` is one row of [`D256`].
    pub(crate) fn new_256(
        key: &[u8; 32],
        iv: &[u8; 25],
        d: &[u8; 16],
        backend: Available<Backend>,
    ) -> Self {
        let k = |i: usize| u32::from(key[i]);
        let v = |i: usize| u32::from(iv[i]);
        let v6 = |i: usize| u32::from(iv[i] & 0x3f);
        let d = |i: usize| u32::from(d[i]);
        let cell = |a: u32, b: u32, c: u32, e: u32| (a << 23) | (b << 16) | (c << 8) | e;
        let s = [
            cell(k(0), d(0), k(21), k(16)),
            cell(k(1), d(1), k(22), k(17)),
            cell(k(2), d(2), k(23), k(18)),
            cell(k(3), d(3), k(24), k(19)),
            cell(k(4), d(4), k(25), k(20)),
            cell(v(0), d(5) | v6(17), k(5), k(26)),
            cell(v(1), d(6) | v6(18), k(6), k(27)),
            cell(v(10), d(7) | v6(19), k(7), v(2)),
            cell(k(8), d(8) | v6(20), v(3), v(11)),
            cell(k(9), d(9) | v6(21), v(12), v(4)),
            cell(v(5), d(10) | v6(22), k(10), k(28)),
            cell(k(11), d(11) | v6(23), v(6), v(13)),
            cell(k(12), d(12) | v6(24), v(7), v(14)),
            cell(k(13), d(13), v(15), v(8)),
            cell(k(14), d(14) | (k(31) >> 4), v(16), v(9)),
            cell(k(15), d(15) | (k(31) & 0x0f), k(30), k(29)),
        ];
        Self::initialise(s, backend)
    }

    /// 32 rounds in initialisation mode, then one working round whose output is discarded.
    fn initialise(s: [u32; 16], backend: Available<Backend>) -> Self {
        let mut state = Self {
            s,
            r1: 0,
            r2: 0,
            backend,
        };
        run(backend, Initialise(&mut state));
        state
    }

    /// The initialisation rounds with one kernel's S-boxes.
    #[inline(always)]
    pub(crate) fn initialise_with<K: Ops>(&mut self, k: K) {
        let mut scratch = [[0u8; 4]; 16];
        k.rounds16::<true>(self, &mut scratch);
        k.rounds16::<true>(self, &mut scratch);
        let _ = self.round(k);
        self.lfsr_step(0);
    }

    /// The LFSR cells, R1 and R2, for a kernel's own rounds (the x86-64 GFNI engine's).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn parts(&mut self) -> (&mut [u32; 16], &mut u32, &mut u32) {
        (&mut self.s, &mut self.r1, &mut self.r2)
    }

    /// Sixteen rounds (16 key words, big-endian, into `out` in working mode; `INIT`: in
    /// initialisation mode, `out` untouched) with the scalar F and kernel `k`'s S-boxes.
    /// The cells are not shifted: round i reads cell s_j at index (i + j) mod 16 and writes
    /// s_16 over s_0, so after 16 rounds the array is in order again.
    #[inline(always)]
    pub(crate) fn rounds16_with<K: Ops, const INIT: bool>(
        &mut self,
        k: K,
        out: &mut [[u8; 4]; 16],
    ) {
        unroll16!(|i| self.round_at::<K, INIT>(k, i, &mut out[i]));
    }

    /// Round i of [`State::rounds16_with`] (`i` a constant after inlining).
    #[inline(always)]
    fn round_at<K: Ops, const INIT: bool>(&mut self, k: K, i: usize, o: &mut [u8; 4]) {
        {
            let s = &self.s;
            let at = |j: usize| s[(i + j) % 16];
            let x0 = ((at(15) & 0x7fff_8000) << 1) | (at(14) & 0xffff);
            let x1 = (at(11) << 16) | (at(9) >> 15);
            let x2 = (at(7) << 16) | (at(5) >> 15);
            let x3 = (at(2) << 16) | (at(0) >> 15);
            let w = (x0 ^ self.r1).wrapping_add(self.r2);
            let w1 = self.r1.wrapping_add(x1);
            let w2 = self.r2 ^ x2;
            let (r1, r2) = k.sbox_pair(l1((w1 << 16) | (w2 >> 16)), l2((w2 << 16) | (w1 >> 16)));
            self.r1 = r1;
            self.r2 = r2;
            let next = lfsr_next(&self.s, i, if INIT { w >> 1 } else { 0 });
            self.s[i] = next;
            if !INIT {
                *o = (w ^ x3).to_be_bytes();
            }
        }
    }

    /// Bit reorganisation and F: returns (X3, W) and updates R1, R2.
    #[inline(always)]
    fn round<K: Ops>(&mut self, k: K) -> (u32, u32) {
        let s = &self.s;
        let x0 = ((s[15] & 0x7fff_8000) << 1) | (s[14] & 0xffff);
        let x1 = (s[11] << 16) | (s[9] >> 15);
        let x2 = (s[7] << 16) | (s[5] >> 15);
        let x3 = (s[2] << 16) | (s[0] >> 15);
        let w = (x0 ^ self.r1).wrapping_add(self.r2);
        let w1 = self.r1.wrapping_add(x1);
        let w2 = self.r2 ^ x2;
        let (r1, r2) = k.sbox_pair(l1((w1 << 16) | (w2 >> 16)), l2((w2 << 16) | (w1 >> 16)));
        self.r1 = r1;
        self.r2 = r2;
        (x3, w)
    }

    /// One LFSR step: s16 = 2^15 s15 + 2^17 s13 + 2^21 s10 + 2^20 s4 + (1 + 2^8) s0 + u
    /// mod (2^31 - 1), with 0 written as 2^31 - 1 (u = W >> 1 in initialisation mode, 0 in
    /// working mode). Branch-free: the sum is folded twice, which maps every nonzero sum
    /// into 1..=2^31-1 and a multiple of 2^31 - 1 to 2^31 - 1 itself.
    #[inline(always)]
    fn lfsr_step(&mut self, u: u32) {
        let s = &self.s;
        // Wrapping adds: nothing can overflow (seven 31-bit terms), and a debug build's
        // overflow check would be a branch on secret data.
        let sum = [
            rot31(s[0], 8),
            rot31(s[4], 20),
            rot31(s[10], 21),
            rot31(s[13], 17),
            rot31(s[15], 15),
            u,
        ]
        .iter()
        .fold(u64::from(s[0]), |acc, &t| acc.wrapping_add(u64::from(t)));
        let sum = (sum & u64::from(P)).wrapping_add(sum >> 31);
        let sum = (sum & u64::from(P)).wrapping_add(sum >> 31);
        self.s.copy_within(1.., 0);
        self.s[15] = sum as u32;
    }

    /// The next 32-bit key word with one kernel's S-boxes.
    #[inline(always)]
    pub(crate) fn next_word_with<K: Ops>(&mut self, k: K) -> u32 {
        let (x3, w) = self.round(k);
        self.lfsr_step(0);
        w ^ x3
    }

    /// Key words, big-endian, with one kernel's S-boxes.
    #[inline(always)]
    pub(crate) fn fill_with<K: Ops>(&mut self, k: K, out: &mut [[u8; 4]]) {
        let (blocks, rest) = out.as_chunks_mut::<16>();
        for block in blocks {
            k.rounds16::<false>(self, block);
        }
        for o in rest {
            *o = self.next_word_with(k).to_be_bytes();
        }
    }

    /// The next 32-bit key word.
    #[inline]
    pub(crate) fn next_word(&mut self) -> u32 {
        run(self.backend, NextWord(self))
    }

    /// Fills `out` with key words, big-endian.
    #[inline]
    pub(crate) fn fill(&mut self, out: &mut [[u8; 4]]) {
        run(self.backend, Fill(self, out))
    }

    /// The backend that runs this generator.
    pub(crate) fn backend(&self) -> Available<Backend> {
        self.backend
    }
}

#[cfg(feature = "zeroize")]
impl Drop for State {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.s.zeroize();
        self.r1.zeroize();
        self.r2.zeroize();
    }
}
