//! `shangmi-wasm`: SM2, SM3 and SM4 for JavaScript. Thin glue only: every primitive comes
//! from `shangmi-sm2`, `shangmi-sm3` and `shangmi-sm4-modes` (their portable, constant-time
//! backends on wasm32); this crate converts `Uint8Array`s, hex strings and options.
//!
//! Two faces: the typed API (`sm3Digest`, `Sm2PrivateKey`, `sm4GcmEncrypt`, …) and, under
//! the names `sm2`, `sm3`, `sm4`, the API of npm's `sm-crypto` (see [`compat`]).

use hmac::Mac as _;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point as _;
use shangmi_sm2::keys::{self, AlgorithmForm};
use shangmi_sm2::pkcs8::LineEnding;
use shangmi_sm2::pke::{DecryptingKey, EncryptingKey, Layout};
use shangmi_sm2::{DEFAULT_ID, FieldBytes, PublicKey, SecretKey};
use shangmi_sm3::{Digest, Sm3};
use shangmi_sm4_modes::aead::consts::{U12, U16};
use shangmi_sm4_modes::aead::{Aead, KeyInit, Payload};
use shangmi_sm4_modes::cipher::block_padding::{NoPadding, Pkcs7};
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, StreamCipher};
use shangmi_sm4_modes::{
    Sm4CbcDec, Sm4CbcEnc, Sm4CcmCustom, Sm4Cmac, Sm4Ctr, Sm4EcbDec, Sm4EcbEnc, Sm4Gcm, Sm4XtsGb,
    Sm4XtsIeee,
};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

pub mod compat;

pub(crate) fn err(msg: impl core::fmt::Display) -> JsError {
    JsError::new(&msg.to_string())
}

pub(crate) fn key16(key: &[u8]) -> Result<Zeroizing<[u8; 16]>, JsError> {
    Ok(Zeroizing::new(key.try_into().map_err(|_| {
        err("key is invalid: SM4 keys are 16 bytes")
    })?))
}

fn iv16(iv: &[u8]) -> Result<[u8; 16], JsError> {
    iv.try_into()
        .map_err(|_| err("iv is invalid: 16 bytes expected"))
}

pub(crate) fn hex(data: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(data.len() * 2);
    for b in data {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// Hex to bytes; an odd-length string gets a leading 0 (as sm-crypto's `hexToArray`).
pub(crate) fn unhex(s: &str) -> Result<Zeroizing<Vec<u8>>, JsError> {
    let s = s.trim();
    let b = s.as_bytes();
    let nib = |c: u8| -> Result<u8, JsError> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(err("invalid hex string")),
        }
    };
    let mut out = Zeroizing::new(Vec::with_capacity(b.len() / 2 + 1));
    let mut rest = b;
    if b.len() % 2 == 1 {
        out.push(nib(b[0])?);
        rest = &b[1..];
    }
    for pair in rest.chunks(2) {
        out.push((nib(pair[0])? << 4) | nib(pair[1])?);
    }
    Ok(out)
}

// --- SM3 -------------------------------------------------------------------------------

/// SM3 digest (32 bytes) of `data`.
#[wasm_bindgen(js_name = sm3Digest)]
pub fn sm3_digest(data: &[u8]) -> Vec<u8> {
    Sm3::digest(data).to_vec()
}

/// HMAC-SM3 (32 bytes) of `data` under `key`.
#[wasm_bindgen(js_name = hmacSm3)]
pub fn hmac_sm3(key: &[u8], data: &[u8]) -> Result<Vec<u8>, JsError> {
    let mut m = hmac::Hmac::<Sm3>::new_from_slice(key).map_err(err)?;
    m.update(data);
    Ok(m.finalize().into_bytes().to_vec())
}

/// Incremental SM3.
#[wasm_bindgen]
pub struct Sm3Hasher {
    h: Sm3,
}

#[wasm_bindgen]
impl Sm3Hasher {
    /// A new hash.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Sm3Hasher {
        Sm3Hasher { h: Sm3::new() }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.h, data);
    }

    /// The digest of everything absorbed so far (the hasher stays usable).
    pub fn digest(&self) -> Vec<u8> {
        self.h.clone().finalize().to_vec()
    }
}

impl Default for Sm3Hasher {
    fn default() -> Self {
        Self::new()
    }
}

// --- SM4 -------------------------------------------------------------------------------

pub(crate) fn cbc_encrypt(
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    padding: bool,
) -> Result<Vec<u8>, JsError> {
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let c = Sm4CbcEnc::new(&(*k).into(), &iv.into());
    if padding {
        Ok(c.encrypt_padded_vec::<Pkcs7>(data))
    } else if data.len().is_multiple_of(16) {
        Ok(c.encrypt_padded_vec::<NoPadding>(data))
    } else {
        Err(err("input is not a whole number of 16-byte blocks"))
    }
}

pub(crate) fn cbc_decrypt(
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    padding: bool,
) -> Result<Vec<u8>, JsError> {
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let c = Sm4CbcDec::new(&(*k).into(), &iv.into());
    if padding {
        c.decrypt_padded_vec::<Pkcs7>(data)
            .map_err(|_| err("padding is invalid"))
    } else {
        c.decrypt_padded_vec::<NoPadding>(data)
            .map_err(|_| err("input is not a whole number of 16-byte blocks"))
    }
}

pub(crate) fn ecb_encrypt(key: &[u8], data: &[u8], padding: bool) -> Result<Vec<u8>, JsError> {
    let k = key16(key)?;
    let c = Sm4EcbEnc::new(&(*k).into());
    if padding {
        Ok(c.encrypt_padded_vec::<Pkcs7>(data))
    } else if data.len().is_multiple_of(16) {
        Ok(c.encrypt_padded_vec::<NoPadding>(data))
    } else {
        Err(err("input is not a whole number of 16-byte blocks"))
    }
}

pub(crate) fn ecb_decrypt(key: &[u8], data: &[u8], padding: bool) -> Result<Vec<u8>, JsError> {
    let k = key16(key)?;
    let c = Sm4EcbDec::new(&(*k).into());
    if padding {
        c.decrypt_padded_vec::<Pkcs7>(data)
            .map_err(|_| err("padding is invalid"))
    } else {
        c.decrypt_padded_vec::<NoPadding>(data)
            .map_err(|_| err("input is not a whole number of 16-byte blocks"))
    }
}

/// SM4-CBC encryption; PKCS#7 padding unless `padding` is false.
#[wasm_bindgen(js_name = sm4CbcEncrypt)]
pub fn sm4_cbc_encrypt(
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    padding: Option<bool>,
) -> Result<Vec<u8>, JsError> {
    cbc_encrypt(key, iv, data, padding.unwrap_or(true))
}

/// SM4-CBC decryption; PKCS#7 padding unless `padding` is false.
#[wasm_bindgen(js_name = sm4CbcDecrypt)]
pub fn sm4_cbc_decrypt(
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    padding: Option<bool>,
) -> Result<Vec<u8>, JsError> {
    cbc_decrypt(key, iv, data, padding.unwrap_or(true))
}

/// SM4-ECB encryption (legacy formats only); PKCS#7 unless `padding` is false.
#[wasm_bindgen(js_name = sm4EcbEncrypt)]
pub fn sm4_ecb_encrypt(key: &[u8], data: &[u8], padding: Option<bool>) -> Result<Vec<u8>, JsError> {
    ecb_encrypt(key, data, padding.unwrap_or(true))
}

/// SM4-ECB decryption; PKCS#7 unless `padding` is false.
#[wasm_bindgen(js_name = sm4EcbDecrypt)]
pub fn sm4_ecb_decrypt(key: &[u8], data: &[u8], padding: Option<bool>) -> Result<Vec<u8>, JsError> {
    ecb_decrypt(key, data, padding.unwrap_or(true))
}

/// SM4-CTR (128-bit big-endian counter starting at `iv`); encryption and decryption.
#[wasm_bindgen(js_name = sm4Ctr)]
pub fn sm4_ctr(key: &[u8], iv: &[u8], data: &[u8]) -> Result<Vec<u8>, JsError> {
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let mut out = data.to_vec();
    Sm4Ctr::new(&(*k).into(), &iv.into())
        .try_apply_keystream(&mut out)
        .map_err(|_| err("counter would wrap"))?;
    Ok(out)
}

/// SM4-GCM encryption with a 12-byte nonce: ciphertext ‖ 16-byte tag.
#[wasm_bindgen(js_name = sm4GcmEncrypt)]
pub fn sm4_gcm_encrypt(
    key: &[u8],
    nonce: &[u8],
    data: &[u8],
    aad: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsError> {
    let k = key16(key)?;
    let n: [u8; 12] = nonce
        .try_into()
        .map_err(|_| err("SM4-GCM nonces are 12 bytes"))?;
    let aad = aad.unwrap_or_default();
    Sm4Gcm::new(&(*k).into())
        .encrypt(
            &n.into(),
            Payload {
                msg: data,
                aad: &aad,
            },
        )
        .map_err(err)
}

/// SM4-GCM decryption; throws when the tag does not verify.
#[wasm_bindgen(js_name = sm4GcmDecrypt)]
pub fn sm4_gcm_decrypt(
    key: &[u8],
    nonce: &[u8],
    data: &[u8],
    aad: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsError> {
    let k = key16(key)?;
    let n: [u8; 12] = nonce
        .try_into()
        .map_err(|_| err("SM4-GCM nonces are 12 bytes"))?;
    let aad = aad.unwrap_or_default();
    Sm4Gcm::new(&(*k).into())
        .decrypt(
            &n.into(),
            Payload {
                msg: data,
                aad: &aad,
            },
        )
        .map_err(|_| err("invalid tag"))
}

type Ccm12 = Sm4CcmCustom<U12, U16>;

/// SM4-CCM encryption with a 12-byte nonce and a 16-byte tag.
#[wasm_bindgen(js_name = sm4CcmEncrypt)]
pub fn sm4_ccm_encrypt(
    key: &[u8],
    nonce: &[u8],
    data: &[u8],
    aad: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsError> {
    let k = key16(key)?;
    let n: [u8; 12] = nonce
        .try_into()
        .map_err(|_| err("SM4-CCM nonces are 12 bytes here"))?;
    let aad = aad.unwrap_or_default();
    Ccm12::new(&(*k).into())
        .encrypt(
            &n.into(),
            Payload {
                msg: data,
                aad: &aad,
            },
        )
        .map_err(err)
}

/// SM4-CCM decryption; throws when the tag does not verify.
#[wasm_bindgen(js_name = sm4CcmDecrypt)]
pub fn sm4_ccm_decrypt(
    key: &[u8],
    nonce: &[u8],
    data: &[u8],
    aad: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsError> {
    let k = key16(key)?;
    let n: [u8; 12] = nonce
        .try_into()
        .map_err(|_| err("SM4-CCM nonces are 12 bytes here"))?;
    let aad = aad.unwrap_or_default();
    Ccm12::new(&(*k).into())
        .decrypt(
            &n.into(),
            Payload {
                msg: data,
                aad: &aad,
            },
        )
        .map_err(|_| err("invalid tag"))
}

/// SM4-XTS with a 32-byte key and 16-byte tweak; `gb` picks GB/T 17964 instead of IEEE 1619.
#[wasm_bindgen(js_name = sm4XtsEncrypt)]
pub fn sm4_xts_encrypt(
    key: &[u8],
    tweak: &[u8],
    data: &[u8],
    gb: Option<bool>,
) -> Result<Vec<u8>, JsError> {
    xts(key, tweak, data, gb.unwrap_or(false), true)
}

/// SM4-XTS decryption (see `sm4XtsEncrypt`).
#[wasm_bindgen(js_name = sm4XtsDecrypt)]
pub fn sm4_xts_decrypt(
    key: &[u8],
    tweak: &[u8],
    data: &[u8],
    gb: Option<bool>,
) -> Result<Vec<u8>, JsError> {
    xts(key, tweak, data, gb.unwrap_or(false), false)
}

fn xts(key: &[u8], tweak: &[u8], data: &[u8], gb: bool, enc: bool) -> Result<Vec<u8>, JsError> {
    let k: Zeroizing<[u8; 32]> = Zeroizing::new(
        key.try_into()
            .map_err(|_| err("SM4-XTS keys are 32 bytes"))?,
    );
    let t = iv16(tweak)?;
    let mut out = data.to_vec();
    let r = match (gb, enc) {
        (false, true) => Sm4XtsIeee::new(&k).map_err(err)?.encrypt(&t, &mut out),
        (false, false) => Sm4XtsIeee::new(&k).map_err(err)?.decrypt(&t, &mut out),
        (true, true) => Sm4XtsGb::new(&k).map_err(err)?.encrypt(&t, &mut out),
        (true, false) => Sm4XtsGb::new(&k).map_err(err)?.decrypt(&t, &mut out),
    };
    r.map_err(err)?;
    Ok(out)
}

/// SM4-CMAC (16 bytes).
#[wasm_bindgen(js_name = sm4Cmac)]
pub fn sm4_cmac(key: &[u8], data: &[u8]) -> Result<Vec<u8>, JsError> {
    let k = key16(key)?;
    let mut m = <Sm4Cmac as hmac::KeyInit>::new_from_slice(&*k).map_err(err)?;
    m.update(data);
    Ok(m.finalize().into_bytes().to_vec())
}

// --- SM2 -------------------------------------------------------------------------------

/// A layout by name (shangmi-sm2's `Layout` names, any case), or `None` for the ASN.1 form.
pub(crate) fn layout(name: &str) -> Result<Option<Layout>, JsError> {
    if name.eq_ignore_ascii_case("ASN1") || name.eq_ignore_ascii_case("DER") {
        return Ok(None);
    }
    name.parse().map(Some).map_err(err)
}

pub(crate) fn secret_from_bytes(d: &[u8]) -> Result<SecretKey, JsError> {
    let d: Zeroizing<[u8; 32]> = Zeroizing::new(
        d.try_into()
            .map_err(|_| err("SM2 private keys are 32 bytes"))?,
    );
    SecretKey::from_bytes(&FieldBytes::from(*d)).map_err(|_| err("SM2 private key out of range"))
}

pub(crate) fn verifying_key(pk: &PublicKey, id: Option<&[u8]>) -> Result<VerifyingKey, JsError> {
    match id {
        Some(id) if id != DEFAULT_ID => VerifyingKey::new_with_id(pk, id).map_err(err),
        _ => Ok(VerifyingKey::new(pk)),
    }
}

/// An SM2 private key (zeroized when freed).
#[wasm_bindgen]
pub struct Sm2PrivateKey {
    sk: SigningKey,
    dk: DecryptingKey,
}

impl Sm2PrivateKey {
    pub(crate) fn of(secret: SecretKey) -> Result<Sm2PrivateKey, JsError> {
        Ok(Sm2PrivateKey {
            sk: SigningKey::new(&secret).map_err(err)?,
            dk: DecryptingKey::new(secret),
        })
    }

    pub(crate) fn signing_key(&self) -> &SigningKey {
        &self.sk
    }

    pub(crate) fn decrypting_key(&self) -> &DecryptingKey {
        &self.dk
    }
}

#[wasm_bindgen]
impl Sm2PrivateKey {
    /// A fresh key from `crypto.getRandomValues`.
    pub fn generate() -> Result<Sm2PrivateKey, JsError> {
        loop {
            let mut d = Zeroizing::new([0u8; 32]);
            getrandom::fill(&mut *d).map_err(err)?;
            if let Ok(s) = secret_from_bytes(&*d)
                && let Ok(k) = Self::of(s)
            {
                return Ok(k);
            }
        }
    }

    /// From the 32-byte secret scalar.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(d: &[u8]) -> Result<Sm2PrivateKey, JsError> {
        Self::of(secret_from_bytes(d)?)
    }

    /// From PEM (PKCS#8 or SEC1).
    #[wasm_bindgen(js_name = fromPem)]
    pub fn from_pem(pem: &str) -> Result<Sm2PrivateKey, JsError> {
        Self::of(keys::secret_key_from_pem(pem).map_err(err)?)
    }

    /// The 32-byte secret scalar.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.sk.to_bytes().to_vec()
    }

    /// PKCS#8 PEM.
    #[wasm_bindgen(js_name = toPem)]
    pub fn to_pem(&self) -> Result<String, JsError> {
        let pem = keys::secret_key_to_pkcs8_pem(
            self.dk.secret_key(),
            AlgorithmForm::EcPublicKey,
            LineEnding::LF,
        )
        .map_err(err)?;
        Ok(pem.to_string())
    }

    /// The public key.
    #[wasm_bindgen(js_name = publicKey)]
    pub fn public_key(&self) -> Sm2PublicKey {
        Sm2PublicKey {
            pk: *self.sk.verifying_key().public_key(),
        }
    }

    /// Signs `msg` with identifier `id` (default "1234567812345678"); 64-byte r ‖ s, or DER
    /// when `der` is true. The nonce is deterministic (HMAC-SM3) hedged with random bytes.
    pub fn sign(
        &self,
        msg: &[u8],
        id: Option<Vec<u8>>,
        der: Option<bool>,
    ) -> Result<Vec<u8>, JsError> {
        let vk = verifying_key(self.sk.verifying_key().public_key(), id.as_deref())?;
        let sig = self
            .sk
            .try_sign_e_with_rng(&mut getrandom::SysRng, &vk.hash_message(msg))
            .map_err(err)?;
        Ok(if der.unwrap_or(false) {
            sig.to_der().as_ref().to_vec()
        } else {
            sig.to_bytes().to_vec()
        })
    }

    /// Decrypts an SM2 ciphertext in `layout` ("C1C3C2" by default; see `Sm2PublicKey.encrypt`).
    pub fn decrypt(&self, ct: &[u8], layout: Option<String>) -> Result<Vec<u8>, JsError> {
        let l = self::layout(layout.as_deref().unwrap_or("C1C3C2"))?;
        match l {
            Some(l) => self.dk.decrypt(ct, l),
            None => self.dk.decrypt_der(ct),
        }
        .map_err(err)
    }
}

/// An SM2 public key.
#[wasm_bindgen]
pub struct Sm2PublicKey {
    pk: PublicKey,
}

#[wasm_bindgen]
impl Sm2PublicKey {
    /// From SEC1 (65-byte `04‖x‖y` or 33-byte compressed) or 64-byte `x‖y`.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(data: &[u8]) -> Result<Sm2PublicKey, JsError> {
        Ok(Sm2PublicKey {
            pk: keys::public_key_from_bytes(data).map_err(err)?,
        })
    }

    /// From PEM (SPKI).
    #[wasm_bindgen(js_name = fromPem)]
    pub fn from_pem(pem: &str) -> Result<Sm2PublicKey, JsError> {
        Ok(Sm2PublicKey {
            pk: keys::public_key_from_pem(pem).map_err(err)?,
        })
    }

    /// SEC1 bytes: 65 bytes, or 33 when `compressed`.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self, compressed: Option<bool>) -> Vec<u8> {
        self.pk
            .to_sec1_point(compressed.unwrap_or(false))
            .as_bytes()
            .to_vec()
    }

    /// SPKI PEM.
    #[wasm_bindgen(js_name = toPem)]
    pub fn to_pem(&self) -> Result<String, JsError> {
        keys::public_key_to_spki_pem(&self.pk, AlgorithmForm::EcPublicKey, LineEnding::LF)
            .map_err(err)
    }

    /// Whether `sig` (64-byte r‖s or DER) is a valid signature of `msg` with identifier `id`.
    pub fn verify(&self, sig: &[u8], msg: &[u8], id: Option<Vec<u8>>) -> Result<bool, JsError> {
        let vk = verifying_key(&self.pk, id.as_deref())?;
        Ok(Signature::from_der_or_fixed(sig)
            .and_then(|s| vk.verify_e(&vk.hash_message(msg), &s))
            .is_ok())
    }

    /// SM2 encryption in `layout`: "C1C3C2" (default), "C1C2C3", "C1C3C2_RAW"/"C1C2C3_RAW"
    /// (C1 without 04), "C1C3C2_COMPRESSED"/"C1C2C3_COMPRESSED", "ASN1".
    pub fn encrypt(&self, msg: &[u8], layout: Option<String>) -> Result<Vec<u8>, JsError> {
        let l = self::layout(layout.as_deref().unwrap_or("C1C3C2"))?;
        let ek = EncryptingKey::new(self.pk);
        let mut rng = getrandom::SysRng;
        match l {
            Some(l) => ek.encrypt(&mut rng, msg, l),
            None => ek.encrypt_der(&mut rng, msg),
        }
        .map_err(err)
    }
}
