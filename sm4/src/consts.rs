//! Constants of GB/T 32907-2016 §7.3 (key expansion).
//!
//! The S-box table itself is deliberately absent from the library: no engine may index
//! a table with secret data. Each engine computes the S-box from its algebraic form
//! (see `soft::sbox` and `x86::sbox`); the tests compare them with the published table.

/// System parameter FK (GB/T 32907-2016 §7.3.1).
pub(crate) const FK: [u32; 4] = [0xa3b1_bac6, 0x56aa_3350, 0x677d_9197, 0xb270_22dc];

/// Fixed parameters CK: byte j of CK_i is (4i + j) * 7 mod 256 (GB/T 32907-2016 §7.3.1).
pub(crate) const CK: [u32; 32] = {
    let mut ck = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        let mut w = 0u32;
        let mut j = 0;
        while j < 4 {
            w = (w << 8) | (((4 * i + j) * 7) % 256) as u32;
            j += 1;
        }
        ck[i] = w;
        i += 1;
    }
    ck
};
