//! The map from a single-stream [`Backend`] to its code: the [`Kernel`] trait that every
//! backend's code implements and the one `match` (`run`) from an [`Available`](shangmi_dispatch::Available) backend to
//! its kernel. Every backend computes the same function (`tests/engines.rs` checks each
//! available one against the portable one); the choice only changes speed.
//!
//! A kernel is a zero-sized token: [`Soft`] is free to make, every other kernel only from
//! an `Available` backend of its own kind (`shangmi_dispatch::kernel_token!`), so holding
//! one proves that its CPU features are present. The generator's rounds (`State`'s
//! `*_with` functions) and the MAC's word loop are generic over the token's [`Ops`] (its
//! S-boxes and the MAC's window sum), all in `generic`, below this module; a kernel's entry
//! points run them under its target features, where the token's operations inline.

use crate::{
    Backend,
    generic::{Engine, Ops, State},
    sbox,
};

/// One backend's code. Implementations are zero-sized tokens that prove the backend runs
/// here, so the methods are safe; a SIMD kernel overrides each with an entry compiled for
/// its features around the same generic code.
pub(crate) trait Kernel: Ops {
    /// Key loading's initialisation rounds.
    #[inline(always)]
    fn initialise(self, state: &mut State) {
        state.initialise_with(self);
    }

    /// One key word.
    #[inline(always)]
    fn next_word(self, state: &mut State) -> u32 {
        state.next_word_with(self)
    }

    /// Key words, big-endian.
    #[inline(always)]
    fn fill(self, state: &mut State, out: &mut [[u8; 4]]) {
        state.fill_with(self, out);
    }

    /// The MAC over whole message words.
    #[inline(always)]
    fn mac_words<const N: usize>(self, engine: &mut Engine<N>, words: &[[u8; 4]]) {
        engine.absorb_words_with(self, words);
    }

    /// The MAC over the first `bits` (1..=32) bits of one message word.
    #[inline(always)]
    fn mac_bits<const N: usize>(self, engine: &mut Engine<N>, m: u32, bits: u32) {
        engine.absorb_bits_with(self, m, bits);
    }
}

/// The portable kernel: S-boxes as boolean circuits on bit planes, the MAC bit by bit.
#[derive(Clone, Copy)]
pub(crate) struct Soft;

impl Ops for Soft {
    #[inline(always)]
    fn sbox_pair(self, u: u32, v: u32) -> (u32, u32) {
        sbox::sbox_pair(u, v)
    }
}

impl Kernel for Soft {}

// `Call` and `run`: the one match from an `Available` backend to its kernel.
shangmi_dispatch::kernel_dispatch! {
    kernel Kernel, portable Soft, family Backend;
    #[cfg(target_arch = "x86_64")]
    x86::{GfniAvx512, AesniSse},
}

/// One [`Call`] per kernel operation: a struct of the operation's arguments whose `call`
/// hands them to the [`Kernel`] method of the same name.
macro_rules! calls {
    ($($Name:ident $(<const $N:ident>)? ($($arg:ident: $T:ty),+) => $Out:ty = $method:ident;)*) => {$(
        #[doc = concat!("[`Kernel::", stringify!($method), "`].")]
        pub(crate) struct $Name<'a $(, const $N: usize)?>($(pub(crate) $T),+);
        impl<'a $(, const $N: usize)?> Call for $Name<'a $(, $N)?> {
            type Output = $Out;
            #[inline(always)]
            fn call<K: Kernel>(self, k: K) -> Self::Output {
                let Self($($arg),+) = self;
                k.$method($($arg),+)
            }
        }
    )*};
}

calls! {
    Initialise(state: &'a mut State) => () = initialise;
    NextWord(state: &'a mut State) => u32 = next_word;
    Fill(state: &'a mut State, out: &'a mut [[u8; 4]]) => () = fill;
    MacWords<const N>(engine: &'a mut Engine<N>, words: &'a [[u8; 4]]) => () = mac_words;
    MacBits<const N>(engine: &'a mut Engine<N>, m: u32, bits: u32) => () = mac_bits;
}
