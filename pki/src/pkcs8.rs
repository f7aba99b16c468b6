//! Reading encrypted PKCS#8 (`EncryptedPrivateKeyInfo`, RFC 5958 §3) in every PBES2
//! (RFC 8018 §6.2) combination peers write:
//!
//! - key derivation: PBKDF2 (RFC 8018 §5.2, OID 1.2.840.113549.1.5.12, or GM/T 0091-2020's
//!   1.2.156.10197.6.1.4.1.5.1) with HMAC-SHA-1 (the default when no PRF is named),
//!   HMAC-SHA-224/256/384/512 (RFC 8018 §B.1) or HMAC-SM3 (1.2.156.10197.1.401.3.1, GM/T
//!   0091-2020's `hmacWithSM3` as OpenSSL 3.x writes it, or 1.2.156.10197.1.401.2
//!   as GmSSL and gmsm write it); or scrypt (RFC 7914 §7);
//! - encryption: SM4-CBC (1.2.156.10197.1.104.2, or GM/T 0091-2020's
//!   1.2.156.10197.6.1.4.1.12.1.1), SM4-ECB (1.2.156.10197.1.104.1, as `openssl pkcs8 -v2
//!   sm4-ecb` writes it), SM4-GCM (1.2.156.10197.1.104.8), AES-128/192/256-CBC and
//!   AES-128/256-GCM (RFC 5084 §3.2 `GCMParameters`, 12-byte nonce, 12- or 16-byte tag
//!   appended to the ciphertext);
//! - the PBES2 OID of RFC 8018 (1.2.840.113549.1.5.13) or GM/T 0091-2020's
//!   1.2.156.10197.6.1.4.1.5.2.
//!
//! An algorithm outside these gives [`Error::UnsupportedScheme`] with its OID; a wrong
//! password [`Error::WrongPassword`]; a malformed structure [`Error::Der`] or
//! [`Error::MalformedScheme`].

use crate::Error;
use crate::SecretKey;
use aead::{AeadInOut, KeyInit};
use alloc::vec::Vec;
use const_oid::ObjectIdentifier as Oid;
use der::asn1::{AnyRef, OctetStringRef};
use der::{Decode, Reader, SliceReader, Tag, Tagged};
use spki::AlgorithmIdentifierRef;
use zeroize::Zeroizing;

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
const HMAC_SHA256: Oid = Oid::new_unwrap("1.2.840.113549.2.9");
const HMAC_SHA384: Oid = Oid::new_unwrap("1.2.840.113549.2.10");
const HMAC_SHA512: Oid = Oid::new_unwrap("1.2.840.113549.2.11");
const HMAC_SM3: Oid = crate::oid::HMAC_SM3;
const HMAC_SM3_GMSSL: Oid = crate::oid::HMAC_SM3_GMSSL;
const SM4_ECB: Oid = Oid::new_unwrap("1.2.156.10197.1.104.1");
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

/// The most PBKDF2 iterations a decoder runs (a hostile file cannot stall a loader).
pub const MAX_ITERATIONS: u32 = 10_000_000;
/// The most memory scrypt may take (128 · r · N bytes): 1 GiB.
pub const MAX_SCRYPT_MEMORY: u64 = 1 << 30;

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

fn bad<T>(_: T) -> Error {
    Error::MalformedScheme
}

/// The contents of a SEQUENCE given as parameters.
fn seq_body<'a>(params: Option<AnyRef<'a>>) -> Result<&'a [u8], Error> {
    let any = params.ok_or(Error::MalformedScheme)?;
    if any.tag() != Tag::Sequence {
        return Err(Error::MalformedScheme);
    }
    Ok(any.value())
}

fn parse_kdf<'a>(alg: &AlgorithmIdentifierRef<'a>) -> Result<Kdf<'a>, Error> {
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
                    return Err(Error::MalformedScheme);
                }
                match p.oid {
                    HMAC_SHA1 => Prf::Sha1,
                    HMAC_SHA224 => Prf::Sha224,
                    HMAC_SHA256 => Prf::Sha256,
                    HMAC_SHA384 => Prf::Sha384,
                    HMAC_SHA512 => Prf::Sha512,
                    HMAC_SM3 | HMAC_SM3_GMSSL => Prf::Sm3,
                    other => return Err(Error::UnsupportedScheme(other)),
                }
            }
        };
        if iterations == 0 || iterations > MAX_ITERATIONS {
            return Err(Error::MalformedScheme);
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
            return Err(Error::MalformedScheme);
        }
        let mem = 128u64.saturating_mul(u64::from(r_)).saturating_mul(n);
        if mem > MAX_SCRYPT_MEMORY || u64::from(p).saturating_mul(mem) > 16 * MAX_SCRYPT_MEMORY {
            return Err(Error::MalformedScheme);
        }
        Ok(Kdf::Scrypt {
            salt: salt.as_bytes(),
            log_n: n.trailing_zeros() as u8,
            r: r_,
            p,
            key_len,
        })
    } else {
        Err(Error::UnsupportedScheme(alg.oid))
    }
}

fn octets<const N: usize>(any: Option<AnyRef<'_>>) -> Result<[u8; N], Error> {
    let any = any.ok_or(Error::MalformedScheme)?;
    if any.tag() != Tag::OctetString {
        return Err(Error::MalformedScheme);
    }
    any.value().try_into().map_err(bad)
}

/// RFC 5084 §3.2: `GCMParameters ::= SEQUENCE { aes-nonce OCTET STRING, aes-ICVlen
/// INTEGER DEFAULT 12 }`; 12-byte nonces with 12- or 16-byte tags are taken. The nonce and
/// whether the tag is 16 bytes.
fn gcm_params(any: Option<AnyRef<'_>>) -> Result<([u8; 12], bool), Error> {
    let mut r = SliceReader::new(seq_body(any)?).map_err(bad)?;
    let nonce = <&OctetStringRef>::decode(&mut r)?;
    let icv = Option::<u8>::decode(&mut r)?;
    r.finish().map_err(bad)?;
    let long_tag = match icv.unwrap_or(12) {
        12 => false,
        16 => true,
        _ => return Err(Error::MalformedScheme),
    };
    Ok((nonce.as_bytes().try_into().map_err(bad)?, long_tag))
}

fn parse_cipher(alg: &AlgorithmIdentifierRef<'_>) -> Result<Cipher, Error> {
    Ok(match alg.oid {
        SM4_CBC | SM4_CBC_0091 => Cipher::Sm4Cbc(octets(alg.parameters)?),
        SM4_ECB => {
            // absent, NULL or an empty OCTET STRING (OpenSSL writes the last)
            if let Some(a) = alg.parameters
                && !(a.value().is_empty() && (a.tag() == Tag::Null || a.tag() == Tag::OctetString))
            {
                return Err(Error::MalformedScheme);
            }
            Cipher::Sm4Ecb
        }
        SM4_GCM => Cipher::Sm4Gcm(gcm_params(alg.parameters)?),
        AES128_CBC => Cipher::AesCbc(16, octets(alg.parameters)?),
        AES192_CBC => Cipher::AesCbc(24, octets(alg.parameters)?),
        AES256_CBC => Cipher::AesCbc(32, octets(alg.parameters)?),
        AES128_GCM => Cipher::AesGcm(16, gcm_params(alg.parameters)?),
        AES256_GCM => Cipher::AesGcm(32, gcm_params(alg.parameters)?),
        other => return Err(Error::UnsupportedScheme(other)),
    })
}

fn derive(password: &[u8], kdf: &Kdf<'_>, out: &mut [u8]) -> Result<(), Error> {
    use hmac::Hmac;
    match *kdf {
        Kdf::Pbkdf2 {
            salt,
            iterations,
            key_len,
            prf,
        } => {
            if key_len.is_some_and(|n| n as usize != out.len()) {
                return Err(Error::MalformedScheme);
            }
            let (p, s, c) = (password, salt, iterations);
            match prf {
                Prf::Sha1 => pbkdf2::pbkdf2::<Hmac<sha1::Sha1>>(p, s, c, out),
                Prf::Sha224 => pbkdf2::pbkdf2::<Hmac<sha2::Sha224>>(p, s, c, out),
                Prf::Sha256 => pbkdf2::pbkdf2::<Hmac<sha2::Sha256>>(p, s, c, out),
                Prf::Sha384 => pbkdf2::pbkdf2::<Hmac<sha2::Sha384>>(p, s, c, out),
                Prf::Sha512 => pbkdf2::pbkdf2::<Hmac<sha2::Sha512>>(p, s, c, out),
                Prf::Sm3 => pbkdf2::pbkdf2::<hmac::SimpleHmac<shangmi_sm3::Sm3>>(p, s, c, out),
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
                return Err(Error::MalformedScheme);
            }
            let params = scrypt::Params::new(log_n, r, p).map_err(bad)?;
            scrypt::scrypt(password, salt, &params, out).map_err(bad)
        }
    }
}

fn cbc_open<C>(key: &[u8], iv: &[u8; 16], ct: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error>
where
    C: cipher::BlockCipherDecrypt + cipher::KeyInit,
    cbc::Decryptor<C>: cipher::KeyIvInit,
{
    use cipher::{BlockModeDecrypt, KeyIvInit, block_padding::Pkcs7};
    let dec = cbc::Decryptor::<C>::new_from_slices(key, iv).map_err(bad)?;
    let mut buf = Zeroizing::new(ct.to_vec());
    let n = dec
        .decrypt_padded::<Pkcs7>(&mut buf)
        .map_err(|_| Error::WrongPassword)?
        .len();
    buf.truncate(n);
    Ok(buf)
}

fn gcm_open<A: AeadInOut + KeyInit>(
    key: &[u8],
    nonce: &[u8; 12],
    ct: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Error> {
    use aead::AeadCore;
    use cipher::typenum::Unsigned;
    let split = ct
        .len()
        .checked_sub(<A as AeadCore>::TagSize::USIZE)
        .ok_or(Error::MalformedScheme)?;
    let a = A::new_from_slice(key).map_err(bad)?;
    let nonce = aead::Nonce::<A>::try_from(&nonce[..]).map_err(bad)?;
    let tag = aead::Tag::<A>::try_from(&ct[split..]).map_err(bad)?;
    let mut buf = Zeroizing::new(ct[..split].to_vec());
    a.decrypt_inout_detached(&nonce, &[], buf.as_mut_slice().into(), &tag)
        .map_err(|_| Error::WrongPassword)?;
    Ok(buf)
}

/// Decrypts `data` under a PBES2 `AlgorithmIdentifier` (also PKCS#12's EncryptedData).
pub(crate) fn decrypt_with(
    alg: &AlgorithmIdentifierRef<'_>,
    data: &[u8],
    password: &[u8],
) -> Result<Zeroizing<Vec<u8>>, Error> {
    if alg.oid != PBES2 && alg.oid != SM_PBES2 {
        return Err(Error::UnsupportedScheme(alg.oid));
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
    Ok(match cipher {
        Cipher::Sm4Cbc(iv) => cbc_open::<shangmi_sm4::Sm4>(key, &iv, data)?,
        Cipher::Sm4Ecb => {
            use cipher::{BlockModeDecrypt, block_padding::Pkcs7};
            let dec = ecb::Decryptor::<shangmi_sm4::Sm4>::new_from_slice(key).map_err(bad)?;
            let mut buf = Zeroizing::new(data.to_vec());
            let n = dec
                .decrypt_padded::<Pkcs7>(&mut buf)
                .map_err(|_| Error::WrongPassword)?
                .len();
            buf.truncate(n);
            buf
        }
        Cipher::Sm4Gcm((n, true)) => gcm_open::<shangmi_sm4_modes::Sm4Gcm>(key, &n, data)?,
        Cipher::Sm4Gcm((n, false)) => gcm_open::<Sm4Gcm12>(key, &n, data)?,
        Cipher::AesCbc(16, iv) => cbc_open::<aes::Aes128>(key, &iv, data)?,
        Cipher::AesCbc(24, iv) => cbc_open::<aes::Aes192>(key, &iv, data)?,
        Cipher::AesCbc(_, iv) => cbc_open::<aes::Aes256>(key, &iv, data)?,
        Cipher::AesGcm(16, (n, true)) => gcm_open::<aes_gcm::Aes128Gcm>(key, &n, data)?,
        Cipher::AesGcm(16, (n, false)) => gcm_open::<Aes128Gcm12>(key, &n, data)?,
        Cipher::AesGcm(_, (n, true)) => gcm_open::<aes_gcm::Aes256Gcm>(key, &n, data)?,
        Cipher::AesGcm(_, (n, false)) => gcm_open::<Aes256Gcm12>(key, &n, data)?,
    })
}

/// Decrypts an `EncryptedPrivateKeyInfo` (DER): the `PrivateKeyInfo` DER inside.
///
/// A wrong password gives [`Error::WrongPassword`] (bad padding, a failed GCM tag, or a
/// plaintext that is not a DER SEQUENCE filling the buffer).
pub fn decrypt_der(der: &[u8], password: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
    let mut r = SliceReader::new(der)?;
    let (alg, data) = r.sequence(|r| {
        let alg = AlgorithmIdentifierRef::decode(r)?;
        let data = <&OctetStringRef>::decode(r)?;
        Ok::<_, der::Error>((alg, data.as_bytes()))
    })?;
    r.finish()?;
    let pt = decrypt_with(&alg, data, password)?;
    // A wrong password passes a padding check about once in 256 tries: the plaintext must
    // be one DER SEQUENCE filling the buffer.
    let ok = der::AnyRef::from_der(&pt).is_ok_and(|a| a.tag() == Tag::Sequence);
    if !ok {
        return Err(Error::WrongPassword);
    }
    Ok(pt)
}

/// An SM2 secret key from an `EncryptedPrivateKeyInfo` (DER) and its password.
pub fn secret_key_from_der(der: &[u8], password: &[u8]) -> Result<SecretKey, Error> {
    let pt = decrypt_der(der, password)?;
    Ok(shangmi_sm2::keys::secret_key_from_der(&pt)?)
}

/// An SM2 secret key from a `-----BEGIN ENCRYPTED PRIVATE KEY-----` block (or DER).
pub fn secret_key_from_pem(data: &[u8], password: &[u8]) -> Result<SecretKey, Error> {
    let ders = crate::pem::der_documents(data, &["ENCRYPTED PRIVATE KEY"])?;
    let der = ders.first().ok_or(Error::Pem)?;
    secret_key_from_der(der, password)
}

/// PBES2 with PBKDF2-HMAC-SM3 and SM4-CBC (1.2.156.10197.1.104.2) as OpenSSL 3 writes it
/// (PRF 1.2.156.10197.1.401.3.1 with NULL parameters, no key length), which OpenSSL 3.x
/// reads: the `AlgorithmIdentifier` DER and the ciphertext of `data` (PKCS#7
/// padding).
pub(crate) fn encrypt_sm(
    data: &[u8],
    password: &[u8],
    iterations: u32,
    salt: &[u8; 16],
    iv: &[u8; 16],
) -> Result<(Vec<u8>, Vec<u8>), Error> {
    use der::Encode;
    use der::asn1::{Any, Null};
    use spki::AlgorithmIdentifierOwned as Alg;
    let prf = Alg {
        oid: HMAC_SM3,
        parameters: Some(Any::from(Null)),
    };
    let kdf_params = (der::asn1::OctetString::new(&salt[..])?, iterations, prf);
    let kdf = Alg {
        oid: PBKDF2,
        parameters: Some(Any::encode_from(&SeqOf3(kdf_params))?),
    };
    let enc = Alg {
        oid: SM4_CBC,
        parameters: Some(Any::encode_from(&der::asn1::OctetString::new(&iv[..])?)?),
    };
    let alg = Alg {
        oid: PBES2,
        parameters: Some(Any::encode_from(&SeqOf2((kdf, enc)))?),
    };
    let mut key = Zeroizing::new([0u8; 16]);
    pbkdf2::pbkdf2::<hmac::SimpleHmac<shangmi_sm3::Sm3>>(password, salt, iterations, &mut *key)
        .map_err(bad)?;
    let ct = crate::sm4util::cbc_encrypt(&key, iv, data);
    Ok((alg.to_der()?, ct))
}

/// A SEQUENCE of two encodable values.
struct SeqOf2<A, B>((A, B));
impl<A: der::Encode, B: der::Encode> der::EncodeValue for SeqOf2<A, B> {
    fn value_len(&self) -> der::Result<der::Length> {
        self.0.0.encoded_len()? + self.0.1.encoded_len()?
    }
    fn encode_value(&self, w: &mut impl der::Writer) -> der::Result<()> {
        self.0.0.encode(w)?;
        self.0.1.encode(w)
    }
}
impl<A, B> der::FixedTag for SeqOf2<A, B> {
    const TAG: Tag = Tag::Sequence;
}

/// A SEQUENCE of three encodable values.
struct SeqOf3<A, B, C>((A, B, C));
impl<A: der::Encode, B: der::Encode, C: der::Encode> der::EncodeValue for SeqOf3<A, B, C> {
    fn value_len(&self) -> der::Result<der::Length> {
        let (a, b, c) = &self.0;
        (a.encoded_len()? + b.encoded_len()?)? + c.encoded_len()?
    }
    fn encode_value(&self, w: &mut impl der::Writer) -> der::Result<()> {
        let (a, b, c) = &self.0;
        a.encode(w)?;
        b.encode(w)?;
        c.encode(w)
    }
}
impl<A, B, C> der::FixedTag for SeqOf3<A, B, C> {
    const TAG: Tag = Tag::Sequence;
}
