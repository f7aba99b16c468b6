//! Deterministic test bytes shared by the tests of several crates (`cli/tests/common`,
//! `tlcp/tests/oneport_soak.rs`; each links this file and includes it by `#[path]`).

/// `len` bytes from a xorshift32 generator seeded by `seed` (not random: failures
/// reproduce; the same seed gives the same bytes on every run).
pub fn bytes(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}
