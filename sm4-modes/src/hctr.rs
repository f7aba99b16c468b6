//! HCTR, the counter mode with a universal hash of GB/T 17964-2021 chapter 11 (Wang, Feng
//! and Wu, "HCTR: A Variable-Input-Length Enciphering Mode", 2005): a length-preserving
//! tweakable wide-block cipher for storage sectors of any length from one block.
//!
//! With P = P1 ‖ P' (P1 one block), hash key h and tweak T: Z1 = P1 ⊕ U(P'), Z2 = E(Z1), C' = P' ⊕
//! CTR(Z1 ⊕ Z2), C1 = Z2 ⊕ U(C'), where U(M) = GHASH_h(pad(M ‖ T) ‖ \[0\]64 ‖ \[|M ‖ T| in
//! bits\]64) (GCM's field and bit order, as the standard's examples and gmsm compute it) and the
//! i-th counter block (i from 1) is S ⊕ \[i\]128, an XOR rather than an addition. The counter
//! blocks of a chunk go to SM4's parallel path together; the hash runs on this crate's GHASH
//! engines.

use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, Key, KeyInit, KeySizeUser,
    consts::{U16, U32},
    inout::InOutBuf,
};
use shangmi_sm4::Sm4;

use crate::ghash::{GhashBackend, GhashKey};

/// Counter blocks encrypted per engine call (the widest engine's parallel width).
const CHUNK: usize = 64;

/// Why an HCTR operation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HctrError {
    /// The sector is shorter than one block (16 bytes).
    SectorTooShort,
    /// The output buffer's length differs from the input's.
    LengthMismatch,
}

impl core::fmt::Display for HctrError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            HctrError::SectorTooShort => "HCTR sector shorter than 16 bytes",
            HctrError::LengthMismatch => "HCTR input and output lengths differ",
        })
    }
}

impl core::error::Error for HctrError {}

/// SM4-HCTR (GB/T 17964-2021 chapter 11): encrypts and decrypts a sector of at least 16
/// bytes in place (or buffer to buffer) under a 16-byte tweak, with no expansion.
///
/// The key is the SM4 key K followed by the hash key h (32 bytes through [`KeyInit`]).
///
/// ```
/// use shangmi_sm4_modes::Sm4Hctr;
///
/// let hctr = Sm4Hctr::new_from_keys(&[1u8; 16], &[2u8; 16]);
/// let mut sector = *b"a sector of any length >= 16 bytes";
/// hctr.encrypt(&[7u8; 16], &mut sector).unwrap();
/// assert_ne!(&sector, b"a sector of any length >= 16 bytes");
/// hctr.decrypt(&[7u8; 16], &mut sector).unwrap();
/// assert_eq!(&sector, b"a sector of any length >= 16 bytes");
///
/// assert!(hctr.encrypt(&[7u8; 16], &mut [0u8; 15]).is_err());
/// ```
#[derive(Clone)]
pub struct Sm4Hctr {
    cipher: Sm4,
    hash: GhashKey,
}

impl Sm4Hctr {
    /// HCTR with SM4 key `key` and hash key `hash_key`.
    pub fn new_from_keys(key: &[u8; 16], hash_key: &[u8; 16]) -> Self {
        Self::from_cipher(Sm4::new(&(*key).into()), hash_key)
    }

    /// HCTR over a prepared cipher (e.g. one on a chosen engine) with hash key `hash_key`.
    pub fn from_cipher(cipher: Sm4, hash_key: &[u8; 16]) -> Self {
        Sm4Hctr {
            cipher,
            hash: GhashKey::new(hash_key, shangmi_dispatch::Available::best()),
        }
    }

    /// HCTR over `cipher` with its hash on the GHASH engine `ghash` (tests, benchmarks, bug
    /// reports).
    ///
    /// # Errors
    /// [`shangmi_dispatch::BackendError`] if this CPU (or this build's `shangmi_backend`
    /// cfg) cannot run `ghash`.
    pub fn with_ghash_backend(
        cipher: Sm4,
        hash_key: &[u8; 16],
        ghash: GhashBackend,
    ) -> Result<Self, shangmi_dispatch::BackendError<GhashBackend>> {
        Ok(Sm4Hctr {
            cipher,
            hash: GhashKey::new(hash_key, shangmi_dispatch::Available::require(ghash)?),
        })
    }

    /// Encrypts the sector `data` in place under `tweak`.
    ///
    /// # Errors
    /// [`HctrError::SectorTooShort`] if `data` is shorter than 16 bytes (left untouched).
    pub fn encrypt(&self, tweak: &[u8; 16], data: &mut [u8]) -> Result<(), HctrError> {
        self.crypt(tweak, data.into(), true)
    }

    /// Decrypts the sector `data` in place under `tweak`.
    ///
    /// # Errors
    /// As [`Sm4Hctr::encrypt`].
    pub fn decrypt(&self, tweak: &[u8; 16], data: &mut [u8]) -> Result<(), HctrError> {
        self.crypt(tweak, data.into(), false)
    }

    /// Encrypts `input` into `output` (of the same length) under `tweak`.
    ///
    /// # Errors
    /// [`HctrError::LengthMismatch`] if the lengths differ, else as [`Sm4Hctr::encrypt`].
    pub fn encrypt_b2b(
        &self,
        tweak: &[u8; 16],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), HctrError> {
        self.crypt(tweak, b2b(input, output)?, true)
    }

    /// Decrypts `input` into `output` (of the same length) under `tweak`.
    ///
    /// # Errors
    /// As [`Sm4Hctr::encrypt_b2b`].
    pub fn decrypt_b2b(
        &self,
        tweak: &[u8; 16],
        input: &[u8],
        output: &mut [u8],
    ) -> Result<(), HctrError> {
        self.crypt(tweak, b2b(input, output)?, false)
    }

    /// One sector, either direction: the two directions differ only in the block cipher
    /// call between the two hashes (E for encryption, D for decryption).
    fn crypt(
        &self,
        tweak: &[u8; 16],
        buf: InOutBuf<'_, '_, u8>,
        encrypt: bool,
    ) -> Result<(), HctrError> {
        if buf.len() < 16 {
            return Err(HctrError::SectorTooShort);
        }
        let (mut first, mut rest) = buf.split_at(16);
        let mut z1 = self.uhash(tweak, rest.get_in());
        xor(&mut z1, first.get_in());
        let mut z2 = Block::<Sm4>::from(z1);
        if encrypt {
            self.cipher.encrypt_block(&mut z2);
        } else {
            self.cipher.decrypt_block(&mut z2);
        }
        let z2: [u8; 16] = z2.into();
        let mut s = z1;
        xor(&mut s, &z2);
        self.ctr(&s, rest.reborrow());
        let mut out = self.uhash(tweak, rest.get_out());
        xor(&mut out, &z2);
        first.get_out().copy_from_slice(&out);
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut [z1, s]);
        Ok(())
    }

    /// U(M): GHASH over M ‖ T zero-padded, then the block \[0\]64 ‖ \[|M ‖ T| in bits\]64.
    fn uhash(&self, tweak: &[u8; 16], m: &[u8]) -> [u8; 16] {
        let mut g = self.hash.start();
        let full = m.len() & !15;
        g.update_padded(&m[..full]);
        let r = m.len() - full;
        let mut tail = [0u8; 32];
        tail[..r].copy_from_slice(&m[full..]);
        tail[r..r + 16].copy_from_slice(tweak);
        g.update_padded(&tail[..r + 16]);
        let bits = (m.len() as u64).wrapping_add(16).wrapping_mul(8);
        g.update_padded(&u128::from(bits).to_be_bytes());
        g.finalize()
    }

    /// XORs `buf` with E(S ⊕ \[1\]), E(S ⊕ \[2\]), …, a chunk of counter blocks per engine
    /// call.
    fn ctr(&self, s: &[u8; 16], mut buf: InOutBuf<'_, '_, u8>) {
        let s = u128::from_be_bytes(*s);
        let mut i = 1u128;
        let mut ks = [Block::<Sm4>::default(); CHUNK];
        while !buf.is_empty() {
            let n = buf.len().div_ceil(16).min(CHUNK);
            for k in &mut ks[..n] {
                *k = (s ^ i).to_be_bytes().into();
                i += 1;
            }
            self.cipher.encrypt_blocks(&mut ks[..n]);
            let len = (n * 16).min(buf.len());
            let (mut head, rest) = buf.split_at(len);
            let ks_bytes = Block::<Sm4>::slice_as_flattened(&ks[..n]);
            head.xor_in2out(&ks_bytes[..head.len()]);
            buf = rest;
        }
        #[cfg(feature = "zeroize")]
        zeroize::Zeroize::zeroize(&mut ks);
    }
}

/// `input` and `output` as one in-out buffer, if their lengths agree.
fn b2b<'i, 'o>(input: &'i [u8], output: &'o mut [u8]) -> Result<InOutBuf<'i, 'o, u8>, HctrError> {
    InOutBuf::new(input, output).map_err(|_| HctrError::LengthMismatch)
}

#[inline(always)]
fn xor(a: &mut [u8; 16], b: &[u8]) {
    for (a, b) in a.iter_mut().zip(b) {
        *a ^= b;
    }
}

impl KeySizeUser for Sm4Hctr {
    type KeySize = U32;
}

impl KeyInit for Sm4Hctr {
    /// The SM4 key K (first 16 bytes) and the hash key h (last 16).
    fn new(key: &Key<Self>) -> Self {
        let (k, h) = key.split_ref::<U16>();
        Self::from_cipher(Sm4::new(k), &(*h).into())
    }
}

impl core::fmt::Debug for Sm4Hctr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Hctr")
            .field("cipher", &self.cipher)
            .finish_non_exhaustive()
    }
}
