//! SM4-XTS in its two incompatible flavours: IEEE Std 1619 (Linux `xts(sm4)`, fscrypt,
//! dm-crypt) and GB/T 17964-2021 (GmSSL, OpenSSL's `SM4-XTS` default). They differ only in
//! how the tweak is multiplied by α from one block to the next: IEEE reads the tweak
//! little-endian and shifts left (reduction 0x87), GB/T 17964 reads it big-endian with
//! GCM's reflected bit order and shifts right (reduction 0xE1 << 120).
//!
//! Tweaks for 64 blocks are computed at a time (on AVX-512 eight per step in two 512-bit
//! registers, see `xts_avx512`; elsewhere a shift, a mask and two XORs each in 128-bit
//! integers), then the 64 blocks go to the engine in one call.

use core::marker::PhantomData;

use cipher::{Block, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use shangmi_sm4::{Backend, BackendError, Sm4};

/// Blocks per engine call.
const BATCH: usize = 64;
/// IEEE Std 1619-2018 §5.1: a data unit has at most 2^20 blocks.
const MAX_BLOCKS: usize = 1 << 20;

/// Why an XTS operation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum XtsError {
    /// The data unit is shorter than one block (16 bytes).
    DataUnitTooShort,
    /// The data unit is longer than 2^20 blocks (16 MiB).
    DataUnitTooLong,
    /// The two key halves are equal (IEEE Std 1619-2018 §5.1 and OpenSSL refuse them).
    EqualKeyHalves,
    /// The requested SM4 engine does not run on this CPU.
    Backend(BackendError),
}

impl core::fmt::Display for XtsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            XtsError::DataUnitTooShort => f.write_str("XTS data unit shorter than 16 bytes"),
            XtsError::DataUnitTooLong => f.write_str("XTS data unit longer than 2^20 blocks"),
            XtsError::EqualKeyHalves => f.write_str("XTS key halves are equal"),
            XtsError::Backend(e) => write!(f, "SM4 engine: {e}"),
        }
    }
}

impl core::error::Error for XtsError {}

/// Which XTS standard: [`Ieee1619`] or [`GbT17964`]. Sealed.
pub trait XtsStandard: sealed::Sealed {
    /// The standard's name, for messages.
    const NAME: &'static str;
    /// Reads a tweak block as the integer the multiplication works on.
    fn load(b: &[u8; 16]) -> u128;
    /// Writes the integer back as a tweak block.
    fn store(t: u128) -> [u8; 16];
    /// Multiplies by α (x) in GF(2^128), constant-time.
    fn mul_alpha(t: u128) -> u128;
    /// GB/T 17964's bit order (for the SIMD tweak code).
    #[doc(hidden)]
    const GB: bool;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Ieee1619 {}
    impl Sealed for super::GbT17964 {}
}

/// IEEE Std 1619 XTS (Linux `xts(sm4)`, fscrypt, dm-crypt).
#[derive(Clone, Copy, Debug)]
pub struct Ieee1619;

/// GB/T 17964-2021 XTS (GmSSL; OpenSSL's `SM4-XTS` with `xts_standard=GB`, its default).
#[derive(Clone, Copy, Debug)]
pub struct GbT17964;

impl XtsStandard for Ieee1619 {
    const NAME: &'static str = "IEEE 1619";
    const GB: bool = false;
    fn load(b: &[u8; 16]) -> u128 {
        u128::from_le_bytes(*b)
    }
    fn store(t: u128) -> [u8; 16] {
        t.to_le_bytes()
    }
    fn mul_alpha(t: u128) -> u128 {
        (t << 1) ^ ((t >> 127).wrapping_neg() & 0x87)
    }
}

impl XtsStandard for GbT17964 {
    const NAME: &'static str = "GB/T 17964";
    const GB: bool = true;
    fn load(b: &[u8; 16]) -> u128 {
        u128::from_be_bytes(*b)
    }
    fn store(t: u128) -> [u8; 16] {
        t.to_be_bytes()
    }
    fn mul_alpha(t: u128) -> u128 {
        (t >> 1) ^ ((t & 1).wrapping_neg() & (0xe1 << 120))
    }
}

/// SM4-XTS per IEEE Std 1619 (Linux `xts(sm4)`, fscrypt, dm-crypt).
///
/// ```
/// use shangmi_sm4_modes::Sm4XtsIeee;
///
/// let xts = Sm4XtsIeee::new(&[[1u8; 16], [2u8; 16]].concat().try_into().unwrap()).unwrap();
/// let mut sector = [0u8; 4096];
/// xts.encrypt_sector(7, &mut sector).unwrap();
/// xts.decrypt_sector(7, &mut sector).unwrap();
/// assert_eq!(sector, [0u8; 4096]);
/// ```
pub type Sm4XtsIeee = Sm4Xts<Ieee1619>;

/// SM4-XTS per GB/T 17964-2021 (GmSSL, OpenSSL `SM4-XTS` default). Not interoperable with
/// [`Sm4XtsIeee`] beyond the first block of a data unit.
///
/// ```
/// use shangmi_sm4_modes::Sm4XtsGb;
///
/// let xts = Sm4XtsGb::new(&[[1u8; 16], [2u8; 16]].concat().try_into().unwrap()).unwrap();
/// let mut unit = *b"a data unit of any length >= 16 bytes";
/// xts.encrypt(&[9u8; 16], &mut unit).unwrap();
/// xts.decrypt(&[9u8; 16], &mut unit).unwrap();
/// assert_eq!(&unit, b"a data unit of any length >= 16 bytes");
/// ```
pub type Sm4XtsGb = Sm4Xts<GbT17964>;

/// SM4-XTS with data key K1 and tweak key K2, for the standard `S` ([`Ieee1619`] or
/// [`GbT17964`]); use the aliases [`Sm4XtsIeee`] and [`Sm4XtsGb`].
#[derive(Clone)]
pub struct Sm4Xts<S> {
    data: Sm4,
    tweak: Sm4,
    standard: PhantomData<S>,
}

impl<S: XtsStandard> Sm4Xts<S> {
    /// XTS with the 32-byte key K1 ‖ K2 (data key first, as OpenSSL and Linux take it).
    ///
    /// # Errors
    /// [`XtsError::EqualKeyHalves`] if K1 = K2.
    pub fn new(key: &[u8; 32]) -> Result<Self, XtsError> {
        Self::build(key, None)
    }

    /// As [`Sm4Xts::new`] on the SM4 engine `backend` (tests, benchmarks, bug reports).
    ///
    /// # Errors
    /// As [`Sm4Xts::new`], and [`XtsError::Backend`] if this CPU cannot run `backend`.
    pub fn with_backend(key: &[u8; 32], backend: Backend) -> Result<Self, XtsError> {
        Self::build(key, Some(backend))
    }

    fn build(key: &[u8; 32], backend: Option<Backend>) -> Result<Self, XtsError> {
        let (k1, k2) = key.split_at(16);
        if crate::ct::eq(k1, k2) {
            return Err(XtsError::EqualKeyHalves);
        }
        let k1 = cipher::Key::<Sm4>::try_from(k1).map_err(|_| XtsError::DataUnitTooShort)?;
        let k2 = cipher::Key::<Sm4>::try_from(k2).map_err(|_| XtsError::DataUnitTooShort)?;
        let (data, tweak) = match backend {
            None => (Sm4::new(&k1), Sm4::new(&k2)),
            Some(b) => (
                Sm4::with_backend(&k1, b).map_err(XtsError::Backend)?,
                Sm4::with_backend(&k2, b).map_err(XtsError::Backend)?,
            ),
        };
        Ok(Sm4Xts {
            data,
            tweak,
            standard: PhantomData,
        })
    }

    /// The tweak for data unit (sector) number `n`: `n` little-endian in 16 bytes, as
    /// IEEE Std 1619 §5.1 and Linux's `plain64` IVs define it.
    pub fn sector_tweak(n: u64) -> [u8; 16] {
        u128::from(n).to_le_bytes()
    }

    /// Encrypts one data unit (at least 16 bytes; ciphertext stealing for a partial last
    /// block) under `tweak`.
    ///
    /// # Errors
    /// [`XtsError::DataUnitTooShort`] / [`XtsError::DataUnitTooLong`]; `data` is untouched.
    pub fn encrypt(&self, tweak: &[u8; 16], data: &mut [u8]) -> Result<(), XtsError> {
        self.crypt(tweak, data, true)
    }

    /// Decrypts one data unit; see [`Sm4Xts::encrypt`].
    ///
    /// # Errors
    /// As [`Sm4Xts::encrypt`].
    pub fn decrypt(&self, tweak: &[u8; 16], data: &mut [u8]) -> Result<(), XtsError> {
        self.crypt(tweak, data, false)
    }

    /// Encrypts data unit number `sector` (tweak from [`Sm4Xts::sector_tweak`]).
    ///
    /// # Errors
    /// As [`Sm4Xts::encrypt`].
    pub fn encrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<(), XtsError> {
        self.encrypt(&Self::sector_tweak(sector), data)
    }

    /// Decrypts data unit number `sector`.
    ///
    /// # Errors
    /// As [`Sm4Xts::encrypt`].
    pub fn decrypt_sector(&self, sector: u64, data: &mut [u8]) -> Result<(), XtsError> {
        self.decrypt(&Self::sector_tweak(sector), data)
    }

    /// The SM4 backend in use (its `Display` is the name, e.g. `gfni-avx512`).
    pub fn backend(&self) -> Backend {
        self.data.backend()
    }

    fn one(&self, block: &mut [u8; 16], t: u128, encrypt: bool) {
        let tw = S::store(t);
        let mut b = Block::<Sm4>::from(xor16(block, &tw));
        if encrypt {
            self.data.encrypt_block(&mut b);
        } else {
            self.data.decrypt_block(&mut b);
        }
        *block = xor16(&b.into(), &tw);
    }

    fn crypt(&self, tweak: &[u8; 16], data: &mut [u8], encrypt: bool) -> Result<(), XtsError> {
        if data.len() < 16 {
            return Err(XtsError::DataUnitTooShort);
        }
        if data.len() > MAX_BLOCKS * 16 {
            return Err(XtsError::DataUnitTooLong);
        }
        let mut t0 = Block::<Sm4>::from(*tweak);
        self.tweak.encrypt_block(&mut t0);
        let mut t = S::load(&t0.into());

        let r = data.len() % 16;
        let bulk = if r == 0 {
            data.len() / 16
        } else {
            data.len() / 16 - 1
        };
        let (head, tail) = data.split_at_mut(bulk * 16);
        let (blocks, _) = Block::<Sm4>::slice_as_chunks_mut(head);
        let mut tweaks = [[0u8; 16]; BATCH];
        #[cfg(target_arch = "x86_64")]
        let simd = shangmi_dispatch::Available::<shangmi_dispatch::xts::Backend>::best().get()
            == shangmi_dispatch::xts::Backend::Avx512;
        for batch in blocks.chunks_mut(BATCH) {
            #[allow(unused_mut)]
            let mut done = 0;
            #[cfg(target_arch = "x86_64")]
            if simd && batch.len() >= 8 {
                let mut first = [[0u8; 16]; 8];
                let mut u = t;
                for f in &mut first {
                    *f = S::store(u);
                    u = S::mul_alpha(u);
                }
                let mut next = [0u8; 16];
                // SAFETY: `simd` is true only with the dispatch token of `xts-avx512`, whose
                // probe found AVX-512F and AVX-512BW.
                done = unsafe {
                    if S::GB {
                        crate::xts_avx512::whiten::<true>(&first, batch, &mut tweaks, &mut next)
                    } else {
                        crate::xts_avx512::whiten::<false>(&first, batch, &mut tweaks, &mut next)
                    }
                };
                t = S::load(&next);
            }
            for (b, tw) in batch[done..].iter_mut().zip(tweaks[done..].iter_mut()) {
                *tw = S::store(t);
                t = S::mul_alpha(t);
                *b = xor16(&(*b).into(), tw).into();
            }
            if encrypt {
                self.data.encrypt_blocks(batch);
            } else {
                self.data.decrypt_blocks(batch);
            }
            for (b, tw) in batch.iter_mut().zip(tweaks.iter()) {
                *b = xor16(&(*b).into(), tw).into();
            }
        }
        if r != 0 {
            // Ciphertext stealing (IEEE Std 1619-2018 §5.3.2 / §5.4.2, same in GB/T 17964).
            let (last_full, partial) = tail.split_at_mut(16);
            let mut full: [u8; 16] = last_full
                .try_into()
                .map_err(|_| XtsError::DataUnitTooShort)?;
            let (t_first, t_second) = if encrypt {
                (t, S::mul_alpha(t))
            } else {
                (S::mul_alpha(t), t)
            };
            self.one(&mut full, t_first, encrypt);
            let mut stolen = full;
            stolen[..r].copy_from_slice(partial);
            partial.copy_from_slice(&full[..r]);
            self.one(&mut stolen, t_second, encrypt);
            last_full.copy_from_slice(&stolen);
        }
        Ok(())
    }
}

fn xor16(a: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    (u128::from_ne_bytes(*a) ^ u128::from_ne_bytes(*b)).to_ne_bytes()
}

impl<S: XtsStandard> core::fmt::Debug for Sm4Xts<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sm4Xts")
            .field("standard", &S::NAME)
            .field("backend", &self.data.backend())
            .finish_non_exhaustive()
    }
}
