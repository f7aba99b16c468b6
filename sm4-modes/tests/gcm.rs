//! SM4-GCM: published vectors, error behaviour, and differential tests against
//! RustCrypto's generic `aes_gcm::AesGcm<sm4::Sm4, U12>` on every SM4 engine.
//!
//! OpenSSL 3.0 (Debian 12) has no SM4-GCM (SM4-GCM arrived in 3.2): the differential test
//! against OpenSSL is in `tests/openssl.rs`, on the vendored OpenSSL 3.6.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use aead::{Aead, AeadInOut, KeyInit, Payload, consts::U16};
use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm4_modes::{Sm4Gcm, Sm4GcmCustom};

#[path = "support/engines.rs"]
mod engines;

type RustCryptoGcm = aes_gcm::AesGcm<rustcrypto_sm4::Sm4, aes_gcm::aead::consts::U12>;
type RustCryptoGcm16 = aes_gcm::AesGcm<rustcrypto_sm4::Sm4, aes_gcm::aead::consts::U16>;

// RFC 8998 Appendix A.1 (SM4-GCM test vector): the shared inputs, then this mode's output.
#[path = "support/rfc8998.rs"]
mod rfc8998;
use rfc8998::{AAD, KEY, NONCE, PT, check_vector};

/// RFC 8998's plaintext and associated data as one payload.
fn rfc_payload() -> Payload<'static, 'static> {
    Payload {
        msg: &PT,
        aad: &AAD,
    }
}
const CT: [u8; 64] = hex!(
    "17F399F08C67D5EE19D0DC9969C4BB7D5FD46FD3756489069157B282BB200735"
    "D82710CA5C22F0CCFA7CBF93D496AC15A56834CBCF98C397B4024A2691233B8D"
);
const TAG: [u8; 16] = hex!("83DE3541E4C2B58177E065A9BF7B62EC");

/// Every (SM4 engine, GHASH engine) pair this CPU runs.
fn all_gcms(key: &[u8; 16]) -> Vec<(String, Sm4Gcm)> {
    engines::with_every_ghash(key, |c, g| Sm4Gcm::with_ghash_backend(c, g).unwrap())
}

#[test]
fn rfc8998_a1() {
    for (name, gcm) in all_gcms(&KEY) {
        check_vector(&name, &gcm, &CT, &TAG);
    }
    // The allocating API, tag appended.
    let gcm = Sm4Gcm::new(&KEY.into());
    let sealed = gcm.encrypt(&NONCE.into(), rfc_payload()).unwrap();
    assert_eq!(sealed[..64], CT);
    assert_eq!(sealed[64..], TAG);
}

/// Wycheproof `sm4_gcm_test.json` (C2SP/wycheproof, testvectors_v1, aead_test_schema_v1):
/// the tests with a 12- or 16-byte IV and at most 48 bytes of message and AAD. Valid ones
/// must seal to ct ‖ tag and open; invalid ones (modified tags, counter wraps) must fail to
/// open. (tcId, key, iv, aad, msg, ct ‖ tag, valid.)
const WYCHEPROOF: [(u32, &str, &str, &str, &str, &str, bool); 59] = [
    (
        2,
        "bedcfb5a011ebc84600fcb296c15af0d",
        "438a547a94ea88dce46c6c85",
        "",
        "",
        "a486a45596cb92cf529de2038583707d",
        true,
    ),
    (
        3,
        "384ea416ac3c2f51a76e7d8226346d4e",
        "b30c084727ad1c592ac21d12",
        "",
        "35",
        "a3a06f50a378b116e9dd2363a6e8babd88",
        true,
    ),
    (
        4,
        "cae31cd9f55526eb038241fc44cac1e5",
        "b5e006ded553110e6dc56529",
        "",
        "d10989f2c52e94ad",
        "ae080aa27f4767369e649f28d3f52a4bf7e3239a980617fd",
        true,
    ),
    (
        5,
        "dd6197cd63c963919cf0c273ef6b28bf",
        "ecb0c42f7000ef0e6f95f24d",
        "",
        "4dcc1485365866e25ac3f2ca6aba97",
        "8903a5225332b06e89bc1ad13e440641feccc33a5a27fab0883a11e4ba3b71",
        true,
    ),
    (
        6,
        "ffdf4228361ea1f8165852136b3480f7",
        "0e1666f2dc652f7708fb8f0d",
        "",
        "25b12e28ac0ef6ead0226a3b2288c800",
        "f18ce821bdf23c0e74e84a235ae15926dd82022d2589c111d2f780965bd4b7ea",
        true,
    ),
    (
        7,
        "c15ed227dd2e237ecd087eaaaad19ea4",
        "965ff6643116ac1443a2dec7",
        "",
        "fee62fde973fe025ad6b322dcdf3c63fc7",
        "bec3d84d43648a235d8e2db8a61c3d931778372866def4d47c141dfa360ee73f8d",
        true,
    ),
    (
        8,
        "a8ee11b26d7ceb7f17eaa1e4b83a2cf6",
        "fbbc04fd6e025b7193eb57f6",
        "",
        "c08f085e6a9e0ef3636280c11ecfadf0c1e72919ffc17eaf",
        "33a7785516a033fef7e5b94bea7cb271ab176f8f1c85328048d1f612fbf49cf11ea7e44c2d160770",
        true,
    ),
    (
        9,
        "28ff3def08179311e2734c6d1c4e2871",
        "32bcb9b569e3b852d37c766a",
        "c3",
        "dfc61a20df8505b53e3cd59f25770d5018add3d6",
        "cd6419e4b259e55f460f88763ed7229331ed11a0e156c8364e952357442b9a372ebc2f1f",
        true,
    ),
    (
        10,
        "e63a43216c08867210e248859eb5e99c",
        "9c3a4263d983456658aad4b1",
        "834afdc5c737186b",
        "b14da56b0462dc05b871fc815273ff4810f92f4b",
        "74011a2daa5b32ff71fc8fdd8b6ac88f3ac34c967888f6f99acd94c4e7f919de632107dd",
        true,
    ),
    (
        11,
        "38449890234eb8afab0bbf82e2385454",
        "33e90658416e7c1a7c005f11",
        "4020855c66ac4595058395f367201c4c",
        "f762776bf83163b323ca63a6b3adeac1e1357262",
        "e701e87475f01be5593829ffbbc8c212324d1f330e6ef70f71cc450c2097481d6ae26b23",
        true,
    ),
    (
        12,
        "6a68671dfe323d419894381f85eb63fd",
        "9f0d85b605711f34cd2a35ba",
        "76eb5f147250fa3c12bff0a6e3934a0b16860cf11646773b",
        "0fc67899c3f1bbe196d90f1eca3797389230aa37",
        "e2ceb4ed26cad57080e1bf3104f3251c486395d600468fce2225bfea9b46679889cd1241",
        true,
    ),
    (
        37,
        "00112233445566778899aabbccddeeff",
        "000000000000000000000000",
        "",
        "5d5078da12857e409e1f3ae19cfc8a3a",
        "70b0c110177e873599d05676fcde10edffffffffffffffffffffffffffffffff",
        true,
    ),
    (
        38,
        "00112233445566778899aabbccddeeff",
        "ffffffffffffffffffffffff",
        "",
        "f3937d8216ab17e05ffb8b490a001a1c",
        "362c07b231c4525edc14db3319f19f1900000000000000000000000000000000",
        true,
    ),
    (
        39,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4517976811555a04bb20921a3d81edae4",
        false,
    ),
    (
        40,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4527976811555a04bb20921a3d81edae4",
        false,
    ),
    (
        41,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4d07976811555a04bb20921a3d81edae4",
        false,
    ),
    (
        42,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507876811555a04bb20921a3d81edae4",
        false,
    ),
    (
        43,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976011555a04bb20921a3d81edae4",
        false,
    ),
    (
        44,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811455a04bb20921a3d81edae4",
        false,
    ),
    (
        45,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811755a04bb20921a3d81edae4",
        false,
    ),
    (
        46,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a0cbb20921a3d81edae4",
        false,
    ),
    (
        47,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb30921a3d81edae4",
        false,
    ),
    (
        48,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04b320921a3d81edae4",
        false,
    ),
    (
        49,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb22921a3d81edae4",
        false,
    ),
    (
        50,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20920a3d81edae4",
        false,
    ),
    (
        51,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20921a3d91edae4",
        false,
    ),
    (
        52,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20921a3da1edae4",
        false,
    ),
    (
        53,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20921a3581edae4",
        false,
    ),
    (
        54,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20921a3d81edae5",
        false,
    ),
    (
        55,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20921a3d81edae6",
        false,
    ),
    (
        56,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20921a3d81edaa4",
        false,
    ),
    (
        57,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a04bb20921a3d81eda64",
        false,
    ),
    (
        58,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4517976811555a04bb30921a3d81edae4",
        false,
    ),
    (
        59,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976011555a0cbb20921a3d81edae4",
        false,
    ),
    (
        60,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4507976811555a0cbb20921a3d81eda64",
        false,
    ),
    (
        61,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4af86897eeaaa5fb44df6de5c27e1251b",
        false,
    ),
    (
        62,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c400000000000000000000000000000000",
        false,
    ),
    (
        63,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4ffffffffffffffffffffffffffffffff",
        false,
    ),
    (
        64,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4d0f9f60195d520cb3289a123589e5a64",
        false,
    ),
    (
        65,
        "000102030405060708090a0b0c0d0e0f",
        "505152535455565758595a5b",
        "",
        "202122232425262728292a2b2c2d2e2f",
        "2610dc674b46c13dd4e2406d0c0873c4517877801454a14ab30820a2d91fdbe5",
        false,
    ),
    (
        66,
        "00112233445566778899aabbccddeeff",
        "9029fc630c2ba7082c35e58338972aa4",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "7920d4b5e42c7462000907ab901c84766f5db0c2b3cdb409b08387b47fb89512c56d1dea2c93aa02f37c004008883a09219be0d2c91a903e",
        true,
    ),
    (
        67,
        "00112233445566778899aabbccddeeff",
        "0d77d644c2243c65109e857e95c2c646",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "7a8cdf3aaa557cea1fc63939133140b32de0b9ca05fbf97507cf6c9760229ad7056ad0c0a34ea0e0687662993d0e249299763175a102e971",
        true,
    ),
    (
        68,
        "00112233445566778899aabbccddeeff",
        "97d84172e735eab6765dfb7292c7c395",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "3c5a4347f370ff7c7affd4a10b3ed1ea8e1393f00c3ff44f854bb3292668a544c5bf7a30276f45be63636b1cf3c7b0ac7f7da87f8d5c54e8",
        true,
    ),
    (
        69,
        "00112233445566778899aabbccddeeff",
        "9170e4ac007e70752b7b76839fc310f6",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "2c5a21c8403dc22b156bb620db23cb5c3c5a4347f370ff7c7affd4a10b3ed1ea8e1393f00c3ff44f4bda4fea9b280467217a01bd143155f3",
        true,
    ),
    (
        70,
        "00112233445566778899aabbccddeeff",
        "9a890acf29a2df30cc10e09088ce6553",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "a145d9e5b1714be811634f68572a9db72c5a21c8403dc22b156bb620db23cb5c3c5a4347f370ff7c33d976a04a65939e7a7c707085659a85",
        true,
    ),
    (
        71,
        "00112233445566778899aabbccddeeff",
        "3c91bd6a3e9f47bce3b32b0c26230493",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "22c0809d825fae45a6442e4e93a01332ffb92a5fb2f0f5510eeede32c5cf0355ccc3e8ab9597f17b3669127bac6342bf3212aeda613084dc",
        true,
    ),
    (
        72,
        "00112233445566778899aabbccddeeff",
        "3a3918b4d9d4dd7fbe95a6fd2b27d7f0",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "ce3accdfdaa44e27e4d0dd28be07b4d022c0809d825fae45a6442e4e93a01332ffb92a5fb2f0f55186d70e1ff4e39e6d338af1e84de15e3b",
        true,
    ),
    (
        73,
        "00112233445566778899aabbccddeeff",
        "31c0f6d7f008723a59fe30ee3c2aa255",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "62d861508b4633b1bd36116bbf3ac9d1ce3accdfdaa44e27e4d0dd28be07b4d022c0809d825fae45f5d4357e568000a2c279fc2e02177f22",
        true,
    ),
    (
        74,
        "00112233445566778899aabbccddeeff",
        "4b34700b900c0144653142bda48f0ad1",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "41eabbfe3c02b60243c984aacbc84a825dec9353e3917c8d700f1d6bd2f49787a0a686d54e077bae1c1bb68b5d0b0932ca8c8a15d1fb7e78",
        true,
    ),
    (
        75,
        "00112233445566778899aabbccddeeff",
        "4d9cd5d577479b873817cf4ca98bd9b2",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "5dca90863c0a42b9c20a393f6d829e6941eabbfe3c02b60243c984aacbc84a825dec9353e3917c8d962be123660b46309d0e0ac6ee62c481",
        true,
    ),
    (
        76,
        "00112233445566778899aabbccddeeff",
        "367ececff3fee92fa54bad8e4f92863f",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "86627654d13333dc7f8042a8b07d57727d4602e8aca706f06745b3d068577dc4eb4321cb2b1fb981b3dc088c0e052451565435864ff1007b",
        true,
    ),
    (
        77,
        "00112233445566778899aabbccddeeff",
        "30d66b1114b573ecf86d207f4296555c",
        "",
        "00000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "9e2000fde6d279ca188199c60809c2a186627654d13333dc7f8042a8b07d57727d4602e8aca706f065cbd3f78938ff80def1e52a7e2e489e",
        true,
    ),
    (
        78,
        "00112233445566778899aabbccddeeff",
        "00000000000000000000000000000000",
        "",
        "164909d96c05ceee3c5ac92dcda2579b",
        "415721a1165a8b37d25c387f1d5a880c00000000000000000000000000000000",
        true,
    ),
    (
        79,
        "00112233445566778899aabbccddeeff",
        "ffffffffffffffffffffffffffffffff",
        "",
        "71bc5a4657776c3ad0ce586cfccbebf6",
        "669a26c0c0b6834f54f7d370e77c8be7ffffffffffffffffffffffffffffffff",
        true,
    ),
    (
        80,
        "b67b1a6efdd40d37080fbe8f8047aeb9",
        "fa294b129972f7fc5bbd5b96bba837c9",
        "",
        "",
        "f938f7da0c3405f4691a25fe54689eeb",
        true,
    ),
    (
        81,
        "209e6dbf2ad26a105445fc0207cd9e9a",
        "9477849d6ccdfca112d92e53fae4a7ca",
        "",
        "01",
        "133045412c25b2afac481b1982e360e2cf",
        true,
    ),
    (
        82,
        "a549442e35154032d07c8666006aa6a2",
        "5171524568e81d97e8c4de4ba56c10a0",
        "",
        "1182e93596cac5608946400bc73f3a",
        "cf3a72ecb5035e29ea755936d9d8f459f7b487c2a415e827dc04c4e7896dea",
        true,
    ),
    (
        83,
        "cfb4c26f126f6a0acb8e4e220f6c56cd",
        "1275115499ae722268515bf0c164b49c",
        "",
        "09dfd7f080275257cf97e76f966b1ad9",
        "c83cd9a6bbb1572dae3ddff35a43ddfae318369cb3ac35f509e69e3c0d2ff497",
        true,
    ),
    (
        84,
        "0b11ef3a08c02970f74281c860691c75",
        "95c1dd8c0f1705ece68937901f7add7b",
        "",
        "f693d4edd825dbb0618d91113128880dbebb23e25d00ed1f077d870be9cc7536",
        "e1ef90953b812c4685fdd55e839516aa9d5967e75e65b9b27a5991a8e0c2e20af6e0b7f9052a75eac9a69a63b375f464",
        true,
    ),
];

/// One decoded Wycheproof case: tcId, IV, AAD, message, ct ‖ tag, valid.
type Case<'a> = (u32, &'a [u8], &'a [u8], &'a [u8], &'a [u8], bool);

/// Every Wycheproof case above on every (SM4 engine, GHASH engine) pair.
#[test]
fn wycheproof_on_every_engine_pair() {
    fn case<N: aead::array::ArraySize>(
        gcm: &Sm4GcmCustom<N, U16>,
        name: &str,
        (id, iv, aad, msg, want, valid): Case<'_>,
    ) {
        let nonce = aead::array::Array::<u8, N>::try_from(iv).unwrap();
        if valid {
            let got = gcm.encrypt(&nonce, Payload { msg, aad }).unwrap();
            assert_eq!(got, want, "tcId {id} on {name}");
        }
        let opened = gcm.decrypt(&nonce, Payload { msg: want, aad });
        assert_eq!(opened.is_ok(), valid, "tcId {id} on {name}");
        if valid {
            assert_eq!(opened.unwrap(), msg, "tcId {id} on {name}");
        }
    }
    let mut seen = 0;
    for (id, k, iv, aad, msg, want, valid) in WYCHEPROOF {
        let [k, iv, aad, msg, want] = [k, iv, aad, msg, want].map(|h| hex::decode(h).unwrap());
        let key = k.as_slice().try_into().unwrap();
        let v = (id, &iv[..], &aad[..], &msg[..], &want[..], valid);
        if iv.len() == 12 {
            for (name, gcm) in all_gcms(key) {
                case(&gcm, &name, v);
            }
        } else {
            let gcms = engines::with_every_ghash(key, |c, g| {
                Sm4GcmCustom::<U16, U16>::with_ghash_backend(c, g).unwrap()
            });
            for (name, gcm) in gcms {
                case(&gcm, &name, v);
            }
        }
        seen += 1;
    }
    assert_eq!(seen, WYCHEPROOF.len());
}

#[test]
fn wrong_tag_restores_ciphertext() {
    let gcm = Sm4Gcm::new(&KEY.into());
    rfc8998::wrong_tag_restores_ciphertext(&gcm, &[0, 1, 16, 64, 240, 241, 2048, 5000]);
}

/// The lengths where the fused loop changes shape: texts under 1 KiB, whose tail shares one
/// engine call with the tag mask; whole 1 KiB passes, whose first pass carries the mask as
/// a side lane; tails of up to 63 blocks after them; and the 8 KiB chunk edges, on every
/// engine pair.
#[test]
fn diff_rustcrypto_chunk_edges() {
    let theirs = RustCryptoGcm::new(&KEY.into());
    let gcms = all_gcms(&KEY);
    for base in [0usize, 1024, 2048, 4096, 8192, 9216, 16384] {
        for d in [0usize, 1, 15, 16, 17, 1007, 1008, 1009, 1016, 1023] {
            let len = base + d;
            let msg: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
            let want = theirs
                .encrypt(
                    &NONCE.into(),
                    aes_gcm::aead::Payload {
                        msg: &msg,
                        aad: &AAD,
                    },
                )
                .unwrap();
            for (name, gcm) in &gcms {
                let got = gcm
                    .encrypt(
                        &NONCE.into(),
                        Payload {
                            msg: &msg,
                            aad: &AAD,
                        },
                    )
                    .unwrap();
                assert_eq!(got, want, "{name} len {len}");
                let back = gcm
                    .decrypt(
                        &NONCE.into(),
                        Payload {
                            msg: &got,
                            aad: &AAD,
                        },
                    )
                    .unwrap();
                assert_eq!(back, msg, "{name} len {len}");
            }
        }
    }
}

#[test]
fn too_short_for_a_tag() {
    let gcm = Sm4Gcm::new(&KEY.into());
    for len in 0..16 {
        assert!(gcm.decrypt(&NONCE.into(), &vec![0u8; len][..]).is_err());
    }
}

#[test]
fn diff_rustcrypto_nonce_and_tag_sizes() {
    let key = [9u8; 16];
    let ours = Sm4GcmCustom::<U16, aead::consts::U16>::new(&key.into());
    let theirs = RustCryptoGcm16::new(&key.into());
    let nonce = [5u8; 16];
    for len in [0usize, 15, 33, 300] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7) as u8).collect();
        let a = ours.encrypt(&nonce.into(), &msg[..]).unwrap();
        let b = theirs.encrypt(&nonce.into(), &msg[..]).unwrap();
        assert_eq!(a, b, "16-byte nonce, len {len}");
    }
    // 12-byte tag: the first 12 bytes of the full tag (SP 800-38D §7.1 step 8).
    let short = Sm4GcmCustom::<aead::consts::U12, aead::consts::U12>::new(&KEY.into());
    let sealed = short.encrypt(&NONCE.into(), rfc_payload()).unwrap();
    assert_eq!(sealed[64..], TAG[..12]);
    assert_eq!(
        short
            .decrypt(
                &NONCE.into(),
                Payload {
                    msg: &sealed,
                    aad: &AAD
                }
            )
            .unwrap(),
        PT
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Every engine pair against RustCrypto's composition, every length 0..=300.
    #[test]
    fn diff_rustcrypto_every_engine_pair(key in any::<[u8; 16]>(), nonce in any::<[u8; 12]>(),
                                       aad in proptest::collection::vec(any::<u8>(), 0..70),
                                       seed in any::<u8>()) {
        let theirs = RustCryptoGcm::new(&key.into());
        let gcms = all_gcms(&key);
        for len in 0..=300usize {
            let msg: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
            let want = theirs.encrypt(&nonce.into(), aes_gcm::aead::Payload { msg: &msg, aad: &aad }).unwrap();
            for (name, gcm) in &gcms {
                let got = gcm.encrypt(&nonce.into(), Payload { msg: &msg, aad: &aad }).unwrap();
                prop_assert_eq!(&got, &want, "{} len {}", name, len);
                let back = gcm.decrypt(&nonce.into(), Payload { msg: &got, aad: &aad }).unwrap();
                prop_assert_eq!(&back, &msg);
            }
        }
    }

    /// Long messages across the fused-chunk boundaries.
    #[test]
    fn diff_rustcrypto_long_messages(key in any::<[u8; 16]>(), len in 300usize..9000) {
        let theirs = RustCryptoGcm::new(&key.into());
        let msg: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let want = theirs.encrypt(&[1u8; 12].into(), &msg[..]).unwrap();
        for (name, gcm) in all_gcms(&key) {
            let got = gcm.encrypt(&[1u8; 12].into(), &msg[..]).unwrap();
            prop_assert_eq!(&got, &want, "{} len {}", name, len);
            prop_assert_eq!(gcm.decrypt(&[1u8; 12].into(), &got[..]).unwrap(), msg.clone());
        }
    }
}

#[test]
fn separate_buffers_equal_in_place() {
    let gcm = Sm4Gcm::new(&KEY.into());
    for len in [
        0usize, 5, 16, 240, 241, 255, 256, 4095, 4096, 4097, 8192, 10000,
    ] {
        let pt: Vec<u8> = (0..len).map(|i| (i * 13) as u8).collect();
        let mut in_place = pt.clone();
        let tag = gcm
            .encrypt_inout_detached(&NONCE.into(), &AAD, (&mut in_place[..]).into())
            .unwrap();
        let mut out = vec![0u8; len];
        let tag2 = gcm
            .encrypt_inout_detached(
                &NONCE.into(),
                &AAD,
                aead::inout::InOutBuf::new(&pt, &mut out).unwrap(),
            )
            .unwrap();
        assert_eq!(out, in_place, "len {len}");
        assert_eq!(tag, tag2);
        let mut back = vec![0u8; len];
        gcm.decrypt_inout_detached(
            &NONCE.into(),
            &AAD,
            aead::inout::InOutBuf::new(&out, &mut back).unwrap(),
            &tag,
        )
        .unwrap();
        assert_eq!(back, pt, "len {len}");
    }
}
