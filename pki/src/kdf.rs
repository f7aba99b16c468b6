//! The key derivation function of GB/T 32918.4-2016 §5.4.3 with SM3: K = H(Z ‖ 1) ‖
//! H(Z ‖ 2) ‖ … truncated to the asked length, the counter a 32-bit big-endian integer.
//!
//! `shangmi-sm2` runs the same function inside its encryption and key exchange (not public
//! there); this is the public form for applications that derive keys the standard way.

use alloc::vec::Vec;
use digest::Digest;
use shangmi_sm3::Sm3;

/// Fills `out` with KDF(z, |out|). Lengths up to (2^32 - 1)·32 bytes.
pub fn sm3_kdf_into(z: &[u8], out: &mut [u8]) {
    for (i, chunk) in out.chunks_mut(32).enumerate() {
        let ct = (i as u32).wrapping_add(1);
        let mut h = Sm3::new();
        h.update(z);
        h.update(ct.to_be_bytes());
        let block = h.finalize();
        chunk.copy_from_slice(&block[..chunk.len()]);
    }
}

/// KDF(z, len) as a vector.
pub fn sm3_kdf(z: &[u8], len: usize) -> Vec<u8> {
    let mut out = alloc::vec![0u8; len];
    sm3_kdf_into(z, &mut out);
    out
}
