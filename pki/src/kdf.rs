//! The key derivation function of GB/T 32918.4-2016 §5.4.3 with SM3: K = H(Z ‖ 1) ‖
//! H(Z ‖ 2) ‖ … truncated to the asked length, the counter a 32-bit big-endian integer.
//!
//! The function is `shangmi_sm3::kdf` (which SM2 and SM9 use too); these are its
//! single-part forms for applications that derive keys the standard way.

use alloc::vec::Vec;

/// Fills `out` with KDF(z, |out|). Lengths up to (2^32 - 1)·32 bytes.
pub fn sm3_kdf_into(z: &[u8], out: &mut [u8]) {
    shangmi_sm3::kdf::kdf(&[z], out);
}

/// KDF(z, len) as a vector.
pub fn sm3_kdf(z: &[u8], len: usize) -> Vec<u8> {
    let mut out = alloc::vec![0u8; len];
    sm3_kdf_into(z, &mut out);
    out
}
