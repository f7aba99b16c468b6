//! SM9 (`shangmi-sm9`, GM/T 0044): master keys of a key generation centre, user keys
//! extracted for an identity, signatures and the XOR-mode public-key encryption.

use crate::common::{
    Buf, InvalidKey, InvalidSignature, InvalidTag, PyOut, ShangmiError, add_items, bytes, fixed_key,
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

fn master_bytes(data: Buf<'_>) -> PyResult<zeroize::Zeroizing<[u8; 32]>> {
    Ok(zeroize::Zeroizing::new(fixed_key::<32>(
        data.as_slice(),
        "SM9 master key",
    )?))
}

/// A frozen class `$py` (Python name `$name`) holding one `$key` as `k` (and the
/// `$field`s), with `methods`.
macro_rules! sm9_class {
    (
        $(#[$doc:meta])* $py:ident($name:literal, $key:ident $(, $field:ident: $ty:ty)*);
        $($methods:tt)*
    ) => {
        $(#[$doc])*
        #[pyclass(name = $name, module = "shangmi", frozen)]
        struct $py {
            k: $key,
            $($field: $ty,)*
        }

        #[pymethods]
        impl $py {
            $($methods)*
        }
    };
}

/// A master key class (signing or encryption): `generate()`, `from_bytes(32)`,
/// `to_bytes()`, `public_key()` (the class `$public`) and `extract(id)` (the class `$user`,
/// made by its `extracted`).
macro_rules! master_key {
    (
        $(#[$doc:meta])* $py:ident($name:literal, $key:ident) -> $public:ident;
        $(#[$extract_doc:meta])* extract -> $user:ident
    ) => {
        sm9_class! {
            $(#[$doc])*
            $py($name, $key);

            #[staticmethod]
            fn generate(py: Python<'_>) -> PyResult<Self> {
                let k = py
                    .detach(|| $key::random(&mut getrandom::SysRng))
                    .map_err(sm9_err)?;
                Ok($py { k })
            }

            #[staticmethod]
            fn from_bytes(py: Python<'_>, data: Buf<'_>) -> PyResult<Self> {
                let b = master_bytes(data)?;
                let k = py.detach(|| $key::from_bytes(&b)).map_err(sm9_err)?;
                Ok($py { k })
            }

            fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                bytes(py, &zeroize::Zeroizing::new(self.k.to_bytes())[..])
            }

            fn public_key(&self) -> $public {
                $public {
                    k: self.k.public_key().clone(),
                }
            }

            $(#[$extract_doc])*
            fn extract(&self, py: Python<'_>, id: Buf<'_>) -> PyResult<$user> {
                let (k, id) = (&self.k, id.as_slice());
                let k = py.detach(|| k.extract(id)).map_err(sm9_err)?;
                Ok($user::extracted(k, id))
            }
        }
    };
}

/// A master public key class (signing or encryption): `from_bytes`, `to_bytes`, and the
/// methods given (`verify` or `encrypt`).
macro_rules! master_public {
    ($(#[$doc:meta])* $py:ident($name:literal, $key:ident); $($methods:tt)*) => {
        sm9_class! {
            $(#[$doc])*
            $py($name, $key);

            #[staticmethod]
            fn from_bytes(py: Python<'_>, data: Buf<'_>) -> PyResult<Self> {
                let d = data.as_slice();
                let k = py.detach(|| $key::from_bytes(d)).map_err(sm9_err)?;
                Ok($py { k })
            }

            fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                bytes(py, &self.k.to_bytes())
            }

            $($methods)*
        }
    };
}

/// A user's key class (signing or decryption) `$py` (Python name `$name`) holding one `$key`
/// as `k` (and the `$field`s), with `from_bytes(data, master_public_key)` (the class
/// `$master`; the identity `$id` after it where the class keeps one, the key made by the
/// class's `extracted`), `to_bytes()` (the uncompressed encoding) and `methods`.
macro_rules! user_key_class {
    (@id) => { &[] };
    (@id $id:ident) => { $id.as_slice() };
    (
        $(#[$doc:meta])* $py:ident($name:literal, $key:ident $(, $field:ident: $ty:ty)*)
        under $master:ident $(, $id:ident)?;
        $($methods:tt)*
    ) => {
        sm9_class! {
            $(#[$doc])*
            $py($name, $key $(, $field: $ty)*);

            #[staticmethod]
            fn from_bytes(
                py: Python<'_>,
                data: Buf<'_>,
                master: &$master,
                $($id: Buf<'_>,)?
            ) -> PyResult<Self> {
                let (d, m) = (data.as_slice(), &master.k);
                let k = py.detach(|| $key::from_bytes(d, m)).map_err(sm9_err)?;
                Ok($py::extracted(k, user_key_class!(@id $($id)?)))
            }

            fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                bytes(py, &zeroize::Zeroizing::new(self.k.to_uncompressed())[..])
            }

            $($methods)*
        }
    };
}

master_key! {
    /// The signing master key of a key generation centre: `generate()`, `from_bytes(32)`,
    /// `to_bytes()`, `public_key()`, `extract(id)`.
    PySignMaster("SM9SignMasterKey", SignMasterKey) -> PySignMasterPublic;
    /// The signing key of the user `id` (hid 0x01).
    extract -> PySigningKey
}

master_public! {
    /// The signing master public key: `from_bytes` (128 or 129 bytes), `to_bytes`,
    /// `verify(id, data, signature)` (DER or 96-byte h‖S; raises `InvalidSignature`).
    PySignMasterPublic("SM9SignMasterPublicKey", SignMasterPublicKey);

    fn verify(
        &self,
        py: Python<'_>,
        id: Buf<'_>,
        data: Buf<'_>,
        signature: Buf<'_>,
    ) -> PyResult<()> {
        let (id, d, s) = (id.as_slice(), data.as_slice(), signature.as_slice());
        let sig = Signature::from_der(s)
            .or_else(|_| Signature::from_bytes(s))
            .map_err(|_| InvalidSignature::new_err("malformed SM9 signature"))?;
        let k = &self.k;
        py.detach(|| k.verify(id, 0x01, d, &sig)).map_err(sm9_err)
    }
}

user_key_class! {
    /// A user's SM9 signing key: `sign(data, der=True)`, `to_bytes()` (65 bytes),
    /// `from_bytes(data, master_public_key)`, `master_public_key()`.
    PySigningKey("SM9SigningKey", SigningKey) under PySignMasterPublic;

    fn master_public_key(&self) -> PySignMasterPublic {
        PySignMasterPublic {
            k: self.k.master_public_key().clone(),
        }
    }

    /// Signs `data`: DER (GM/T 0044's SEQUENCE { h, S }) or, with `der=False`, 96 bytes
    /// h‖S (S compressed as the crate writes it).
    #[pyo3(signature = (data, der=true))]
    fn sign<'py>(&self, py: Python<'py>, data: Buf<'py>, der: bool) -> PyOut<'py> {
        let (d, k) = (data.as_slice(), &self.k);
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

impl PySigningKey {
    /// The key `extract` made (a signing key does not keep its identity).
    fn extracted(k: SigningKey, _id: &[u8]) -> Self {
        PySigningKey { k }
    }
}

master_key! {
    /// The encryption master key of a key generation centre: `generate()`,
    /// `from_bytes(32)`, `to_bytes()`, `public_key()`, `extract(id)`.
    PyEncMaster("SM9EncryptMasterKey", EncryptMasterKey) -> PyEncMasterPublic;
    /// The decryption key of the user `id` (hid 0x03).
    extract -> PyEncKey
}

master_public! {
    /// The encryption master public key: `from_bytes` (64 or 65 bytes), `to_bytes`,
    /// `encrypt(id, data, der=False)` (C1‖C3‖C2, or GmSSL's DER).
    PyEncMasterPublic("SM9EncryptMasterPublicKey", EncryptMasterPublicKey);

    #[pyo3(signature = (id, data, der=false))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        id: Buf<'py>,
        data: Buf<'py>,
        der: bool,
    ) -> PyOut<'py> {
        let (id, d, k) = (id.as_slice(), data.as_slice(), &self.k);
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

user_key_class! {
    /// A user's SM9 decryption key (with the identity it was extracted for):
    /// `decrypt(ciphertext)` takes C1‖C3‖C2 or the DER form; raises `InvalidTag`.
    PyEncKey("SM9EncryptPrivateKey", EncryptPrivateKey, id: Vec<u8>)
        under PyEncMasterPublic, id;

    fn decrypt<'py>(&self, py: Python<'py>, data: Buf<'py>) -> PyOut<'py> {
        let (d, k, id) = (data.as_slice(), &self.k, &self.id[..]);
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

impl PyEncKey {
    /// The key `extract` (or `from_bytes`) made for `id`, which decryption needs.
    fn extracted(k: EncryptPrivateKey, id: &[u8]) -> Self {
        PyEncKey { k, id: id.to_vec() }
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_items!(m;
        classes: PySignMaster, PySignMasterPublic, PySigningKey,
            PyEncMaster, PyEncMasterPublic, PyEncKey;
    )
}
