//! The SM3 message expansion and 64 compression rounds (GB/T 32905-2016, 5.3.2 and 5.3.3),
//! written once over a [`Word`]: a scalar `u32` for the single-stream engines, or a SIMD
//! register holding the same word of 8 or 16 independent messages for the multi-buffer
//! engines.
//!
//! All 64 rounds are unrolled and the eight working variables are renamed round by round
//! instead of moved (the usual SHA-2 idiom): round j writes TT1 into D's slot and P0(TT2)
//! into H's, so after four rounds the names are back in place. Each round also computes
//! the next round's GG from the parts of P0 ([`Word::p0_ch`]), which keeps GG off the
//! chain from one E to the next on scalar x86-64. The constants T_j <<< j come from a
//! table. Every function is `#[inline(always)]` so it is compiled inside the
//! calling engine's `target_feature` entry (where rotates become `rorx` / `vprold`).

use crate::consts::K;

/// Marks the items used only by the x86 lanes and the Zksh engine as such: elsewhere they
/// are dead code.
macro_rules! lanes_only {
    ($($item:item)*) => {
        $(
            #[cfg_attr(
                not(any(
                    target_arch = "x86_64",
                    all(
                        any(target_arch = "riscv32", target_arch = "riscv64"),
                        target_feature = "zksh"
                    )
                )),
                allow(dead_code)
            )]
            $item
        )*
    };
}

/// A 32-bit word, or a SIMD register of 32-bit lanes, with the operations SM3 needs.
///
/// Implementations are `#[inline(always)]`; a SIMD register carries the proof that its
/// instructions run here (see `x86::lanes`), so its methods are safe.
pub(crate) trait Word: Copy {
    /// `k` in every lane, as a word of the same kind as `self` (a register keeps the
    /// proof it carries; `self`'s value is not used).
    fn splat(self, k: u32) -> Self;
    /// Lane-wise wrapping addition.
    fn add(self, o: Self) -> Self;
    /// Bitwise XOR.
    fn xor(self, o: Self) -> Self;
    /// Lane-wise left rotation by `N` bits (0 < N < 32).
    fn rotl<const N: i32>(self) -> Self;
    /// `a ^ b ^ c` (FF_j and GG_j for j < 16).
    #[inline(always)]
    fn xor3(a: Self, b: Self, c: Self) -> Self {
        a.xor(b).xor(c)
    }
    /// Majority (FF_j for j >= 16). Scalar form `(a & (b | c)) | (b & c)`: B and C are
    /// known a round early, so only two operations wait for A.
    fn maj(a: Self, b: Self, c: Self) -> Self;
    /// Choose `a ? b : c` (GG_j for j >= 16).
    fn ch(a: Self, b: Self, c: Self) -> Self;
    /// The permutation P0 (GB/T 32905-2016, 4.4).
    #[inline(always)]
    fn p0(self) -> Self {
        Self::xor3(self, self.rotl::<9>(), self.rotl::<17>())
    }
    /// `(e, e ^ f ^ g)` for `e = x.p0()`: the next round's E and its GG for j < 16.
    #[inline(always)]
    fn p0_xor3(x: Self, f: Self, g: Self) -> (Self, Self) {
        let e = x.p0();
        (e, e.xor(f.xor(g)))
    }
    /// `(e, ch(e, f, g))` for `e = x.p0()`: the next round's E and its GG for j >= 16.
    #[inline(always)]
    fn p0_ch(x: Self, f: Self, g: Self) -> (Self, Self) {
        let e = x.p0();
        (e, Self::ch(e, f, g))
    }
    /// The permutation P1 (GB/T 32905-2016, 4.4).
    #[inline(always)]
    fn p1(self) -> Self {
        Self::xor3(self, self.rotl::<15>(), self.rotl::<23>())
    }
}

impl Word for u32 {
    #[inline(always)]
    fn splat(self, k: u32) -> Self {
        k
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        self ^ o
    }
    #[inline(always)]
    fn rotl<const N: i32>(self) -> Self {
        self.rotate_left(N as u32)
    }
    #[inline(always)]
    fn maj(a: Self, b: Self, c: Self) -> Self {
        (a & (b | c)) | (b & c)
    }
    #[inline(always)]
    fn ch(a: Self, b: Self, c: Self) -> Self {
        (a & b) | (!a & c)
    }
    /// With e = x ^ t, t = (x <<< 9) ^ (x <<< 17): ch(e, f, g) = g ^ (e & (f ^ g))
    /// = (g ^ (x & (f ^ g))) ^ (t & (f ^ g)), whose first half starts as soon as x
    /// exists, so GG is one operation after E instead of two (the next round's TT2 no
    /// longer waits for it: on x86-64 7 -> 6 cycles of dependency chain per round).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn p0_ch(x: Self, f: Self, g: Self) -> (Self, Self) {
        let t = x.rotl::<9>() ^ x.rotl::<17>();
        let s = f ^ g;
        // Opaque, or LLVM factors the two halves back into (x ^ t) & s.
        let early = shangmi_dispatch::ct::opaque_u32(g ^ (x & s));
        (x ^ t, early ^ (t & s))
    }
}

lanes_only! {
    /// Expands W_0..W_15 (already in `w[..16]`) into W_16..W_67 and W'_0..W'_63.
    #[inline(always)]
    pub(crate) fn expand<W: Word>(w: &mut [W; 68], wp: &mut [W; 64]) {
        for j in 16..68 {
            w[j] = W::xor3(
                W::xor3(w[j - 16], w[j - 9], w[j - 3].rotl::<15>()).p1(),
                w[j - 13].rotl::<7>(),
                w[j - 6],
            );
        }
        for j in 0..64 {
            wp[j] = w[j].xor(w[j + 4]);
        }
    }
}

/// One round with the working variables named `a..h` and this round's GG in `gg`; writes
/// the new A into `d`, the new E into `h`, rotates `b` and `f` in place and leaves the
/// next round's GG in `gg` (`$next`: [`Word::p0_xor3`] or [`Word::p0_ch`]).
macro_rules! round {
    ($a:expr, $b:expr, $c:expr, $d:expr, $e:expr, $f:expr, $g:expr, $h:expr, $gg:ident,
     $j:expr, $m:ident, $k:ident, $ff:ident, $next:ident) => {
        let a12 = $a.rotl::<12>();
        let ss1 = a12.add(a12.splat($k[$j])).add($e).rotl::<7>();
        let ss2 = ss1.xor(a12);
        let tt1 = W::$ff($a, $b, $c).add($d).add($m.wp($j)).add(ss2);
        let tt2 = $gg.add($h).add($m.w($j)).add(ss1);
        $d = tt1;
        $b = $b.rotl::<9>();
        $f = $f.rotl::<19>();
        // The next round's E, F, G are P0(TT2), this round's E and its F <<< 19.
        ($h, $gg) = W::$next(tt2, $e, $f);
    };
}

/// Four rounds starting at `$j`, renaming the variables after each; the last one computes
/// the GG of round `$j + 4` with `$last`.
macro_rules! round4 {
    ($s:ident, $gg:ident, $j:expr, $m:ident, $k:ident, $ff:ident, $next:ident, $last:ident) => {
        round!(
            $s[0], $s[1], $s[2], $s[3], $s[4], $s[5], $s[6], $s[7], $gg, $j, $m, $k, $ff, $next
        );
        round!(
            $s[3],
            $s[0],
            $s[1],
            $s[2],
            $s[7],
            $s[4],
            $s[5],
            $s[6],
            $gg,
            $j + 1,
            $m,
            $k,
            $ff,
            $next
        );
        round!(
            $s[2],
            $s[3],
            $s[0],
            $s[1],
            $s[6],
            $s[7],
            $s[4],
            $s[5],
            $gg,
            $j + 2,
            $m,
            $k,
            $ff,
            $next
        );
        round!(
            $s[1],
            $s[2],
            $s[3],
            $s[0],
            $s[5],
            $s[6],
            $s[7],
            $s[4],
            $gg,
            $j + 3,
            $m,
            $k,
            $ff,
            $last
        );
    };
}

lanes_only! {
    /// Runs the 64 rounds on `state` with the expanded message `w` (W_0..W_63 are used) and
    /// `wp` (W'_j = W_j ^ W_{j+4}), then applies the feed-forward V ^= ABCDEFGH.
    #[inline(always)]
    pub(crate) fn rounds<W: Word>(state: &mut [W; 8], w: &[W; 68], wp: &[W; 64]) {
        rounds_with(state, &mut Expanded { w, wp }, &K);
    }
}

/// Where the rounds get W_j and W'_j from, and independent work to interleave with them.
///
/// A trait with `#[inline(always)]` methods rather than closures, because a closure may be
/// compiled out of line without the engine's `target_feature`s.
pub(crate) trait Message<W> {
    /// W_j.
    fn w(&self, j: usize) -> W;
    /// W'_j = W_j ^ W_{j+4}.
    fn wp(&self, j: usize) -> W;
    /// Called after round group `i` (rounds 4i..4i+4), i = 0..16: the place to compute
    /// words that later rounds need, interleaved in program order with the serial rounds
    /// so the out-of-order core overlaps the two.
    fn after(&mut self, i: usize);
}

/// A fully expanded message.
pub(crate) struct Expanded<'a, W> {
    /// W_0..W_67.
    pub(crate) w: &'a [W; 68],
    /// W'_0..W'_63.
    pub(crate) wp: &'a [W; 64],
}

impl<W: Copy> Message<W> for Expanded<'_, W> {
    #[inline(always)]
    fn w(&self, j: usize) -> W {
        self.w[j]
    }
    #[inline(always)]
    fn wp(&self, j: usize) -> W {
        self.wp[j]
    }
    #[inline(always)]
    fn after(&mut self, _: usize) {}
}

/// The 64 rounds with the message words from `m` and the round constants read from `k`
/// (always [`K`]; an engine may pass it through `black_box` so LLVM keeps
/// `(A <<< 12) + K_j` off the critical path instead of folding the constant last).
#[inline(always)]
#[allow(unused_assignments)] // round 63 computes the GG of a round 64
pub(crate) fn rounds_with<W: Word>(state: &mut [W; 8], m: &mut impl Message<W>, k: &[u32; 64]) {
    let mut s = *state;
    let mut gg = W::xor3(s[4], s[5], s[6]);
    round4!(s, gg, 0, m, k, xor3, p0_xor3, p0_xor3);
    m.after(0);
    round4!(s, gg, 4, m, k, xor3, p0_xor3, p0_xor3);
    m.after(1);
    round4!(s, gg, 8, m, k, xor3, p0_xor3, p0_xor3);
    m.after(2);
    round4!(s, gg, 12, m, k, xor3, p0_xor3, p0_ch);
    m.after(3);
    round4!(s, gg, 16, m, k, maj, p0_ch, p0_ch);
    m.after(4);
    round4!(s, gg, 20, m, k, maj, p0_ch, p0_ch);
    m.after(5);
    round4!(s, gg, 24, m, k, maj, p0_ch, p0_ch);
    m.after(6);
    round4!(s, gg, 28, m, k, maj, p0_ch, p0_ch);
    m.after(7);
    round4!(s, gg, 32, m, k, maj, p0_ch, p0_ch);
    m.after(8);
    round4!(s, gg, 36, m, k, maj, p0_ch, p0_ch);
    m.after(9);
    round4!(s, gg, 40, m, k, maj, p0_ch, p0_ch);
    m.after(10);
    round4!(s, gg, 44, m, k, maj, p0_ch, p0_ch);
    m.after(11);
    round4!(s, gg, 48, m, k, maj, p0_ch, p0_ch);
    m.after(12);
    round4!(s, gg, 52, m, k, maj, p0_ch, p0_ch);
    m.after(13);
    round4!(s, gg, 56, m, k, maj, p0_ch, p0_ch);
    m.after(14);
    round4!(s, gg, 60, m, k, maj, p0_ch, p0_ch);
    m.after(15);
    for (v, x) in state.iter_mut().zip(s) {
        *v = v.xor(x);
    }
}
