//! `aarch64-sm3`: the Armv8.2 SM3 instructions (FEAT_SM3, reported with FEAT_SM4): the
//! message expansion four words at a time with `SM3PARTW1`/`SM3PARTW2`, and each round as
//! `SM3SS1` + `SM3TT1A/B` + `SM3TT2A/B` on the state held as two vectors (D C B A and
//! H G F E, the layout the instructions define). The intrinsics are unstable, so the
//! instructions go through `asm!`. Instruction semantics: the Arm ARM's pseudocode.
//!
//! SAFETY (all blocks below): these functions are `#[inline(always)]` helpers of the
//! `#[target_feature(enable = "sm4")]` entry `compress`, which only the [`Aarch64Sm3`]
//! kernel calls, a token made only from an `Available` `aarch64-sm3` backend (the dispatch
//! probe found FEAT_SM3 (Rust's `sm4` target feature covers SM3 and
//! SM4; the Linux hwcap probe checks both bits); the instructions touch registers only,
//! and loads/stores stay within the arrays they are given.

use core::arch::aarch64::*;
use core::arch::asm;

use crate::{Backend, consts::K};

shangmi_dispatch::kernel_token! {
    /// `aarch64-sm3` (see the module documentation).
    pub(crate) struct Aarch64Sm3 = Backend::Aarch64Sm3;
    impl crate::engine::Kernel {
        fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]);
    }
}

/// SS1 of the round whose constant (T_j <<< j) is in lane 3 of `k`.
#[inline(always)]
fn ss1(abcd: uint32x4_t, efgh: uint32x4_t, k: uint32x4_t) -> uint32x4_t {
    let r: uint32x4_t;
    // SAFETY: see the module comment.
    unsafe {
        asm!(
            "sm3ss1 {r:v}.4s, {a:v}.4s, {e:v}.4s, {k:v}.4s",
            r = lateout(vreg) r, a = in(vreg) abcd, e = in(vreg) efgh, k = in(vreg) k,
            options(pure, nomem, nostack, preserves_flags)
        );
    }
    r
}

/// One round: the A side with W'_j and the E side with W_j, both lane `I` of their vector.
/// `MAJ` selects the j >= 16 boolean functions (`SM3TT1B`/`SM3TT2B`).
#[inline(always)]
fn round<const I: usize, const MAJ: bool>(
    abcd: &mut uint32x4_t,
    efgh: &mut uint32x4_t,
    k: uint32x4_t,
    w: uint32x4_t,
    wp: uint32x4_t,
) {
    let s = ss1(*abcd, *efgh, k);
    // `asm!` needs the lane index and the mnemonic as literals: one arm per combination,
    // each a row of this table (pattern, then the mnemonics' suffix and the lane).
    macro_rules! tt {
        ($($arm:pat => $sfx:literal $lane:literal;)*) => {
            match (MAJ, I) {
                $($arm => asm!(
                    concat!("sm3tt1", $sfx, " {a:v}.4s, {s:v}.4s, {p:v}.s[", $lane, "]"),
                    concat!("sm3tt2", $sfx, " {e:v}.4s, {s:v}.4s, {w:v}.s[", $lane, "]"),
                    a = inout(vreg) *abcd, e = inout(vreg) *efgh, s = in(vreg) s, p = in(vreg) wp,
                    w = in(vreg) w, options(pure, nomem, nostack, preserves_flags)
                ),)*
            }
        };
    }
    // SAFETY: see the module comment.
    unsafe {
        tt! {
            (false, 0) => "a" 0;
            (false, 1) => "a" 1;
            (false, 2) => "a" 2;
            (false, _) => "a" 3;
            (true, 0) => "b" 0;
            (true, 1) => "b" 1;
            (true, 2) => "b" 2;
            (true, _) => "b" 3;
        }
    }
}

/// W_{j..j+4} from the four previous groups (`SM3PARTW1`, then `SM3PARTW2`).
#[inline(always)]
fn expand4(w4: uint32x4_t, w3: uint32x4_t, w2: uint32x4_t, w1: uint32x4_t) -> uint32x4_t {
    // With w4 = W[j-16..j-12], …, w1 = W[j-4..j]: PARTW1 takes W[j-16..], W[j-9..],
    // W[j-4..]; PARTW2 adds W[j-6..] and W[j-13..] <<< 7.
    // SAFETY: see the module comment.
    unsafe {
        let mut t = w4;
        asm!(
            "sm3partw1 {t:v}.4s, {n:v}.4s, {m:v}.4s",
            t = inout(vreg) t, n = in(vreg) vextq_u32::<3>(w3, w2), m = in(vreg) w1,
            options(pure, nomem, nostack, preserves_flags)
        );
        asm!(
            "sm3partw2 {t:v}.4s, {n:v}.4s, {m:v}.4s",
            t = inout(vreg) t, n = in(vreg) vextq_u32::<2>(w2, w1), m = in(vreg) vextq_u32::<3>(w4, w3),
            options(pure, nomem, nostack, preserves_flags)
        );
        t
    }
}

/// Four rounds 4g..4g+4 with the message group `w` = W_{4g..4g+4} and the next one.
#[inline(always)]
fn round4<const MAJ: bool>(
    abcd: &mut uint32x4_t,
    efgh: &mut uint32x4_t,
    g: usize,
    w: uint32x4_t,
    next: uint32x4_t,
) {
    // SAFETY: see the module comment.
    let wp = unsafe { veorq_u32(w, next) };
    round::<0, MAJ>(abcd, efgh, konst(4 * g), w, wp);
    round::<1, MAJ>(abcd, efgh, konst(4 * g + 1), w, wp);
    round::<2, MAJ>(abcd, efgh, konst(4 * g + 2), w, wp);
    round::<3, MAJ>(abcd, efgh, konst(4 * g + 3), w, wp);
}

/// T_j <<< j in lane 3, where `SM3SS1` reads it.
#[inline(always)]
fn konst(j: usize) -> uint32x4_t {
    // SAFETY: see the module comment.
    unsafe { vsetq_lane_u32::<3>(K[j], vdupq_n_u32(0)) }
}

/// Loads 16 bytes as four big-endian words.
#[inline(always)]
fn load_be(bytes: &[u8]) -> uint32x4_t {
    assert!(bytes.len() >= 16);
    // SAFETY: see the module comment; `bytes` holds at least 16 bytes.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(bytes.as_ptr()))) }
}

/// Lanes 0..3 reversed (A B C D <-> D C B A).
#[inline(always)]
fn reverse(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: see the module comment.
    unsafe {
        let r = vrev64q_u32(x);
        vextq_u32::<2>(r, r)
    }
}

/// Compresses `blocks` into `state`.
///
/// # Safety
/// The CPU must support FEAT_SM3.
#[target_feature(enable = "sm4")]
unsafe fn compress(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    // SAFETY: see the module comment; `state` is 8 readable and writable words.
    let (mut abcd, mut efgh) = unsafe {
        (
            reverse(vld1q_u32(state.as_ptr())),
            reverse(vld1q_u32(state[4..].as_ptr())),
        )
    };
    for block in blocks {
        let (abcd0, efgh0) = (abcd, efgh);
        let w0 = load_be(&block[..16]);
        let mut w = [
            w0,
            load_be(&block[16..32]),
            load_be(&block[32..48]),
            load_be(&block[48..]),
            w0,
        ];
        // Rounds 0..15 use W_0..W_19: expand one group ahead of the rounds that need it.
        for g in 0..16 {
            w[4] = expand4(w[0], w[1], w[2], w[3]);
            if g < 4 {
                round4::<false>(&mut abcd, &mut efgh, g, w[0], w[1]);
            } else {
                round4::<true>(&mut abcd, &mut efgh, g, w[0], w[1]);
            }
            w = [w[1], w[2], w[3], w[4], w[4]];
        }
        abcd = veorq_u32(abcd, abcd0);
        efgh = veorq_u32(efgh, efgh0);
    }
    // SAFETY: see the module comment.
    unsafe {
        vst1q_u32(state.as_mut_ptr(), reverse(abcd));
        vst1q_u32(state[4..].as_mut_ptr(), reverse(efgh));
    }
}
