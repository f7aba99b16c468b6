//! x86-64 engines: AES-NI and GFNI S-boxes on 128-, 256- and 512-bit registers, driven by
//! the generic rounds of `crate::simd`.

pub(crate) mod aesni_avx2;
pub(crate) mod gfni_avx2;
pub(crate) mod gfni_avx512;
pub(crate) mod gfni_chain;
mod sbox;
mod words;
