//! The `fault-injection` feature: a way for a program's own tests to make a self-test fail
//! (`SHANGMI_SELFTEST_FAIL=sm4-gcm`, `sm2-keygen-pairwise`, `drbg-health`; comma-separated),
//! so that its refusal of service can be tested end to end. An item `NAME:PATH` makes the
//! test fail only while the file `PATH` exists, so a test can put a long-running program
//! (a server) in the error state mid-run: it creates the file between two connections.
//!
//! Why this cannot be reached in a product by accident: the feature is off by default and
//! enables nothing else; without it [`injected`] is a constant `false` and [`tamper`] a
//! zero-sized copy, so the hook is not in the binary at all. A program enables it only from
//! its test dependencies (`shangmi-cli` does, as a dev-dependency: cargo's feature
//! resolver applies dev-dependency features to test builds only, so `cargo build` and
//! `cargo install` of the program leave it out). Even when compiled in, it acts only when
//! the environment variable names a test, and [`FAULT_INJECTION`] lets the program say so.

use crate::kat::Tamper;

/// Whether this build carries the `fault-injection` hook (a program may warn when it does).
pub const FAULT_INJECTION: bool = cfg!(feature = "fault-injection");

/// Whether `SHANGMI_SELFTEST_FAIL` names the test `name`, as `NAME` or as `NAME:PATH` with
/// the file `PATH` present (always false without the feature).
#[cfg(feature = "fault-injection")]
pub(crate) fn injected(name: &str) -> bool {
    extern crate std;
    std::env::var("SHANGMI_SELFTEST_FAIL").is_ok_and(|v| {
        v.split(',').any(|item| match item.split_once(':') {
            None => item == name,
            Some((test, path)) => test == name && std::path::Path::new(path).exists(),
        })
    })
}

/// Whether `SHANGMI_SELFTEST_FAIL` names the test `name` (always false without the feature).
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn injected(_: &str) -> bool {
    false
}

/// The vectors of power-on test `i`: flipped in their first byte if the variable names the
/// test, as they are otherwise.
#[cfg(feature = "fault-injection")]
pub(crate) fn tamper(i: usize) -> Tamper {
    if injected(crate::kat::KATS[i].name) {
        Tamper {
            target: Some((0, 0)),
            seen: 0,
        }
    } else {
        Tamper::default()
    }
}

/// The vectors of power-on test `i`, as they are.
#[cfg(not(feature = "fault-injection"))]
pub(crate) fn tamper(_: usize) -> Tamper {
    Tamper::default()
}
