//! ZUC (`shangmi-zuc`): 128-EEA3 / 128-EIA3 with the 3GPP parameters, the ZUC-128 and
//! ZUC-256 keystreams, and the ZUC-256 MAC.

use crate::common::{Buf, PyOut, add_items, bytes, fixed, fixed_key, maybe_detach};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use shangmi_zuc::cipher::{KeyIvInit, StreamCipher};
use shangmi_zuc::digest::Update as _;
use shangmi_zuc::{Eia3, Zuc128, Zuc256, Zuc256Mac32, Zuc256Mac64, Zuc256Mac128};
use zeroize::Zeroizing;

fn zuc_err(e: shangmi_zuc::Error) -> PyErr {
    PyValueError::new_err(format!("ZUC: {e:?}"))
}

/// The bit length: `bit_len`, or all of `data`; `data` must be `bit_len` rounded up.
fn bits(data: &[u8], bit_len: Option<usize>) -> usize {
    bit_len.unwrap_or(data.len().saturating_mul(8))
}

/// 128-EEA3 and 128-EIA3 take the same arguments (the 16-byte `key`, COUNT, BEARER (5
/// bits), DIRECTION (0/1), `data` and `bit_len`, all of `data` by default): one signature
/// for both, each running `$run` on the key, the 3GPP parameters, the data and its bits.
macro_rules! zuc_3gpp {
    ($(
        $(#[$doc:meta])*
        $name:ident: |$k:ident, $count:ident, $bearer:ident, $dir:ident, $d:ident, $n:ident| $run:expr;
    )*) => {$(
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (key, count, bearer, direction, data, bit_len=None))]
        fn $name<'py>(
            py: Python<'py>,
            key: Buf<'py>,
            count: u32,
            bearer: u8,
            direction: u8,
            data: Buf<'py>,
            bit_len: Option<usize>,
        ) -> PyOut<'py> {
            let $k = Zeroizing::new(fixed_key::<16>(key.as_slice(), "ZUC key")?);
            let ($count, $bearer, $dir, $d) = (count, bearer, direction, data.as_slice());
            let $n = bits($d, bit_len);
            let out = maybe_detach(py, $d.len(), || $run).map_err(zuc_err)?;
            Ok(bytes(py, &out))
        }
    )*};
}

zuc_3gpp! {
    /// 128-EEA3 (3GPP confidentiality): encrypts or decrypts `data` of `bit_len` bits (all
    /// of it by default) under the 16-byte `key` with COUNT, BEARER (5 bits) and DIRECTION
    /// (0/1).
    zuc_eea3: |k, count, bearer, direction, d, n| {
        let mut out = Zeroizing::new(d.to_vec());
        shangmi_zuc::eea3(&k, count, bearer, direction, &mut out, n).map(|()| out)
    };
    /// 128-EIA3 (3GPP integrity): the 4-byte MAC of `data` (`bit_len` bits, all by
    /// default).
    zuc_eia3: |k, count, bearer, direction, d, n| {
        Eia3::with_params(&k, count, bearer, direction).and_then(|m| m.finalize_bits(d, n))
    };
}

enum Keystream {
    V128(Box<Zuc128>),
    V256(Box<Zuc256>),
}

/// A ZUC keystream: `ZUC(key, iv)` with a 16-byte key and 16-byte IV (ZUC-128) or a
/// 32-byte key and 25-byte IV (ZUC-256, the packed 184-bit form); `apply(data)` XORs the
/// next keystream bytes into a copy of `data` (encryption and decryption alike).
#[pyclass(name = "ZUC", module = "shangmi")]
struct PyZuc {
    ks: Keystream,
}

#[pymethods]
impl PyZuc {
    #[new]
    fn new(key: Buf<'_>, iv: Buf<'_>) -> PyResult<Self> {
        let ks = match (key.as_slice().len(), iv.as_slice().len()) {
            (16, 16) => {
                let k = Zeroizing::new(fixed_key::<16>(key.as_slice(), "ZUC-128 key")?);
                let iv = fixed::<16>(iv.as_slice(), "ZUC-128 IV")?;
                Keystream::V128(Box::new(Zuc128::new(&(*k).into(), &iv.into())))
            }
            (32, 25) => {
                let k = Zeroizing::new(fixed_key::<32>(key.as_slice(), "ZUC-256 key")?);
                let iv = fixed::<25>(iv.as_slice(), "ZUC-256 IV")?;
                Keystream::V256(Box::new(Zuc256::new(&(*k).into(), &iv.into())))
            }
            (kl, il) => {
                return Err(PyValueError::new_err(format!(
                    "ZUC takes a 16-byte key and 16-byte IV (ZUC-128) or a 32-byte key and \
                     25-byte IV (ZUC-256), got {kl} and {il}"
                )));
            }
        };
        Ok(PyZuc { ks })
    }

    fn apply<'py>(&mut self, py: Python<'py>, data: Buf<'py>) -> PyOut<'py> {
        let mut out = Zeroizing::new(data.as_slice().to_vec());
        let (o, ks) = (&mut *out, &mut self.ks);
        maybe_detach(py, o.len(), || match ks {
            Keystream::V128(c) => c.apply_keystream(o),
            Keystream::V256(c) => c.apply_keystream(o),
        });
        Ok(bytes(py, &out))
    }
}

/// The ZUC-256 MAC of `data` under a 32-byte key and 25-byte IV, a tag of 4, 8 or 16
/// bytes.
#[pyfunction]
#[pyo3(signature = (key, iv, data, tag_size=4))]
fn zuc256_mac<'py>(
    py: Python<'py>,
    key: Buf<'py>,
    iv: Buf<'py>,
    data: Buf<'py>,
    tag_size: usize,
) -> PyOut<'py> {
    let k = Zeroizing::new(fixed_key::<32>(key.as_slice(), "ZUC-256 key")?);
    let iv = fixed::<25>(iv.as_slice(), "ZUC-256 IV")?;
    let d = data.as_slice();
    macro_rules! mac {
        ($t:ty) => {{
            let mut m = <$t>::new(&(*k).into(), &iv.into());
            maybe_detach(py, d.len(), || {
                m.update(d);
                shangmi_zuc::digest::FixedOutput::finalize_fixed(m).to_vec()
            })
        }};
    }
    let tag = match tag_size {
        4 => mac!(Zuc256Mac32),
        8 => mac!(Zuc256Mac64),
        16 => mac!(Zuc256Mac128),
        _ => return Err(PyValueError::new_err("tag_size must be 4, 8 or 16")),
    };
    Ok(bytes(py, &tag))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_items!(m; classes: PyZuc; functions: zuc_eea3, zuc_eia3, zuc256_mac;)
}
