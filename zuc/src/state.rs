//! Key loading and the backend calls of the ZUC state machine shared by ZUC-128 and
//! ZUC-256 (3GPP "Document 2: ZUC Specification" v1.6, section 3). The two ciphers differ
//! only in how the key and IV are loaded ([`State::new_128`], [`State::new_256`]); the
//! rounds (LFSR, bit reorganisation, F) are `generic`'s, which the methods here run on the
//! generator's backend through `engine::run`.

use shangmi_dispatch::Available;

use crate::{
    Backend,
    engine::{Fill, Initialise, NextWord, run},
    generic::State,
};

/// The ZUC-128 key-loading constants d_i (15 bits each), section 3.5.1.
pub(crate) const D128: [u32; 16] = [
    0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af, 0x4d78, 0x2f13, 0x6bc4, 0x1af1,
    0x5e26, 0x3c4d, 0x789a, 0x47ac,
];

/// The ZUC-256 key-loading constants d_i (7 bits each) of "The ZUC-256 Stream Cipher"
/// (2018), section 2.2 for the keystream and section 3 for the MAC, one row per use.
pub(crate) const D256: [[u8; 16]; 4] = [
    // keystream
    [
        0x22, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
    // 32-bit MAC
    [
        0x22, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
    // 64-bit MAC
    [
        0x23, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
    // 128-bit MAC
    [
        0x23, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10,
        0x30,
    ],
];

impl State {
    /// ZUC-128 key loading (section 3.5.1: s_i = k_i || d_i || iv_i) and initialisation.
    pub(crate) fn new_128(key: &[u8; 16], iv: &[u8; 16], backend: Available<Backend>) -> Self {
        let mut s = [0u32; 16];
        for (i, cell) in s.iter_mut().enumerate() {
            *cell = (u32::from(key[i]) << 23) | (D128[i] << 8) | u32::from(iv[i]);
        }
        Self::initialise(s, backend)
    }

    /// ZUC-256 key loading ("The ZUC-256 Stream Cipher", section 2.2) and initialisation.
    /// `iv` is the 25-byte form IV0..IV24 where IV17..IV24 are 6-bit values in the low bits
    /// of their bytes (the two high bits are ignored); `d` is one row of [`D256`].
    pub(crate) fn new_256(
        key: &[u8; 32],
        iv: &[u8; 25],
        d: &[u8; 16],
        backend: Available<Backend>,
    ) -> Self {
        let k = |i: usize| u32::from(key[i]);
        let v = |i: usize| u32::from(iv[i]);
        let v6 = |i: usize| u32::from(iv[i] & 0x3f);
        let d = |i: usize| u32::from(d[i]);
        let cell = |a: u32, b: u32, c: u32, e: u32| (a << 23) | (b << 16) | (c << 8) | e;
        let s = [
            cell(k(0), d(0), k(21), k(16)),
            cell(k(1), d(1), k(22), k(17)),
            cell(k(2), d(2), k(23), k(18)),
            cell(k(3), d(3), k(24), k(19)),
            cell(k(4), d(4), k(25), k(20)),
            cell(v(0), d(5) | v6(17), k(5), k(26)),
            cell(v(1), d(6) | v6(18), k(6), k(27)),
            cell(v(10), d(7) | v6(19), k(7), v(2)),
            cell(k(8), d(8) | v6(20), v(3), v(11)),
            cell(k(9), d(9) | v6(21), v(12), v(4)),
            cell(v(5), d(10) | v6(22), k(10), k(28)),
            cell(k(11), d(11) | v6(23), v(6), v(13)),
            cell(k(12), d(12) | v6(24), v(7), v(14)),
            cell(k(13), d(13), v(15), v(8)),
            cell(k(14), d(14) | (k(31) >> 4), v(16), v(9)),
            cell(k(15), d(15) | (k(31) & 0x0f), k(30), k(29)),
        ];
        Self::initialise(s, backend)
    }

    /// 32 rounds in initialisation mode, then one working round whose output is discarded.
    fn initialise(s: [u32; 16], backend: Available<Backend>) -> Self {
        let mut state = Self::loaded(s, backend);
        run(backend, Initialise(&mut state));
        state
    }

    /// The next 32-bit key word.
    #[inline]
    pub(crate) fn next_word(&mut self) -> u32 {
        run(self.backend(), NextWord(self))
    }

    /// Fills `out` with key words, big-endian.
    #[inline]
    pub(crate) fn fill(&mut self, out: &mut [[u8; 4]]) {
        run(self.backend(), Fill(self, out))
    }
}
