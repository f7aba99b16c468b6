//! The keystream-window MACs: 128-EIA3 (3GPP "Document 1: 128-EEA3 and 128-EIA3
//! Specification" v1.7, section 4) and the ZUC-256 MAC ("The ZUC-256 Stream Cipher", 2018,
//! section 3). Both XOR into the tag, for every message bit i that is 1, the t-bit window
//! of keystream starting at bit i (after an offset), then the window at the message's bit
//! length; EIA3 starts from 0 and ends with one more key word, the ZUC-256 MAC starts from
//! the first t keystream bits.
//!
//! Every message bit selects its window through a mask (no branch on message or keystream).
//! The MAC state and its word loop are `generic`'s [`Engine`]; the methods here start it,
//! buffer partial words and run the loop on the generator's backend.

use core::marker::PhantomData;

use cipher::{
    Array, IvSizeUser, KeyIvInit, KeySizeUser,
    consts::{U4, U8, U16, U25, U32},
};
use digest::{FixedOutput, MacMarker, OutputSizeUser, Update};

use shangmi_dispatch::Available;

use crate::{
    Backend, BackendError, Error,
    engine::{MacBits, MacWords, run},
    generic::{Engine, State},
    state::D256,
};

/// A final partial byte and how many of its bits (1..=7) count.
type Partial = Option<(u8, u32)>;

impl<const N: usize> Engine<N> {
    /// `tag_from_keystream`: the ZUC-256 MAC's initial tag (the first N key words) rather
    /// than EIA3's zero.
    fn new(mut state: State, tag_from_keystream: bool) -> Self {
        let mut tag = [0u32; N];
        if tag_from_keystream {
            for t in tag.iter_mut() {
                *t = state.next_word();
            }
        }
        let mut window = [0u32; 5];
        for w in window.iter_mut().take(N + 1) {
            *w = state.next_word();
        }
        Self {
            state,
            tag,
            window,
            pending: [0; 4],
            pending_len: 0,
            words: 0,
        }
    }

    /// Absorbs full message words on the state's backend.
    fn absorb_words(&mut self, words: &[[u8; 4]]) {
        run(self.state.backend(), MacWords(self, words));
    }

    fn update(&mut self, mut data: &[u8]) {
        if self.pending_len > 0 {
            let take = (4 - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < 4 {
                return;
            }
            self.absorb_words(&[self.pending]);
            self.pending_len = 0;
        }
        let (words, rest) = data.as_chunks::<4>();
        self.absorb_words(words);
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// Ends the message with the pending bytes and, if given, `(byte, n)`: the first n
    /// (1..=7) bits of one more byte; returns (tag, the message length in bits mod 32).
    fn finish(&mut self, partial: Partial) -> ([u32; N], u32) {
        let mut bits = 8 * self.pending_len as u32;
        if let Some((byte, n)) = partial {
            // pending_len <= 3 here, so the byte fits.
            self.pending[self.pending_len] = byte;
            self.pending_len += 1;
            bits += n;
        }
        if bits > 0 {
            let mut b = [0u8; 4];
            b[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            run(
                self.state.backend(),
                MacBits(self, u32::from_be_bytes(b), bits),
            );
        }
        let last = self.window_at(bits);
        for (t, w) in self.tag.iter_mut().zip(last) {
            *t ^= w;
        }
        (self.tag, bits)
    }
}

/// Writes tag words big-endian.
fn tag_bytes<const N: usize, S: cipher::array::ArraySize>(tag: &[u32; N], out: &mut Array<u8, S>) {
    for (chunk, t) in out.chunks_exact_mut(4).zip(tag) {
        chunk.copy_from_slice(&t.to_be_bytes());
    }
}

/// Splits a bit-granular message into whole bytes and the bit count of a final partial
/// byte, checking that `msg` holds exactly `bit_len` bits rounded up to bytes.
fn split_bits(msg: &[u8], bit_len: usize) -> Result<(&[u8], Partial), Error> {
    if msg.len() != bit_len.div_ceil(8) {
        return Err(Error::BitLength);
    }
    let full = bit_len / 8;
    let rem = (bit_len % 8) as u32;
    Ok(if rem == 0 {
        (msg, None)
    } else {
        (&msg[..full], Some((msg[full], rem)))
    })
}

/// 128-EIA3, the 3GPP integrity algorithm (32-bit MAC over ZUC-128). As a `digest::Mac`
/// it takes whole bytes; [`Eia3::finalize_bits`] ends a message of any bit length.
/// The 16-byte IV comes from [`crate::eia3_iv`].
#[derive(Clone)]
pub struct Eia3 {
    engine: Engine<1>,
}

impl KeySizeUser for Eia3 {
    type KeySize = U16;
}

impl IvSizeUser for Eia3 {
    type IvSize = U16;
}

impl KeyIvInit for Eia3 {
    fn new(key: &Array<u8, U16>, iv: &Array<u8, U16>) -> Self {
        Self {
            engine: Engine::new(State::new_128(&key.0, &iv.0, Available::best()), false),
        }
    }
}

impl Eia3 {
    /// A MAC on a chosen backend (for tests and benchmarks; `new` picks the best).
    pub fn with_backend(
        key: &Array<u8, U16>,
        iv: &Array<u8, U16>,
        backend: Backend,
    ) -> Result<Self, BackendError> {
        let backend = Available::require(backend)?;
        Ok(Self {
            engine: Engine::new(State::new_128(&key.0, &iv.0, backend), false),
        })
    }

    /// A MAC for COUNT, BEARER (5 bits) and DIRECTION (1 bit) under the 16-byte key `ik`.
    pub fn with_params(
        ik: &[u8; 16],
        count: u32,
        bearer: u8,
        direction: u8,
    ) -> Result<Self, Error> {
        let iv = crate::eia3_iv(count, bearer, direction)?;
        Ok(Self::new(&Array(*ik), &Array(iv)))
    }

    /// Appends the first `bit_len` bits of `tail` (most significant bit of each byte first;
    /// `tail.len()` must be `bit_len` rounded up to bytes) and returns the MAC.
    pub fn finalize_bits(mut self, tail: &[u8], bit_len: usize) -> Result<[u8; 4], Error> {
        let (full, partial) = split_bits(tail, bit_len)?;
        self.engine.update(full);
        Ok(self.finish(partial))
    }

    fn finish(self, partial: Partial) -> [u8; 4] {
        let mut engine = self.engine;
        let (tag, bits) = engine.finish(partial);
        // T ^= z[L - 1] with L = ceil(LENGTH / 32) + 2: the window holds z[q], z[q + 1]
        // for q = floor(LENGTH / 32).
        let last = if bits == 0 {
            engine.window[1]
        } else {
            engine.state.next_word()
        };
        (tag[0] ^ last).to_be_bytes()
    }
}

impl Update for Eia3 {
    fn update(&mut self, data: &[u8]) {
        self.engine.update(data);
    }
}

impl OutputSizeUser for Eia3 {
    type OutputSize = U4;
}

impl FixedOutput for Eia3 {
    fn finalize_into(self, out: &mut digest::Output<Self>) {
        out.copy_from_slice(&self.finish(None));
    }
}

impl MacMarker for Eia3 {}

impl core::fmt::Debug for Eia3 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Eia3 { ... }")
    }
}

pub(crate) mod sealed {
    /// The ZUC-256 MAC tag sizes.
    pub trait TagSize {
        /// Tag words.
        const WORDS: usize;
        /// Row of the d constants.
        const D_ROW: usize;
    }
}

/// A ZUC-256 MAC tag size: [`U4`], [`U8`] or [`U16`] bytes.
pub trait TagSize: sealed::TagSize + cipher::array::ArraySize {}

impl sealed::TagSize for U4 {
    const WORDS: usize = 1;
    const D_ROW: usize = 1;
}
impl sealed::TagSize for U8 {
    const WORDS: usize = 2;
    const D_ROW: usize = 2;
}
impl sealed::TagSize for U16 {
    const WORDS: usize = 4;
    const D_ROW: usize = 3;
}
impl TagSize for U4 {}
impl TagSize for U8 {}
impl TagSize for U16 {}

#[derive(Clone)]
enum AnyEngine {
    W1(Engine<1>),
    W2(Engine<2>),
    W4(Engine<4>),
}

/// The ZUC-256 MAC with a `T`-byte tag (4, 8 or 16: [`Zuc256Mac32`], [`Zuc256Mac64`],
/// [`Zuc256Mac128`]); 32-byte key, 25-byte IV as for [`crate::Zuc256`]. As a `digest::Mac`
/// it takes whole bytes; [`Zuc256Mac::finalize_bits`] ends a message of any bit length.
#[derive(Clone)]
pub struct Zuc256Mac<T: TagSize> {
    engine: AnyEngine,
    size: PhantomData<T>,
}

/// The ZUC-256 MAC with a 32-bit tag.
pub type Zuc256Mac32 = Zuc256Mac<U4>;
/// The ZUC-256 MAC with a 64-bit tag.
pub type Zuc256Mac64 = Zuc256Mac<U8>;
/// The ZUC-256 MAC with a 128-bit tag.
pub type Zuc256Mac128 = Zuc256Mac<U16>;

impl<T: TagSize> KeySizeUser for Zuc256Mac<T> {
    type KeySize = U32;
}

impl<T: TagSize> IvSizeUser for Zuc256Mac<T> {
    type IvSize = U25;
}

impl<T: TagSize> KeyIvInit for Zuc256Mac<T> {
    fn new(key: &Array<u8, U32>, iv: &Array<u8, U25>) -> Self {
        Self::on(key, iv, Available::best())
    }
}

impl<T: TagSize> Zuc256Mac<T> {
    fn on(key: &Array<u8, U32>, iv: &Array<u8, U25>, backend: Available<Backend>) -> Self {
        let state = State::new_256(&key.0, &iv.0, &D256[<T as sealed::TagSize>::D_ROW], backend);
        let engine = match <T as sealed::TagSize>::WORDS {
            1 => AnyEngine::W1(Engine::new(state, true)),
            2 => AnyEngine::W2(Engine::new(state, true)),
            _ => AnyEngine::W4(Engine::new(state, true)),
        };
        Self {
            engine,
            size: PhantomData,
        }
    }

    /// A MAC on a chosen backend (for tests and benchmarks; `new` picks the best).
    pub fn with_backend(
        key: &Array<u8, U32>,
        iv: &Array<u8, U25>,
        backend: Backend,
    ) -> Result<Self, BackendError> {
        Ok(Self::on(key, iv, Available::require(backend)?))
    }

    /// Appends the first `bit_len` bits of `tail` (most significant bit of each byte first;
    /// `tail.len()` must be `bit_len` rounded up to bytes) and returns the tag.
    pub fn finalize_bits(mut self, tail: &[u8], bit_len: usize) -> Result<Array<u8, T>, Error> {
        let (full, partial) = split_bits(tail, bit_len)?;
        Update::update(&mut self, full);
        let mut out = Array::default();
        self.finish(partial, &mut out);
        Ok(out)
    }

    fn finish(self, partial: Partial, out: &mut Array<u8, T>) {
        match self.engine {
            AnyEngine::W1(mut e) => tag_bytes(&e.finish(partial).0, out),
            AnyEngine::W2(mut e) => tag_bytes(&e.finish(partial).0, out),
            AnyEngine::W4(mut e) => tag_bytes(&e.finish(partial).0, out),
        }
    }
}

impl<T: TagSize> Update for Zuc256Mac<T> {
    fn update(&mut self, data: &[u8]) {
        match &mut self.engine {
            AnyEngine::W1(e) => e.update(data),
            AnyEngine::W2(e) => e.update(data),
            AnyEngine::W4(e) => e.update(data),
        }
    }
}

impl<T: TagSize> OutputSizeUser for Zuc256Mac<T> {
    type OutputSize = T;
}

impl<T: TagSize> FixedOutput for Zuc256Mac<T> {
    fn finalize_into(self, out: &mut digest::Output<Self>) {
        self.finish(None, out);
    }
}

impl<T: TagSize> MacMarker for Zuc256Mac<T> {}

impl<T: TagSize> core::fmt::Debug for Zuc256Mac<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Zuc256Mac{} {{ ... }}", 8 * T::USIZE)
    }
}
