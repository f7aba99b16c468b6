//! The hash functions H1/H2 and the key derivation function of GM/T 0044-2016 part 2,
//! 5.3.2 / 5.4.2 (SM3 based).

use crate::field::Fn;
use shangmi_sm3::{Digest, Sm3};

/// H_v(Z, N) for prefix 0x01 (H1) or 0x02 (H2), Z given in parts: Ha = the first
/// hlen = 320 bits of SM3(prefix || Z || 1) || SM3(prefix || Z || 2), h = (Ha mod (N-1)) + 1.
pub(crate) fn h_n(prefix: u8, z: &[&[u8]]) -> Fn {
    let mut ha = [0u8; 64];
    for (ct, chunk) in (1u32..).zip(ha.chunks_exact_mut(32)) {
        let mut h = Sm3::new();
        h.update([prefix]);
        for part in z {
            h.update(part);
        }
        h.update(ct.to_be_bytes());
        chunk.copy_from_slice(&h.finalize());
    }
    Fn::from_hash_bytes(&ha[..40])
}

/// H1(ID || hid, N).
pub(crate) fn h1(id: &[u8], hid: u8) -> Fn {
    h_n(0x01, &[id, &[hid]])
}

/// KDF(Z, klen) (GM/T 0044-2016 part 4, 5.4.3: SM3(Z || ct) for ct = 1, 2, …, the SM2
/// KDF), with Z given in parts, written into `out`.
pub(crate) use shangmi_sm3::kdf::kdf;

/// SM3 over the concatenation of parts.
pub(crate) fn sm3(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sm3::new();
    for part in parts {
        h.update(part);
    }
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// H1("Alice" || 0x01): GM/T 0044-2016 part 5, A.2 (as reproduced in gmsm v0.44
    /// internal/sm9/sm9_test.go TestHashH1).
    #[test]
    fn h1_alice() {
        let h = h1(b"Alice", 0x01);
        assert_eq!(
            hex::encode(h.to_bytes()),
            "2acc468c3926b0bdb2767e99ff26e084de9ced8dbc7d5fbf418027b667862fab"
        );
    }
}
