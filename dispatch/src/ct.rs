//! Constant-time helpers the crates share (one home, so every comparison of a tag, a MAC or
//! a Finished message is the same reviewed code).

/// Whether `a == b`, without an early exit: the time depends on the lengths only (unequal
/// lengths return at once; lengths are public in every caller: tag, MAC and verify_data
/// sizes). The accumulated difference passes an optimisation barrier, so the compiler
/// cannot turn the loop back into a comparison that stops at the first difference.
///
/// ```
/// assert!(shangmi_dispatch::ct::eq(b"tag", b"tag"));
/// assert!(!shangmi_dispatch::ct::eq(b"tag", b"tab"));
/// assert!(!shangmi_dispatch::ct::eq(b"tag", b"tags"));
/// ```
pub fn eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut d = 0u8;
    for (x, y) in a.iter().zip(b) {
        d |= x ^ y;
    }
    core::hint::black_box(d) == 0
}

#[cfg(test)]
mod tests {
    #[test]
    fn equal_unequal_and_lengths() {
        assert!(super::eq(&[], &[]));
        assert!(super::eq(&[1, 2, 3], &[1, 2, 3]));
        for i in 0..3 {
            let mut b = [1, 2, 3];
            b[i] ^= 0x80;
            assert!(!super::eq(&[1, 2, 3], &b), "{i}");
        }
        assert!(!super::eq(&[1, 2], &[1, 2, 3]));
    }
}
