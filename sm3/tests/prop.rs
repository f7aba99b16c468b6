//! Property tests: streaming = one-shot, every engine = soft, multi-buffer = single
//! stream (the differential tests against RustCrypto and OpenSSL are `diff_*.rs`).

// Test and measurement code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shangmi_sm3::{Backend, Digest, Sm3, hazmat};

fn soft(msg: &[u8]) -> [u8; 32] {
    Sm3::with_backend(Backend::Soft)
        .unwrap()
        .chain_update(msg)
        .finalize()
        .into()
}

fn on(backend: Backend, msg: &[u8]) -> [u8; 32] {
    Sm3::with_backend(backend)
        .unwrap()
        .chain_update(msg)
        .finalize()
        .into()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any split of the input through `update` gives the one-shot digest, on every engine.
    #[test]
    fn any_split_equals_one_shot(
        data in proptest::collection::vec(any::<u8>(), 0..1500),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let one_shot = soft(&data);
        let mut points: Vec<usize> = cuts.iter().map(|c| c.index(data.len() + 1)).collect();
        points.sort_unstable();
        for b in Backend::available() {
            let mut h = Sm3::with_backend(b).unwrap();
            let mut start = 0;
            for &p in &points {
                h.update(&data[start..p]);
                start = p;
            }
            h.update(&data[start..]);
            prop_assert_eq!(<[u8; 32]>::from(h.finalize()), one_shot, "engine {}", b);
        }
    }

    /// Every engine's compression function equals soft's on random states and blocks.
    #[test]
    fn every_engine_compress_equals_soft(
        state in any::<[u32; 8]>(),
        data in proptest::collection::vec(any::<u8>(), 0..20).prop_map(|v| {
            // 0..20 blocks of random bytes derived from the seed vector
            let mut out = Vec::new();
            for (i, s) in v.iter().enumerate() {
                let mut block = [0u8; 64];
                for (j, b) in block.iter_mut().enumerate() {
                    *b = s.wrapping_mul(31).wrapping_add((i * 64 + j) as u8).rotate_left(j as u32 % 8);
                }
                out.push(block);
            }
            out
        }),
    ) {
        let mut expected = state;
        hazmat::compress(Backend::Soft, &mut expected, &data).unwrap();
        for b in Backend::available() {
            let mut s = state;
            hazmat::compress(b, &mut s, &data).unwrap();
            prop_assert_eq!(s, expected, "engine {}", b);
        }
    }

    /// The compression with a hook stepped between its groups of four rounds
    /// (`hazmat::compress_hooked`) equals soft's compression on every backend, and steps the
    /// hook sixteen times a block exactly where `hooks_step_on` says it does (the `avx512`
    /// backend), never elsewhere; where that backend runs, it must have been tried.
    #[test]
    fn hooked_equals_compress(
        state in any::<[u32; 8]>(),
        blocks in proptest::collection::vec(any::<[u8; 64]>(), 0..6),
    ) {
        /// Counts its steps.
        struct Count;
        impl hazmat::RoundsHook for Count {
            type State = usize;
            fn step(&mut self, n: &mut usize) {
                *n += 1;
            }
        }
        let mut expected = state;
        hazmat::compress(Backend::Soft, &mut expected, &blocks).unwrap();
        let mut stepped = false;
        for b in Backend::available() {
            let mut s = state;
            let mut count = 0;
            hazmat::compress_hooked(b, &mut s, &blocks, &mut Count, &mut count).unwrap();
            prop_assert_eq!(s, expected, "engine {}", b);
            let steps = hazmat::hooks_step_on(b);
            prop_assert_eq!(count, if steps { 16 * blocks.len() } else { 0 }, "engine {}", b);
            stepped |= steps;
        }
        prop_assert_eq!(stepped, Backend::available().any(|b| b.name() == "avx512"));
    }

    /// Every engine equals soft on random messages.
    #[test]
    fn every_engine_equals_soft(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
        let expected = soft(&data);
        for b in Backend::available() {
            prop_assert_eq!(on(b, &data), expected, "engine {}", b);
        }
    }

    /// Multi-buffer digests equal single-stream digests for random counts and lengths,
    /// on every engine.
    #[test]
    fn multi_buffer_equals_single_stream(
        msgs in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..700), 0..40),
    ) {
        let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
        let expected: Vec<[u8; 32]> = refs.iter().map(|m| soft(m)).collect();
        for b in Backend::available() {
            let mut out = vec![[0u8; 32]; refs.len()];
            hazmat::digest_many_with(b, &refs, &mut out).unwrap();
            prop_assert_eq!(&out, &expected, "engine {}", b);
        }
        let mut out = vec![[0u8; 32]; refs.len()];
        Sm3::digest_many_into(&refs, &mut out);
        prop_assert_eq!(&out, &expected);
    }

    /// The fixed-size multi-buffer call for the lane counts 4, 8 and 16.
    #[test]
    fn digest_many_arrays(
        m in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 16),
    ) {
        let r: Vec<&[u8]> = m.iter().map(|v| v.as_slice()).collect();
        let want: Vec<[u8; 32]> = r.iter().map(|x| soft(x)).collect();
        let a4: [&[u8]; 4] = r[..4].try_into().unwrap();
        prop_assert_eq!(Sm3::digest_many(&a4).to_vec(), want[..4].to_vec());
        let a8: [&[u8]; 8] = r[..8].try_into().unwrap();
        prop_assert_eq!(Sm3::digest_many(&a8).to_vec(), want[..8].to_vec());
        let a16: [&[u8]; 16] = r[..].try_into().unwrap();
        prop_assert_eq!(Sm3::digest_many(&a16).to_vec(), want);
    }
}

/// Multi-buffer with one long message among short ones (the single-stream finish path)
/// and with lengths at every padding boundary.
#[test]
fn multi_buffer_boundaries() {
    let lens = [
        0usize,
        1,
        55,
        56,
        63,
        64,
        65,
        119,
        120,
        127,
        128,
        129,
        10_000,
        3,
        64 * 17,
    ];
    let msgs: Vec<Vec<u8>> = lens
        .iter()
        .map(|&l| (0..l).map(|i| (i * 7 + l) as u8).collect())
        .collect();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    for b in Backend::available() {
        for count in 0..=refs.len() {
            let mut out = vec![[0u8; 32]; count];
            hazmat::digest_many_with(b, &refs[..count], &mut out).unwrap();
            for (m, d) in refs.iter().zip(&out) {
                assert_eq!(
                    *d,
                    soft(m),
                    "engine {b}, {count} messages, length {}",
                    m.len()
                );
            }
        }
    }
}

/// Only as many digests as the shorter of the two slices are written.
#[test]
fn digest_many_into_uses_the_shorter_slice() {
    let msgs: [&[u8]; 3] = [b"a", b"b", b"c"];
    let mut out = [[0xffu8; 32]; 2];
    Sm3::digest_many_into(&msgs, &mut out);
    assert_eq!(out[1], soft(b"b"));
    let mut out = [[0xffu8; 32]; 4];
    Sm3::digest_many_into(&msgs, &mut out);
    assert_eq!(out[2], soft(b"c"));
    assert_eq!(out[3], [0xff; 32]);
}
