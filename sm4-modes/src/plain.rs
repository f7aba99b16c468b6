//! The classic modes (NIST SP 800-38A, GB/T 17964-2021), so one crate serves every SM4
//! mode. CBC (both directions) and CFB encryption are this crate's own ([`chained`]): the
//! serial directions run on SM4's CBC chain, CBC decryption gives the engine every block.
//! The others are aliases of RustCrypto's generic mode crates over [`Sm4`], which drive the
//! engine through its parallel-block interface where the mode allows (ECB, CTR, CFB
//! decryption); OFB is serial by definition.
//!
//! For the fastest CTR, [`Sm4::apply_ctr`] builds and encrypts the counters in registers.

use shangmi_sm4::Sm4;

pub mod chained;

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
