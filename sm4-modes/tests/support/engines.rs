//! The SM4 engines (and SM4 × GHASH engine pairs) this machine runs, and the block/byte
//! conversions, shared by the mode tests (each includes this file by `#[path]`).

#![allow(dead_code)] // each test file uses part of it

use cipher::Block;
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::GhashBackend;

/// SM4 under `key` on every engine this CPU runs, with the engine's name (the portable
/// `soft` engine always among them).
pub fn ciphers(key: &[u8; 16]) -> Vec<(&'static str, Sm4)> {
    let all: Vec<_> = Backend::available()
        .map(|b| (b.name(), Sm4::with_backend(&(*key).into(), b).unwrap()))
        .collect();
    assert!(all.iter().any(|(n, _)| *n == "soft"), "soft engine missing");
    all
}

/// `make` over every (SM4 engine, GHASH engine) pair this CPU runs, named "sm4+ghash".
pub fn with_every_ghash<T>(
    key: &[u8; 16],
    make: impl Fn(Sm4, GhashBackend) -> T,
) -> Vec<(String, T)> {
    let mut v = Vec::new();
    for (name, c) in ciphers(key) {
        for g in GhashBackend::available() {
            v.push((format!("{name}+{}", g.name()), make(c.clone(), g)));
        }
    }
    v
}

/// `data` (whole blocks) as SM4 blocks.
pub fn to_blocks(data: &[u8]) -> Vec<Block<Sm4>> {
    data.chunks_exact(16)
        .map(|c| Block::<Sm4>::try_from(c).unwrap())
        .collect()
}

/// SM4 blocks back to bytes.
pub fn flat(b: &[Block<Sm4>]) -> Vec<u8> {
    b.iter().flat_map(|b| b.iter().copied()).collect()
}
