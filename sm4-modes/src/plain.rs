//! The classic modes (NIST SP 800-38A, GB/T 17964-2021), so one crate serves every SM4
//! mode. CBC (both directions) and CFB encryption are this crate's own ([`chained`]): the
//! serial directions run on SM4's CBC chain, CBC decryption gives the engine every block.
//! The others are aliases of RustCrypto's generic mode crates over [`Sm4`], which drive the
//! engine through its parallel-block interface where the mode allows (ECB, CTR, CFB
//! decryption); OFB is serial by definition. BC and OFBNLF (GB/T 17964-2021 chapters 12
//! and 13) are further directions of [`chained::Chained`].
//!
//! For the fastest CTR, [`Sm4::apply_ctr`] builds and encrypts the counters in registers.

use shangmi_sm4::Sm4;

mod bc;
pub mod chained;
mod ofbnlf;

pub use bc::{BcDecrypt, BcEncrypt};
pub use ofbnlf::{OfbnlfDecrypt, OfbnlfEncrypt};

/// SM4-CTR with a 128-bit big-endian counter (SP 800-38A, GB/T 17964) as a `cipher`
/// [`StreamCipher`](cipher::StreamCipher).
///
/// ```
/// use shangmi_sm4_modes::Sm4Ctr;
/// use shangmi_sm4_modes::cipher::{KeyIvInit, StreamCipher};
///
/// let mut ctr = Sm4Ctr::new(&[1u8; 16].into(), &[2u8; 16].into());
/// let mut data = *b"counter mode";
/// ctr.apply_keystream(&mut data);
/// ```
pub type Sm4Ctr = ctr::Ctr128BE<Sm4>;

/// SM4-CTR counting in the last 32 bits only, big-endian, as GCM does.
pub type Sm4Ctr32 = ctr::Ctr32BE<Sm4>;

/// SM4-CBC encryption (no padding by itself; see `cipher::block_padding`).
///
/// ```
/// use shangmi_sm4_modes::{Sm4CbcDec, Sm4CbcEnc};
/// use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, block_padding::Pkcs7};
///
/// let mut buf = [0u8; 32];
/// buf[..5].copy_from_slice(b"hello");
/// let ct = Sm4CbcEnc::new(&[1u8; 16].into(), &[2u8; 16].into())
///     .encrypt_padded::<Pkcs7>(&mut buf, 5).unwrap().to_vec();
/// let mut ct2 = ct.clone();
/// let pt = Sm4CbcDec::new(&[1u8; 16].into(), &[2u8; 16].into())
///     .decrypt_padded::<Pkcs7>(&mut ct2).unwrap();
/// assert_eq!(pt, b"hello");
/// ```
pub type Sm4CbcEnc = chained::Chained<chained::CbcEncrypt>;
/// SM4-CBC decryption (every block, from the first, goes to the engine's parallel path).
pub type Sm4CbcDec = chained::Chained<chained::CbcDecrypt>;
/// SM4-CFB (128-bit feedback) encryption, on SM4's CBC chain.
pub type Sm4CfbEnc = chained::Chained<chained::CfbEncrypt>;
/// SM4-CFB (128-bit feedback) decryption.
pub type Sm4CfbDec = cfb_mode::Decryptor<Sm4>;
/// SM4-OFB (a stream cipher: the same operation encrypts and decrypts).
pub type Sm4Ofb = ofb::Ofb<Sm4>;
/// SM4-ECB encryption: only for compatibility; it leaks equal blocks.
pub type Sm4EcbEnc = ecb::Encryptor<Sm4>;
/// SM4-ECB decryption.
pub type Sm4EcbDec = ecb::Decryptor<Sm4>;

/// SM4 in the block chaining mode BC of GB/T 17964-2021 chapter 12, encryption:
/// Ci = E(Pi ⊕ Fi) with F1 the IV and Fi+1 = Fi ⊕ Ci (serial, on SM4's CBC chain).
///
/// ```
/// use shangmi_sm4_modes::{Sm4BcDec, Sm4BcEnc};
/// use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, block_padding::Pkcs7};
///
/// let (key, iv) = ([1u8; 16], [2u8; 16]);
/// let mut buf = [0u8; 32];
/// buf[..5].copy_from_slice(b"hello");
/// let ct = Sm4BcEnc::new(&key.into(), &iv.into())
///     .encrypt_padded::<Pkcs7>(&mut buf, 5).unwrap().to_vec();
/// let mut ct2 = ct.clone();
/// let pt = Sm4BcDec::new(&key.into(), &iv.into()).decrypt_padded::<Pkcs7>(&mut ct2).unwrap();
/// assert_eq!(pt, b"hello");
/// ```
pub type Sm4BcEnc = chained::Chained<BcEncrypt>;
/// SM4-BC decryption (GB/T 17964-2021 chapter 12): Pi = D(Ci) ⊕ Fi, every block of a call
/// on the engine's parallel path.
pub type Sm4BcDec = chained::Chained<BcDecrypt>;

/// SM4 in output feedback with a nonlinear function, OFBNLF (GB/T 17964-2021 chapter 13),
/// encryption: Ki = E_K(Ki−1) with K0 the IV, Ci = E_Ki(Pi). Every block has its own key
/// schedule, so this mode is several times slower than CBC.
///
/// ```
/// use shangmi_sm4_modes::{Sm4OfbnlfDec, Sm4OfbnlfEnc};
/// use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, block_padding::NoPadding};
///
/// let (key, iv) = ([1u8; 16], [2u8; 16]);
/// let mut buf = *b"two blocks of plaintext, 32 byte";
/// Sm4OfbnlfEnc::new(&key.into(), &iv.into()).encrypt_padded::<NoPadding>(&mut buf, 32).unwrap();
/// Sm4OfbnlfDec::new(&key.into(), &iv.into()).decrypt_padded::<NoPadding>(&mut buf).unwrap();
/// assert_eq!(&buf, b"two blocks of plaintext, 32 byte");
/// ```
pub type Sm4OfbnlfEnc = chained::Chained<OfbnlfEncrypt>;
/// SM4-OFBNLF decryption (GB/T 17964-2021 chapter 13): Pi = D_Ki(Ci).
pub type Sm4OfbnlfDec = chained::Chained<OfbnlfDecrypt>;
