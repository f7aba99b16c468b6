//! Encrypted PKCS#8 (`EncryptedPrivateKeyInfo`, RFC 5958 §3) with PBES2 (RFC 8018 §6.2):
//! the one reader of the workspace (`shangmi-pki`, the command line and the bindings call
//! it), in every PBES2 combination peers write:
//!
//! - key derivation: PBKDF2 (RFC 8018 §5.2, OID 1.2.840.113549.1.5.12, or GM/T 0091-2020's
//!   1.2.156.10197.6.1.4.1.5.1) with HMAC-SHA-1 (the default when no PRF is named),
//!   HMAC-SHA-224/256/384/512 (RFC 8018 §B.1) or HMAC-SM3 (1.2.156.10197.1.401.3.1, GM/T
//!   0091-2020's `hmacWithSM3` as OpenSSL 3.x writes it: `openssl pkcs8 -topk8 -v2 sm4-cbc
//!   -v2prf hmacWithSM3`, or 1.2.156.10197.1.401.2 as GmSSL and gmsm write it); or scrypt
//!   (RFC 7914 §7);
//! - encryption: SM4-CBC (1.2.156.10197.1.104.2, or GM/T 0091-2020's
//!   1.2.156.10197.6.1.4.1.12.1.1), SM4-ECB (1.2.156.10197.1.104.1, as `openssl pkcs8 -v2
//!   sm4-ecb` writes it), SM4-GCM (1.2.156.10197.1.104.8), AES-128/192/256-CBC and
//!   AES-128/256-GCM (RFC 5084 §3.2 `GCMParameters`, 12-byte nonce, 12- or 16-byte tag
//!   appended to the ciphertext); CBC and ECB with PKCS#7 padding;
//! - the PBES2 OID of RFC 8018 (1.2.840.113549.1.5.13) or GM/T 0091-2020's
//!   1.2.156.10197.6.1.4.1.5.2.
//!
//! Writing takes the three [`EncryptionScheme`]s: PBKDF2-HMAC-SM3 and SM4-CBC under either
//! PRF OID, and PBKDF2-HMAC-SHA-256 and AES-256-CBC (OpenSSL's default).

use super::decode::{parse_encrypted, secret_key_from_der};
use crate::{Error, SecretKey};
use alloc::vec::Vec;
use elliptic_curve::pkcs8::der::asn1::{AnyRef, Null, OctetStringRef};
use elliptic_curve::pkcs8::der::{
    self, Decode, Encode, Header, Length, Reader, SecretDocument, SliceReader, Tag, Tagged,
};
use elliptic_curve::pkcs8::{AlgorithmIdentifierRef, ObjectIdentifier as Oid};
use rand_core::TryCryptoRng;
use shangmi_sm4_modes::aead::{self, AeadInOut, KeyInit};
use shangmi_sm4_modes::cipher::block_padding::Pkcs7;
use shangmi_sm4_modes::cipher::{self, BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use zeroize::Zeroizing;
#[cfg(feature = "pem")]
use {
    super::pem::{ENCRYPTED_PKCS8, private_key_block, secret_key_from_block},
    alloc::string::String,
    elliptic_curve::pkcs8::LineEnding,
};

/// PBES2 (RFC 8018 §A.4).
pub const PBES2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.13");
/// PBES2 under GM/T 0091-2020.
pub const SM_PBES2: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.1.5.2");
/// PBKDF2 (RFC 8018 §A.2).
pub const PBKDF2: Oid = Oid::new_unwrap("1.2.840.113549.1.5.12");
/// PBKDF2 under GM/T 0091-2020.
pub const SM_PBKDF2: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.1.5.1");
/// scrypt (RFC 7914 §7).
pub const SCRYPT: Oid = Oid::new_unwrap("1.3.6.1.4.1.11591.4.11");
const HMAC_SHA1: Oid = Oid::new_unwrap("1.2.840.113549.2.7");
const HMAC_SHA224: Oid = Oid::new_unwrap("1.2.840.113549.2.8");
/// hmacWithSHA256 (RFC 8018 §B.1.2).
const HMAC_SHA256: Oid = Oid::new_unwrap("1.2.840.113549.2.9");
const HMAC_SHA384: Oid = Oid::new_unwrap("1.2.840.113549.2.10");
const HMAC_SHA512: Oid = Oid::new_unwrap("1.2.840.113549.2.11");
/// HMAC-SM3 as GM/T 0091-2020 and OpenSSL 3.x (`hmacWithSM3`, OpenSSL 3.6.3's `obj_mac.h`:
/// sm3 3 1) name the PBKDF2 PRF.
pub const HMAC_SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401.3.1");
/// HMAC-SM3 as GmSSL and gmsm name the PBKDF2 PRF (OpenSSL 3.6 refuses it: "unsupported prf").
pub const HMAC_SM3_GMSSL: Oid = Oid::new_unwrap("1.2.156.10197.1.401.2");
const SM4_ECB: Oid = Oid::new_unwrap("1.2.156.10197.1.104.1");
/// SM4-CBC (GM/T 0006).
const SM4_CBC: Oid = Oid::new_unwrap("1.2.156.10197.1.104.2");
const SM4_GCM: Oid = Oid::new_unwrap("1.2.156.10197.1.104.8");
const SM4_CBC_0091: Oid = Oid::new_unwrap("1.2.156.10197.6.1.4.1.12.1.1");
const AES128_CBC: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.2");
const AES192_CBC: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.22");
const AES256_CBC: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.42");
const AES128_GCM: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.6");
const AES256_GCM: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.1.46");

type U12 = cipher::consts::U12;
type Sm4Gcm12 = shangmi_sm4_modes::Sm4GcmCustom<U12, U12>;
type Aes128Gcm12 = aes_gcm::AesGcm<aes::Aes128, U12, U12>;
type Aes256Gcm12 = aes_gcm::AesGcm<aes::Aes256, U12, U12>;

/// The most PBKDF2 iterations a decoder runs: files ask for 2048 (OpenSSL) to 65,536
/// (GmSSL), guidance for new keys is in the hundreds of thousands; the bound keeps a hostile
/// file from stalling a loader for minutes.
pub const MAX_ITERATIONS: u32 = 10_000_000;
/// The most memory scrypt may take (128 · r · N bytes): 1 GiB.
pub const MAX_SCRYPT_MEMORY: u64 = 1 << 30;

/// Why a PBES2 decryption failed: the reader's own error, which [`Error`] and
/// `shangmi-pki`'s error each map to their variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pbes2Error {
    /// The DER of the structure is malformed.
    Der(der::Error),
    /// Parameters out of their bounds (iterations, scrypt cost, key length, nonce, IV).
    Malformed,
    /// An algorithm this reader does not take, by its OID.
    Unsupported(Oid),
    /// A wrong password: bad padding, a failed GCM tag, or a plaintext that is not what
    /// the container holds.
    WrongPassword,
}

impl core::fmt::Display for Pbes2Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Pbes2Error::Der(e) => write!(f, "DER: {e}"),
            Pbes2Error::Malformed => f.write_str("malformed password-based scheme parameters"),
            Pbes2Error::Unsupported(oid) => write!(f, "unsupported password-based scheme {oid}"),
            Pbes2Error::WrongPassword => f.write_str("wrong password or corrupted data"),
        }
    }
}

impl core::error::Error for Pbes2Error {}

impl From<der::Error> for Pbes2Error {
    fn from(e: der::Error) -> Self {
        Pbes2Error::Der(e)
    }
}

impl From<Pbes2Error> for Error {
    fn from(e: Pbes2Error) -> Self {
        match e {
            Pbes2Error::Der(_) | Pbes2Error::Malformed => Error::MalformedKey,
            Pbes2Error::Unsupported(_) => Error::UnsupportedEncryption,
            Pbes2Error::WrongPassword => Error::WrongPassword,
        }
    }
}

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
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    Sm3,
}

enum Kdf<'a> {
    Pbkdf2 {
        salt: &'a [u8],
        iterations: u32,
        key_len: Option<u32>,
        prf: Prf,
    },
    Scrypt {
        salt: &'a [u8],
        log_n: u8,
        r: u32,
        p: u32,
        key_len: Option<u32>,
    },
}

#[derive(Clone, Copy)]
enum Cipher {
    Sm4Cbc([u8; 16]),
    Sm4Ecb,
    Sm4Gcm(([u8; 12], bool)),
    AesCbc(usize, [u8; 16]),
    AesGcm(usize, ([u8; 12], bool)),
}

impl Cipher {
    fn key_len(self) -> usize {
        match self {
            Cipher::Sm4Cbc(_) | Cipher::Sm4Ecb | Cipher::Sm4Gcm(_) => 16,
            Cipher::AesCbc(n, _) | Cipher::AesGcm(n, _) => n,
        }
    }
}

fn bad<T>(_: T) -> Pbes2Error {
    Pbes2Error::Malformed
}

/// The contents of a SEQUENCE given as parameters.
fn seq_body<'a>(params: Option<AnyRef<'a>>) -> Result<&'a [u8], Pbes2Error> {
    let any = params.ok_or(Pbes2Error::Malformed)?;
    if any.tag() != Tag::Sequence {
        return Err(Pbes2Error::Malformed);
    }
    Ok(any.value())
}

fn parse_kdf<'a>(alg: &AlgorithmIdentifierRef<'a>) -> Result<Kdf<'a>, Pbes2Error> {
    let mut r = SliceReader::new(seq_body(alg.parameters)?).map_err(bad)?;
    if alg.oid == PBKDF2 || alg.oid == SM_PBKDF2 {
        let salt = <&OctetStringRef>::decode(&mut r)?;
        let iterations = u32::decode(&mut r)?;
        let key_len = Option::<u32>::decode(&mut r)?;
        let prf_alg = Option::<AlgorithmIdentifierRef<'_>>::decode(&mut r)?;
        r.finish().map_err(bad)?;
        let prf = match prf_alg {
            // RFC 8018 §A.2: the default PRF is hmacWithSHA1.
            None => Prf::Sha1,
            Some(p) => {
                if p.parameters.is_some_and(|a| a.tag() != Tag::Null) {
                    return Err(Pbes2Error::Malformed);
                }
                match p.oid {
                    HMAC_SHA1 => Prf::Sha1,
                    HMAC_SHA224 => Prf::Sha224,
                    HMAC_SHA256 => Prf::Sha256,
                    HMAC_SHA384 => Prf::Sha384,
                    HMAC_SHA512 => Prf::Sha512,
                    HMAC_SM3 | HMAC_SM3_GMSSL => Prf::Sm3,
                    other => return Err(Pbes2Error::Unsupported(other)),
                }
            }
        };
        if iterations == 0 || iterations > MAX_ITERATIONS {
            return Err(Pbes2Error::Malformed);
        }
        Ok(Kdf::Pbkdf2 {
            salt: salt.as_bytes(),
            iterations,
            key_len,
            prf,
        })
    } else if alg.oid == SCRYPT {
        let salt = <&OctetStringRef>::decode(&mut r)?;
        let n = u64::decode(&mut r)?;
        let r_ = u32::decode(&mut r)?;
        let p = u32::decode(&mut r)?;
        let key_len = Option::<u32>::decode(&mut r)?;
        r.finish().map_err(bad)?;
        if n < 2 || !n.is_power_of_two() || r_ == 0 || p == 0 {
            return Err(Pbes2Error::Malformed);
        }
        let mem = 128u64.saturating_mul(u64::from(r_)).saturating_mul(n);
        if mem > MAX_SCRYPT_MEMORY || u64::from(p).saturating_mul(mem) > 16 * MAX_SCRYPT_MEMORY {
            return Err(Pbes2Error::Malformed);
        }
        Ok(Kdf::Scrypt {
            salt: salt.as_bytes(),
            log_n: n.trailing_zeros() as u8,
            r: r_,
            p,
            key_len,
        })
    } else {
        Err(Pbes2Error::Unsupported(alg.oid))
    }
}

fn octets<const N: usize>(any: Option<AnyRef<'_>>) -> Result<[u8; N], Pbes2Error> {
    let any = any.ok_or(Pbes2Error::Malformed)?;
    if any.tag() != Tag::OctetString {
        return Err(Pbes2Error::Malformed);
    }
    any.value().try_into().map_err(bad)
}

/// RFC 5084 §3.2: `GCMParameters ::= SEQUENCE { aes-nonce OCTET STRING, aes-ICVlen
/// INTEGER DEFAULT 12 }`; 12-byte nonces with 12- or 16-byte tags are taken. The nonce and
/// whether the tag is 16 bytes.
fn gcm_params(any: Option<AnyRef<'_>>) -> Result<([u8; 12], bool), Pbes2Error> {
    let mut r = SliceReader::new(seq_body(any)?).map_err(bad)?;
    let nonce = <&OctetStringRef>::decode(&mut r)?;
    let icv = Option::<u8>::decode(&mut r)?;
    r.finish().map_err(bad)?;
    let long_tag = match icv.unwrap_or(12) {
        12 => false,
        16 => true,
        _ => return Err(Pbes2Error::Malformed),
    };
    Ok((nonce.as_bytes().try_into().map_err(bad)?, long_tag))
}

fn parse_cipher(alg: &AlgorithmIdentifierRef<'_>) -> Result<Cipher, Pbes2Error> {
    Ok(match alg.oid {
        SM4_CBC | SM4_CBC_0091 => Cipher::Sm4Cbc(octets(alg.parameters)?),
        SM4_ECB => {
            // absent, NULL or an empty OCTET STRING (OpenSSL writes the last)
            if let Some(a) = alg.parameters
                && !(a.value().is_empty() && (a.tag() == Tag::Null || a.tag() == Tag::OctetString))
            {
                return Err(Pbes2Error::Malformed);
            }
            Cipher::Sm4Ecb
        }
        SM4_GCM => Cipher::Sm4Gcm(gcm_params(alg.parameters)?),
        AES128_CBC => Cipher::AesCbc(16, octets(alg.parameters)?),
        AES192_CBC => Cipher::AesCbc(24, octets(alg.parameters)?),
        AES256_CBC => Cipher::AesCbc(32, octets(alg.parameters)?),
        AES128_GCM => Cipher::AesGcm(16, gcm_params(alg.parameters)?),
        AES256_GCM => Cipher::AesGcm(32, gcm_params(alg.parameters)?),
        other => return Err(Pbes2Error::Unsupported(other)),
    })
}

fn derive(password: &[u8], kdf: &Kdf<'_>, out: &mut [u8]) -> Result<(), Pbes2Error> {
    use hmac::{Hmac, SimpleHmac};
    match *kdf {
        Kdf::Pbkdf2 {
            salt,
            iterations,
            key_len,
            prf,
        } => {
            if key_len.is_some_and(|n| n as usize != out.len()) {
                return Err(Pbes2Error::Malformed);
            }
            let (p, s, c) = (password, salt, iterations);
            match prf {
                Prf::Sha1 => pbkdf2::pbkdf2::<Hmac<sha1::Sha1>>(p, s, c, out),
                Prf::Sha224 => pbkdf2::pbkdf2::<Hmac<sha2::Sha224>>(p, s, c, out),
                Prf::Sha256 => pbkdf2::pbkdf2::<Hmac<sha2::Sha256>>(p, s, c, out),
                Prf::Sha384 => pbkdf2::pbkdf2::<Hmac<sha2::Sha384>>(p, s, c, out),
                Prf::Sha512 => pbkdf2::pbkdf2::<Hmac<sha2::Sha512>>(p, s, c, out),
                Prf::Sm3 => pbkdf2::pbkdf2::<SimpleHmac<crate::Sm3>>(p, s, c, out),
            }
            .map_err(bad)
        }
        Kdf::Scrypt {
            salt,
            log_n,
            r,
            p,
            key_len,
        } => {
            if key_len.is_some_and(|n| n as usize != out.len()) {
                return Err(Pbes2Error::Malformed);
            }
            let params = scrypt::Params::new(log_n, r, p).map_err(bad)?;
            scrypt::scrypt(password, salt, &params, out).map_err(bad)
        }
    }
}

/// Removes the PKCS#7 padding of a block mode's decryption in place.
fn unpad<D: BlockModeDecrypt>(dec: D, data: &[u8]) -> Result<Zeroizing<Vec<u8>>, Pbes2Error> {
    let mut buf = Zeroizing::new(data.to_vec());
    let n = dec
        .decrypt_padded::<Pkcs7>(&mut buf)
        .map_err(|_| Pbes2Error::WrongPassword)?
        .len();
    buf.truncate(n);
    Ok(buf)
}

fn cbc_open<D: KeyIvInit + BlockModeDecrypt>(
    key: &[u8],
    iv: &[u8; 16],
    data: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Pbes2Error> {
    unpad(D::new_from_slices(key, iv).map_err(bad)?, data)
}

fn gcm_open<A: AeadInOut + KeyInit>(
    key: &[u8],
    nonce: &[u8; 12],
    ct: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Pbes2Error> {
    use aead::AeadCore;
    use cipher::typenum::Unsigned;
    let split = ct
        .len()
        .checked_sub(<A as AeadCore>::TagSize::USIZE)
        .ok_or(Pbes2Error::Malformed)?;
    let a = A::new_from_slice(key).map_err(bad)?;
    let nonce = aead::Nonce::<A>::try_from(&nonce[..]).map_err(bad)?;
    let tag = aead::Tag::<A>::try_from(&ct[split..]).map_err(bad)?;
    let mut buf = Zeroizing::new(ct[..split].to_vec());
    a.decrypt_inout_detached(&nonce, &[], buf.as_mut_slice().into(), &tag)
        .map_err(|_| Pbes2Error::WrongPassword)?;
    Ok(buf)
}

/// Decrypts `data` under a PBES2 `AlgorithmIdentifier` (an `EncryptedPrivateKeyInfo`'s, or
/// a PKCS#12 `EncryptedData`'s): the plaintext, its padding removed.
pub fn decrypt_pbes2(
    alg: &AlgorithmIdentifierRef<'_>,
    data: &[u8],
    password: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Pbes2Error> {
    if alg.oid != PBES2 && alg.oid != SM_PBES2 {
        // PBES1 (PKCS#5 v1.5, PKCS#12 schemes) and anything else.
        return Err(Pbes2Error::Unsupported(alg.oid));
    }
    let mut r = SliceReader::new(seq_body(alg.parameters)?).map_err(bad)?;
    let kdf_alg = AlgorithmIdentifierRef::decode(&mut r)?;
    let enc_alg = AlgorithmIdentifierRef::decode(&mut r)?;
    r.finish().map_err(bad)?;
    let kdf = parse_kdf(&kdf_alg)?;
    let cipher = parse_cipher(&enc_alg)?;
    let mut key = Zeroizing::new([0u8; 32]);
    let key = &mut key[..cipher.key_len()];
    derive(password, &kdf, key)?;
    use shangmi_sm4_modes::{Sm4CbcDec, Sm4EcbDec, Sm4Gcm};
    match cipher {
        Cipher::Sm4Cbc(iv) => cbc_open::<Sm4CbcDec>(key, &iv, data),
        Cipher::Sm4Ecb => unpad(Sm4EcbDec::new_from_slice(key).map_err(bad)?, data),
        Cipher::Sm4Gcm((n, true)) => gcm_open::<Sm4Gcm>(key, &n, data),
        Cipher::Sm4Gcm((n, false)) => gcm_open::<Sm4Gcm12>(key, &n, data),
        Cipher::AesCbc(16, iv) => cbc_open::<cbc::Decryptor<aes::Aes128>>(key, &iv, data),
        Cipher::AesCbc(24, iv) => cbc_open::<cbc::Decryptor<aes::Aes192>>(key, &iv, data),
        Cipher::AesCbc(_, iv) => cbc_open::<cbc::Decryptor<aes::Aes256>>(key, &iv, data),
        Cipher::AesGcm(16, (n, true)) => gcm_open::<aes_gcm::Aes128Gcm>(key, &n, data),
        Cipher::AesGcm(16, (n, false)) => gcm_open::<Aes128Gcm12>(key, &n, data),
        Cipher::AesGcm(_, (n, true)) => gcm_open::<aes_gcm::Aes256Gcm>(key, &n, data),
        Cipher::AesGcm(_, (n, false)) => gcm_open::<Aes256Gcm12>(key, &n, data),
    }
}

/// Decrypts an `EncryptedPrivateKeyInfo` (DER): the `PrivateKeyInfo` DER inside, whatever
/// key it holds.
///
/// A wrong password gives [`Pbes2Error::WrongPassword`] (bad padding, a failed GCM tag, or
/// a plaintext that is not a DER SEQUENCE filling the buffer).
pub fn decrypt_pkcs8_der(der: &[u8], password: &[u8]) -> Result<Zeroizing<Vec<u8>>, Pbes2Error> {
    let mut r = SliceReader::new(der)?;
    let (alg, data) = r.sequence(|r| {
        let alg = AlgorithmIdentifierRef::decode(r)?;
        let data = <&OctetStringRef>::decode(r)?;
        Ok::<_, der::Error>((alg, data.as_bytes()))
    })?;
    r.finish()?;
    let pt = decrypt_pbes2(&alg, data, password)?;
    // A wrong password passes a padding check about once in 256 tries: the plaintext must
    // be one DER SEQUENCE filling the buffer.
    let ok = AnyRef::from_der(&pt).is_ok_and(|a| a.tag() == Tag::Sequence);
    if !ok {
        return Err(Pbes2Error::WrongPassword);
    }
    Ok(pt)
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
    let plain = decrypt_pbes2(&alg, ciphertext, password.as_ref())?;
    // A wrong password passes the padding check about once in 256 tries; the structure
    // check catches those.
    match secret_key_from_der(&plain) {
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

fn to_der<T: Encode>(value: &T) -> Result<Vec<u8>, Error> {
    value.to_der().map_err(|_| Error::Encoding)
}

fn octet_string(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    to_der(&OctetStringRef::new(bytes).map_err(|_| Error::Encoding)?)
}

fn cbc_seal<E: KeyIvInit + BlockModeEncrypt>(
    key: &[u8],
    iv: &[u8; 16],
    data: &[u8],
) -> Result<Vec<u8>, Error> {
    let enc = E::new_from_slices(key, iv).map_err(|_| Error::Encoding)?;
    let mut buf = Vec::with_capacity(data.len() + 16);
    buf.extend_from_slice(data);
    buf.resize(data.len() + 16 - data.len() % 16, 0);
    let n = enc
        .encrypt_padded::<Pkcs7>(&mut buf, data.len())
        .map_err(|_| Error::Encoding)?
        .len();
    buf.truncate(n);
    Ok(buf)
}

/// Encrypts `data` (PKCS#7 padding) under `scheme` and `password`, with a fresh salt and IV
/// from `rng`: the PBES2 `AlgorithmIdentifier` DER and the ciphertext, as an
/// `EncryptedPrivateKeyInfo` or a PKCS#12 `EncryptedData` holds them.
pub fn encrypt_pbes2<R: TryCryptoRng + ?Sized>(
    data: &[u8],
    password: &[u8],
    scheme: EncryptionScheme,
    rng: &mut R,
) -> Result<(Vec<u8>, Vec<u8>), Error> {
    let mut salt = [0u8; 16];
    let mut iv = [0u8; 16];
    rng.try_fill_bytes(&mut salt).map_err(|_| Error::Rng)?;
    rng.try_fill_bytes(&mut iv).map_err(|_| Error::Rng)?;
    let (iterations, prf, key_len) = match scheme {
        EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations } => (iterations, Prf::Sm3, 16),
        EncryptionScheme::Pbkdf2Sm3Sm4CbcGmssl { iterations } => (iterations, Prf::Sm3, 16),
        EncryptionScheme::Pbkdf2Sha256Aes256Cbc { iterations } => (iterations, Prf::Sha256, 32),
    };
    if iterations == 0 || iterations > MAX_ITERATIONS {
        return Err(Error::UnsupportedEncryption);
    }
    let kdf = Kdf::Pbkdf2 {
        salt: &salt,
        iterations,
        key_len: None,
        prf,
    };
    let mut key = Zeroizing::new([0u8; 32]);
    let key = &mut key[..key_len];
    derive(password, &kdf, key).map_err(|_| Error::UnsupportedEncryption)?;
    let (ct, enc_oid) = match prf {
        Prf::Sm3 => (
            cbc_seal::<shangmi_sm4_modes::Sm4CbcEnc>(key, &iv, data)?,
            SM4_CBC,
        ),
        _ => (
            cbc_seal::<cbc::Encryptor<aes::Aes256>>(key, &iv, data)?,
            AES256_CBC,
        ),
    };

    // GmSSL states the key length and writes the PRF without parameters; OpenSSL omits the
    // key length (but for RC2) and writes the PRF with NULL.
    let gmssl = matches!(scheme, EncryptionScheme::Pbkdf2Sm3Sm4CbcGmssl { .. });
    let (prf_alg, key_len) = match prf {
        Prf::Sm3 if gmssl => (
            sequence(&[&to_der(&HMAC_SM3_GMSSL)?])?,
            Some(to_der(&16u32)?),
        ),
        Prf::Sm3 => (sequence(&[&to_der(&HMAC_SM3)?, &to_der(&Null)?])?, None),
        _ => (sequence(&[&to_der(&HMAC_SHA256)?, &to_der(&Null)?])?, None),
    };
    let salt_der = octet_string(&salt)?;
    let iter_der = to_der(&iterations)?;
    let mut kdf_parts: Vec<&[u8]> = alloc::vec![&salt_der, &iter_der];
    if let Some(k) = &key_len {
        kdf_parts.push(k);
    }
    kdf_parts.push(&prf_alg);
    let kdf = sequence(&[&to_der(&PBKDF2)?, &sequence(&kdf_parts)?])?;
    let enc = sequence(&[&to_der(&enc_oid)?, &octet_string(&iv)?])?;
    let pbes2 = sequence(&[&to_der(&PBES2)?, &sequence(&[&kdf, &enc])?])?;
    Ok((pbes2, ct))
}

/// Encrypted PKCS#8 DER of a secret key (its inner `PrivateKeyInfo` in the id-ecPublicKey
/// form), with a fresh salt and IV from `rng`.
pub fn secret_key_to_encrypted_pkcs8_der<R: TryCryptoRng + ?Sized>(
    secret: &SecretKey,
    password: impl AsRef<[u8]>,
    scheme: EncryptionScheme,
    rng: &mut R,
) -> Result<SecretDocument, Error> {
    let plain = super::encode::secret_key_to_pkcs8_der(secret, super::AlgorithmForm::EcPublicKey)?;
    let (alg, ct) = encrypt_pbes2(plain.as_bytes(), password.as_ref(), scheme, rng)?;
    let out = Zeroizing::new(sequence(&[&alg, &octet_string(&ct)?])?);
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
