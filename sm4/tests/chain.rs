//! `Sm4::cbc_chain` (the CBC-MAC / CBC-encryption chain) on every engine against a loop of
//! single-block encryptions on the soft engine.

use proptest::prelude::*;
use shangmi_sm4::{
    Backend, Sm4,
    cipher::{Block, BlockCipherEncrypt},
};

fn reference(key: &[u8; 16], iv: [u8; 16], blocks: &[Block<Sm4>]) -> Block<Sm4> {
    let soft = Sm4::with_backend(&(*key).into(), Backend::Soft).expect("soft always runs");
    let mut state = Block::<Sm4>::from(iv);
    for b in blocks {
        for (s, b) in state.iter_mut().zip(b.iter()) {
            *s ^= b;
        }
        soft.encrypt_block(&mut state);
    }
    state
}

proptest! {
    #[test]
    fn every_engine_chains_like_single_blocks(
        key in any::<[u8; 16]>(),
        iv in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<[u8; 16]>(), 0..40),
    ) {
        let blocks: Vec<Block<Sm4>> = data.iter().map(|b| (*b).into()).collect();
        let expected = reference(&key, iv, &blocks);
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut state = Block::<Sm4>::from(iv);
            c.cbc_chain(&mut state, &blocks);
            prop_assert_eq!(state, expected, "{:?}", backend);
        }
    }
}
