//! CTR_DRBG with the derivation function: NIST SP 800-90A Rev. 1 section 10.2.1 (with
//! Block_Cipher_df, 10.3.2), and GM/T 0105-2021 Annex E's SM4 generator, the same
//! construction with one block per request. Generic over a 128-bit block cipher.

use crate::schedule::{Schedule, check_instantiate};
use crate::{Clock, Drbg, Error, Profile, sealed};
use cipher::{
    Block, BlockCipherEncrypt, BlockSizeUser, Key, KeyInit, KeySizeUser,
    typenum::{U16, Unsigned},
};
use core::fmt;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The block length (outlen) of every cipher this CTR_DRBG takes.
const BLOCK: usize = 16;
/// The longest seedlen: a 256-bit key plus one block.
const MAX_SEED_LEN: usize = 32 + BLOCK;

/// CTR_DRBG (with derivation function) over the block cipher `B` under profile `P`, reading
/// clock `C` for the time rule.
///
/// [`Sm4CtrDrbg`](crate::Sm4CtrDrbg) is the GM/T 0105-2021 generator;
/// `CtrDrbg<aes::Aes128, Sp800_90a, NoClock>` is SP 800-90A's CTR_DRBG with AES-128 and the
/// derivation function. Keys up to 256 bits. The state (Key and V) is wiped on drop.
///
/// ```
/// use shangmi_drbg::{CtrDrbg, Drbg, NoClock, Sp800_90a};
/// use shangmi_sm4::Sm4;
///
/// let mut drbg = CtrDrbg::<Sm4, Sp800_90a, NoClock>::new(&[7; 16], &[9; 8], b"", NoClock)?;
/// let mut out = [0u8; 1000];
/// drbg.generate(&mut out, b"")?;
/// # Ok::<(), shangmi_drbg::Error>(())
/// ```
pub struct CtrDrbg<B: KeySizeUser, P, C> {
    key: Key<B>,
    v: [u8; BLOCK],
    schedule: Schedule<P, C>,
}

/// The bounds on the block cipher: 128-bit blocks, a key schedule from bytes.
pub trait CtrCipher: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit {}

impl<B: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + KeyInit> CtrCipher for B {}

fn key_len<B: KeySizeUser>() -> usize {
    const {
        assert!(
            B::KeySize::USIZE <= 32,
            "CTR_DRBG keys are at most 256 bits"
        )
    };
    B::KeySize::USIZE
}

fn seed_len<B: KeySizeUser>() -> usize {
    key_len::<B>() + BLOCK
}

/// V = (V + 1) mod 2^128.
fn increment(v: &mut [u8; BLOCK]) {
    *v = u128::from_be_bytes(*v).wrapping_add(1).to_be_bytes();
}

/// The CBC-MAC chain of BCC (SP 800-90A 10.3.3), fed a byte string in pieces.
struct Bcc<'a, B: CtrCipher> {
    cipher: &'a B,
    chain: Block<B>,
    filled: usize,
}

impl<'a, B: CtrCipher> Bcc<'a, B> {
    fn new(cipher: &'a B) -> Self {
        Bcc {
            cipher,
            chain: Block::<B>::default(),
            filled: 0,
        }
    }

    fn absorb(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let take = data.len().min(BLOCK - self.filled);
            for (c, d) in self.chain[self.filled..self.filled + take]
                .iter_mut()
                .zip(data)
            {
                *c ^= d;
            }
            self.filled += take;
            data = &data[take..];
            if self.filled == BLOCK {
                self.cipher.encrypt_block(&mut self.chain);
                self.filled = 0;
            }
        }
    }

    /// Pads with zero bytes to a whole block (XOR with zero changes nothing) and returns
    /// the chaining value.
    fn finish(mut self) -> Block<B> {
        if self.filled != 0 {
            self.cipher.encrypt_block(&mut self.chain);
        }
        self.chain
    }
}

/// Block_Cipher_df (SP 800-90A 10.3.2): `out` (seedlen bytes) from the pieces concatenated.
fn block_cipher_df<B: CtrCipher>(pieces: &[&[u8]], out: &mut [u8]) {
    let key_len = key_len::<B>();
    // Every input is at most MAX_INPUT_LEN (2^27) bytes and there are at most three.
    let input_len = pieces.iter().map(|p| p.len()).sum::<usize>() as u32;
    let mut k0 = Key::<B>::default();
    for (i, byte) in k0.iter_mut().enumerate() {
        *byte = i as u8;
    }
    let cipher = B::new(&k0);
    let mut temp = [0u8; MAX_SEED_LEN];
    let temp_len = out.len().div_ceil(BLOCK) * BLOCK;
    for (i, chunk) in temp[..temp_len].chunks_mut(BLOCK).enumerate() {
        let mut bcc = Bcc::new(&cipher);
        let mut iv = [0u8; BLOCK];
        iv[..4].copy_from_slice(&(i as u32).to_be_bytes());
        bcc.absorb(&iv);
        bcc.absorb(&input_len.to_be_bytes());
        bcc.absorb(&(out.len() as u32).to_be_bytes());
        for piece in pieces {
            bcc.absorb(piece);
        }
        bcc.absorb(&[0x80]);
        let mut chain = bcc.finish();
        chunk.copy_from_slice(&chain);
        chain.as_mut_slice().zeroize();
    }
    let mut key = Key::<B>::default();
    key.copy_from_slice(&temp[..key_len]);
    let cipher = B::new(&key);
    key.as_mut_slice().zeroize();
    let mut x = Block::<B>::default();
    x.copy_from_slice(&temp[key_len..key_len + BLOCK]);
    temp.zeroize();
    for chunk in out.chunks_mut(BLOCK) {
        cipher.encrypt_block(&mut x);
        chunk.copy_from_slice(&x[..chunk.len()]);
    }
    x.as_mut_slice().zeroize();
}

impl<B: CtrCipher, P: Profile, C: Clock> CtrDrbg<B, P, C> {
    /// CTR_DRBG_Update (SP 800-90A 10.2.1.2) with `cipher` keyed by the current Key;
    /// `provided` is seedlen bytes, or empty for zeros.
    fn update(&mut self, cipher: &B, provided: &[u8]) {
        let n = seed_len::<B>();
        let mut temp = [0u8; MAX_SEED_LEN];
        let mut block = Block::<B>::default();
        for chunk in temp[..n.div_ceil(BLOCK) * BLOCK].chunks_mut(BLOCK) {
            increment(&mut self.v);
            block.copy_from_slice(&self.v);
            cipher.encrypt_block(&mut block);
            chunk.copy_from_slice(&block);
        }
        block.as_mut_slice().zeroize();
        for (t, p) in temp.iter_mut().zip(provided) {
            *t ^= p;
        }
        let key_len = key_len::<B>();
        self.key.copy_from_slice(&temp[..key_len]);
        self.v.copy_from_slice(&temp[key_len..n]);
        temp.zeroize();
    }

    /// seed_material = Block_Cipher_df(pieces), then CTR_DRBG_Update with it.
    fn seed(&mut self, pieces: &[&[u8]]) {
        let n = seed_len::<B>();
        let mut material = [0u8; MAX_SEED_LEN];
        block_cipher_df::<B>(pieces, &mut material[..n]);
        let cipher = B::new(&self.key);
        self.update(&cipher, &material[..n]);
        material.zeroize();
    }
}

impl<B: CtrCipher, P: Profile, C: Clock> sealed::Core for CtrDrbg<B, P, C> {
    fn check_generate(&self, out_len: usize, additional: &[u8]) -> Result<(), Error> {
        self.schedule
            .check_generate(out_len, Self::max_request_len(), additional)
    }

    fn reseed_unchecked(&mut self, entropy: &[u8], additional: &[u8]) {
        self.seed(&[entropy, additional]);
        self.schedule.reseeded();
    }

    fn generate_unchecked(&mut self, out: &mut [u8], additional: &[u8]) {
        let n = seed_len::<B>();
        let mut material = [0u8; MAX_SEED_LEN];
        if !additional.is_empty() {
            block_cipher_df::<B>(&[additional], &mut material[..n]);
            let cipher = B::new(&self.key);
            self.update(&cipher, &material[..n]);
        }
        let cipher = B::new(&self.key);
        // The counter blocks go straight into the output and are encrypted there in one
        // call, so a wide engine sees the whole request.
        let (blocks, tail) = Block::<B>::slice_as_chunks_mut(out);
        let mut counter = u128::from_be_bytes(self.v);
        for block in blocks.iter_mut() {
            counter = counter.wrapping_add(1);
            block.copy_from_slice(&counter.to_be_bytes());
        }
        cipher.encrypt_blocks(blocks);
        if !tail.is_empty() {
            counter = counter.wrapping_add(1);
            let mut block = Block::<B>::from(counter.to_be_bytes());
            cipher.encrypt_block(&mut block);
            tail.copy_from_slice(&block[..tail.len()]);
            block.as_mut_slice().zeroize();
        }
        self.v = counter.to_be_bytes();
        self.update(&cipher, &material[..n]);
        material.zeroize();
        self.schedule.generated();
    }
}

impl<B: CtrCipher, P: Profile, C: Clock> Drbg for CtrDrbg<B, P, C> {
    type Clock = C;

    fn new(entropy: &[u8], nonce: &[u8], personalization: &[u8], clock: C) -> Result<Self, Error> {
        check_instantiate(entropy, nonce, personalization, Self::min_entropy_len())?;
        let mut drbg = CtrDrbg {
            key: Key::<B>::default(),
            v: [0; BLOCK],
            schedule: Schedule::new(clock)?,
        };
        drbg.seed(&[entropy, nonce, personalization]);
        Ok(drbg)
    }

    fn min_entropy_len() -> usize {
        P::min_entropy_len(key_len::<B>())
    }

    fn max_request_len() -> usize {
        P::max_request_len(BLOCK)
    }

    fn reseed_required(&self) -> bool {
        self.schedule.reseed_required()
    }
}

impl<B: KeySizeUser, P, C> Drop for CtrDrbg<B, P, C> {
    fn drop(&mut self) {
        self.key.as_mut_slice().zeroize();
        self.v.zeroize();
    }
}

impl<B: KeySizeUser, P, C> ZeroizeOnDrop for CtrDrbg<B, P, C> {}

impl<B: KeySizeUser, P, C> fmt::Debug for CtrDrbg<B, P, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CtrDrbg").finish_non_exhaustive()
    }
}
