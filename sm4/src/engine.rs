//! The one place that maps a [`Backend`] to its code: the cipher-trait backend type
//! generic over an engine, and the dispatch.

use core::marker::PhantomData;

use cipher::{
    Block, BlockCipherDecBackend, BlockCipherDecClosure, BlockCipherEncBackend,
    BlockCipherEncClosure, BlockSizeUser, ParBlocks, ParBlocksSizeUser,
    array::ArraySize,
    consts::U16,
    inout::{InOut, InOutBuf},
};

use shangmi_dispatch::Available;

use crate::{Backend, Sm4, key, key::RoundKeys, soft};

/// What every engine provides.
pub(crate) trait Kernel {
    /// Blocks per parallel call.
    type ParBlocks: ArraySize;
    /// Encrypts (or, with reversed round keys, decrypts) any number of blocks.
    ///
    /// # Safety
    /// The engine's CPU features must be present.
    unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>);

    /// Encrypts (or decrypts) one block; engines with a faster single-block path override it.
    ///
    /// # Safety
    /// As for [`Kernel::crypt`].
    #[inline(always)]
    unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
        let mut buf = [*block];
        // SAFETY: forwarded from the caller.
        unsafe { Self::crypt(rk, (&mut buf[..]).into()) };
        buf[0]
    }
}

/// XORs `blocks` with E(ctr), E(ctr + 1), … counting in the last word only (mod 2^32),
/// and advances `ctr`; `backend` must be available.
pub(crate) fn ctr32(
    backend: Available<Backend>,
    rk: &RoundKeys,
    ctr: &mut [u32; 4],
    blocks: &mut [Block<Sm4>],
) {
    match backend.get() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `backend` is an `Available` token, which only dispatch's probe makes after
        // finding this backend's CPU features.
        Backend::GfniAvx512 => unsafe { crate::x86::gfni_avx512::ctr32(rk, ctr, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Backend::GfniAvx2 => unsafe { crate::x86::gfni_avx2::ctr32(rk, ctr, blocks) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Backend::AesniAvx2 => unsafe { crate::x86::aesni_avx2::ctr32(rk, ctr, blocks) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above (FEAT_SM4).
        Backend::Aarch64Sm4 => unsafe { crate::aarch64::sm4_ce::ctr32(rk, ctr, blocks) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above (AES instructions).
        Backend::Aarch64NeonAes => unsafe { crate::aarch64::neon_aes::ctr32(rk, ctr, blocks) },
        #[cfg(all(
            any(target_arch = "riscv32", target_arch = "riscv64"),
            target_feature = "zksed"
        ))]
        Backend::RiscvZksed => crate::riscv::ctr32(rk, ctr, blocks),
        #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
        // SAFETY: as above (V, Zvksed and Zvkb).
        Backend::RiscvZvksed => unsafe { crate::riscv_zvksed::ctr32(rk, ctr, blocks) },
        _ => soft::ctr32(rk, ctr, blocks),
    }
}

struct Soft;
impl Kernel for Soft {
    type ParBlocks = U16;
    unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        soft::crypt(rk, blocks);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86_kernels {
    use super::*;
    use crate::x86::{aesni_avx2, gfni_avx2, gfni_avx512};
    use cipher::consts::{U32, U64};

    pub(super) struct AesniAvx2;
    impl Kernel for AesniAvx2 {
        type ParBlocks = U32;
        unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
            // SAFETY: forwarded from the caller (AES-NI and AVX2 present).
            unsafe { aesni_avx2::crypt(rk, blocks) }
        }
        unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
            // SAFETY: forwarded from the caller (the engine's features are present).
            unsafe { aesni_avx2::crypt_one(rk, block) }
        }
    }
    const _: () = assert!(aesni_avx2::PAR_BLOCKS == 32);

    pub(super) struct GfniAvx2;
    impl Kernel for GfniAvx2 {
        type ParBlocks = U32;
        unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
            // SAFETY: forwarded from the caller (GFNI and AVX2 present).
            unsafe { gfni_avx2::crypt(rk, blocks) }
        }
        unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
            // SAFETY: forwarded from the caller (the engine's features are present).
            unsafe { gfni_avx2::crypt_one(rk, block) }
        }
    }
    const _: () = assert!(gfni_avx2::PAR_BLOCKS == 32);

    pub(super) struct GfniAvx512;
    impl Kernel for GfniAvx512 {
        type ParBlocks = U64;
        unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
            // SAFETY: forwarded from the caller (GFNI and AVX-512F/BW/VL present).
            unsafe { gfni_avx512::crypt(rk, blocks) }
        }
        unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
            // SAFETY: forwarded from the caller (the engine's features are present).
            unsafe { gfni_avx512::crypt_one(rk, block) }
        }
    }
    const _: () = assert!(gfni_avx512::PAR_BLOCKS == 64);
}

#[cfg(target_arch = "aarch64")]
struct Aarch64Sm4;
#[cfg(target_arch = "aarch64")]
impl Kernel for Aarch64Sm4 {
    type ParBlocks = cipher::consts::U8;
    unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        // SAFETY: forwarded from the caller (FEAT_SM4 present).
        unsafe { crate::aarch64::sm4_ce::crypt(rk, blocks) }
    }
}
#[cfg(target_arch = "aarch64")]
const _: () = assert!(crate::aarch64::sm4_ce::PAR_BLOCKS == 8);

#[cfg(all(
    any(target_arch = "riscv32", target_arch = "riscv64"),
    target_feature = "zksed"
))]
struct RiscvZksed;
#[cfg(all(
    any(target_arch = "riscv32", target_arch = "riscv64"),
    target_feature = "zksed"
))]
impl Kernel for RiscvZksed {
    type ParBlocks = cipher::consts::U1;
    unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        crate::riscv::crypt(rk, blocks);
    }
}

#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
struct RiscvZvksed;
#[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
impl Kernel for RiscvZvksed {
    // Two register groups at the minimum VLEN (128), one at VLEN = 256.
    type ParBlocks = U16;
    unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        // SAFETY: forwarded from the caller (V, Zvksed and Zvkb present).
        unsafe { crate::riscv_zvksed::crypt(rk, blocks) }
    }
}

#[cfg(target_arch = "aarch64")]
struct Aarch64NeonAes;
#[cfg(target_arch = "aarch64")]
impl Kernel for Aarch64NeonAes {
    type ParBlocks = U16;
    unsafe fn crypt(rk: &RoundKeys, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        // SAFETY: forwarded from the caller (AES instructions present).
        unsafe { crate::aarch64::neon_aes::crypt(rk, blocks) }
    }
    unsafe fn crypt_one(rk: &RoundKeys, block: &Block<Sm4>) -> Block<Sm4> {
        // SAFETY: forwarded from the caller (the engine's features are present).
        unsafe { crate::aarch64::neon_aes::crypt_one(rk, block) }
    }
}
#[cfg(target_arch = "aarch64")]
const _: () = assert!(crate::aarch64::neon_aes::PAR_BLOCKS == 16);

/// The `cipher` backend for engine `K` with one direction's round keys.
///
/// Only [`dispatch`] builds it, and only for a backend that `Sm4` holds, which
/// [`Backend::is_available`] approved when the key was set up.
pub(crate) struct Engine<'a, K> {
    rk: &'a RoundKeys,
    kernel: PhantomData<K>,
}

impl<K: Kernel> Engine<'_, K> {
    #[inline(always)]
    fn run(&self, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        // SAFETY: an `Engine<K>` exists only for an available backend (see the type).
        unsafe { K::crypt(self.rk, blocks) }
    }

    #[inline(always)]
    fn run_one(&self, mut block: InOut<'_, '_, Block<Sm4>>) {
        // SAFETY: an `Engine<K>` exists only for an available backend (see the type).
        let out = unsafe { K::crypt_one(self.rk, block.get_in()) };
        *block.get_out() = out;
    }
}

impl<K> BlockSizeUser for Engine<'_, K> {
    type BlockSize = U16;
}

impl<K: Kernel> ParBlocksSizeUser for Engine<'_, K> {
    type ParBlocksSize = K::ParBlocks;
}

impl<K: Kernel> BlockCipherEncBackend for Engine<'_, K> {
    #[inline(always)]
    fn encrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        self.run_one(block);
    }
    #[inline(always)]
    fn encrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        self.run(blocks.into_buf());
    }
    #[inline(always)]
    fn encrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        self.run(blocks);
    }
}

impl<K: Kernel> BlockCipherDecBackend for Engine<'_, K> {
    #[inline(always)]
    fn decrypt_block(&self, block: InOut<'_, '_, Block<Self>>) {
        self.run_one(block);
    }
    #[inline(always)]
    fn decrypt_par_blocks(&self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
        self.run(blocks.into_buf());
    }
    #[inline(always)]
    fn decrypt_tail_blocks(&self, blocks: InOutBuf<'_, '_, Block<Self>>) {
        self.run(blocks);
    }
}

/// A closure of either direction, called with the engine.
pub(crate) trait Call {
    /// Runs the closure on engine `K`.
    fn call<K: Kernel>(self, engine: Engine<'_, K>);
}

/// An encryption closure from [`cipher::BlockCipherEncrypt`].
pub(crate) struct Encrypt<F>(pub(crate) F);
impl<F: BlockCipherEncClosure<BlockSize = U16>> Call for Encrypt<F> {
    #[inline(always)]
    fn call<K: Kernel>(self, engine: Engine<'_, K>) {
        self.0.call(&engine);
    }
}

/// A decryption closure from [`cipher::BlockCipherDecrypt`].
pub(crate) struct Decrypt<F>(pub(crate) F);
impl<F: BlockCipherDecClosure<BlockSize = U16>> Call for Decrypt<F> {
    #[inline(always)]
    fn call<K: Kernel>(self, engine: Engine<'_, K>) {
        self.0.call(&engine);
    }
}

#[inline(always)]
fn engine<K>(rk: &RoundKeys) -> Engine<'_, K> {
    Engine {
        rk,
        kernel: PhantomData,
    }
}

/// Runs `f` on `backend`'s engine; `backend` must be available (it comes from an `Sm4`).
#[inline(always)]
pub(crate) fn dispatch(backend: Available<Backend>, rk: &RoundKeys, f: impl Call) {
    match backend.get() {
        #[cfg(target_arch = "x86_64")]
        Backend::GfniAvx512 => f.call(engine::<x86_kernels::GfniAvx512>(rk)),
        #[cfg(target_arch = "x86_64")]
        Backend::GfniAvx2 => f.call(engine::<x86_kernels::GfniAvx2>(rk)),
        #[cfg(target_arch = "x86_64")]
        Backend::AesniAvx2 => f.call(engine::<x86_kernels::AesniAvx2>(rk)),
        #[cfg(target_arch = "aarch64")]
        Backend::Aarch64Sm4 => f.call(engine::<Aarch64Sm4>(rk)),
        #[cfg(target_arch = "aarch64")]
        Backend::Aarch64NeonAes => f.call(engine::<Aarch64NeonAes>(rk)),
        #[cfg(all(
            any(target_arch = "riscv32", target_arch = "riscv64"),
            target_feature = "zksed"
        ))]
        Backend::RiscvZksed => f.call(engine::<RiscvZksed>(rk)),
        #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
        Backend::RiscvZvksed => f.call(engine::<RiscvZvksed>(rk)),
        _ => f.call(engine::<Soft>(rk)),
    }
}

/// The CBC chain `state = E(state ⊕ b)` for each of `blocks` (CBC-MAC, CCM, CMAC), in one
/// engine call; `backend` must be available. GFNI engines have a dedicated shorter round
/// (`x86::gfni_chain`); the others loop over their single-block path.
pub(crate) fn chain(
    backend: Available<Backend>,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
) {
    chain_into(backend, rk, state, blocks, &mut []);
}

/// [`chain`], also writing the state after block i to `out[i]` for each i < `out.len()`.
fn chain_into(
    backend: Available<Backend>,
    rk: &RoundKeys,
    state: &mut Block<Sm4>,
    blocks: &[Block<Sm4>],
    out: &mut [Block<Sm4>],
) {
    match backend.get() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `backend` is an `Available` token (dispatch found GFNI, AVX2, AVX-512F/VL).
        Backend::GfniAvx512 => unsafe {
            crate::x86::gfni_chain::chain_avx512(rk, state, blocks, out)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above (GFNI and AVX2).
        Backend::GfniAvx2 => unsafe { crate::x86::gfni_chain::chain_avx2(rk, state, blocks, out) },
        _ => dispatch(backend, rk, Chain { state, blocks, out }),
    }
}

impl Sm4 {
    /// [`Sm4::cbc_chain`], also writing the state after block i to `out[i]` for each
    /// i < `out.len()` — CBC encryption (`out` the ciphertext, `state` the IV) and, with the
    /// blocks shifted by one, CFB encryption; one engine call, so GFNI engines run their
    /// shorter chain round. `out` and `blocks` are separate slices: for in-place work copy a
    /// chunk of input first.
    ///
    /// ```
    /// use shangmi_sm4::{Sm4, cipher::{Block, BlockCipherEncrypt, KeyInit}};
    ///
    /// let cipher = Sm4::new(&[7u8; 16].into());
    /// let blocks = [Block::<Sm4>::from([1u8; 16]), Block::<Sm4>::from([2u8; 16])];
    /// let mut iv = Block::<Sm4>::from([9u8; 16]);
    /// let mut ciphertext = [Block::<Sm4>::default(); 2];
    /// cipher.cbc_chain_into(&mut iv, &blocks, &mut ciphertext);
    ///
    /// let mut check = Block::<Sm4>::from([9u8 ^ 1; 16]);
    /// cipher.encrypt_block(&mut check);
    /// assert_eq!(ciphertext[0], check);
    /// assert_eq!(iv, ciphertext[1]);
    /// ```
    pub fn cbc_chain_into(
        &self,
        state: &mut Block<Self>,
        blocks: &[Block<Self>],
        out: &mut [Block<Self>],
    ) {
        chain_into(self.backend, &self.enc, state, blocks, out);
    }
}

/// [`chain_into`] on an engine's single-block path.
struct Chain<'a> {
    state: &'a mut Block<Sm4>,
    blocks: &'a [Block<Sm4>],
    out: &'a mut [Block<Sm4>],
}

impl Call for Chain<'_> {
    #[inline(always)]
    fn call<K: Kernel>(self, engine: Engine<'_, K>) {
        let mut out = self.out.iter_mut();
        for b in self.blocks {
            let mut x = *self.state;
            for (x, b) in x.iter_mut().zip(b.iter()) {
                *x ^= b;
            }
            // SAFETY: an `Engine<K>` exists only for an available backend (see the type).
            *self.state = unsafe { K::crypt_one(engine.rk, &x) };
            if let Some(o) = out.next() {
                *o = *self.state;
            }
        }
    }
}

/// The S-box on each byte of `a`, by `backend`'s technique (constant-time on every engine);
/// `backend` must be available.
fn tau(backend: Available<Backend>, a: u32) -> u32 {
    match backend.get() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `backend` is an `Available` token (dispatch found its CPU features).
        Backend::GfniAvx512 => unsafe { crate::x86::gfni_avx512::tau(a) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Backend::GfniAvx2 => unsafe { crate::x86::gfni_avx2::tau(a) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Backend::AesniAvx2 => unsafe { crate::x86::aesni_avx2::tau(a) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above (AES instructions).
        Backend::Aarch64NeonAes => unsafe { crate::aarch64::neon_aes::tau(a) },
        _ => soft::tau(a),
    }
}

/// Expands `key` for `backend` (with its own S-box or key instructions); `backend` must be
/// available. The `riscv-zksed` engine's keys are byte-swapped (see `riscv`).
pub(crate) fn expand_key(backend: Available<Backend>, key: &[u8; 16]) -> RoundKeys {
    match backend.get() {
        #[cfg(target_arch = "aarch64")]
        // SAFETY: `backend` is an `Available` token (dispatch found FEAT_SM4).
        Backend::Aarch64Sm4 => unsafe { crate::aarch64::sm4_ce::expand_key(key) },
        #[cfg(all(
            any(target_arch = "riscv32", target_arch = "riscv64"),
            target_feature = "zksed"
        ))]
        Backend::RiscvZksed => crate::riscv::expand_key(key),
        #[cfg(any(target_arch = "riscv32", target_arch = "riscv64"))]
        // SAFETY: `backend` is an `Available` token (dispatch found V, Zvksed and Zvkb).
        Backend::RiscvZvksed => unsafe { crate::riscv_zvksed::expand_key(key) },
        _ => key::expand(key, |a| tau(backend, a)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let mut rk = expand_key(backend, &key);
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
                    let out = tau(backend, u32::from_be_bytes(word)).to_be_bytes();
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
