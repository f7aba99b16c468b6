//! SM3 plumbing: Z_A (GB/T 32918.2 §5.5) and the message representative e.

use crate::Error;
use crate::arith::point::{B, GX, GY};
use digest::Digest;

/// The SM3 hash (GB/T 32905).
pub type Sm3 = shangmi_sm3::Sm3;

/// The default distinguishing identifier ("1234567812345678", GM/T 0009 §10).
pub const DEFAULT_ID: &[u8] = b"1234567812345678";

/// The distinguishing identifier TLS 1.3 uses with SM2 (RFC 8998 §3.2.1).
pub const TLS13_ID: &[u8] = b"TLSv1.3+GM+Cipher+Suite";

/// The coefficient a = p - 3 (GB/T 32918.5), big-endian.
const A: [u8; 32] = [
    0xFF, 0xFF, 0xFF, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFC,
];

/// Z_A = SM3(ENTL_A ‖ ID_A ‖ a ‖ b ‖ x_G ‖ y_G ‖ x_A ‖ y_A), where ENTL_A is the bit length of
/// the identifier as two big-endian bytes (so the identifier is at most 8191 bytes).
pub fn compute_za(id: &[u8], x: &[u8; 32], y: &[u8; 32]) -> Result<[u8; 32], Error> {
    let bits = u16::try_from(id.len())
        .ok()
        .and_then(|l| l.checked_mul(8))
        .ok_or(Error::IdTooLong)?;
    let mut h = Sm3::new();
    h.update(bits.to_be_bytes());
    h.update(id);
    h.update(A);
    h.update(B);
    h.update(GX);
    h.update(GY);
    h.update(x);
    h.update(y);
    Ok(h.finalize().into())
}
