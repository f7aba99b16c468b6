//! PKCS#12 (RFC 7292) key stores with an SM2 key and its certificates, in the layout
//! OpenSSL 3 writes by default: the certificates in an EncryptedData and the key in a
//! pkcs8ShroudedKeyBag, both PBES2 with PBKDF2-HMAC-SHA-256 and AES-256-CBC (2048
//! iterations), a localKeyId pairing the key with its certificate, and an HMAC-SHA-256
//! integrity MAC keyed by the PKCS#12 KDF (RFC 7292 Appendix B.2; password as BMPString).
//! [`Scheme::Sm`] writes PBKDF2-HMAC-SM3 with SM4-CBC and an HMAC-SM3 MAC instead.
//! Reading takes an HMAC-SHA-256, HMAC-SM3 or HMAC-SHA-1 MAC, unencrypted bags, every PBES2
//! combination [`crate::pkcs8`] reads, and the legacy PKCS#12 PBE schemes (RFC 7292
//! Appendix C) that `openssl pkcs12 -legacy`, OpenSSL 1.1 and Windows write:
//! pbeWithSHAAnd3-KeyTripleDES-CBC, pbeWithSHAAnd2-KeyTripleDES-CBC,
//! pbeWithSHAAnd40BitRC2-CBC and pbeWithSHAAnd128BitRC2-CBC, keyed by the Appendix B KDF
//! over SHA-1 (read only: nothing here writes them). [`import`] wants an SM2 key;
//! [`import_bags`] returns any key as PKCS#8 DER.

use crate::{Error, SecretKey};
use alloc::vec::Vec;
use cms::content_info::{CmsVersion, ContentInfo};
use cms::encrypted_data::EncryptedData;
use cms::enveloped_data::EncryptedContentInfo;
use const_oid::ObjectIdentifier as Oid;
use der::asn1::{Any, OctetString, SetOfVec};
use der::{Decode, Encode, Sequence};
use digest::{Digest, KeyInit, Mac};
use rand_core::TryCryptoRng;
use spki::AlgorithmIdentifierOwned;
use x509_cert::Certificate;
use x509_cert::attr::Attribute;
use zeroize::Zeroizing;

const DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.1");
const ENCRYPTED_DATA: Oid = Oid::new_unwrap("1.2.840.113549.1.7.6");
const KEY_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.1");
const SHROUDED_KEY_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.2");
const CERT_BAG: Oid = Oid::new_unwrap("1.2.840.113549.1.12.10.1.3");
const X509_CERTIFICATE: Oid = Oid::new_unwrap("1.2.840.113549.1.9.22.1");
const LOCAL_KEY_ID: Oid = Oid::new_unwrap("1.2.840.113549.1.9.21");
const SHA256: Oid = Oid::new_unwrap("2.16.840.1.101.3.4.2.1");
/// SHA-1, the MAC digest of legacy files.
const SHA1: Oid = Oid::new_unwrap("1.3.14.3.2.26");
/// pbeWithSHAAnd3-KeyTripleDES-CBC (RFC 7292 Appendix C).
const PBE_SHA1_3DES: Oid = Oid::new_unwrap("1.2.840.113549.1.12.1.3");
/// pbeWithSHAAnd2-KeyTripleDES-CBC.
const PBE_SHA1_2DES: Oid = Oid::new_unwrap("1.2.840.113549.1.12.1.4");
/// pbeWithSHAAnd128BitRC2-CBC.
const PBE_SHA1_RC2_128: Oid = Oid::new_unwrap("1.2.840.113549.1.12.1.5");
/// pbeWithSHAAnd40BitRC2-CBC.
const PBE_SHA1_RC2_40: Oid = Oid::new_unwrap("1.2.840.113549.1.12.1.6");
/// SM3 (GM/T 0006), the MAC digest of the ShangMi scheme.
const SM3: Oid = Oid::new_unwrap("1.2.156.10197.1.401");
/// PBKDF2 / MAC iterations (OpenSSL 3's default).
const ITERATIONS: u32 = 2048;
/// The most iterations accepted when reading (bounds the work an input can ask for).
const MAX_ITERATIONS: u32 = 10_000_000;

#[derive(Clone, Debug, Sequence)]
struct Pfx {
    version: u8,
    auth_safe: ContentInfo,
    #[asn1(optional = "true")]
    mac_data: Option<MacData>,
}

#[derive(Clone, Debug, Sequence)]
struct MacData {
    mac: DigestInfo,
    mac_salt: OctetString,
    #[asn1(default = "one")]
    iterations: u32,
}

fn one() -> u32 {
    1
}

#[derive(Clone, Debug, Sequence)]
struct DigestInfo {
    algorithm: AlgorithmIdentifierOwned,
    digest: OctetString,
}

#[derive(Clone, Debug, Sequence)]
struct SafeBag {
    bag_id: Oid,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT")]
    bag_value: Any,
    #[asn1(optional = "true")]
    bag_attributes: Option<SetOfVec<Attribute>>,
}

#[derive(Clone, Debug, Sequence)]
struct CertBag {
    cert_id: Oid,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT")]
    cert_value: OctetString,
}

/// `pkcs-12PbeParams` (RFC 7292 Appendix C).
#[derive(Clone, Debug, Sequence)]
struct PbeParams {
    salt: OctetString,
    iterations: u32,
}

#[derive(Clone, Debug, Sequence)]
struct EncryptedKey {
    algorithm: AlgorithmIdentifierOwned,
    data: OctetString,
}

/// The PKCS#12 KDF (RFC 7292 Appendix B.2) for a hash with 64-byte blocks (SHA-1,
/// SHA-256, SM3): fills `out` with key material of kind `id` (1: key, 2: IV, 3: MAC key),
/// the password as a NUL-terminated BMPString.
fn pkcs12_kdf_into<D: Digest>(
    password: &str,
    salt: &[u8],
    iterations: u32,
    id: u8,
    out: &mut [u8],
) {
    const V: usize = 64;
    let mut bmp = Zeroizing::new(Vec::new());
    for u in password.encode_utf16().chain(core::iter::once(0)) {
        bmp.extend_from_slice(&u.to_be_bytes());
    }
    let fill = |src: &[u8]| -> Zeroizing<Vec<u8>> {
        let len = src.len().div_ceil(V) * V;
        Zeroizing::new(src.iter().copied().cycle().take(len).collect())
    };
    // I = S ‖ P
    let mut i = fill(salt);
    i.extend_from_slice(&fill(&bmp));
    let mut done = 0;
    while done < out.len() {
        let mut h = D::new();
        h.update([id; V]);
        h.update(&*i);
        let mut a = Zeroizing::new(h.finalize().to_vec());
        for _ in 1..iterations {
            let next = D::digest(&a[..]);
            a.copy_from_slice(&next);
        }
        let take = a.len().min(out.len() - done);
        out[done..done + take].copy_from_slice(&a[..take]);
        done += take;
        if done < out.len() {
            // each V-byte block of I becomes (I_j + B + 1) mod 2^(8V), B = A repeated
            let b = Zeroizing::new(a.iter().copied().cycle().take(V).collect::<Vec<u8>>());
            for block in i.chunks_mut(V) {
                let mut carry = 1u16;
                for (x, y) in block.iter_mut().zip(b.iter()).rev() {
                    let sum = u16::from(*x) + u16::from(*y) + carry;
                    *x = sum as u8;
                    carry = sum >> 8;
                }
            }
        }
    }
}

/// The PKCS#12 KDF for 32 bytes (the MAC keys of SHA-256 and SM3).
fn pkcs12_kdf<D: Digest>(
    password: &str,
    salt: &[u8],
    iterations: u32,
    id: u8,
) -> Zeroizing<[u8; 32]> {
    let mut a = Zeroizing::new([0u8; 32]);
    pkcs12_kdf_into::<D>(password, salt, iterations, id, &mut a[..]);
    a
}

/// The digest of an integrity MAC.
#[derive(Clone, Copy)]
enum MacHash {
    /// SHA-1: legacy files (`openssl pkcs12 -legacy`, OpenSSL 1.1, Windows).
    Sha1,
    /// SHA-256: OpenSSL 3.
    Sha256,
    /// SM3: Tongsuo's `-macalg sm3`, our [`Scheme::Sm`].
    Sm3,
}

/// The integrity MAC: HMAC with the hash, keyed by the PKCS#12 KDF with the same hash.
fn pkcs12_mac(
    hash: MacHash,
    password: &str,
    salt: &[u8],
    iterations: u32,
    data: &[u8],
) -> Result<Vec<u8>, Error> {
    match hash {
        MacHash::Sm3 => {
            let key = pkcs12_kdf::<shangmi_sm3::Sm3>(password, salt, iterations, 3);
            let mut m = hmac::SimpleHmac::<shangmi_sm3::Sm3>::new_from_slice(&*key)
                .map_err(|_| Error::Decryption)?;
            m.update(data);
            Ok(m.finalize().into_bytes().to_vec())
        }
        MacHash::Sha256 => {
            let key = pkcs12_kdf::<sha2::Sha256>(password, salt, iterations, 3);
            Ok(hmac_sha256(&*key, data)?.to_vec())
        }
        MacHash::Sha1 => {
            let mut key = Zeroizing::new([0u8; 20]);
            pkcs12_kdf_into::<sha1::Sha1>(password, salt, iterations, 3, &mut key[..]);
            let mut m = hmac::Hmac::<sha1::Sha1>::new_from_slice(&key[..])
                .map_err(|_| Error::Decryption)?;
            m.update(data);
            Ok(m.finalize().into_bytes().to_vec())
        }
    }
}

/// CBC with PKCS#7 padding under a 64-bit block cipher (DES-EDE, RC2).
fn cbc8_open<C>(cipher: C, iv: &[u8], ct: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error>
where
    C: cipher::BlockCipherDecrypt<BlockSize = cipher::consts::U8>,
{
    use cipher::{BlockModeDecrypt, InnerIvInit, block_padding::Pkcs7};
    let dec =
        cbc::Decryptor::<C>::inner_iv_slice_init(cipher, iv).map_err(|_| Error::Decryption)?;
    let mut buf = Zeroizing::new(ct.to_vec());
    let n = dec
        .decrypt_padded::<Pkcs7>(&mut buf)
        .map_err(|_| Error::Decryption)?
        .len();
    buf.truncate(n);
    Ok(buf)
}

/// Decrypts `ct` under a legacy PKCS#12 PBE scheme (RFC 7292 Appendix C); `None` when
/// `alg` is not one.
fn legacy_open(
    alg: &AlgorithmIdentifierOwned,
    ct: &[u8],
    password: &str,
) -> Result<Option<Zeroizing<Vec<u8>>>, Error> {
    let (key_len, rc2_bits) = match alg.oid {
        PBE_SHA1_3DES => (24, None),
        PBE_SHA1_2DES => (16, None),
        PBE_SHA1_RC2_128 => (16, Some(128)),
        PBE_SHA1_RC2_40 => (5, Some(40)),
        _ => return Ok(None),
    };
    let params = alg
        .parameters
        .as_ref()
        .ok_or(Error::UnsupportedAlgorithm)?
        .decode_as::<PbeParams>()?;
    if params.iterations == 0 || params.iterations > MAX_ITERATIONS {
        return Err(Error::UnsupportedAlgorithm);
    }
    let salt = params.salt.as_bytes();
    let mut key = Zeroizing::new([0u8; 24]);
    let key = &mut key[..key_len];
    let mut iv = [0u8; 8];
    pkcs12_kdf_into::<sha1::Sha1>(password, salt, params.iterations, 1, key);
    pkcs12_kdf_into::<sha1::Sha1>(password, salt, params.iterations, 2, &mut iv);
    let bad = |_| Error::Decryption;
    let pt = match (key_len, rc2_bits) {
        (_, Some(bits)) => cbc8_open(rc2::Rc2::new_with_eff_key_len(key, bits), &iv, ct)?,
        (24, None) => cbc8_open(des::TdesEde3::new_from_slice(key).map_err(bad)?, &iv, ct)?,
        _ => cbc8_open(des::TdesEde2::new_from_slice(key).map_err(bad)?, &iv, ct)?,
    };
    Ok(Some(pt))
}

fn hmac_sha256(key: &[u8], data: &[u8]) -> Result<[u8; 32], Error> {
    let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).map_err(|_| Error::Decryption)?;
    m.update(data);
    Ok(m.finalize().into_bytes().into())
}

fn random<const N: usize, R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<[u8; N], Error> {
    let mut b = [0u8; N];
    crate::fill(rng, &mut b)?;
    Ok(b)
}

fn pbes2<R: TryCryptoRng + ?Sized>(rng: &mut R) -> Result<pkcs5::EncryptionScheme, Error> {
    let salt: [u8; 16] = random(rng)?;
    let iv: [u8; 16] = random(rng)?;
    let params = pkcs5::pbes2::Parameters::generate_pbkdf2_sha256_aes256cbc(ITERATIONS, &salt, iv)
        .map_err(|_| Error::UnsupportedAlgorithm)?;
    Ok(params.into())
}

fn local_key_id(cert: &Certificate) -> Result<SetOfVec<Attribute>, Error> {
    let id: [u8; 32] = sha2::Sha256::digest(cert.to_der()?).into();
    let mut values = SetOfVec::new();
    values.insert(Any::encode_from(&OctetString::new(&id[..20])?)?)?;
    let mut attrs = SetOfVec::new();
    attrs.insert(Attribute {
        oid: LOCAL_KEY_ID,
        values,
    })?;
    Ok(attrs)
}

/// The algorithms a PKCS#12 file is written with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scheme {
    /// OpenSSL 3's defaults: PBES2 with PBKDF2-HMAC-SHA-256 and AES-256-CBC for the
    /// certificates and the key, an HMAC-SHA-256 MAC (2048 iterations each).
    #[default]
    OpenSsl,
    /// The ShangMi scheme: PBES2 with PBKDF2-HMAC-SM3 and SM4-CBC (the PRF named
    /// 1.2.156.10197.1.401.3.1 as OpenSSL 3.x writes it, SM4-CBC 1.2.156.10197.1.104.2:
    /// `shangmi_sm2::keys::EncryptionScheme::Pbkdf2Sm3Sm4Cbc`) for the certificates and the key,
    /// and an HMAC-SM3 MAC keyed by the PKCS#12 KDF over SM3 (Tongsuo's `-macalg sm3`);
    /// 2048 iterations each.
    Sm,
}

/// Writes a PKCS#12 file holding `key`, its certificate `cert` and `chain`, protected by
/// `password` (OpenSSL 3's default algorithms).
pub fn export(
    cert: &Certificate,
    key: &SecretKey,
    chain: &[Certificate],
    password: &str,
) -> Result<Vec<u8>, Error> {
    export_with(cert, key, chain, password, Scheme::OpenSsl)
}

/// The encryption `AlgorithmIdentifier` (DER) and the ciphertext of `data` under `scheme`,
/// its salt and IV from `rng`.
fn encrypt<R: TryCryptoRng + ?Sized>(
    scheme: Scheme,
    password: &str,
    data: &[u8],
    rng: &mut R,
) -> Result<(Vec<u8>, Vec<u8>), Error> {
    match scheme {
        Scheme::OpenSsl => {
            let scheme = pbes2(rng)?;
            let ct = scheme
                .encrypt(password, data)
                .map_err(|_| Error::Decryption)?;
            Ok((scheme.to_der()?, ct))
        }
        Scheme::Sm => {
            let scheme = shangmi_sm2::keys::EncryptionScheme::Pbkdf2Sm3Sm4Cbc {
                iterations: ITERATIONS,
            };
            Ok(shangmi_sm2::keys::encrypt_pbes2(
                data,
                password.as_bytes(),
                scheme,
                rng,
            )?)
        }
    }
}

/// [`export`] with a chosen [`Scheme`].
pub fn export_with(
    cert: &Certificate,
    key: &SecretKey,
    chain: &[Certificate],
    password: &str,
    scheme: Scheme,
) -> Result<Vec<u8>, Error> {
    export_with_rng(cert, key, chain, password, scheme, &mut getrandom::SysRng)
}

/// [`export_with`] drawing every salt and IV (the certificates', the key's and the MAC's)
/// from `rng`: a cryptographic module's DRBG, say.
pub fn export_with_rng<R: TryCryptoRng + ?Sized>(
    cert: &Certificate,
    key: &SecretKey,
    chain: &[Certificate],
    password: &str,
    scheme: Scheme,
    rng: &mut R,
) -> Result<Vec<u8>, Error> {
    // certificates: SafeContents in an EncryptedData
    let mut cert_bags = Vec::new();
    for (i, c) in core::iter::once(cert).chain(chain.iter()).enumerate() {
        let bag = CertBag {
            cert_id: X509_CERTIFICATE,
            cert_value: OctetString::new(c.to_der()?)?,
        };
        cert_bags.push(SafeBag {
            bag_id: CERT_BAG,
            bag_value: Any::encode_from(&bag)?,
            bag_attributes: if i == 0 {
                Some(local_key_id(cert)?)
            } else {
                None
            },
        });
    }
    let (alg_der, ct) = encrypt(scheme, password, &cert_bags.to_der()?, rng)?;
    let ed = EncryptedData {
        version: CmsVersion::V0,
        enc_content_info: EncryptedContentInfo {
            content_type: DATA,
            content_enc_alg: AlgorithmIdentifierOwned::from_der(&alg_der)?,
            encrypted_content: Some(OctetString::new(ct)?),
        },
        unprotected_attrs: None,
    };
    // key: a pkcs8ShroudedKeyBag in a data SafeContents
    let pkcs8 = shangmi_sm2::keys::secret_key_to_pkcs8_der(key, Default::default())?;
    let (key_alg, enc_key) = encrypt(scheme, password, pkcs8.as_bytes(), rng)?;
    let epki = EncryptedKey {
        algorithm: AlgorithmIdentifierOwned::from_der(&key_alg)?,
        data: OctetString::new(enc_key)?,
    };
    let key_bags = alloc::vec![SafeBag {
        bag_id: SHROUDED_KEY_BAG,
        bag_value: Any::encode_from(&epki)?,
        bag_attributes: Some(local_key_id(cert)?),
    }];
    let auth_safe: Vec<ContentInfo> = alloc::vec![
        ContentInfo {
            content_type: ENCRYPTED_DATA,
            content: Any::encode_from(&ed)?,
        },
        ContentInfo {
            content_type: DATA,
            content: Any::encode_from(&OctetString::new(key_bags.to_der()?)?)?,
        },
    ];
    let auth_der = auth_safe.to_der()?;
    let salt: [u8; 8] = random(rng)?;
    let sm = scheme == Scheme::Sm;
    let hash = if sm { MacHash::Sm3 } else { MacHash::Sha256 };
    let mac = pkcs12_mac(hash, password, &salt, ITERATIONS, &auth_der)?;
    let pfx = Pfx {
        version: 3,
        auth_safe: ContentInfo {
            content_type: DATA,
            content: Any::encode_from(&OctetString::new(auth_der)?)?,
        },
        mac_data: Some(MacData {
            mac: DigestInfo {
                algorithm: AlgorithmIdentifierOwned {
                    oid: if sm { SM3 } else { SHA256 },
                    parameters: Some(Any::from(der::asn1::Null)),
                },
                digest: OctetString::new(mac)?,
            },
            mac_salt: OctetString::new(salt)?,
            iterations: ITERATIONS,
        }),
    };
    Ok(pfx.to_der()?)
}

/// What a PKCS#12 file holds.
#[derive(Clone, Debug)]
pub struct Contents {
    /// The private key.
    pub key: SecretKey,
    /// The key's certificate (the one whose public key matches).
    pub cert: Certificate,
    /// The other certificates.
    pub chain: Vec<Certificate>,
}

/// Decrypts `ct` under `alg`: a legacy PKCS#12 PBE scheme or any PBES2 form
/// [`crate::pkcs8`] reads.
fn open(
    alg: &AlgorithmIdentifierOwned,
    ct: &[u8],
    password: &str,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    if let Some(pt) = legacy_open(alg, ct, password)? {
        return Ok(pt);
    }
    let der = alg.to_der()?;
    let alg = spki::AlgorithmIdentifierRef::from_der(&der)?;
    crate::pkcs8::decrypt_with(&alg, ct, password.as_bytes()).map_err(|e| match e {
        Error::WrongPassword => Error::Decryption,
        e => e,
    })
}

fn read_bags(
    bags: &[SafeBag],
    password: &str,
    keys: &mut Vec<Zeroizing<Vec<u8>>>,
    certs: &mut Vec<Certificate>,
) -> Result<(), Error> {
    for bag in bags {
        if bag.bag_id == CERT_BAG {
            let cb = bag.bag_value.decode_as::<CertBag>()?;
            if cb.cert_id == X509_CERTIFICATE {
                certs.push(Certificate::from_der(cb.cert_value.as_bytes())?);
            }
        } else if bag.bag_id == KEY_BAG {
            keys.push(Zeroizing::new(bag.bag_value.to_der()?));
        } else if bag.bag_id == SHROUDED_KEY_BAG {
            let ek = bag.bag_value.decode_as::<EncryptedKey>()?;
            keys.push(open(&ek.algorithm, ek.data.as_bytes(), password)?);
        }
    }
    Ok(())
}

/// Everything a PKCS#12 file holds, whatever its key algorithm (an SM2, ECDSA or RSA key
/// alike).
pub struct Bags {
    /// Each private key as PKCS#8 `PrivateKeyInfo` DER, in file order.
    pub keys: Vec<Zeroizing<Vec<u8>>>,
    /// Each certificate, in file order.
    pub certs: Vec<Certificate>,
}

impl core::fmt::Debug for Bags {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Bags")
            .field("keys", &self.keys.len())
            .field("certs", &self.certs)
            .finish()
    }
}

/// Reads a PKCS#12 file of any key algorithm: checks the MAC (when present), decrypts the
/// bags, and returns the keys as PKCS#8 DER and the certificates. A wrong password gives
/// [`Error::Decryption`].
pub fn import_bags(der: &[u8], password: &str) -> Result<Bags, Error> {
    let pfx = Pfx::from_der(der)?;
    if pfx.version != 3 || pfx.auth_safe.content_type != DATA {
        return Err(Error::UnsupportedAlgorithm);
    }
    let auth_der = pfx.auth_safe.content.decode_as::<OctetString>()?;
    if let Some(m) = &pfx.mac_data {
        let hash = match m.mac.algorithm.oid {
            SM3 => MacHash::Sm3,
            SHA256 => MacHash::Sha256,
            SHA1 => MacHash::Sha1,
            _ => return Err(Error::UnsupportedAlgorithm),
        };
        if m.iterations > MAX_ITERATIONS {
            return Err(Error::UnsupportedAlgorithm);
        }
        let mac = pkcs12_mac(
            hash,
            password,
            m.mac_salt.as_bytes(),
            m.iterations,
            auth_der.as_bytes(),
        )?;
        let ok = shangmi_dispatch::ct::eq(&mac, m.mac.digest.as_bytes());
        if !ok {
            return Err(Error::Decryption);
        }
    }
    let auth: Vec<ContentInfo> = Vec::from_der(auth_der.as_bytes())?;
    let mut keys = Vec::new();
    let mut certs = Vec::new();
    for ci in &auth {
        let bags_der: Zeroizing<Vec<u8>> = if ci.content_type == DATA {
            Zeroizing::new(
                ci.content
                    .decode_as::<OctetString>()?
                    .into_bytes()
                    .into_vec(),
            )
        } else if ci.content_type == ENCRYPTED_DATA {
            let ed = ci.content.decode_as::<EncryptedData>()?;
            let eci = &ed.enc_content_info;
            let ct = eci
                .encrypted_content
                .as_ref()
                .ok_or(Error::MissingContent)?;
            open(&eci.content_enc_alg, ct.as_bytes(), password)?
        } else {
            return Err(Error::UnsupportedAlgorithm);
        };
        let bags: Vec<SafeBag> = Vec::from_der(&bags_der)?;
        read_bags(&bags, password, &mut keys, &mut certs)?;
    }
    Ok(Bags { keys, certs })
}

/// Reads a PKCS#12 file holding an SM2 key: checks the MAC (when present), decrypts the
/// bags (see [`import_bags`] for other key algorithms).
pub fn import(der: &[u8], password: &str) -> Result<Contents, Error> {
    let Bags { keys, mut certs } = import_bags(der, password)?;
    let key = keys.first().ok_or(Error::MissingContent)?;
    let key = shangmi_sm2::keys::secret_key_from_pkcs8_der(key)?;
    let public = key.public_key();
    let pos = certs
        .iter()
        .position(|c| {
            crate::sig::sm2_public_key(c.tbs_certificate().subject_public_key_info())
                == Some(public)
        })
        .ok_or(Error::KeyMismatch)?;
    let cert = certs.remove(pos);
    Ok(Contents {
        key,
        cert,
        chain: certs,
    })
}
