//! Differential test against OpenSSL's SM4 (the `openssl` crate; linked on the x86-64
//! development host only): ECB on random keys and block counts, every engine.
#![cfg(target_arch = "x86_64")]

use openssl::symm::{Cipher, encrypt};
use proptest::prelude::*;
use shangmi_sm4::{
    Backend, Sm4,
    cipher::{Array, BlockCipherEncrypt},
};

/// OpenSSL's SM4-ECB of `data` (its PKCS#7 padding block cut off).
fn openssl_ecb(key: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut out = encrypt(Cipher::sm4_ecb(), key, None, data).expect("OpenSSL has SM4");
    out.truncate(data.len());
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
