//! Encrypted PKCS#8 (`EncryptedPrivateKeyInfo`, RFC 5958 §3) with PBES2 (RFC 8018 §6.2):
//! PBKDF2 with HMAC-SM3 and SM4-CBC (1.2.156.10197.1.104.2) — the PRF named
//! 1.2.156.10197.1.401.3.1 (`hmacWithSM3`, GM/T 0091-2020, as OpenSSL 3.x writes
//! it: `openssl pkcs8 -topk8 -v2 sm4-cbc -v2prf hmacWithSM3`) or 1.2.156.10197.1.401.2 (as
//! GmSSL and gmsm write it), both read —, and PBKDF2 with HMAC-SHA-256 and AES-CBC,
//! OpenSSL's default (`openssl pkcs8 -topk8`); CBC with PKCS#7 padding in all.

use super::decode::{parse_encrypted, secret_key_from_der};
use crate::{Error, SecretKey};
use aes::{Aes128, Aes192, Aes256};
use alloc::vec::Vec;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt};
use cbc::cipher::{KeyInit, KeyIvInit};
use elliptic_curve::pkcs8::der::asn1::{Null, OctetStringRef};
use elliptic_curve::pkcs8::der::{
    Decode, Encode, Header, Length, Reader, SecretDocument, SliceReader, Tag,
};
use elliptic_curve::pkcs8::{AlgorithmIdentifierRef, ObjectIdentifier};
use rand_core::TryCryptoRng;
use shangmi_sm4::Sm4;
use zeroize::Zeroizing;
#[cfg(feature = "pem")]
use {
    super::pem::{ENCRYPTED_PKCS8, private_key_block, secret_key_from_block},
    alloc::string::String,
    elliptic_curve::pkcs8::LineEnding,
};

const PBES2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.5.13");
const PBKDF2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.5.12");
/// hmacWithSHA256 (RFC 8018 §B.1.2).
const HMAC_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.2.9");
/// HMAC-SM3 as GM/T 0091-2020 and OpenSSL 3.x (`hmacWithSM3`, OpenSSL 3.6.3's `obj_mac.h`:
/// sm3 3 1) name the PBKDF2 PRF.
const HMAC_SM3: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.401.3.1");
/// HMAC-SM3 as GmSSL and gmsm name the PBKDF2 PRF (OpenSSL 3.6 refuses it: "unsupported prf").
const HMAC_SM3_GMSSL: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.401.2");
/// SM4-CBC (GM/T 0006).
const SM4_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.104.2");
const AES128_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.2");
const AES192_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.22");
const AES256_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.42");

/// The most PBKDF2 iterations a decoder runs: files ask for 2048 (OpenSSL) to 65,536
/// (GmSSL), guidance for new keys is in the hundreds of thousands; the bound keeps a hostile
/// file from stalling a loader for minutes.
pub const MAX_ITERATIONS: u32 = 10_000_000;

/// A PBES2 scheme for writing encrypted keys; salt and IV are 16 random bytes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncryptionScheme {
    /// PBKDF2-HMAC-SM3 and SM4-CBC with the PRF named 1.2.156.10197.1.401.3.1, as OpenSSL
    /// 3.x writes and reads it (PRF with NULL parameters, no key length); GmSSL
    /// reads only [`Pbkdf2Sm3Sm4CbcGmssl`](Self::Pbkdf2Sm3Sm4CbcGmssl).
    Pbkdf2Sm3Sm4Cbc {
        /// PBKDF2 iteration count (GmSSL uses 65,536).
        iterations: u32,
    },
    /// PBKDF2-HMAC-SM3 and SM4-CBC with the PRF named 1.2.156.10197.1.401.2, as GmSSL and
    /// gmsm write it (key length 16 stated, PRF without parameters): for GmSSL, which
    /// reads no other; OpenSSL cannot read it.
    Pbkdf2Sm3Sm4CbcGmssl {
        /// PBKDF2 iteration count (GmSSL uses 65,536).
        iterations: u32,
    },
    /// PBKDF2-HMAC-SHA-256 and AES-256-CBC, written as OpenSSL 3 writes it.
    Pbkdf2Sha256Aes256Cbc {
        /// PBKDF2 iteration count (OpenSSL's default is 2048).
        iterations: u32,
    },
}

#[derive(Clone, Copy)]
enum Prf {
    Sm3,
    Sha256,
}

#[derive(Clone, Copy)]
enum Cipher {
    Sm4,
    Aes128,
    Aes192,
    Aes256,
}

impl Cipher {
    fn key_len(self) -> usize {
        match self {
            Cipher::Sm4 | Cipher::Aes128 => 16,
            Cipher::Aes192 => 24,
            Cipher::Aes256 => 32,
        }
    }
}

/// What a PBES2 `AlgorithmIdentifier` asks for.
struct Params<'a> {
    salt: &'a [u8],
    iterations: u32,
    prf: Prf,
    cipher: Cipher,
    iv: [u8; 16],
}

fn malformed<T>(_: T) -> Error {
    Error::MalformedKey
}

/// The body of a SEQUENCE given as `AnyRef` parameters.
fn sequence_body<'a>(
    params: Option<elliptic_curve::pkcs8::der::AnyRef<'a>>,
) -> Result<&'a [u8], Error> {
    let any = params.ok_or(Error::MalformedKey)?;
    if any.header().tag() != Tag::Sequence {
        return Err(Error::MalformedKey);
    }
    Ok(any.value())
}

fn parse_params<'a>(alg: &AlgorithmIdentifierRef<'a>) -> Result<Params<'a>, Error> {
    if alg.oid != PBES2 {
        // PBES1 (PKCS#5 v1.5, PKCS#12 schemes) and anything else.
        return Err(Error::UnsupportedEncryption);
    }
    let mut r = SliceReader::new(sequence_body(alg.parameters)?).map_err(malformed)?;
    let kdf = AlgorithmIdentifierRef::decode(&mut r).map_err(malformed)?;
    let enc = AlgorithmIdentifierRef::decode(&mut r).map_err(malformed)?;
    r.finish().map_err(malformed)?;
    if kdf.oid != PBKDF2 {
        return Err(Error::UnsupportedEncryption); // scrypt, say
    }
    let mut r = SliceReader::new(sequence_body(kdf.parameters)?).map_err(malformed)?;
    let salt = <&OctetStringRef>::decode(&mut r).map_err(malformed)?;
    let iterations = u32::decode(&mut r).map_err(malformed)?;
    let key_len = Option::<u32>::decode(&mut r).map_err(malformed)?;
    let prf_alg = Option::<AlgorithmIdentifierRef<'_>>::decode(&mut r).map_err(malformed)?;
    r.finish().map_err(malformed)?;
    // The PRF defaults to hmacWithSHA1 (RFC 8018 §A.2), which is not supported.
    let prf = match prf_alg {
        Some(p) if p.oid == HMAC_SM3 || p.oid == HMAC_SM3_GMSSL => Prf::Sm3,
        Some(p) if p.oid == HMAC_SHA256 => Prf::Sha256,
        _ => return Err(Error::UnsupportedEncryption),
    };
    let cipher = match enc.oid {
        SM4_CBC => Cipher::Sm4,
        AES128_CBC => Cipher::Aes128,
        AES192_CBC => Cipher::Aes192,
        AES256_CBC => Cipher::Aes256,
        _ => return Err(Error::UnsupportedEncryption),
    };
    if key_len.is_some_and(|n| n as usize != cipher.key_len()) {
        return Err(Error::MalformedKey);
    }
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(Error::UnsupportedEncryption);
    }
    let iv_any = enc.parameters.ok_or(Error::MalformedKey)?;
    if iv_any.header().tag() != Tag::OctetString {
        return Err(Error::MalformedKey);
    }
    let iv: [u8; 16] = iv_any.value().try_into().map_err(malformed)?;
    Ok(Params {
        salt: salt.as_bytes(),
        iterations,
        prf,
        cipher,
        iv,
    })
}

fn derive_key(password: &[u8], p: &Params<'_>) -> Result<Zeroizing<[u8; 32]>, Error> {
    let mut key = Zeroizing::new([0u8; 32]);
    let out = &mut key[..p.cipher.key_len()];
    match p.prf {
        Prf::Sm3 => {
            pbkdf2::pbkdf2::<hmac::SimpleHmac<crate::Sm3>>(password, p.salt, p.iterations, out)
        }
        Prf::Sha256 => {
            pbkdf2::pbkdf2::<hmac::Hmac<sha2::Sha256>>(password, p.salt, p.iterations, out)
        }
    }
    .map_err(|_| Error::UnsupportedEncryption)?;
    Ok(key)
}

/// CBC decryption with PKCS#7 padding in place; the plaintext's length.
fn cbc_decrypt<C: BlockCipherDecrypt + KeyInit>(
    key: &[u8],
    iv: &[u8; 16],
    buf: &mut [u8],
) -> Result<usize, Error>
where
    cbc::Decryptor<C>: KeyIvInit,
{
    let dec = cbc::Decryptor::<C>::new_from_slices(key, iv).map_err(malformed)?;
    dec.decrypt_padded::<Pkcs7>(buf)
        .map(|pt| pt.len())
        .map_err(|_| Error::WrongPassword)
}

fn cbc_encrypt<C: BlockCipherEncrypt + KeyInit>(
    key: &[u8],
    iv: &[u8; 16],
    buf: &mut [u8],
    msg_len: usize,
) -> Result<usize, Error>
where
    cbc::Encryptor<C>: KeyIvInit,
{
    let enc = cbc::Encryptor::<C>::new_from_slices(key, iv).map_err(|_| Error::Encoding)?;
    enc.encrypt_padded::<Pkcs7>(buf, msg_len)
        .map(|ct| ct.len())
        .map_err(|_| Error::Encoding)
}

/// A secret key from encrypted PKCS#8 DER (`EncryptedPrivateKeyInfo`) and its password.
/// A wrong password gives [`Error::WrongPassword`] (bad padding, or a decryption that is not
/// a private key); an unsupported scheme [`Error::UnsupportedEncryption`].
///
/// The decrypted `PrivateKeyInfo` may use either OID form; a SEC1 `ECPrivateKey` inside
/// is taken too.
pub fn secret_key_from_encrypted_pkcs8_der(
    der: &[u8],
    password: impl AsRef<[u8]>,
) -> Result<SecretKey, Error> {
    let (alg, ciphertext) = parse_encrypted(der).ok_or(Error::MalformedKey)?;
    let params = parse_params(&alg)?;
    let key = derive_key(password.as_ref(), &params)?;
    let key = &key[..params.cipher.key_len()];
    let mut buf = Zeroizing::new(ciphertext.to_vec());
    let len = match params.cipher {
        Cipher::Sm4 => cbc_decrypt::<Sm4>(key, &params.iv, &mut buf),
        Cipher::Aes128 => cbc_decrypt::<Aes128>(key, &params.iv, &mut buf),
        Cipher::Aes192 => cbc_decrypt::<Aes192>(key, &params.iv, &mut buf),
        Cipher::Aes256 => cbc_decrypt::<Aes256>(key, &params.iv, &mut buf),
    }?;
    // A wrong password passes the padding check about once in 256 tries; the structure
    // check catches those.
    match secret_key_from_der(&buf[..len]) {
        Err(Error::MalformedKey) => Err(Error::WrongPassword),
        other => other,
    }
}

/// A SEQUENCE of already-encoded parts.
fn sequence(parts: &[&[u8]]) -> Result<Vec<u8>, Error> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let header = Header::new(
        Tag::Sequence,
        Length::try_from(len).map_err(|_| Error::Encoding)?,
    );
    let mut out = header.to_der().map_err(|_| Error::Encoding)?;
    for p in parts {
        out.extend_from_slice(p);
    }
    Ok(out)
}

fn der<T: Encode>(value: &T) -> Result<Vec<u8>, Error> {
    value.to_der().map_err(|_| Error::Encoding)
}

/// Encrypted PKCS#8 DER of a secret key (its inner `PrivateKeyInfo` in the id-ecPublicKey
/// form), with a fresh salt and IV from `rng`.
pub fn secret_key_to_encrypted_pkcs8_der<R: TryCryptoRng + ?Sized>(
    secret: &SecretKey,
    password: impl AsRef<[u8]>,
    scheme: EncryptionScheme,
    rng: &mut R,
) -> Result<SecretDocument, Error> {
    let mut salt = [0u8; 16];
    let mut iv = [0u8; 16];
    rng.try_fill_bytes(&mut salt).map_err(|_| Error::Rng)?;
    rng.try_fill_bytes(&mut iv).map_err(|_| Error::Rng)?;
    let gmssl = matches!(scheme, EncryptionScheme::Pbkdf2Sm3Sm4CbcGmssl { .. });
    let (iterations, prf, cipher) = match scheme {
        EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations }
        | EncryptionScheme::Pbkdf2Sm3Sm4CbcGmssl { iterations } => {
            (iterations, Prf::Sm3, Cipher::Sm4)
        }
        EncryptionScheme::Pbkdf2Sha256Aes256Cbc { iterations } => {
            (iterations, Prf::Sha256, Cipher::Aes256)
        }
    };
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(Error::UnsupportedEncryption);
    }
    let params = Params {
        salt: &salt,
        iterations,
        prf,
        cipher,
        iv,
    };
    let key = derive_key(password.as_ref(), &params)?;
    let key = &key[..cipher.key_len()];
    let plain = super::encode::secret_key_to_pkcs8_der(secret, super::AlgorithmForm::EcPublicKey)?;
    let msg_len = plain.as_bytes().len();
    let mut buf = Zeroizing::new(Vec::with_capacity(msg_len + 16));
    buf.extend_from_slice(plain.as_bytes());
    buf.resize(msg_len + 16 - msg_len % 16, 0);
    let len = match cipher {
        Cipher::Sm4 => cbc_encrypt::<Sm4>(key, &iv, &mut buf, msg_len),
        _ => cbc_encrypt::<Aes256>(key, &iv, &mut buf, msg_len),
    }?;

    // GmSSL states the key length and writes the PRF without parameters; OpenSSL omits the
    // key length (but for RC2) and writes the PRF with NULL.
    let (prf_alg, key_len) = match prf {
        Prf::Sm3 if gmssl => (sequence(&[&der(&HMAC_SM3_GMSSL)?])?, Some(der(&16u32)?)),
        Prf::Sm3 => (sequence(&[&der(&HMAC_SM3)?, &der(&Null)?])?, None),
        Prf::Sha256 => (sequence(&[&der(&HMAC_SHA256)?, &der(&Null)?])?, None),
    };
    let salt_der = der(&OctetStringRef::new(&salt).map_err(|_| Error::Encoding)?)?;
    let iter_der = der(&iterations)?;
    let mut kdf_parts: Vec<&[u8]> = alloc::vec![&salt_der, &iter_der];
    if let Some(k) = &key_len {
        kdf_parts.push(k);
    }
    kdf_parts.push(&prf_alg);
    let kdf = sequence(&[&der(&PBKDF2)?, &sequence(&kdf_parts)?])?;
    let enc_oid = match cipher {
        Cipher::Sm4 => SM4_CBC,
        _ => AES256_CBC,
    };
    let iv_der = der(&OctetStringRef::new(&iv).map_err(|_| Error::Encoding)?)?;
    let enc = sequence(&[&der(&enc_oid)?, &iv_der])?;
    let pbes2 = sequence(&[&der(&PBES2)?, &sequence(&[&kdf, &enc])?])?;
    let data = der(&OctetStringRef::new(&buf[..len]).map_err(|_| Error::Encoding)?)?;
    let out = Zeroizing::new(sequence(&[&pbes2, &data])?);
    SecretDocument::try_from(out.as_slice()).map_err(|_| Error::Encoding)
}

/// A secret key from PEM with a password: an `ENCRYPTED PRIVATE KEY` is decrypted, an
/// unencrypted key block (PKCS#8 or SEC1) is loaded as by
/// [`secret_key_from_pem`](super::secret_key_from_pem); text around the block and
/// parameter blocks are skipped.
#[cfg(feature = "pem")]
pub fn secret_key_from_pem_with_password(
    pem: &str,
    password: impl AsRef<[u8]>,
) -> Result<SecretKey, Error> {
    let block = private_key_block(pem)?;
    if block.label == ENCRYPTED_PKCS8 {
        secret_key_from_encrypted_pkcs8_der(&block.decode()?, password)
    } else {
        secret_key_from_block(&block)
    }
}

/// Encrypted PKCS#8 PEM (`ENCRYPTED PRIVATE KEY`).
#[cfg(feature = "pem")]
pub fn secret_key_to_encrypted_pkcs8_pem<R: TryCryptoRng + ?Sized>(
    secret: &SecretKey,
    password: impl AsRef<[u8]>,
    scheme: EncryptionScheme,
    rng: &mut R,
    line_ending: LineEnding,
) -> Result<Zeroizing<String>, Error> {
    secret_key_to_encrypted_pkcs8_der(secret, password, scheme, rng)?
        .to_pem(ENCRYPTED_PKCS8, line_ending)
        .map_err(|_| Error::Encoding)
}
