//! The worked examples of GM/T 0044-2016 part 5 (GB/T 38635), as reproduced in gmsm
//! v0.44's `internal/sm9/sm9_test.go` (TestSignSM9Sample, TestWrapKeySM9Sample,
//! TestEncryptSM9Sample, TestKeyExchangeSample) and `internal/sm9/kat.go`.
#![allow(clippy::unwrap_used)]

use crate::*;

fn b32(h: &str) -> [u8; 32] {
    let v = hex::decode(h).unwrap();
    let mut out = [0u8; 32];
    out[32 - v.len()..].copy_from_slice(&v);
    out
}

/// Part 5, A (signature): ks, ID "Alice", M "Chinese IBS standard", r; h and S.
#[test]
fn standard_signature_example() {
    let kgc = SignMasterKey::from_bytes(&b32(
        "0130E78459D78545CB54C587E02CF480CE0B66340F319F348A1D5B1F2DC5F4",
    ))
    .unwrap();
    let alice = kgc.extract(b"Alice").unwrap();
    let msg = b"Chinese IBS standard";
    let r = b32("033C8616B06704813203DFD00965022ED15975C662337AED648835DC4B1CBE");
    let sig = alice.sign_with_fixed_r(msg, &r).unwrap();
    assert_eq!(
        hex::encode(sig.h()),
        "823c4b21e4bd2dfe1ed92c606653e996668563152fc33f55d7bfbb9bd9705adb"
    );
    assert_eq!(
        hex::encode(sig.s_uncompressed()),
        "0473bf96923ce58b6ad0e13e9643a406d8eb98417c50ef1b29cef9adb48b6d598c856712f1c2e0968ab7769f42a99586aed139d5b8b3e15891827cc2aced9baa05"
    );
    kgc.public_key()
        .verify(b"Alice", hid::SIGN, msg, &sig)
        .unwrap();
    assert!(
        kgc.public_key()
            .verify(b"Alicf", hid::SIGN, msg, &sig)
            .is_err()
    );
    assert!(
        kgc.public_key()
            .verify(b"Alice", hid::SIGN, b"Chinese IBS standarD", &sig)
            .is_err()
    );
}

fn enc_kgc() -> EncryptMasterKey {
    EncryptMasterKey::from_bytes(&b32(
        "01EDEE3778F441F8DEA3D9FA0ACC4E07EE36C93F9A08618AF4AD85CEDE1C22",
    ))
    .unwrap()
}

const DE_BOB: &str = "94736acd2c8c8796cc4785e938301a139a059d3537b6414140b2d31eecf41683115bae85f5d8bc6c3dbd9e5342979acccf3c2f4f28420b1cb4f8c0b59a19b1587aa5e47570da7600cd760a0cf7beaf71c447f3844753fe74fa7ba92ca7d3b55f27538a62e7f7bfb51dce08704796d94c9d56734f119ea44732b50e31cdeb75c1";

/// Part 5, C (key encapsulation): ke, ID "Bob", r; Ppub-e, deB, C and K (32 bytes).
#[test]
fn standard_kem_example() {
    let kgc = enc_kgc();
    assert_eq!(
        hex::encode(kgc.public_key().to_bytes()),
        "787ed7b8a51f3ab84e0a66003f32da5c720b17eca7137d39abc66e3c80a892ff769de61791e5adc4b9ff85a31354900b202871279a8c49dc3f220f644c57a7b1"
    );
    let bob = kgc.extract(b"Bob").unwrap();
    assert_eq!(hex::encode(&bob.to_uncompressed()[1..]), DE_BOB);
    let r = b32("74015F8489C01EF4270456F9E6475BFB602BDE7F33FD482AB4E3684A6722");
    let mut k = [0u8; 32];
    let c = kgc
        .public_key()
        .encapsulate_with_fixed_r(b"Bob", &r, &mut k)
        .unwrap();
    assert_eq!(
        hex::encode(c),
        "1edee2c3f465914491de44cefb2cb434ab02c308d9dc5e2067b4fed5aaac8a0f1c9b4c435eca35ab83bb734174c0f78fde81a53374aff3b3602bbc5e37be9a4c"
    );
    assert_eq!(
        hex::encode(k),
        "4ff5cf86d2ad40c8f4bac98d76abdbde0c0e2f0a829d3f911ef5b2bce0695480"
    );
    let mut k2 = [0u8; 32];
    bob.decapsulate(b"Bob", &c, &mut k2).unwrap();
    assert_eq!(k, k2);
    // The key parsed back from its encoding works the same.
    let bob2 =
        EncryptPrivateKey::from_bytes(&hex::decode(DE_BOB).unwrap(), kgc.public_key()).unwrap();
    let mut k3 = [0u8; 32];
    bob2.decapsulate(b"Bob", &c, &mut k3).unwrap();
    assert_eq!(k, k3);
}

/// Part 5, D (encryption, XOR mode): "Chinese IBE standard" to "Bob"; C1 || C3 || C2.
#[test]
fn standard_encryption_example() {
    let kgc = enc_kgc();
    let msg = b"Chinese IBE standard";
    let r = b32("AAC0541779C8FC45E3E2CB25C12B5D2576B2129AE8BB5EE2CBE5EC9E785C");
    let mut ct = [0u8; 20 + CIPHERTEXT_OVERHEAD];
    kgc.public_key()
        .encrypt_with_fixed_r(b"Bob", &r, msg, &mut ct)
        .unwrap();
    assert_eq!(
        hex::encode(ct),
        "2445471164490618e1ee20528ff1d545b0f14c8bcaa44544f03dab5dac07d8ff42ffca97d57cddc05ea405f2e586feb3a6930715532b8000759f13059ed59ac0ba672387bcd6de5016a158a52bb2e7fc429197bcab70b25afee37a2b9db9f3671b5f5b0e951489682f3e64e1378cdd5da9513b1c"
    );
    let bob = kgc.extract(b"Bob").unwrap();
    let mut pt = [0u8; 20];
    bob.decrypt_into(b"Bob", &ct, &mut pt).unwrap();
    assert_eq!(&pt, msg);
    // Any flipped bit is rejected.
    for i in [0, 63, 64, 95, 96, ct.len() - 1] {
        let mut bad = ct;
        bad[i] ^= 1;
        assert!(bob.decrypt_into(b"Bob", &bad, &mut pt).is_err(), "byte {i}");
    }
    assert!(bob.decrypt_into(b"Alice", &ct, &mut pt).is_err());
}

/// Part 5, B (key exchange): "Alice" and "Bob" under ke, rA, rB; RA, SB, SK, SA.
#[test]
fn standard_key_exchange_example() {
    let kgc = EncryptMasterKey::from_bytes(&b32(
        "02E65B0762D042F51F0D23542B13ED8CFA2E9A0E7206361E013A283905E31F",
    ))
    .unwrap();
    assert_eq!(
        hex::encode(kgc.public_key().to_bytes()),
        "9174542668e8f14ab273c0945c3690c66e5dd09678b86f734c4350567ed0628354e598c6bf749a3dacc9fffedd9db6866c50457cfc7aa2a4ad65c3168ff74210"
    );
    let ka = kgc.extract_with_hid(b"Alice", hid::KEY_EXCHANGE).unwrap();
    let kb = kgc.extract_with_hid(b"Bob", hid::KEY_EXCHANGE).unwrap();
    let mut a = KeyExchange::initiator(&ka, b"Alice", b"Bob");
    let mut b = KeyExchange::responder(&kb, b"Bob", b"Alice");
    let ra = a
        .init_with_fixed_r(&b32(
            "5879DD1D51E175946F23B1B41E93BA31C584AE59A426EC1046A4D03B06C8",
        ))
        .unwrap();
    assert_eq!(
        hex::encode(ra),
        "7cba5b19069ee66aa79d490413d11846b9ba76dd22567f809cf23b6d964bb265a9760c99cb6f706343fed05637085864958d6c90902aba7d405fbedf7b781599"
    );
    let mut skb = [0u8; 16];
    let (rb, sb) = b
        .respond_with_fixed_r(
            &b32("018B98C44BEF9F8537FB7D071B2C928B3BC65BD3D69E1EEE213564905634FE"),
            &ra,
            &mut skb,
        )
        .unwrap();
    assert_eq!(
        hex::encode(sb),
        "3bb4bcee8139c960b4d6566db1e0d5f0b2767680e5e1bf934103e6c66e40ffee"
    );
    let mut ska = [0u8; 16];
    let sa = a.confirm_responder(&rb, Some(&sb), &mut ska).unwrap();
    assert_eq!(hex::encode(ska), "c5c13a8f59a97cdeae64f16a2272a9e7");
    assert_eq!(ska, skb);
    assert_eq!(
        hex::encode(sa),
        "195d1b7256ba7e0e67c71202a25f8c94ff8241702c2f55d613ae1c6b98215172"
    );
    b.confirm_initiator(&sa).unwrap();
    let mut bad = sa;
    bad[0] ^= 1;
    assert_eq!(b.confirm_initiator(&bad), Err(Error::KeyConfirmation));
}

/// Part 5, D with the block cipher (SM4-ECB, PKCS#7), as gmsm v0.44
/// internal/sm9/sm9_test.go TestEncryptSM9SampleBlockMode reproduces it.
#[test]
fn standard_encryption_example_sm4_ecb() {
    let kgc = enc_kgc();
    let msg = b"Chinese IBE standard";
    let r = b32("AAC0541779C8FC45E3E2CB25C12B5D2576B2129AE8BB5EE2CBE5EC9E785C");
    let ct = kgc
        .public_key()
        .encrypt_sm4_with_fixed_r(b"Bob", &r, msg, BlockMode::Ecb, &[0; 16])
        .unwrap();
    assert_eq!(
        hex::encode(&ct),
        "2445471164490618e1ee20528ff1d545b0f14c8bcaa44544f03dab5dac07d8ff42ffca97d57cddc05ea405f2e586feb3a6930715532b8000759f13059ed59ac0fd3c98dd92c44c68332675a370cceede31e0c5cd209c257601149d12b394a2bee05b6fac6f11b965268c994f00dba7a8bb00fd60583546cbdf4649250863f10a"
    );
    let bob = kgc.extract(b"Bob").unwrap();
    assert_eq!(bob.decrypt_sm4(b"Bob", &ct, BlockMode::Ecb).unwrap(), msg);
    let mut bad = ct.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    assert!(bob.decrypt_sm4(b"Bob", &bad, BlockMode::Ecb).is_err());
}
