//! SM3 constants, facts from GB/T 32905-2016 section 4 (initial value IV and the round
//! constants T_j).

/// The initial chaining value IV (GB/T 32905-2016, 4.1).
pub(crate) const IV: [u32; 8] = [
    0x7380_166f,
    0x4914_b2b9,
    0x1724_42d7,
    0xda8a_0600,
    0xa96f_30bc,
    0x1631_38aa,
    0xe38d_ee4d,
    0xb0fb_0e4e,
];

/// T_j for rounds 0..=15 (GB/T 32905-2016, 4.2).
const T_LOW: u32 = 0x79cc_4519;
/// T_j for rounds 16..=63 (GB/T 32905-2016, 4.2).
const T_HIGH: u32 = 0x7a87_9d8a;

/// `T_j <<< (j mod 32)`, the constant each round adds inside SS1, precomputed.
pub(crate) const K: [u32; 64] = {
    let mut k = [0u32; 64];
    let mut j = 0;
    while j < 64 {
        let t = if j < 16 { T_LOW } else { T_HIGH };
        k[j] = t.rotate_left((j % 32) as u32);
        j += 1;
    }
    k
};
