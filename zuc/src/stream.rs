//! ZUC-128 and ZUC-256 as RustCrypto stream ciphers: a block-level core ([`ZucCore`], one
//! 32-bit key word per 4-byte block, written big-endian as the specifications number
//! keystream bits) wrapped by `cipher`'s [`StreamCipherCoreWrapper`].
//!
//! Seeking: ZUC has no random access, so [`StreamCipherSeekCore::set_block_pos`] clocks the
//! generator forward from the current position, or from the state right after
//! initialisation (kept for this) when seeking backwards: a seek costs time linear in the
//! distance travelled (about one key-word generation per 4 bytes).

use core::{fmt, marker::PhantomData};

use cipher::{
    AlgorithmName, Array, Block, BlockSizeUser, IvSizeUser, KeyIvInit, KeySizeUser, ParBlocks,
    ParBlocksSizeUser, StreamCipherBackend, StreamCipherClosure, StreamCipherCore,
    StreamCipherCoreWrapper, StreamCipherSeekCore,
    consts::{U4, U16, U25, U32},
};

use shangmi_dispatch::Available;

use crate::{Backend, BackendError, generic::State, state::D256};

pub(crate) mod sealed {
    use cipher::array::{Array, ArraySize};

    /// The key and IV formats, and how each loads the LFSR.
    pub trait Sealed {
        /// Key size in bytes.
        type KeySize: ArraySize;
        /// IV size in bytes.
        type IvSize: ArraySize;
        /// The algorithm's name.
        const NAME: &'static str;
        /// Key loading and initialisation.
        fn load(
            key: &Array<u8, Self::KeySize>,
            iv: &Array<u8, Self::IvSize>,
            backend: shangmi_dispatch::Available<crate::Backend>,
        ) -> crate::generic::State;
    }
}

/// The two key and IV formats: [`V128`] (ZUC-128) and [`V256`] (ZUC-256).
pub trait Variant: sealed::Sealed {}

/// ZUC-128: 16-byte key, 16-byte IV (3GPP "Document 2: ZUC Specification" v1.6).
#[derive(Clone, Copy, Debug)]
pub struct V128;
/// ZUC-256: 32-byte key, 25-byte IV ("The ZUC-256 Stream Cipher", 2018): IV0..IV16 are
/// bytes and IV17..IV24 are 6-bit values in the low bits of the last eight bytes (their two
/// high bits are ignored; [`zuc256_iv_from_packed`] converts the 23-byte packed form).
#[derive(Clone, Copy, Debug)]
pub struct V256;

impl Variant for V128 {}
impl Variant for V256 {}

impl sealed::Sealed for V128 {
    type KeySize = U16;
    type IvSize = U16;
    const NAME: &'static str = "ZUC-128";
    fn load(key: &Array<u8, U16>, iv: &Array<u8, U16>, backend: Available<Backend>) -> State {
        State::new_128(&key.0, &iv.0, backend)
    }
}

impl sealed::Sealed for V256 {
    type KeySize = U32;
    type IvSize = U25;
    const NAME: &'static str = "ZUC-256";
    fn load(key: &Array<u8, U32>, iv: &Array<u8, U25>, backend: Available<Backend>) -> State {
        State::new_256(&key.0, &iv.0, &D256[0], backend)
    }
}

/// Converts the 23-byte packed ZUC-256 IV (IV17..IV24 as eight 6-bit fields, most
/// significant first, as GmSSL and the `zuc` crate take it) into the 25-byte form.
pub fn zuc256_iv_from_packed(packed: &[u8; 23]) -> [u8; 25] {
    let mut iv = [0u8; 25];
    iv[..17].copy_from_slice(&packed[..17]);
    let bits = packed[17..]
        .iter()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    for (i, out) in iv[17..].iter_mut().enumerate() {
        *out = ((bits >> (42 - 6 * i)) & 0x3f) as u8;
    }
    iv
}

/// The block-level ZUC generator (see the module docs for seeking).
#[derive(Clone)]
pub struct ZucCore<V> {
    state: State,
    start: State,
    pos: u64,
    variant: PhantomData<V>,
}

/// The ZUC-128 block-level core.
pub type Zuc128Core = ZucCore<V128>;
/// The ZUC-256 block-level core.
pub type Zuc256Core = ZucCore<V256>;
/// ZUC-128 stream cipher (`KeyIvInit`, `StreamCipher`, `StreamCipherSeek`).
pub type Zuc128 = StreamCipherCoreWrapper<Zuc128Core>;
/// ZUC-256 stream cipher (`KeyIvInit`, `StreamCipher`, `StreamCipherSeek`).
pub type Zuc256 = StreamCipherCoreWrapper<Zuc256Core>;

impl<V: Variant> KeySizeUser for ZucCore<V> {
    type KeySize = V::KeySize;
}

impl<V: Variant> IvSizeUser for ZucCore<V> {
    type IvSize = V::IvSize;
}

impl<V: Variant> BlockSizeUser for ZucCore<V> {
    type BlockSize = U4;
}

impl<V: Variant> KeyIvInit for ZucCore<V> {
    fn new(key: &cipher::Key<Self>, iv: &cipher::Iv<Self>) -> Self {
        Self::from_state(V::load(key, iv, Available::best()))
    }
}

impl<V: Variant> ZucCore<V> {
    fn from_state(state: State) -> Self {
        Self {
            start: state.clone(),
            state,
            pos: 0,
            variant: PhantomData,
        }
    }

    /// A generator on a chosen backend (for tests and benchmarks; `new` picks the best).
    /// Wrap it with [`StreamCipherCoreWrapper::from_core`].
    pub fn with_backend(
        key: &cipher::Key<Self>,
        iv: &cipher::Iv<Self>,
        backend: Backend,
    ) -> Result<Self, BackendError> {
        Ok(Self::from_state(V::load(
            key,
            iv,
            Available::require(backend)?,
        )))
    }

    /// The backend this generator runs on.
    pub fn backend(&self) -> Backend {
        self.state.backend().get()
    }
}

impl<V: Variant> AlgorithmName for ZucCore<V> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(V::NAME)
    }
}

impl<V: Variant> fmt::Debug for ZucCore<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Core {{ ... }}", V::NAME)
    }
}

impl<V: Variant> StreamCipherCore for ZucCore<V> {
    fn remaining_blocks(&self) -> Option<usize> {
        // The block position is a u64 counter of 4-byte words.
        usize::try_from(u64::MAX - self.pos).ok()
    }

    fn process_with_backend(&mut self, f: impl StreamCipherClosure<BlockSize = Self::BlockSize>) {
        f.call(&mut KeystreamBackend {
            state: &mut self.state,
            pos: &mut self.pos,
        });
    }
}

/// With the `zeroize` feature, the state (and the copy kept for seeking) is wiped on drop.
#[cfg(feature = "zeroize")]
impl<V: Variant> zeroize::ZeroizeOnDrop for ZucCore<V> {}

impl<V: Variant> StreamCipherSeekCore for ZucCore<V> {
    type Counter = u64;

    fn get_block_pos(&self) -> u64 {
        self.pos
    }

    fn set_block_pos(&mut self, pos: u64) {
        if pos < self.pos {
            self.state = self.start.clone();
            self.pos = 0;
        }
        let mut scratch = [[0u8; 4]; 64];
        while self.pos < pos {
            let n = (pos - self.pos).min(64) as usize;
            self.state.fill(&mut scratch[..n]);
            self.pos += n as u64;
        }
    }
}

struct KeystreamBackend<'a> {
    state: &'a mut State,
    pos: &'a mut u64,
}

impl BlockSizeUser for KeystreamBackend<'_> {
    type BlockSize = U4;
}

impl ParBlocksSizeUser for KeystreamBackend<'_> {
    type ParBlocksSize = U16;
}

impl StreamCipherBackend for KeystreamBackend<'_> {
    #[inline]
    fn gen_ks_block(&mut self, block: &mut Block<Self>) {
        block.copy_from_slice(&self.state.next_word().to_be_bytes());
        *self.pos += 1;
    }

    #[inline]
    fn gen_par_ks_blocks(&mut self, blocks: &mut ParBlocks<Self>) {
        let mut words = [[0u8; 4]; 16];
        self.state.fill(&mut words);
        for (block, word) in blocks.iter_mut().zip(words) {
            block.0 = word;
        }
        *self.pos += 16;
    }
}
