//! [`Word`] on x86 registers that carry their proof: `X128<F>`, `X256<F>`, `X512<F>` and
//! `Vl128<F>` hold a vector and a kernel token `F` (`super::GfniAvx512`, …). Their fields
//! are private to this module and every constructor takes an `F`, so a register exists
//! only where a kernel token does, and the token's marker traits below (implemented with
//! `unsafe impl` by each kernel, next to the probe they rely on) say which instructions
//! run. That is the whole SAFETY argument of the intrinsic calls in this file; loads and
//! stores also check the length of the slice they touch first.

use core::arch::x86_64::*;

use cipher::Block;

use crate::Sm4;
use crate::simd::{Single, Word};

/// The kernel's backend has SSSE3 (`pshufb`; every CPU with AVX2 has it).
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe implies SSSE3, and with
/// `LANES_BY_LOADS` true only where it also found AVX2.
pub(crate) unsafe trait Ssse3: Copy {
    /// `Single::lanes` on 128-bit registers by four `vpbroadcastd` loads from a copy of
    /// the register in memory (AVX2) instead of `pshufd`s: the load ports do the
    /// broadcasts, leaving the shuffle pipes to a serial chain's lookups (the AES-NI CBC
    /// chain's per-block entry). Only where the probe also found AVX2.
    const LANES_BY_LOADS: bool = false;
}
/// The kernel's backend has AVX2.
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe found AVX2.
pub(crate) unsafe trait Avx2: Ssse3 {}
/// The kernel's backend has AVX-512F and AVX-512BW.
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe found AVX-512F and BW.
pub(crate) unsafe trait Avx512bw: Avx2 {}
/// The kernel's backend has AVX-512F and AVX-512VL (EVEX forms of 128-bit instructions).
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe found AVX-512F and VL.
pub(crate) unsafe trait Avx512vl: Avx512bw {}
/// The kernel's backend has GFNI.
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe found GFNI.
pub(crate) unsafe trait Gfni: Ssse3 {}
/// The kernel's backend has AES-NI.
///
/// # Safety
/// Implement only for kernel tokens whose backend's probe found AES-NI, and with `VAES`
/// true only where it also found VAES.
pub(crate) unsafe trait Aes: Ssse3 {
    /// AESENCLAST on 256-bit registers (VAES).
    const VAES: bool = false;
}

/// A 128-bit register of a kernel with SSSE3.
#[derive(Clone, Copy)]
pub(crate) struct X128<F>(__m128i, F);
/// A 256-bit register of a kernel with AVX2.
#[derive(Clone, Copy)]
pub(crate) struct X256<F>(__m256i, F);
/// A 512-bit register of a kernel with AVX-512F/BW.
#[derive(Clone, Copy)]
pub(crate) struct X512<F>(__m512i, F);
/// A 128-bit register of a kernel with AVX-512VL: native rotates and three-way XORs for
/// the latency-bound single-block path of the `gfni-avx512` kernel.
#[derive(Clone, Copy)]
pub(crate) struct Vl128<F>(__m128i, F);

/// Rotation masks for `pshufb`: rotate each 32-bit lane left by 8, 16, 24 bits.
const ROTL8: u128 = u128::from_le_bytes([3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14]);
const ROTL16: u128 = u128::from_le_bytes([2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13]);
const ROTL24: u128 = u128::from_le_bytes([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]);

#[inline(always)]
fn halves(v: u128) -> (i64, i64) {
    ((v >> 64) as u64 as i64, v as u64 as i64)
}

/// Methods that apply one intrinsic to the register(s), the result kept with the proof.
/// SAFETY (each call): `self` exists, so its proof `F` does (see the module comment).
macro_rules! lift {
    ($($method:ident($($arg:ident),*) => $intrinsic:expr;)*) => {$(
        #[inline(always)]
        fn $method(self $(, $arg: Self)*) -> Self {
            // SAFETY: `self` carries its proof (module comment).
            Self(unsafe { $intrinsic(self.0 $(, $arg.0)*) }, self.1)
        }
    )*};
}

/// The [`Word`] methods that X128, X256 and X512 share, from their intrinsics.
macro_rules! common_word {
    // The 128-bit forms, for X128 and Vl128.
    (xmm) => {
        common_word! {
            1, __m128i,
            load _mm_loadu_si128, store _mm_storeu_si128, splat _mm_set1_epi32,
            index _mm_setr_epi32(0, 1, 2, 3),
            bcast |hi, lo| _mm_set_epi64x(hi, lo),
            xor _mm_xor_si128, and _mm_and_si128, shuffle _mm_shuffle_epi8,
            shr4 _mm_srli_epi16, add32 _mm_add_epi32,
            unpack _mm_unpacklo_epi32 _mm_unpackhi_epi32 _mm_unpacklo_epi64 _mm_unpackhi_epi64
        }
    };
    (
        $blocks:literal, $V:ty,
        load $load:ident, store $store:ident, splat $set1:ident, index $index:expr,
        bcast |$hi:ident, $lo:ident| $bcast:expr,
        xor $xor:ident, and $and:ident, shuffle $shuffle:ident, shr4 $srli16:ident,
        add32 $add:ident, unpack $ul32:ident $uh32:ident $ul64:ident $uh64:ident
    ) => {
        type Cpu = F;
        const BLOCKS: usize = $blocks;
        #[inline(always)]
        fn cpu(self) -> F {
            self.1
        }
        #[inline(always)]
        fn load(cpu: F, src: &[Block<Sm4>]) -> Self {
            assert!(src.len() >= $blocks);
            // SAFETY: `cpu` is the proof (module comment); `src` holds the bytes read.
            Self(unsafe { $load(src.as_ptr().cast()) }, cpu)
        }
        #[inline(always)]
        fn store(self, dst: &mut [Block<Sm4>]) {
            assert!(dst.len() >= $blocks);
            // SAFETY: `self` carries its proof (module comment); `dst` holds the bytes
            // written.
            unsafe { $store(dst.as_mut_ptr().cast(), self.0) }
        }
        #[inline(always)]
        fn splat(cpu: F, w: u32) -> Self {
            // SAFETY: `cpu` is the proof (module comment).
            Self(unsafe { $set1(w as i32) }, cpu)
        }
        #[inline(always)]
        fn block_index(cpu: F) -> Self {
            // SAFETY: `cpu` is the proof (module comment).
            Self(unsafe { $index }, cpu)
        }
        #[inline(always)]
        fn bcast128(cpu: F, v: u128) -> Self {
            let ($hi, $lo) = halves(v);
            // SAFETY: `cpu` is the proof (module comment).
            Self(unsafe { $bcast }, cpu)
        }
        lift! {
            xor(o) => $xor;
            and(o) => $and;
            shuffle(o) => $shuffle;
            shr4() => $srli16::<4>;
            add32(o) => $add;
            unpack_lo32(o) => $ul32;
            unpack_hi32(o) => $uh32;
            unpack_lo64(o) => $ul64;
            unpack_hi64(o) => $uh64;
        }
    };
}

/// L(B) = B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2), the byte rotations by
/// `pshufb` and the 2-bit one by two shifts and an OR.
macro_rules! l_by_shuffles {
    ($or:ident, $slli:ident, $srli:ident) => {
        #[inline(always)]
        fn l(self) -> Self {
            let c = self.1;
            let t = self.xor3(
                self.shuffle(Self::bcast128(c, ROTL8)),
                self.shuffle(Self::bcast128(c, ROTL16)),
            );
            // SAFETY: `self` carries its proof (module comment).
            let t2 = Self(unsafe { $or($slli::<2>(t.0), $srli::<30>(t.0)) }, c);
            self.xor3(self.shuffle(Self::bcast128(c, ROTL24)), t2)
        }
    };
}

impl<F: Ssse3> Word for X128<F> {
    common_word!(xmm);
    l_by_shuffles!(_mm_or_si128, _mm_slli_epi32, _mm_srli_epi32);
}

impl<F: Avx2> Word for X256<F> {
    const STAGED_ROUNDS: bool = true;
    common_word! {
        2, __m256i,
        load _mm256_loadu_si256, store _mm256_storeu_si256, splat _mm256_set1_epi32,
        index _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7),
        bcast |hi, lo| _mm256_broadcastsi128_si256(_mm_set_epi64x(hi, lo)),
        xor _mm256_xor_si256, and _mm256_and_si256, shuffle _mm256_shuffle_epi8,
        shr4 _mm256_srli_epi16, add32 _mm256_add_epi32,
        unpack _mm256_unpacklo_epi32 _mm256_unpackhi_epi32 _mm256_unpacklo_epi64
            _mm256_unpackhi_epi64
    }
    l_by_shuffles!(_mm256_or_si256, _mm256_slli_epi32, _mm256_srli_epi32);
}

/// L by native rotates (`vprold`) and three-way XORs (`vpternlogd`, 0x96 the truth table
/// of a ^ b ^ c); `xor_l` as two independent three-way XORs then one more (depth 3 after
/// the rotates).
macro_rules! l_by_rotates {
    ($ternlog:ident) => {
        lift! {
            xor3(b, c) => $ternlog::<0x96>;
        }
        #[inline(always)]
        fn l(self) -> Self {
            let [r2, r10, r18, r24] = self.rotations();
            self.xor3(r2, r10).xor3(r18, r24)
        }
        #[inline(always)]
        fn xor_l(self, b: Self) -> Self {
            let [r2, r10, r18, r24] = b.rotations();
            b.xor3(r2, r10).xor(self.xor3(r18, r24))
        }
    };
}

/// B <<< 2, 10, 18, 24.
macro_rules! rotations {
    ($rol:ident) => {
        #[inline(always)]
        fn rotations(self) -> [Self; 4] {
            let (b, c) = (self.0, self.1);
            // SAFETY: `self` carries its proof (module comment).
            unsafe {
                [
                    Self($rol::<2>(b), c),
                    Self($rol::<10>(b), c),
                    Self($rol::<18>(b), c),
                    Self($rol::<24>(b), c),
                ]
            }
        }
    };
}

impl<F: Avx512bw> Word for X512<F> {
    common_word! {
        4, __m512i,
        load _mm512_loadu_si512, store _mm512_storeu_si512, splat _mm512_set1_epi32,
        index _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15),
        bcast |hi, lo| _mm512_broadcast_i32x4(_mm_set_epi64x(hi, lo)),
        xor _mm512_xor_si512, and _mm512_and_si512, shuffle _mm512_shuffle_epi8,
        shr4 _mm512_srli_epi16, add32 _mm512_add_epi32,
        unpack _mm512_unpacklo_epi32 _mm512_unpackhi_epi32 _mm512_unpacklo_epi64
            _mm512_unpackhi_epi64
    }
    l_by_rotates!(_mm512_ternarylogic_epi32);
}

impl<F: Avx512bw> X512<F> {
    rotations!(_mm512_rol_epi32);
}

impl<F: Ssse3 + Avx512vl> Word for Vl128<F> {
    common_word!(xmm);
    l_by_rotates!(_mm_ternarylogic_epi32);
}

impl<F: Ssse3 + Avx512vl> Vl128<F> {
    rotations!(_mm_rol_epi32);
}

/// GFNI's affine maps on registers of a kernel with GFNI (and the register's width).
pub(crate) trait GfniAffine: Word {
    /// `gf2p8affineqb`: each byte x to M·x ⊕ `B`, M the 8×8 bit matrix in the 64-bit lane
    /// of `m` (Intel's layout).
    fn affine<const B: i32>(self, m: Self) -> Self;
    /// `gf2p8affineinvqb`: each byte x to M·x⁻¹ ⊕ `B` (inverse in GF(2^8) mod 0x11B).
    fn affine_inv<const B: i32>(self, m: Self) -> Self;
}

macro_rules! gfni_affine {
    ($($W:ident: $($bound:path),+ => $affine:ident, $affineinv:ident;)*) => {$(
        impl<F: Gfni $(+ $bound)+> GfniAffine for $W<F> {
            #[inline(always)]
            fn affine<const B: i32>(self, m: Self) -> Self {
                // SAFETY: `self` carries its proof (module comment), here of GFNI.
                Self(unsafe { $affine::<B>(self.0, m.0) }, self.1)
            }
            #[inline(always)]
            fn affine_inv<const B: i32>(self, m: Self) -> Self {
                // SAFETY: as for `affine`.
                Self(unsafe { $affineinv::<B>(self.0, m.0) }, self.1)
            }
        }
    )*};
}
gfni_affine! {
    X128: Ssse3 => _mm_gf2p8affine_epi64_epi8, _mm_gf2p8affineinv_epi64_epi8;
    Vl128: Ssse3, Avx512vl => _mm_gf2p8affine_epi64_epi8, _mm_gf2p8affineinv_epi64_epi8;
    X256: Avx2 => _mm256_gf2p8affine_epi64_epi8, _mm256_gf2p8affineinv_epi64_epi8;
    X512: Avx512bw => _mm512_gf2p8affine_epi64_epi8, _mm512_gf2p8affineinv_epi64_epi8;
}

/// One `asm!` of `vpbroadcastd` loads: each `$v` the `u32` at `$p` + `$offset` bytes,
/// in an `unsafe` block whose caller proves AVX2 and that those bytes are readable.
macro_rules! broadcast_loads {
    ($p:expr => $($v:ident at $offset:literal),+) => {
        core::arch::asm!(
            $(concat!("vpbroadcastd {", stringify!($v), "}, dword ptr [{p} + ", $offset, "]"),)+
            $($v = out(xmm_reg) $v,)+
            p = in(reg) $p,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
}

/// `pshufd` broadcasts of each lane, or broadcast loads (`Ssse3::LANES_BY_LOADS`).
macro_rules! single {
    ($($W:ident: $($bound:path),+;)*) => {$(
        impl<F: $($bound +)+> Single for $W<F> {
            #[inline(always)]
            fn lanes(self) -> [Self; 4] {
                let (x, c) = (self.0, self.1);
                if F::LANES_BY_LOADS {
                    let mut words = [0u32; 4];
                    // SAFETY: SSE2 (x86-64's baseline); an unaligned store of 16 bytes
                    // into `words`, which has 16.
                    unsafe { _mm_storeu_si128(words.as_mut_ptr().cast(), x) };
                    let (a, b, d, e): (__m128i, __m128i, __m128i, __m128i);
                    // SAFETY: AVX2 (`vpbroadcastd` from memory), which `LANES_BY_LOADS`
                    // promises (the `Ssse3` contract); the loads read the 16 bytes of
                    // `words`, a live local, and nothing else.
                    unsafe { broadcast_loads!(words.as_ptr() => a at 0, b at 4, d at 8, e at 12) };
                    return [$W(a, c), $W(b, c), $W(d, c), $W(e, c)];
                }
                // SAFETY: `self` carries its proof (module comment).
                unsafe {
                    [
                        $W(_mm_shuffle_epi32::<0x00>(x), c),
                        $W(_mm_shuffle_epi32::<0x55>(x), c),
                        $W(_mm_shuffle_epi32::<0xaa>(x), c),
                        $W(_mm_shuffle_epi32::<0xff>(x), c),
                    ]
                }
            }
        }
    )*};
}
single! {
    X128: Ssse3;
    Vl128: Ssse3, Avx512vl;
}

/// The raw vector of a register, for the S-box implementations of the x86 kernels
/// (`super::sbox`), which wrap their results back with [`Raw::with`]: a register again
/// only made from another one, so with its proof.
pub(crate) trait Raw: Word {
    /// The vector type.
    type V: Copy;
    /// The vector.
    fn raw(self) -> Self::V;
    /// `v` as a register with `self`'s proof.
    fn with(self, v: Self::V) -> Self;
}

macro_rules! raw {
    ($($W:ident($V:ty): $bound:path;)*) => {$(
        impl<F: $bound> Raw for $W<F> {
            type V = $V;
            #[inline(always)]
            fn raw(self) -> $V {
                self.0
            }
            #[inline(always)]
            fn with(self, v: $V) -> Self {
                $W(v, self.1)
            }
        }
    )*};
}
raw! {
    X128(__m128i): Ssse3;
    Vl128(__m128i): Avx512vl;
    X256(__m256i): Avx2;
    X512(__m512i): Avx512bw;
}
