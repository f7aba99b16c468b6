//! `Sm4::apply_ctr_and_encrypt` on every engine equals `Sm4::apply_ctr` followed by
//! `encrypt_block`: the extra block rides along the first wide step of the counter stream
//! on the SIMD engines, so the lengths cluster around the steps' edges (0 to 3 passes of 64
//! blocks, a few blocks either side, partial final blocks) and the counter around the
//! 32-bit wrap.

use proptest::prelude::*;
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Block, BlockCipherEncrypt},
};

fn flavor() -> impl Strategy<Value = CtrFlavor> {
    prop_oneof![Just(CtrFlavor::Be32), Just(CtrFlavor::Be128)]
}

/// A counter block whose last word is random or a few blocks before the 32-bit wrap.
fn counter() -> impl Strategy<Value = [u8; 16]> {
    (any::<[u8; 16]>(), any::<bool>(), 0u32..200).prop_map(|(mut c, near_wrap, before)| {
        if near_wrap {
            c[12..].copy_from_slice(&0u32.wrapping_sub(before).to_be_bytes());
        }
        c
    })
}

/// Lengths in bytes: 0 to 3 passes of 64 blocks, up to 5 blocks either side, plus 0 to 15
/// bytes of a partial block.
fn length() -> impl Strategy<Value = usize> {
    (0usize..=3, -5isize..=5, 0usize..16)
        .prop_map(|(passes, d, extra)| ((passes * 64).saturating_add_signed(d)) * 16 + extra)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn ctr_and_encrypt_equals_ctr_then_encrypt_block(
        flavor in flavor(),
        key in any::<[u8; 16]>(),
        start in counter(),
        len in length(),
        block in any::<[u8; 16]>(),
    ) {
        let data: Vec<u8> = (0..len).map(|i| (i * 131 + 7) as u8).collect();
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut want = data.clone();
            let mut want_ctr = start;
            c.apply_ctr(flavor, &mut want_ctr, &mut want);
            let mut want_block = Block::<Sm4>::from(block);
            c.encrypt_block(&mut want_block);

            let mut got = data.clone();
            let mut got_ctr = start;
            let mut got_block = Block::<Sm4>::from(block);
            c.apply_ctr_and_encrypt(flavor, &mut got_ctr, &mut got, &mut got_block);
            prop_assert_eq!(&got, &want, "{} keystream, len {}", backend, len);
            prop_assert_eq!(got_ctr, want_ctr, "{} counter, len {}", backend, len);
            prop_assert_eq!(got_block, want_block, "{} block, len {}", backend, len);
        }
    }
}

/// The block takes the wide step's side lane on the SIMD engines exactly when the data has
/// a whole step: one pass of 64 blocks and the lengths around it, on every engine.
#[test]
fn ctr_and_encrypt_at_the_step_edges() {
    let c0 = [0x5au8; 16];
    for backend in Backend::available() {
        let c = Sm4::with_backend(&[3u8; 16].into(), backend).expect("available");
        for blocks in [
            0usize, 1, 3, 4, 15, 16, 31, 32, 63, 64, 65, 127, 128, 129, 192,
        ] {
            let data = vec![0xa5u8; blocks * 16];
            let mut want = data.clone();
            let mut want_ctr = c0;
            c.apply_ctr(CtrFlavor::Be32, &mut want_ctr, &mut want);
            let mut want_block = Block::<Sm4>::from([blocks as u8; 16]);
            c.encrypt_block(&mut want_block);

            let mut got = data;
            let mut got_ctr = c0;
            let mut got_block = Block::<Sm4>::from([blocks as u8; 16]);
            c.apply_ctr_and_encrypt(CtrFlavor::Be32, &mut got_ctr, &mut got, &mut got_block);
            assert_eq!(got, want, "{backend} keystream, {blocks} blocks");
            assert_eq!(got_ctr, want_ctr, "{backend} counter, {blocks} blocks");
            assert_eq!(got_block, want_block, "{backend} block, {blocks} blocks");
        }
    }
}
