//! `shangmi-wasm`: the WebAssembly engine of the `shangmi` npm package (SM2, SM3, SM4).
//! Thin glue only: every primitive comes from `shangmi-sm2`, `shangmi-sm3` and
//! `shangmi-sm4-modes` (their portable, constant-time backends on wasm32) through
//! [`core`], which the native addon (`bindings/node`, napi-rs) shares, so both engines
//! export the same functions under the same names.
//!
//! Not an API for users: `bindings/wasm/js/` checks every argument before it reaches this
//! module (no wasm trap is reachable from the package's API) and builds the typed API and
//! sm-crypto's API on top.

use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

pub mod core;

fn err(e: String) -> JsError {
    JsError::new(&e)
}

// --- SM3 -------------------------------------------------------------------------------

/// SM3 digest (32 bytes) of `data`.
#[wasm_bindgen(js_name = sm3Digest)]
pub fn sm3_digest(data: &[u8]) -> Vec<u8> {
    core::sm3(data)
}

/// HMAC-SM3 (32 bytes) of `data` under `key`.
#[wasm_bindgen(js_name = hmacSm3)]
pub fn hmac_sm3(key: &[u8], data: &[u8]) -> Vec<u8> {
    core::hmac_sm3(key, data)
}

/// Incremental SM3.
#[wasm_bindgen]
#[derive(Default)]
pub struct Sm3Hasher(core::Hasher);

#[wasm_bindgen]
impl Sm3Hasher {
    /// A new hash.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Sm3Hasher {
        Sm3Hasher::default()
    }

    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// The digest of everything absorbed so far (the hasher stays usable).
    pub fn digest(&self) -> Vec<u8> {
        self.0.digest()
    }
}

// --- SM4 -------------------------------------------------------------------------------

/// Pairs of functions over one `core` function that takes the pair's flag last (`true`
/// for the first: encrypt, or sign rather than encrypt), each with its doc and JavaScript
/// name; attributes before a pair (a `cfg`) apply to both.
macro_rules! pairs {
    ($($(#[$attr:meta])*
        $doc:literal $name:ident $js:ident, $doc2:literal $name2:ident $js2:ident =
            $f:ident($($arg:ident: $t:ty),*);
    )*) => {$(
        pairs!(@ [$(#[$attr])*] $doc, $name, $js, true, $f, $($arg: $t),*);
        pairs!(@ [$(#[$attr])*] $doc2, $name2, $js2, false, $f, $($arg: $t),*);
    )*};
    (@ [$($attr:tt)*] $doc:literal, $name:ident, $js:ident, $flag:literal, $f:ident, $($arg:ident: $t:ty),*) => {
        #[doc = $doc]
        $($attr)*
        #[wasm_bindgen(js_name = $js)]
        pub fn $name($($arg: $t),*) -> Result<Vec<u8>, JsError> {
            core::$f($($arg,)* $flag).map(core::Out::into_vec).map_err(err)
        }
    };
}

pairs! {
    "SM4-ECB encryption, PKCS#7 when `padding`." sm4_ecb_encrypt sm4EcbEncrypt,
    "SM4-ECB decryption, PKCS#7 when `padding`." sm4_ecb_decrypt sm4EcbDecrypt =
        ecb(key: &[u8], data: &[u8], padding: bool);
    "SM4-CBC encryption, PKCS#7 when `padding`." sm4_cbc_encrypt sm4CbcEncrypt,
    "SM4-CBC decryption, PKCS#7 when `padding`." sm4_cbc_decrypt sm4CbcDecrypt =
        cbc(key: &[u8], iv: &[u8], data: &[u8], padding: bool);
    "SM4-GCM encryption (12-byte nonce): ciphertext ‖ tag." sm4_gcm_encrypt sm4GcmEncrypt,
    "SM4-GCM decryption; fails when the tag does not verify." sm4_gcm_decrypt sm4GcmDecrypt =
        gcm(key: &[u8], nonce: &[u8], data: &[u8], aad: &[u8]);
    "SM4-CCM encryption (12-byte nonce, 16-byte tag)." sm4_ccm_encrypt sm4CcmEncrypt,
    "SM4-CCM decryption; fails when the tag does not verify." sm4_ccm_decrypt sm4CcmDecrypt =
        ccm(key: &[u8], nonce: &[u8], data: &[u8], aad: &[u8]);
    "SM4-XTS encryption (32-byte key, 16-byte tweak; GB/T 17964 when `gb`, else IEEE 1619)."
        sm4_xts_encrypt sm4XtsEncrypt,
    "SM4-XTS decryption." sm4_xts_decrypt sm4XtsDecrypt =
        xts(key: &[u8], tweak: &[u8], data: &[u8], gb: bool);
    #[cfg(feature = "sm9")]
    "A random SM9 signing master key (32 bytes)." sm9_sign_master_generate sm9SignMasterGenerate,
    "A random SM9 encryption master key (32 bytes)." sm9_enc_master_generate sm9EncMasterGenerate =
        sm9_master_generate();
    #[cfg(feature = "sm9")]
    "The signing master public key (128 bytes) of a master key."
        sm9_sign_master_public sm9SignMasterPublic,
    "The encryption master public key (64 bytes) of a master key."
        sm9_enc_master_public sm9EncMasterPublic =
        sm9_master_public(k: &[u8]);
    #[cfg(feature = "sm9")]
    "The signing key (65 bytes) of `id`." sm9_sign_extract sm9SignExtract,
    "The decryption key (129 bytes) of `id`." sm9_enc_extract sm9EncExtract =
        sm9_extract(k: &[u8], id: &[u8]);
    "128-EEA3 over `bit_len` bits (all of `data` when undefined)." zuc_eea3 zucEea3,
    "128-EIA3 MAC (4 bytes)." zuc_eia3 zucEia3 =
        zuc_128(key: &[u8], count: u32, bearer: u32, direction: u32, data: &[u8], bit_len: Option<u32>);
}

/// SM4-CTR (128-bit big-endian counter starting at `iv`).
#[wasm_bindgen(js_name = sm4Ctr)]
pub fn sm4_ctr(key: &[u8], iv: &[u8], data: &[u8]) -> Result<Vec<u8>, JsError> {
    core::ctr(key, iv, data).map_err(err)
}

/// SM4-CMAC (16 bytes).
#[wasm_bindgen(js_name = sm4Cmac)]
pub fn sm4_cmac(key: &[u8], data: &[u8]) -> Result<Vec<u8>, JsError> {
    core::cmac(key, data).map_err(err)
}

// --- SM2 objects -----------------------------------------------------------------------

/// An SM2 private key (zeroized when freed).
#[wasm_bindgen]
pub struct Sm2PrivateKey(core::PrivateKey);

#[wasm_bindgen]
impl Sm2PrivateKey {
    /// A fresh key from `crypto.getRandomValues`.
    pub fn generate() -> Result<Sm2PrivateKey, JsError> {
        core::PrivateKey::generate().map(Self).map_err(err)
    }

    /// From the 32-byte secret scalar.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(d: &[u8]) -> Result<Sm2PrivateKey, JsError> {
        core::PrivateKey::from_bytes(d).map(Self).map_err(err)
    }

    /// From PEM (PKCS#8 or SEC1).
    #[wasm_bindgen(js_name = fromPem)]
    pub fn from_pem(pem: &str) -> Result<Sm2PrivateKey, JsError> {
        core::PrivateKey::from_pem(pem).map(Self).map_err(err)
    }

    /// The 32-byte secret scalar.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.to_bytes().to_vec()
    }

    /// PKCS#8 PEM.
    #[wasm_bindgen(js_name = toPem)]
    pub fn to_pem(&self) -> Result<String, JsError> {
        self.0.to_pem().map_err(err)
    }

    /// The public key.
    #[wasm_bindgen(js_name = publicKey)]
    pub fn public_key(&self) -> Sm2PublicKey {
        Sm2PublicKey(self.0.public_key())
    }

    /// Signs `msg` with identifier `id` (the default when absent): r ‖ s, or DER.
    pub fn sign(&self, msg: &[u8], id: Option<Vec<u8>>, der: bool) -> Result<Vec<u8>, JsError> {
        self.0.sign(msg, id.as_deref(), der).map_err(err)
    }

    /// Decrypts a ciphertext in the named layout.
    pub fn decrypt(&self, ct: &[u8], layout: &str) -> Result<Vec<u8>, JsError> {
        self.0.decrypt(ct, layout).map_err(err)
    }
}

/// An SM2 public key.
#[wasm_bindgen]
pub struct Sm2PublicKey(shangmi_sm2::PublicKey);

#[wasm_bindgen]
impl Sm2PublicKey {
    /// From SEC1 (65 or 33 bytes) or 64-byte x ‖ y.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(data: &[u8]) -> Result<Sm2PublicKey, JsError> {
        core::public_from_bytes(data).map(Self).map_err(err)
    }

    /// From SPKI PEM.
    #[wasm_bindgen(js_name = fromPem)]
    pub fn from_pem(pem: &str) -> Result<Sm2PublicKey, JsError> {
        core::public_from_pem(pem).map(Self).map_err(err)
    }

    /// SEC1 bytes: 65, or 33 when `compressed`.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn to_bytes(&self, compressed: bool) -> Vec<u8> {
        core::public_to_bytes(&self.0, compressed)
    }

    /// SPKI PEM.
    #[wasm_bindgen(js_name = toPem)]
    pub fn to_pem(&self) -> Result<String, JsError> {
        core::public_to_pem(&self.0).map_err(err)
    }

    /// Whether `sig` (r ‖ s or DER) is a valid signature of `msg` with identifier `id`.
    pub fn verify(&self, sig: &[u8], msg: &[u8], id: Option<Vec<u8>>) -> Result<bool, JsError> {
        core::public_verify(&self.0, sig, msg, id.as_deref()).map_err(err)
    }

    /// SM2 encryption in the named layout.
    pub fn encrypt(&self, msg: &[u8], layout: &str) -> Result<Vec<u8>, JsError> {
        core::public_encrypt(&self.0, msg, layout).map_err(err)
    }
}

// --- SM2 over byte strings (the sm-crypto layer) ------------------------------------------

/// A random private scalar (32 bytes).
#[wasm_bindgen(js_name = sm2GenerateSecret)]
pub fn sm2_generate_secret() -> Result<Vec<u8>, JsError> {
    core::sm2_generate_secret()
        .map(core::Out::into_vec)
        .map_err(err)
}

/// The uncompressed public key of a 32-byte scalar.
#[wasm_bindgen(js_name = sm2PublicOf)]
pub fn sm2_public_of(d: &[u8]) -> Result<Vec<u8>, JsError> {
    core::sm2_public_of(d).map_err(err)
}

/// A point checked on the curve, uncompressed.
#[wasm_bindgen(js_name = sm2Point)]
pub fn sm2_point(b: &[u8]) -> Result<Vec<u8>, JsError> {
    core::sm2_point(b).map_err(err)
}

/// Signs (see `core::sm2_sign`): r ‖ s.
#[wasm_bindgen(js_name = sm2Sign)]
pub fn sm2_sign(
    d: &[u8],
    m: &[u8],
    hash: bool,
    id: Option<Vec<u8>>,
    pk: Option<Vec<u8>>,
    k: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsError> {
    let d = Zeroizing::new(d.to_vec());
    let k = k.map(Zeroizing::new);
    core::sm2_sign(
        &d,
        m,
        hash,
        id.as_deref(),
        pk.as_deref(),
        k.as_deref().map(|k| &k[..]),
    )
    .map_err(err)
}

/// Verifies r ‖ s; false on any failure.
#[wasm_bindgen(js_name = sm2Verify)]
pub fn sm2_verify(pk: &[u8], m: &[u8], sig: &[u8], hash: bool, id: Option<Vec<u8>>) -> bool {
    core::sm2_verify(pk, m, sig, hash, id.as_deref())
}

/// r ‖ s to DER.
#[wasm_bindgen(js_name = sm2SigToDer)]
pub fn sm2_sig_to_der(sig: &[u8]) -> Result<Vec<u8>, JsError> {
    core::sm2_sig_to_der(sig).map_err(err)
}

/// Strict DER to r ‖ s.
#[wasm_bindgen(js_name = sm2SigFromDer)]
pub fn sm2_sig_from_der(der: &[u8]) -> Result<Vec<u8>, JsError> {
    core::sm2_sig_from_der(der).map_err(err)
}

/// Encrypts to a point in the named layout.
#[wasm_bindgen(js_name = sm2Encrypt)]
pub fn sm2_encrypt(pk: &[u8], m: &[u8], layout: &str) -> Result<Vec<u8>, JsError> {
    core::sm2_encrypt(pk, m, layout).map_err(err)
}

/// Decrypts with a 32-byte scalar from the named layout.
#[wasm_bindgen(js_name = sm2Decrypt)]
pub fn sm2_decrypt(d: &[u8], ct: &[u8], layout: &str) -> Result<Vec<u8>, JsError> {
    core::sm2_decrypt(d, ct, layout).map_err(err)
}

/// SM2 key exchange for one party (see `core::KeyExchangeArgs`): K ‖ confirmation.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen(js_name = sm2KeyExchange)]
pub fn sm2_key_exchange(
    initiator: bool,
    d: &[u8],
    r: &[u8],
    id: &[u8],
    peer: &[u8],
    peer_r: &[u8],
    peer_id: &[u8],
    klen: u32,
    peer_confirmation: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsError> {
    let peer_confirmation = peer_confirmation.as_deref();
    core::sm2_key_exchange(core::KeyExchangeArgs {
        initiator,
        d,
        r,
        id,
        peer,
        peer_r,
        peer_id,
        klen,
        peer_confirmation,
    })
    .map_err(err)
}

// --- SM9 -------------------------------------------------------------------------------

/// An SM9 signature (DER or 96 bytes).
#[cfg(feature = "sm9")]
#[wasm_bindgen(js_name = sm9Sign)]
pub fn sm9_sign(user: &[u8], mpk: &[u8], m: &[u8], der: bool) -> Result<Vec<u8>, JsError> {
    core::sm9_sign(user, mpk, m, der).map_err(err)
}

/// Whether `sig` signs `m` for `id`.
#[cfg(feature = "sm9")]
#[wasm_bindgen(js_name = sm9Verify)]
pub fn sm9_verify(mpk: &[u8], id: &[u8], m: &[u8], sig: &[u8]) -> Result<bool, JsError> {
    core::sm9_verify(mpk, id, m, sig).map_err(err)
}

/// A master public key checked, x ‖ y.
#[cfg(feature = "sm9")]
#[wasm_bindgen(js_name = sm9MasterPublicCheck)]
pub fn sm9_master_public_check(b: &[u8], sign: bool) -> Result<Vec<u8>, JsError> {
    core::sm9_master_public_check(b, sign).map_err(err)
}

/// A user key checked against its master public key, uncompressed.
#[cfg(feature = "sm9")]
#[wasm_bindgen(js_name = sm9UserKeyCheck)]
pub fn sm9_user_key_check(user: &[u8], mpk: &[u8], sign: bool) -> Result<Vec<u8>, JsError> {
    core::sm9_user_key_check(user, mpk, sign)
        .map(core::Out::into_vec)
        .map_err(err)
}

/// SM9 encryption to `id`: C1 ‖ C3 ‖ C2, or DER.
#[cfg(feature = "sm9")]
#[wasm_bindgen(js_name = sm9Encrypt)]
pub fn sm9_encrypt(mpk: &[u8], id: &[u8], m: &[u8], der: bool) -> Result<Vec<u8>, JsError> {
    core::sm9_encrypt(mpk, id, m, der).map_err(err)
}

/// SM9 decryption with the key of `id`.
#[cfg(feature = "sm9")]
#[wasm_bindgen(js_name = sm9Decrypt)]
pub fn sm9_decrypt(user: &[u8], mpk: &[u8], id: &[u8], ct: &[u8]) -> Result<Vec<u8>, JsError> {
    core::sm9_decrypt(user, mpk, id, ct)
        .map(|p| Zeroizing::new(p).to_vec())
        .map_err(err)
}

// --- ZUC -------------------------------------------------------------------------------

/// `data` XORed with the ZUC-128 or ZUC-256 keystream.
#[wasm_bindgen(js_name = zucApply)]
pub fn zuc_apply(key: &[u8], iv: &[u8], data: &[u8]) -> Result<Vec<u8>, JsError> {
    core::zuc_apply(key, iv, data).map_err(err)
}

/// The ZUC-256 MAC (4, 8 or 16 bytes).
#[cfg(feature = "zuc256")]
#[wasm_bindgen(js_name = zuc256Mac)]
pub fn zuc256_mac(key: &[u8], iv: &[u8], data: &[u8], tag_size: u32) -> Result<Vec<u8>, JsError> {
    core::zuc256_mac(key, iv, data, tag_size).map_err(err)
}
