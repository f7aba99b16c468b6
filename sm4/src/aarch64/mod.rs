//! aarch64 engines: the SM4 instructions where the CPU has them (`sm4_ce`), otherwise the
//! AES instructions with NEON table lookups (`neon_aes`), which most arm64 cores have.

pub(crate) mod neon_aes;
pub(crate) mod sm4_ce;
