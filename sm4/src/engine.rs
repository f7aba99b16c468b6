//! The map from a [`Backend`] to its code: the [`Kernel`] trait that every backend's code
//! implements, the one `match` ([`run`]) from an
//! [`Available`](shangmi_dispatch::Available) backend to its kernel, and the `cipher`
//! backend type over a kernel.
//!
//! A kernel is a zero-sized token: `Soft` is free to make, every other kernel only from an
//! `Available` backend of its own kind (`shangmi_dispatch::kernel_token!`), so holding one
//! proves that its CPU features are present. Its methods are safe; inside, each calls its
//! `#[target_feature]` entry on the strength of `self`, and the SIMD register types take
//! the kernel as their proof too (`crate::simd::Word::Cpu`).

use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    array::ArraySize,
    consts::U16,
    inout::{InOut, InOutBuf},
};

use crate::{Backend, Sm4, key, key::RoundKeys, soft};

/// Defines kernel `$Kernel` of backend `$backend` (`Backend` must be in scope) whose
/// [`Kernel`] methods call the invoking module's `unsafe fn`s `crypt`, `ctr32` and
/// `expand_key`, which need the CPU features that the backend's probe checks: for the
/// kernels built on instructions rather than on the generic SIMD rounds.
#[cfg_attr(
    not(any(
        target_arch = "aarch64",
        target_arch = "riscv32",
        target_arch = "riscv64"
    )),
    allow(unused_macros)
)]
macro_rules! instruction_kernel {
    ($(#[$doc:meta])* $Kernel:ident = $backend:ident, par_blocks $Par:ty $(,)?) => {
        shangmi_dispatch::kernel_token! {
            $(#[$doc])*
            pub(crate) struct $Kernel = Backend::$backend;
            impl $crate::engine::Kernel {
                type ParBlocks = $Par;
                fn crypt(self, rk: &$crate::key::RoundKeys, blocks: $crate::engine::Blocks<'_, '_>);
                fn ctr32(
                    self,
                    rk: &$crate::key::RoundKeys,
                    ctr: &mut [u32; 4],
                    blocks: &mut [cipher::Block<$crate::Sm4>],
                );
                fn expand_key(self, key: &[u8; 16]) -> $crate::key::RoundKeys;
            }
        }
    };
}

// The kernel macros' signature; targets without a SIMD or instruction kernel do not use it.
/// The blocks a kernel's `crypt` transforms, in place or buffer to buffer.
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "riscv32",
        target_arch = "riscv64"
    )),
    allow(dead_code)
)]
pub(crate) type Blocks<'i, 'o> = InOutBuf<'i, 'o, Block<Sm4>>;

/// One backend's code. Implementations are zero-sized tokens that prove the backend runs
/// here (see the module documentation), so the methods are safe.
pub(crate) trait Kernel: Copy {
    /// Blocks per parallel call of the `cipher` traits: the width of the widest step.
    type ParBlocks: ArraySize;

    /// Encrypts (or, with reversed round keys, decrypts) any number of blocks.
    fn crypt(self, rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>);

    /// Encrypts (or decrypts) one block; kernels with a faster single-block path override
    /// it.
    #[inline(always)]
    fn crypt_one(self, rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
        let mut buf = [*block];
        self.crypt(rk, (&mut buf[..]).into());
        buf[0]
    }

    /// XORs `blocks` with E(ctr), E(ctr + 1), … counting in the last word only (mod 2^32),
    /// and advances `ctr`.
    fn ctr32(self, rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]);

    /// [`Kernel::ctr32`], and encrypts `side` in place in the same call; kernels with wide
    /// steps override it to carry `side` along the first one.
    #[inline(always)]
    fn ctr32_side(
        self,
        rk: &RoundKeys,
        ctr: &mut [u32; 4],
        blocks: &mut [Block<Sm4>],
        side: &mut Block<Sm4>,
    ) {
        self.ctr32(rk, ctr, blocks);
        *side = self.crypt_one(rk, side);
    }

    /// The CBC chain `state = E(state ⊕ b)` for each of `blocks`, writing the state after
    /// block i to `out[i]` for each i < `out.len()`; kernels with a shorter chain round
    /// override it.
    #[inline(always)]
    fn chain(
        self,
        rk: &RoundKeys,
        state: &mut Block<Sm4>,
        blocks: &[Block<Sm4>],
        out: &mut [Block<Sm4>],
    ) {
        let mut out = out.iter_mut();
        for b in blocks {
            let mut x = *state;
            for (x, b) in x.iter_mut().zip(b.iter()) {
                *x ^= b;
            }
            *state = self.crypt_one(rk, &x);
            if let Some(o) = out.next() {
                *o = *state;
            }
        }
    }

    /// The S-box on each byte of `a`, by this kernel's technique (constant-time on every
    /// kernel); kernels with S-box instructions keep the soft one.
    #[inline(always)]
    fn tau(self, a: u32) -> u32 {
        soft::tau(a)
    }

    /// The encryption round keys of `key` in this kernel's form.
    #[inline(always)]
    fn expand_key(self, key: &[u8; 16]) -> RoundKeys {
        key::expand(key, |a| self.tau(a))
    }
}

/// The portable kernel: runs everywhere, needs no proof.
#[derive(Clone, Copy)]
pub(crate) struct Soft;

impl Kernel for Soft {
    type ParBlocks = U16;
    #[inline(always)]
    fn crypt(self, rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        soft::crypt(rk, blocks);
    }
    #[inline(always)]
    fn crypt_one(self, rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
        soft::crypt_one(rk, block)
    }
    #[inline(always)]
    fn ctr32(self, rk: &RoundKeys, ctr: &mut [u32; 4], blocks: &mut [Block<Sm4>]) {
        soft::ctr32(rk, ctr, blocks);
    }
}

// `Call` and `run`: the one match from an `Available` backend to its kernel.
shangmi_dispatch::kernel_dispatch! {
    kernel Kernel, portable Soft, family Backend;
    #[cfg(target_arch = "x86_64")]
    x86::{GfniAvx512, GfniAvx2, VaesAvx2, AesniAvx2},
    #[cfg(target_arch = "aarch64")]
    aarch64::{Aarch64Sm4, Aarch64NeonAes},
    #[cfg(all(any(target_arch = "riscv32", target_arch = "riscv64"), target_feature = "zksed"))]
    riscv::{RiscvZksed},
    #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
    riscv_zvksed::{RiscvZvksed},
}

/// The `cipher` backend type: kernel `K` with one direction's round keys.
pub(crate) struct Keyed<'a, K> {
    rk: &'a RoundKeys,
    kernel: K,
}

impl<K> BlockSizeUser for Keyed<'_, K> {
    type BlockSize = U16;
}

impl<K: Kernel> ParBlocksSizeUser for Keyed<'_, K> {
    type ParBlocksSize = K::ParBlocks;
}

/// The cipher's backend traits for [`Keyed`], one per direction: SM4 decrypts with the
/// same rounds as it encrypts (the round keys come reversed), so both run the kernel.
macro_rules! keyed_backend {
    ($($trait:ident: $one:ident, $par:ident, $tail:ident;)*) => {$(
        impl<K: Kernel> $trait for Keyed<'_, K> {
            #[inline(always)]
            fn $one(&self, mut block: InOut<'_, '_, Block<Self>>) {
                *block.get_out() = self.kernel.crypt_one(self.rk, block.get_in());
            }
            #[inline(always)]
            fn $par(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                self.kernel.crypt(self.rk, blocks.into_buf());
            }
            #[inline(always)]
            fn $tail(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                self.kernel.crypt(self.rk, blocks);
            }
        }
    )*};
}

keyed_backend! {
    BlockCipherEncBackend: encrypt_block, encrypt_par_blocks, encrypt_tail_blocks;
    BlockCipherDecBackend: decrypt_block, decrypt_par_blocks, decrypt_tail_blocks;
}

/// A closure of one direction with that direction's round keys, called on the kernel as a
/// [`Keyed`] backend.
macro_rules! keyed_closure {
    ($($(#[$doc:meta])* $Name:ident: $Closure:ident;)*) => {$(
        $(#[$doc])*
        pub(crate) struct $Name<'a, F>(pub(crate) &'a RoundKeys, pub(crate) F);
        impl<F: $Closure<BlockSize = U16>> Call for $Name<'_, F> {
            type Output = ();
            #[inline(always)]
            fn call<K: Kernel>(self, kernel: K) {
                self.1.call(&Keyed { rk: self.0, kernel });
            }
        }
    )*};
}

keyed_closure! {
    /// An encryption closure from [`cipher::BlockCipherEncrypt`], with the encryption keys.
    Encrypt: BlockCipherEncClosure;
    /// A decryption closure from [`cipher::BlockCipherDecrypt`], with the decryption keys.
    Decrypt: BlockCipherDecClosure;
}

/// [`Kernel::ctr32`].
pub(crate) struct Ctr32<'a> {
    pub(crate) rk: &'a RoundKeys,
    pub(crate) ctr: &'a mut [u32; 4],
    pub(crate) blocks: &'a mut [Block<Sm4>],
}
impl Call for Ctr32<'_> {
    type Output = ();
    #[inline(always)]
    fn call<K: Kernel>(self, k: K) {
        k.ctr32(self.rk, self.ctr, self.blocks);
    }
}

/// [`Kernel::ctr32_side`].
pub(crate) struct Ctr32Side<'a> {
    pub(crate) rk: &'a RoundKeys,
    pub(crate) ctr: &'a mut [u32; 4],
    pub(crate) blocks: &'a mut [Block<Sm4>],
    pub(crate) side: &'a mut Block<Sm4>,
}
impl Call for Ctr32Side<'_> {
    type Output = ();
    #[inline(always)]
    fn call<K: Kernel>(self, k: K) {
        k.ctr32_side(self.rk, self.ctr, self.blocks, self.side);
    }
}

/// [`Kernel::chain`].
pub(crate) struct Chain<'a> {
    pub(crate) rk: &'a RoundKeys,
    pub(crate) state: &'a mut Block<Sm4>,
    pub(crate) blocks: &'a [Block<Sm4>],
    pub(crate) out: &'a mut [Block<Sm4>],
}
impl Call for Chain<'_> {
    type Output = ();
    #[inline(always)]
    fn call<K: Kernel>(self, k: K) {
        k.chain(self.rk, self.state, self.blocks, self.out);
    }
}

/// [`Kernel::expand_key`]. The `riscv-zksed` kernel's keys are byte-swapped (see `riscv`).
pub(crate) struct ExpandKey<'a>(pub(crate) &'a [u8; 16]);
impl Call for ExpandKey<'_> {
    type Output = RoundKeys;
    #[inline(always)]
    fn call<K: Kernel>(self, k: K) -> RoundKeys {
        k.expand_key(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shangmi_dispatch::Available;

    /// [`Kernel::tau`].
    struct Tau(u32);
    impl Call for Tau {
        type Output = u32;
        fn call<K: Kernel>(self, k: K) -> u32 {
            k.tau(self.0)
        }
    }

    /// The S-box table of GB/T 32907-2016 §6.2 (only here: no engine uses a table).
    const SBOX: [u8; 256] = [
        0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c,
        0x05, 0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3, 0xaa, 0x44, 0x13, 0x26, 0x49, 0x86,
        0x06, 0x99, 0x9c, 0x42, 0x50, 0xf4, 0x91, 0xef, 0x98, 0x7a, 0x33, 0x54, 0x0b, 0x43, 0xed,
        0xcf, 0xac, 0x62, 0xe4, 0xb3, 0x1c, 0xa9, 0xc9, 0x08, 0xe8, 0x95, 0x80, 0xdf, 0x94, 0xfa,
        0x75, 0x8f, 0x3f, 0xa6, 0x47, 0x07, 0xa7, 0xfc, 0xf3, 0x73, 0x17, 0xba, 0x83, 0x59, 0x3c,
        0x19, 0xe6, 0x85, 0x4f, 0xa8, 0x68, 0x6b, 0x81, 0xb2, 0x71, 0x64, 0xda, 0x8b, 0xf8, 0xeb,
        0x0f, 0x4b, 0x70, 0x56, 0x9d, 0x35, 0x1e, 0x24, 0x0e, 0x5e, 0x63, 0x58, 0xd1, 0xa2, 0x25,
        0x22, 0x7c, 0x3b, 0x01, 0x21, 0x78, 0x87, 0xd4, 0x00, 0x46, 0x57, 0x9f, 0xd3, 0x27, 0x52,
        0x4c, 0x36, 0x02, 0xe7, 0xa0, 0xc4, 0xc8, 0x9e, 0xea, 0xbf, 0x8a, 0xd2, 0x40, 0xc7, 0x38,
        0xb5, 0xa3, 0xf7, 0xf2, 0xce, 0xf9, 0x61, 0x15, 0xa1, 0xe0, 0xae, 0x5d, 0xa4, 0x9b, 0x34,
        0x1a, 0x55, 0xad, 0x93, 0x32, 0x30, 0xf5, 0x8c, 0xb1, 0xe3, 0x1d, 0xf6, 0xe2, 0x2e, 0x82,
        0x66, 0xca, 0x60, 0xc0, 0x29, 0x23, 0xab, 0x0d, 0x53, 0x4e, 0x6f, 0xd5, 0xdb, 0x37, 0x45,
        0xde, 0xfd, 0x8e, 0x2f, 0x03, 0xff, 0x6a, 0x72, 0x6d, 0x6c, 0x5b, 0x51, 0x8d, 0x1b, 0xaf,
        0x92, 0xbb, 0xdd, 0xbc, 0x7f, 0x11, 0xd9, 0x5c, 0x41, 0x1f, 0x10, 0x5a, 0xd8, 0x0a, 0xc1,
        0x31, 0x88, 0xa5, 0xcd, 0x7b, 0xbd, 0x2d, 0x74, 0xd0, 0x12, 0xb8, 0xe5, 0xb4, 0xb0, 0x89,
        0x69, 0x97, 0x4a, 0x0c, 0x96, 0x77, 0x7e, 0x65, 0xb9, 0xf1, 0x09, 0xc5, 0x6e, 0xc6, 0x84,
        0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20, 0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39,
        0x48,
    ];

    /// GB/T 32907-2016 Appendix A.1 lists the round keys of example 1's key.
    #[test]
    fn every_engine_expands_the_gbt_32907_example_key() {
        let key = [
            0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54,
            0x32, 0x10,
        ];
        for backend in Available::<Backend>::all() {
            let mut rk = run(backend, ExpandKey(&key));
            if backend.get() == Backend::RiscvZksed {
                rk = rk.map(u32::swap_bytes);
            }
            assert_eq!(
                rk[..4],
                [0xf121_86f9, 0x4166_2b61, 0x5a6a_b19a, 0x7ba9_2077],
                "{backend}"
            );
            assert_eq!(rk[31], 0x9124_a012, "{backend}");
        }
    }

    #[test]
    fn every_engine_sbox_matches_the_gbt_32907_table() {
        // Engines with S-box instructions (aarch64, RISC-V) have no separate S-box: their
        // `tau` is the soft one, and they are checked through the vectors instead.
        for backend in Available::<Backend>::all() {
            for x in 0..=255u8 {
                // Each byte position of the word, with the other bytes varying too.
                for pos in 0..4 {
                    let other = x.wrapping_mul(37).wrapping_add(11);
                    let mut word = [other; 4];
                    word[pos] = x;
                    let out = run(backend, Tau(u32::from_be_bytes(word))).to_be_bytes();
                    assert_eq!(
                        out[pos], SBOX[x as usize],
                        "{backend}: S({x:#04x}) at byte {pos}"
                    );
                    assert_eq!(
                        out[(pos + 1) % 4],
                        SBOX[other as usize],
                        "{backend}: neighbour of {pos}"
                    );
                }
            }
        }
    }
}
