//! MACs: CMAC (NIST SP 800-38B, GB/T 15852.1 MAC algorithm 5) on SM4's CBC chain (every
//! whole block of an update in one engine call; RustCrypto's `cmac` crate gives the cipher
//! one block per call), and GMAC (GCM with an empty text, SP 800-38D).

use core::fmt;

use aead::{AeadInOut, Error};
use cipher::{Key, KeyInit, KeySizeUser};
use cmac::digest::{
    MacMarker, Output, OutputSizeUser, Reset,
    block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, FixedOutputCore, Lazy,
        UpdateCore,
    },
    common::{InnerInit, InnerUser},
};
use shangmi_sm4::Sm4;

use crate::Sm4Gcm;

cmac::digest::buffer_fixed!(
    /// SM4-CMAC (NIST SP 800-38B) as a `digest` 0.11 [`Mac`](cmac::digest::Mac), with
    /// every whole block of an update on SM4's CBC chain in one engine call.
    ///
    /// ```
    /// use shangmi_sm4_modes::Sm4Cmac;
    /// use shangmi_sm4_modes::cmac::{KeyInit, digest::Mac};
    ///
    /// let mut mac = Sm4Cmac::new(&[7u8; 16].into());
    /// mac.update(b"message");
    /// let tag = mac.finalize().into_bytes();
    ///
    /// let mut check = Sm4Cmac::new(&[7u8; 16].into());
    /// check.update(b"message");
    /// assert!(check.verify(&tag).is_ok());
    /// ```
    #[derive(Clone)]
    pub struct Sm4Cmac(CmacCore);
    impl: ResetMacTraits InnerInit;
);

impl AlgorithmName for Sm4Cmac {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        CmacCore::write_alg_name(f)
    }
}

/// The block-level CMAC of [`Sm4Cmac`]: the cipher and the chain state. The buffer keeps
/// the last block back (`Lazy`) for the subkey step.
#[derive(Clone)]
pub struct CmacCore {
    cipher: Sm4,
    state: Block<Self>,
}

// CMAC chains whole cipher blocks and its tag is the last chain block, untruncated
// (SP 800-38B, 6.2): both sizes are SM4's block size.
impl BlockSizeUser for CmacCore {
    type BlockSize = <Sm4 as BlockSizeUser>::BlockSize;
}

impl OutputSizeUser for CmacCore {
    type OutputSize = <Sm4 as BlockSizeUser>::BlockSize;
}

impl InnerUser for CmacCore {
    type Inner = Sm4;
}

impl MacMarker for CmacCore {}

impl InnerInit for CmacCore {
    #[inline]
    fn inner_init(cipher: Sm4) -> Self {
        CmacCore {
            cipher,
            state: Block::<Self>::default(),
        }
    }
}

impl BufferKindUser for CmacCore {
    type BufferKind = Lazy;
}

impl UpdateCore for CmacCore {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        self.cipher.cbc_chain(&mut self.state, blocks);
    }
}

impl Reset for CmacCore {
    #[inline]
    fn reset(&mut self) {
        self.state = Block::<Self>::default();
    }
}

impl FixedOutputCore for CmacCore {
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        let pos = buffer.get_pos();
        let last = buffer.pad_with_zeros();
        // SP 800-38B §6.1: L = E(0), K1 = L·x, K2 = K1·x; a whole last block takes K1, a
        // partial one its 10* padding (the buffer pads with zeros, the 1 bit goes in here)
        // and K2.
        // Both encryptions go through the CBC chain, whose round is shorter than the
        // single-block path's on the GFNI and AES-instruction backends.
        let mut l = Block::<Self>::default();
        self.cipher.cbc_chain(&mut l, &[Block::<Self>::default()]);
        let mut subkey = double(&l);
        if pos < last.len() {
            self.state[pos] ^= 0x80;
            subkey = double(&subkey);
        }
        let mut block = Block::<Self>::default();
        for ((b, m), k) in block.iter_mut().zip(last.iter()).zip(subkey.iter()) {
            *b = m ^ k;
        }
        self.cipher.cbc_chain(&mut self.state, &[block]);
        out.copy_from_slice(&self.state);
    }
}

/// Multiplication by x in GF(2^128) with SP 800-38B's bit order (a left shift of the
/// big-endian block, R = 0x87 folded in without a branch on the secret top bit).
fn double(b: &Block<CmacCore>) -> Block<CmacCore> {
    let v = u128::from_be_bytes((*b).into());
    let r = (v << 1) ^ (0x87 & 0u128.wrapping_sub(v >> 127));
    r.to_be_bytes().into()
}

impl AlgorithmName for CmacCore {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cmac<SM4>")
    }
}

impl fmt::Debug for CmacCore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CmacCore { ... }")
    }
}

impl Drop for CmacCore {
    fn drop(&mut self) {
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut self.state);
    }
}

/// SM4-GMAC: GCM's authenticator over data with no encryption (NIST SP 800-38D §3), with
/// a 12-byte nonce that must never repeat under one key.
///
/// ```
/// use shangmi_sm4_modes::Sm4Gmac;
/// use shangmi_sm4_modes::cipher::KeyInit;
///
/// let gmac = Sm4Gmac::new(&[7u8; 16].into());
/// let tag = gmac.compute(&[1u8; 12], b"authenticated, not encrypted");
/// assert!(gmac.verify(&[1u8; 12], b"authenticated, not encrypted", &tag).is_ok());
/// assert!(gmac.verify(&[1u8; 12], b"tampered", &tag).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct Sm4Gmac {
    gcm: Sm4Gcm,
}

impl Sm4Gmac {
    /// GMAC over a prepared cipher.
    pub fn from_cipher(cipher: Sm4) -> Self {
        Sm4Gmac {
            gcm: Sm4Gcm::from_cipher(cipher),
        }
    }

    /// The 16-byte GMAC tag of `data` under `nonce`.
    ///
    /// # Panics
    /// Never for data up to 2^61 − 1 bytes (GCM's limit on associated data).
    pub fn compute(&self, nonce: &[u8; 12], data: &[u8]) -> [u8; 16] {
        // An empty text and AAD within GCM's limits never fail.
        self.gcm
            .encrypt_inout_detached(&(*nonce).into(), data, (&mut [][..]).into())
            .map(Into::into)
            .unwrap_or([0; 16])
    }

    /// Checks `tag` against `data` in constant time.
    ///
    /// # Errors
    /// [`aead::Error`] if the tag does not match.
    pub fn verify(&self, nonce: &[u8; 12], data: &[u8], tag: &[u8; 16]) -> Result<(), Error> {
        self.gcm
            .decrypt_inout_detached(&(*nonce).into(), data, (&mut [][..]).into(), tag.into())
    }
}

impl KeySizeUser for Sm4Gmac {
    type KeySize = cipher::consts::U16;
}

impl KeyInit for Sm4Gmac {
    fn new(key: &Key<Self>) -> Self {
        Sm4Gmac::from_cipher(Sm4::new(key))
    }
}
