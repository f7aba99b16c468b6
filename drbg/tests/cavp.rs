//! The SP 800-90A mode against NIST CAVP DRBG vectors (drbgvectors_pr_false and
//! drbgvectors_pr_true: Hash_DRBG.rsp [SHA-256], HMAC_DRBG.rsp [SHA-256], CTR_DRBG.rsp
//! [AES-128 use df]). The values are transcribed from the places named at each case, which
//! quote the .rsp files.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use hex_literal::hex;
use shangmi_drbg::{CtrDrbg, Drbg, HashDrbg, HmacDrbg, NoClock, Sp800_90a};

/// One CAVP case without prediction resistance: instantiate, reseed, generate twice; the
/// second output is ReturnedBits.
struct Case<'a> {
    entropy: &'a [u8],
    nonce: &'a [u8],
    personalization: &'a [u8],
    reseed_entropy: &'a [u8],
    reseed_additional: &'a [u8],
    additional: [&'a [u8]; 2],
    returned: &'a [u8],
}

fn run<D: Drbg<Clock = NoClock>>(case: &Case) {
    let mut drbg = D::new(case.entropy, case.nonce, case.personalization, NoClock).unwrap();
    drbg.reseed(case.reseed_entropy, case.reseed_additional)
        .unwrap();
    let mut out = vec![0u8; case.returned.len()];
    drbg.generate(&mut out, case.additional[0]).unwrap();
    drbg.generate(&mut out, case.additional[1]).unwrap();
    assert_eq!(hex::encode(&out), hex::encode(case.returned));
}

type HashSha256 = HashDrbg<sha2::Sha256, Sp800_90a, NoClock>;
type HmacSha256 = HmacDrbg<sha2::Sha256, Sp800_90a, NoClock>;
type CtrAes128 = CtrDrbg<aes::Aes128, Sp800_90a, NoClock>;

/// Hash_DRBG.rsp [SHA-256], PredictionResistance = False, all inputs used (line 4360 of the
/// CAVP file, as quoted in ctz/cifra src/testdrbg.c).
#[test]
fn hash_sha256_with_personalization() {
    run::<HashSha256>(&Case {
        entropy: &hex!("b87bb4de5c148d964fc0cb612d69295671780b4270fe32bf389b6f49488efe13"),
        nonce: &hex!("27eb37a0c695c4ee3c9b70b7f6b33492"),
        personalization: &hex!("52321406ac8a9c266b1f8d811bb871269e5824b59a0234f01d358193523bbb7c"),
        reseed_entropy: &hex!("7638267f534c4e6ee22cc6ca6ed824fd5d3d387c00b89dd791eb5ac9766385b8"),
        reseed_additional: &[],
        additional: [&[], &[]],
        returned: &hex!(
            "de01c061651bab3cef2fc4ea89a56b6e86e74b2e9fd11ed671c97c813778a06a2c1f41b41e754a5257750c6bde9601da9d67d8d9564f4a8538b92516a2dacc496dee257b85393f2a01ad59aa3257f1b6da9566e3706d2d6d4a26e511b0c64d7dc223acb24827178afa43ca8d5a66f983d6929dc61564c4c14fc32d85765a23f7"
        ),
    });
}

/// Hash_DRBG.rsp [SHA-256], PredictionResistance = False, COUNT = 0 of the section without
/// personalization or additional input (line 5064; cifra src/testdrbg.c, and gmsm v0.44.0
/// drbg/hash_drbg_test.go with its intermediate V and C).
#[test]
fn hash_sha256_no_inputs() {
    run::<HashSha256>(&Case {
        entropy: &hex!("63363377e41e86468deb0ab4a8ed683f6a134e47e014c700454e81e95358a569"),
        nonce: &hex!("808aa38f2a72a62359915a9f8a04ca68"),
        personalization: &[],
        reseed_entropy: &hex!("e62b8a8ee8f141b6980566e3bfe3c04903dad4ac2cdf9f2280010a6739bc83d3"),
        reseed_additional: &[],
        additional: [&[], &[]],
        returned: &hex!(
            "04eec63bb231df2c630a1afbe724949d005a587851e1aa795e477347c8b056621c18bddcdd8d99fc5fc2b92053d8cfacfb0bb8831205fad1ddd6c071318a6018f03b73f5ede4d4d071f9de03fd7aea105d9299b8af99aa075bdb4db9aa28c18d174b56ee2a014d098896ff2282c955a81969e069fa8ce007a180183a07dfae17"
        ),
    });
}

/// Hash_DRBG.rsp [SHA-256], PredictionResistance = False, with additional input (line
/// 5230; cifra src/testdrbg.c and gmsm v0.44.0 drbg/hash_drbg_test.go).
#[test]
fn hash_sha256_additional_input() {
    run::<HashSha256>(&Case {
        entropy: &hex!("9cfb7ad03be487a3b42be06e9ae44f283c2b1458cec801da2ae6532fcb56cc4c"),
        nonce: &hex!("a20765538e8db31295747ec922c13a69"),
        personalization: &[],
        reseed_entropy: &hex!("96bc8014f90ebdf690db0e171b59cc46c75e2e9b8e1dc699c65c03ceb2f4d7dc"),
        reseed_additional: &hex!(
            "6fea0894052dab3c44d503950c7c72bd7b87de87cb81d3bb51c32a62f742286d"
        ),
        additional: [
            &hex!("d3467c78563b74c13db7af36c2a964820f2a9b1b167474906508fdac9b2049a6"),
            &hex!("5840a11cc9ebf77b963854726a826370ffdb2fc2b3d8479e1df5dcfa3dddd10b"),
        ],
        returned: &hex!(
            "71c1154a2a7a3552413970bf698aa02f14f8ea95e861f801f463be27868b1b14b1b4babd9eba5915a6414ab1104c8979b1918f3094925aeab0d07d2037e613b63cbd4f79d9f95c84b47ed9b77230a57515c211f48f4af6f5edb2c308b33905db308cf88f552c8912c49b34e66c026e67b302ca65b187928a1aba9a49edbfe190"
        ),
    });
}

/// HMAC_DRBG.rsp [SHA-256], PredictionResistance = False, COUNT = 0 without personalization
/// or additional input (line 5064; cifra's testdrbg.c, gmsm v0.44.0 drbg/hmac_drbg_test.go).
#[test]
fn hmac_sha256_no_inputs() {
    run::<HmacSha256>(&Case {
        entropy: &hex!("06032cd5eed33f39265f49ecb142c511da9aff2af71203bffaf34a9ca5bd9c0d"),
        nonce: &hex!("0e66f71edc43e42a45ad3c6fc6cdc4df"),
        personalization: &[],
        reseed_entropy: &hex!("01920a4e669ed3a85ae8a33b35a74ad7fb2a6bb4cf395ce00334a9c9a5a5d552"),
        reseed_additional: &[],
        additional: [&[], &[]],
        returned: &hex!(
            "76fc79fe9b50beccc991a11b5635783a83536add03c157fb30645e611c2898bb2b1bc215000209208cd506cb28da2a51bdb03826aaf2bd2335d576d519160842e7158ad0949d1a9ec3e66ea1b1a064b005de914eac2e9d4f2d72a8616a80225422918250ff66a41bd2f864a6a38cc5b6499dc43f7f2bd09e1e0f8f5885935124"
        ),
    });
}

/// HMAC_DRBG.rsp [SHA-256], PredictionResistance = False, with additional input (as quoted
/// in gmsm v0.44.0 drbg/hmac_drbg_test.go with the intermediate Key and V).
#[test]
fn hmac_sha256_additional_input() {
    run::<HmacSha256>(&Case {
        entropy: &hex!("05ac9fc4c62a02e3f90840da5616218c6de5743d66b8e0fbf833759c5928b53d"),
        nonce: &hex!("2b89a17904922ed8f017a63044848545"),
        personalization: &[],
        reseed_entropy: &hex!("2791126b8b52ee1fd9392a0a13e0083bed4186dc649b739607ac70ec8dcecf9b"),
        reseed_additional: &hex!(
            "43bac13bae715092cf7eb280a2e10a962faf7233c41412f69bc74a35a584e54c"
        ),
        additional: [
            &hex!("3f2fed4b68d506ecefa21f3f5bb907beb0f17dbc30f6ffbba5e5861408c53a1e"),
            &hex!("529030df50f410985fde068df82b935ec23d839cb4b269414c0ede6cffea5b68"),
        ],
        returned: &hex!(
            "02ddff5173da2fcffa10215b030d660d61179e61ecc22609b1151a75f1cbcbb4363c3a89299b4b63aca5e581e73c860491010aa35de3337cc6c09ebec8c91a6287586f3a74d9694b462d2720ea2e11bbd02af33adefb4a16e6b370fa0effd57d607547bdcfbb7831f54de7073ad2a7da987a0016a82fa958779a168674b56524"
        ),
    });
}

/// HMAC_DRBG.rsp [SHA-256], PredictionResistance = False, with personalization and
/// additional input (as quoted in gmsm v0.44.0 drbg/hmac_drbg_test.go).
#[test]
fn hmac_sha256_all_inputs() {
    run::<HmacSha256>(&Case {
        entropy: &hex!("cdb0d9117cc6dbc9ef9dcb06a97579841d72dc18b2d46a1cb61e314012bdf416"),
        nonce: &hex!("d0c0d01d156016d0eb6b7e9c7c3c8da8"),
        personalization: &hex!("6f0fb9eab3f9ea7ab0a719bfa879bf0aaed683307fda0c6d73ce018b6e34faaa"),
        reseed_entropy: &hex!("8ec6f7d5a8e2e88f43986f70b86e050d07c84b931bcf18e601c5a3eee3064c82"),
        reseed_additional: &hex!(
            "1ab4ca9014fa98a55938316de8ba5a68c629b0741bdd058c4d70c91cda5099b3"
        ),
        additional: [
            &hex!("16e2d0721b58d839a122852abd3bf2c942a31c84d82fca74211871880d7162ff"),
            &hex!("53686f042a7b087d5d2eca0d2a96de131f275ed7151189f7ca52deaa78b79fb2"),
        ],
        returned: &hex!(
            "dda04a2ca7b8147af1548f5d086591ca4fd951a345ce52b3cd49d47e84aa31a183e31fbc42a1ff1d95afec7143c8008c97bc2a9c091df0a763848391f68cb4a366ad89857ac725a53b303ddea767be8dc5f605b1b95f6d24c9f06be65a973a089320b3cc42569dcfd4b92b62a993785b0301b3fc452445656fce22664827b88f"
        ),
    });
}

/// CTR_DRBG.rsp [AES-128 use df], PredictionResistance = False, COUNT = 0 without
/// personalization or additional input (as quoted with its intermediate Key and V in
/// reschly/mjrcrypt tests/CTRDRBG_test.py and gmsm v0.44.0 drbg/ctr_drbg_test.go).
#[test]
fn ctr_aes128_df_no_inputs() {
    run::<CtrAes128>(&Case {
        entropy: &hex!("0f65da13dca407999d4773c2b4a11d85"),
        nonce: &hex!("5209e5b4ed82a234"),
        personalization: &[],
        reseed_entropy: &hex!("1dea0a12c52bf64339dd291c80d8ca89"),
        reseed_additional: &[],
        additional: [&[], &[]],
        returned: &hex!(
            "2859cc468a76b08661ffd23b28547ffd0997ad526a0f51261b99ed3a37bd407bf418dbe6c6c3e26ed0ddefcb7474d899bd99f3655427519fc5b4057bcaf306d4"
        ),
    });
}

/// CTR_DRBG.rsp [AES-128 use df], PredictionResistance = False, with additional input (as
/// quoted in gmsm v0.44.0 drbg/ctr_drbg_test.go).
#[test]
fn ctr_aes128_df_additional_input() {
    run::<CtrAes128>(&Case {
        entropy: &hex!("285da6cf762552634636bfee3400b156"),
        nonce: &hex!("8f8bada74820cb43"),
        personalization: &[],
        reseed_entropy: &hex!("b4699b33354a83bfed115f770f32db0b"),
        reseed_additional: &hex!("38bfec9a10e6e40c106841dae48dc3b8"),
        additional: [
            &hex!("629ead5bacfac8235711ffeb22f57558"),
            &hex!("dd8a02ee668ca3e03949b38cb6e6b4df"),
        ],
        returned: &hex!(
            "e555aa4432bde04dcf0f0b03ead187b31df06653d444234b5c1bfc11b224285f2fb2b6cdd5a9ae6f13d99bd02c3c9fe9c3c1be46a600f5f757ab4574af893501"
        ),
    });
}

/// CTR_DRBG.rsp [AES-128 use df], PredictionResistance = False, all inputs, COUNT = 0 (as
/// quoted in eclipse-threadx/netxduo crypto_libraries/src/nx_crypto_method_self_test_drbg.c).
#[test]
fn ctr_aes128_df_all_inputs() {
    run::<CtrAes128>(&Case {
        entropy: &hex!("63f226b4a964681df99ac1965cecac3a"),
        nonce: &hex!("d888574290239f93"),
        personalization: &hex!("d0ef2ed4a740a78ee06b461758a67912"),
        reseed_entropy: &hex!("5d093a54a1201f46ab562e8abf77fa8f"),
        reseed_additional: &hex!("39232ea4871483ae596a8fa56fec03d6"),
        additional: [
            &hex!("b8f5e41effe52e62f2a258c9e29ad5b3"),
            &hex!("bb8fd9404da2c601b0209e0f4b1a5094"),
        ],
        returned: &hex!(
            "22e3066c23bbaae85b118dffc21c3572dcbede7a7c7a7c73bcdee8a060500ef67af6c13cee6f4da309f8b3e3fa8dc4c37f94d99b591a1cede6aec30b200c81f7"
        ),
    });
}

/// CTR_DRBG.rsp [AES-128 use df], PredictionResistance = True, COUNT = 0 (drbgvectors_pr_true,
/// as quoted in eclipse-threadx/netxduo nx_crypto_method_self_test_drbg.c): each generate
/// reseeds with EntropyInputPR and its AdditionalInput first.
#[test]
fn ctr_aes128_df_prediction_resistance() {
    let mut drbg = CtrAes128::new(
        &hex!("c87bcfa53ded926698bb792254eba853"),
        &hex!("1165ebdb6fe78232"),
        &hex!("7ee8c40ebd3551fe103c8349377ea7cc"),
        NoClock,
    )
    .unwrap();
    let mut out = [0u8; 64];
    drbg.generate_with_prediction_resistance(
        &hex!("da60722bd8d6d4313d47ce07c4f63c29"),
        &hex!("db2422dba1157857785ce57b43bc938e"),
        &mut out,
    )
    .unwrap();
    drbg.generate_with_prediction_resistance(
        &hex!("933623ef7527bc0449ca8d629d84a91f"),
        &hex!("06b93f6b069e4859a8c76247a4825a64"),
        &mut out,
    )
    .unwrap();
    assert_eq!(
        out,
        hex!(
            "fd76ace1287a800d01a969fc99d6db8b3f309f6cf5b2b07eec12e3f0169cbbcdebf9a1485a57ed0f5ecc14de122c5eee9c39f48ee8e98e5bb58141e9dc33121e"
        )
    );
}
