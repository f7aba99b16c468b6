//! NIST SP 800-38A's example key, IV and plaintext (Appendix F), which GB/T 17964-2021's
//! examples and OpenSSL's SM4-XTS vectors reuse with SM4, shared by the mode tests (each
//! includes this file by `#[path]`).

#![allow(dead_code)] // each test file uses part of it

use hex_literal::hex;

/// The AES-128 example key.
pub const KEY: [u8; 16] = hex!("2B7E151628AED2A6ABF7158809CF4F3C");
/// The CBC/CFB/OFB examples' IV.
pub const IV: [u8; 16] = hex!("000102030405060708090A0B0C0D0E0F");
/// The four example plaintext blocks.
pub const PT: [u8; 64] = hex!(
    "6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E51"
    "30C81C46A35CE411E5FBC1191A0A52EFF69F2445DF4F9B17AD2B417BE66C3710"
);

/// The first `N` bytes of [`PT`].
pub const fn pt_prefix<const N: usize>() -> [u8; N] {
    let mut out = [0; N];
    let mut i = 0;
    while i < N {
        out[i] = PT[i];
        i += 1;
    }
    out
}

/// [`KEY`] then [`IV`]: the 32-byte XTS key of OpenSSL's SM4-XTS vectors.
pub const fn key_then_iv() -> [u8; 32] {
    let mut out = [0; 32];
    let mut i = 0;
    while i < 16 {
        out[i] = KEY[i];
        out[16 + i] = IV[i];
        i += 1;
    }
    out
}
