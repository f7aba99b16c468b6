#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;

pub use aead;
pub use cipher;
pub use cmac;
pub use shangmi_sm4::{Backend, Sm4};

pub mod cbcmac;
mod ccm;
use shangmi_dispatch::ct;
mod cts;
mod gcm;
mod gcm_siv;
mod ghash;
mod hctr;
mod mac;
pub mod many;
mod plain;
mod sm4_aead;
#[cfg(feature = "stream")]
pub mod stream;
mod xts;
#[cfg(target_arch = "x86_64")]
mod xts_avx512;

pub use cbcmac::{Sm4AnsiRetailMac, Sm4CbcMac, Sm4Cbcr, Sm4Emac, Sm4Lmac, Sm4MacDes, Sm4TrCbc};
pub use ccm::{CcmNonceSize, CcmTagSize, Sm4Ccm, Sm4CcmCustom};
pub use cts::{CtsTooShort, Sm4CbcCts};
pub use gcm::{GcmTagSize, Sm4Gcm, Sm4GcmCustom};
pub use gcm_siv::Sm4GcmSiv;
pub use ghash::GhashBackend;
pub use hctr::{HctrError, Sm4Hctr};
pub use mac::{Sm4Cmac, Sm4Gmac};
pub use many::{ManyError, cbc_encrypt_many, cbc_encrypt_many_in_place, cmac_many};
pub use plain::chained::{CbcDecrypt, CbcEncrypt, CfbEncrypt, Direction};
pub use plain::{
    Sm4BcDec, Sm4BcEnc, Sm4CbcDec, Sm4CbcEnc, Sm4CfbDec, Sm4CfbEnc, Sm4Ctr, Sm4Ctr32, Sm4EcbDec,
    Sm4EcbEnc, Sm4Ofb, Sm4OfbnlfDec, Sm4OfbnlfEnc,
};
pub use sm4_aead::{Ccm, Gcm, GcmSiv, Mode, Sm4Aead};
pub use xts::{GbT17964, Ieee1619, Sm4Xts, Sm4XtsGb, Sm4XtsIeee, XtsError, XtsStandard};
