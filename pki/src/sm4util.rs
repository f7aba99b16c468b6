//! SM4-ECB without padding and SM4-CBC with PKCS#7 padding, for envelopes and CMS.

use alloc::vec::Vec;
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use shangmi_sm4::Sm4;

fn block(b: &[u8]) -> cipher::Block<Sm4> {
    let mut out = cipher::Block::<Sm4>::default();
    out.copy_from_slice(b);
    out
}

/// ECB over whole blocks; `None` if the length is not a multiple of 16.
pub(crate) fn ecb_encrypt(key: &[u8; 16], data: &[u8]) -> Option<Vec<u8>> {
    if !data.len().is_multiple_of(16) {
        return None;
    }
    let c = Sm4::new(key.into());
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks_exact(16) {
        let mut b = block(chunk);
        c.encrypt_block(&mut b);
        out.extend_from_slice(&b);
    }
    Some(out)
}

/// ECB decryption over whole blocks.
pub(crate) fn ecb_decrypt(key: &[u8; 16], data: &[u8]) -> Option<Vec<u8>> {
    if !data.len().is_multiple_of(16) {
        return None;
    }
    let c = Sm4::new(key.into());
    let mut out = Vec::with_capacity(data.len());
    for chunk in data.chunks_exact(16) {
        let mut b = block(chunk);
        c.decrypt_block(&mut b);
        out.extend_from_slice(&b);
    }
    Some(out)
}

/// CBC with PKCS#7 padding.
pub(crate) fn cbc_encrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let c = Sm4::new(key.into());
    let pad = 16 - data.len() % 16;
    let mut buf = Vec::with_capacity(data.len() + pad);
    buf.extend_from_slice(data);
    buf.resize(data.len() + pad, pad as u8);
    let mut prev = *iv;
    for chunk in buf.chunks_exact_mut(16) {
        for (b, p) in chunk.iter_mut().zip(prev.iter()) {
            *b ^= p;
        }
        let mut b = block(chunk);
        c.encrypt_block(&mut b);
        chunk.copy_from_slice(&b);
        prev.copy_from_slice(&b);
    }
    buf
}

/// CBC decryption; `None` on a bad length or bad padding.
pub(crate) fn cbc_decrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Option<Vec<u8>> {
    if data.is_empty() || !data.len().is_multiple_of(16) {
        return None;
    }
    let c = Sm4::new(key.into());
    let mut out = Vec::with_capacity(data.len());
    let mut prev = *iv;
    for chunk in data.chunks_exact(16) {
        let mut b = block(chunk);
        c.decrypt_block(&mut b);
        for (x, p) in b.iter_mut().zip(prev.iter()) {
            *x ^= p;
        }
        out.extend_from_slice(&b);
        prev.copy_from_slice(chunk);
    }
    let pad = *out.last()? as usize;
    if pad == 0 || pad > 16 || out[out.len() - pad..].iter().any(|&b| b as usize != pad) {
        return None;
    }
    out.truncate(out.len() - pad);
    Some(out)
}
