//! Every S-box engine available on this machine gives the portable engine's keystream
//! (ZUC-128 and ZUC-256, random keys, IVs and lengths, and through seeking).
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shangmi_zuc::{
    Backend, Eea3Packet, Eia3, Error, ManyEngine, Zuc128, Zuc128Core, Zuc128Job, Zuc256Core,
    Zuc256Mac32, Zuc256Mac64, Zuc256Mac128, apply_keystream_many_on,
    cipher::{KeyIvInit, StreamCipher, StreamCipherCoreWrapper, StreamCipherSeek},
    digest::Mac,
    eea3, eea3_many, eea3_many_on,
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
    println!("available: {all:?}, best {}", Backend::best());
    assert!(all.contains(&Backend::Soft));
    assert_eq!(Backend::best(), all[0]);
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every many-message engine gives each job the single-stream keystream: 0 to 20 jobs
    /// (groups of eight and a remainder), each with its own key, IV and length (0 to 300
    /// bytes, so lanes end at different words and mid-word).
    #[test]
    fn many_engines_equal_single_streams(
        jobs in proptest::collection::vec(
            (any::<[u8; 16]>(), any::<[u8; 16]>(), proptest::collection::vec(any::<u8>(), 0..300)),
            0..20,
        ),
    ) {
        let expect: Vec<Vec<u8>> = jobs
            .iter()
            .map(|(k, iv, d)| {
                let mut d = d.clone();
                Zuc128::new(&(*k).into(), &(*iv).into()).apply_keystream(&mut d);
                d
            })
            .collect();
        for engine in ManyEngine::available() {
            let mut data: Vec<Vec<u8>> = jobs.iter().map(|(_, _, d)| d.clone()).collect();
            let mut many: Vec<Zuc128Job<'_>> = jobs
                .iter()
                .zip(data.iter_mut())
                .map(|((key, iv, _), d)| Zuc128Job { key: *key, iv: *iv, data: d })
                .collect();
            apply_keystream_many_on(&mut many, engine);
            prop_assert_eq!(&data, &expect, "{}", engine);
        }
    }

    /// 128-EEA3 packets at once equal `eea3` one by one, bit lengths included.
    #[test]
    fn eea3_many_equals_eea3(
        packets in proptest::collection::vec(
            (any::<[u8; 16]>(), any::<u32>(), 0u8..32, 0u8..2,
             proptest::collection::vec(any::<u8>(), 1..200), 0usize..8),
            1..12,
        ),
    ) {
        let expect: Vec<Vec<u8>> = packets
            .iter()
            .map(|(ck, count, bearer, direction, d, cut)| {
                let mut d = d.clone();
                let bits = 8 * d.len() - cut;
                eea3(ck, *count, *bearer, *direction, &mut d, bits).unwrap();
                d
            })
            .collect();
        for engine in ManyEngine::available() {
            let mut data: Vec<Vec<u8>> = packets.iter().map(|p| p.4.clone()).collect();
            let mut many: Vec<Eea3Packet<'_>> = packets
                .iter()
                .zip(data.iter_mut())
                .map(|((ck, count, bearer, direction, _, cut), d)| {
                    let bit_len = 8 * d.len() - cut;
                    Eea3Packet { ck: *ck, count: *count, bearer: *bearer, direction: *direction, data: d, bit_len }
                })
                .collect();
            eea3_many_on(&mut many, engine).unwrap();
            prop_assert_eq!(&data, &expect, "{}", engine);
        }
    }
}

/// A bad packet anywhere refuses the whole batch before any data changes.
#[test]
fn eea3_many_checks_every_packet_first() {
    let (mut a, mut b) = ([7u8; 16], [9u8; 16]);
    for (bearer, direction, bits, err) in [
        (32u8, 0u8, 128usize, Error::Bearer),
        (1, 2, 128, Error::Direction),
        (1, 0, 120, Error::BitLength),
    ] {
        let mut packets = [
            Eea3Packet {
                ck: [1; 16],
                count: 1,
                bearer: 1,
                direction: 0,
                data: &mut a,
                bit_len: 128,
            },
            Eea3Packet {
                ck: [1; 16],
                count: 1,
                bearer,
                direction,
                data: &mut b,
                bit_len: bits,
            },
        ];
        assert_eq!(eea3_many(&mut packets), Err(err));
        assert_eq!((a, b), ([7u8; 16], [9u8; 16]));
    }
}
