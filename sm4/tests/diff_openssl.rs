//! Differential test against OpenSSL's SM4 (the `openssl` crate; linked on the x86-64
//! development host only): ECB on random keys and block counts, every engine.
#![cfg(target_arch = "x86_64")]

use openssl::symm::{Cipher, Crypter, Mode};
use proptest::prelude::*;
use shangmi_sm4::{
    Backend, Sm4,
    cipher::{Array, BlockCipherEncrypt},
};

fn openssl_ecb(key: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut c = Crypter::new(Cipher::sm4_ecb(), Mode::Encrypt, key, None).expect("OpenSSL has SM4");
    c.pad(false);
    let mut out = vec![0u8; data.len() + 16];
    let n = c.update(data, &mut out).expect("update");
    let m = c.finalize(&mut out[n..]).expect("finalize");
    out.truncate(n + m);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// ECB on 1..=200 blocks of random data, every engine.
    #[test]
    fn diff_openssl_ecb(key in any::<[u8; 16]>(), data in proptest::collection::vec(any::<[u8; 16]>(), 1..=200)) {
        let want = openssl_ecb(&key, data.as_flattened());
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut got: Vec<_> = data.iter().map(|b| Array::from(*b)).collect();
            c.encrypt_blocks(&mut got);
            prop_assert_eq!(got.concat(), want.clone(), "{}", backend);
        }
    }
}
