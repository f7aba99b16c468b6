//! The padding methods of GB/T 15852.1-2020 (ISO/IEC 9797-1:2011) §6.3: how the last,
//! partial or whole, block of a message becomes one or two final blocks.

use cipher::Block;
use shangmi_sm4::Sm4;

/// A padding method of GB/T 15852.1-2020: [`Padding1`], [`Padding2`], [`Padding3`] for
/// MAC algorithms 1–4 and 6, [`Padding4`] built into algorithms 7 and 8. Sealed.
pub trait Padding: sealed::Sealed + Clone + 'static {
    /// The method's name, as `AlgorithmName` shows it.
    const NAME: &'static str;
    /// Bit of this method in [`Algorithm::PADDINGS`](super::Algorithm::PADDINGS).
    #[doc(hidden)]
    const BIT: u8;
    /// The final block(s) for the message's unprocessed tail (0 to 16 bytes; 0 only for
    /// the empty message, 16 when the message ends on a block boundary).
    #[doc(hidden)]
    fn last_blocks(tail: &[u8]) -> LastBlocks;
}

/// The final one or two padded blocks, and whether padding was added.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct LastBlocks {
    pub(super) blocks: [Block<Sm4>; 2],
    pub(super) count: usize,
    pub(super) padded: bool,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Padding1 {}
    impl Sealed for super::Padding2 {}
    impl Sealed for super::Padding3 {}
    impl Sealed for super::Padding4 {}
}

/// Padding method 1: zero bits up to a positive multiple of the block length (the empty
/// message becomes one zero block; a message on a block boundary is not padded).
#[derive(Clone, Copy, Debug)]
pub struct Padding1;

/// Padding method 2: a 1 bit, then zero bits up to a multiple of the block length (always
/// padded: a message on a block boundary gains a block 80 00 … 00).
#[derive(Clone, Copy, Debug)]
pub struct Padding2;

/// Padding method 3: a first block holding the message length in bits (big-endian), then
/// the message padded as by method 1. The length must be known before the message, so
/// these MACs are made by `new_with_len` rather than `KeyInit`.
#[derive(Clone, Copy, Debug)]
pub struct Padding3;

/// Padding method 4: a 1 bit and zero bits only when the message is empty or not on a block
/// boundary; MAC algorithms 7 (TrCBC) and 8 (CBCR) take it and treat padded and unpadded
/// messages differently.
#[derive(Clone, Copy, Debug)]
pub struct Padding4;

/// `tail` followed by `marker` (0x80 or 0) and zeros, as one block.
fn filled(tail: &[u8], marker: u8) -> Block<Sm4> {
    let mut b = Block::<Sm4>::default();
    b[..tail.len()].copy_from_slice(tail);
    if let Some(m) = b.get_mut(tail.len()) {
        *m = marker;
    }
    b
}

fn one(block: Block<Sm4>, padded: bool) -> LastBlocks {
    LastBlocks {
        blocks: [block, Block::<Sm4>::default()],
        count: 1,
        padded,
    }
}

impl Padding for Padding1 {
    const NAME: &'static str = "padding 1";
    const BIT: u8 = 1;
    fn last_blocks(tail: &[u8]) -> LastBlocks {
        one(filled(tail, 0), tail.len() < 16)
    }
}

impl Padding for Padding2 {
    const NAME: &'static str = "padding 2";
    const BIT: u8 = 2;
    fn last_blocks(tail: &[u8]) -> LastBlocks {
        if tail.len() == 16 {
            LastBlocks {
                blocks: [filled(tail, 0), filled(&[], 0x80)],
                count: 2,
                padded: true,
            }
        } else {
            one(filled(tail, 0x80), true)
        }
    }
}

impl Padding for Padding3 {
    const NAME: &'static str = "padding 3";
    const BIT: u8 = 4;
    fn last_blocks(tail: &[u8]) -> LastBlocks {
        Padding1::last_blocks(tail)
    }
}

impl Padding for Padding4 {
    const NAME: &'static str = "padding 4";
    const BIT: u8 = 8;
    fn last_blocks(tail: &[u8]) -> LastBlocks {
        one(filled(tail, 0x80), tail.len() < 16)
    }
}
