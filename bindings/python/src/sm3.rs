//! SM3: the hashlib-style hash object, HMAC-SM3, HKDF-SM3 and the SM2 KDF.

use crate::common::{Buf, InvalidKey, PyOut, add_items, bytes, hex, maybe_detach};
use hmac::{KeyInit as _, Mac as _};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi_sm3::{Digest, Sm3};
use zeroize::Zeroizing;

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
    fn new(py: Python<'_>, data: Option<Buf<'_>>, usedforsecurity: bool) -> PyResult<Self> {
        let _ = usedforsecurity;
        let mut s = PySm3 { h: Sm3::new() };
        if let Some(d) = data {
            s.update(py, d);
        }
        Ok(s)
    }

    fn update(&mut self, py: Python<'_>, data: Buf<'_>) {
        let (s, h) = (data.as_slice(), &mut self.h);
        maybe_detach(py, s.len(), || Digest::update(h, s));
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

/// HMAC-SM3 of `msg` under `key` (one call).
#[pyfunction]
fn hmac_sm3<'py>(py: Python<'py>, key: Buf<'py>, msg: Buf<'py>) -> PyOut<'py> {
    let (k, m) = (key.as_slice(), msg.as_slice());
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
    ikm: Buf<'py>,
    length: usize,
    salt: Option<Buf<'py>>,
    info: Option<Buf<'py>>,
) -> PyOut<'py> {
    if length > 255 * 32 {
        return Err(PyValueError::new_err(
            "HKDF-SM3 length must be at most 255 * 32 bytes",
        ));
    }
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
fn sm3_kdf<'py>(py: Python<'py>, z: Buf<'py>, length: usize) -> PyOut<'py> {
    let z = z.as_slice();
    // Straight into the new bytes object: a length too large for memory is Python's
    // MemoryError, not an aborted allocation.
    PyBytes::new_with(py, length, |out| {
        maybe_detach(py, length, || shangmi_sm3::kdf::kdf(&[z], out));
        Ok(())
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_items!(m; classes: PySm3; functions: hmac_sm3, hkdf_sm3, sm3_kdf;)
}
