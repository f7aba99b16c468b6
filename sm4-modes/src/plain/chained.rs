//! CBC encryption and decryption and CFB encryption (NIST SP 800-38A §6.2, §6.3) on SM4's
//! engines directly rather than through RustCrypto's `cbc`/`cfb-mode`, which give the
//! cipher one block per call.
//!
//! The serial directions run on [`Sm4::cbc_chain_into`] (a whole chunk in one engine call;
//! on GFNI and AES-instruction engines a shorter round for the latency-bound chain). CFB encryption is the same
//! chain with the blocks shifted by one: with state 0 and inputs IV, P1, …, the chain's
//! states are E(IV), E(C1), …, and Ci = E(Ci−1) ⊕ Pi. CBC decryption keeps a stack copy of a
//! chunk's ciphertext, hands every block of the chunk, however short, to the engine's
//! parallel path straight into the output, then XORs the kept ciphertext in, shifted by one
//! block.

use core::{fmt, marker::PhantomData};

use cipher::{
    AlgorithmName, Block, BlockCipherDecrypt, BlockModeDecBackend, BlockModeDecClosure,
    BlockModeDecrypt, BlockModeEncBackend, BlockModeEncClosure, BlockModeEncrypt, BlockSizeUser,
    InnerIvInit, Iv, IvSizeUser, IvState, ParBlocks, ParBlocksSizeUser, SetIvState,
    common::InnerUser,
    consts::{U16, U256},
    inout::{InOut, InOutBuf},
};
use shangmi_sm4::Sm4;

/// Blocks handed to the engine per call (the stack copy of a chunk is this many blocks):
/// the widest engine's parallel width (64 blocks on GFNI + AVX-512).
pub(super) const CHUNK: usize = 64;

/// Blocks per engine call of the serial directions (CBC and CFB encryption): each call
/// starts the chain again (the engine prepares its round keys, the first block's rounds
/// overlap nothing), which cost 2% of CBC encryption of 8 KiB in calls of 64 blocks on the
/// AES-NI chain against calls of 256 (Zen 4). 64 on 32-bit targets, whose stacks are small.
const SERIAL_CHUNK: usize = if cfg!(target_pointer_width = "64") {
    256
} else {
    CHUNK
};

/// The stack copy's size for inputs this short (a TLS/TLCP record of a few hundred bytes):
/// zeroing a 1 KiB copy for a 3- or 14-block record cost more than the copy itself.
const SHORT: usize = 16;

/// Runs `f` with a zeroed stack copy big enough for `len` blocks, or for `LONG` blocks when
/// `len` is larger.
#[inline(always)]
fn with_copy<const LONG: usize, R>(len: usize, f: impl FnOnce(&mut [Block<Sm4>]) -> R) -> R {
    if len <= SHORT {
        f(&mut [Block::<Sm4>::default(); SHORT])
    } else {
        f(&mut [Block::<Sm4>::default(); LONG])
    }
}

/// A chained SM4 mode: the cipher and the chaining value (the IV, then the last ciphertext
/// block). `D` says which mode and direction ([`CbcEncrypt`], [`CbcDecrypt`],
/// [`CfbEncrypt`]); use the aliases [`Sm4CbcEnc`](crate::Sm4CbcEnc),
/// [`Sm4CbcDec`](crate::Sm4CbcDec) and [`Sm4CfbEnc`](crate::Sm4CfbEnc).
pub struct Chained<D> {
    cipher: Sm4,
    iv: Block<Sm4>,
    direction: PhantomData<D>,
}

/// A mode and direction of the chained modes ([`Sm4CbcEnc`](crate::Sm4CbcEnc),
/// [`Sm4CbcDec`](crate::Sm4CbcDec), [`Sm4CfbEnc`](crate::Sm4CfbEnc), BC and OFBNLF): how a
/// run of blocks goes through the cipher. [`run`](Self::run) borrows the cipher, for a
/// caller that keeps one per key and does not want a mode object (which owns a copy of the
/// cipher) per message:
///
/// ```
/// use shangmi_sm4_modes::{CbcDecrypt, CbcEncrypt, Direction, Sm4};
/// use shangmi_sm4_modes::cipher::{Block, KeyInit};
///
/// let cipher = Sm4::new(&[7u8; 16].into());
/// let mut blocks = [Block::<Sm4>::from([1u8; 16]); 3];
/// CbcEncrypt::run(&cipher, &mut Block::<Sm4>::from([9u8; 16]), (&mut blocks[..]).into());
/// CbcDecrypt::run(&cipher, &mut Block::<Sm4>::from([9u8; 16]), (&mut blocks[..]).into());
/// assert_eq!(blocks, [Block::<Sm4>::from([1u8; 16]); 3]);
/// ```
pub trait Direction: sealed::Sealed {
    /// The name `AlgorithmName` and `Debug` give, e.g. `"Sm4CbcEnc"`.
    const NAME: &'static str;
    /// Processes `blocks` in order, updating the chaining value `iv`.
    fn run(cipher: &Sm4, iv: &mut Block<Sm4>, blocks: InOutBuf<'_, '_, Block<Sm4>>);
}

/// The directions that encrypt ([`CbcEncrypt`], [`CfbEncrypt`]).
pub trait Encrypts: Direction {}
impl Encrypts for CbcEncrypt {}
impl Encrypts for CfbEncrypt {}

/// The directions that decrypt ([`CbcDecrypt`] and the BC and OFBNLF decryptions).
pub trait Decrypts: Direction {}
impl Decrypts for CbcDecrypt {}

pub(super) mod sealed {
    pub trait Sealed {}
    impl Sealed for super::CbcEncrypt {}
    impl Sealed for super::CbcDecrypt {}
    impl Sealed for super::CfbEncrypt {}
}

/// Declares the direction types of a mode of its own module: each a sealed unit struct
/// marked as one that [`Encrypts`] or [`Decrypts`], with its [`Direction::NAME`] and its
/// [`Direction::run`] (a function or closure of `run`'s arguments).
macro_rules! directions {
    ($($(#[$doc:meta])* $name:ident: $marker:ident, $text:literal, $run:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;
        impl $crate::plain::chained::sealed::Sealed for $name {}
        impl $crate::plain::chained::$marker for $name {}
        impl $crate::plain::chained::Direction for $name {
            const NAME: &'static str = $text;
            #[inline]
            fn run(
                cipher: &::shangmi_sm4::Sm4,
                iv: &mut ::cipher::Block<::shangmi_sm4::Sm4>,
                blocks: ::cipher::inout::InOutBuf<'_, '_, ::cipher::Block<::shangmi_sm4::Sm4>>,
            ) {
                ($run)(cipher, iv, blocks)
            }
        }
    )*};
}
pub(super) use directions;

/// CBC encryption: Ci = E(Pi ⊕ Ci−1), C0 the IV.
#[derive(Clone, Copy, Debug)]
pub struct CbcEncrypt;
/// CBC decryption: Pi = D(Ci) ⊕ Ci−1, C0 the IV.
#[derive(Clone, Copy, Debug)]
pub struct CbcDecrypt;
/// CFB encryption with 128-bit feedback: Ci = E(Ci−1) ⊕ Pi, C0 the IV.
#[derive(Clone, Copy, Debug)]
pub struct CfbEncrypt;

/// Splits off the next chunk of at most `copy.len()` blocks and copies its input to `copy`
/// (so the output may overwrite it); returns (the chunk, its length, the rest).
pub(super) fn next_chunk<'i, 'o>(
    blocks: InOutBuf<'i, 'o, Block<Sm4>>,
    copy: &mut [Block<Sm4>],
) -> (
    InOutBuf<'i, 'o, Block<Sm4>>,
    usize,
    InOutBuf<'i, 'o, Block<Sm4>>,
) {
    let n = blocks.len().min(copy.len());
    let (head, rest) = blocks.split_at(n);
    copy[..n].copy_from_slice(head.get_in());
    (head, n, rest)
}

impl Direction for CbcEncrypt {
    const NAME: &'static str = "Sm4CbcEnc";
    fn run(cipher: &Sm4, iv: &mut Block<Sm4>, mut blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        with_copy::<SERIAL_CHUNK, _>(blocks.len(), |input| {
            while !blocks.is_empty() {
                let (head, n, rest) = next_chunk(blocks, input);
                cipher.cbc_chain_into(iv, &input[..n], head.into_out());
                blocks = rest;
            }
        });
    }
}

impl Direction for CfbEncrypt {
    const NAME: &'static str = "Sm4CfbEnc";
    fn run(cipher: &Sm4, iv: &mut Block<Sm4>, mut blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        // input = [Ci−1, Pi, …]: the chain from state 0 yields E(Ci−1), E(Ci), …
        with_copy::<{ SERIAL_CHUNK + 1 }, _>(blocks.len() + 1, |input| {
            while !blocks.is_empty() {
                input[0] = *iv;
                let (head, n, rest) = next_chunk(blocks, &mut input[1..]);
                let out = head.into_out();
                let mut state = Block::<Sm4>::default();
                cipher.cbc_chain_into(&mut state, &input[..n], out);
                for (o, p) in out.iter_mut().zip(&input[1..=n]) {
                    xor(o, p);
                }
                if let Some(last) = out.last() {
                    *iv = *last;
                }
                blocks = rest;
            }
        });
    }
}

impl Direction for CbcDecrypt {
    const NAME: &'static str = "Sm4CbcDec";
    fn run(cipher: &Sm4, iv: &mut Block<Sm4>, mut blocks: InOutBuf<'_, '_, Block<Sm4>>) {
        with_copy::<CHUNK, _>(blocks.len(), |copy| {
            while !blocks.is_empty() {
                let n = blocks.len().min(CHUNK);
                let (mut head, rest) = blocks.split_at(n);
                // The ciphertext, kept before the engine may overwrite it (in place).
                copy[..n].copy_from_slice(head.get_in());
                let saved = &copy[..n];
                // D(Ci) for the whole chunk on the engine's parallel path, straight to the
                // output.
                cipher.decrypt_blocks_inout(head.reborrow());
                // Pi = D(Ci) ⊕ Ci−1, as flat bytes: a loop the compiler turns into full-width
                // vector XORs.
                let out = head.get_out();
                xor(&mut out[0], iv);
                let flat = Block::<Sm4>::slice_as_flattened_mut(out);
                for (p, c) in flat[16..]
                    .iter_mut()
                    .zip(Block::<Sm4>::slice_as_flattened(saved))
                {
                    *p ^= c;
                }
                *iv = saved[n - 1];
                blocks = rest;
            }
        });
    }
}

/// `a ^= b`, as one 128-bit XOR (a byte loop is not always vectorized: in CBC decryption's
/// loop it made the whole mode 1.6x slower).
#[inline(always)]
pub(super) fn xor(a: &mut Block<Sm4>, b: &Block<Sm4>) {
    let x = u128::from_ne_bytes(a.0) ^ u128::from_ne_bytes(b.0);
    a.0 = x.to_ne_bytes();
}

/// The `cipher` mode backend: every call, of one block or many, goes to [`Direction::run`].
struct Backend<'a, D> {
    cipher: &'a Sm4,
    iv: &'a mut Block<Sm4>,
    direction: PhantomData<D>,
}

impl<D> BlockSizeUser for Backend<'_, D> {
    type BlockSize = U16;
}

/// As many blocks as the serial directions take a call ([`Direction::run`] splits them
/// further where it needs to), so that `cipher`'s block loop does not cut the input into
/// 64-block calls.
impl<D> ParBlocksSizeUser for Backend<'_, D> {
    type ParBlocksSize = U256;
}

impl<D: Direction> Backend<'_, D> {
    #[inline(always)]
    fn one(&mut self, mut block: InOut<'_, '_, Block<Sm4>>) {
        let mut b = [block.clone_in()];
        D::run(self.cipher, self.iv, (&mut b[..]).into());
        *block.get_out() = b[0];
    }
}

/// The encryption and the decryption backend: the same three calls under each trait's
/// names, every one going to [`Direction::run`] (through [`Backend::one`] for one block).
macro_rules! mode_backends {
    ($($Trait:ident { $block:ident, $par:ident, $tail:ident })*) => {$(
        impl<D: Direction> $Trait for Backend<'_, D> {
            #[inline(always)]
            fn $block(&mut self, block: InOut<'_, '_, Block<Self>>) {
                self.one(block);
            }
            #[inline(always)]
            fn $par(&mut self, blocks: InOut<'_, '_, ParBlocks<Self>>) {
                D::run(self.cipher, self.iv, blocks.into_buf());
            }
            #[inline(always)]
            fn $tail(&mut self, blocks: InOutBuf<'_, '_, Block<Self>>) {
                D::run(self.cipher, self.iv, blocks);
            }
        }
    )*};
}

mode_backends! {
    BlockModeEncBackend { encrypt_block, encrypt_par_blocks, encrypt_tail_blocks }
    BlockModeDecBackend { decrypt_block, decrypt_par_blocks, decrypt_tail_blocks }
}

impl<D: Direction> Chained<D> {
    #[inline(always)]
    fn backend(&mut self) -> Backend<'_, D> {
        Backend {
            cipher: &self.cipher,
            iv: &mut self.iv,
            direction: PhantomData,
        }
    }
}

impl<D: Encrypts> BlockModeEncrypt for Chained<D> {
    fn encrypt_with_backend(&mut self, f: impl BlockModeEncClosure<BlockSize = U16>) {
        f.call(&mut self.backend());
    }
}

impl<D: Decrypts> BlockModeDecrypt for Chained<D> {
    fn decrypt_with_backend(&mut self, f: impl BlockModeDecClosure<BlockSize = U16>) {
        f.call(&mut self.backend());
    }
}

impl<D> BlockSizeUser for Chained<D> {
    type BlockSize = U16;
}

impl<D> IvSizeUser for Chained<D> {
    type IvSize = U16;
}

impl<D> InnerUser for Chained<D> {
    type Inner = Sm4;
}

impl<D> InnerIvInit for Chained<D> {
    #[inline]
    fn inner_iv_init(cipher: Sm4, iv: &Iv<Self>) -> Self {
        Chained {
            cipher,
            iv: *iv,
            direction: PhantomData,
        }
    }
}

impl<D> IvState for Chained<D> {
    #[inline]
    fn iv_state(&self) -> Iv<Self> {
        self.iv
    }
}

impl<D> SetIvState for Chained<D> {
    #[inline]
    fn set_iv(&mut self, iv: &Iv<Self>) {
        self.iv = *iv;
    }
}

impl<D> Clone for Chained<D> {
    fn clone(&self) -> Self {
        Chained {
            cipher: self.cipher.clone(),
            iv: self.iv,
            direction: PhantomData,
        }
    }
}

impl<D: Direction> AlgorithmName for Chained<D> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(D::NAME)
    }
}

impl<D: Direction> fmt::Debug for Chained<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(D::NAME)
            .field("cipher", &self.cipher)
            .finish_non_exhaustive()
    }
}

impl<D> Drop for Chained<D> {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut self.iv);
    }
}

#[cfg(feature = "zeroize")]
impl<D> zeroize::ZeroizeOnDrop for Chained<D> {}
