//! What every family shares: the exception types, the bytes-like argument reader, hex,
//! randomness, and the rule for releasing the GIL.

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView};
use zeroize::Zeroizing;

pub(crate) use crate::pki_text::hex;

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

/// What most functions and methods return: a new bytes object.
pub(crate) type PyOut<'py> = PyResult<Bound<'py, PyBytes>>;

/// Inputs at least this long are processed with the GIL released.
pub(crate) const GIL_THRESHOLD: usize = 16 * 1024;

/// A borrowed or copied view of any bytes-like argument.
pub(crate) enum Buf<'py> {
    Bytes(Bound<'py, PyBytes>),
    Owned(Zeroizing<Vec<u8>>),
}

impl Buf<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Buf::Bytes(b) => b.as_bytes(),
            Buf::Owned(v) => v,
        }
    }
}

/// A `Buf` argument of a Python function or method, read by [`buf`].
impl<'py> FromPyObject<'_, 'py> for Buf<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        buf(&obj)
    }
}

/// bytes (borrowed), bytearray or any other buffer-protocol object such as memoryview
/// (copied); everything else (str, int, list, dict, None, ...) is a `TypeError`.
pub(crate) fn buf<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Buf<'py>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Buf::Bytes(b.clone()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Buf::Owned(Zeroizing::new(b.to_vec())));
    }
    let not_bytes = |_| {
        PyTypeError::new_err(format!(
            "expected a bytes-like object (bytes, bytearray, memoryview), not {}",
            obj.get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string())
        ))
    };
    let view = PyMemoryView::from(obj).map_err(not_bytes)?;
    let bytes = obj.py().get_type::<PyBytes>().call1((view,))?;
    Ok(Buf::Bytes(bytes.cast_into::<PyBytes>()?))
}

/// Runs `f` with the GIL released when `len` is large.
pub(crate) fn maybe_detach<T: Send, F: FnOnce() -> T + Send>(
    py: Python<'_>,
    len: usize,
    f: F,
) -> T {
    if len >= GIL_THRESHOLD {
        py.detach(f)
    } else {
        f()
    }
}

pub(crate) fn fixed<const N: usize>(data: &[u8], what: &str) -> PyResult<[u8; N]> {
    data.try_into()
        .map_err(|_| PyValueError::new_err(format!("{what} must be {N} bytes, got {}", data.len())))
}

pub(crate) fn fixed_key<const N: usize>(data: &[u8], what: &str) -> PyResult<[u8; N]> {
    data.try_into()
        .map_err(|_| InvalidKey::new_err(format!("{what} must be {N} bytes, got {}", data.len())))
}

pub(crate) fn bytes<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, data)
}

pub(crate) fn random_bytes(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyBytes>> {
    let mut v = vec![0u8; n];
    getrandom::fill(&mut v).map_err(|e| ShangmiError::new_err(e.to_string()))?;
    Ok(bytes(py, &v))
}

pub(crate) fn hex_decode(s: &str) -> PyResult<Zeroizing<Vec<u8>>> {
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

/// Fills `out` from the operating system's generator.
pub(crate) fn rand_fill(rng: &mut getrandom::SysRng, out: &mut [u8]) -> PyResult<()> {
    use shangmi_sm2::elliptic_curve::rand_core::TryRng;
    rng.try_fill_bytes(out)
        .map_err(|e| ShangmiError::new_err(format!("random generator failed: {e}")))
}

/// The body of a family's `register`: adds its exception types, classes and functions (in
/// that order, each list optional) to module `m` under their Python names.
macro_rules! add_items {
    (
        $m:ident;
        $(exceptions: $($e:ident),+;)?
        $(classes: $($c:ty),+;)?
        $(functions: $($f:ident),+;)?
    ) => {{
        $($($m.add(stringify!($e), $m.py().get_type::<$e>())?;)+)?
        $($($m.add_class::<$c>()?;)+)?
        $($($m.add_function(pyo3::wrap_pyfunction!($f, $m)?)?;)+)?
        Ok(())
    }};
}
pub(crate) use add_items;

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_items!(m; exceptions: ShangmiError, InvalidTag, InvalidSignature, InvalidKey;)
}
