//! Every S-box engine available on this machine gives the portable engine's keystream
//! (ZUC-128 and ZUC-256, random keys, IVs and lengths, and through seeking).
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shangmi_zuc::{
    Backend, Eia3, Zuc128Core, Zuc256Core, Zuc256Mac32, Zuc256Mac64, Zuc256Mac128,
    cipher::{StreamCipher, StreamCipherCoreWrapper, StreamCipherSeek},
    digest::Mac,
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The MACs (whose window sums have an engine of their own on x86-64) agree across
    /// engines for every bit length and split.
    #[test]
    fn every_engine_macs_equal_soft(
        key in any::<[u8; 32]>(), iv in any::<[u8; 25]>(),
        data in proptest::collection::vec(any::<u8>(), 1..200), cut in 0usize..8, split in 0usize..200,
    ) {
        let bits = 8 * data.len() - cut;
        let split = split.min(bits / 8);
        let k16: [u8; 16] = key[..16].try_into().unwrap();
        let iv16: [u8; 16] = iv[..16].try_into().unwrap();
        let tags = |b: Backend| {
            let mut m = Eia3::with_backend(&k16.into(), &iv16.into(), b).unwrap();
            Mac::update(&mut m, &data[..split]);
            let mut out = m.finalize_bits(&data[split..], bits - 8 * split).unwrap().to_vec();
            let mut m = Zuc256Mac32::with_backend(&key.into(), &iv.into(), b).unwrap();
            Mac::update(&mut m, &data[..split]);
            out.extend(m.finalize_bits(&data[split..], bits - 8 * split).unwrap());
            let mut m = Zuc256Mac64::with_backend(&key.into(), &iv.into(), b).unwrap();
            Mac::update(&mut m, &data[..split]);
            out.extend(m.finalize_bits(&data[split..], bits - 8 * split).unwrap());
            let mut m = Zuc256Mac128::with_backend(&key.into(), &iv.into(), b).unwrap();
            Mac::update(&mut m, &data[..split]);
            out.extend(m.finalize_bits(&data[split..], bits - 8 * split).unwrap());
            out
        };
        let soft = tags(Backend::Soft);
        for b in Backend::available() {
            prop_assert_eq!(&tags(b), &soft, "{}", b);
        }
    }
}
