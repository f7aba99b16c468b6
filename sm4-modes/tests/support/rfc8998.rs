//! The inputs RFC 8998's SM4-GCM (Appendix A.1) and SM4-CCM (Appendix A.2) vectors share;
//! each test file holds its own ciphertext and tag.

use hex_literal::hex;

pub const KEY: [u8; 16] = hex!("0123456789ABCDEFFEDCBA9876543210");
pub const NONCE: [u8; 12] = hex!("00001234567800000000ABCD");
pub const AAD: [u8; 20] = hex!("FEEDFACEDEADBEEFFEEDFACEDEADBEEFABADDAD2");
pub const PT: [u8; 64] = hex!(
    "AAAAAAAAAAAAAAAABBBBBBBBBBBBBBBBCCCCCCCCCCCCCCCCDDDDDDDDDDDDDDDD"
    "EEEEEEEEEEEEEEEEFFFFFFFFFFFFFFFFEEEEEEEEEEEEEEEEAAAAAAAAAAAAAAAA"
);
