//! Eight ZUC-128 generators in the 32-bit lanes of AVX2 registers (lane l runs job l).
//! Every step is the single-stream step of `crate::state` done lane-wise: the mod 2^31 - 1
//! sums as 32-bit adds folded after each term (each term is below 2^31, so a pair never
//! overflows, and a fold maps it back to 1..=2^31 - 1 as the 64-bit sum's double fold
//! does), the rotations as shift pairs, and the S-boxes as on the AES-NI engine
//! (`crate::x86`) on 32 bytes at once, `aesenclast` on each 128-bit half. No branch or
//! address depends on keys, IVs or data; the lengths (public) decide which bytes are
//! written.
//!
//! Every function here needs AVX2, AES-NI, SSSE3, SSE4.1 and PCLMULQDQ (and `xor_x8_avx512`
//! AVX-512F/VL too), which the kernel tokens [`Avx2x8`] and [`Avx512x8`] prove: each is made
//! only from an `Available` backend of its kind, whose probe (`shangmi-dispatch`) found them.

use core::arch::x86_64::*;

use crate::ManyEngine;
use crate::many::{ManyKernel, OneByOne, Zuc128Job};
use crate::state::D128;
use crate::x86::{INV_SHIFT_ROWS, L_HI, L_LO, P1, P2, P3, PHI_HI, PHI_LO, ROT_T2, ROT_T3, v};

/// A 16-byte table in both 128-bit halves.
#[inline]
#[target_feature(enable = "avx2,aes,ssse3,sse4.1,pclmulqdq")]
fn table(t: [u8; 16]) -> __m256i {
    _mm256_broadcastsi128_si256(v(t))
}

/// Rotation left by `L` bits (`R` = 32 - `L`).
#[inline]
#[target_feature(enable = "avx2")]
fn rotl<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi32::<L>(x), _mm256_srli_epi32::<R>(x))
}

/// `x · 2^K mod (2^31 - 1)` for 31-bit lanes (`R` = 31 - `K`).
#[inline]
#[target_feature(enable = "avx2")]
fn rot31<const K: i32, const R: i32>(x: __m256i) -> __m256i {
    _mm256_and_si256(
        _mm256_or_si256(_mm256_slli_epi32::<K>(x), _mm256_srli_epi32::<R>(x)),
        _mm256_set1_epi32(0x7fff_ffff),
    )
}

/// `a + b mod (2^31 - 1)` for lanes below 2^31, folded once (0 stays 0 only for 0 + 0).
#[inline]
#[target_feature(enable = "avx2")]
fn add_mod(a: __m256i, b: __m256i) -> __m256i {
    let t = _mm256_add_epi32(a, b);
    _mm256_add_epi32(
        _mm256_and_si256(t, _mm256_set1_epi32(0x7fff_ffff)),
        _mm256_srli_epi32::<31>(t),
    )
}

#[inline]
#[target_feature(enable = "avx2")]
fn xor(a: __m256i, b: __m256i) -> __m256i {
    _mm256_xor_si256(a, b)
}

/// Rotation left by 8 bits as a byte shuffle (the shuffle ports are less busy than the
/// shift ports here).
#[inline]
#[target_feature(enable = "avx2,aes,ssse3,sse4.1,pclmulqdq")]
fn rotl8(x: __m256i) -> __m256i {
    _mm256_shuffle_epi8(
        x,
        table([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14]),
    )
}

/// Rotation left by 24 bits as a byte shuffle.
#[inline]
#[target_feature(enable = "avx2,aes,ssse3,sse4.1,pclmulqdq")]
fn rotl24(x: __m256i) -> __m256i {
    _mm256_shuffle_epi8(
        x,
        table([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]),
    )
}

#[inline]
#[target_feature(enable = "avx2,aes,ssse3,sse4.1,pclmulqdq")]
fn l1(x: __m256i) -> __m256i {
    xor(
        xor(x, rotl::<2, 30>(x)),
        xor(xor(rotl::<10, 22>(x), rotl::<18, 14>(x)), rotl24(x)),
    )
}

#[inline]
#[target_feature(enable = "avx2,aes,ssse3,sse4.1,pclmulqdq")]
fn l2(x: __m256i) -> __m256i {
    xor(
        xor(x, rotl8(x)),
        xor(xor(rotl::<14, 18>(x), rotl::<22, 10>(x)), rotl::<30, 2>(x)),
    )
}

/// The low and high nibbles of every byte.
#[inline]
#[target_feature(enable = "avx2")]
fn nibbles(x: __m256i) -> (__m256i, __m256i) {
    let mask = _mm256_set1_epi8(0x0f);
    (
        _mm256_and_si256(x, mask),
        _mm256_and_si256(_mm256_srli_epi16::<4>(x), mask),
    )
}

/// S = (S0, S1, S0, S1) on every 32-bit lane (`crate::x86::sbox_pair` on 32 bytes).
#[inline]
#[target_feature(enable = "avx2,aes,ssse3,sse4.1,pclmulqdq")]
fn sbox(x: __m256i) -> __m256i {
    let (lo, hi) = nibbles(x);
    let y = xor(
        _mm256_shuffle_epi8(table(PHI_LO), lo),
        _mm256_shuffle_epi8(table(PHI_HI), hi),
    );
    let y = _mm256_shuffle_epi8(y, table(INV_SHIFT_ROWS));
    let k = _mm_set1_epi8(0x63);
    let y = _mm256_set_m128i(
        _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(y), k),
        _mm_aesenclast_si128(_mm256_castsi256_si128(y), k),
    );
    let (ylo, yhi) = nibbles(y);
    let s1 = xor(
        _mm256_shuffle_epi8(table(L_LO), ylo),
        _mm256_shuffle_epi8(table(L_HI), yhi),
    );
    let t1 = xor(_mm256_shuffle_epi8(table(P1), lo), hi);
    let t2 = xor(_mm256_shuffle_epi8(table(P2), t1), lo);
    let t3 = xor(_mm256_shuffle_epi8(table(P3), t2), t1);
    let s0 = _mm256_or_si256(
        _mm256_shuffle_epi8(table(ROT_T2), t2),
        _mm256_shuffle_epi8(table(ROT_T3), t3),
    );
    _mm256_blendv_epi8(s1, s0, _mm256_set1_epi16(0xff00_u16 as i16))
}

/// Eight generators: the LFSR as a ring (cell s_j of step `pos` is `s[(pos + j) % 16]`,
/// s_16 overwrites `s[pos % 16]`), R1, R2.
struct Lanes {
    s: [__m256i; 16],
    r1: __m256i,
    r2: __m256i,
    pos: usize,
}

impl Lanes {
    /// One step: bit reorganisation, F, and the LFSR (with `u` = W >> 1 when `init`);
    /// returns the key words W ^ X3.
    #[inline]
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1,pclmulqdq")]
    fn step(&mut self, init: bool) -> __m256i {
        let pos = self.pos;
        let c = |j: usize| self.s[(pos + j) & 15];
        let x0 = _mm256_or_si256(
            _mm256_slli_epi32::<1>(_mm256_and_si256(c(15), _mm256_set1_epi32(0x7fff_8000))),
            _mm256_and_si256(c(14), _mm256_set1_epi32(0xffff)),
        );
        let x1 = _mm256_or_si256(
            _mm256_slli_epi32::<16>(c(11)),
            _mm256_srli_epi32::<15>(c(9)),
        );
        let x2 = _mm256_or_si256(_mm256_slli_epi32::<16>(c(7)), _mm256_srli_epi32::<15>(c(5)));
        let x3 = _mm256_or_si256(_mm256_slli_epi32::<16>(c(2)), _mm256_srli_epi32::<15>(c(0)));
        let w = _mm256_add_epi32(xor(x0, self.r1), self.r2);
        let w1 = _mm256_add_epi32(self.r1, x1);
        let w2 = xor(self.r2, x2);
        let u = l1(_mm256_or_si256(
            _mm256_slli_epi32::<16>(w1),
            _mm256_srli_epi32::<16>(w2),
        ));
        let t = l2(_mm256_or_si256(
            _mm256_slli_epi32::<16>(w2),
            _mm256_srli_epi32::<16>(w1),
        ));
        self.r1 = sbox(u);
        self.r2 = sbox(t);
        let mut next = add_mod(c(0), rot31::<8, 23>(c(0)));
        next = add_mod(next, rot31::<20, 11>(c(4)));
        next = add_mod(next, rot31::<21, 10>(c(10)));
        next = add_mod(next, rot31::<17, 14>(c(13)));
        next = add_mod(next, rot31::<15, 16>(c(15)));
        if init {
            next = add_mod(next, _mm256_srli_epi32::<1>(w));
        }
        self.s[pos & 15] = next;
        self.pos = pos + 1;
        xor(w, x3)
    }
}

shangmi_dispatch::kernel_token! {
    /// `zuc-avx2-x8`: AVX2, AES-NI, SSSE3, SSE4.1 and PCLMULQDQ.
    pub(crate) struct Avx2x8 = ManyEngine::Avx2x8;
}

shangmi_dispatch::kernel_token! {
    /// `zuc-avx512-x8`: the same kernel compiled with AVX-512F/VL as well (32 vector
    /// registers: the generator's state and constants stay in registers).
    pub(crate) struct Avx512x8 = ManyEngine::Avx512x8;
}

/// `ManyKernel` for a token whose eight-lane function is `$x8`.
macro_rules! many_kernel {
    ($Token:ident, $x8:ident) => {
        impl ManyKernel for $Token {
            #[inline]
            fn xor_keystreams(self, jobs: &mut [Zuc128Job<'_>]) {
                for chunk in jobs.chunks_mut(8) {
                    if chunk.len() == 1 {
                        // One job: the single-stream generator is faster than one lane of eight.
                        OneByOne.xor_keystreams(chunk);
                    } else {
                        // SAFETY: `self` proves the features `$x8` enables (module comment).
                        unsafe { $x8(chunk) }
                    }
                }
            }
        }
    };
}

many_kernel!(Avx2x8, xor_x8);
many_kernel!(Avx512x8, xor_x8_avx512);

/// Defines `$name`, which XORs each job's data with its ZUC-128 keystream (1 to 8 jobs),
/// compiled with `$features` (a macro, not a function called from two entries: whether
/// LLVM inlines a function this size into the second entry varies from build to build).
macro_rules! xor_x8_fn {
    ($(#[$doc:meta])* $name:ident, $features:literal) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        fn $name(jobs: &mut [Zuc128Job<'_>]) {
            debug_assert!(jobs.len() <= 8);
            // At most eight lanes, said where the compiler sees it (no bounds check per lane).
            let n = jobs.len().min(8);
            let jobs = &mut jobs[..n];
            // Key loading (s_i = k_i || d_i || iv_i), lane by lane; unused lanes stay zero keys.
            let mut cells = [[0i32; 8]; 16];
            for (l, job) in jobs.iter().enumerate() {
                for (i, row) in cells.iter_mut().enumerate() {
                    row[l] = ((u32::from(job.key[i]) << 23) | (D128[i] << 8) | u32::from(job.iv[i])) as i32;
                }
            }
            let mut lanes = Lanes {
                s: cells.map(|r| _mm256_setr_epi32(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7])),
                r1: _mm256_setzero_si256(),
                r2: _mm256_setzero_si256(),
                pos: 0,
    };
    for _ in 0..32 {
        lanes.step(true);
    }
    lanes.step(false);

    let words = jobs
        .iter()
        .map(|j| j.data.len().div_ceil(4))
        .max()
        .unwrap_or(0);
    let mut done = 0;
    while done < words {
        // Sixteen steps of key words, then each lane's share XORed into its message.
        let mut block = [[0u32; 8]; 16];
        for row in block.iter_mut() {
            let z = lanes.step(false);
            // SAFETY: `row` is 32 writable bytes; the store is unaligned.
            unsafe { _mm256_storeu_si256(row.as_mut_ptr().cast(), z) };
        }
        for (l, job) in jobs.iter_mut().enumerate() {
            let start = 4 * done;
            if start >= job.data.len() {
                continue;
            }
            let end = job.data.len().min(start + 64);
            let (words, tail) = job.data[start..end].as_chunks_mut::<4>();
            for (k, word) in words.iter_mut().enumerate() {
                *word = (u32::from_be_bytes(*word) ^ block[k][l]).to_be_bytes();
            }
            if !tail.is_empty() {
                for (d, z) in tail.iter_mut().zip(block[words.len()][l].to_be_bytes()) {
                    *d ^= z;
                }
            }
        }
        done += 16;
    }
    // The state held key material; overwrite it before returning.
    lanes.s = [_mm256_setzero_si256(); 16];
    lanes.r1 = _mm256_setzero_si256();
    lanes.r2 = _mm256_setzero_si256();
    core::hint::black_box(&lanes);
}
    };
}

xor_x8_fn!(
    /// The eight-lane kernel on AVX2 (16 vector registers).
    xor_x8,
    "avx2,aes,ssse3,sse4.1,pclmulqdq"
);
xor_x8_fn!(
    /// The eight-lane kernel with AVX-512F/VL as well (32 vector registers).
    xor_x8_avx512,
    "avx2,aes,ssse3,sse4.1,pclmulqdq,avx512f,avx512vl"
);
