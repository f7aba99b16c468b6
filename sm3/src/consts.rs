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

/// Data for the kernels' own tests against the portable compression.
#[cfg(all(
    test,
    any(
        target_arch = "x86_64",
        target_arch = "riscv32",
        target_arch = "riscv64"
    )
))]
pub(crate) mod test_data {
    /// GB/T 32905-2016 Appendix A.1: "abc" padded to one block, and the chaining value its
    /// compression from [`IV`](super::IV) gives (the message's digest), for the kernels'
    /// own tests.
    pub(crate) const ABC: ([u8; 64], [u32; 8]) = {
        let mut block = [0u8; 64];
        block[0] = b'a';
        block[1] = b'b';
        block[2] = b'c';
        block[3] = 0x80;
        block[63] = 24;
        let digest = [
            0x66c7_f0f4,
            0x62ee_edd9,
            0xd1f2_d46b,
            0xdc10_e4e2,
            0x4167_c487,
            0x5cf2_f7a2,
            0x297d_a02b,
            0x8f4b_a8e0,
        ];
        (block, digest)
    };

    /// `N` blocks of a fixed pseudo-random pattern (a 32-bit LCG's top bytes, Numerical
    /// Recipes' constants), for the kernels' own tests against the portable compression.
    pub(crate) fn test_blocks<const N: usize>() -> [[u8; 64]; N] {
        let mut x = 1u32;
        core::array::from_fn(|_| {
            core::array::from_fn(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
        })
    }
}

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
