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

/// A failed open leaves the ciphertext where it was: in the buffer after a flipped tag bit,
/// a flipped or a shortened AAD, or a flipped ciphertext bit (then the tampered
/// ciphertext), and in the output of separate buffers; for messages of each length in
/// `lens` sealed under NONCE and AAD.
pub fn wrong_tag_restores_ciphertext<A: AeadInOut>(aead: &A, lens: &[usize]) {
    let nonce = aead::Nonce::<A>::try_from(&NONCE[..]).unwrap();
    for &len in lens {
        let mut ct: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let tag = aead
            .encrypt_inout_detached(&nonce, &AAD, (&mut ct[..]).into())
            .unwrap();
        let mut bad_tag = tag.clone();
        bad_tag[0] ^= 1;
        let mut buf = ct.clone();
        let open = |buf: &mut [u8], aad: &[u8], tag: &aead::Tag<A>| {
            aead.decrypt_inout_detached(&nonce, aad, buf.into(), tag)
        };
        assert!(open(&mut buf, &AAD, &bad_tag).is_err());
        assert_eq!(
            buf, ct,
            "buffer must hold the ciphertext after a failure ({len})"
        );
        let mut bad_aad = AAD;
        bad_aad[0] ^= 0x80;
        assert!(open(&mut buf, &bad_aad, &tag).is_err());
        assert_eq!(buf, ct);
        assert!(open(&mut buf, &AAD[1..], &tag).is_err());
        assert_eq!(buf, ct);
        if len > 0 {
            buf[len / 2] ^= 4;
            let tampered = buf.clone();
            assert!(open(&mut buf, &AAD, &tag).is_err());
            assert_eq!(buf, tampered);
        }
        // Separate in and out buffers: the output holds the ciphertext after a failure.
        let mut out = vec![0u8; len];
        let inout = aead::inout::InOutBuf::new(&ct, &mut out).unwrap();
        assert!(
            aead.decrypt_inout_detached(&nonce, &AAD, inout, &bad_tag)
                .is_err()
        );
        assert_eq!(out, ct);
    }
}
