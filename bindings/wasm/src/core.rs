//! The primitive core shared by the two engines of the `shangmi` npm package: this crate
//! (wasm-bindgen, the portable fallback) and `bindings/node` (napi-rs, the native addon,
//! which includes this file with `#[path]`). Plain Rust over the workspace crates: byte
//! slices in, bytes or a message out; each engine only converts arguments and errors.
//!
//! The JavaScript layer (`bindings/wasm/js/`) checks every argument before calling in and
//! implements sm-crypto's API on top, so neither engine carries sm-crypto semantics.

use hmac::Mac as _;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::elliptic_curve::ff::PrimeField as _;
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point as _;
use shangmi_sm2::keys::{self, AlgorithmForm};
use shangmi_sm2::kx::{KeyExchange, Role};
use shangmi_sm2::pkcs8::LineEnding;
use shangmi_sm2::pke::{DecryptingKey, EncryptingKey, Layout};
use shangmi_sm2::{DEFAULT_ID, FieldBytes, Peer, PublicKey, Scalar, SecretKey};
use shangmi_sm3::{Digest, Sm3};
use shangmi_sm4_modes::aead::consts::{U12, U16};
use shangmi_sm4_modes::aead::{Aead, AeadCore, KeyInit, Payload};
use shangmi_sm4_modes::cipher::block_padding::{NoPadding, Pkcs7};
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, StreamCipher};
use shangmi_sm4_modes::{
    Sm4CbcDec, Sm4CbcEnc, Sm4CcmCustom, Sm4Cmac, Sm4Ctr, Sm4EcbDec, Sm4EcbEnc, Sm4Gcm, Sm4XtsGb,
    Sm4XtsIeee,
};
use zeroize::Zeroizing;

/// A failure: the message the JavaScript `Error` carries.
pub type Res<T> = Result<T, String>;

/// The bytes a result hands to JavaScript: a vector as it is, a secret copied out (its own
/// buffer is zeroized when dropped).
pub trait Out {
    /// The bytes.
    fn into_vec(self) -> Vec<u8>;
}

impl Out for Vec<u8> {
    fn into_vec(self) -> Vec<u8> {
        self
    }
}

impl Out for Zeroizing<Vec<u8>> {
    fn into_vec(self) -> Vec<u8> {
        self.to_vec()
    }
}

fn msg(e: impl core::fmt::Display) -> String {
    e.to_string()
}

const PARTIAL: &str = "input is not a whole number of 16-byte blocks";

fn key16(key: &[u8]) -> Res<Zeroizing<[u8; 16]>> {
    Ok(Zeroizing::new(key.try_into().map_err(|_| {
        msg("key is invalid: SM4 keys are 16 bytes")
    })?))
}

fn iv16(iv: &[u8]) -> Res<[u8; 16]> {
    iv.try_into()
        .map_err(|_| msg("iv is invalid: 16 bytes expected"))
}

fn nonce12(nonce: &[u8], mode: &str) -> Res<[u8; 12]> {
    nonce
        .try_into()
        .map_err(|_| format!("{mode} nonces are 12 bytes"))
}

// --- SM3 -------------------------------------------------------------------------------

/// SM3 digest.
pub fn sm3(data: &[u8]) -> Vec<u8> {
    Sm3::digest(data).to_vec()
}

/// HMAC-SM3.
pub fn hmac_sm3(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC takes keys of any length.
    let mut m = hmac::Hmac::<Sm3>::new_from_slice(key).unwrap_or_else(|_| unreachable!());
    m.update(data);
    m.finalize().into_bytes().to_vec()
}

/// Incremental SM3.
#[derive(Clone, Default)]
pub struct Hasher(Sm3);

impl Hasher {
    /// Absorbs `data`.
    pub fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.0, data);
    }

    /// The digest so far (the hasher stays usable).
    pub fn digest(&self) -> Vec<u8> {
        self.0.clone().finalize().to_vec()
    }
}

// --- SM4 -------------------------------------------------------------------------------

/// A padded block mode (CBC, ECB) in direction `encrypt` over the mode's two directions,
/// PKCS#7 when `padding`, else whole blocks only.
fn padded<E: BlockModeEncrypt, D: BlockModeDecrypt>(
    enc: impl FnOnce() -> E,
    dec: impl FnOnce() -> D,
    data: &[u8],
    padding: bool,
    encrypt: bool,
) -> Res<Vec<u8>> {
    match (encrypt, padding) {
        (true, true) => Ok(enc().encrypt_padded_vec::<Pkcs7>(data)),
        (true, false) if data.len().is_multiple_of(16) => {
            Ok(enc().encrypt_padded_vec::<NoPadding>(data))
        }
        (true, false) => Err(msg(PARTIAL)),
        (false, true) => dec()
            .decrypt_padded_vec::<Pkcs7>(data)
            .map_err(|_| msg("padding is invalid")),
        (false, false) => dec()
            .decrypt_padded_vec::<NoPadding>(data)
            .map_err(|_| msg(PARTIAL)),
    }
}

/// SM4-CBC, encryption when `encrypt`, PKCS#7 when `padding`.
pub fn cbc(key: &[u8], iv: &[u8], data: &[u8], padding: bool, encrypt: bool) -> Res<Vec<u8>> {
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let (k, iv) = (&(*k).into(), &iv.into());
    padded(
        || Sm4CbcEnc::new(k, iv),
        || Sm4CbcDec::new(k, iv),
        data,
        padding,
        encrypt,
    )
}

/// SM4-ECB, encryption when `encrypt`, PKCS#7 when `padding`.
pub fn ecb(key: &[u8], data: &[u8], padding: bool, encrypt: bool) -> Res<Vec<u8>> {
    let k = &(*key16(key)?).into();
    padded(
        || Sm4EcbEnc::new(k),
        || Sm4EcbDec::new(k),
        data,
        padding,
        encrypt,
    )
}

/// SM4-CTR with a 128-bit big-endian counter starting at `iv`.
pub fn ctr(key: &[u8], iv: &[u8], data: &[u8]) -> Res<Vec<u8>> {
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let mut out = data.to_vec();
    Sm4Ctr::new(&(*k).into(), &iv.into())
        .try_apply_keystream(&mut out)
        .map_err(|_| msg("counter would wrap"))?;
    Ok(out)
}

/// An SM4 AEAD with a 12-byte nonce (`mode` names it in errors): ciphertext ‖ tag when
/// `encrypt`, else the checked plaintext.
fn aead<A: KeyInit + Aead + AeadCore<NonceSize = U12>>(
    mode: &str,
    key: &[u8],
    nonce: &[u8],
    data: &[u8],
    aad: &[u8],
    encrypt: bool,
) -> Res<Vec<u8>> {
    let c = A::new_from_slice(&*key16(key)?).map_err(msg)?;
    let n = nonce12(nonce, mode)?.into();
    let p = Payload { msg: data, aad };
    if encrypt {
        c.encrypt(&n, p).map_err(msg)
    } else {
        c.decrypt(&n, p).map_err(|_| msg("invalid tag"))
    }
}

/// SM4-GCM (12-byte nonce): ciphertext ‖ tag when `encrypt`, else the checked plaintext.
pub fn gcm(key: &[u8], nonce: &[u8], data: &[u8], aad: &[u8], encrypt: bool) -> Res<Vec<u8>> {
    aead::<Sm4Gcm>("SM4-GCM", key, nonce, data, aad, encrypt)
}

/// SM4-GCM into the caller's buffer `out` (the native engine: JavaScript allocates it, so
/// the result lives in V8's heap rather than in a fresh external allocation per call): from
/// `data` straight into `out` (no copy), `out` = ciphertext ‖ tag (`data.len() + 16` bytes)
/// when `encrypt`, else the plaintext (`data.len() - 16`), checked before it is written.
#[cfg(not(target_arch = "wasm32"))]
pub fn gcm_into(
    key: &[u8],
    nonce: &[u8],
    data: &[u8],
    aad: &[u8],
    encrypt: bool,
    out: &mut [u8],
) -> Res<()> {
    use shangmi_sm4_modes::aead::AeadInOut as _;
    use shangmi_sm4_modes::aead::inout::InOutBuf;
    let k = key16(key)?;
    let n = nonce12(nonce, "SM4-GCM")?;
    let c = Sm4Gcm::new(&(*k).into());
    let size = || msg("the output buffer has the wrong size");
    if encrypt {
        let (body, tag) = out
            .split_at_mut_checked(data.len())
            .filter(|(_, t)| t.len() == 16)
            .ok_or_else(size)?;
        let buf = InOutBuf::new(data, body).map_err(|_| size())?;
        let t = c.encrypt_inout_detached(&n.into(), aad, buf).map_err(msg)?;
        tag.copy_from_slice(&t);
    } else {
        let (ct, tag) = data
            .split_at_checked(data.len().wrapping_sub(16))
            .ok_or_else(|| msg("invalid tag"))?;
        let buf = InOutBuf::new(ct, out).map_err(|_| size())?;
        let tag: [u8; 16] = tag.try_into().map_err(|_| msg("invalid tag"))?;
        c.decrypt_inout_detached(&n.into(), aad, buf, &tag.into())
            .map_err(|_| msg("invalid tag"))?;
    }
    Ok(())
}

/// SM4-CTR into the caller's buffer `out` (`data.len()` bytes), as [`gcm_into`].
#[cfg(not(target_arch = "wasm32"))]
pub fn ctr_into(key: &[u8], iv: &[u8], data: &[u8], out: &mut [u8]) -> Res<()> {
    use shangmi_sm4_modes::cipher::inout::InOutBuf;
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let buf = InOutBuf::new(data, out).map_err(|_| msg("the output buffer has the wrong size"))?;
    Sm4Ctr::new(&(*k).into(), &iv.into())
        .try_apply_keystream_inout(buf)
        .map_err(|_| msg("counter would wrap"))
}

/// SM4-CCM (12-byte nonce, 16-byte tag), as [`gcm`].
pub fn ccm(key: &[u8], nonce: &[u8], data: &[u8], aad: &[u8], encrypt: bool) -> Res<Vec<u8>> {
    aead::<Sm4CcmCustom<U12, U16>>("SM4-CCM", key, nonce, data, aad, encrypt)
}

/// SM4-XTS with a 32-byte key: GB/T 17964 when `gb`, else IEEE 1619.
pub fn xts(key: &[u8], tweak: &[u8], data: &[u8], gb: bool, encrypt: bool) -> Res<Vec<u8>> {
    let k: Zeroizing<[u8; 32]> = Zeroizing::new(
        key.try_into()
            .map_err(|_| msg("SM4-XTS keys are 32 bytes"))?,
    );
    let t = iv16(tweak)?;
    let mut out = data.to_vec();
    let r = match (gb, encrypt) {
        (false, true) => Sm4XtsIeee::new(&k).map_err(msg)?.encrypt(&t, &mut out),
        (false, false) => Sm4XtsIeee::new(&k).map_err(msg)?.decrypt(&t, &mut out),
        (true, true) => Sm4XtsGb::new(&k).map_err(msg)?.encrypt(&t, &mut out),
        (true, false) => Sm4XtsGb::new(&k).map_err(msg)?.decrypt(&t, &mut out),
    };
    r.map_err(msg)?;
    Ok(out)
}

/// SM4-CMAC.
pub fn cmac(key: &[u8], data: &[u8]) -> Res<Vec<u8>> {
    let k = key16(key)?;
    let mut m = <Sm4Cmac as hmac::KeyInit>::new_from_slice(&*k).map_err(msg)?;
    m.update(data);
    Ok(m.finalize().into_bytes().to_vec())
}

// --- SM2 -------------------------------------------------------------------------------

/// A layout by name (shangmi-sm2's `Layout` names, any case), `None` for ASN.1.
fn layout(name: &str) -> Res<Option<Layout>> {
    if name.eq_ignore_ascii_case("ASN1") || name.eq_ignore_ascii_case("DER") {
        return Ok(None);
    }
    name.parse().map(Some).map_err(msg)
}

/// The SM2 secret of a 32-byte scalar in [1, n-2].
pub fn secret(d: &[u8]) -> Res<SecretKey> {
    let d: Zeroizing<[u8; 32]> = Zeroizing::new(
        d.try_into()
            .map_err(|_| msg("SM2 private keys are 32 bytes"))?,
    );
    SecretKey::from_bytes(&FieldBytes::from(*d)).map_err(|_| msg("SM2 private key out of range"))
}

/// A point (65, 64 or 33 bytes) checked on the curve.
pub fn public(bytes: &[u8]) -> Res<PublicKey> {
    keys::public_key_from_bytes(bytes).map_err(|_| msg("Invalid public key"))
}

fn verifying_key(pk: &PublicKey, id: Option<&[u8]>) -> Res<VerifyingKey> {
    match id {
        Some(id) if id != DEFAULT_ID => VerifyingKey::new_with_id(pk, id).map_err(msg),
        _ => Ok(VerifyingKey::new(pk)),
    }
}

/// e for sm-crypto's `hash: false`: the message as a big-endian integer mod n (only e mod
/// n enters the signature equation).
fn reduce_e(m: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    if m.len() <= 32 {
        out[32 - m.len()..].copy_from_slice(m);
        return out;
    }
    let base = Scalar::from(256u64);
    let mut acc = Scalar::from(0u64);
    for b in m {
        acc = acc * base + Scalar::from(u64::from(*b));
    }
    out.copy_from_slice(&acc.to_repr());
    out
}

fn sec1(pk: &PublicKey, compressed: bool) -> Vec<u8> {
    pk.to_sec1_point(compressed).as_bytes().to_vec()
}

/// An SM2 key pair (zeroized on drop by the sm2 crate's types).
pub struct PrivateKey {
    sk: SigningKey,
    dk: DecryptingKey,
}

impl PrivateKey {
    fn of(s: SecretKey) -> Res<Self> {
        Ok(PrivateKey {
            sk: SigningKey::new(&s).map_err(msg)?,
            dk: DecryptingKey::new(s),
        })
    }

    /// A fresh key from the system generator.
    pub fn generate() -> Res<Self> {
        loop {
            let mut d = Zeroizing::new([0u8; 32]);
            getrandom::fill(&mut *d).map_err(msg)?;
            if let Ok(s) = secret(&*d) {
                return Self::of(s);
            }
        }
    }

    /// From the 32-byte scalar.
    pub fn from_bytes(d: &[u8]) -> Res<Self> {
        Self::of(secret(d)?)
    }

    /// From PEM (PKCS#8 or SEC1).
    pub fn from_pem(pem: &str) -> Res<Self> {
        Self::of(keys::secret_key_from_pem(pem).map_err(msg)?)
    }

    /// The 32-byte scalar.
    pub fn to_bytes(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(self.sk.to_bytes().to_vec())
    }

    /// PKCS#8 PEM.
    pub fn to_pem(&self) -> Res<String> {
        keys::secret_key_to_pkcs8_pem(
            self.dk.secret_key(),
            AlgorithmForm::EcPublicKey,
            LineEnding::LF,
        )
        .map(|p| p.to_string())
        .map_err(msg)
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        *self.sk.verifying_key().public_key()
    }

    /// Signature of `m` with identifier `id`: r ‖ s, or DER.
    pub fn sign(&self, m: &[u8], id: Option<&[u8]>, der: bool) -> Res<Vec<u8>> {
        let vk = verifying_key(self.sk.verifying_key().public_key(), id)?;
        let sig = self
            .sk
            .try_sign_e_with_rng(&mut getrandom::SysRng, &vk.hash_message(m))
            .map_err(msg)?;
        Ok(if der {
            sig.to_der().as_ref().to_vec()
        } else {
            sig.to_bytes().to_vec()
        })
    }

    /// Decryption of a ciphertext in the named layout.
    pub fn decrypt(&self, ct: &[u8], layout_name: &str) -> Res<Vec<u8>> {
        match layout(layout_name)? {
            Some(l) => self.dk.decrypt(ct, l),
            None => self.dk.decrypt_der(ct),
        }
        .map_err(msg)
    }
}

/// SEC1 (65 or 33 bytes) or 64-byte x ‖ y to a public key.
pub fn public_from_bytes(b: &[u8]) -> Res<PublicKey> {
    keys::public_key_from_bytes(b).map_err(msg)
}

/// SPKI PEM to a public key.
pub fn public_from_pem(pem: &str) -> Res<PublicKey> {
    keys::public_key_from_pem(pem).map_err(msg)
}

/// SEC1 encoding.
pub fn public_to_bytes(pk: &PublicKey, compressed: bool) -> Vec<u8> {
    sec1(pk, compressed)
}

/// SPKI PEM.
pub fn public_to_pem(pk: &PublicKey) -> Res<String> {
    keys::public_key_to_spki_pem(pk, AlgorithmForm::EcPublicKey, LineEnding::LF).map_err(msg)
}

/// Whether `sig` (r ‖ s or DER) is a valid signature of `m` with identifier `id`.
pub fn public_verify(pk: &PublicKey, sig: &[u8], m: &[u8], id: Option<&[u8]>) -> Res<bool> {
    let vk = verifying_key(pk, id)?;
    Ok(Signature::from_der_or_fixed(sig)
        .and_then(|s| vk.verify_e(&vk.hash_message(m), &s))
        .is_ok())
}

/// SM2 encryption in the named layout.
pub fn public_encrypt(pk: &PublicKey, m: &[u8], layout_name: &str) -> Res<Vec<u8>> {
    let ek = EncryptingKey::new(*pk);
    let mut rng = getrandom::SysRng;
    match layout(layout_name)? {
        Some(l) => ek.encrypt(&mut rng, m, l),
        None => ek.encrypt_der(&mut rng, m),
    }
    .map_err(msg)
}

// Flat functions over byte strings for the sm-crypto layer (keys as bytes, no objects).

/// A random private scalar in [1, n-2].
pub fn sm2_generate_secret() -> Res<Zeroizing<Vec<u8>>> {
    Ok(PrivateKey::generate()?.to_bytes())
}

/// The uncompressed public key (65 bytes) of the 32-byte scalar `d`.
pub fn sm2_public_of(d: &[u8]) -> Res<Vec<u8>> {
    Ok(sec1(
        &SigningKey::new(&secret(d)?)
            .map_err(msg)?
            .verifying_key()
            .public_key()
            .clone(),
        false,
    ))
}

/// A point checked on the curve, in uncompressed form (from 65, 64 or 33 bytes).
pub fn sm2_point(b: &[u8]) -> Res<Vec<u8>> {
    Ok(sec1(&public(b)?, false))
}

/// Signs: e = SM3(Z ‖ m) with `id` and `pk` (default: d's own) when `hash`, else m as an
/// integer mod n; with nonce `k` when given (fails if the equation degenerates: the caller
/// takes another), else a hedged one. r ‖ s.
pub fn sm2_sign(
    d: &[u8],
    m: &[u8],
    hash: bool,
    id: Option<&[u8]>,
    pk: Option<&[u8]>,
    k: Option<&[u8]>,
) -> Res<Vec<u8>> {
    let sk = SigningKey::new(&secret(d)?).map_err(msg)?;
    let e = if hash {
        let pk = match pk {
            Some(p) => public(p)?,
            None => *sk.verifying_key().public_key(),
        };
        verifying_key(&pk, id)?.hash_message(m)
    } else {
        reduce_e(m)
    };
    let sig = match k {
        Some(k) => {
            let k: [u8; 32] = k.try_into().map_err(|_| msg("k is 32 bytes"))?;
            sk.sign_e_with_nonce(&e, &k.into())
                .map_err(|_| msg("k gives no signature"))?
        }
        None => sk
            .try_sign_e_with_rng(&mut getrandom::SysRng, &e)
            .map_err(msg)?,
    };
    Ok(sig.to_bytes().to_vec())
}

/// Verifies r ‖ s (64 bytes) over m as [`sm2_sign`] hashes it; false on any failure.
pub fn sm2_verify(pk: &[u8], m: &[u8], sig: &[u8], hash: bool, id: Option<&[u8]>) -> bool {
    let (Ok(pk), Ok(sig)) = (public(pk), Signature::from_slice(sig)) else {
        return false;
    };
    let Ok(vk) = verifying_key(&pk, id) else {
        return false;
    };
    let e = if hash {
        vk.hash_message(m)
    } else {
        reduce_e(m)
    };
    vk.verify_e(&e, &sig).is_ok()
}

/// r ‖ s to DER.
pub fn sm2_sig_to_der(sig: &[u8]) -> Res<Vec<u8>> {
    Ok(Signature::from_slice(sig)
        .map_err(msg)?
        .to_der()
        .as_ref()
        .to_vec())
}

/// Strict DER to r ‖ s.
pub fn sm2_sig_from_der(der: &[u8]) -> Res<Vec<u8>> {
    Ok(Signature::from_der(der).map_err(msg)?.to_bytes().to_vec())
}

/// Encrypts to the point `pk` in the named layout.
pub fn sm2_encrypt(pk: &[u8], m: &[u8], layout_name: &str) -> Res<Vec<u8>> {
    public_encrypt(&public(pk)?, m, layout_name)
}

/// Decrypts with the scalar `d` from the named layout.
pub fn sm2_decrypt(d: &[u8], ct: &[u8], layout_name: &str) -> Res<Vec<u8>> {
    let dk = DecryptingKey::new(secret(d)?);
    match layout(layout_name)? {
        Some(l) => dk.decrypt(ct, l),
        None => dk.decrypt_der(ct),
    }
    .map_err(msg)
}

/// One party's side of an SM2 key exchange (GB/T 32918.3 §6.1): its static scalar `d`,
/// ephemeral scalar `r` and identifier, the peer's static and ephemeral points and
/// identifier; the initiator (A) when `initiator`; `klen` bytes of key; the peer's
/// confirmation when it has come.
pub struct KeyExchangeArgs<'a> {
    /// Whether this party is the initiator (A).
    pub initiator: bool,
    /// The static scalar (32 bytes).
    pub d: &'a [u8],
    /// The ephemeral scalar (32 bytes).
    pub r: &'a [u8],
    /// This party's identifier.
    pub id: &'a [u8],
    /// The peer's static point.
    pub peer: &'a [u8],
    /// The peer's ephemeral point.
    pub peer_r: &'a [u8],
    /// The peer's identifier.
    pub peer_id: &'a [u8],
    /// The key length in bytes (1 to 2^20).
    pub klen: u32,
    /// The peer's confirmation (32 bytes), checked when given.
    pub peer_confirmation: Option<&'a [u8]>,
}

/// SM2 key exchange for one party ([`KeyExchangeArgs`]): K (`klen` bytes) ‖ the
/// confirmation to send (32 bytes); when the peer's confirmation is given, fails unless it
/// matches (constant time).
pub fn sm2_key_exchange(a: KeyExchangeArgs<'_>) -> Res<Vec<u8>> {
    if a.klen == 0 || a.klen > 1 << 20 {
        return Err(msg("key length must be 1 to 1048576 bytes"));
    }
    let r: [u8; 32] =
        a.r.try_into()
            .map_err(|_| msg("ephemeral keys are 32 bytes"))?;
    let role = if a.initiator {
        Role::Initiator
    } else {
        Role::Responder
    };
    let kx = KeyExchange::new_with_ephemeral(role, &secret(a.d)?, a.id, &r.into()).map_err(msg)?;
    let mut out = vec![0u8; a.klen as usize];
    let c = kx
        .finish(
            Peer::new(&public(a.peer)?, a.peer_id, &public(a.peer_r)?),
            &mut out,
        )
        .map_err(msg)?;
    if let Some(s) = a.peer_confirmation {
        let s: [u8; 32] = s
            .try_into()
            .map_err(|_| msg("confirmations are 32 bytes"))?;
        c.verify(&s)
            .map_err(|_| msg("the peer's confirmation does not match"))?;
    }
    out.extend_from_slice(c.to_send());
    Ok(out)
}

// --- SM9 (GM/T 0044, GB/T 38635) -------------------------------------------------------
//
// Keys cross as bytes: master keys as their 32-byte scalar, master public keys as x ‖ y,
// user keys uncompressed (with the master public key they belong to, as shangmi-sm9's
// `from_bytes` needs it). Feature `sm9`: the native addon has it; the wasm module does not
// (it would double the module: 740 KB with SM9, over the 400 KB cap).

#[cfg(feature = "sm9")]
fn sm9_msg(e: shangmi_sm9::Error) -> String {
    format!("SM9: {e}")
}

#[cfg(feature = "sm9")]
fn master32(b: &[u8]) -> Res<Zeroizing<[u8; 32]>> {
    Ok(Zeroizing::new(
        b.try_into()
            .map_err(|_| msg("SM9 master keys are 32 bytes"))?,
    ))
}

#[cfg(feature = "sm9")]
fn sign_master(ks: &[u8]) -> Res<shangmi_sm9::SignMasterKey> {
    shangmi_sm9::SignMasterKey::from_bytes(&*master32(ks)?).map_err(sm9_msg)
}

#[cfg(feature = "sm9")]
fn enc_master(ke: &[u8]) -> Res<shangmi_sm9::EncryptMasterKey> {
    shangmi_sm9::EncryptMasterKey::from_bytes(&*master32(ke)?).map_err(sm9_msg)
}

#[cfg(feature = "sm9")]
fn sign_master_public(b: &[u8]) -> Res<shangmi_sm9::SignMasterPublicKey> {
    shangmi_sm9::SignMasterPublicKey::from_bytes(b).map_err(sm9_msg)
}

#[cfg(feature = "sm9")]
fn enc_master_public(b: &[u8]) -> Res<shangmi_sm9::EncryptMasterPublicKey> {
    shangmi_sm9::EncryptMasterPublicKey::from_bytes(b).map_err(sm9_msg)
}

/// A random master key (32 bytes): ks for signing (`sign`), else ke for encryption.
#[cfg(feature = "sm9")]
pub fn sm9_master_generate(sign: bool) -> Res<Zeroizing<Vec<u8>>> {
    let mut rng = getrandom::SysRng;
    let k = if sign {
        shangmi_sm9::SignMasterKey::random(&mut rng).map(|k| k.to_bytes())
    } else {
        shangmi_sm9::EncryptMasterKey::random(&mut rng).map(|k| k.to_bytes())
    };
    Ok(Zeroizing::new(Zeroizing::new(k.map_err(sm9_msg)?).to_vec()))
}

/// The master public key of master key `k` (x ‖ y): Ppub-s of ks (128 bytes) when `sign`,
/// else Ppub-e of ke (64 bytes).
#[cfg(feature = "sm9")]
pub fn sm9_master_public(k: &[u8], sign: bool) -> Res<Vec<u8>> {
    Ok(if sign {
        sign_master(k)?.public_key().to_bytes().to_vec()
    } else {
        enc_master(k)?.public_key().to_bytes().to_vec()
    })
}

/// The user key of `id` under master key `k`, 0x04 ‖ x ‖ y: the signing key (hid 0x01, 65
/// bytes) when `sign`, else the decryption key (hid 0x03, 129 bytes).
#[cfg(feature = "sm9")]
pub fn sm9_extract(k: &[u8], id: &[u8], sign: bool) -> Res<Zeroizing<Vec<u8>>> {
    Ok(Zeroizing::new(if sign {
        let u = sign_master(k)?.extract(id).map_err(sm9_msg)?;
        Zeroizing::new(u.to_uncompressed()).to_vec()
    } else {
        let u = enc_master(k)?.extract(id).map_err(sm9_msg)?;
        Zeroizing::new(u.to_uncompressed()).to_vec()
    }))
}

/// Signs `m` with the user key `user` of master public key `mpk`: DER (SEQUENCE { h, S })
/// or h ‖ x(S) ‖ y(S) (96 bytes).
#[cfg(feature = "sm9")]
pub fn sm9_sign(user: &[u8], mpk: &[u8], m: &[u8], der: bool) -> Res<Vec<u8>> {
    let k =
        shangmi_sm9::SigningKey::from_bytes(user, &sign_master_public(mpk)?).map_err(sm9_msg)?;
    let s = k
        .sign_with_rng(&mut getrandom::SysRng, m)
        .map_err(sm9_msg)?;
    Ok(if der {
        s.to_der()
    } else {
        s.to_bytes().to_vec()
    })
}

/// Whether `sig` (DER, or h ‖ S with S as 64 bytes or 0x04 ‖ 64 bytes) signs `m` for `id`
/// under `mpk`; an unreadable `mpk` is an error, an unreadable signature `false`.
#[cfg(feature = "sm9")]
pub fn sm9_verify(mpk: &[u8], id: &[u8], m: &[u8], sig: &[u8]) -> Res<bool> {
    let k = sign_master_public(mpk)?;
    let Ok(s) =
        shangmi_sm9::Signature::from_der(sig).or_else(|_| shangmi_sm9::Signature::from_bytes(sig))
    else {
        return Ok(false);
    };
    Ok(k.verify(id, shangmi_sm9::hid::SIGN, m, &s).is_ok())
}

/// A master public key checked (on the curve, in G2 for signing): x ‖ y, 128 bytes for
/// signing (`sign`), 64 for encryption; from x ‖ y or 0x04 ‖ x ‖ y.
#[cfg(feature = "sm9")]
pub fn sm9_master_public_check(b: &[u8], sign: bool) -> Res<Vec<u8>> {
    Ok(if sign {
        sign_master_public(b)?.to_bytes().to_vec()
    } else {
        enc_master_public(b)?.to_bytes().to_vec()
    })
}

/// A user key checked against its master public key: 0x04 ‖ x ‖ y (65 bytes for signing,
/// 129 for decryption).
#[cfg(feature = "sm9")]
pub fn sm9_user_key_check(user: &[u8], mpk: &[u8], sign: bool) -> Res<Zeroizing<Vec<u8>>> {
    Ok(Zeroizing::new(if sign {
        let k = shangmi_sm9::SigningKey::from_bytes(user, &sign_master_public(mpk)?)
            .map_err(sm9_msg)?;
        Zeroizing::new(k.to_uncompressed()).to_vec()
    } else {
        let k = shangmi_sm9::EncryptPrivateKey::from_bytes(user, &enc_master_public(mpk)?)
            .map_err(sm9_msg)?;
        Zeroizing::new(k.to_uncompressed()).to_vec()
    }))
}

/// Encrypts `m` to `id` under `mpk` (XOR mode with SM3-MAC): C1 ‖ C3 ‖ C2, or DER.
#[cfg(feature = "sm9")]
pub fn sm9_encrypt(mpk: &[u8], id: &[u8], m: &[u8], der: bool) -> Res<Vec<u8>> {
    let k = enc_master_public(mpk)?;
    if der {
        k.encrypt_der(&mut getrandom::SysRng, id, m)
    } else {
        k.encrypt(&mut getrandom::SysRng, id, m)
    }
    .map_err(sm9_msg)
}

/// Decrypts C1 ‖ C3 ‖ C2 (or DER) with the user key `user` of `id` under `mpk`.
#[cfg(feature = "sm9")]
pub fn sm9_decrypt(user: &[u8], mpk: &[u8], id: &[u8], ct: &[u8]) -> Res<Vec<u8>> {
    let k = shangmi_sm9::EncryptPrivateKey::from_bytes(user, &enc_master_public(mpk)?)
        .map_err(sm9_msg)?;
    k.decrypt(id, ct)
        .or_else(|e| match ct.first() {
            Some(0x30) => k.decrypt_der(id, ct),
            _ => Err(e),
        })
        .map_err(sm9_msg)
}

// --- ZUC (GM/T 0001, 3GPP 128-EEA3/EIA3) ------------------------------------------------

fn zuc_msg(e: shangmi_zuc::Error) -> String {
    format!("ZUC: {e:?}")
}

fn zuc_key16(key: &[u8]) -> Res<Zeroizing<[u8; 16]>> {
    Ok(Zeroizing::new(
        key.try_into()
            .map_err(|_| msg("ZUC-128 keys are 16 bytes"))?,
    ))
}

/// 128-EEA3 when `eea3` (`data` of `bit_len` bits, all of it when `None`, under the
/// 16-byte key with COUNT, BEARER (5 bits) and DIRECTION (1 bit); encryption and
/// decryption alike), else the 128-EIA3 MAC of `data` (4 bytes).
pub fn zuc_128(
    key: &[u8],
    count: u32,
    bearer: u32,
    direction: u32,
    data: &[u8],
    bit_len: Option<u32>,
    eea3: bool,
) -> Res<Vec<u8>> {
    let k = zuc_key16(key)?;
    let (Ok(bearer), Ok(direction)) = (u8::try_from(bearer), u8::try_from(direction)) else {
        return Err(msg("ZUC: bearer is 5 bits and direction 1 bit"));
    };
    let n = bit_len.map_or(data.len().saturating_mul(8), |n| n as usize);
    if eea3 {
        let mut out = data.to_vec();
        shangmi_zuc::eea3(&k, count, bearer, direction, &mut out, n).map_err(zuc_msg)?;
        Ok(out)
    } else {
        let mac = shangmi_zuc::Eia3::with_params(&k, count, bearer, direction).map_err(zuc_msg)?;
        Ok(mac.finalize_bits(data, n).map_err(zuc_msg)?.to_vec())
    }
}

/// `data` XORed with the keystream of ZUC-128 (16-byte key and IV) or, with the feature
/// `zuc256` (the native addon; the wasm module is 52 KB larger with ZUC-256 and its MACs,
/// over the 400 KB cap), ZUC-256 (32-byte key, 25-byte IV); a zero `data` gives the
/// keystream itself.
pub fn zuc_apply(key: &[u8], iv: &[u8], data: &[u8]) -> Res<Vec<u8>> {
    use shangmi_zuc::cipher::{KeyIvInit as _, StreamCipher as _};
    let mut out = data.to_vec();
    match (key.len(), iv.len()) {
        (16, 16) => {
            let k = zuc_key16(key)?;
            let iv: [u8; 16] = iv16(iv)?;
            shangmi_zuc::Zuc128::new(&(*k).into(), &iv.into()).apply_keystream(&mut out);
        }
        #[cfg(feature = "zuc256")]
        (32, 25) => {
            let k: Zeroizing<[u8; 32]> = Zeroizing::new(
                key.try_into()
                    .map_err(|_| msg("ZUC-256 keys are 32 bytes"))?,
            );
            let iv: [u8; 25] = iv.try_into().map_err(|_| msg("ZUC-256 IVs are 25 bytes"))?;
            shangmi_zuc::Zuc256::new(&(*k).into(), &iv.into()).apply_keystream(&mut out);
        }
        (kl, il) => {
            return Err(format!(
                "ZUC takes a 16-byte key and 16-byte IV (ZUC-128) or a 32-byte key and 25-byte \
                 IV (ZUC-256), not {kl} and {il} bytes"
            ));
        }
    }
    Ok(out)
}

/// The ZUC-256 MAC of `data` under a 32-byte key and 25-byte IV: a 4-, 8- or 16-byte tag.
#[cfg(feature = "zuc256")]
pub fn zuc256_mac(key: &[u8], iv: &[u8], data: &[u8], tag_size: u32) -> Res<Vec<u8>> {
    use shangmi_zuc::cipher::KeyIvInit as _;
    use shangmi_zuc::digest::FixedOutput as _;
    let k: Zeroizing<[u8; 32]> = Zeroizing::new(
        key.try_into()
            .map_err(|_| msg("ZUC-256 keys are 32 bytes"))?,
    );
    let iv: [u8; 25] = iv.try_into().map_err(|_| msg("ZUC-256 IVs are 25 bytes"))?;
    macro_rules! mac {
        ($t:ty) => {{
            let mut m = <$t>::new(&(*k).into(), &iv.into());
            shangmi_zuc::digest::Update::update(&mut m, data);
            m.finalize_fixed().to_vec()
        }};
    }
    Ok(match tag_size {
        4 => mac!(shangmi_zuc::Zuc256Mac32),
        8 => mac!(shangmi_zuc::Zuc256Mac64),
        16 => mac!(shangmi_zuc::Zuc256Mac128),
        _ => return Err(msg("ZUC-256 tags are 4, 8 or 16 bytes")),
    })
}
