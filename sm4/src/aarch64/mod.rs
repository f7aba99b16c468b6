//! aarch64 kernels: the SM4 instructions where the CPU has them (`sm4_ce`), otherwise the
//! AES instructions with NEON table lookups (`neon_aes`), which most arm64 cores have.

mod neon_aes;
mod sm4_ce;

pub(crate) use neon_aes::Aarch64NeonAes;
pub(crate) use sm4_ce::Aarch64Sm4;
