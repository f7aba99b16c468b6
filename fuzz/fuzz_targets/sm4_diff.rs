//! Differential fuzzing of SM4: a random key and random blocks through every engine this
//! CPU has, RustCrypto's `sm4` and OpenSSL's SM4-ECB must give the same ciphertext, and
//! decryption must give the plaintext back. The fused counter mode is checked against
//! OpenSSL's SM4-CTR on the same input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use openssl::symm::{Cipher, Crypter, Mode};
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Array, Block, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit},
};

fn openssl(cipher: Cipher, key: &[u8; 16], iv: Option<&[u8]>, data: &[u8]) -> Vec<u8> {
    let mut c = Crypter::new(cipher, Mode::Encrypt, key, iv).expect("OpenSSL has SM4");
    c.pad(false);
    let mut out = vec![0u8; data.len() + 16];
    let n = c.update(data, &mut out).expect("update");
    let m = c.finalize(&mut out[n..]).expect("finalize");
    out.truncate(n + m);
    out
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 32 {
        return;
    }
    let key: [u8; 16] = input[..16].try_into().expect("16 bytes");
    let iv: [u8; 16] = input[16..32].try_into().expect("16 bytes");
    let data = &input[32..];
    let whole = data.len() / 16 * 16;

    let want = openssl(Cipher::sm4_ecb(), &key, None, &data[..whole]);
    let rc = rustcrypto_sm4::Sm4::new(&key.into());
    let mut rc_blocks: Vec<Block<rustcrypto_sm4::Sm4>> =
        data[..whole].chunks_exact(16).map(|b| Array::try_from(b).expect("16 bytes")).collect();
    rc.encrypt_blocks(&mut rc_blocks);
    assert_eq!(rc_blocks.concat(), want, "RustCrypto vs OpenSSL");

    let want_ctr = openssl(Cipher::sm4_ctr(), &key, Some(&iv), data);
    for backend in Backend::available() {
        let c = Sm4::with_backend(&key.into(), backend).expect("available");
        let mut blocks: Vec<Block<Sm4>> =
            data[..whole].chunks_exact(16).map(|b| Array::try_from(b).expect("16 bytes")).collect();
        c.encrypt_blocks(&mut blocks);
        assert_eq!(blocks.concat(), want, "{backend} ECB vs OpenSSL");
        c.decrypt_blocks(&mut blocks);
        assert_eq!(blocks.concat(), &data[..whole], "{backend} decrypt");

        let mut buf = data.to_vec();
        let mut counter = iv;
        c.apply_ctr(CtrFlavor::Be128, &mut counter, &mut buf);
        assert_eq!(buf, want_ctr, "{backend} CTR vs OpenSSL");
    }
});
