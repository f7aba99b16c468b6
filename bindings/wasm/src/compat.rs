//! The API of npm's `sm-crypto` (0.3–0.5): `sm2`, `sm3`, `sm4` with its hex strings,
//! options and defaults, so `require('sm-crypto')` can be replaced by this package.
//!
//! - `sm2.generateKeyPairHex()`, `getPublicKeyFromPrivateKey`, `compressPublicKeyHex`,
//!   `comparePublicKeyHex`, `verifyPublicKey`;
//! - `sm2.doEncrypt(msg, publicKey, cipherMode = 1)`: hex, C1 without the 04 prefix,
//!   cipherMode 1 = C1C3C2, 0 = C1C2C3; `doDecrypt(hex, privateKey, cipherMode, {output})`
//!   returns `''` (or `[]`) when the ciphertext does not decrypt;
//! - `sm2.doSignature(msg, privateKey, {der, hash, publicKey, userId})` and
//!   `doVerifySignature(msg, sigHex, publicKey, {der, hash, userId})`;
//! - `sm3(msg, {key})`;
//! - `sm4.encrypt/decrypt(msg, key, {mode, iv, padding, output})`.
//!
//! Differences, all on inputs sm-crypto mishandles: the empty message is refused by SM2
//! encryption (GB/T 32918.4), SM4 without padding refuses a partial last block (sm-crypto
//! drops it silently), private keys must be in [1, n-2].

use crate::{Sm2PrivateKey, err, hex, secret_from_bytes, unhex, verifying_key};
use hmac::{KeyInit as _, Mac as _};
use js_sys::{Array, Object, Reflect, Uint8Array};
use shangmi_sm2::Scalar;
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::elliptic_curve::ff::PrimeField as _;
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point as _;
use shangmi_sm2::pke::{EncryptingKey, Layout};
use shangmi_sm3::{Digest, Sm3};
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

/// A message argument: a string is UTF-8 text, anything else an array of bytes.
fn msg_bytes(v: &JsValue) -> Zeroizing<Vec<u8>> {
    match v.as_string() {
        Some(s) => Zeroizing::new(s.into_bytes()),
        None => Zeroizing::new(to_uint8_array(v).to_vec()),
    }
}

/// A key or IV argument: a string is hex, anything else an array of bytes.
fn hex_or_bytes(v: &JsValue) -> Result<Zeroizing<Vec<u8>>, JsError> {
    match v.as_string() {
        Some(s) => unhex(&s),
        None => Ok(Zeroizing::new(to_uint8_array(v).to_vec())),
    }
}

fn opt(opts: &JsValue, name: &str) -> JsValue {
    if opts.is_object() {
        Reflect::get(opts, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

fn opt_string(opts: &JsValue, name: &str) -> Option<String> {
    opt(opts, name).as_string()
}

// `Array.from(typedArray)` is about ten times slower than a loop in V8, and
// `Uint8Array.from(array)` about four times faster than `new Uint8Array(array)` (the
// `Uint8Array::new` of js-sys) for a plain array: 1.6 against 7 ms for 2^20 numbers, Node
// 20. Anything but an array keeps `new Uint8Array`'s meaning.
#[wasm_bindgen(
    inline_js = "export function to_plain_array(u8) { const a = new Array(u8.length); for (let i = 0; i < u8.length; i++) a[i] = u8[i]; return a }
export function to_uint8_array(v) { return Array.isArray(v) ? Uint8Array.from(v) : new Uint8Array(v) }"
)]
extern "C" {
    fn to_plain_array(u8: &Uint8Array) -> Array;
    fn to_uint8_array(v: &JsValue) -> Uint8Array;
}

/// A plain JS array of numbers (what sm-crypto returns for `output: 'array'`).
fn array_of(bytes: &[u8]) -> JsValue {
    to_plain_array(&Uint8Array::from(bytes)).into()
}

/// A private key given as hex (any length up to 64 digits, as sm-crypto's BigInteger).
fn private_key(hex_key: &str) -> Result<Sm2PrivateKey, JsError> {
    let d = unhex(hex_key)?;
    if d.len() > 32 {
        return Err(err("invalid private key"));
    }
    let mut full = Zeroizing::new([0u8; 32]);
    full[32 - d.len()..].copy_from_slice(&d);
    Sm2PrivateKey::of(secret_from_bytes(&*full)?)
}

fn public_key(hex_key: &str) -> Result<shangmi_sm2::PublicKey, JsError> {
    shangmi_sm2::keys::public_key_from_bytes(&unhex(hex_key)?)
        .map_err(|_| err("Invalid public key"))
}

/// e for `hash: false`: the message bytes as a big-endian integer, reduced mod n (only e
/// mod n enters the signature equation).
fn reduce_e(msg: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    if msg.len() <= 32 {
        out[32 - msg.len()..].copy_from_slice(msg);
        return out;
    }
    let base = Scalar::from(256u64);
    let mut acc = Scalar::from(0u64);
    for b in msg {
        acc = acc * base + Scalar::from(u64::from(*b));
    }
    out.copy_from_slice(&acc.to_repr());
    out
}

fn user_id(opts: &JsValue) -> Option<Vec<u8>> {
    opt_string(opts, "userId").map(String::into_bytes)
}

/// `sm-crypto`'s `sm2` object (static methods).
#[wasm_bindgen(js_name = sm2)]
pub struct SmCryptoSm2 {
    _private: (),
}

#[wasm_bindgen(js_class = sm2)]
impl SmCryptoSm2 {
    /// `{privateKey, publicKey}` as hex (public key `04‖x‖y`).
    #[wasm_bindgen(js_name = generateKeyPairHex)]
    pub fn generate_key_pair_hex() -> Result<Object, JsError> {
        let k = Sm2PrivateKey::generate()?;
        let o = Object::new();
        let d = Zeroizing::new(k.to_bytes());
        Reflect::set(&o, &"privateKey".into(), &hex(&d).into()).map_err(|_| err("set"))?;
        let p = hex(&k.public_key().to_bytes(None));
        Reflect::set(&o, &"publicKey".into(), &p.into()).map_err(|_| err("set"))?;
        Ok(o)
    }

    /// `04‖x‖y` hex of the private key's public key.
    #[wasm_bindgen(js_name = getPublicKeyFromPrivateKey)]
    pub fn get_public_key_from_private_key(private_key: &str) -> Result<String, JsError> {
        Ok(hex(&self::private_key(private_key)?
            .public_key()
            .to_bytes(None)))
    }

    /// `02‖x` / `03‖x` of an uncompressed hex key.
    #[wasm_bindgen(js_name = compressPublicKeyHex)]
    pub fn compress_public_key_hex(s: &str) -> Result<String, JsError> {
        if s.len() != 130 {
            return Err(err("Invalid public key to compress"));
        }
        Ok(hex(public_key(s)?.to_sec1_point(true).as_bytes()))
    }

    /// Whether two hex public keys (either form) are the same point.
    #[wasm_bindgen(js_name = comparePublicKeyHex)]
    pub fn compare_public_key_hex(a: &str, b: &str) -> bool {
        matches!((public_key(a), public_key(b)), (Ok(x), Ok(y)) if x == y)
    }

    /// Whether a hex public key is a point on the curve.
    #[wasm_bindgen(js_name = verifyPublicKey)]
    pub fn verify_public_key(s: &str) -> bool {
        public_key(s).is_ok()
    }

    /// Encrypts; hex output, C1 without the 04 prefix; cipherMode 1 (default) = C1C3C2,
    /// 0 = C1C2C3.
    #[wasm_bindgen(js_name = doEncrypt)]
    pub fn do_encrypt(
        msg: JsValue,
        public_key: &str,
        cipher_mode: JsValue,
    ) -> Result<String, JsError> {
        let pk = self::public_key(public_key)?;
        let m = msg_bytes(&msg);
        let layout = if cipher_mode.as_f64() == Some(0.0) {
            Layout::C1C2C3Raw
        } else {
            Layout::C1C3C2Raw
        };
        let ct = EncryptingKey::new(pk)
            .encrypt(&mut getrandom::SysRng, &m, layout)
            .map_err(err)?;
        Ok(hex(&ct))
    }

    /// Decrypts hex (C1 without 04, as `doEncrypt` writes; a 04-prefixed C1 is also taken);
    /// returns a UTF-8 string, or an array with `{output: 'array'}`; `''` / `[]` on failure.
    #[wasm_bindgen(js_name = doDecrypt)]
    pub fn do_decrypt(
        encrypt_data: &str,
        private_key: &str,
        cipher_mode: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsError> {
        let array = opt_string(&options, "output").as_deref() == Some("array");
        let fail = || {
            if array {
                Array::new().into()
            } else {
                JsValue::from_str("")
            }
        };
        let k = self::private_key(private_key)?;
        let Ok(ct) = unhex(encrypt_data) else {
            return Ok(fail());
        };
        let c1c2c3 = cipher_mode.as_f64() == Some(0.0);
        let (raw, prefixed) = if c1c2c3 {
            (Layout::C1C2C3Raw, Layout::C1C2C3)
        } else {
            (Layout::C1C3C2Raw, Layout::C1C3C2)
        };
        let dk = k.decrypting_key();
        let pt = dk.decrypt(&ct, raw).or_else(|e| {
            if ct.first() == Some(&4) {
                dk.decrypt(&ct, prefixed)
            } else {
                Err(e)
            }
        });
        Ok(match pt {
            Ok(pt) => {
                let pt = Zeroizing::new(pt);
                if array {
                    array_of(&pt)
                } else {
                    JsValue::from_str(&String::from_utf8_lossy(&pt))
                }
            }
            Err(_) => fail(),
        })
    }

    /// Signs; hex r‖s (128 digits) or DER hex with `{der: true}`. `hash` (default true)
    /// signs SM3(Z_A ‖ msg) with `userId` (default "1234567812345678") and `publicKey`
    /// (default: the private key's); `hash: false` signs msg as the integer e.
    #[wasm_bindgen(js_name = doSignature)]
    pub fn do_signature(
        msg: JsValue,
        private_key: &str,
        options: JsValue,
    ) -> Result<String, JsError> {
        let k = self::private_key(private_key)?;
        let m = msg_bytes(&msg);
        let hash = opt(&options, "hash");
        let e = if hash.is_undefined() || hash.is_truthy() {
            let pk = match opt_string(&options, "publicKey") {
                Some(p) => self::public_key(&p)?,
                None => *k.signing_key().verifying_key().public_key(),
            };
            verifying_key(&pk, user_id(&options).as_deref())?.hash_message(&m)
        } else {
            reduce_e(&m)
        };
        let sig = k
            .signing_key()
            .try_sign_e_with_rng(&mut getrandom::SysRng, &e)
            .map_err(err)?;
        Ok(if opt(&options, "der").is_truthy() {
            hex(sig.to_der().as_ref())
        } else {
            hex(&sig.to_bytes())
        })
    }

    /// Verifies a hex signature (r‖s, or DER with `{der: true}`); false on any error.
    #[wasm_bindgen(js_name = doVerifySignature)]
    pub fn do_verify_signature(
        msg: JsValue,
        sign_hex: &str,
        public_key: &str,
        options: JsValue,
    ) -> bool {
        let Ok(pk) = self::public_key(public_key) else {
            return false;
        };
        let Ok(sig) = unhex(sign_hex) else {
            return false;
        };
        let sig = if opt(&options, "der").is_truthy() {
            Signature::from_der(&sig)
        } else if sig.len() == 64 {
            Signature::from_der_or_fixed(&sig)
        } else {
            return false;
        };
        let Ok(sig) = sig else {
            return false;
        };
        let Ok(vk) = verifying_key(&pk, user_id(&options).as_deref()) else {
            return false;
        };
        let m = msg_bytes(&msg);
        let hash = opt(&options, "hash");
        let e = if hash.is_undefined() || hash.is_truthy() {
            vk.hash_message(&m)
        } else {
            reduce_e(&m)
        };
        vk.verify_e(&e, &sig).is_ok()
    }
}

/// `sm-crypto`'s `sm3(msg, options)`: hex SM3 of a string (UTF-8) or byte array; with
/// `{key}` (hex or bytes) HMAC-SM3.
#[wasm_bindgen(js_name = sm3)]
pub fn sm3_compat(input: JsValue, options: JsValue) -> Result<String, JsError> {
    let m = msg_bytes(&input);
    if options.is_truthy() {
        if let Some(mode) = opt_string(&options, "mode")
            && !mode.is_empty()
            && mode != "hmac"
        {
            return Err(err("invalid mode"));
        }
        let key = opt(&options, "key");
        if !key.is_truthy() {
            return Err(err("invalid key"));
        }
        let key = hex_or_bytes(&key)?;
        let mut mac = hmac::Hmac::<Sm3>::new_from_slice(&key).map_err(err)?;
        mac.update(&m);
        return Ok(hex(&mac.finalize().into_bytes()));
    }
    Ok(hex(&Sm3::digest(&*m)))
}

/// `sm-crypto`'s `sm4` object (static methods).
#[wasm_bindgen(js_name = sm4)]
pub struct SmCryptoSm4 {
    _private: (),
}

fn sm4_run(
    input: JsValue,
    key: JsValue,
    options: JsValue,
    encrypt: bool,
) -> Result<JsValue, JsError> {
    let cbc = opt_string(&options, "mode").as_deref() == Some("cbc");
    let iv = if cbc {
        let iv = hex_or_bytes(&opt(&options, "iv"))?;
        if iv.len() != 16 {
            return Err(err("iv is invalid"));
        }
        iv
    } else {
        Zeroizing::new(Vec::new())
    };
    let key = hex_or_bytes(&key)?;
    if key.len() != 16 {
        return Err(err("key is invalid"));
    }
    let data = match input.as_string() {
        Some(s) if encrypt => Zeroizing::new(s.into_bytes()),
        Some(s) => unhex(&s)?,
        None => Zeroizing::new(to_uint8_array(&input).to_vec()),
    };
    let padding = match opt_string(&options, "padding") {
        None => true,
        Some(p) => p == "pkcs#7" || p == "pkcs#5",
    };
    let out = Zeroizing::new(match (cbc, encrypt) {
        (true, true) => crate::cbc_encrypt(&key, &iv, &data, padding)?,
        (true, false) => crate::cbc_decrypt(&key, &iv, &data, padding)?,
        (false, true) => crate::ecb_encrypt(&key, &data, padding)?,
        (false, false) => crate::ecb_decrypt(&key, &data, padding)?,
    });
    Ok(
        if opt_string(&options, "output").as_deref() == Some("array") {
            array_of(&out)
        } else if encrypt {
            JsValue::from_str(&hex(&out))
        } else {
            JsValue::from_str(&String::from_utf8_lossy(&out))
        },
    )
}

#[wasm_bindgen(js_class = sm4)]
impl SmCryptoSm4 {
    /// SM4 encryption: ECB unless `{mode: 'cbc', iv}`; PKCS#7 unless `{padding: 'none'}`;
    /// hex output unless `{output: 'array'}`. A string input is UTF-8 text.
    pub fn encrypt(input: JsValue, key: JsValue, options: JsValue) -> Result<JsValue, JsError> {
        sm4_run(input, key, options, true)
    }

    /// SM4 decryption: a string input is hex; UTF-8 string output unless
    /// `{output: 'array'}`.
    pub fn decrypt(input: JsValue, key: JsValue, options: JsValue) -> Result<JsValue, JsError> {
        sm4_run(input, key, options, false)
    }
}
