//! The block chaining mode BC of GB/T 17964-2021 chapter 12: the chaining value is the XOR
//! of the IV and every ciphertext block so far, F1 = IV, Fi+1 = Fi ⊕ Ci, and
//! Ci = E(Pi ⊕ Fi), Pi = D(Ci) ⊕ Fi.
//!
//! Encryption is serial (each input needs the previous ciphertext), one block per call on
//! SM4's CBC chain: with state Fi, the chain step E(state ⊕ Pi) is exactly Ci. Decryption
//! hands whole chunks to the engine's parallel path, then XORs the running prefix sums Fi.

use cipher::{BlockCipherDecrypt, inout::InOutBuf};
use shangmi_sm4::Sm4;

use super::chained::{CHUNK, directions, next_chunk, xor};
use cipher::Block;

directions! {
    /// BC encryption: Ci = E(Pi ⊕ Fi), Fi+1 = Fi ⊕ Ci, F1 the IV.
    BcEncrypt: Encrypts, "Sm4BcEnc", encrypt;
    /// BC decryption: Pi = D(Ci) ⊕ Fi, Fi+1 = Fi ⊕ Ci, F1 the IV.
    BcDecrypt: Decrypts, "Sm4BcDec", decrypt;
}

/// BC encryption with the chaining value `f`.
fn encrypt(cipher: &Sm4, f: &mut Block<Sm4>, blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    for mut block in blocks {
        let p = block.clone_in();
        let mut c = *f;
        cipher.cbc_chain(&mut c, core::slice::from_ref(&p));
        *block.get_out() = c;
        xor(f, &c);
    }
}

/// BC decryption with the chaining value `f`.
fn decrypt(cipher: &Sm4, f: &mut Block<Sm4>, mut blocks: InOutBuf<'_, '_, Block<Sm4>>) {
    let mut input = [Block::<Sm4>::default(); CHUNK];
    while !blocks.is_empty() {
        let (head, n, rest) = next_chunk(blocks, &mut input);
        let out = head.into_out_with_copied_in();
        cipher.decrypt_blocks(out);
        for (o, c) in out.iter_mut().zip(&input[..n]) {
            xor(o, f);
            xor(f, c);
        }
        blocks = rest;
    }
    #[cfg(feature = "zeroize")]
    zeroize::Zeroize::zeroize(&mut input);
}
