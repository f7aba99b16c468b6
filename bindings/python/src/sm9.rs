//! SM9 (`shangmi-sm9`, GM/T 0044): master keys of a key generation centre, user keys
//! extracted for an identity, signatures and the XOR-mode public-key encryption.

use crate::common::{
    InvalidKey, InvalidSignature, InvalidTag, PyOut, ShangmiError, buf, bytes, fixed_key,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi_sm9::{
    EncryptMasterKey, EncryptMasterPublicKey, EncryptPrivateKey, SignMasterKey,
    SignMasterPublicKey, Signature, SigningKey,
};

fn sm9_err(e: shangmi_sm9::Error) -> PyErr {
    use shangmi_sm9::Error as E;
    match e {
        E::Verification => InvalidSignature::new_err(e.to_string()),
        E::Decryption => InvalidTag::new_err(e.to_string()),
        E::InvalidKey | E::InvalidPoint => InvalidKey::new_err(e.to_string()),
        _ => ShangmiError::new_err(e.to_string()),
    }
}

fn master_bytes(data: &Bound<'_, PyAny>) -> PyResult<zeroize::Zeroizing<[u8; 32]>> {
    let d = buf(data)?;
    Ok(zeroize::Zeroizing::new(fixed_key::<32>(
        d.as_slice(),
        "SM9 master key",
    )?))
}

/// The signing master key of a key generation centre: `generate()`, `from_bytes(32)`,
/// `to_bytes()`, `public_key()`, `extract(id)`.
#[pyclass(name = "SM9SignMasterKey", module = "shangmi", frozen)]
struct PySignMaster {
    k: SignMasterKey,
}

#[pymethods]
impl PySignMaster {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let k = py
            .detach(|| SignMasterKey::random(&mut getrandom::SysRng))
            .map_err(sm9_err)?;
        Ok(PySignMaster { k })
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let b = master_bytes(data)?;
        let k = py
            .detach(|| SignMasterKey::from_bytes(&b))
            .map_err(sm9_err)?;
        Ok(PySignMaster { k })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &zeroize::Zeroizing::new(self.k.to_bytes())[..])
    }

    fn public_key(&self) -> PySignMasterPublic {
        PySignMasterPublic {
            k: self.k.public_key().clone(),
        }
    }

    /// The signing key of the user `id` (hid 0x01).
    fn extract(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<PySigningKey> {
        let id = buf(id)?;
        let (k, id) = (&self.k, id.as_slice());
        let k = py.detach(|| k.extract(id)).map_err(sm9_err)?;
        Ok(PySigningKey { k })
    }
}

/// The signing master public key: `from_bytes` (128 or 129 bytes), `to_bytes`,
/// `verify(id, data, signature)` (DER or 96-byte h‖S; raises `InvalidSignature`).
#[pyclass(name = "SM9SignMasterPublicKey", module = "shangmi", frozen)]
struct PySignMasterPublic {
    k: SignMasterPublicKey,
}

#[pymethods]
impl PySignMasterPublic {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = buf(data)?;
        let d = d.as_slice();
        let k = py
            .detach(|| SignMasterPublicKey::from_bytes(d))
            .map_err(sm9_err)?;
        Ok(PySignMasterPublic { k })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.k.to_bytes())
    }

    fn verify(
        &self,
        py: Python<'_>,
        id: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        signature: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (id, d, s) = (buf(id)?, buf(data)?, buf(signature)?);
        let (id, d, s) = (id.as_slice(), d.as_slice(), s.as_slice());
        let sig = Signature::from_der(s)
            .or_else(|_| Signature::from_bytes(s))
            .map_err(|_| InvalidSignature::new_err("malformed SM9 signature"))?;
        let k = &self.k;
        py.detach(|| k.verify(id, 0x01, d, &sig)).map_err(sm9_err)
    }
}

/// A user's SM9 signing key: `sign(data, der=True)`, `to_bytes()` (65 bytes),
/// `from_bytes(data, master_public_key)`, `master_public_key()`.
#[pyclass(name = "SM9SigningKey", module = "shangmi", frozen)]
struct PySigningKey {
    k: SigningKey,
}

#[pymethods]
impl PySigningKey {
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        master: &PySignMasterPublic,
    ) -> PyResult<Self> {
        let d = buf(data)?;
        let d = d.as_slice();
        let k = py
            .detach(|| SigningKey::from_bytes(d, &master.k))
            .map_err(sm9_err)?;
        Ok(PySigningKey { k })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &zeroize::Zeroizing::new(self.k.to_uncompressed())[..])
    }

    fn master_public_key(&self) -> PySignMasterPublic {
        PySignMasterPublic {
            k: self.k.master_public_key().clone(),
        }
    }

    /// Signs `data`: DER (GM/T 0044's SEQUENCE { h, S }) or, with `der=False`, 96 bytes
    /// h‖S (S compressed as the crate writes it).
    #[pyo3(signature = (data, der=true))]
    fn sign<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>, der: bool) -> PyOut<'py> {
        let d = buf(data)?;
        let (d, k) = (d.as_slice(), &self.k);
        let sig = py
            .detach(|| k.sign_with_rng(&mut getrandom::SysRng, d))
            .map_err(sm9_err)?;
        Ok(if der {
            bytes(py, &sig.to_der())
        } else {
            bytes(py, &sig.to_bytes())
        })
    }
}

/// The encryption master key of a key generation centre: `generate()`,
/// `from_bytes(32)`, `to_bytes()`, `public_key()`, `extract(id)`.
#[pyclass(name = "SM9EncryptMasterKey", module = "shangmi", frozen)]
struct PyEncMaster {
    k: EncryptMasterKey,
}

#[pymethods]
impl PyEncMaster {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let k = py
            .detach(|| EncryptMasterKey::random(&mut getrandom::SysRng))
            .map_err(sm9_err)?;
        Ok(PyEncMaster { k })
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let b = master_bytes(data)?;
        let k = py
            .detach(|| EncryptMasterKey::from_bytes(&b))
            .map_err(sm9_err)?;
        Ok(PyEncMaster { k })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &zeroize::Zeroizing::new(self.k.to_bytes())[..])
    }

    fn public_key(&self) -> PyEncMasterPublic {
        PyEncMasterPublic {
            k: self.k.public_key().clone(),
        }
    }

    /// The decryption key of the user `id` (hid 0x03).
    fn extract(&self, py: Python<'_>, id: &Bound<'_, PyAny>) -> PyResult<PyEncKey> {
        let id = buf(id)?;
        let (k, idb) = (&self.k, id.as_slice());
        let k = py.detach(|| k.extract(idb)).map_err(sm9_err)?;
        Ok(PyEncKey {
            k,
            id: idb.to_vec(),
        })
    }
}

/// The encryption master public key: `from_bytes` (64 or 65 bytes), `to_bytes`,
/// `encrypt(id, data, der=False)` (C1‖C3‖C2, or GmSSL's DER).
#[pyclass(name = "SM9EncryptMasterPublicKey", module = "shangmi", frozen)]
struct PyEncMasterPublic {
    k: EncryptMasterPublicKey,
}

#[pymethods]
impl PyEncMasterPublic {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = buf(data)?;
        let d = d.as_slice();
        let k = py
            .detach(|| EncryptMasterPublicKey::from_bytes(d))
            .map_err(sm9_err)?;
        Ok(PyEncMasterPublic { k })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &self.k.to_bytes())
    }

    #[pyo3(signature = (id, data, der=false))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        id: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        der: bool,
    ) -> PyOut<'py> {
        let (id, d) = (buf(id)?, buf(data)?);
        let (id, d, k) = (id.as_slice(), d.as_slice(), &self.k);
        let ct = py
            .detach(|| {
                if der {
                    k.encrypt_der(&mut getrandom::SysRng, id, d)
                } else {
                    k.encrypt(&mut getrandom::SysRng, id, d)
                }
            })
            .map_err(sm9_err)?;
        Ok(bytes(py, &ct))
    }
}

/// A user's SM9 decryption key (with the identity it was extracted for):
/// `decrypt(ciphertext)` takes C1‖C3‖C2 or the DER form; raises `InvalidTag`.
#[pyclass(name = "SM9EncryptPrivateKey", module = "shangmi", frozen)]
struct PyEncKey {
    k: EncryptPrivateKey,
    id: Vec<u8>,
}

#[pymethods]
impl PyEncKey {
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        master: &PyEncMasterPublic,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let (d, id) = (buf(data)?, buf(id)?);
        let d = d.as_slice();
        let k = py
            .detach(|| EncryptPrivateKey::from_bytes(d, &master.k))
            .map_err(sm9_err)?;
        Ok(PyEncKey {
            k,
            id: id.as_slice().to_vec(),
        })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        bytes(py, &zeroize::Zeroizing::new(self.k.to_uncompressed())[..])
    }

    fn decrypt<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyOut<'py> {
        let d = buf(data)?;
        let (d, k, id) = (d.as_slice(), &self.k, &self.id[..]);
        let pt = py
            .detach(|| {
                k.decrypt(id, d).or_else(|e| match d.first() {
                    Some(0x30) => k.decrypt_der(id, d),
                    _ => Err(e),
                })
            })
            .map_err(sm9_err)?;
        Ok(bytes(py, &zeroize::Zeroizing::new(pt)))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySignMaster>()?;
    m.add_class::<PySignMasterPublic>()?;
    m.add_class::<PySigningKey>()?;
    m.add_class::<PyEncMaster>()?;
    m.add_class::<PyEncMasterPublic>()?;
    m.add_class::<PyEncKey>()?;
    Ok(())
}
