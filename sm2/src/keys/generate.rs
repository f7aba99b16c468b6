//! Key generation from the generators people pass: fallible ones (`getrandom::SysRng`)
//! through `random`/`try_generate_from_rng`, infallible ones (`rand::rng()`) through the
//! same or `generate_from_rng`, the operating system's through `Generate::generate()` with
//! the `getrandom` feature (RustCrypto's `Generate` trait, as `p256`/`ecdsa` 0.14/0.17).

use crate::dsa::SigningKey;
use crate::hash::DEFAULT_ID;
use elliptic_curve::Generate;
use rand_core::TryCryptoRng;
use zeroize::Zeroize;
#[cfg(feature = "alloc")]
use {
    crate::pke::DecryptingKey,
    crate::{Error, SecretKey},
};

/// A fresh key with the default identifier: 32 random bytes until they are in [1, n-2]
/// (rejection sampling, so the key is uniform; a retry happens with probability ~2^-32).
impl Generate for SigningKey {
    fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        loop {
            let mut d = crate::FieldBytes::default();
            rng.try_fill_bytes(&mut d)?;
            let key = SigningKey::from_bytes_with_id(&d, DEFAULT_ID);
            d.zeroize();
            if let Ok(key) = key {
                return Ok(key);
            }
        }
    }
}

/// A fresh key, d uniform in [1, n-1].
#[cfg(feature = "alloc")]
impl Generate for DecryptingKey {
    fn try_generate_from_rng<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        SecretKey::try_generate_from_rng(rng).map(DecryptingKey::new)
    }
}

#[cfg(feature = "alloc")]
impl DecryptingKey {
    /// A fresh random key from any generator: `getrandom::SysRng`, `rand::rng()`, a seeded
    /// `StdRng`. Fails only if the generator does ([`Error::Rng`]).
    ///
    /// ```
    /// use shangmi_sm2::pke::DecryptingKey;
    /// let key = DecryptingKey::random(&mut getrandom::SysRng)?;
    /// # Ok::<(), shangmi_sm2::Error>(())
    /// ```
    pub fn random<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<Self, Error> {
        Self::try_generate_from_rng(rng).map_err(|_| Error::Rng)
    }
}
