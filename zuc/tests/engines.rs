//! Every S-box engine available on this machine gives the portable engine's keystream
//! (ZUC-128 and ZUC-256, random keys, IVs and lengths, and through seeking).
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shangmi_zuc::{
    Backend, Zuc128Core, Zuc256Core,
    cipher::{StreamCipher, StreamCipherCoreWrapper, StreamCipherSeek},
};

fn stream128(key: [u8; 16], iv: [u8; 16], backend: Backend, skip: u64, n: usize) -> Vec<u8> {
    let core = Zuc128Core::with_backend(&key.into(), &iv.into(), backend).unwrap();
    assert_eq!(core.backend(), backend);
    let mut c = StreamCipherCoreWrapper::from_core(core);
    c.seek(skip);
    let mut out = vec![0u8; n];
    c.apply_keystream(&mut out);
    out
}

fn stream256(key: [u8; 32], iv: [u8; 25], backend: Backend, n: usize) -> Vec<u8> {
    let core = Zuc256Core::with_backend(&key.into(), &iv.into(), backend).unwrap();
    let mut c = StreamCipherCoreWrapper::from_core(core);
    let mut out = vec![0u8; n];
    c.apply_keystream(&mut out);
    out
}

#[test]
fn lists_engines() {
    let all: Vec<Backend> = Backend::available().collect();
    println!("available: {all:?}, detected {}", Backend::detect());
    assert!(all.contains(&Backend::Soft));
    assert_eq!(Backend::detect(), all[0]);
    for b in Backend::ALL {
        if !b.is_available() {
            assert!(Zuc128Core::with_backend(&[0; 16].into(), &[0; 16].into(), b).is_err());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_engine_equals_soft(
        key in any::<[u8; 32]>(), iv in any::<[u8; 25]>(), n in 0usize..700, skip in 0u64..200,
    ) {
        let k16: [u8; 16] = key[..16].try_into().unwrap();
        let iv16: [u8; 16] = iv[..16].try_into().unwrap();
        let soft128 = stream128(k16, iv16, Backend::Soft, skip, n);
        let soft256 = stream256(key, iv, Backend::Soft, n);
        for b in Backend::available() {
            prop_assert_eq!(&stream128(k16, iv16, b, skip, n), &soft128, "{}", b);
            prop_assert_eq!(&stream256(key, iv, b, n), &soft256, "{}", b);
        }
    }
}
