//! `Sm4::cbc_chain` (the CBC-MAC / CBC-encryption chain) on every engine against a loop of
//! single-block encryptions on the soft engine.

use proptest::prelude::*;
use shangmi_sm4::{
    Backend, ChainHook, Sm4,
    cipher::{Block, BlockCipherEncrypt},
};

/// Counts its steps.
struct Count(usize);

impl ChainHook for Count {
    fn step(&mut self) {
        self.0 += 1;
    }
}

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

    /// `cbc_chain_hooked` writes what `cbc_chain_into` writes (every block's state, as far
    /// as `out` reaches, and the last state) on every engine, and steps the hook four times
    /// a block where it runs between the rounds (`gfni-avx512`), never elsewhere.
    #[test]
    fn hooked_chain_equals_chain(
        key in any::<[u8; 16]>(),
        iv in any::<[u8; 16]>(),
        data in proptest::collection::vec(any::<[u8; 16]>(), 0..40),
        short in 0usize..3,
    ) {
        let blocks: Vec<Block<Sm4>> = data.iter().map(|b| (*b).into()).collect();
        let outs = blocks.len().saturating_sub(short);
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let (mut want_state, mut state) = (Block::<Sm4>::from(iv), Block::<Sm4>::from(iv));
            let mut want = vec![Block::<Sm4>::default(); outs];
            let mut out = vec![Block::<Sm4>::default(); outs];
            c.cbc_chain_into(&mut want_state, &blocks, &mut want);
            let count = c.cbc_chain_hooked(&mut state, &blocks, &mut out, Count(0));
            prop_assert_eq!((&out, state), (&want, want_state), "{:?}", backend);
            // Four a block but the last (which runs without them) on gfni-avx512.
            let hooked = 4 * blocks.len().saturating_sub(1);
            let steps = if backend.name() == "gfni-avx512" { hooked } else { 0 };
            prop_assert_eq!(count.0, steps, "{:?}", backend);
        }
    }
}
