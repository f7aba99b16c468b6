//! One interface for SM2 private-key operations, so a key may live in memory or in a crypto
//! device (an SDF card or HSM, an SKF USB key, PKCS#11) that never hands it out.
//!
//! [`PrivateKeyOps`] signs (a message with Z_A from an identifier, or a prepared digest
//! e = SM3(Z_A ‖ M) as GM/T 0018's `SDF_InternalSign_ECC` takes it), decrypts GB/T 32918.4
//! ciphertexts, and runs the GB/T 32918.3 key exchange. The exchange yields only the KDF
//! output of the length asked ([`KeyAgreement::finish`]), never the shared point U, so a
//! device that keeps the agreed secret inside can implement it. [`SecretKey`],
//! [`SigningKey`] and [`DecryptingKey`](crate::pke::DecryptingKey)
//! implement it in memory.
//!
//! ```
//! use shangmi_sm2::{PrivateKeyOps, SecretKey, dsa::VerifyingKey};
//! let key = SecretKey::from_bytes(&[7u8; 32].into()).unwrap();
//! let sig = key.sign(b"message")?;
//! let vk = VerifyingKey::new(&key.public_key());
//! vk.verify_e(&vk.hash_message(b"message"), &sig)?;
//! # Ok::<(), shangmi_sm2::Error>(())
//! ```

use crate::dsa::{Signature, SigningKey, VerifyingKey};
use crate::kx::{KeyExchange, Peer, Role};
use crate::{DEFAULT_ID, Error, PublicKey, SecretKey};
use rand_core::TryCryptoRng;

/// An error of a private-key operation: this crate's [`Error`] or a device's own type.
pub trait KeyOpError: core::fmt::Debug + core::fmt::Display + From<Error> {
    /// Whether the operation refused its input (a malformed or forged ciphertext, a peer
    /// point off the curve), as opposed to the key's holder failing (a device error). A
    /// protocol blames the peer for the first and itself for the second.
    fn is_refused_input(&self) -> bool;
}

impl KeyOpError for Error {
    fn is_refused_input(&self) -> bool {
        matches!(
            self,
            Error::Decryption
                | Error::EmptyMessage
                | Error::InvalidPoint
                | Error::KeyExchange
                | Error::KdfZero
                | Error::IdTooLong
                | Error::InvalidPrehash
        )
    }
}

/// SM2 private-key operations (GB/T 32918.2–.4), wherever the key lives.
///
/// Only [`public_key`](Self::public_key), [`sign_digest`](Self::sign_digest),
/// [`decrypt_into`](Self::decrypt_into) and [`start_key_exchange`](Self::start_key_exchange)
/// need implementing, none of which allocates. A key made for one use (a device's sign key)
/// answers the others with an error of its type.
pub trait PrivateKeyOps {
    /// The error type (this crate's [`Error`] for in-memory keys).
    type Error: KeyOpError;
    /// A started key exchange.
    type KeyExchange: KeyAgreement<Error = Self::Error>;

    /// The public key (for Z_A, certificates and checks).
    fn public_key(&self) -> PublicKey;

    /// Signs a prepared digest e = SM3(Z_A ‖ M) (GB/T 32918.2 §6.1 A3–A7).
    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, Self::Error>;

    /// Signs `msg` with the distinguishing identifier `id` (Z_A and e computed here, then
    /// [`sign_digest`](Self::sign_digest)).
    fn sign_with_id(&self, id: &[u8], msg: &[u8]) -> Result<Signature, Self::Error> {
        let e = VerifyingKey::new_with_id(&self.public_key(), id)?.hash_message(msg);
        self.sign_digest(&e)
    }

    /// Signs `msg` with the default identifier `1234567812345678`.
    fn sign(&self, msg: &[u8]) -> Result<Signature, Self::Error> {
        self.sign_with_id(DEFAULT_ID, msg)
    }

    /// Decrypts a GB/T 32918.4-2016 ciphertext `04 ‖ x1 ‖ y1 ‖ C3 ‖ C2` (C1 may also be
    /// compressed) into `out`, returning the plaintext's length. `out` needs room for C2
    /// (the ciphertext's length less 97 with C1 uncompressed).
    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, Self::Error>;

    /// Decrypts a `C1 ‖ C3 ‖ C2` ciphertext (as [`decrypt_into`](Self::decrypt_into)).
    #[cfg(feature = "alloc")]
    fn decrypt(&self, c1c3c2: &[u8]) -> Result<alloc::vec::Vec<u8>, Self::Error> {
        let mut out = alloc::vec![0u8; c1c3c2.len().saturating_sub(65)];
        match self.decrypt_into(c1c3c2, &mut out) {
            Ok(n) => {
                out.truncate(n);
                Ok(out)
            }
            Err(e) => {
                zeroize::Zeroize::zeroize(&mut out);
                Err(e)
            }
        }
    }

    /// Whether [`start_key_exchange`](Self::start_key_exchange) can work for this key, so a
    /// protocol can refuse a configuration that needs it (TLCP's ECDHE suites) when it is
    /// made instead of mid-handshake. True unless a holder says otherwise (a GM/T 0018
    /// device, whose agreement functions return a key handle, never the key material).
    fn supports_key_exchange(&self) -> bool {
        true
    }

    /// Starts a GB/T 32918.3 key exchange in `role` with this key as the static key and
    /// identifier `id`; an in-memory key draws the ephemeral key from `rng`, a device from
    /// its own generator.
    fn start_key_exchange<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        role: Role,
        id: &[u8],
    ) -> Result<Self::KeyExchange, Self::Error>;
}

/// One side of a started GB/T 32918.3 key exchange.
pub trait KeyAgreement {
    /// The error type.
    type Error: KeyOpError;

    /// This side's ephemeral point (R_A or R_B), to send to the peer. A holder that makes
    /// its point only as it finishes (a GM/T 0018 device as the responder:
    /// `SDF_GenerateAgreementDataAndKeyWithECC` makes R_B and the key in one call) gives it
    /// through [`HeldKey::ephemeral_public`] and answers here with its static public key.
    fn ephemeral_public(&self) -> PublicKey;

    /// Finishes with the peer's static key, identifier and ephemeral point, filling `key`
    /// with KDF(x_U ‖ y_U ‖ Z_A ‖ Z_B, klen) for klen = `key.len()` bytes. Only this key
    /// material leaves the holder, not U.
    fn finish(self, peer: Peer<'_>, key: &mut [u8]) -> Result<(), Self::Error>;

    /// Whether the KDF output stays with the holder: a device whose agreement ends in a key
    /// handle (GM/T 0018's `SDF_GenerateKeyWithECC`) answers true, and then only
    /// [`finish_held`](Self::finish_held) works. False unless a holder says otherwise.
    fn holds_output(&self) -> bool {
        false
    }

    /// Finishes as [`finish`](Self::finish) with a KDF output of `klen` bytes that stays with
    /// the holder, and runs `use_key` with it as an HMAC-SM3 key ([`HeldKey`]) — what TLCP's
    /// master secret (a PRF keyed with the output) needs. For an exchange whose
    /// [`holds_output`](Self::holds_output) is true; the default refuses
    /// (`Error::KeyExchange`: the caller runs [`finish`](Self::finish) for the others).
    fn finish_held<T>(
        self,
        peer: Peer<'_>,
        klen: usize,
        use_key: impl FnOnce(&mut dyn HeldKey<Self::Error>) -> Result<T, Self::Error>,
    ) -> Result<T, Self::Error>
    where
        Self: Sized,
    {
        let _ = (peer, klen, use_key);
        Err(Error::KeyExchange.into())
    }
}

/// A key-exchange output kept by its holder (a device's key handle), usable only as the key
/// of HMAC-SM3 (GB/T 15852.2 with SM3; GM/T 0018-2023's `SDF_HMACInit` with the handle).
pub trait HeldKey<E> {
    /// This side's ephemeral point, as the holder made it (for a responder device, only
    /// known here).
    fn ephemeral_public(&self) -> PublicKey;

    /// HMAC-SM3 keyed with the held output, over `parts` concatenated.
    fn hmac_sm3(&mut self, parts: &[&[u8]]) -> Result<[u8; 32], E>;
}

impl KeyAgreement for KeyExchange {
    type Error = Error;

    fn ephemeral_public(&self) -> PublicKey {
        KeyExchange::ephemeral_public(self)
    }

    fn finish(self, peer: Peer<'_>, key: &mut [u8]) -> Result<(), Error> {
        KeyExchange::finish(self, peer, key).map(|_| ())
    }
}

/// In-memory decryption through `crate::pke` (with the secret alone: no public key, no
/// heap), which needs `alloc`; without it every in-memory key answers `Error::Decryption`.
fn decrypt_in_memory(secret: &SecretKey, ct: &[u8], out: &mut [u8]) -> Result<usize, Error> {
    #[cfg(feature = "alloc")]
    {
        crate::pke::decrypt_c1c3c2_into(secret, ct, out)
    }
    #[cfg(not(feature = "alloc"))]
    {
        let _ = (secret, ct, out);
        Err(Error::Decryption)
    }
}

/// The in-memory key forms differ only in how they reach the secret key and in the values
/// they cache; one [`PrivateKeyOps`] implementation serves them all.
mod in_memory {
    use super::*;

    /// An in-memory SM2 private key ([`SecretKey`], [`SigningKey`],
    /// [`DecryptingKey`](crate::pke::DecryptingKey)); sealed.
    pub trait InMemory {
        /// The public key, cached where the form keeps it.
        fn public(&self) -> PublicKey;
        /// Signs the digest `e`.
        fn sign_e(&self, e: &[u8; 32]) -> Result<Signature, Error>;
        /// Runs `f` with the secret key (made from the form on each call if it keeps none).
        fn with_secret<T>(&self, f: impl FnOnce(&SecretKey) -> T) -> T;
    }

    /// Makes the signing key of the secret on each call (d = n - 1 cannot sign:
    /// `Error::InvalidSecretKey`).
    impl InMemory for SecretKey {
        fn public(&self) -> PublicKey {
            SecretKey::public_key(self)
        }

        fn sign_e(&self, e: &[u8; 32]) -> Result<Signature, Error> {
            Ok(SigningKey::new(self)?.sign_e(e))
        }

        fn with_secret<T>(&self, f: impl FnOnce(&SecretKey) -> T) -> T {
            f(self)
        }
    }

    /// Signs with the key's cached values; decryption and key exchange make the secret key
    /// from it on each call.
    impl InMemory for SigningKey {
        fn public(&self) -> PublicKey {
            *self.verifying_key().public_key()
        }

        fn sign_e(&self, e: &[u8; 32]) -> Result<Signature, Error> {
            Ok(SigningKey::sign_e(self, e))
        }

        fn with_secret<T>(&self, f: impl FnOnce(&SecretKey) -> T) -> T {
            f(&self.secret_key())
        }
    }

    #[cfg(feature = "alloc")]
    impl InMemory for crate::pke::DecryptingKey {
        fn public(&self) -> PublicKey {
            *self.encrypting_key().public_key()
        }

        fn sign_e(&self, e: &[u8; 32]) -> Result<Signature, Error> {
            self.secret_key().sign_e(e)
        }

        fn with_secret<T>(&self, f: impl FnOnce(&SecretKey) -> T) -> T {
            f(self.secret_key())
        }
    }
}

/// [`SecretKey`], [`SigningKey`] and [`DecryptingKey`](crate::pke::DecryptingKey) in memory.
impl<K: in_memory::InMemory> PrivateKeyOps for K {
    type Error = Error;
    type KeyExchange = KeyExchange;

    fn public_key(&self) -> PublicKey {
        self.public()
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, Error> {
        self.sign_e(e)
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, Error> {
        self.with_secret(|secret| decrypt_in_memory(secret, c1c3c2, out))
    }

    fn start_key_exchange<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        role: Role,
        id: &[u8],
    ) -> Result<KeyExchange, Error> {
        self.with_secret(|secret| KeyExchange::new(rng, role, secret, id))
    }
}

/// Any [`PrivateKeyOps`] key as the RustCrypto signer `x509-cert`'s builders take
/// (`Signer` + `Keypair` + sm2-with-sm3 as the algorithm, default identifier): certificates,
/// requests and CRLs signed by a key in a device.
#[cfg(feature = "pkcs8")]
pub struct X509Signer<'a, K: ?Sized> {
    key: &'a K,
    verifying_key: VerifyingKey,
}

#[cfg(feature = "pkcs8")]
impl<'a, K: PrivateKeyOps + ?Sized> X509Signer<'a, K> {
    /// Wraps `key`.
    pub fn new(key: &'a K) -> Self {
        X509Signer {
            key,
            verifying_key: VerifyingKey::new(&key.public_key()),
        }
    }
}

#[cfg(feature = "pkcs8")]
impl<K: PrivateKeyOps + ?Sized> signature::Keypair for X509Signer<'_, K> {
    type VerifyingKey = VerifyingKey;

    fn verifying_key(&self) -> VerifyingKey {
        self.verifying_key.clone()
    }
}

#[cfg(feature = "pkcs8")]
impl<K: PrivateKeyOps + ?Sized> signature::Signer<Signature> for X509Signer<'_, K> {
    fn try_sign(&self, msg: &[u8]) -> Result<Signature, signature::Error> {
        let e = self.verifying_key.hash_message(msg);
        self.key
            .sign_digest(&e)
            .map_err(|_| signature::Error::new())
    }
}

#[cfg(feature = "pkcs8")]
impl<K: PrivateKeyOps + ?Sized> elliptic_curve::pkcs8::spki::SignatureAlgorithmIdentifier
    for X509Signer<'_, K>
{
    type Params = elliptic_curve::pkcs8::der::AnyRef<'static>;
    const SIGNATURE_ALGORITHM_IDENTIFIER: elliptic_curve::pkcs8::spki::AlgorithmIdentifierRef<
        'static,
    > = elliptic_curve::pkcs8::spki::AlgorithmIdentifierRef {
        oid: crate::keys::SM2_WITH_SM3_OID,
        parameters: None,
    };
}
