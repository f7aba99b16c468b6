//! PEM input as files hold it (RFC 7468): text around the blocks is ignored, parameter
//! blocks (`EC PARAMETERS`, `SM2 PARAMETERS`) are skipped, and the first key block decides.

use super::decode::{
    public_key_from_spki_der, secret_key_from_pkcs8_der, secret_key_from_sec1_der,
};
use crate::{Error, PublicKey, SecretKey};
use alloc::vec::Vec;
use elliptic_curve::pkcs8::der::pem;
use zeroize::Zeroizing;

/// PKCS#8 `PrivateKeyInfo`.
pub(crate) const PKCS8: &str = "PRIVATE KEY";
/// PKCS#8 `EncryptedPrivateKeyInfo`.
pub(crate) const ENCRYPTED_PKCS8: &str = "ENCRYPTED PRIVATE KEY";
/// SEC1 `ECPrivateKey`; OpenSSL 3 labels SM2 keys `SM2 PRIVATE KEY`.
const SEC1: [&str; 2] = ["EC PRIVATE KEY", "SM2 PRIVATE KEY"];
/// SPKI.
const SPKI: &str = "PUBLIC KEY";

/// One PEM block of a text: its label and its text from `-----BEGIN` through the END line.
pub(crate) struct Block<'a> {
    pub(crate) label: &'a str,
    text: &'a str,
}

impl Block<'_> {
    /// The block's DER (wiped on drop). OpenSSL's legacy encrypted PEM (`Proc-Type:
    /// 4,ENCRYPTED` headers) is refused as an unsupported encryption.
    pub(crate) fn decode(&self) -> Result<Zeroizing<Vec<u8>>, Error> {
        if self.text.contains("Proc-Type:") || self.text.contains("DEK-Info:") {
            return Err(Error::UnsupportedEncryption);
        }
        let (_, der) = pem::decode_vec(self.text.as_bytes()).map_err(|_| Error::MalformedPem)?;
        Ok(Zeroizing::new(der))
    }
}

/// The blocks of a text, in order; text between them is ignored. A BEGIN line without its
/// END line is an error.
fn blocks(text: &str) -> impl Iterator<Item = Result<Block<'_>, Error>> {
    const BEGIN: &str = "-----BEGIN ";
    let mut rest = text;
    core::iter::from_fn(move || {
        let start = rest.find(BEGIN)?;
        let after = &rest[start + BEGIN.len()..];
        let Some(label_len) = after.find("-----") else {
            rest = "";
            return Some(Err(Error::MalformedPem));
        };
        let label = &after[..label_len];
        // The END line must name the same label.
        let end_marker_pos = after.find("-----END ").and_then(|p| {
            let tail = &after[p + "-----END ".len()..];
            (tail.starts_with(label) && tail[label.len()..].starts_with("-----"))
                .then_some(p + "-----END ".len() + label.len() + "-----".len())
        });
        let Some(end) = end_marker_pos else {
            rest = "";
            return Some(Err(Error::MalformedPem));
        };
        let block_len = BEGIN.len() + end;
        let block = Block {
            label,
            text: &rest[start..start + block_len],
        };
        rest = &rest[start + block_len..];
        Some(Ok(block))
    })
}

/// The first block whose label is a key (not a parameter block): `Ok(None)` if the text
/// has no PEM block at all.
pub(crate) fn first_key_block(text: &str) -> Result<Option<Block<'_>>, Error> {
    for block in blocks(text) {
        let block = block?;
        if !block.label.ends_with("PARAMETERS") {
            return Ok(Some(block));
        }
    }
    Ok(None)
}

/// The first private-key block of a text, skipping parameter blocks and other blocks (a
/// certificate before the key, say); an error names what was found instead.
pub(crate) fn private_key_block(text: &str) -> Result<Block<'_>, Error> {
    let mut other = false;
    for block in blocks(text) {
        let block = block?;
        if block.label == PKCS8 || block.label == ENCRYPTED_PKCS8 || SEC1.contains(&block.label) {
            return Ok(block);
        }
        other |= !block.label.ends_with("PARAMETERS");
    }
    Err(if other {
        Error::UnexpectedPemLabel
    } else {
        Error::MalformedPem
    })
}

/// The secret key of an unencrypted private-key block.
pub(crate) fn secret_key_from_block(block: &Block<'_>) -> Result<SecretKey, Error> {
    if block.label == ENCRYPTED_PKCS8 {
        return Err(Error::EncryptedKey);
    }
    let der = block.decode()?;
    if block.label == PKCS8 {
        secret_key_from_pkcs8_der(&der)
    } else {
        secret_key_from_sec1_der(&der)
    }
}

/// A secret key from PEM as key files hold it: PKCS#8 (`PRIVATE KEY`, either OID form) or
/// SEC1 (`EC PRIVATE KEY`, or `SM2 PRIVATE KEY` as OpenSSL 3 labels it), with any text
/// around the block and `EC PARAMETERS`/`SM2 PARAMETERS` blocks before it (what
/// `openssl ecparam -genkey -name SM2` writes). An `ENCRYPTED PRIVATE KEY` gives
/// [`Error::EncryptedKey`] (see `secret_key_from_pem_with_password` with the `encryption`
/// feature).
pub fn secret_key_from_pem(pem: &str) -> Result<SecretKey, Error> {
    secret_key_from_block(&private_key_block(pem)?)
}

/// A secret key from a PKCS#8 PEM document (`PRIVATE KEY`) in either OID form; text around
/// the block and parameter blocks are skipped, any other first block is
/// [`Error::UnexpectedPemLabel`].
pub fn secret_key_from_pkcs8_pem(pem: &str) -> Result<SecretKey, Error> {
    let block = first_key_block(pem)?.ok_or(Error::MalformedPem)?;
    match block.label {
        PKCS8 => secret_key_from_pkcs8_der(&block.decode()?),
        ENCRYPTED_PKCS8 => Err(Error::EncryptedKey),
        _ => Err(Error::UnexpectedPemLabel),
    }
}

/// A public key from the first `PUBLIC KEY` (SPKI) block of a text, either OID form; other
/// blocks before it are skipped. No such block but others: [`Error::UnexpectedPemLabel`].
pub fn public_key_from_pem(pem: &str) -> Result<PublicKey, Error> {
    let mut other = false;
    for block in blocks(pem) {
        let block = block?;
        if block.label == SPKI {
            return public_key_from_spki_der(&block.decode()?);
        }
        other = true;
    }
    Err(if other {
        Error::UnexpectedPemLabel
    } else {
        Error::MalformedPem
    })
}

/// A public key from an SPKI PEM document (`PUBLIC KEY`) in either OID form; text around
/// the block is ignored, any other first block is [`Error::UnexpectedPemLabel`].
pub fn public_key_from_spki_pem(pem: &str) -> Result<PublicKey, Error> {
    let block = first_key_block(pem)?.ok_or(Error::MalformedPem)?;
    if block.label != SPKI {
        return Err(Error::UnexpectedPemLabel);
    }
    public_key_from_spki_der(&block.decode()?)
}

impl crate::dsa::SigningKey {
    /// From a private-key file's text in any unencrypted form
    /// [`secret_key_from_pem`] takes (PKCS#8 either OID form, SEC1, with text and parameter
    /// blocks around), default identifier; for another identifier use
    /// [`new_with_id`](Self::new_with_id) on the [`SecretKey`].
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        Self::new(&secret_key_from_pem(pem)?)
    }
}

impl crate::dsa::VerifyingKey {
    /// From the first `PUBLIC KEY` block of a text ([`public_key_from_pem`]), default
    /// identifier.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        Ok(Self::new(&public_key_from_pem(pem)?))
    }
}

impl crate::pke::DecryptingKey {
    /// From a private-key file's text in any unencrypted form [`secret_key_from_pem`] takes.
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        Ok(Self::new(secret_key_from_pem(pem)?))
    }
}

impl crate::pke::EncryptingKey {
    /// From the first `PUBLIC KEY` block of a text ([`public_key_from_pem`]).
    pub fn from_pem(pem: &str) -> Result<Self, Error> {
        Ok(Self::new(public_key_from_pem(pem)?))
    }
}
