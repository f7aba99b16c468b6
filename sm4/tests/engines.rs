//! Every engine equals the portable one on random keys and block counts, whole buffers,
//! buffer to buffer, block by block and back (the differential tests against RustCrypto
//! and OpenSSL are `diff_*.rs`).

use proptest::prelude::*;
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Array, Block, BlockCipherDecrypt, BlockCipherEncrypt},
};

fn to_blocks(data: &[u8]) -> Vec<Block<Sm4>> {
    data.chunks_exact(16)
        .map(|c| Array::try_from(c).expect("16 bytes"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_engine_equals_soft(key in any::<[u8; 16]>(), nblocks in 1usize..=200, seed in any::<u64>()) {
        let mut data = vec![0u8; nblocks * 16];
        let mut s = seed;
        for b in data.iter_mut() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            *b = (s >> 56) as u8;
        }
        let soft = Sm4::with_backend(&key.into(), Backend::Soft).expect("soft is always there");
        let mut want = to_blocks(&data);
        soft.encrypt_blocks(&mut want);
        let want = want.concat();

        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            // Whole buffer in one call (parallel path plus tail).
            let mut blocks = to_blocks(&data);
            c.encrypt_blocks(&mut blocks);
            prop_assert_eq!(&blocks.concat(), &want, "{} bulk", backend);
            // Out-of-place.
            let input = to_blocks(&data);
            let mut out = to_blocks(&data);
            c.encrypt_blocks_b2b(&input, &mut out).expect("same lengths");
            prop_assert_eq!(&out.concat(), &want, "{} b2b", backend);
            // One block at a time.
            let mut single = to_blocks(&data);
            for b in single.iter_mut() {
                c.encrypt_block(b);
            }
            prop_assert_eq!(&single.concat(), &want, "{} single", backend);
            // And back.
            c.decrypt_blocks(&mut blocks);
            prop_assert_eq!(&blocks.concat(), &data, "{} decrypt", backend);
        }
    }
}

/// Every block count a short pass takes, and a little more, on every engine against the
/// portable one: ECB both ways and counter mode, with a counter that wraps its last word
/// inside the run (the SIMD engines run up to sixteen blocks as one or two groups of
/// narrower registers, `gfni-avx512` on its own round).
#[test]
fn every_engine_equals_soft_at_every_short_count() {
    let key = [0x3cu8; 16];
    let soft = Sm4::with_backend(&key.into(), Backend::Soft).expect("soft is always there");
    let mut start = [0x77u8; 16];
    start[12..].copy_from_slice(&(u32::MAX - 6).to_be_bytes());
    for n in 0usize..=40 {
        let data: Vec<u8> = (0..n * 16).map(|i| (i * 37 + n) as u8).collect();
        let mut want = to_blocks(&data);
        soft.encrypt_blocks(&mut want);
        let mut want_ctr = data.clone();
        let mut want_counter = start;
        soft.apply_ctr(CtrFlavor::Be32, &mut want_counter, &mut want_ctr);
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut blocks = to_blocks(&data);
            c.encrypt_blocks(&mut blocks);
            assert_eq!(blocks, want, "{backend} encrypt, {n} blocks");
            let mut out = vec![Block::<Sm4>::default(); n];
            c.encrypt_blocks_b2b(&to_blocks(&data), &mut out)
                .expect("same lengths");
            assert_eq!(out, want, "{backend} encrypt buffer to buffer, {n} blocks");
            c.decrypt_blocks(&mut blocks);
            assert_eq!(blocks.concat(), data, "{backend} decrypt, {n} blocks");
            let mut got = data.clone();
            let mut counter = start;
            c.apply_ctr(CtrFlavor::Be32, &mut counter, &mut got);
            assert_eq!(got, want_ctr, "{backend} counter mode, {n} blocks");
            assert_eq!(counter, want_counter, "{backend} counter, {n} blocks");
        }
    }
}
