//! Multi-buffer kernels: the generic SM3 rounds (`crate::rounds`) on registers holding the
//! same word of 8 (AVX2) or 16 (AVX-512) independent messages, one message per lane.
//! AVX-512 makes the boolean functions and the three-way XORs of P0/P1 one `vpternlogd`
//! each and every rotate one `vprold`.
//!
//! The registers carry their proof: [`Y`] holds an [`Avx2`] kernel token and [`Z`] an
//! [`Avx512`] one next to the vector, their fields are private to this module, and the
//! functions that make them from nothing take the token. That is the SAFETY argument of
//! every intrinsic call here.

use core::arch::x86_64::*;

use super::{Avx2, Avx512};
use crate::rounds::{Word, expand, rounds};

/// A 256-bit register of the `avx2` kernel.
#[derive(Clone, Copy)]
pub(crate) struct Y(__m256i, Avx2);
/// A 512-bit register of the `avx512` kernel.
#[derive(Clone, Copy)]
pub(crate) struct Z(__m512i, Avx512);

/// Methods that apply one intrinsic expression to the register(s) named, the result kept
/// with `$first`'s proof.
macro_rules! lift {
    ($W:ident: $($method:ident($first:ident $(, $arg:ident)*) => |$($v:ident),+| $body:expr;)*) => {$(
        #[inline(always)]
        fn $method($first: Self $(, $arg: Self)*) -> Self {
            let proof = $first.1;
            let [$($v),+] = [$first.0 $(, $arg.0)*];
            // SAFETY: the register carries its proof (module comment).
            $W(unsafe { $body }, proof)
        }
    )*};
}

impl Word for Y {
    #[inline(always)]
    fn splat(self, k: u32) -> Self {
        // SAFETY: `self` carries its proof (module comment).
        Y(unsafe { _mm256_set1_epi32(k as i32) }, self.1)
    }
    #[inline(always)]
    fn rotl<const N: i32>(self) -> Self {
        let x = self.0;
        // SAFETY: `self` carries its proof (module comment).
        Y(
            unsafe {
                _mm256_or_si256(
                    _mm256_slli_epi32::<N>(x),
                    _mm256_srl_epi32(x, _mm_cvtsi32_si128(32 - N)),
                )
            },
            self.1,
        )
    }
    lift! { Y:
        add(self, o) => |a, b| _mm256_add_epi32(a, b);
        xor(self, o) => |a, b| _mm256_xor_si256(a, b);
        maj(a, b, c) => |a, b, c| _mm256_or_si256(
            _mm256_and_si256(a, b),
            _mm256_and_si256(c, _mm256_or_si256(a, b)),
        );
        ch(a, b, c) => |a, b, c| _mm256_or_si256(_mm256_and_si256(a, b), _mm256_andnot_si256(a, c));
    }
}

impl Word for Z {
    #[inline(always)]
    fn splat(self, k: u32) -> Self {
        // SAFETY: `self` carries its proof (module comment).
        Z(unsafe { _mm512_set1_epi32(k as i32) }, self.1)
    }
    #[inline(always)]
    fn rotl<const N: i32>(self) -> Self {
        // SAFETY: `self` carries its proof (module comment).
        Z(unsafe { _mm512_rol_epi32::<N>(self.0) }, self.1)
    }
    lift! { Z:
        add(self, o) => |a, b| _mm512_add_epi32(a, b);
        xor(self, o) => |a, b| _mm512_xor_si512(a, b);
        xor3(a, b, c) => |a, b, c| _mm512_ternarylogic_epi32::<0x96>(a, b, c);
        maj(a, b, c) => |a, b, c| _mm512_ternarylogic_epi32::<0xe8>(a, b, c);
        ch(a, b, c) => |a, b, c| _mm512_ternarylogic_epi32::<0xca>(a, b, c);
    }
}

/// Block `k` of lane slice `s`: a slice of 64 bytes or less than two blocks is reused for
/// every step (idle lanes point at one dummy block).
#[inline(always)]
fn lane_block(s: &[u8], k: usize) -> &[u8] {
    let off = if s.len() >= 128 { 64 * k } else { 0 };
    &s[off..off + 64]
}

/// The 4x4 word transpose inside each 128-bit chunk (`vpunpck*`: the width's unpack-low
/// and -high intrinsics on 32- and 64-bit elements): for every group g, chunk c of
/// `$b[g][m]` gets word m of chunk c of each of the four registers `$r[4g..4g+4]`.
macro_rules! transpose_in_chunks {
    ($r:ident, $b:ident: $lo32:ident, $hi32:ident, $lo64:ident, $hi64:ident) => {
        for (g, bg) in $b.iter_mut().enumerate() {
            let a0 = $lo32($r[4 * g], $r[4 * g + 1]);
            let a1 = $hi32($r[4 * g], $r[4 * g + 1]);
            let a2 = $lo32($r[4 * g + 2], $r[4 * g + 3]);
            let a3 = $hi32($r[4 * g + 2], $r[4 * g + 3]);
            bg[0] = $lo64(a0, a2);
            bg[1] = $hi64(a0, a2);
            bg[2] = $lo64(a1, a3);
            bg[3] = $hi64(a1, a3);
        }
    };
}

/// Loads block `k` of the 8 lanes and transposes it in registers so `w[j]` holds word j
/// (big-endian) of every lane: per half block, a 4x4 word transpose inside each 128-bit
/// chunk (`vpunpck*`), then the chunks swapped across registers (`vperm2i128`).
#[inline(always)]
fn load_transposed_8(cpu: Avx2, lanes: &[&[u8]; 8], k: usize, w: &mut [Y; 68]) {
    // SAFETY: `cpu` proves AVX2 (module comment); each load reads 32 bytes at offset 0 or
    // 32 of one lane's 64-byte block (`lane_block`).
    unsafe {
        let bswap = _mm256_broadcastsi128_si256(_mm_set_epi8(
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
        ));
        for half in 0..2 {
            let mut r = [_mm256_setzero_si256(); 8];
            for (ri, s) in r.iter_mut().zip(lanes) {
                let raw = _mm256_loadu_si256(lane_block(s, k)[32 * half..].as_ptr().cast());
                *ri = _mm256_shuffle_epi8(raw, bswap);
            }
            // b[g][m]: chunk c holds word 8 * half + 4c + m of lanes 4g..4g+4.
            let mut b = [[_mm256_setzero_si256(); 4]; 2];
            transpose_in_chunks!(r, b: _mm256_unpacklo_epi32, _mm256_unpackhi_epi32,
                _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
            for m in 0..4 {
                w[8 * half + m] = Y(_mm256_permute2x128_si256::<0x20>(b[0][m], b[1][m]), cpu);
                w[8 * half + 4 + m] = Y(_mm256_permute2x128_si256::<0x31>(b[0][m], b[1][m]), cpu);
            }
        }
    }
}

/// The multi-lane compression entry of one register width `$W` (kernel token `$Cpu`,
/// `$lanes` lanes): compresses `n` blocks of each lane into the lane-major `state`
/// (`state[word][lane]`). Lane slices hold `64 * n` bytes, or 64 bytes reused each step.
macro_rules! many {
    (
        $(#[$attr:meta])*
        fn $name:ident($Cpu:ident, $W:ident, $lanes:literal):
            $setzero:ident, $load:ident, $store:ident, $transposed:ident;
    ) => {
        $(#[$attr])*
        pub(super) fn $name(
            cpu: $Cpu,
            state: &mut [[u32; $lanes]; 8],
            lanes: &[&[u8]; $lanes],
            n: usize,
        ) {
            // SAFETY: `cpu` proves the width's features (module comment); every load and
            // store covers exactly one `[u32; $lanes]` (one register).
            unsafe {
                let zero = $W($setzero(), cpu);
                let mut s = [zero; 8];
                for (v, row) in s.iter_mut().zip(state.iter()) {
                    v.0 = $load(row.as_ptr().cast());
                }
                let mut w = [zero; 68];
                let mut wp = [zero; 64];
                for k in 0..n {
                    $transposed(cpu, lanes, k, &mut w);
                    expand(&mut w, &mut wp);
                    rounds(&mut s, &w, &wp);
                }
                for (v, row) in s.iter().zip(state.iter_mut()) {
                    $store(row.as_mut_ptr().cast(), v.0);
                }
            }
        }
    };
}

many! {
    /// The 8-lane (AVX2) entry of `many!`.
    #[target_feature(enable = "avx2,bmi1,bmi2")]
    fn many_avx2(Avx2, Y, 8):
        _mm256_setzero_si256, _mm256_loadu_si256, _mm256_storeu_si256, load_transposed_8;
}

/// Loads block `k` of the 16 lanes and transposes it in registers so `w[j]` holds word j
/// (big-endian) of every lane: a 4x4 word transpose inside each 128-bit chunk
/// (`vpunpck*`), then a 4x4 transpose of the chunks (`vshufi32x4`), 64 shuffles instead of
/// 256 scalar loads and stores.
#[inline(always)]
fn load_transposed_16(cpu: Avx512, lanes: &[&[u8]; 16], k: usize, w: &mut [Z; 68]) {
    // SAFETY: `cpu` proves AVX-512F and AVX-512BW (`vpshufb` on 512 bits; module
    // comment); each load reads the 64 bytes of one lane's block (`lane_block` returns
    // exactly 64 bytes).
    unsafe {
        let bswap = _mm512_broadcast_i32x4(_mm_set_epi8(
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
        ));
        let mut r = [_mm512_setzero_si512(); 16];
        for (ri, s) in r.iter_mut().zip(lanes) {
            let raw = _mm512_loadu_si512(lane_block(s, k).as_ptr().cast());
            *ri = _mm512_shuffle_epi8(raw, bswap);
        }
        // b[g][m]: chunk c holds word 4c + m of lanes 4g..4g+4.
        let mut b = [[_mm512_setzero_si512(); 4]; 4];
        transpose_in_chunks!(r, b: _mm512_unpacklo_epi32, _mm512_unpackhi_epi32,
            _mm512_unpacklo_epi64, _mm512_unpackhi_epi64);
        for m in 0..4 {
            let s0 = _mm512_shuffle_i32x4::<0x44>(b[0][m], b[1][m]);
            let s1 = _mm512_shuffle_i32x4::<0xee>(b[0][m], b[1][m]);
            let s2 = _mm512_shuffle_i32x4::<0x44>(b[2][m], b[3][m]);
            let s3 = _mm512_shuffle_i32x4::<0xee>(b[2][m], b[3][m]);
            w[m] = Z(_mm512_shuffle_i32x4::<0x88>(s0, s2), cpu);
            w[4 + m] = Z(_mm512_shuffle_i32x4::<0xdd>(s0, s2), cpu);
            w[8 + m] = Z(_mm512_shuffle_i32x4::<0x88>(s1, s3), cpu);
            w[12 + m] = Z(_mm512_shuffle_i32x4::<0xdd>(s1, s3), cpu);
        }
    }
}

many! {
    /// The 16-lane (AVX-512) entry of `many!`.
    #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx2,bmi1,bmi2")]
    fn many_avx512(Avx512, Z, 16):
        _mm512_setzero_si512, _mm512_loadu_si512, _mm512_storeu_si512, load_transposed_16;
}
