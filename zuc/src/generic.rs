//! The code every single-stream kernel shares, generic over its [`Ops`] (S-boxes and the
//! MAC's window sum): the generator [`State`] with its rounds (the LFSR over GF(2^31 - 1),
//! the bit reorganisation and the nonlinear function F of 3GPP "Document 2: ZUC
//! Specification" v1.6, section 3) and the MAC [`Engine`] with its word loop. Nothing here
//! picks a backend: `engine` maps a backend to its kernel, whose entry points run these
//! functions under its target features; `state` and `mac` load keys and call the kernel
//! through `engine::run`.

use shangmi_dispatch::{Available, ct::opaque_u32};

use crate::Backend;

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

/// The bit reorganisation [X0, X1, X2, X3] of the cells `i` rounds into a 16-round block
/// (cell s_j at index (i + j) mod 16).
#[inline(always)]
pub(crate) fn bit_reorganisation(s: &[u32; 16], i: usize) -> [u32; 4] {
    let at = |j: usize| s[(i + j) % 16];
    [
        ((at(15) & 0x7fff_8000) << 1) | (at(14) & 0xffff),
        (at(11) << 16) | (at(9) >> 15),
        (at(7) << 16) | (at(5) >> 15),
        (at(2) << 16) | (at(0) >> 15),
    ]
}

#[inline(always)]
pub(crate) fn l1(x: u32) -> u32 {
    x ^ x.rotate_left(2) ^ x.rotate_left(10) ^ x.rotate_left(18) ^ x.rotate_left(24)
}

#[inline(always)]
pub(crate) fn l2(x: u32) -> u32 {
    x ^ x.rotate_left(8) ^ x.rotate_left(14) ^ x.rotate_left(22) ^ x.rotate_left(30)
}

/// The two primitives a backend supplies to the shared code: inlined into the kernel's
/// entry points (see the module documentation).
pub(crate) trait Ops: Copy {
    /// S = (S0, S1, S0, S1) on the bytes of `u` and `v`, as [`crate::sbox::sbox_pair`].
    fn sbox_pair(self, u: u32, v: u32) -> (u32, u32);

    /// Sixteen rounds of the generator (see [`State::rounds16_with`], which is the
    /// portable form): 16 key words into `out`, or with `INIT` initialisation rounds.
    #[inline(always)]
    fn rounds16<const INIT: bool>(self, state: &mut State, out: &mut [[u8; 4]; 16]) {
        state.rounds16_with::<Self, INIT>(self, out);
    }

    /// The MAC steps for sixteen whole message words: word i with the window of key words
    /// `z[i..=i + N]` (as [`Ops::mac_sum`] with 32 bits each).
    #[inline(always)]
    fn mac_sum16<const N: usize>(self, tag: &mut [u32; N], z: &[u32; 21], block: &[[u8; 4]; 16]) {
        for (i, &m) in block.iter().enumerate() {
            let mut window = [0u32; 5];
            window.copy_from_slice(&z[i..i + 5]);
            self.mac_sum(tag, &window, u32::from_be_bytes(m), 32);
        }
    }

    /// The MAC step for the first `bits` (1..=32) bits of message word `m`, most
    /// significant first: for every bit j that is 1, XOR into tag word w the 32-bit
    /// keystream window starting j bits into key word w.
    #[inline(always)]
    fn mac_sum<const N: usize>(self, tag: &mut [u32; N], window: &[u32; 5], m: u32, bits: u32) {
        for j in 0..bits {
            // No branch on message or keystream bits: each bit selects its window by mask.
            let mask = opaque_u32(0u32.wrapping_sub((m >> (31 - j)) & 1));
            for (w, t) in tag.iter_mut().enumerate() {
                let pair = (u64::from(window[w]) << 32) | u64::from(window[w + 1]);
                *t ^= ((pair >> (32 - j)) as u32) & mask;
            }
        }
    }
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
    /// A generator with loaded LFSR cells and R1 = R2 = 0, before its initialisation
    /// rounds (`state` runs those on the backend).
    pub(crate) fn loaded(s: [u32; 16], backend: Available<Backend>) -> Self {
        Self {
            s,
            r1: 0,
            r2: 0,
            backend,
        }
    }

    /// The initialisation rounds with one kernel's S-boxes.
    #[inline(always)]
    pub(crate) fn initialise_with<K: Ops>(&mut self, k: K) {
        let mut scratch = [[0u8; 4]; 16];
        k.rounds16::<true>(self, &mut scratch);
        k.rounds16::<true>(self, &mut scratch);
        let _ = self.round(k, 0);
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
        let (x3, w) = self.round(k, i);
        let next = lfsr_next(&self.s, i, if INIT { w >> 1 } else { 0 });
        self.s[i] = next;
        if !INIT {
            *o = (w ^ x3).to_be_bytes();
        }
    }

    /// Bit reorganisation and F on the cells as they stand `i` rounds into a
    /// [`State::rounds16_with`] block (cell s_j at index (i + j) mod 16; 0 when the cells
    /// are in order; `i` a constant after inlining): returns (X3, W) and updates R1, R2.
    #[inline(always)]
    fn round<K: Ops>(&mut self, k: K, i: usize) -> (u32, u32) {
        let [x0, x1, x2, x3] = bit_reorganisation(&self.s, i);
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
        let (x3, w) = self.round(k, 0);
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

/// The shared MAC state: `N` tag words (1, 2 or 4), a window of `N + 1` key words.
#[derive(Clone)]
pub(crate) struct Engine<const N: usize> {
    pub(crate) state: State,
    pub(crate) tag: [u32; N],
    /// Key words from the current message word on: `window[0..=N]`.
    pub(crate) window: [u32; 5],
    pub(crate) pending: [u8; 4],
    pub(crate) pending_len: usize,
    /// Message bits absorbed in full 32-bit words.
    pub(crate) words: u64,
}

impl<const N: usize> Engine<N> {
    /// The t-bit window starting `j` bits (0..32) into the current key word.
    #[inline(always)]
    pub(crate) fn window_at(&self, j: u32) -> [u32; N] {
        let mut out = [0u32; N];
        for (w, o) in out.iter_mut().enumerate() {
            let pair = (u64::from(self.window[w]) << 32) | u64::from(self.window[w + 1]);
            *o = (pair >> (32 - j)) as u32;
        }
        out
    }

    /// Absorbs the first `bits` (1..=32) bits of `m`, most significant first, with kernel
    /// `k`'s window sum.
    #[inline(always)]
    pub(crate) fn absorb_bits_with<K: Ops>(&mut self, k: K, m: u32, bits: u32) {
        k.mac_sum(&mut self.tag, &self.window, m, bits);
    }

    /// Absorbs full message words (big-endian), sliding the window by one key word after
    /// each, with kernel `k`'s window sum and S-boxes.
    #[inline(always)]
    pub(crate) fn absorb_words_with<K: Ops>(&mut self, k: K, words: &[[u8; 4]]) {
        let (blocks, rest) = words.as_chunks::<16>();
        for block in blocks {
            // Sixteen key words at once: z holds the window (z_q ..= z_{q+N}) and the next
            // sixteen, so message word i's window is z[i..=i + N].
            let mut ks = [[0u8; 4]; 16];
            k.rounds16::<false>(&mut self.state, &mut ks);
            let mut z = [0u32; 21];
            z[..=N].copy_from_slice(&self.window[..=N]);
            for (d, w) in z[N + 1..N + 17].iter_mut().zip(ks) {
                *d = u32::from_be_bytes(w);
            }
            k.mac_sum16(&mut self.tag, &z, block);
            self.window[..=N].copy_from_slice(&z[16..=16 + N]);
        }
        for &w in rest {
            k.mac_sum(&mut self.tag, &self.window, u32::from_be_bytes(w), 32);
            self.window.copy_within(1..=N, 0);
            self.window[N] = self.state.next_word_with(k);
        }
        self.words += words.len() as u64;
    }
}

#[cfg(feature = "zeroize")]
impl<const N: usize> Drop for Engine<N> {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.tag.zeroize();
        self.window.zeroize();
        self.pending.zeroize();
    }
}
