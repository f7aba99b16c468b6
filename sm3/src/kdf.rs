//! The SM3 key derivation function: K = SM3(Z ‖ 1) ‖ SM3(Z ‖ 2) ‖ … truncated to the asked
//! length, the counter a 32-bit big-endian integer starting at 1 (GB/T 32918.4-2016 §5.4.3;
//! the same function serves SM2 key exchange, GB/T 32918.3 §5.4.3, SM9, GM/T 0044-2016 part
//! 4 §5.4.3, and the GB/T 35276 key envelope). Z is given in parts, so callers need not
//! concatenate secrets into a buffer first.
//!
//! ```
//! let mut k = [0u8; 16];
//! shangmi_sm3::kdf::kdf(&[b"shared x", b"shared y"], &mut k);
//! assert_ne!(k, [0; 16]);
//! ```

use crate::Sm3;
use digest::Digest;

/// Calls `f` with each 32-byte block SM3(Z ‖ ct) and the part of `out` it covers.
fn blocks(z: &[&[u8]], out: &mut [u8], mut f: impl FnMut(&mut [u8], &[u8; 32])) {
    for (ct, chunk) in (1u32..).zip(out.chunks_mut(32)) {
        let mut h = Sm3::new();
        for part in z {
            h.update(part);
        }
        h.update(ct.to_be_bytes());
        let mut block: [u8; 32] = h.finalize().into();
        f(chunk, &block);
        wipe(&mut block);
    }
}

/// Overwrites a key-stream block (through `zeroize` when the feature is on).
fn wipe(block: &mut [u8; 32]) {
    #[cfg(feature = "zeroize")]
    digest::zeroize::Zeroize::zeroize(block);
    #[cfg(not(feature = "zeroize"))]
    {
        *block = [0; 32];
        core::hint::black_box(block);
    }
}

/// Writes KDF(Z, |out|) into `out`, Z being the concatenation of `z`'s parts. Lengths up to
/// (2^32 − 1)·32 bytes, the standard's bound.
pub fn kdf(z: &[&[u8]], out: &mut [u8]) {
    blocks(z, out, |chunk, block| {
        chunk.copy_from_slice(&block[..chunk.len()]);
    });
}

/// XORs KDF(Z, |data|) into `data` (SM2 and SM9 encryption's C2 = M ⊕ t) and tells whether
/// any key-stream byte was nonzero, in constant time: the standards reject an all-zero t
/// (GB/T 32918.4 §6.1 A5, §7.1 B4). An empty `data` reports false.
pub fn kdf_xor(z: &[&[u8]], data: &mut [u8]) -> bool {
    let mut any = 0u8;
    blocks(z, data, |chunk, block| {
        for (d, k) in chunk.iter_mut().zip(block) {
            *d ^= k;
            any |= k;
        }
    });
    core::hint::black_box(any) != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    /// emmansun/gmsm @ d2057224, sm3/sm3_test.go TestKdf (via ../shared/vectors/gmsm/sm3.json):
    /// z = "emmansun", 48 bytes (the 16- and 32-byte outputs are its prefixes); and a
    /// 64-byte z (an SM2 x2 ‖ y2) to 19 bytes, here given as two parts.
    #[test]
    fn gmsm_vectors() {
        let k48 = hex!(
            "708993ef1388a0ae4245a19bb6c02554c632633e356ddb989beb804fda96cfd4"
            "7eba4fa460e7b277bc6b4ce4d07ed493"
        );
        for n in [16, 32, 48] {
            let mut k = [0u8; 48];
            kdf(&[b"emmansun"], &mut k[..n]);
            assert_eq!(k[..n], k48[..n]);
        }
        let x2 = hex!("64d20d27d0632957f8028c1e024f6b02edf23102a566c932ae8bd613a8e865fe");
        let y2 = hex!("58d225eca784ae300a81a2d48281a828e1cedf11c4219099840265375077bf78");
        let t = hex!("006e30dae231b071dfad8aa379e90264491603");
        let mut k = [0u8; 19];
        kdf(&[&x2, &y2], &mut k);
        assert_eq!(k, t);
        // XORed into a message: C2 = M ⊕ t, and the nonzero key stream is reported.
        let mut c2 = *b"encryption standard";
        assert!(kdf_xor(&[&x2[..16], &x2[16..], &y2], &mut c2));
        let mut want = *b"encryption standard";
        want.iter_mut().zip(t).for_each(|(m, t)| *m ^= t);
        assert_eq!(c2, want);
        assert!(!kdf_xor(&[&x2], &mut []));
    }
}
