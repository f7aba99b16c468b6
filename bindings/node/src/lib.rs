//! `shangmi-node`: the native engine of the `shangmi` npm package (napi-rs), the same
//! functions under the same names as the WebAssembly engine (`bindings/wasm`), both thin
//! glue over one shared module (`bindings/wasm/src/core.rs`, included below) and the
//! workspace crates, whose runtime dispatch picks the fastest engine of the CPU (AES-NI,
//! GFNI, AVX-512, VAES for SM4; the SM2 field and comb backends).
//!
//! Not an API for users: `bindings/wasm/js/` checks every argument before calling in, picks
//! this addon when it loads (the wasm module otherwise) and builds the typed API and
//! sm-crypto's API on top.

use napi::bindgen_prelude::{Result, Uint8Array};
use napi_derive::napi;
use zeroize::Zeroizing;

#[path = "../../wasm/src/core.rs"]
mod core;
pub mod pki;
#[path = "../../python/src/pki_text.rs"]
mod pki_text;
#[path = "../../python/src/test_server.rs"]
mod test_server;
pub mod tlcp;

/// A Uint8Array the caller allocated, written in place (napi-rs takes `&mut [u8]` by value
/// only when the macro does not see a reference: hence the alias). It is valid for the call.
type OutBytes = &'static mut [u8];

fn err(e: String) -> napi::Error {
    napi::Error::from_reason(e)
}

fn out(v: Vec<u8>) -> Uint8Array {
    Uint8Array::new(v)
}

fn res(r: core::Res<impl core::Out>) -> Result<Uint8Array> {
    r.map(|v| out(v.into_vec())).map_err(err)
}

// --- SM3 -------------------------------------------------------------------------------

/// SM3 digest.
#[napi]
pub fn sm3_digest(data: Uint8Array) -> Uint8Array {
    out(core::sm3(&data))
}

/// HMAC-SM3.
#[napi]
pub fn hmac_sm3(key: Uint8Array, data: Uint8Array) -> Uint8Array {
    out(core::hmac_sm3(&key, &data))
}

/// Incremental SM3.
#[napi]
pub struct Sm3Hasher {
    h: core::Hasher,
}

#[napi]
impl Sm3Hasher {
    /// A new hash.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Sm3Hasher {
            h: core::Hasher::default(),
        }
    }

    /// Absorbs `data`.
    #[napi]
    pub fn update(&mut self, data: Uint8Array) {
        self.h.update(&data);
    }

    /// The digest so far.
    #[napi]
    pub fn digest(&self) -> Uint8Array {
        out(self.h.digest())
    }
}

// --- SM4 -------------------------------------------------------------------------------

/// Pairs of functions over one `core` function that takes the pair's flag last (`true`
/// for the first: encrypt, or sign rather than encrypt), each with its own doc.
macro_rules! pairs {
    ($($doc:literal $name:ident, $doc2:literal $name2:ident = $f:ident($($arg:ident: $t:ty),*);)*) => {$(
        pairs!(@ $doc, $name, true, $f, $($arg: $t),*);
        pairs!(@ $doc2, $name2, false, $f, $($arg: $t),*);
    )*};
    (@ $doc:literal, $name:ident, $flag:literal, $f:ident, $($arg:ident: $t:ty),*) => {
        #[doc = $doc]
        #[napi]
        pub fn $name($($arg: $t),*) -> Result<Uint8Array> {
            res(core::$f($(Arg::arg(&$arg),)* $flag))
        }
    };
}

/// An argument as the `core` functions take it: bytes as a slice, a flag by value.
trait Arg<'a> {
    type As;
    fn arg(&'a self) -> Self::As;
}

impl<'a> Arg<'a> for Uint8Array {
    type As = &'a [u8];
    fn arg(&'a self) -> &'a [u8] {
        self
    }
}

/// Numbers and flags go by value.
macro_rules! by_value {
    ($($t:ty),*) => {$(
        impl Arg<'_> for $t {
            type As = $t;
            fn arg(&self) -> $t {
                *self
            }
        }
    )*};
}

by_value!(bool, u32, Option<u32>);

pairs! {
    "SM4-ECB encryption." sm4_ecb_encrypt, "SM4-ECB decryption." sm4_ecb_decrypt =
        ecb(key: Uint8Array, data: Uint8Array, padding: bool);
    "SM4-CBC encryption." sm4_cbc_encrypt, "SM4-CBC decryption." sm4_cbc_decrypt =
        cbc(key: Uint8Array, iv: Uint8Array, data: Uint8Array, padding: bool);
    "SM4-GCM encryption." sm4_gcm_encrypt, "SM4-GCM decryption." sm4_gcm_decrypt =
        gcm(key: Uint8Array, nonce: Uint8Array, data: Uint8Array, aad: Uint8Array);
    "SM4-CCM encryption." sm4_ccm_encrypt, "SM4-CCM decryption." sm4_ccm_decrypt =
        ccm(key: Uint8Array, nonce: Uint8Array, data: Uint8Array, aad: Uint8Array);
    "SM4-XTS encryption." sm4_xts_encrypt, "SM4-XTS decryption." sm4_xts_decrypt =
        xts(key: Uint8Array, tweak: Uint8Array, data: Uint8Array, gb: bool);
}

/// SM4-CTR.
#[napi]
pub fn sm4_ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array) -> Result<Uint8Array> {
    res(core::ctr(&key, &iv, &data))
}

/// SM4-GCM into `out` (allocated by the caller): encryption when `encrypt`, else the checked
/// decryption; `out` is `data.len() + 16` or `data.len() - 16` bytes.
#[napi]
pub fn sm4_gcm_into(
    key: Uint8Array,
    nonce: Uint8Array,
    data: Uint8Array,
    aad: Uint8Array,
    encrypt: bool,
    out: OutBytes,
) -> Result<()> {
    core::gcm_into(&key, &nonce, &data, &aad, encrypt, out).map_err(err)
}

/// SM4-CTR into `out` (`data.len()` bytes, allocated by the caller).
#[napi]
pub fn sm4_ctr_into(
    key: Uint8Array,
    iv: Uint8Array,
    data: Uint8Array,
    out: OutBytes,
) -> Result<()> {
    core::ctr_into(&key, &iv, &data, out).map_err(err)
}

/// SM4-CMAC.
#[napi]
pub fn sm4_cmac(key: Uint8Array, data: Uint8Array) -> Result<Uint8Array> {
    res(core::cmac(&key, &data))
}

// --- SM2 objects -----------------------------------------------------------------------

/// An SM2 private key.
#[napi]
pub struct Sm2PrivateKey {
    k: core::PrivateKey,
}

#[napi]
impl Sm2PrivateKey {
    /// A fresh key from the system generator.
    #[napi(factory)]
    pub fn generate() -> Result<Self> {
        core::PrivateKey::generate()
            .map(|k| Sm2PrivateKey { k })
            .map_err(err)
    }

    /// From the 32-byte scalar.
    #[napi(factory)]
    pub fn from_bytes(d: Uint8Array) -> Result<Self> {
        core::PrivateKey::from_bytes(&d)
            .map(|k| Sm2PrivateKey { k })
            .map_err(err)
    }

    /// From PEM.
    #[napi(factory)]
    pub fn from_pem(pem: String) -> Result<Self> {
        core::PrivateKey::from_pem(&pem)
            .map(|k| Sm2PrivateKey { k })
            .map_err(err)
    }

    /// The 32-byte scalar.
    #[napi]
    pub fn to_bytes(&self) -> Uint8Array {
        out(self.k.to_bytes().to_vec())
    }

    /// PKCS#8 PEM.
    #[napi]
    pub fn to_pem(&self) -> Result<String> {
        self.k.to_pem().map_err(err)
    }

    /// The public key.
    #[napi]
    pub fn public_key(&self) -> Sm2PublicKey {
        Sm2PublicKey {
            p: self.k.public_key(),
        }
    }

    /// Signs with identifier `id`: r ‖ s, or DER.
    #[napi]
    pub fn sign(&self, msg: Uint8Array, id: Option<Uint8Array>, der: bool) -> Result<Uint8Array> {
        res(self.k.sign(&msg, id.as_deref(), der))
    }

    /// Decrypts from the named layout.
    #[napi]
    pub fn decrypt(&self, ct: Uint8Array, layout: String) -> Result<Uint8Array> {
        res(self.k.decrypt(&ct, &layout))
    }
}

/// An SM2 public key.
#[napi]
pub struct Sm2PublicKey {
    p: shangmi_sm2::PublicKey,
}

#[napi]
impl Sm2PublicKey {
    /// From SEC1 or x ‖ y.
    #[napi(factory)]
    pub fn from_bytes(data: Uint8Array) -> Result<Self> {
        core::public_from_bytes(&data)
            .map(|p| Sm2PublicKey { p })
            .map_err(err)
    }

    /// From SPKI PEM.
    #[napi(factory)]
    pub fn from_pem(pem: String) -> Result<Self> {
        core::public_from_pem(&pem)
            .map(|p| Sm2PublicKey { p })
            .map_err(err)
    }

    /// SEC1 bytes.
    #[napi]
    pub fn to_bytes(&self, compressed: bool) -> Uint8Array {
        out(core::public_to_bytes(&self.p, compressed))
    }

    /// SPKI PEM.
    #[napi]
    pub fn to_pem(&self) -> Result<String> {
        core::public_to_pem(&self.p).map_err(err)
    }

    /// Signature check.
    #[napi]
    pub fn verify(&self, sig: Uint8Array, msg: Uint8Array, id: Option<Uint8Array>) -> Result<bool> {
        core::public_verify(&self.p, &sig, &msg, id.as_deref()).map_err(err)
    }

    /// Encryption in the named layout.
    #[napi]
    pub fn encrypt(&self, msg: Uint8Array, layout: String) -> Result<Uint8Array> {
        res(core::public_encrypt(&self.p, &msg, &layout))
    }
}

// --- SM2 over byte strings (the sm-crypto layer) ------------------------------------------

/// A random private scalar.
#[napi]
pub fn sm2_generate_secret() -> Result<Uint8Array> {
    res(core::sm2_generate_secret())
}

/// The uncompressed public key of a scalar.
#[napi]
pub fn sm2_public_of(d: Uint8Array) -> Result<Uint8Array> {
    res(core::sm2_public_of(&d))
}

/// A point checked on the curve, uncompressed.
#[napi]
pub fn sm2_point(b: Uint8Array) -> Result<Uint8Array> {
    res(core::sm2_point(&b))
}

/// Signs: r ‖ s.
#[napi]
pub fn sm2_sign(
    d: Uint8Array,
    m: Uint8Array,
    hash: bool,
    id: Option<Uint8Array>,
    pk: Option<Uint8Array>,
    k: Option<Uint8Array>,
) -> Result<Uint8Array> {
    let d = Zeroizing::new(d.to_vec());
    res(core::sm2_sign(
        &d,
        &m,
        hash,
        id.as_deref(),
        pk.as_deref(),
        k.as_deref(),
    ))
}

/// Verifies r ‖ s.
#[napi]
pub fn sm2_verify(
    pk: Uint8Array,
    m: Uint8Array,
    sig: Uint8Array,
    hash: bool,
    id: Option<Uint8Array>,
) -> bool {
    core::sm2_verify(&pk, &m, &sig, hash, id.as_deref())
}

/// r ‖ s to DER.
#[napi]
pub fn sm2_sig_to_der(sig: Uint8Array) -> Result<Uint8Array> {
    res(core::sm2_sig_to_der(&sig))
}

/// Strict DER to r ‖ s.
#[napi]
pub fn sm2_sig_from_der(der: Uint8Array) -> Result<Uint8Array> {
    res(core::sm2_sig_from_der(&der))
}

/// Encrypts to a point.
#[napi]
pub fn sm2_encrypt(pk: Uint8Array, m: Uint8Array, layout: String) -> Result<Uint8Array> {
    res(core::sm2_encrypt(&pk, &m, &layout))
}

/// Decrypts with a scalar.
#[napi]
pub fn sm2_decrypt(d: Uint8Array, ct: Uint8Array, layout: String) -> Result<Uint8Array> {
    res(core::sm2_decrypt(&d, &ct, &layout))
}

/// SM2 key exchange for one party (see `core::KeyExchangeArgs`): K ‖ confirmation.
#[napi]
#[allow(clippy::too_many_arguments)]
pub fn sm2_key_exchange(
    initiator: bool,
    d: Uint8Array,
    r: Uint8Array,
    id: Uint8Array,
    peer: Uint8Array,
    peer_r: Uint8Array,
    peer_id: Uint8Array,
    klen: u32,
    peer_confirmation: Option<Uint8Array>,
) -> Result<Uint8Array> {
    res(core::sm2_key_exchange(core::KeyExchangeArgs {
        initiator,
        d: &d,
        r: &r,
        id: &id,
        peer: &peer,
        peer_r: &peer_r,
        peer_id: &peer_id,
        klen,
        peer_confirmation: peer_confirmation.as_deref(),
    }))
}

// --- SM9 -------------------------------------------------------------------------------

pairs! {
    "A random SM9 signing master key (32 bytes)." sm9_sign_master_generate,
    "A random SM9 encryption master key (32 bytes)." sm9_enc_master_generate =
        sm9_master_generate();
    "The signing master public key (128 bytes) of a master key." sm9_sign_master_public,
    "The encryption master public key (64 bytes) of a master key." sm9_enc_master_public =
        sm9_master_public(k: Uint8Array);
    "The signing key (65 bytes) of `id`." sm9_sign_extract,
    "The decryption key (129 bytes) of `id`." sm9_enc_extract =
        sm9_extract(k: Uint8Array, id: Uint8Array);
}

/// An SM9 signature (DER or 96 bytes).
#[napi]
pub fn sm9_sign(user: Uint8Array, mpk: Uint8Array, m: Uint8Array, der: bool) -> Result<Uint8Array> {
    res(core::sm9_sign(&user, &mpk, &m, der))
}

/// Whether `sig` signs `m` for `id`.
#[napi]
pub fn sm9_verify(mpk: Uint8Array, id: Uint8Array, m: Uint8Array, sig: Uint8Array) -> Result<bool> {
    core::sm9_verify(&mpk, &id, &m, &sig).map_err(err)
}

/// A master public key checked, x ‖ y.
#[napi]
pub fn sm9_master_public_check(b: Uint8Array, sign: bool) -> Result<Uint8Array> {
    res(core::sm9_master_public_check(&b, sign))
}

/// A user key checked against its master public key, uncompressed.
#[napi]
pub fn sm9_user_key_check(user: Uint8Array, mpk: Uint8Array, sign: bool) -> Result<Uint8Array> {
    res(core::sm9_user_key_check(&user, &mpk, sign))
}

/// SM9 encryption to `id`: C1 ‖ C3 ‖ C2, or DER.
#[napi]
pub fn sm9_encrypt(
    mpk: Uint8Array,
    id: Uint8Array,
    m: Uint8Array,
    der: bool,
) -> Result<Uint8Array> {
    res(core::sm9_encrypt(&mpk, &id, &m, der))
}

/// SM9 decryption with the key of `id`.
#[napi]
pub fn sm9_decrypt(
    user: Uint8Array,
    mpk: Uint8Array,
    id: Uint8Array,
    ct: Uint8Array,
) -> Result<Uint8Array> {
    res(core::sm9_decrypt(&user, &mpk, &id, &ct))
}

// --- ZUC -------------------------------------------------------------------------------

pairs! {
    "128-EEA3 over `bit_len` bits (all of `data` when undefined)." zuc_eea3,
    "128-EIA3 MAC (4 bytes)." zuc_eia3 = zuc_128(
        key: Uint8Array,
        count: u32,
        bearer: u32,
        direction: u32,
        data: Uint8Array,
        bit_len: Option<u32>
    );
}

/// `data` XORed with the ZUC-128 or ZUC-256 keystream.
#[napi]
pub fn zuc_apply(key: Uint8Array, iv: Uint8Array, data: Uint8Array) -> Result<Uint8Array> {
    res(core::zuc_apply(&key, &iv, &data))
}

/// The ZUC-256 MAC (4, 8 or 16 bytes).
#[napi]
pub fn zuc256_mac(
    key: Uint8Array,
    iv: Uint8Array,
    data: Uint8Array,
    tag_size: u32,
) -> Result<Uint8Array> {
    res(core::zuc256_mac(&key, &iv, &data, tag_size))
}
