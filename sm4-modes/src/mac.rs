//! MACs: CMAC (NIST SP 800-38B, GB/T 15852.1 MAC algorithm 5) through RustCrypto's `cmac`
//! crate over [`Sm4`], and GMAC (GCM with an empty text, SP 800-38D).

use aead::{AeadInOut, Error};
use cipher::{Key, KeyInit, KeySizeUser};
use shangmi_sm4::Sm4;

use crate::Sm4Gcm;

/// SM4-CMAC (NIST SP 800-38B) as a `digest` 0.11 [`Mac`](cmac::digest::Mac).
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
pub type Sm4Cmac = cmac::Cmac<Sm4>;

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
