//! The inputs RFC 8998's SM4-GCM (Appendix A.1) and SM4-CCM (Appendix A.2) vectors share;
//! each test file holds its own ciphertext and tag.

use aead::AeadInOut;
use hex_literal::hex;

pub const KEY: [u8; 16] = hex!("0123456789ABCDEFFEDCBA9876543210");
pub const NONCE: [u8; 12] = hex!("00001234567800000000ABCD");
pub const AAD: [u8; 20] = hex!("FEEDFACEDEADBEEFFEEDFACEDEADBEEFABADDAD2");
pub const PT: [u8; 64] = hex!(
    "AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBCCCCCCCCCCCCCCCCDDDDDDDDDDDDDDDD"
    "EEEEEEEEEEEEEEEEFFFFFFFFFFFFFFFFEEEEEEEEEEEEEEEEAAAAAAAAAAAAAAAA"
);

/// The vector on `aead` (an engine named `name`): PT seals in place to `ct` and `tag` under
/// KEY's NONCE and AAD (the caller made `aead` from KEY), and opens back to PT.
pub fn check_vector<A: AeadInOut>(name: &str, aead: &A, ct: &[u8; 64], tag: &[u8; 16]) {
    let nonce = aead::Nonce::<A>::try_from(&NONCE[..]).unwrap();
    let mut buf = PT;
    let got = aead
        .encrypt_inout_detached(&nonce, &AAD, (&mut buf[..]).into())
        .unwrap();
    assert_eq!(buf, *ct, "{name}");
    assert_eq!(got[..], tag[..], "{name}");
    aead.decrypt_inout_detached(&nonce, &AAD, (&mut buf[..]).into(), &got)
        .unwrap();
    assert_eq!(buf, PT, "{name}");
}
