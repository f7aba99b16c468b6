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

    /// The chain in steps (`cbc_steps`) writes what `cbc_chain_into` writes (every block's
    /// state, as far as `out` reaches, and the last state) on every engine, however many
    /// steps run before `finish` runs the rest: none, some inside a block, across blocks,
    /// past the end. It steps on `gfni-avx512` only, and there it must have been tried.
    #[test]
    fn stepped_chain_equals_chain(
        key in any::<[u8; 16]>(),
        iv in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<[u8; 16]>(), 0..40),
        short in 0usize..3,
        stepped in 0usize..340,
    ) {
        let blocks: Vec<Block<Sm4>> = data.iter().map(|b| (*b).into()).collect();
        let outs = blocks.len().saturating_sub(short);
        let mut tried = false;
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut want_state = Block::<Sm4>::from(iv);
            let mut want = vec![Block::<Sm4>::default(); outs];
            let mut out = vec![Block::<Sm4>::default(); outs];
            c.cbc_chain_into(&mut want_state, &blocks, &mut want);
            let (mut steps, mut at) = c.cbc_steps(iv.into(), &blocks, &mut out);
            prop_assert_eq!(steps.stepping(), backend.name() == "gfni-avx512", "{:?}", backend);
            tried |= steps.stepping();
            for _ in 0..stepped {
                steps.step(&mut at);
            }
            let state = steps.finish(at);
            prop_assert_eq!((&out, state), (&want, want_state), "{:?}", backend);
        }
        prop_assert_eq!(tried, Backend::available().any(|b| b.name() == "gfni-avx512"));
    }
}
