//! `shangmi._shangmi`: the native half of the `shangmi` wheel. Thin glue only: every
//! primitive comes from `shangmi-sm2`, `shangmi-sm3`, `shangmi-sm4` and `shangmi-sm4-modes`;
//! this file converts buffers, names layouts and maps errors to typed Python exceptions.
//! The Python half (`python/shangmi/`) re-exports these names and adds the `gmssl` layer.

use hmac::Mac as _;
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyString};
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::elliptic_curve::sec1::ToSec1Point as _;
use shangmi_sm2::keys::{self, AlgorithmForm, EncryptionScheme};
use shangmi_sm2::kx::{self, Role};
use shangmi_sm2::pkcs8::LineEnding;
use shangmi_sm2::pke::{self, DecryptingKey, EncryptingKey, Layout};
use shangmi_sm2::{DEFAULT_ID, FieldBytes, PublicKey as Sm2Public, SecretKey};
use shangmi_sm3::{Digest, Sm3};
use shangmi_sm4::{CtrFlavor, Sm4};
use shangmi_sm4_modes::aead::consts::{U7, U8, U9, U10, U11, U12, U13, U16};
use shangmi_sm4_modes::aead::{Aead, AeadInOut, KeyInit, Payload};
use shangmi_sm4_modes::cipher::block_padding::{NoPadding, Pkcs7};
use shangmi_sm4_modes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use shangmi_sm4_modes::{
    Sm4CbcDec, Sm4CbcEnc, Sm4CcmCustom, Sm4Cmac, Sm4EcbDec, Sm4EcbEnc, Sm4Gcm, Sm4XtsGb, Sm4XtsIeee,
};
use zeroize::{Zeroize, Zeroizing};

create_exception!(
    _shangmi,
    ShangmiError,
    PyValueError,
    "Base class of every error this package raises (a ValueError)."
);
create_exception!(
    _shangmi,
    InvalidTag,
    ShangmiError,
    "An authentication tag (AEAD, CMAC, SM2 C3 hash) did not verify."
);
create_exception!(
    _shangmi,
    InvalidSignature,
    ShangmiError,
    "An SM2 signature is malformed or does not verify."
);
create_exception!(
    _shangmi,
    InvalidKey,
    ShangmiError,
    "A key is malformed, out of range, on another curve or wrongly encrypted."
);

/// Inputs at least this long are processed with the GIL released.
const GIL_THRESHOLD: usize = 16 * 1024;

/// A borrowed or copied view of any bytes-like argument.
enum Buf<'py> {
    Bytes(Bound<'py, PyBytes>),
    Owned(Zeroizing<Vec<u8>>),
}

impl Buf<'_> {
    fn as_slice(&self) -> &[u8] {
        match self {
            Buf::Bytes(b) => b.as_bytes(),
            Buf::Owned(v) => v,
        }
    }
}

/// bytes (borrowed), bytearray, memoryview or any buffer (copied); str and int refused.
fn buf<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Buf<'py>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Buf::Bytes(b.clone()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Buf::Owned(Zeroizing::new(b.to_vec())));
    }
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(
            "expected a bytes-like object (bytes, bytearray, memoryview)",
        ));
    }
    let bytes = obj.py().get_type::<PyBytes>().call1((obj,))?;
    let b = bytes.cast_into::<PyBytes>()?;
    Ok(Buf::Bytes(b))
}

/// Runs `f` with the GIL released when `len` is large.
fn maybe_detach<T: Send, F: FnOnce() -> T + Send>(py: Python<'_>, len: usize, f: F) -> T {
    if len >= GIL_THRESHOLD {
        py.detach(f)
    } else {
        f()
    }
}

fn fixed<const N: usize>(data: &[u8], what: &str) -> PyResult<[u8; N]> {
    data.try_into()
        .map_err(|_| PyValueError::new_err(format!("{what} must be {N} bytes, got {}", data.len())))
}

fn fixed_key<const N: usize>(data: &[u8], what: &str) -> PyResult<[u8; N]> {
    data.try_into()
        .map_err(|_| InvalidKey::new_err(format!("{what} must be {N} bytes, got {}", data.len())))
}

fn sm2_err(e: shangmi_sm2::Error) -> PyErr {
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

fn bytes<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, data)
}

// ---------------------------------------------------------------------------------------
// SM3

/// SM3 hash object, hashlib-style: `sm3(data=b"")`, `update`, `digest`, `hexdigest`,
/// `copy`, `name`, `digest_size`, `block_size`. `hmac.new(key, msg, shangmi.sm3)` works.
#[pyclass(name = "sm3", module = "shangmi")]
#[derive(Clone)]
struct PySm3 {
    h: Sm3,
}

#[pymethods]
impl PySm3 {
    #[new]
    #[pyo3(signature = (data=None, *, usedforsecurity=true))]
    fn new(
        py: Python<'_>,
        data: Option<&Bound<'_, PyAny>>,
        usedforsecurity: bool,
    ) -> PyResult<Self> {
        let _ = usedforsecurity;
        let mut s = PySm3 { h: Sm3::new() };
        if let Some(d) = data {
            s.update(py, d)?;
        }
        Ok(s)
    }

    fn update(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let b = buf(data)?;
        let s = b.as_slice();
        let h = &mut self.h;
        maybe_detach(py, s.len(), || Digest::update(h, s));
        Ok(())
    }

    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.h.clone().finalize())
    }

    fn hexdigest(&self) -> String {
        hex(&self.h.clone().finalize())
    }

    fn copy(&self) -> Self {
        self.clone()
    }

    #[getter]
    fn name(&self) -> &'static str {
        "sm3"
    }

    #[getter]
    fn digest_size(&self) -> usize {
        32
    }

    #[getter]
    fn block_size(&self) -> usize {
        64
    }
}

fn hex(data: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(data.len() * 2);
    for b in data {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// HMAC-SM3 of `msg` under `key` (one call).
#[pyfunction]
fn hmac_sm3<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    msg: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let k = buf(key)?;
    let m = buf(msg)?;
    let (k, m) = (k.as_slice(), m.as_slice());
    let tag = maybe_detach(py, m.len(), || {
        let mut mac = hmac::Hmac::<Sm3>::new_from_slice(k).map_err(|_| ())?;
        mac.update(m);
        Ok::<_, ()>(mac.finalize().into_bytes())
    })
    .map_err(|()| InvalidKey::new_err("HMAC key rejected"))?;
    Ok(bytes(py, &tag))
}

/// HKDF (RFC 5869) with HMAC-SM3: `length` bytes from `ikm`, `salt` and `info`.
#[pyfunction]
#[pyo3(signature = (ikm, length, salt=None, info=None))]
fn hkdf_sm3<'py>(
    py: Python<'py>,
    ikm: &Bound<'py, PyAny>,
    length: usize,
    salt: Option<&Bound<'py, PyAny>>,
    info: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let ikm = buf(ikm)?;
    let salt = salt.map(buf).transpose()?;
    let info = info.map(buf).transpose()?;
    let hk = hkdf::Hkdf::<Sm3>::new(salt.as_ref().map(|s| s.as_slice()), ikm.as_slice());
    let mut out = Zeroizing::new(vec![0u8; length]);
    hk.expand(info.as_ref().map_or(&[][..], |i| i.as_slice()), &mut out)
        .map_err(|_| PyValueError::new_err("HKDF-SM3 length must be at most 255 * 32 bytes"))?;
    Ok(bytes(py, &out))
}

/// The key derivation function of GB/T 32918.4 §5.4.3 (SM2 encryption, key exchange):
/// SM3(z ‖ ct) for ct = 1, 2, … as 32-bit big-endian, truncated to `length` bytes
/// (`shangmi_sm3::kdf`).
#[pyfunction]
fn sm3_kdf<'py>(
    py: Python<'py>,
    z: &Bound<'py, PyAny>,
    length: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let z = buf(z)?;
    let z = z.as_slice();
    let out = maybe_detach(py, length, || {
        let mut out = Zeroizing::new(vec![0u8; length]);
        shangmi_sm3::kdf::kdf(&[z], &mut out);
        out
    });
    Ok(bytes(py, &out))
}

// ---------------------------------------------------------------------------------------
// SM4

fn sm4_key(key: &Bound<'_, PyAny>) -> PyResult<Zeroizing<[u8; 16]>> {
    let k = buf(key)?;
    Ok(Zeroizing::new(fixed_key::<16>(k.as_slice(), "SM4 key")?))
}

fn aead_payload<'a>(data: &'a [u8], aad: &'a Option<Buf<'_>>) -> Payload<'a, 'a> {
    Payload {
        msg: data,
        aad: aad.as_ref().map_or(&[][..], |a| a.as_slice()),
    }
}

/// SM4-GCM with cryptography's AEAD shape: `SM4GCM(key).encrypt(nonce, data,
/// associated_data)` returns ciphertext ‖ 16-byte tag; `decrypt` raises `InvalidTag`.
/// Nonces are 12 bytes.
#[pyclass(name = "SM4GCM", module = "shangmi", frozen)]
struct PySm4Gcm {
    c: Sm4Gcm,
}

#[pymethods]
impl PySm4Gcm {
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let k = sm4_key(key)?;
        Ok(PySm4Gcm {
            c: Sm4Gcm::new(&(*k).into()),
        })
    }

    /// 16 random bytes from the operating system.
    #[staticmethod]
    fn generate_key<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        random_bytes(py, 16)
    }

    #[pyo3(signature = (nonce, data, associated_data=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let n = buf(nonce)?;
        let n = fixed::<12>(n.as_slice(), "SM4-GCM nonce")?;
        let d = buf(data)?;
        let a = associated_data.map(buf).transpose()?;
        let Payload { msg, aad } = aead_payload(d.as_slice(), &a);
        let c = &self.c;
        // Sealed in place in the new bytes object (ciphertext ‖ tag): one copy of the
        // message, no intermediate vector.
        PyBytes::new_with(py, msg.len() + 16, |o| {
            let (body, tag) = o.split_at_mut(msg.len());
            body.copy_from_slice(msg);
            let t = maybe_detach(py, msg.len() + aad.len(), || {
                c.encrypt_inout_detached(&n.into(), aad, body.into())
            })
            .map_err(|_| ShangmiError::new_err("SM4-GCM input too long"))?;
            tag.copy_from_slice(&t);
            Ok(())
        })
    }

    #[pyo3(signature = (nonce, data, associated_data=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let n = buf(nonce)?;
        let n = fixed::<12>(n.as_slice(), "SM4-GCM nonce")?;
        let d = buf(data)?;
        let a = associated_data.map(buf).transpose()?;
        let p = aead_payload(d.as_slice(), &a);
        let c = &self.c;
        let out = maybe_detach(py, p.msg.len() + p.aad.len(), || c.decrypt(&n.into(), p))
            .map_err(|_| InvalidTag::new_err("SM4-GCM tag does not verify"))?;
        Ok(bytes(py, &Zeroizing::new(out)))
    }
}

macro_rules! ccm_dispatch {
    ($key:expr, $nonce:expr, $method:ident, $p:expr) => {{
        let k: &[u8; 16] = $key;
        let n: &[u8] = $nonce;
        macro_rules! go {
            ($t:ty) => {
                <$t>::new(&(*k).into())
                    .$method(n.try_into().map_err(|_| ())?, $p)
                    .map_err(|_| ())
            };
        }
        match n.len() {
            7 => go!(Sm4CcmCustom<U7, U16>),
            8 => go!(Sm4CcmCustom<U8, U16>),
            9 => go!(Sm4CcmCustom<U9, U16>),
            10 => go!(Sm4CcmCustom<U10, U16>),
            11 => go!(Sm4CcmCustom<U11, U16>),
            12 => go!(Sm4CcmCustom<U12, U16>),
            13 => go!(Sm4CcmCustom<U13, U16>),
            _ => Err(()),
        }
    }};
}

/// SM4-CCM with cryptography's AEAD shape: `SM4CCM(key).encrypt(nonce, data,
/// associated_data)`; nonces of 7 to 13 bytes, a 16-byte tag.
#[pyclass(name = "SM4CCM", module = "shangmi", frozen)]
struct PySm4Ccm {
    key: Zeroizing<[u8; 16]>,
}

#[pymethods]
impl PySm4Ccm {
    #[new]
    #[pyo3(signature = (key, tag_length=16))]
    fn new(key: &Bound<'_, PyAny>, tag_length: usize) -> PyResult<Self> {
        if tag_length != 16 {
            return Err(PyValueError::new_err("SM4CCM supports tag_length=16 only"));
        }
        Ok(PySm4Ccm { key: sm4_key(key)? })
    }

    /// 16 random bytes from the operating system.
    #[staticmethod]
    fn generate_key<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        random_bytes(py, 16)
    }

    #[pyo3(signature = (nonce, data, associated_data=None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let n = buf(nonce)?;
        let d = buf(data)?;
        let a = associated_data.map(buf).transpose()?;
        let p = aead_payload(d.as_slice(), &a);
        let (k, n) = (&*self.key, n.as_slice());
        let out = maybe_detach(py, p.msg.len(), || -> Result<Vec<u8>, ()> {
            ccm_dispatch!(k, n, encrypt, p)
        })
        .map_err(|()| {
            PyValueError::new_err("SM4-CCM nonce must be 7 to 13 bytes (or input too long)")
        })?;
        Ok(bytes(py, &out))
    }

    #[pyo3(signature = (nonce, data, associated_data=None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let n = buf(nonce)?;
        if !(7..=13).contains(&n.as_slice().len()) {
            return Err(PyValueError::new_err("SM4-CCM nonce must be 7 to 13 bytes"));
        }
        let d = buf(data)?;
        let a = associated_data.map(buf).transpose()?;
        let p = aead_payload(d.as_slice(), &a);
        let (k, n) = (&*self.key, n.as_slice());
        let out = maybe_detach(py, p.msg.len(), || -> Result<Vec<u8>, ()> {
            ccm_dispatch!(k, n, decrypt, p)
        })
        .map_err(|()| InvalidTag::new_err("SM4-CCM tag does not verify"))?;
        Ok(bytes(py, &Zeroizing::new(out)))
    }
}

fn iv16(iv: &Bound<'_, PyAny>, what: &str) -> PyResult<[u8; 16]> {
    let b = buf(iv)?;
    fixed::<16>(b.as_slice(), what)
}

/// SM4-CBC: `SM4CBC(key, padding=True).encrypt(iv, data)` / `.decrypt(iv, data)`; PKCS#7
/// padding by default, `padding=False` for whole blocks only.
#[pyclass(name = "SM4CBC", module = "shangmi", frozen)]
struct PySm4Cbc {
    key: Zeroizing<[u8; 16]>,
    padding: bool,
}

#[pymethods]
impl PySm4Cbc {
    #[new]
    #[pyo3(signature = (key, padding=true))]
    fn new(key: &Bound<'_, PyAny>, padding: bool) -> PyResult<Self> {
        Ok(PySm4Cbc {
            key: sm4_key(key)?,
            padding,
        })
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv, "SM4-CBC IV")?;
        let d = buf(data)?;
        let d = d.as_slice();
        let (k, pad) = (&*self.key, self.padding);
        let out = maybe_detach(py, d.len(), || {
            let c = Sm4CbcEnc::new(&(*k).into(), &iv.into());
            if pad {
                Ok(c.encrypt_padded_vec::<Pkcs7>(d))
            } else if d.len().is_multiple_of(16) {
                Ok(c.encrypt_padded_vec::<NoPadding>(d))
            } else {
                Err(())
            }
        })
        .map_err(|()| {
            PyValueError::new_err("SM4-CBC without padding needs whole 16-byte blocks")
        })?;
        Ok(bytes(py, &out))
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv, "SM4-CBC IV")?;
        let d = buf(data)?;
        let d = d.as_slice();
        let (k, pad) = (&*self.key, self.padding);
        let out = maybe_detach(py, d.len(), || {
            let c = Sm4CbcDec::new(&(*k).into(), &iv.into());
            if pad {
                c.decrypt_padded_vec::<Pkcs7>(d).map_err(|_| ())
            } else {
                c.decrypt_padded_vec::<NoPadding>(d).map_err(|_| ())
            }
        })
        .map_err(|()| {
            PyValueError::new_err("SM4-CBC: invalid padding or not a whole number of blocks")
        })?;
        Ok(bytes(py, &Zeroizing::new(out)))
    }
}

/// SM4-ECB (for compatibility with old formats only: equal blocks give equal ciphertext).
#[pyclass(name = "SM4ECB", module = "shangmi", frozen)]
struct PySm4Ecb {
    key: Zeroizing<[u8; 16]>,
    padding: bool,
}

#[pymethods]
impl PySm4Ecb {
    #[new]
    #[pyo3(signature = (key, padding=true))]
    fn new(key: &Bound<'_, PyAny>, padding: bool) -> PyResult<Self> {
        Ok(PySm4Ecb {
            key: sm4_key(key)?,
            padding,
        })
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let d = buf(data)?;
        let d = d.as_slice();
        let (k, pad) = (&*self.key, self.padding);
        let out = maybe_detach(py, d.len(), || {
            let c = Sm4EcbEnc::new(&(*k).into());
            if pad {
                Ok(c.encrypt_padded_vec::<Pkcs7>(d))
            } else if d.len().is_multiple_of(16) {
                Ok(c.encrypt_padded_vec::<NoPadding>(d))
            } else {
                Err(())
            }
        })
        .map_err(|()| {
            PyValueError::new_err("SM4-ECB without padding needs whole 16-byte blocks")
        })?;
        Ok(bytes(py, &out))
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let d = buf(data)?;
        let d = d.as_slice();
        let (k, pad) = (&*self.key, self.padding);
        let out = maybe_detach(py, d.len(), || {
            let c = Sm4EcbDec::new(&(*k).into());
            if pad {
                c.decrypt_padded_vec::<Pkcs7>(d).map_err(|_| ())
            } else {
                c.decrypt_padded_vec::<NoPadding>(d).map_err(|_| ())
            }
        })
        .map_err(|()| {
            PyValueError::new_err("SM4-ECB: invalid padding or not a whole number of blocks")
        })?;
        Ok(bytes(py, &Zeroizing::new(out)))
    }
}

/// Bytes per step of SM4-CTR's copy-then-XOR loop: whole blocks, well inside L1.
const CTR_CHUNK: usize = 16 * 1024;

/// SM4-CTR (128-bit big-endian counter block): `SM4CTR(key).encrypt(nonce16, data)`;
/// `decrypt` is the same operation.
#[pyclass(name = "SM4CTR", module = "shangmi", frozen)]
struct PySm4Ctr {
    key: Zeroizing<[u8; 16]>,
}

#[pymethods]
impl PySm4Ctr {
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PySm4Ctr { key: sm4_key(key)? })
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut counter = iv16(nonce, "SM4-CTR counter block")?;
        let d = buf(data)?;
        let d = d.as_slice();
        // The counter may reach 2^128 - 1 but not pass it (as the `ctr` crate's Ctr128BE).
        let blocks = d.len().div_ceil(16) as u128;
        if blocks > 0
            && u128::from_be_bytes(counter)
                .checked_add(blocks - 1)
                .is_none()
        {
            return Err(PyValueError::new_err("SM4-CTR counter would wrap"));
        }
        let cipher = Sm4::new(&(*self.key).into());
        // Straight into the new bytes object, through the engine's own counter path (8%
        // faster at 1 MiB than the generic `ctr` crate over the block cipher), a chunk at a
        // time so that each chunk's copy is still in L1 when the keystream is XORed in.
        PyBytes::new_with(py, d.len(), |o| {
            maybe_detach(py, o.len(), || {
                for (o, d) in o.chunks_mut(CTR_CHUNK).zip(d.chunks(CTR_CHUNK)) {
                    o.copy_from_slice(d);
                    cipher.apply_ctr(CtrFlavor::Be128, &mut counter, o);
                }
            });
            Ok(())
        })
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.encrypt(py, nonce, data)
    }
}

enum Xts {
    Ieee(Sm4XtsIeee),
    Gb(Sm4XtsGb),
}

/// SM4-XTS with a 32-byte key: `SM4XTS(key, standard="ieee"|"gb")`, `encrypt(tweak16,
/// data)` / `decrypt`; data of at least 16 bytes (ciphertext stealing for the rest).
#[pyclass(name = "SM4XTS", module = "shangmi", frozen)]
struct PySm4Xts {
    x: Xts,
}

#[pymethods]
impl PySm4Xts {
    #[new]
    #[pyo3(signature = (key, standard="ieee"))]
    fn new(key: &Bound<'_, PyAny>, standard: &str) -> PyResult<Self> {
        let k = buf(key)?;
        let k = Zeroizing::new(fixed_key::<32>(k.as_slice(), "SM4-XTS key")?);
        let bad = |e: shangmi_sm4_modes::XtsError| InvalidKey::new_err(e.to_string());
        let x = match standard {
            "ieee" | "IEEE" | "ieee1619" => Xts::Ieee(Sm4XtsIeee::new(&k).map_err(bad)?),
            "gb" | "GB" | "gbt17964" => Xts::Gb(Sm4XtsGb::new(&k).map_err(bad)?),
            _ => return Err(PyValueError::new_err("standard must be 'ieee' or 'gb'")),
        };
        Ok(PySm4Xts { x })
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        tweak: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.run(py, tweak, data, true)
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        tweak: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.run(py, tweak, data, false)
    }
}

impl PySm4Xts {
    fn run<'py>(
        &self,
        py: Python<'py>,
        tweak: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        enc: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let t = iv16(tweak, "SM4-XTS tweak")?;
        let d = buf(data)?;
        let mut out = Zeroizing::new(d.as_slice().to_vec());
        let (x, o) = (&self.x, &mut *out);
        maybe_detach(py, o.len(), || match (x, enc) {
            (Xts::Ieee(c), true) => c.encrypt(&t, o),
            (Xts::Ieee(c), false) => c.decrypt(&t, o),
            (Xts::Gb(c), true) => c.encrypt(&t, o),
            (Xts::Gb(c), false) => c.decrypt(&t, o),
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(bytes(py, &out))
    }
}

/// SM4-CMAC (NIST SP 800-38B): `update`, `finalize` (16 bytes), `verify(tag)` (raises
/// `InvalidTag`), `copy`.
#[pyclass(name = "SM4CMAC", module = "shangmi")]
#[derive(Clone)]
struct PySm4Cmac {
    m: Sm4Cmac,
}

#[pymethods]
impl PySm4Cmac {
    #[new]
    fn new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let k = sm4_key(key)?;
        let m = <Sm4Cmac as hmac::KeyInit>::new_from_slice(&*k)
            .map_err(|_| InvalidKey::new_err("SM4 key must be 16 bytes"))?;
        Ok(PySm4Cmac { m })
    }

    fn update(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = buf(data)?;
        let s = d.as_slice();
        let m = &mut self.m;
        maybe_detach(py, s.len(), || m.update(s));
        Ok(())
    }

    fn finalize<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.m.clone().finalize().into_bytes())
    }

    fn verify(&self, tag: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = buf(tag)?;
        self.m
            .clone()
            .verify_slice(t.as_slice())
            .map_err(|_| InvalidTag::new_err("SM4-CMAC tag does not verify"))
    }

    fn copy(&self) -> Self {
        self.clone()
    }
}

// ---------------------------------------------------------------------------------------
// SM2

fn random_bytes(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyBytes>> {
    let mut v = vec![0u8; n];
    getrandom::fill(&mut v).map_err(|e| ShangmiError::new_err(e.to_string()))?;
    Ok(bytes(py, &v))
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

fn hex_decode(s: &str) -> PyResult<Zeroizing<Vec<u8>>> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return Err(PyValueError::new_err("odd-length hex string"));
    }
    let nib = |c: u8| -> PyResult<u8> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(PyValueError::new_err("non-hex character")),
        }
    };
    let b = s.as_bytes();
    let mut out = Zeroizing::new(Vec::with_capacity(b.len() / 2));
    for pair in b.chunks(2) {
        out.push((nib(pair[0])? << 4) | nib(pair[1])?);
    }
    Ok(out)
}

/// SM2 public key: `from_bytes` (65-byte `04‖x‖y`, 33-byte compressed, or 64-byte `x‖y`),
/// `from_hex`, `from_pem`, `from_der`; `verify`, `encrypt`.
#[pyclass(name = "PublicKey", module = "shangmi", frozen)]
struct PyPublicKey {
    vk: VerifyingKey,
}

impl PyPublicKey {
    fn of(pk: Sm2Public) -> Self {
        PyPublicKey {
            vk: VerifyingKey::new(&pk),
        }
    }

    fn with_id(&self, id: Option<&[u8]>) -> PyResult<Option<VerifyingKey>> {
        match id {
            Some(id) if id != DEFAULT_ID => Ok(Some(
                VerifyingKey::new_with_id(self.vk.public_key(), id).map_err(sm2_err)?,
            )),
            _ => Ok(None),
        }
    }
}

#[pymethods]
impl PyPublicKey {
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = buf(data)?;
        Ok(Self::of(
            keys::public_key_from_bytes(d.as_slice()).map_err(sm2_err)?,
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
    fn from_der(der: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = buf(der)?;
        Ok(Self::of(
            keys::public_key_from_spki_der(d.as_slice()).map_err(sm2_err)?,
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

    fn to_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
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
        signature: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let sig = buf(signature)?;
        let d = buf(data)?;
        let id = id.map(buf).transpose()?;
        let other = self.with_id(id.as_ref().map(|i| i.as_slice()))?;
        let vk = other.as_ref().unwrap_or(&self.vk);
        let (sig, d) = (sig.as_slice(), d.as_slice());
        py.detach(|| {
            let sig = Signature::from_der_or_fixed(sig)?;
            vk.verify_e(&vk.hash_message(d), &sig)
        })
        .map_err(sm2_err)
    }

    /// Verifies a signature over a precomputed e = SM3(Z_A ‖ M) (32 bytes).
    fn verify_digest(
        &self,
        py: Python<'_>,
        signature: &Bound<'_, PyAny>,
        e: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let sig = buf(signature)?;
        let e = buf(e)?;
        let e = fixed::<32>(e.as_slice(), "digest")?;
        let (sig, vk) = (sig.as_slice(), &self.vk);
        py.detach(|| vk.verify_e(&e, &Signature::from_der_or_fixed(sig)?))
            .map_err(sm2_err)
    }

    /// e = SM3(Z_A ‖ data) for identifier `id`, the value SM2 signs.
    #[pyo3(signature = (data, id=None))]
    fn digest<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        id: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let d = buf(data)?;
        let id = id.map(buf).transpose()?;
        let other = self.with_id(id.as_ref().map(|i| i.as_slice()))?;
        let vk = other.as_ref().unwrap_or(&self.vk);
        Ok(bytes(py, &vk.hash_message(d.as_slice())))
    }

    /// SM2 encryption in `layout` (default "C1C3C2"; also "C1C2C3", "*_RAW" without the
    /// 04 prefix, "*_COMPRESSED", "ASN1").
    #[pyo3(signature = (data, layout="C1C3C2"))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        layout: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let l = self::layout(layout)?;
        let d = buf(data)?;
        let d = d.as_slice();
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
struct PyPrivateKey {
    sk: SigningKey,
    dk: DecryptingKey,
}

impl PyPrivateKey {
    fn of(secret: SecretKey) -> PyResult<Self> {
        let sk = SigningKey::new(&secret).map_err(sm2_err)?;
        Ok(PyPrivateKey {
            sk,
            dk: DecryptingKey::new(secret),
        })
    }

    fn secret(&self) -> SecretKey {
        self.dk.secret_key().clone()
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
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = buf(data)?;
        let d = Zeroizing::new(fixed_key::<32>(d.as_slice(), "SM2 private key")?);
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
    fn from_pem(pem: &str, password: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let s = match password {
            Some(p) => {
                let p = buf(p)?;
                keys::secret_key_from_pem_with_password(pem, p.as_slice())
            }
            None => keys::secret_key_from_pem(pem),
        }
        .map_err(sm2_err)?;
        Self::of(s)
    }

    #[staticmethod]
    #[pyo3(signature = (der, password=None))]
    fn from_der(der: &Bound<'_, PyAny>, password: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let d = buf(der)?;
        let s = match password {
            Some(p) => {
                let p = buf(p)?;
                keys::secret_key_from_encrypted_pkcs8_der(d.as_slice(), p.as_slice())
            }
            None => keys::secret_key_from_der(d.as_slice()),
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
    fn to_der<'py>(
        &self,
        py: Python<'py>,
        password: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let s = self.secret();
        let doc = match password {
            Some(p) => {
                let p = buf(p)?;
                keys::secret_key_to_encrypted_pkcs8_der(
                    &s,
                    p.as_slice(),
                    EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations: 65_536 },
                    &mut getrandom::SysRng,
                )
            }
            None => keys::secret_key_to_pkcs8_der(&s, AlgorithmForm::EcPublicKey),
        }
        .map_err(sm2_err)?;
        Ok(bytes(py, doc.as_bytes()))
    }

    /// PKCS#8 PEM; with `password`, `ENCRYPTED PRIVATE KEY` (PBKDF2-HMAC-SM3, SM4-CBC).
    #[pyo3(signature = (password=None))]
    fn to_pem(&self, password: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let s = self.secret();
        let pem = match password {
            Some(p) => {
                let p = buf(p)?;
                keys::secret_key_to_encrypted_pkcs8_pem(
                    &s,
                    p.as_slice(),
                    EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations: 65_536 },
                    &mut getrandom::SysRng,
                    LineEnding::LF,
                )
            }
            None => keys::secret_key_to_pkcs8_pem(&s, AlgorithmForm::EcPublicKey, LineEnding::LF),
        }
        .map_err(sm2_err)?;
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
        data: &Bound<'py, PyAny>,
        id: Option<&Bound<'py, PyAny>>,
        der: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let d = buf(data)?;
        let id = id.map(buf).transpose()?;
        let other = match id.as_ref().map(|i| i.as_slice()) {
            Some(id) if id != DEFAULT_ID => Some(
                VerifyingKey::new_with_id(self.sk.verifying_key().public_key(), id)
                    .map_err(sm2_err)?,
            ),
            _ => None,
        };
        let vk = other.as_ref().unwrap_or(self.sk.verifying_key());
        let (d, sk) = (d.as_slice(), &self.sk);
        let sig = py
            .detach(|| sk.try_sign_e_with_rng(&mut getrandom::SysRng, &vk.hash_message(d)))
            .map_err(sm2_err)?;
        Ok(if der {
            bytes(py, sig.to_der().as_ref())
        } else {
            bytes(py, &sig.to_bytes())
        })
    }

    /// Signs a precomputed 32-byte e (hazmat). With `k` (32 bytes, in [1, n-1]) the
    /// caller's nonce is used (for interoperability tests only: a repeated k reveals the
    /// key). Returns 64-byte r‖s; raises `ShangmiError` if k gives a degenerate signature.
    #[pyo3(signature = (e, k=None))]
    fn sign_digest<'py>(
        &self,
        py: Python<'py>,
        e: &Bound<'py, PyAny>,
        k: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let e = buf(e)?;
        let e = fixed::<32>(e.as_slice(), "digest")?;
        let sig = match k {
            Some(k) => {
                let k = buf(k)?;
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
        Ok(bytes(py, &sig.to_bytes()))
    }

    /// SM2 decryption of `data` in `layout` (see `PublicKey.encrypt`); raises `InvalidTag`
    /// when the C3 hash does not verify or the ciphertext is malformed.
    #[pyo3(signature = (data, layout="C1C3C2"))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        layout: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let l = self::layout(layout)?;
        let d = buf(data)?;
        let (d, dk) = (d.as_slice(), &self.dk);
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

fn rand_fill(rng: &mut getrandom::SysRng, out: &mut [u8]) -> PyResult<()> {
    use shangmi_sm2::elliptic_curve::rand_core::TryRng;
    rng.try_fill_bytes(out)
        .map_err(|e| ShangmiError::new_err(format!("random generator failed: {e}")))
}

/// Converts an SM2 ciphertext between layouts (no key needed).
#[pyfunction]
fn sm2_convert<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    src: &str,
    dst: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let d = buf(data)?;
    let (from, to) = (layout(src)?, layout(dst)?);
    let out = match (from, to) {
        (Some(f), Some(t)) => pke::convert(d.as_slice(), f, t),
        (None, Some(t)) => {
            pke::der_to_c1c3c2(d.as_slice()).and_then(|c| pke::convert(&c, Layout::C1C3C2, t))
        }
        (Some(f), None) => {
            pke::convert(d.as_slice(), f, Layout::C1C3C2).and_then(|c| pke::c1c3c2_to_der(&c))
        }
        (None, None) => pke::der_to_c1c3c2(d.as_slice()).and_then(|c| pke::c1c3c2_to_der(&c)),
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
    fn new(
        private_key: &PyPrivateKey,
        initiator: bool,
        id: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let id = id.map(buf).transpose()?;
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
        peer_ephemeral: &Bound<'py, PyAny>,
        length: usize,
        peer_id: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, PyConfirmation)> {
        let eph = buf(peer_ephemeral)?;
        let eph = keys::public_key_from_bytes(eph.as_slice()).map_err(sm2_err)?;
        let pid = peer_id.map(buf).transpose()?;
        let pid = pid.as_ref().map_or(DEFAULT_ID, |i| i.as_slice());
        let k = self
            .kx
            .take()
            .ok_or_else(|| ShangmiError::new_err("key exchange finished"))?;
        let mut key = Zeroizing::new(vec![0u8; length]);
        let conf = k
            .finish(peer_public.vk.public_key(), pid, &eph, &mut key)
            .map_err(sm2_err)?;
        Ok((
            bytes(py, &key),
            bytes(py, conf.to_send()),
            PyConfirmation { c: conf },
        ))
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
    fn verify(&self, received: &Bound<'_, PyAny>) -> PyResult<()> {
        let r = buf(received)?;
        let r = fixed::<32>(r.as_slice(), "confirmation")?;
        self.c
            .verify(&r)
            .map_err(|_| InvalidTag::new_err("SM2 key-exchange confirmation failed"))
    }
}

#[pymodule]
fn _shangmi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ShangmiError", py.get_type::<ShangmiError>())?;
    m.add("InvalidTag", py.get_type::<InvalidTag>())?;
    m.add("InvalidSignature", py.get_type::<InvalidSignature>())?;
    m.add("InvalidKey", py.get_type::<InvalidKey>())?;
    m.add("DEFAULT_ID", PyBytes::new(py, DEFAULT_ID))?;
    m.add_class::<PySm3>()?;
    m.add_class::<PySm4Gcm>()?;
    m.add_class::<PySm4Ccm>()?;
    m.add_class::<PySm4Cbc>()?;
    m.add_class::<PySm4Ecb>()?;
    m.add_class::<PySm4Ctr>()?;
    m.add_class::<PySm4Xts>()?;
    m.add_class::<PySm4Cmac>()?;
    m.add_class::<PyPublicKey>()?;
    m.add_class::<PyPrivateKey>()?;
    m.add_class::<PyKeyExchange>()?;
    m.add_class::<PyConfirmation>()?;
    m.add_function(wrap_pyfunction!(hmac_sm3, m)?)?;
    m.add_function(wrap_pyfunction!(hkdf_sm3, m)?)?;
    m.add_function(wrap_pyfunction!(sm3_kdf, m)?)?;
    m.add_function(wrap_pyfunction!(sm2_convert, m)?)?;
    Ok(())
}
