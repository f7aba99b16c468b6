//! XTS tweaks eight at a time on AVX-512: two 512-bit registers hold T·α^0..7, and one step
//! multiplies all eight by α^8 (shifts across the two 64-bit halves, and the eight bits
//! that leave folded back with shifts, since α^8 only pushes out a byte: no carry-less
//! multiply). The same registers whiten the blocks before the engine call.
//! (The usual technique of the Linux kernel's `aes-xts-avx-x86_64`, here without PCLMUL.)

use core::arch::x86_64::*;

use cipher::Block;
use shangmi_sm4::Sm4;

/// Byte reversal of each 128-bit lane (GB/T 17964 tweaks are big-endian integers).
const REVERSE: [u8; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// Multiplies the four 128-bit tweaks of `t` (integers, low qword first) by α^8: IEEE 1619
/// (`gb = false`: shift left, 0x87 folded into the low end) or GB/T 17964 (shift right,
/// 0xE1 << 120 folded into the high end).
#[inline(always)]
fn step<const GB: bool>(t: __m512i) -> __m512i {
    // SAFETY: reached only from `whiten`, which enables AVX-512F/BW (checked by the caller).
    unsafe {
        if GB {
            // Bits leaving each qword at the bottom, at the top of their qword.
            let c = _mm512_slli_epi64::<56>(t);
            // The low qword's outgoing byte, moved to the top of the high qword: bit j
            // there is x^(k−1−j)·x^128, which reduces to the same position times
            // 1 + x + x^2 + x^7, i.e. shifted right by 0, 1, 2 and 7.
            let d = _mm512_bslli_epi128::<8>(c);
            let red = _mm512_ternarylogic_epi64::<0x96>(
                d,
                _mm512_srli_epi64::<1>(d),
                _mm512_xor_si512(_mm512_srli_epi64::<2>(d), _mm512_srli_epi64::<7>(d)),
            );
            _mm512_ternarylogic_epi64::<0x96>(
                _mm512_srli_epi64::<8>(t),
                _mm512_bsrli_epi128::<8>(c),
                red,
            )
        } else {
            let c = _mm512_srli_epi64::<56>(t);
            // The high qword's outgoing byte e, at the bottom of the low qword: e·0x87.
            let e = _mm512_bsrli_epi128::<8>(c);
            let red = _mm512_ternarylogic_epi64::<0x96>(
                e,
                _mm512_slli_epi64::<1>(e),
                _mm512_xor_si512(_mm512_slli_epi64::<2>(e), _mm512_slli_epi64::<7>(e)),
            );
            _mm512_ternarylogic_epi64::<0x96>(
                _mm512_slli_epi64::<8>(t),
                _mm512_bslli_epi128::<8>(c),
                red,
            )
        }
    }
}

/// Between the store format and integers (low qword first): a byte reversal for GB/T
/// 17964, nothing for IEEE 1619. An involution.
#[inline(always)]
fn to_int<const GB: bool>(rev: __m512i, v: __m512i) -> __m512i {
    if GB {
        // SAFETY: reached only from `whiten`, which enables AVX-512F/BW (checked by the
        // caller).
        unsafe { _mm512_shuffle_epi8(v, rev) }
    } else {
        v
    }
}

/// XORs the first `8·⌊len/8⌋` blocks of `blocks` with their tweaks, writes the tweaks to
/// `tweaks`, and returns how many blocks it did. `first` are the (store-format) tweaks of
/// the first eight blocks; on return `next` holds the (store-format) tweak of the
/// block after the last one done.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512BW: the caller holds the dispatch token of the
/// XTS backend `xts-avx512`.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn whiten<const GB: bool>(
    first: &[[u8; 16]; 8],
    blocks: &mut [Block<Sm4>],
    tweaks: &mut [[u8; 16]],
    next: &mut [u8; 16],
) -> usize {
    let groups = blocks.len().min(tweaks.len()) / 8;
    // SAFETY: every load and store below reads or writes 64 bytes inside `first`,
    // `blocks[8g..8g + 8]`, `tweaks[8g..8g + 8]` (g < groups) or `next` (16 bytes), all
    // within their slices; the CPU features are the caller's promise.
    unsafe {
        let rev = _mm512_broadcast_i32x4(_mm_loadu_si128(REVERSE.as_ptr().cast()));
        let base = first.as_ptr().cast::<u8>();
        let mut t0 = to_int::<GB>(rev, _mm512_loadu_si512(base.cast()));
        let mut t1 = to_int::<GB>(rev, _mm512_loadu_si512(base.add(64).cast()));
        for g in 0..groups {
            let (s0, s1) = (to_int::<GB>(rev, t0), to_int::<GB>(rev, t1));
            let b = blocks[8 * g..].as_mut_ptr().cast::<u8>();
            let w = tweaks[8 * g..].as_mut_ptr().cast::<u8>();
            _mm512_storeu_si512(w.cast(), s0);
            _mm512_storeu_si512(w.add(64).cast(), s1);
            let d0 = _mm512_xor_si512(_mm512_loadu_si512(b.cast()), s0);
            let d1 = _mm512_xor_si512(_mm512_loadu_si512(b.add(64).cast()), s1);
            _mm512_storeu_si512(b.cast(), d0);
            _mm512_storeu_si512(b.add(64).cast(), d1);
            t0 = step::<GB>(t0);
            t1 = step::<GB>(t1);
        }
        let n = _mm512_castsi512_si128(to_int::<GB>(rev, t0));
        _mm_storeu_si128(next.as_mut_ptr().cast(), n);
    }
    groups * 8
}
