//! `Sm4::apply_ctr_and_encrypt` on every engine equals `Sm4::apply_ctr` followed by
//! `encrypt_block`: the extra block rides along the first wide step of the counter stream
//! on the SIMD engines, so the lengths cluster around the steps' edges (0 to 3 passes of 64
//! blocks, a few blocks either side, partial final blocks) and the counter around the
//! 32-bit wrap. `Sm4::apply_ctr_hooked` equals counter mode too, and shows its hook every
//! step with the blocks its contract promises.

use proptest::prelude::*;
use shangmi_dispatch::{Available, ghash::Backend as GhashBackend};
use shangmi_sm4::{
    Backend, CtrFlavor, CtrHook, HOOK_BLOCKS, Sm4,
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
fn ctr_and_encrypt_at_every_step_of_the_ladder() {
    let c0 = [0x5au8; 16];
    for backend in Backend::available() {
        let c = Sm4::with_backend(&[3u8; 16].into(), backend).expect("available");
        // Every count up to one wide step and a little more (the block rides whichever
        // step of the ladder comes first), then the edges of later steps.
        for blocks in (0usize..=72).chain([127, 128, 129, 192]) {
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

/// Records what [`Sm4::apply_ctr_hooked`] shows its hook: every step, in order, with the
/// blocks it was given. Optionally claims the VPCLMULQDQ proof, so that `gfni-avx512` runs
/// the steps between its rounds.
struct Recorder {
    clmul: Option<Available<GhashBackend>>,
    seen: Vec<Seen>,
}

/// One step as the hook saw it: `i`, `prev`, `cur`, `between_rounds`.
type Seen = (usize, Vec<Block<Sm4>>, Vec<Block<Sm4>>, bool);

impl CtrHook for Recorder {
    fn step(&mut self, i: usize, prev: &[Block<Sm4>], cur: &[Block<Sm4>], between_rounds: bool) {
        self.seen
            .push((i, prev.to_vec(), cur.to_vec(), between_rounds));
    }
    fn clmul(&self) -> Option<Available<GhashBackend>> {
        self.clmul
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// On every engine, with and without the proof: the output is counter mode on the whole
    /// steps (the rest untouched), the block is encrypted, and for each step the hook saw
    /// steps 0 to 7 in order, the previous step's output and this step's input.
    #[test]
    fn hooked_ctr_equals_ctr_and_shows_each_step(
        key in any::<[u8; 16]>(),
        start in counter(),
        blocks in 0usize..=4 * HOOK_BLOCKS + 5,
        with_block in any::<bool>(),
    ) {
        let data: Vec<Block<Sm4>> =
            (0..blocks).map(|i| Block::<Sm4>::from([(i * 7 + 1) as u8; 16])).collect();
        let whole = blocks / HOOK_BLOCKS * HOOK_BLOCKS;
        let proofs: Vec<_> = [None]
            .into_iter()
            .chain(Available::<GhashBackend>::check(GhashBackend::VpclmulqdqAvx512).map(Some))
            .collect();
        for backend in Backend::available() {
            let c = Sm4::with_backend(&key.into(), backend).expect("available");
            let mut want = data.clone();
            let mut want_ctr = start;
            c.apply_ctr(
                CtrFlavor::Be32,
                &mut want_ctr,
                Block::<Sm4>::slice_as_flattened_mut(&mut want[..whole]),
            );
            let mut want_block = Block::<Sm4>::from([0x33; 16]);
            c.encrypt_block(&mut want_block);
            for &clmul in &proofs {
                let mut got = data.clone();
                let mut got_ctr = start;
                let mut block = Block::<Sm4>::from([0x33; 16]);
                let hook = Recorder { clmul, seen: Vec::new() };
                let hook = c.apply_ctr_hooked(
                    &mut got_ctr,
                    &mut got,
                    hook,
                    with_block.then_some(&mut block),
                );
                let tag = format!("{backend}, proof {}, {blocks} blocks", clmul.is_some());
                prop_assert_eq!(&got, &want, "{}", tag);
                prop_assert_eq!(got_ctr, want_ctr, "{}", tag);
                if with_block {
                    prop_assert_eq!(block, want_block, "{}", tag);
                }
                prop_assert_eq!(hook.seen.len(), whole / HOOK_BLOCKS * 8, "{}", tag);
                for (n, (i, prev, cur, _)) in hook.seen.iter().enumerate() {
                    let step = n / 8;
                    prop_assert_eq!(*i, n % 8, "{}", tag);
                    let at = step * HOOK_BLOCKS;
                    prop_assert_eq!(&cur[..], &data[at..at + HOOK_BLOCKS], "{} cur", tag);
                    let before = &want[at.saturating_sub(HOOK_BLOCKS)..at];
                    prop_assert_eq!(&prev[..], before, "{} prev", tag);
                }
                // The gfni-avx512 engine runs them between its rounds when given the proof.
                let between = hook.seen.iter().any(|s| s.3);
                prop_assert_eq!(
                    between,
                    clmul.is_some() && backend == Backend::GfniAvx512 && whole > 0,
                    "{}", tag
                );
            }
        }
    }
}
