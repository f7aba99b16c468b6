//! Differential tests against RustCrypto's independent `sm4` crate: ECB on random keys and
//! block counts, and the fused counter mode `Sm4::apply_ctr` against RustCrypto's `ctr`
//! over that `sm4`, for every engine, length and counter (including counters about to
//! wrap).

use cipher::{KeyIvInit, StreamCipher};
use proptest::prelude::*;
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Array, BlockCipherEncrypt, KeyInit},
};

type RefCtr128 = ctr::Ctr128BE<rustcrypto_sm4::Sm4>;
type RefCtr32 = ctr::Ctr32BE<rustcrypto_sm4::Sm4>;

fn reference(flavor: CtrFlavor, key: &[u8; 16], counter: &[u8; 16], data: &mut [u8]) {
    match flavor {
        CtrFlavor::Be128 => RefCtr128::new(key.into(), counter.into()).apply_keystream(data),
        CtrFlavor::Be32 => RefCtr32::new(key.into(), counter.into()).apply_keystream(data),
    }
}

fn flavor() -> impl Strategy<Value = CtrFlavor> {
    prop_oneof![Just(CtrFlavor::Be128), Just(CtrFlavor::Be32)]
}

/// Counters with the low word (and sometimes all 128 bits) close to wrapping.
fn counter() -> impl Strategy<Value = [u8; 16]> {
    (
        any::<[u8; 16]>(),
        0u32..300,
        prop_oneof![Just(0u8), Just(1), Just(2)],
    )
        .prop_map(|(mut c, back, kind)| {
            if kind >= 1 {
                c[12..].copy_from_slice(&0u32.wrapping_sub(back).to_be_bytes());
            }
            if kind == 2 {
                c[..12].fill(0xff);
            }
            c
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// ECB on 1..=200 blocks of random data, every engine.
    #[test]
    fn diff_rustcrypto_ecb(key in any::<[u8; 16]>(), data in proptest::collection::vec(any::<[u8; 16]>(), 1..=200)) {
        let mut want: Vec<_> = data.iter().map(|b| Array::from(*b)).collect();
        rustcrypto_sm4::Sm4::new(&key.into()).encrypt_blocks(&mut want);
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut got: Vec<_> = data.iter().map(|b| Array::from(*b)).collect();
            c.encrypt_blocks(&mut got);
            prop_assert_eq!(&got, &want, "{}", backend);
        }
    }

    #[test]
    fn diff_rustcrypto_ctr(flavor in flavor(), key in any::<[u8; 16]>(), start in counter(), len in 0usize..3000, split in 0usize..3000) {
        let data: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
        let mut want = data.clone();
        reference(flavor, &key, &start, &mut want);
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            // One call.
            let mut got = data.clone();
            let mut ctr = start;
            c.apply_ctr(flavor, &mut ctr, &mut got);
            prop_assert_eq!(&got, &want, "{} one call", backend);
            // Two calls split at a block boundary continue the same stream.
            let cut = (split.min(len) / 16) * 16;
            let mut got = data.clone();
            let mut ctr = start;
            let (a, b) = got.split_at_mut(cut);
            c.apply_ctr(flavor, &mut ctr, a);
            c.apply_ctr(flavor, &mut ctr, b);
            prop_assert_eq!(&got, &want, "{} split at {}", backend, cut);
        }
    }
}
