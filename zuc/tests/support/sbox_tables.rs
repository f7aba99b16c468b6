//! S0 and S1 of the ZUC specification (3GPP "Document 2: ZUC Specification" v1.6, section
//! 3.4.2), read at compile time from `zuc_sbox.hex` (S0's 256 bytes, then S1's, in hex):
//! one copy for the circuits' unit test (`src/sbox.rs`) and the table-based negative
//! control of `constant_time.rs` (`table_zuc.rs`).

/// The two tables' 512 bytes, in hex, white space between them.
const HEX: &str = include_str!("zuc_sbox.hex");

/// S0.
pub const S0_TABLE: [u8; 256] = table(0);

/// S1.
pub const S1_TABLE: [u8; 256] = table(256);

/// The 256 bytes from byte `first` of [`HEX`]; a file that is not exactly 512 hex bytes
/// fails the build.
const fn table(first: usize) -> [u8; 256] {
    let s = HEX.as_bytes();
    let mut out = [0u8; 256];
    let (mut i, mut n) = (0, 0);
    let mut high: Option<u8> = None;
    while i < s.len() {
        let digit = match s[i] {
            b'0'..=b'9' => Some(s[i] - b'0'),
            b'a'..=b'f' => Some(s[i] - b'a' + 10),
            b' ' | b'\n' => None,
            _ => panic!("zuc_sbox.hex: not a hex digit"),
        };
        if let Some(d) = digit {
            match high {
                None => high = Some(d),
                Some(h) => {
                    if n >= first && n < first + 256 {
                        out[n - first] = (h << 4) | d;
                    }
                    n += 1;
                    high = None;
                }
            }
        }
        i += 1;
    }
    assert!(n == 512 && high.is_none(), "zuc_sbox.hex: not 512 bytes");
    out
}
