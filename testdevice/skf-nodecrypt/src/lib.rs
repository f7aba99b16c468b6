//! The software SKF USB key of `shangmi-testdevice-skf` without `SKF_ECCDecrypt`, as many
//! real USB keys ship (GmSSL issue 366): `shangmi-skf`'s tests check that the missing
//! function is reported when a key is opened, before any use. A test fixture, never linked
//! into a library.

// The helpers that only `SKF_ECCDecrypt` (../skf/src/decrypt.rs) uses are unused here.
#![allow(dead_code)]

#[path = "../../common.rs"]
mod common;
#[path = "../../skf/src/device.rs"]
mod device;
#[path = "../../ecc.rs"]
mod ecc;
