//! `shangmi._shangmi`: the native half of the `shangmi` wheel. Thin glue only: every
//! primitive comes from the shangmi crates (`-sm2`, `-sm3`, `-sm4`, `-sm4-modes`, `-sm9`,
//! `-zuc`, `-pki`, `-tlcp`); each module here converts buffers, names options and maps
//! errors to typed Python exceptions for one family. The Python half (`python/shangmi/`)
//! re-exports these names and adds the `gmssl` layer and the `requests` adapter.

mod common;
mod pki;
mod pki_text;
mod sm2;
mod sm3;
mod sm4;
mod sm9;
mod test_server;
mod tlcp;
mod zuc;

use pyo3::prelude::*;

#[pymodule]
fn _shangmi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    common::register(m)?;
    sm3::register(m)?;
    sm4::register(m)?;
    sm2::register(m)?;
    sm9::register(m)?;
    zuc::register(m)?;
    pki::register(m)?;
    tlcp::register(m)?;
    Ok(())
}
