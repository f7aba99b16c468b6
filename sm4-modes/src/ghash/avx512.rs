//! GHASH on VPCLMULQDQ with 512-bit registers: 16 blocks per step, one reduction per step.
//!
//! Blocks are byte-reversed into the POLYVAL domain (RFC 8452 Appendix A); the 16
//! products X_i·H^(17-i) are summed unreduced (aggregated reduction, Gueron & Kounavis
//! 2010) and reduced once with the two-multiplication Montgomery step by
//! x^128 + x^127 + x^126 + x^121 + 1 (constant 0xc2…01, as in AES-GCM-SIV, RFC 8452).

use core::arch::x86_64::*;

/// The POLYVAL reduction constant: x^127 + x^126 + x^121 (high word) and 1 (low word).
const POLY_HI: u64 = 0xc200_0000_0000_0000;

/// H^16, H^15, …, H^1 in the POLYVAL domain, as little-endian 128-bit integers.
#[derive(Clone)]
pub(crate) struct Powers([u128; 16]);

impl Powers {
    /// Precomputes the powers of the GHASH key `h` (big-endian block, as in SP 800-38D).
    ///
    /// # Safety
    /// The CPU must have PCLMULQDQ and SSE4.1 (the engine's probe checks both).
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    pub(crate) unsafe fn new(h: &[u8; 16]) -> Self {
        // mulX_POLYVAL(ByteReverse(H)), constant-time.
        let h = u128::from_be_bytes(*h);
        let carry = (h >> 127).wrapping_neg();
        let h1 = (h << 1) ^ (carry & ((u128::from(POLY_HI) << 64) | 1));
        let mut p = [0u128; 16];
        p[15] = h1;
        for i in (0..15).rev() {
            p[i] = dot(p[i + 1], h1);
        }
        Powers(p)
    }
}

#[cfg(feature = "zeroize")]
impl Drop for Powers {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

/// POLYVAL's dot(a, b) = a·b·x^-128 mod P on one 128-bit pair (key setup: 15 products where
/// the bit-serial form took ~2 µs each, which showed in every TLS handshake's four keys).
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn dot(a: u128, b: u128) -> u128 {
    let a = _mm_set_epi64x((a >> 64) as i64, a as i64);
    let b = _mm_set_epi64x((b >> 64) as i64, b as i64);
    let lo = _mm_clmulepi64_si128(a, b, 0x00);
    let hi = _mm_clmulepi64_si128(a, b, 0x11);
    let mid = _mm_xor_si128(
        _mm_clmulepi64_si128(a, b, 0x01),
        _mm_clmulepi64_si128(a, b, 0x10),
    );
    let r = finish(lo, mid, hi);
    let mut out = [0u8; 16];
    // SAFETY: `out` is 16 bytes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), r) };
    u128::from_le_bytes(out)
}

/// Reduces the 256-bit product hi·x^128 + lo to hi + lo·x^-128 mod P.
///
/// Each step adds L0·P (P ≡ 1 mod x^64) to clear the low 64 bits and divides by x^64:
/// lo ← swap(lo) ⊕ clmul(L0, 0xc2…).
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn reduce(lo: __m128i, hi: __m128i) -> __m128i {
    let poly = _mm_set_epi64x(POLY_HI as i64, 1);
    let t = _mm_clmulepi64_si128(lo, poly, 0x10);
    let lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), t);
    let t = _mm_clmulepi64_si128(lo, poly, 0x10);
    let lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), t);
    _mm_xor_si128(lo, hi)
}

/// XOR of three registers in one `vpternlogq`.
#[inline]
#[target_feature(enable = "avx512f")]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64(a, b, c, 0x96)
}

/// Sums the four 128-bit lanes of `x`.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_lanes(x: __m512i) -> __m128i {
    let y = _mm256_xor_si256(_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64(x, 1));
    _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1))
}

/// Absorbs `data` (a multiple of 16 bytes) into the POLYVAL-domain accumulator `acc`.
///
/// # Safety
/// The CPU must have AVX-512F/BW/VL, VPCLMULQDQ, PCLMULQDQ and SSE4.1.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vpclmulqdq,pclmulqdq,sse4.1")]
pub(crate) unsafe fn update(powers: &Powers, acc: u128, data: &[u8]) -> u128 {
    debug_assert_eq!(data.len() % 16, 0);
    let rev128 = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let rev512 = _mm512_broadcast_i32x4(rev128);
    let p = &powers.0;
    // SAFETY: `Powers` is 256 bytes; unaligned loads within it.
    let pw: [__m512i; 4] =
        core::array::from_fn(|i| unsafe { _mm512_loadu_si512(p[4 * i..].as_ptr().cast()) });
    let mut acc = _mm_set_epi64x((acc >> 64) as i64, acc as i64);

    let mut chunks = data.chunks_exact(256);
    for chunk in &mut chunks {
        // SAFETY: `chunk` is 256 bytes; four unaligned 64-byte loads.
        let x: [__m512i; 4] = core::array::from_fn(|i| unsafe {
            _mm512_shuffle_epi8(_mm512_loadu_si512(chunk[64 * i..].as_ptr().cast()), rev512)
        });
        let x0 = _mm512_xor_si512(x[0], _mm512_zextsi128_si512(acc));
        let xs = [x0, x[1], x[2], x[3]];
        let mut lo = _mm512_setzero_si512();
        let mut hi = _mm512_setzero_si512();
        let mut mid = _mm512_setzero_si512();
        for i in 0..4 {
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(xs[i], pw[i], 0x00));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(xs[i], pw[i], 0x11));
            mid = xor3(
                mid,
                _mm512_clmulepi64_epi128(xs[i], pw[i], 0x01),
                _mm512_clmulepi64_epi128(xs[i], pw[i], 0x10),
            );
        }
        acc = finish(fold_lanes(lo), fold_lanes(mid), fold_lanes(hi));
    }

    // Fewer than 16 blocks left: multiply block i of n by H^(n-i), one reduction.
    let rest = chunks.remainder();
    let n = rest.len() / 16;
    if n > 0 {
        let mut lo = _mm_setzero_si128();
        let mut hi = _mm_setzero_si128();
        let mut mid = _mm_setzero_si128();
        for (i, block) in rest.chunks_exact(16).enumerate() {
            // SAFETY: `block` is 16 bytes.
            let mut x = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(block.as_ptr().cast()) }, rev128);
            if i == 0 {
                x = _mm_xor_si128(x, acc);
            }
            let hp = p[16 - n + i];
            let h = _mm_set_epi64x((hp >> 64) as i64, hp as i64);
            lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(x, h, 0x00));
            hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(x, h, 0x11));
            mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(x, h, 0x01));
            mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(x, h, 0x10));
        }
        acc = finish(lo, mid, hi);
    }
    let mut out = [0u8; 16];
    // SAFETY: `out` is 16 bytes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), acc) };
    u128::from_le_bytes(out)
}

/// Adds the middle product into lo/hi and reduces.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn finish(lo: __m128i, mid: __m128i, hi: __m128i) -> __m128i {
    let lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    let hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    reduce(lo, hi)
}
