//! Differential fuzzing of SM4: a random key and random blocks through every engine this
//! CPU has, RustCrypto's `sm4` and OpenSSL's SM4-ECB must give the same ciphertext, and
//! decryption must give the plaintext back. Each engine's single-block path is checked on
//! the first block, and the fused counter mode against OpenSSL's SM4-CTR on the same input.
//!
//! Input: 16 bytes of key, 16 bytes of counter, then the data (any length).

#![no_main]

use libfuzzer_sys::fuzz_target;
use openssl::symm::{Cipher, Crypter, Mode};
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, consts::U16},
};

/// OpenSSL's answer for `data` under `cipher` (no padding).
fn openssl(cipher: Cipher, key: &[u8; 16], iv: Option<&[u8]>, data: &[u8]) -> Vec<u8> {
    let mut c = Crypter::new(cipher, Mode::Encrypt, key, iv).expect("OpenSSL has SM4");
    c.pad(false);
    let mut out = vec![0u8; data.len() + 16];
    let n = c.update(data, &mut out).expect("update");
    let m = c.finalize(&mut out[n..]).expect("finalize");
    out.truncate(n + m);
    out
}

/// `data` (a whole number of blocks) as blocks.
fn to_blocks(data: &[u8]) -> Vec<Array<u8, U16>> {
    data.chunks_exact(16)
        .map(|b| Array::try_from(b).expect("16 bytes"))
        .collect()
}

fuzz_target!(|input: &[u8]| {
    let Some((key, rest)) = input.split_first_chunk::<16>() else {
        return;
    };
    let Some((iv, data)) = rest.split_first_chunk::<16>() else {
        return;
    };
    let plain = &data[..data.len() / 16 * 16];

    let want = openssl(Cipher::sm4_ecb(), key, None, plain);
    let rc = rustcrypto_sm4::Sm4::new(&(*key).into());
    let mut blocks = to_blocks(plain);
    rc.encrypt_blocks(&mut blocks);
    assert_eq!(blocks.concat(), want, "RustCrypto vs OpenSSL");

    let want_ctr = openssl(Cipher::sm4_ctr(), key, Some(iv), data);
    for backend in Backend::available() {
        let c = Sm4::with_backend(&(*key).into(), backend).expect("listed as available");

        let mut blocks = to_blocks(plain);
        c.encrypt_blocks(&mut blocks);
        assert_eq!(blocks.concat(), want, "{backend} ECB vs OpenSSL");
        c.decrypt_blocks(&mut blocks);
        assert_eq!(blocks.concat(), plain, "{backend} decrypt");

        if let Some(first) = blocks.first_mut() {
            c.encrypt_block(first);
            assert_eq!(first[..], want[..16], "{backend} single block");
            c.decrypt_block(first);
            assert_eq!(first[..], plain[..16], "{backend} single-block decrypt");
        }

        let mut buf = data.to_vec();
        let mut counter = *iv;
        c.apply_ctr(CtrFlavor::Be128, &mut counter, &mut buf);
        assert_eq!(buf, want_ctr, "{backend} CTR vs OpenSSL");
    }
});
