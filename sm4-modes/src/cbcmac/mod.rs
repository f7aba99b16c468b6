//! The CBC-MAC family of GB/T 15852.1-2020 (ISO/IEC 9797-1:2011) over SM4: MAC algorithms
//! 1–4 and 6 with padding methods 1–3, 7 (TrCBC) and 8 (CBCR) with their padding method 4,
//! each a `digest` [`Mac`](cmac::digest::Mac). Algorithm 5 is [`Sm4Cmac`](crate::Sm4Cmac).
//!
//! Every whole block of an update goes to SM4's CBC chain in one engine call; the buffer
//! keeps the last block back (`Lazy`) for the padding and the output transformation.

mod algorithm;
mod padding;

use core::{convert::Infallible, fmt, marker::PhantomData};

use cipher::{Array, Block, KeyInit, KeySizeUser};
use cmac::digest::{
    MacMarker, Output, OutputSizeUser, Reset,
    block_api::{
        AlgorithmName, BlockSizeUser, Buffer, BufferKindUser, FixedOutputCore, Lazy, UpdateCore,
    },
    consts::U16,
};
use shangmi_sm4::{Backend, BackendError, Sm4};

pub use algorithm::{Algorithm, AnsiRetailMac, CbcMac1, Cbcr, Emac, Lmac, MacDes, TrCbc};
pub use padding::{Padding, Padding1, Padding2, Padding3, Padding4};

use algorithm::Takes;

cmac::digest::buffer_fixed!(
    /// A GB/T 15852.1-2020 MAC over SM4: algorithm `A` with padding method `P`, as a
    /// `digest` [`Mac`](cmac::digest::Mac); use the aliases ([`Sm4CbcMac`], [`Sm4Emac`],
    /// [`Sm4AnsiRetailMac`], [`Sm4MacDes`], [`Sm4Lmac`], [`Sm4TrCbc`], [`Sm4Cbcr`]).
    ///
    /// With padding methods 1, 2 and 4 it is made by [`KeyInit`]; with padding method 3,
    /// whose first block is the message length, by [`Mac15852::new_with_len`]. A padding
    /// method the algorithm does not take fails to build:
    ///
    /// ```compile_fail
    /// use shangmi_sm4_modes::cbcmac::{Cbcr, Mac15852, Padding2};
    /// use shangmi_sm4_modes::cmac::KeyInit;
    ///
    /// let _ = Mac15852::<Cbcr, Padding2>::new(&[0u8; 16].into());
    /// ```
    #[derive(Clone)]
    pub struct Mac15852<A: Algorithm, P: Padding>(Core<A, P>);
    impl: ResetMacTraits;
);

/// SM4 CBC-MAC, GB/T 15852.1-2020 MAC algorithm 1, padding method 2 by default (write
/// `<Sm4CbcMac>::new` for the default, as for the other aliases with a default).
///
/// ```
/// use shangmi_sm4_modes::{Sm4CbcMac, cbcmac::Padding1};
/// use shangmi_sm4_modes::cmac::{KeyInit, digest::Mac};
///
/// let key = [7u8; 16];
/// let tag = <Sm4CbcMac>::new(&key.into()).chain_update(b"message").finalize().into_bytes();
/// let mut check = <Sm4CbcMac>::new(&key.into());
/// check.update(b"message");
/// assert!(check.verify(&tag).is_ok());
/// // A tag truncated to its first 8 bytes, and padding method 1:
/// assert!(<Sm4CbcMac>::new(&key.into()).chain_update(b"message").verify_truncated_left(&tag[..8]).is_ok());
/// let _ = Sm4CbcMac::<Padding1>::new(&key.into());
/// ```
pub type Sm4CbcMac<P = Padding2> = Mac15852<CbcMac1, P>;

/// SM4 EMAC, GB/T 15852.1-2020 MAC algorithm 2 (key K ‖ K′, 32 bytes), padding method 2 by
/// default.
///
/// ```
/// use shangmi_sm4_modes::Sm4Emac;
/// use shangmi_sm4_modes::cmac::{KeyInit, digest::Mac};
///
/// let tag = <Sm4Emac>::new(&[7u8; 32].into()).chain_update(b"message").finalize();
/// # let _ = tag;
/// ```
pub type Sm4Emac<P = Padding2> = Mac15852<Emac, P>;

/// SM4 ANSI retail MAC (ARMAC), GB/T 15852.1-2020 MAC algorithm 3 (key K ‖ K′), padding
/// method 2 by default.
///
/// ```
/// use shangmi_sm4_modes::{Sm4AnsiRetailMac, cbcmac::Padding3};
/// use shangmi_sm4_modes::cmac::digest::Mac;
///
/// // Padding method 3 needs the message length first.
/// let mut mac = Sm4AnsiRetailMac::<Padding3>::new_with_len(&[7u8; 32].into(), 7);
/// mac.update(b"message");
/// let tag = mac.try_finalize().unwrap();
/// # let _ = tag;
/// ```
pub type Sm4AnsiRetailMac<P = Padding2> = Mac15852<AnsiRetailMac, P>;

/// SM4 MacDES, GB/T 15852.1-2020 MAC algorithm 4 (key K ‖ K′), padding method 2 by default.
///
/// ```
/// use shangmi_sm4_modes::Sm4MacDes;
/// use shangmi_sm4_modes::cmac::{KeyInit, digest::Mac};
///
/// let tag = <Sm4MacDes>::new(&[7u8; 32].into()).chain_update(b"message").finalize();
/// # let _ = tag;
/// ```
pub type Sm4MacDes<P = Padding2> = Mac15852<MacDes, P>;

/// SM4 LMAC, GB/T 15852.1-2020 MAC algorithm 6, padding method 2 by default.
///
/// ```
/// use shangmi_sm4_modes::Sm4Lmac;
/// use shangmi_sm4_modes::cmac::{KeyInit, digest::Mac};
///
/// let tag = <Sm4Lmac>::new(&[7u8; 16].into()).chain_update(b"message").finalize();
/// # let _ = tag;
/// ```
pub type Sm4Lmac<P = Padding2> = Mac15852<Lmac, P>;

/// SM4 TrCBC, GB/T 15852.1-2020 MAC algorithm 7, with a `T`-byte tag (8 by default).
///
/// ```
/// use shangmi_sm4_modes::Sm4TrCbc;
/// use shangmi_sm4_modes::cmac::{KeyInit, digest::Mac};
///
/// let tag = <Sm4TrCbc>::new(&[7u8; 16].into()).chain_update(b"message").finalize();
/// assert_eq!(tag.into_bytes().len(), 8);
/// ```
pub type Sm4TrCbc<T = cipher::consts::U8> = Mac15852<TrCbc<T>, Padding4>;

/// SM4 CBCR, GB/T 15852.1-2020 MAC algorithm 8.
///
/// ```
/// use shangmi_sm4_modes::Sm4Cbcr;
/// use shangmi_sm4_modes::cmac::{KeyInit, digest::Mac};
///
/// let tag = Sm4Cbcr::new(&[7u8; 16].into()).chain_update(b"message").finalize();
/// # let _ = tag;
/// ```
pub type Sm4Cbcr = Mac15852<Cbcr, Padding4>;

/// The block-level state of [`Mac15852`]: the algorithm's ciphers, the chain value, and
/// the lengths padding method 3 needs.
#[derive(Clone)]
pub struct Core<A, P> {
    alg: A,
    state: Block<Sm4>,
    /// No block absorbed yet (MacDES treats the first block apart).
    first: bool,
    /// Bytes absorbed, and for padding method 3 the declared length.
    absorbed: u64,
    declared: u64,
    padding: PhantomData<P>,
}

/// The message fed to a padding-method-3 MAC was not as long as declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthMismatch {
    /// The length given to [`Mac15852::new_with_len`].
    pub declared: u64,
    /// The bytes actually fed.
    pub fed: u64,
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "declared a {}-byte message, fed {}",
            self.declared, self.fed
        )
    }
}

impl core::error::Error for LengthMismatch {}

impl<A: Algorithm, P: Padding> Core<A, P> {
    fn with_cipher(alg: A, declared: u64) -> Self {
        let () = Takes::<A, P>::OK;
        let mut core = Core {
            state: alg.initial_state(),
            alg,
            first: true,
            absorbed: 0,
            declared,
            padding: PhantomData,
        };
        core.start();
        core
    }

    /// Padding method 3's length block (the length in bits, big-endian) goes first.
    fn start(&mut self) {
        if P::BIT == Padding3::BIT {
            let bits = u128::from(self.declared) * 8;
            let block = Block::<Sm4>::from(bits.to_be_bytes());
            self.alg.chain(&mut self.state, &[block], true);
            self.first = false;
        }
    }
}

impl<A: Algorithm, P: Padding> BlockSizeUser for Core<A, P> {
    type BlockSize = U16;
}

impl<A: Algorithm, P: Padding> OutputSizeUser for Core<A, P> {
    type OutputSize = A::OutputSize;
}

impl<A: Algorithm, P: Padding> MacMarker for Core<A, P> {}

impl<A: Algorithm, P: Padding> BufferKindUser for Core<A, P> {
    type BufferKind = Lazy;
}

impl<A: Algorithm, P: Padding> UpdateCore for Core<A, P> {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        if blocks.is_empty() {
            return;
        }
        self.alg.chain(&mut self.state, blocks, self.first);
        self.first = false;
        self.absorbed = self.absorbed.wrapping_add(16 * blocks.len() as u64);
    }
}

impl<A: Algorithm, P: Padding> Reset for Core<A, P> {
    #[inline]
    fn reset(&mut self) {
        self.state = self.alg.initial_state();
        self.first = true;
        self.absorbed = 0;
        self.start();
    }
}

impl<A: Algorithm, P: Padding> FixedOutputCore for Core<A, P> {
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        let tail = buffer.get_data();
        self.absorbed = self.absorbed.wrapping_add(tail.len() as u64);
        let last = P::last_blocks(tail);
        let (init, fin) = last.blocks[..last.count].split_at(last.count - 1);
        let mut first = self.first;
        if !init.is_empty() {
            self.alg.chain(&mut self.state, init, first);
            first = false;
        }
        *out = self.alg.finish(self.state, &fin[0], first, last.padded);
    }
}

impl<A: Algorithm, P: Padding> AlgorithmName for Core<A, P> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}<SM4, {}>", A::NAME, P::NAME)
    }
}

impl<A: Algorithm, P: Padding> fmt::Debug for Core<A, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}<SM4, {}> {{ ... }}", A::NAME, P::NAME)
    }
}

impl<A, P> Drop for Core<A, P> {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut self.state);
    }
}

/// The padding methods that need no length up front (all but method 3).
pub trait KnownLength: Padding {}
impl KnownLength for Padding1 {}
impl KnownLength for Padding2 {}
impl KnownLength for Padding4 {}

impl<A: Algorithm, P: KnownLength> KeySizeUser for Mac15852<A, P> {
    type KeySize = A::KeySize;
}

impl<A: Algorithm, P: KnownLength> KeyInit for Mac15852<A, P> {
    fn new(key: &Array<u8, A::KeySize>) -> Self {
        Self::from_alg(best(key), 0)
    }
}

impl<A: Algorithm, P: KnownLength> Mac15852<A, P> {
    /// The MAC with its ciphers on the SM4 engine `backend` (tests, benchmarks).
    ///
    /// # Errors
    /// If this CPU cannot run `backend`.
    pub fn with_backend(
        key: &Array<u8, A::KeySize>,
        backend: Backend,
    ) -> Result<Self, BackendError> {
        Ok(Self::from_alg(
            A::new(key, &|k| Sm4::with_backend(k, backend))?,
            0,
        ))
    }
}

/// The algorithm's ciphers on the best engine.
fn best<A: Algorithm>(key: &Array<u8, A::KeySize>) -> A {
    match A::new(key, &|k| Ok::<_, Infallible>(Sm4::new(k))) {
        Ok(alg) => alg,
        Err(never) => match never {},
    }
}

impl<A: Algorithm, P: Padding> Mac15852<A, P> {
    fn from_alg(alg: A, declared: u64) -> Self {
        Mac15852 {
            core: Core::with_cipher(alg, declared),
            buffer: Default::default(),
        }
    }
}

impl<A: Algorithm> Mac15852<A, Padding3> {
    /// The MAC of a message of `len` bytes (padding method 3 puts the length first).
    pub fn new_with_len(key: &Array<u8, A::KeySize>, len: u64) -> Self {
        Self::from_alg(best(key), len)
    }

    /// As [`Mac15852::new_with_len`], with the ciphers on the SM4 engine `backend`.
    ///
    /// # Errors
    /// If this CPU cannot run `backend`.
    pub fn new_with_len_on(
        key: &Array<u8, A::KeySize>,
        len: u64,
        backend: Backend,
    ) -> Result<Self, BackendError> {
        Ok(Self::from_alg(
            A::new(key, &|k| Sm4::with_backend(k, backend))?,
            len,
        ))
    }
    /// The tag, if the message fed had the declared length.
    ///
    /// (`Mac::finalize` computes the tag over the declared length whatever was fed.)
    ///
    /// # Errors
    /// [`LengthMismatch`] if it had not.
    pub fn try_finalize(self) -> Result<Output<Self>, LengthMismatch> {
        let fed = self.core.absorbed + self.buffer.get_pos() as u64;
        let declared = self.core.declared;
        if fed != declared {
            return Err(LengthMismatch { declared, fed });
        }
        Ok(cmac::digest::FixedOutput::finalize_fixed(self))
    }
}
