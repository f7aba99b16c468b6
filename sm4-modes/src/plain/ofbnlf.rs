//! Output feedback with a nonlinear function, OFBNLF, of GB/T 17964-2021 chapter 13: the
//! OFB sequence Ki = E_K(Ki−1), K0 the IV, is used as a key sequence, and each block is
//! enciphered under its own key: Ci = E_Ki(Pi), Pi = D_Ki(Ci).
//!
//! The key sequence for a whole chunk comes from one call of SM4's CBC chain over zero
//! blocks (state Ki−1 ⊕ 0 → Ki); each block then needs its own key schedule, so the mode
//! is serial and dominated by key expansion.

use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit,
    inout::{InOut, InOutBuf},
};
use shangmi_sm4::Sm4;

use super::chained::{CHUNK, directions};

directions! {
    /// OFBNLF encryption: Ki = E_K(Ki−1), Ci = E_Ki(Pi).
    OfbnlfEncrypt: Encrypts, "Sm4OfbnlfEnc", |cipher, k, blocks| {
        run(cipher, k, blocks, |c: &Sm4, b| c.encrypt_block_inout(b))
    };
    /// OFBNLF decryption: Ki = E_K(Ki−1), Pi = D_Ki(Ci).
    OfbnlfDecrypt: Decrypts, "Sm4OfbnlfDec", |cipher, k, blocks| {
        run(cipher, k, blocks, |c: &Sm4, b| c.decrypt_block_inout(b))
    };
}

/// Derives the keys of a chunk at a time from the feedback value `k` and applies `crypt`
/// with each block's own cipher (on the engine of `cipher`).
fn run(
    cipher: &Sm4,
    k: &mut Block<Sm4>,
    mut blocks: InOutBuf<'_, '_, Block<Sm4>>,
    crypt: impl Fn(&Sm4, InOut<'_, '_, Block<Sm4>>),
) {
    let zeros = [Block::<Sm4>::default(); CHUNK];
    let mut keys = [Block::<Sm4>::default(); CHUNK];
    while !blocks.is_empty() {
        let n = blocks.len().min(CHUNK);
        let (head, rest) = blocks.split_at(n);
        cipher.cbc_chain_into(k, &zeros[..n], &mut keys[..n]);
        for (block, key) in head.into_iter().zip(&keys) {
            // The engine is available (it runs `cipher`); the fallback is never taken.
            let c = Sm4::with_backend(key, cipher.backend()).unwrap_or_else(|_| Sm4::new(key));
            crypt(&c, block);
        }
        blocks = rest;
    }
    #[cfg(feature = "zeroize")]
    zeroize::Zeroize::zeroize(&mut keys);
}
