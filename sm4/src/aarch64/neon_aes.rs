//! `aarch64-neon-aes`: for arm64 cores with the AES instructions but without SM4 (Cortex-A
//! cores, Graviton, Apple): the S-box through AESE with NEON `tbl` nibble tables
//! (`crate::simd::AesSbox`), on 128-bit registers holding one word of four blocks, 16
//! blocks per step in four interleaved groups.
//!
//! NEON is part of the aarch64 baseline, so the register operations need no proof; AESE
//! does, and the register type [`Q`] carries it: it holds the kernel token `F` (private
//! fields, every constructor takes one), and `aes_last` asks for `F: Aes`. Loads and stores
//! check the slice length first.

use core::arch::aarch64::*;

use cipher::{Block, consts::U16};

use crate::simd::{AesLast, AesSbox, AesSboxBroadcast, Single, Word, aes_chain};
use crate::{Backend, Sm4};

/// A 128-bit NEON register of kernel `F`.
#[derive(Clone, Copy)]
pub(crate) struct Q<F>(uint32x4_t, F);

/// The kernel's backend has the AES instructions.
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe found them.
pub(crate) unsafe trait Aes: Copy {}

#[inline(always)]
fn bytes(x: uint32x4_t) -> uint8x16_t {
    // SAFETY: NEON (aarch64 baseline).
    unsafe { vreinterpretq_u8_u32(x) }
}

#[inline(always)]
fn words(x: uint8x16_t) -> uint32x4_t {
    // SAFETY: NEON (aarch64 baseline).
    unsafe { vreinterpretq_u32_u8(x) }
}

/// Rotates each lane left by `L` bits; `R` must be `32 - L` (shift right, insert left).
#[inline(always)]
fn rotl<const L: i32, const R: i32>(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: NEON (aarch64 baseline).
    unsafe { vsliq_n_u32::<L>(vshrq_n_u32::<R>(x), x) }
}

/// Methods that apply one NEON operation, the result kept with the proof.
macro_rules! lift {
    ($($method:ident($($arg:ident),*) => |$($v:ident),*| $body:expr;)*) => {$(
        #[inline(always)]
        fn $method(self $(, $arg: Self)*) -> Self {
            let [$($v),*] = [self.0 $(, $arg.0)*];
            // SAFETY: NEON (aarch64 baseline).
            Q(unsafe { $body }, self.1)
        }
    )*};
}

impl<F: Copy> Word for Q<F> {
    type Cpu = F;
    const BLOCKS: usize = 1;
    #[inline(always)]
    fn cpu(self) -> F {
        self.1
    }
    #[inline(always)]
    fn load(cpu: F, src: &[Block<Sm4>]) -> Self {
        assert!(!src.is_empty());
        // SAFETY: NEON; `src` holds at least 16 bytes.
        Q(words(unsafe { vld1q_u8(src.as_ptr().cast()) }), cpu)
    }
    #[inline(always)]
    fn store(self, dst: &mut [Block<Sm4>]) {
        assert!(!dst.is_empty());
        // SAFETY: NEON; `dst` holds at least 16 bytes.
        unsafe { vst1q_u8(dst.as_mut_ptr().cast(), bytes(self.0)) }
    }
    #[inline(always)]
    fn splat(cpu: F, w: u32) -> Self {
        // SAFETY: NEON (aarch64 baseline).
        Q(unsafe { vdupq_n_u32(w) }, cpu)
    }
    #[inline(always)]
    fn bcast128(cpu: F, v: u128) -> Self {
        let b = v.to_le_bytes();
        // SAFETY: NEON; `b` is 16 readable bytes.
        Q(words(unsafe { vld1q_u8(b.as_ptr()) }), cpu)
    }
    #[inline(always)]
    fn block_index(cpu: F) -> Self {
        let i = [0u32, 1, 2, 3];
        // SAFETY: NEON; `i` is 16 readable bytes.
        Q(unsafe { vld1q_u32(i.as_ptr()) }, cpu)
    }
    lift! {
        xor(o) => |a, b| veorq_u32(a, b);
        and(o) => |a, b| vandq_u32(a, b);
        // `tbl`: indices here are always 0..=15.
        shuffle(idx) => |a, i| words(vqtbl1q_u8(bytes(a), bytes(i)));
        shr4() => |a| vreinterpretq_u32_u16(vshrq_n_u16::<4>(vreinterpretq_u16_u32(a)));
        add32(o) => |a, b| vaddq_u32(a, b);
        unpack_lo32(o) => |a, b| vzip1q_u32(a, b);
        unpack_hi32(o) => |a, b| vzip2q_u32(a, b);
        unpack_lo64(o) => |a, b| vreinterpretq_u32_u64(vzip1q_u64(
            vreinterpretq_u64_u32(a),
            vreinterpretq_u64_u32(b),
        ));
        unpack_hi64(o) => |a, b| vreinterpretq_u32_u64(vzip2q_u64(
            vreinterpretq_u64_u32(a),
            vreinterpretq_u64_u32(b),
        ));
    }
    #[inline(always)]
    fn l(self) -> Self {
        // L(B) = B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2)
        let r = |v| Q(v, self.1);
        let x = self.0;
        let t = self.xor3(r(rotl::<8, 24>(x)), r(rotl::<16, 16>(x)));
        self.xor3(r(rotl::<24, 8>(x)), r(rotl::<2, 30>(t.0)))
    }
}

impl<F: Copy> Single for Q<F> {
    #[inline(always)]
    fn lanes(self) -> [Self; 4] {
        let (x, c) = (self.0, self.1);
        // SAFETY: NEON (aarch64 baseline).
        unsafe {
            [
                Q(vdupq_laneq_u32::<0>(x), c),
                Q(vdupq_laneq_u32::<1>(x), c),
                Q(vdupq_laneq_u32::<2>(x), c),
                Q(vdupq_laneq_u32::<3>(x), c),
            ]
        }
    }
}

/// AESE with a zero key: ShiftRows(SubBytes(x)), as x86's AESENCLAST with a zero key.
/// `#[inline]` with its feature (not `inline(always)`): it inlines once the callers are
/// inlined into the kernel's entries, which enable AES.
#[target_feature(enable = "aes")]
#[inline]
fn aese_zero(x: uint8x16_t) -> uint8x16_t {
    vaeseq_u8(x, vdupq_n_u8(0))
}

impl<F: Aes> AesLast for Q<F> {
    #[inline(always)]
    fn aes_last(self) -> Self {
        // SAFETY: `self` carries a token `F: Aes`: the backend's probe found AES.
        Q(words(unsafe { aese_zero(bytes(self.0)) }), self.1)
    }
}

simd_kernel! {
    /// `aarch64-neon-aes` (see the module documentation).
    Aarch64NeonAes = Aarch64NeonAes, enable "neon,aes", par_blocks U16,
    sbox AesSbox, one (Q, AesSboxBroadcast),
    wide Q, partial Q,
    chain aes_chain::chain_body::<Q<Aarch64NeonAes>, aes_chain::Lookup>,
}

// SAFETY: an `Aarch64NeonAes` token is made only from an `Available` `aarch64-neon-aes`
// backend, whose probe (`shangmi-dispatch`) found the AES instructions.
unsafe impl Aes for Aarch64NeonAes {}
