//! SM2: public and private keys (signatures, encryption, PEM/DER), ciphertext layouts, key
//! exchange, and the point multiplication behind the gmssl layer's `_kg`.

use crate::common::{
    Buf, InvalidKey, InvalidSignature, InvalidTag, PyOut, ShangmiError, add_items, bytes, fixed,
    fixed_key, hex, hex_decode, rand_fill,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point as _;
use shangmi_sm2::keys::{self, AlgorithmForm, EncryptionScheme};
use shangmi_sm2::kx::{self, Role};
use shangmi_sm2::pkcs8::LineEnding;
use shangmi_sm2::pke::{self, DecryptingKey, EncryptingKey, Layout};
use shangmi_sm2::{DEFAULT_ID, FieldBytes, Peer, PublicKey as Sm2Public, Scalar, SecretKey};
use std::borrow::Cow;
use zeroize::{Zeroize, Zeroizing};

pub(crate) fn sm2_err(e: shangmi_sm2::Error) -> PyErr {
    use shangmi_sm2::Error as E;
    match e {
        E::Verification | E::InvalidSignature => InvalidSignature::new_err(e.to_string()),
        E::Decryption => InvalidTag::new_err(e.to_string()),
        E::InvalidSecretKey
        | E::InvalidPoint
        | E::MalformedPem
        | E::UnexpectedPemLabel
        | E::MalformedKey
        | E::UnsupportedAlgorithm
        | E::WrongCurve
        | E::PublicKeyMismatch
        | E::EncryptedKey
        | E::UnsupportedEncryption
        | E::WrongPassword => InvalidKey::new_err(e.to_string()),
        _ => ShangmiError::new_err(e.to_string()),
    }
}

/// A layout by name (shangmi-sm2's `Layout` names, any case), or `None` for the ASN.1 form.
fn layout(name: &str) -> PyResult<Option<Layout>> {
    if name.eq_ignore_ascii_case("ASN1") || name.eq_ignore_ascii_case("DER") {
        return Ok(None);
    }
    name.parse()
        .map(Some)
        .map_err(|e: pke::UnknownLayout| PyValueError::new_err(format!("{e}, or ASN1")))
}

/// SM2 public key: `from_bytes` (65-byte `04‖x‖y`, 33-byte compressed, or 64-byte `x‖y`),
/// `from_hex`, `from_pem`, `from_der`; `verify`, `encrypt`.
#[pyclass(name = "PublicKey", module = "shangmi", frozen)]
pub(crate) struct PyPublicKey {
    vk: VerifyingKey,
}

impl PyPublicKey {
    pub(crate) fn of(pk: Sm2Public) -> Self {
        PyPublicKey {
            vk: VerifyingKey::new(&pk),
        }
    }

    pub(crate) fn sm2(&self) -> &Sm2Public {
        self.vk.public_key()
    }
}

#[pymethods]
impl PyPublicKey {
    #[staticmethod]
    fn from_bytes(data: Buf<'_>) -> PyResult<Self> {
        Ok(Self::of(
            keys::public_key_from_bytes(data.as_slice()).map_err(sm2_err)?,
        ))
    }

    #[staticmethod]
    fn from_hex(data: &str) -> PyResult<Self> {
        Ok(Self::of(
            keys::public_key_from_bytes(&hex_decode(data)?).map_err(sm2_err)?,
        ))
    }

    #[staticmethod]
    fn from_pem(pem: &str) -> PyResult<Self> {
        Ok(Self::of(keys::public_key_from_pem(pem).map_err(sm2_err)?))
    }

    #[staticmethod]
    fn from_der(der: Buf<'_>) -> PyResult<Self> {
        Ok(Self::of(
            keys::public_key_from_spki_der(der.as_slice()).map_err(sm2_err)?,
        ))
    }

    /// SEC1 encoding: 65 bytes `04‖x‖y`, or 33 bytes when `compressed`.
    #[pyo3(signature = (compressed=false))]
    fn to_bytes<'py>(&self, py: Python<'py>, compressed: bool) -> Bound<'py, PyBytes> {
        bytes(py, self.vk.to_sec1_point(compressed).as_bytes())
    }

    #[pyo3(signature = (compressed=false))]
    fn to_hex(&self, compressed: bool) -> String {
        hex(self.vk.to_sec1_point(compressed).as_bytes())
    }

    fn to_der<'py>(&self, py: Python<'py>) -> PyOut<'py> {
        let d = keys::public_key_to_spki_der(self.vk.public_key(), AlgorithmForm::EcPublicKey)
            .map_err(sm2_err)?;
        Ok(bytes(py, d.as_bytes()))
    }

    fn to_pem(&self) -> PyResult<String> {
        keys::public_key_to_spki_pem(
            self.vk.public_key(),
            AlgorithmForm::EcPublicKey,
            LineEnding::LF,
        )
        .map_err(sm2_err)
    }

    /// Verifies `signature` (64-byte r‖s or DER) over `data` with the distinguishing
    /// identifier `id` (default `b"1234567812345678"`); raises `InvalidSignature`.
    #[pyo3(signature = (signature, data, id=None))]
    fn verify(
        &self,
        py: Python<'_>,
        signature: Buf<'_>,
        data: Buf<'_>,
        id: Option<Buf<'_>>,
    ) -> PyResult<()> {
        let vk = with_id(&self.vk, id)?;
        let (sig, d) = (signature.as_slice(), data.as_slice());
        py.detach(|| {
            let sig = Signature::from_der_or_fixed(sig)?;
            vk.verify_e(&vk.hash_message(d), &sig)
        })
        .map_err(sm2_err)
    }

    /// Verifies a signature over a precomputed e = SM3(Z_A ‖ M) (32 bytes).
    fn verify_digest(&self, py: Python<'_>, signature: Buf<'_>, e: Buf<'_>) -> PyResult<()> {
        let e = fixed::<32>(e.as_slice(), "digest")?;
        let (sig, vk) = (signature.as_slice(), &self.vk);
        py.detach(|| vk.verify_e(&e, &Signature::from_der_or_fixed(sig)?))
            .map_err(sm2_err)
    }

    /// e = SM3(Z_A ‖ data) for identifier `id`, the value SM2 signs.
    #[pyo3(signature = (data, id=None))]
    fn digest<'py>(&self, py: Python<'py>, data: Buf<'py>, id: Option<Buf<'py>>) -> PyOut<'py> {
        let vk = with_id(&self.vk, id)?;
        Ok(bytes(py, &vk.hash_message(data.as_slice())))
    }

    /// SM2 encryption in `layout` (default "C1C3C2"; also "C1C2C3", "*_RAW" without the
    /// 04 prefix, "*_COMPRESSED", "ASN1").
    #[pyo3(signature = (data, layout="C1C3C2"))]
    fn encrypt<'py>(&self, py: Python<'py>, data: Buf<'py>, layout: &str) -> PyOut<'py> {
        let l = self::layout(layout)?;
        let d = data.as_slice();
        let ek = EncryptingKey::new(*self.vk.public_key());
        let out = py
            .detach(|| {
                let mut rng = getrandom::SysRng;
                match l {
                    Some(l) => ek.encrypt(&mut rng, d, l),
                    None => ek.encrypt_der(&mut rng, d),
                }
            })
            .map_err(sm2_err)?;
        Ok(bytes(py, &out))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyPublicKey>()
            .is_ok_and(|o| o.get().vk.public_key() == self.vk.public_key())
    }

    fn __hash__(&self) -> u64 {
        let b = self.vk.to_sec1_point(true);
        let mut h = [0u8; 8];
        h.copy_from_slice(&b.as_bytes()[1..9]);
        u64::from_le_bytes(h)
    }

    fn __repr__(&self) -> String {
        format!(
            "PublicKey('{}')",
            hex(self.vk.to_sec1_point(false).as_bytes())
        )
    }
}

/// SM2 private key: `generate`, `from_bytes`/`from_hex` (32 bytes), `from_pem`/`from_der`
/// (PKCS#8, SEC1, encrypted PKCS#8 with `password`); `sign`, `decrypt`, `public_key`.
#[pyclass(name = "PrivateKey", module = "shangmi", frozen)]
pub(crate) struct PyPrivateKey {
    sk: SigningKey,
    dk: DecryptingKey,
}

impl PyPrivateKey {
    pub(crate) fn of(secret: SecretKey) -> PyResult<Self> {
        let sk = SigningKey::new(&secret).map_err(sm2_err)?;
        Ok(PyPrivateKey {
            sk,
            dk: DecryptingKey::new(secret),
        })
    }

    pub(crate) fn secret(&self) -> SecretKey {
        self.dk.secret_key().clone()
    }

    /// The key as PKCS#8 by `plain`, or, with `password`, as encrypted PKCS#8 by
    /// `encrypted` (PBKDF2-HMAC-SM3, SM4-CBC, as GmSSL; a fresh salt and IV).
    fn pkcs8<T>(
        &self,
        password: Option<Buf<'_>>,
        plain: impl FnOnce(&SecretKey) -> Result<T, shangmi_sm2::Error>,
        encrypted: impl FnOnce(
            &SecretKey,
            &[u8],
            EncryptionScheme,
            &mut getrandom::SysRng,
        ) -> Result<T, shangmi_sm2::Error>,
    ) -> PyResult<T> {
        let s = self.secret();
        match password {
            Some(p) => encrypted(
                &s,
                p.as_slice(),
                EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations: 65_536 },
                &mut getrandom::SysRng,
            ),
            None => plain(&s),
        }
        .map_err(sm2_err)
    }
}

/// `vk`, or its key with the distinguishing identifier `id` when that is not the default.
fn with_id<'k>(vk: &'k VerifyingKey, id: Option<Buf<'_>>) -> PyResult<Cow<'k, VerifyingKey>> {
    match id.as_ref().map(Buf::as_slice) {
        Some(id) if id != DEFAULT_ID => Ok(Cow::Owned(
            VerifyingKey::new_with_id(vk.public_key(), id).map_err(sm2_err)?,
        )),
        _ => Ok(Cow::Borrowed(vk)),
    }
}

/// A signature as DER, or as 64 bytes r‖s when `der` is false.
fn signature_bytes<'py>(py: Python<'py>, sig: &Signature, der: bool) -> Bound<'py, PyBytes> {
    if der {
        bytes(py, sig.to_der().as_ref())
    } else {
        bytes(py, &sig.to_bytes())
    }
}

#[pymethods]
impl PyPrivateKey {
    /// A fresh key from the operating system's generator.
    #[staticmethod]
    fn generate() -> PyResult<Self> {
        let mut rng = getrandom::SysRng;
        loop {
            let mut d = Zeroizing::new([0u8; 32]);
            rand_fill(&mut rng, &mut *d)?;
            // d must be in [1, n-2] for signing; retry the (2^-128) rest.
            if let Ok(secret) = SecretKey::from_bytes(&FieldBytes::from(*d))
                && let Ok(k) = Self::of(secret)
            {
                return Ok(k);
            }
        }
    }

    #[staticmethod]
    fn from_bytes(data: Buf<'_>) -> PyResult<Self> {
        let d = Zeroizing::new(fixed_key::<32>(data.as_slice(), "SM2 private key")?);
        Self::of(
            SecretKey::from_bytes(&FieldBytes::from(*d))
                .map_err(|_| InvalidKey::new_err("SM2 private key out of range"))?,
        )
    }

    #[staticmethod]
    fn from_hex(data: &str) -> PyResult<Self> {
        let d = hex_decode(data)?;
        let d = Zeroizing::new(fixed_key::<32>(&d, "SM2 private key")?);
        Self::of(
            SecretKey::from_bytes(&FieldBytes::from(*d))
                .map_err(|_| InvalidKey::new_err("SM2 private key out of range"))?,
        )
    }

    #[staticmethod]
    #[pyo3(signature = (pem, password=None))]
    fn from_pem(pem: &str, password: Option<Buf<'_>>) -> PyResult<Self> {
        let s = match password {
            Some(p) => keys::secret_key_from_pem_with_password(pem, p.as_slice()),
            None => keys::secret_key_from_pem(pem),
        }
        .map_err(sm2_err)?;
        Self::of(s)
    }

    #[staticmethod]
    #[pyo3(signature = (der, password=None))]
    fn from_der(der: Buf<'_>, password: Option<Buf<'_>>) -> PyResult<Self> {
        let s = match password {
            Some(p) => keys::secret_key_from_encrypted_pkcs8_der(der.as_slice(), p.as_slice()),
            None => keys::secret_key_from_der(der.as_slice()),
        }
        .map_err(sm2_err)?;
        Self::of(s)
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.sk.to_bytes())
    }

    fn to_hex(&self) -> String {
        let mut b = self.sk.to_bytes();
        let s = hex(&b);
        b.zeroize();
        s
    }

    /// PKCS#8 DER; with `password`, encrypted PKCS#8 (PBKDF2-HMAC-SM3, SM4-CBC, as GmSSL).
    #[pyo3(signature = (password=None))]
    fn to_der<'py>(&self, py: Python<'py>, password: Option<Buf<'py>>) -> PyOut<'py> {
        let doc = self.pkcs8(
            password,
            |s| keys::secret_key_to_pkcs8_der(s, AlgorithmForm::EcPublicKey),
            |s, p, scheme, rng| keys::secret_key_to_encrypted_pkcs8_der(s, p, scheme, rng),
        )?;
        Ok(bytes(py, doc.as_bytes()))
    }

    /// PKCS#8 PEM; with `password`, `ENCRYPTED PRIVATE KEY` (PBKDF2-HMAC-SM3, SM4-CBC).
    #[pyo3(signature = (password=None))]
    fn to_pem(&self, password: Option<Buf<'_>>) -> PyResult<String> {
        let pem = self.pkcs8(
            password,
            |s| keys::secret_key_to_pkcs8_pem(s, AlgorithmForm::EcPublicKey, LineEnding::LF),
            |s, p, scheme, rng| {
                keys::secret_key_to_encrypted_pkcs8_pem(s, p, scheme, rng, LineEnding::LF)
            },
        )?;
        Ok(pem.to_string())
    }

    fn public_key(&self) -> PyPublicKey {
        PyPublicKey {
            vk: self.sk.verifying_key().clone(),
        }
    }

    /// Signs `data` with identifier `id` (default `b"1234567812345678"`): DER by default,
    /// 64-byte r‖s with `der=False`. The nonce is deterministic (HMAC-SM3) and hedged with
    /// 32 random bytes.
    #[pyo3(signature = (data, id=None, der=true))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        data: Buf<'_>,
        id: Option<Buf<'_>>,
        der: bool,
    ) -> PyOut<'py> {
        let vk = with_id(self.sk.verifying_key(), id)?;
        let (d, sk) = (data.as_slice(), &self.sk);
        let sig = py
            .detach(|| sk.try_sign_e_with_rng(&mut getrandom::SysRng, &vk.hash_message(d)))
            .map_err(sm2_err)?;
        Ok(signature_bytes(py, &sig, der))
    }

    /// Signs a precomputed 32-byte e (hazmat). With `k` (32 bytes, in [1, n-1]) the
    /// caller's nonce is used (for interoperability tests only: a repeated k reveals the
    /// key). Returns 64-byte r‖s (DER with `der=True`); raises `ShangmiError` if k gives a
    /// degenerate signature.
    #[pyo3(signature = (e, k=None, der=false))]
    fn sign_digest<'py>(
        &self,
        py: Python<'py>,
        e: Buf<'_>,
        k: Option<Buf<'_>>,
        der: bool,
    ) -> PyOut<'py> {
        let e = fixed::<32>(e.as_slice(), "digest")?;
        let sig = match k {
            Some(k) => {
                let k = Zeroizing::new(fixed::<32>(k.as_slice(), "nonce k")?);
                self.sk
                    .sign_e_with_nonce(&e, &FieldBytes::from(*k))
                    .map_err(|_| ShangmiError::new_err("nonce k out of range or degenerate"))?
            }
            None => self
                .sk
                .try_sign_e_with_rng(&mut getrandom::SysRng, &e)
                .map_err(sm2_err)?,
        };
        Ok(signature_bytes(py, &sig, der))
    }

    /// SM2 decryption of `data` in `layout` (see `PublicKey.encrypt`); raises `InvalidTag`
    /// when the C3 hash does not verify or the ciphertext is malformed.
    #[pyo3(signature = (data, layout="C1C3C2"))]
    fn decrypt<'py>(&self, py: Python<'py>, data: Buf<'py>, layout: &str) -> PyOut<'py> {
        let l = self::layout(layout)?;
        let (d, dk) = (data.as_slice(), &self.dk);
        let out = py
            .detach(|| match l {
                Some(l) => dk.decrypt(d, l),
                None => dk.decrypt_der(d),
            })
            .map_err(|e| match e {
                shangmi_sm2::Error::EmptyMessage => InvalidTag::new_err("SM2 ciphertext has no C2"),
                e => sm2_err(e),
            })?;
        Ok(bytes(py, &Zeroizing::new(out)))
    }

    fn __repr__(&self) -> String {
        format!(
            "PrivateKey(public={})",
            hex(self.sk.verifying_key().to_sec1_point(false).as_bytes())
        )
    }
}

/// Converts an SM2 ciphertext between layouts (no key needed).
#[pyfunction]
fn sm2_convert<'py>(py: Python<'py>, data: Buf<'py>, src: &str, dst: &str) -> PyOut<'py> {
    let (d, from, to) = (data.as_slice(), layout(src)?, layout(dst)?);
    let out = match (from, to) {
        (Some(f), Some(t)) => pke::convert(d, f, t),
        (None, Some(t)) => pke::der_to_c1c3c2(d).and_then(|c| pke::convert(&c, Layout::C1C3C2, t)),
        (Some(f), None) => pke::convert(d, f, Layout::C1C3C2).and_then(|c| pke::c1c3c2_to_der(&c)),
        (None, None) => pke::der_to_c1c3c2(d).and_then(|c| pke::c1c3c2_to_der(&c)),
    }
    .map_err(sm2_err)?;
    Ok(bytes(py, &out))
}

/// SM2 key exchange (GB/T 32918.3): `KeyExchange(private_key, initiator, id=None)`;
/// send `ephemeral_public()`, then `finish(peer_public, peer_ephemeral, length,
/// peer_id=None)` returns `(key, confirmation_to_send, confirmation_expected)`.
#[pyclass(name = "KeyExchange", module = "shangmi")]
struct PyKeyExchange {
    kx: Option<kx::KeyExchange>,
    ephemeral: Vec<u8>,
}

#[pymethods]
impl PyKeyExchange {
    #[new]
    #[pyo3(signature = (private_key, initiator, id=None))]
    fn new(private_key: &PyPrivateKey, initiator: bool, id: Option<Buf<'_>>) -> PyResult<Self> {
        let id = id.as_ref().map_or(DEFAULT_ID, |i| i.as_slice());
        let role = if initiator {
            Role::Initiator
        } else {
            Role::Responder
        };
        let k = kx::KeyExchange::new(&mut getrandom::SysRng, role, &private_key.secret(), id)
            .map_err(sm2_err)?;
        let ephemeral = k
            .ephemeral_public()
            .to_sec1_point(false)
            .as_bytes()
            .to_vec();
        Ok(PyKeyExchange {
            kx: Some(k),
            ephemeral,
        })
    }

    /// This party's ephemeral point R (65 bytes, `04‖x‖y`).
    fn ephemeral_public<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.ephemeral)
    }

    /// Derives `length` key bytes; returns `(key, s_send, s_expected)`: the confirmation
    /// hash to send to the peer and the one the peer must send back (compare with
    /// `hmac.compare_digest`, or call `confirm`).
    #[pyo3(signature = (peer_public, peer_ephemeral, length, peer_id=None))]
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        peer_public: &PyPublicKey,
        peer_ephemeral: Buf<'py>,
        length: usize,
        peer_id: Option<Buf<'py>>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, PyConfirmation)> {
        let eph = keys::public_key_from_bytes(peer_ephemeral.as_slice()).map_err(sm2_err)?;
        let pid = peer_id.as_ref().map_or(DEFAULT_ID, |i| i.as_slice());
        if self.kx.is_none() {
            return Err(ShangmiError::new_err("key exchange finished"));
        }
        // The key is written into the new bytes object (a length too large for memory is
        // Python's MemoryError, and the exchange is not used up by it).
        let mut conf = None;
        let key = PyBytes::new_with(py, length, |key| {
            let k = self
                .kx
                .take()
                .ok_or_else(|| ShangmiError::new_err("key exchange finished"))?;
            conf = Some(
                k.finish(Peer::new(peer_public.vk.public_key(), pid, &eph), key)
                    .map_err(sm2_err)?,
            );
            Ok(())
        })?;
        let conf = conf.ok_or_else(|| ShangmiError::new_err("key exchange finished"))?;
        Ok((key, bytes(py, conf.to_send()), PyConfirmation { c: conf }))
    }
}

/// The confirmation check of a finished key exchange.
#[pyclass(name = "Confirmation", module = "shangmi", frozen)]
struct PyConfirmation {
    c: kx::Confirmation,
}

#[pymethods]
impl PyConfirmation {
    /// Checks the peer's confirmation hash; raises `InvalidTag`.
    fn verify(&self, received: Buf<'_>) -> PyResult<()> {
        let r = fixed::<32>(received.as_slice(), "confirmation")?;
        self.c
            .verify(&r)
            .map_err(|_| InvalidTag::new_err("SM2 key-exchange confirmation failed"))
    }
}

/// k·P for a 32-byte big-endian k (reduced mod n) and a point in any SEC1 form or as
/// 64-byte x‖y: 65 bytes `04‖x‖y`, or `None` for the point at infinity.
#[pyfunction]
fn sm2_point_mul<'py>(
    py: Python<'py>,
    k: Buf<'_>,
    point: Buf<'_>,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let k = Zeroizing::new(fixed::<32>(k.as_slice(), "scalar")?);
    let p = keys::public_key_from_bytes(point.as_slice()).map_err(sm2_err)?;
    let s = <Scalar as shangmi_sm2::elliptic_curve::ops::Reduce<FieldBytes>>::reduce(
        &FieldBytes::from(*k),
    );
    let q = p.to_projective() * s;
    Ok(Sm2Public::from_affine(q.to_affine())
        .ok()
        .map(|q| bytes(py, q.to_sec1_point(false).as_bytes())))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DEFAULT_ID", PyBytes::new(m.py(), DEFAULT_ID))?;
    add_items!(m;
        classes: PyPublicKey, PyPrivateKey, PyKeyExchange, PyConfirmation;
        functions: sm2_convert, sm2_point_mul;
    )
}
