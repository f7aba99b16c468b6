//! GB/T 35276-2017 `SM2EnvelopedKey`: an SM2 private key encrypted with SM4-ECB under a
//! random 16-byte key, that key SM2-encrypted (GM/T 0009 `SM2Cipher`, C1C3C2) to the
//! recipient:
//!
//! ```text
//! SM2EnvelopedKey ::= SEQUENCE {
//!   symAlgID                AlgorithmIdentifier,   -- sm4-ecb 1.2.156.10197.1.104.1, NULL
//!   symEncryptedKey         SM2Cipher,
//!   sm2PublicKey            BIT STRING,            -- 04 ‖ X ‖ Y of the wrapped key
//!   sm2EncryptedPrivateKey  BIT STRING }           -- SM4-ECB of the 32-byte d, no padding
//! ```
//!
//! This is the layout gmsm v0.44 (`sm2.MarshalEnvelopedPrivateKey`) writes; unwrapping also
//! takes the bare SM4 OID and a 64-byte private key field (d left-padded with zeros, as
//! SKF devices export it), and checks that the key matches the public key.

use crate::{Error, PublicKey, SecretKey};
use alloc::vec::Vec;
use der::asn1::{Any, BitString};
use der::{Decode, Encode, Sequence};
use elliptic_curve::sec1::ToSec1Point;
use shangmi_sm2::elliptic_curve;
use shangmi_sm2::pke::{DecryptingKey, EncryptingKey};
use shangmi_sm4_modes::cipher::block_padding::NoPadding;
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyInit};
use shangmi_sm4_modes::{Sm4EcbDec, Sm4EcbEnc};
use spki::AlgorithmIdentifierOwned;
use zeroize::{Zeroize, Zeroizing};

/// The ASN.1 structure.
#[derive(Clone, Debug, PartialEq, Eq, Sequence)]
pub struct Sm2EnvelopedKey {
    /// The symmetric algorithm (SM4-ECB).
    pub sym_alg_id: AlgorithmIdentifierOwned,
    /// The SM4 key, SM2-encrypted (GM/T 0009 SM2Cipher, kept as its DER).
    pub sym_encrypted_key: Any,
    /// The wrapped key's public key, `04 ‖ X ‖ Y`.
    pub sm2_public_key: BitString,
    /// SM4-ECB of the private key.
    pub sm2_encrypted_private_key: BitString,
}

/// Wraps `key` to `recipient` (SM2-encrypting a fresh SM4 key); returns the DER.
pub fn wrap(recipient: &PublicKey, key: &SecretKey) -> Result<Vec<u8>, Error> {
    wrap_with_rng(recipient, key, &mut getrandom::SysRng)
}

/// [`wrap`] drawing the SM4 key and the SM2 encryption nonce from `rng`.
pub fn wrap_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
    recipient: &PublicKey,
    key: &SecretKey,
    rng: &mut R,
) -> Result<Vec<u8>, Error> {
    let mut sym = Zeroizing::new([0u8; 16]);
    crate::fill(rng, sym.as_mut())?;
    let d = Zeroizing::new(key.to_bytes());
    let mut d_arr = Zeroizing::new([0u8; 32]);
    d_arr.copy_from_slice(&d);
    let enc = Sm4EcbEnc::new(&(*sym).into()).encrypt_padded_vec::<NoPadding>(d_arr.as_ref());
    let enc_key = EncryptingKey::new(*recipient).encrypt_der(rng, sym.as_ref())?;
    let public = key.public_key().to_sec1_point(false);
    let env = Sm2EnvelopedKey {
        sym_alg_id: AlgorithmIdentifierOwned {
            oid: crate::oid::SM4_ECB,
            parameters: Some(Any::from(der::asn1::Null)),
        },
        sym_encrypted_key: Any::from_der(&enc_key)?,
        sm2_public_key: BitString::from_bytes(public.as_bytes())?,
        sm2_encrypted_private_key: BitString::from_bytes(&enc)?,
    };
    Ok(env.to_der()?)
}

/// Unwraps an `SM2EnvelopedKey` with the recipient's private key.
pub fn unwrap(recipient: &SecretKey, der: &[u8]) -> Result<SecretKey, Error> {
    let env = Sm2EnvelopedKey::from_der(der)?;
    if env.sym_alg_id.oid != crate::oid::SM4_ECB && env.sym_alg_id.oid != crate::oid::SM4 {
        return Err(Error::UnsupportedAlgorithm);
    }
    let public_bytes = env.sm2_public_key.as_bytes().ok_or(Error::KeyMismatch)?;
    let public = shangmi_sm2::keys::public_key_from_sec1(public_bytes)?;
    let dk = DecryptingKey::new(recipient.clone());
    let mut sym = Zeroizing::new(
        dk.decrypt_der(&env.sym_encrypted_key.to_der()?)
            .map_err(|_| Error::Decryption)?,
    );
    let sym_arr: [u8; 16] = sym.as_slice().try_into().map_err(|_| Error::Decryption)?;
    sym.zeroize();
    let sym_arr = Zeroizing::new(sym_arr);
    let enc = env
        .sm2_encrypted_private_key
        .as_bytes()
        .ok_or(Error::Decryption)?;
    let d = Zeroizing::new(
        Sm4EcbDec::new(&(*sym_arr).into())
            .decrypt_padded_vec::<NoPadding>(enc)
            .map_err(|_| Error::Decryption)?,
    );
    let scalar = match d.len() {
        32 => &d[..],
        // 64-byte field: the top 32 bytes must be zero
        64 if d[..32].iter().fold(0u8, |a, b| a | b) == 0 => &d[32..],
        _ => return Err(Error::Decryption),
    };
    let key = SecretKey::from_slice(scalar).map_err(|_| Error::Decryption)?;
    if key.public_key() != public {
        return Err(Error::KeyMismatch);
    }
    Ok(key)
}

/// The public key an envelope carries (readable without the recipient's key).
pub fn public_key(der: &[u8]) -> Result<PublicKey, Error> {
    let env = Sm2EnvelopedKey::from_der(der)?;
    let public_bytes = env.sm2_public_key.as_bytes().ok_or(Error::KeyMismatch)?;
    Ok(shangmi_sm2::keys::public_key_from_sec1(public_bytes)?)
}
