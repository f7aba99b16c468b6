//! What the test files share: where the test token's module is, its PIN, URIs.

#![allow(clippy::unwrap_used, dead_code)] // test helpers outside #[test] functions

pub mod device_keys;
mod testdevice;

use shangmi_pkcs11::{KeyObject, ObjectQuery, Pin, Pkcs11Module};
use std::path::PathBuf;

/// The test token's user PIN (its default; see testdevice/pkcs11/src/lib.rs).
pub const PIN: &str = "12345678";

/// The test token's module (`testsupport/testdevice.rs` finds it next to the test binary).
pub fn module() -> PathBuf {
    testdevice::library("shangmi_testdevice_pkcs11")
}

/// A URI for `object` on token `token` of the test module, the PIN inline.
pub fn uri(token: &str, object: &str) -> String {
    format!(
        "pkcs11:token={token};object={object};type=private?module-path={}&pin-value={PIN}",
        module().display()
    )
}

/// The objects labelled `l`.
pub fn label(l: &str) -> ObjectQuery {
    ObjectQuery {
        label: Some(l.into()),
        ..ObjectQuery::default()
    }
}

/// The object `query` names in the token in `slot_id` of `m`, opened with `pin`.
pub fn object<'a>(
    m: &'a Pkcs11Module,
    slot_id: u64,
    query: &'a ObjectQuery,
    pin: &str,
) -> KeyObject<'a> {
    KeyObject {
        module: m,
        slot_id,
        query,
        pin: Pin::new(pin),
    }
}
