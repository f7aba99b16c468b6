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
use shangmi_sm2::{DEFAULT_ID, FieldBytes, PublicKey, Scalar, SecretKey};
use shangmi_sm3::{Digest, Sm3};
use shangmi_sm4_modes::aead::consts::{U12, U16};
use shangmi_sm4_modes::aead::{Aead, KeyInit, Payload};
use shangmi_sm4_modes::cipher::block_padding::{NoPadding, Pkcs7};
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit, StreamCipher};
use shangmi_sm4_modes::{
    Sm4CbcDec, Sm4CbcEnc, Sm4CcmCustom, Sm4Cmac, Sm4Ctr, Sm4EcbDec, Sm4EcbEnc, Sm4Gcm, Sm4XtsGb,
    Sm4XtsIeee,
};
use zeroize::Zeroizing;

/// A failure: the message the JavaScript `Error` carries.
pub type Res<T> = Result<T, String>;

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

/// SM4-CBC encryption, PKCS#7 when `padding`.
pub fn cbc_encrypt(key: &[u8], iv: &[u8], data: &[u8], padding: bool) -> Res<Vec<u8>> {
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let c = Sm4CbcEnc::new(&(*k).into(), &iv.into());
    if padding {
        Ok(c.encrypt_padded_vec::<Pkcs7>(data))
    } else if data.len().is_multiple_of(16) {
        Ok(c.encrypt_padded_vec::<NoPadding>(data))
    } else {
        Err(msg(PARTIAL))
    }
}

/// SM4-CBC decryption, PKCS#7 when `padding`.
pub fn cbc_decrypt(key: &[u8], iv: &[u8], data: &[u8], padding: bool) -> Res<Vec<u8>> {
    let (k, iv) = (key16(key)?, iv16(iv)?);
    let c = Sm4CbcDec::new(&(*k).into(), &iv.into());
    if padding {
        c.decrypt_padded_vec::<Pkcs7>(data)
            .map_err(|_| msg("padding is invalid"))
    } else {
        c.decrypt_padded_vec::<NoPadding>(data)
            .map_err(|_| msg(PARTIAL))
    }
}

/// SM4-ECB encryption, PKCS#7 when `padding`.
pub fn ecb_encrypt(key: &[u8], data: &[u8], padding: bool) -> Res<Vec<u8>> {
    let k = key16(key)?;
    let c = Sm4EcbEnc::new(&(*k).into());
    if padding {
        Ok(c.encrypt_padded_vec::<Pkcs7>(data))
    } else if data.len().is_multiple_of(16) {
        Ok(c.encrypt_padded_vec::<NoPadding>(data))
    } else {
        Err(msg(PARTIAL))
    }
}

/// SM4-ECB decryption, PKCS#7 when `padding`.
pub fn ecb_decrypt(key: &[u8], data: &[u8], padding: bool) -> Res<Vec<u8>> {
    let k = key16(key)?;
    let c = Sm4EcbDec::new(&(*k).into());
    if padding {
        c.decrypt_padded_vec::<Pkcs7>(data)
            .map_err(|_| msg("padding is invalid"))
    } else {
        c.decrypt_padded_vec::<NoPadding>(data)
            .map_err(|_| msg(PARTIAL))
    }
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

/// SM4-GCM (12-byte nonce): ciphertext ‖ tag when `encrypt`, else the checked plaintext.
pub fn gcm(key: &[u8], nonce: &[u8], data: &[u8], aad: &[u8], encrypt: bool) -> Res<Vec<u8>> {
    let k = key16(key)?;
    let n = nonce12(nonce, "SM4-GCM")?;
    let c = Sm4Gcm::new(&(*k).into());
    let p = Payload { msg: data, aad };
    if encrypt {
        c.encrypt(&n.into(), p).map_err(msg)
    } else {
        c.decrypt(&n.into(), p).map_err(|_| msg("invalid tag"))
    }
}

type Ccm12 = Sm4CcmCustom<U12, U16>;

/// SM4-CCM (12-byte nonce, 16-byte tag), as [`gcm`].
pub fn ccm(key: &[u8], nonce: &[u8], data: &[u8], aad: &[u8], encrypt: bool) -> Res<Vec<u8>> {
    let k = key16(key)?;
    let n = nonce12(nonce, "SM4-CCM")?;
    let c = Ccm12::new(&(*k).into());
    let p = Payload { msg: data, aad };
    if encrypt {
        c.encrypt(&n.into(), p).map_err(msg)
    } else {
        c.decrypt(&n.into(), p).map_err(|_| msg("invalid tag"))
    }
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

fn secret(d: &[u8]) -> Res<SecretKey> {
    let d: Zeroizing<[u8; 32]> = Zeroizing::new(
        d.try_into()
            .map_err(|_| msg("SM2 private keys are 32 bytes"))?,
    );
    SecretKey::from_bytes(&FieldBytes::from(*d)).map_err(|_| msg("SM2 private key out of range"))
}

fn public(bytes: &[u8]) -> Res<PublicKey> {
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

/// SM2 key exchange (GB/T 32918.3 §6.1) for one party: its static scalar `d`, ephemeral
/// scalar `r`, identifier, the peer's static and ephemeral points and identifier; the
/// initiator (A) when `initiator`. Returns K (`klen` bytes) ‖ the confirmation to send
/// (32 bytes); when the peer's confirmation is given, fails unless it matches (constant
/// time).
#[allow(clippy::too_many_arguments)]
pub fn sm2_key_exchange(
    initiator: bool,
    d: &[u8],
    r: &[u8],
    id: &[u8],
    peer: &[u8],
    peer_r: &[u8],
    peer_id: &[u8],
    klen: usize,
    peer_confirmation: Option<&[u8]>,
) -> Res<Vec<u8>> {
    if klen == 0 || klen > 1 << 20 {
        return Err(msg("key length must be 1 to 1048576 bytes"));
    }
    let r: [u8; 32] = r
        .try_into()
        .map_err(|_| msg("ephemeral keys are 32 bytes"))?;
    let role = if initiator {
        Role::Initiator
    } else {
        Role::Responder
    };
    let kx = KeyExchange::new_with_ephemeral(role, &secret(d)?, id, &r.into()).map_err(msg)?;
    let mut out = vec![0u8; klen];
    let c = kx
        .finish(&public(peer)?, peer_id, &public(peer_r)?, &mut out)
        .map_err(msg)?;
    if let Some(s) = peer_confirmation {
        let s: [u8; 32] = s
            .try_into()
            .map_err(|_| msg("confirmations are 32 bytes"))?;
        c.verify(&s)
            .map_err(|_| msg("the peer's confirmation does not match"))?;
    }
    out.extend_from_slice(c.to_send());
    Ok(out)
}
