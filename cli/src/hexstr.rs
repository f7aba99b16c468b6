//! Hexadecimal text of keys, IVs and digests.

/// Lower-case hexadecimal of `bytes`.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

/// The bytes of hexadecimal `text` (either case, even length); `None` otherwise.
pub fn decode(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.chunks_exact(2)
        .map(|pair| {
            let hi = char::from(pair[0]).to_digit(16)?;
            let lo = char::from(pair[1]).to_digit(16)?;
            u8::try_from(hi << 4 | lo).ok()
        })
        .collect()
}

/// Exactly `N` bytes of hexadecimal `text`.
pub fn decode_array<const N: usize>(text: &[u8]) -> Option<[u8; N]> {
    decode(text)?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(encode(&bytes).as_bytes()), Some(bytes));
        assert_eq!(decode(b"0A0b"), Some(vec![10, 11]));
        assert_eq!(decode(b"abc"), None, "odd length");
        assert_eq!(decode(b"zz"), None, "not hex");
        assert_eq!(decode(b"+1"), None, "sign");
        assert_eq!(decode_array::<2>(b"001122"), None, "wrong length");
    }
}
