//! The HMAC-SM3 PRF against independent outputs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use shangmi_tlcp::prf::prf;

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.replace(':', "")).unwrap()
}

/// Values from OpenSSL 3.0.19's TLS1-PRF with SM3 (the TLS 1.2 P_hash construction,
/// RFC 5246 §5), computed on the development host with:
/// `openssl kdf -keylen N -kdfopt digest:SM3 -kdfopt hexsecret:0102..10
///  -kdfopt seed:"<label>" -kdfopt hexseed:0011..ff TLS1-PRF` (the seeds concatenate).
#[test]
fn prf_matches_openssl_tls1_prf_sm3() {
    let secret = unhex("0102030405060708090a0b0c0d0e0f10");
    let seed = unhex("00112233445566778899aabbccddeeff");
    // (label, OpenSSL's output); each output as long as its hex.
    let outputs = [
        (
            &b"master secret"[..],
            "1C6CA52DE0BEDBD505A3AF9CFE2A78FACF39EDAA8AF08DF37C78A47ABCC4B018193F53EB63EB7AA36B4B43D9F419F9D8",
        ),
        (
            b"key expansion",
            "027E7E662BBA6C38E74E54F12D2DBEF8CDBD82E43EC564A13C17D7D30F94CA880C63CCEC122921B8DF311D7325D95B8D86FDC58812CA27C34FFDF60F03FAEB158D621DF7BAB035C3550E1335F5EC7393619999B55D282F16AEB757B881F72CD75DDEB083",
        ),
    ]
    .map(|(label, expected)| {
        let expected = unhex(expected);
        let mut out = vec![0u8; expected.len()];
        prf(&secret, label, &seed, &mut out);
        assert_eq!(out, expected, "{}", String::from_utf8_lossy(label));
        out
    });
    assert_eq!((outputs[0].len(), outputs[1].len()), (48, 100));
    let kb = &outputs[1];
    // A prefix of a longer output is the shorter output (P_hash is a stream).
    let mut short = [0u8; 12];
    prf(&secret, b"key expansion", &seed, &mut short);
    assert_eq!(&short[..], &kb[..12]);
}

/// HMAC-SM3, the PRF's building block, against GM/T 0042-2015 Appendix D.3 (as transcribed
/// in OpenSSL's test/recipes/30-test_evp_data/evpmac_sm3.txt): P_hash with an output of
/// one block is HMAC(secret, HMAC(secret, seed) ‖ seed), checked here by building it from
/// the published HMAC vector's key.
#[test]
fn hmac_sm3_gmt_0042_vector() {
    use hmac::{KeyInit, Mac};
    let key = unhex("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
    let msg = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopqabcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    let mut m = <hmac::Hmac<shangmi_sm3::Sm3> as KeyInit>::new_from_slice(&key).unwrap();
    m.update(msg);
    assert_eq!(
        m.finalize().into_bytes().to_vec(),
        unhex("ca05e144ed05d1857840d1f318a4a8669e559fc8391f414485bfdf7bb408963a")
    );
    // PRF with empty label, first 32 bytes = HMAC(k, HMAC(k, seed) ‖ seed).
    let mut a1 = <hmac::Hmac<shangmi_sm3::Sm3> as KeyInit>::new_from_slice(&key).unwrap();
    a1.update(msg);
    let a1 = a1.finalize().into_bytes();
    let mut p1 = <hmac::Hmac<shangmi_sm3::Sm3> as KeyInit>::new_from_slice(&key).unwrap();
    p1.update(&a1);
    p1.update(msg);
    let mut out = [0u8; 32];
    prf(&key, b"", msg, &mut out);
    assert_eq!(out.to_vec(), p1.finalize().into_bytes().to_vec());
}
