//! Published test vectors.
//!
//! * ZUC-128 keystream test sets 1-4, 128-EEA3 test sets 1-5 and 128-EIA3 test sets 1-5:
//!   ETSI/SAGE "Specification of the 3GPP Confidentiality and Integrity Algorithms 128-EEA3
//!   & 128-EIA3, Document 3: Implementor's Test Data" (3GPP TS 35.223), sections 3, 4, 5.
//!   Transcribed from the copies in srsRAN's `tests/unittests/security/security_test.cpp`
//!   (which cites that document); sets 1-3 of ZUC-128, 1, 2, 5 of EEA3 and 1, 3, 5 of EIA3
//!   also agree with GmSSL's `tests/zuctest.c` (GM/T 0001-2012).
//! * ZUC-256 keystream (all-zero and all-one key/IV) and ZUC-256 MAC tags (32/64/128 bits,
//!   400 zero bits and 4000 bits of 0x11): "The ZUC-256 Stream Cipher" (ZUC design team,
//!   2018), section 4 (test vectors); the same values are in GmSSL's `tests/zuctest.c`.
//!   Not taken from gmsm (its ZUC-256 MAC is wrong for 64/128-bit tags when more than 32
//!   bits follow the last full 16-byte block).
//! * One 128-EEA3 message and its 128-EIA3 tag from Tongsuo 8.5.0-pre2 (`tongsuo_eea3_eia3`).
#![allow(clippy::unwrap_used, clippy::type_complexity)]

use shangmi_zuc::{
    Backend, Eea3Packet, Eia3, ManyEngine, Zuc128, Zuc256, Zuc256Mac32, Zuc256Mac64, Zuc256Mac128,
    cipher::{KeyIvInit, StreamCipher, StreamCipherSeek},
    digest::Mac,
    eea3, eea3_many_on, eia3_iv,
};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

fn words<C: StreamCipher>(c: &mut C, n: usize) -> Vec<u32> {
    let mut buf = vec![0u8; 4 * n];
    c.apply_keystream(&mut buf);
    buf.chunks(4)
        .map(|w| u32::from_be_bytes(w.try_into().unwrap()))
        .collect()
}

/// Document 3, section 3: ZUC-128 test sets 1-4 (z1, z2; set 4 also z2000).
#[test]
fn zuc128_keystream_test_sets() {
    let sets: [(&str, &str, [u32; 2]); 4] = [
        (
            "00000000000000000000000000000000",
            "00000000000000000000000000000000",
            [0x27bede74, 0x018082da],
        ),
        (
            "ffffffffffffffffffffffffffffffff",
            "ffffffffffffffffffffffffffffffff",
            [0x0657cfa0, 0x7096398b],
        ),
        (
            "3d4c4be96a82fdaeb58f641db17b455b",
            "84319aa8de6915ca1f6bda6bfbd8c766",
            [0x14f1c272, 0x3279c419],
        ),
        (
            "4d320bfad4c285bfd6b8bd00f39d8b41",
            "52959daba0bf176ece2dc315049eb574",
            [0xed4400e7, 0x0633e5c5],
        ),
    ];
    for (key, iv, z) in sets {
        let mut c = Zuc128::new_from_slices(&h(key), &h(iv)).unwrap();
        assert_eq!(words(&mut c, 2), z, "{key}");
    }
    let mut c = Zuc128::new_from_slices(&h(sets[3].0), &h(sets[3].1)).unwrap();
    assert_eq!(words(&mut c, 2000)[1999], 0x7a574cdb, "set 4 z2000");
    // Seeking to word 1999 regenerates the same word.
    c.seek(1999u64 * 4);
    assert_eq!(words(&mut c, 1)[0], 0x7a574cdb, "set 4 z2000 after seek");
}

struct Eea3Set {
    key: &'static str,
    count: u32,
    bearer: u8,
    direction: u8,
    bits: usize,
    pt: &'static str,
    ct: &'static str,
}

const EEA3_SETS: [Eea3Set; 5] = [
    Eea3Set {
        key: "173d14ba5003731d7a60049470f00a29",
        count: 0x66035492,
        bearer: 0xf,
        direction: 0,
        bits: 193,
        pt: "6cf65340735552ab0c9752fa6f9025fe0bd675d9005875b200",
        ct: "a6c85fc66afb8533aafc2518dfe784940ee1e4b030238cc800",
    },
    Eea3Set {
        key: "e5bd3ea0eb55ade866c6ac58bd54302a",
        count: 0x56823,
        bearer: 0x18,
        direction: 1,
        bits: 800,
        pt: concat!(
            "14a8ef693d678507bbe7270a7f67ff5006c3525b9807e467c4e56000ba338f5d429559036751822246c80d3b38f07f4be2d8ff5805f51322",
            "29bde93bbbdcaf382bf1ee972fbf9977bada8945847a2a6c9ad34a667554e04d1f7fa2c33241bd8f01ba220d"
        ),
        ct: concat!(
            "131d43e0dea1be5c5a1bfd971d852cbf712d7b4f57961fea3208afa8bca433f456ad09c7417e58bc69cf8866d1353f74865e80781d202dfb",
            "3ecff7fcbc3b190fe82a204ed0e350fc0f6f2613b2f2bca6df5a473a57a4a00d985ebad880d6f23864a07b01"
        ),
    },
    Eea3Set {
        key: "d4552a8fd6e61cc81a2009141a29c10b",
        count: 0x76452ec1,
        bearer: 0x2,
        direction: 1,
        bits: 1570,
        pt: concat!(
            "38f07f4be2d8ff5805f5132229bde93bbbdcaf382bf1ee972fbf9977bada8945847a2a6c9ad34a667554e04d1f7fa2c33241bd8f01ba220d",
            "3ca4ec41e074595f54ae2b454fd971432043601965cca85c2417ed6cbec3bada84fc8a579aea7837b0271177242a64dc0a9de71a8edee86c",
            "a3d47d033d6bf539804eca86c584a9052de46ad3fced65543bd90207372b27afb79234f5ff43ea870820e2c2b78a8aae61cce52a0515e348",
            "d196664a3456b182a07c406e4a20791271cfeda165d535ec5ea2d4df40"
        ),
        ct: concat!(
            "8383b0229fcc0b9d2295ec41c977e9c2bb72e220378141f9c8318f3a270dfbcdee6411c2b3044f176dc6e00f8960f97afacd131ad6a3b49b",
            "16b7babcf2a509ebb16a75dcab14ff275dbeeea1a2b155f9d52c26452d0187c310a4ee55beaa78ab4024615ba9f5d5adc7728f73560671f0",
            "13e5e550085d3291df7d5fecedded559641b6c2f585233bc71e9602bd2305855bbd25ffa7f17ecbc042daae38c1f57ad8e8ebd37346f71be",
            "fdbb7432e0e0bb2cfc09bcd96570cb0c0c39df5e29294e82703a637f80"
        ),
    },
    Eea3Set {
        key: "db84b4fbccda563b66227bfe456f0f77",
        count: 0xe4850fe1,
        bearer: 0x10,
        direction: 1,
        bits: 2798,
        pt: concat!(
            "e539f3b8973240da03f2b8aa05ee0a00dbafc0e182055dfe3d7383d92cef40e92928605d52d05f4f9018a1f189ae3997ce19155fb1221db8",
            "bb0951a853ad852ce16cff07382c93a157de00ddb125c7539fd85045e4ee07e0c43f9e9d6f414fc4d1c62917813f74c00fc83f3e2ed7c45b",
            "a5835264b43e0b20afda6b3053bfb6423b7fce25479ff5f139dd9b5b995558e2a56be18dd581cd017c735e6f0d0d97c4ddc1d1da70c6db4a",
            "12cc92778e2fbbd6f3ba52af91c9c6b64e8da4f7a2c266d02d001753df08960393c5d56888bf49eb5c16d9a80427a416bcb597df5bfe6f13",
            "890a07ee1340e6476b0d9aa8f822ab0fd1ab0d204f40b7ce6f2e136eb67485e507804d504588ad37ffd816568b2dc40311dfb654cdead47e",
            "2385c3436203dd836f9c64d97462ad5dfa63b5cfe08acb9532866f5ca787566fca93e6b1693ee15cf6f7a2d689d9741798dc1c238e1be650",
            "733b18fb34ff880e16bbd21b47ac"
        ),
        ct: concat!(
            "4bbfa91ba25d47db9a9f190d962a19ab323926b351fbd39e351e05da8b8925e30b1cce0d1221101095815cc7cb6319509ec0d67940491987",
            "e13f0affac332aa6aa64626d3e9a1917519e0b97b655c6a165e44ca9feac0790d2a321ad3d86b79c5138739fa38d887ec7def449ce8abdd3",
            "e7f8dc4ca9e7b73314ad310f9025e61946b3a56dc649ec0da0d63943dff592cf962a7efb2c8524e35a2a6e7879d62604ef268695fa400302",
            "7e22e6083077522064bd4a5b906b5f531274f235ed506cff0154c754928a0ce5476f2cb1020a1222d32c1455ecaef1e368fb344d1735bfbe",
            "deb71d0a33a2a54b1da5a294e679144ddf11eb1a3de8cf0cc061917974f35c1d9ca0ac81807f8fcce6199a6c7712da865021b04ce0439516",
            "f1a526ccda9fd9abbd53c3a684f9ae1e7ee6b11da138ea826c5516b5aadf1abbe36fa7fff92e3a1176064e8d95f2e4882b5500b93228b219",
            "4a475c1a27f63f9ffd264989a1bc"
        ),
    },
    Eea3Set {
        key: "e13fed21b46e4e7ec31253b2bb17b3e0",
        count: 0x2738cdaa,
        bearer: 0x1a,
        direction: 0,
        bits: 4019,
        pt: concat!(
            "8d74e20d54894e06d3cb13cb3933065e8674be62adb1c72b3a646965ab63cb7b7854dfdc27e84929f49c64b872a490b13f957b64827e71f4",
            "1fbd4269a42c97f824537027f86e9f4ad82d1df451690fdd98b6d03f3a0ebe3a312d6b840ba5a1820b2a2c9709c090d245ed267cf845ae41",
            "fa975d3333ac3009fd40eba9eb5b885714b768b697138baf21380eca49f644d48689e4215760b906739f0d2b3f091133ca15d981cbe401ba",
            "f72d05ace05cccb2d297f4ef6a5f58d91246cfa77215b892ab441d5278452795ccb7f5d79057a1c4f77f80d46db2033cb79bedf8e60551ce",
            "10c667f62a97abafabbcd6772018df96a282ea737ce2cb331211f60d5354ce78f9918d9c206ca042c9b62387dd709604a50af16d8d35a890",
            "6be484cf2e74a9289940364353249b27b4c9ae29eddfc7da6418791a4e7baa0660fa64511f2d685cc3a5ff70e0d2b74292e3b8a0cd6b04b1",
            "c790b8ead2703708540dea2fc09c3da770f65449e84d817a4f551055e19ab85018a0028b71a144d96791e9a3577933504eee0060340c69d2",
            "74e1bf9d805dcbcc1a6faa976800b6ff2b671dc463652fa8a33ee50974c1c21be01eabb2167430269d72ee511c9dde30797c9a25d86ce74f",
            "5b961be5fdfb6807814039e7137636bd1d7fa9e09efd2007505906a5ac45dfdeed7757bbee745749c29633350bee0ea6f409df45801600"
        ),
        ct: concat!(
            "94eaa4aa30a57137ddf09b97b25618a20a13e2f10fa5bf8161a879cc2ae797a6b4cf2d9df31debb9905ccfec97de605d21c61ab8531b7f3c",
            "9da5f03931f8a0642de48211f5f52ffea10f392a047669985da454a28f080961a6c2b62daa17f33cd60a4971f48d2d909394a55f48117ace",
            "43d708e6b77d3dc46d8bc017d4d1abb77b7428c042b06f2f99d8d07c9879d99600127a31985f1099bbd7d6c1519ede8f5eeb4a610b349ac0",
            "1ea2350691756bd105c974a53eddb35d1d4100b012e522ab41f4c5f2fde76b59cb8b96d885cfe4080d1328a0d636cc0edc05800b76acca8f",
            "ef672084d1f52a8bbd8e0993320992c7ffbae17c408441e0ee883fc8a8b05e22f5ff7f8d1b48c74c468c467a028f09fd7ce91109a570a2d5",
            "c4d5f4fa18c5dd3e4562afe24ef771901f59af645898acef088abae07e92d52eb2de55045bb1b7c4164ef2d7a6cac15eeb926d7ea2f08b66",
            "e1f759f3aee44614725aa3c7482b30844c143ff85b53f1e583c501257dddd096b81268daa303f17234c2333541f0bb8e190648c5807c866d",
            "7193228609adb948686f7de294a802cc38f7fe5208f5ea3196d0167b9bdd02f0d2a5221ca508f893af5c4b4bb9f4f520fd84289b3dbe7e61",
            "497a7e2a584037ea637b6981127174af57b471df4b2768fd79c1540fb3edf2ea22cb69bec0cf8d933d9c6fdd645e850591cca3d62c0cc0"
        ),
    },
];

/// Document 3, section 4: 128-EEA3 test sets 1-5; the unused bits of a final partial byte
/// come out zero.
#[test]
fn eea3_test_sets() {
    for (n, set) in EEA3_SETS.iter().enumerate() {
        let key: [u8; 16] = h(set.key).try_into().unwrap();
        let len = set.bits.div_ceil(8);
        let pt = h(set.pt);
        let ct = h(set.ct);
        assert_eq!(pt.len(), len, "set {}", n + 1);
        let mut expect = ct[..len].to_vec();
        if set.bits % 8 != 0 {
            expect[len - 1] &= 0xff << (8 - set.bits % 8);
        }
        let run = |data: &mut [u8]| {
            eea3(&key, set.count, set.bearer, set.direction, data, set.bits).unwrap()
        };
        let mut data = pt.clone();
        run(&mut data);
        assert_eq!(hex::encode(&data), hex::encode(&expect), "set {}", n + 1);
        // Decryption gives the plaintext back, unused bits zero.
        run(&mut data);
        let mut pt_masked = pt.clone();
        if set.bits % 8 != 0 {
            pt_masked[len - 1] &= 0xff << (8 - set.bits % 8);
        }
        assert_eq!(data, pt_masked, "set {} round trip", n + 1);
    }
}

/// The same five 128-EEA3 test sets (Document 3, section 4) as one batch of packets, on
/// every many-message engine here: all five at once (lanes of different lengths), and each
/// set repeated eight times (a full group of lanes), must give the published ciphertexts.
#[test]
fn eea3_test_sets_many() {
    let expected: Vec<(Vec<u8>, Vec<u8>)> = EEA3_SETS
        .iter()
        .map(|set| {
            let len = set.bits.div_ceil(8);
            let mut ct = h(set.ct)[..len].to_vec();
            if set.bits % 8 != 0 {
                ct[len - 1] &= 0xff << (8 - set.bits % 8);
            }
            (h(set.pt), ct)
        })
        .collect();
    // Packets for sets `which` (by index) over `data`, encrypted on `engine`.
    let run = |which: &[usize], data: &mut [Vec<u8>], engine: ManyEngine| {
        let mut packets: Vec<Eea3Packet<'_>> = which
            .iter()
            .zip(data.iter_mut())
            .map(|(&n, d)| {
                let set = &EEA3_SETS[n];
                Eea3Packet {
                    ck: h(set.key).try_into().unwrap(),
                    count: set.count,
                    bearer: set.bearer,
                    direction: set.direction,
                    data: d,
                    bit_len: set.bits,
                }
            })
            .collect();
        eea3_many_on(&mut packets, engine).unwrap();
    };
    for engine in ManyEngine::available() {
        let all: Vec<usize> = (0..EEA3_SETS.len()).collect();
        let mut data: Vec<Vec<u8>> = expected.iter().map(|(pt, _)| pt.clone()).collect();
        run(&all, &mut data, engine);
        for (n, (d, (_, ct))) in data.iter().zip(&expected).enumerate() {
            assert_eq!(hex::encode(d), hex::encode(ct), "{engine}: set {}", n + 1);
        }
        for (n, (pt, ct)) in expected.iter().enumerate() {
            let mut data = vec![pt.clone(); 8];
            run(&[n; 8], &mut data, engine);
            for d in &data {
                assert_eq!(hex::encode(d), hex::encode(ct), "{engine}: set {}", n + 1);
            }
        }
    }
}

struct Eia3Set {
    key: &'static str,
    count: u32,
    bearer: u8,
    direction: u8,
    bits: usize,
    msg: &'static str,
    mac: &'static str,
}

const EIA3_SETS: [Eia3Set; 5] = [
    Eia3Set {
        key: "00000000000000000000000000000000",
        count: 0,
        bearer: 0,
        direction: 0,
        bits: 1,
        msg: "00000000",
        mac: "c8a9595e",
    },
    Eia3Set {
        key: "47054125561eb2dda94059da05097850",
        count: 0x561eb2dd,
        bearer: 0x14,
        direction: 0,
        bits: 90,
        msg: "000000000000000000000000",
        mac: "6719a088",
    },
    Eia3Set {
        key: "c9e6cec4607c72db000aefa88385ab0a",
        count: 0xa94059da,
        bearer: 0xa,
        direction: 1,
        bits: 577,
        msg: concat!(
            "983b41d47d780c9e1ad11d7eb70391b1de0b35da2dc62f83e7b78d6306ca0ea07e941b7be91348f9fcb170e22",
            "17fecd97f9f68adb16e5d7d21e569d280ed775cebde3f4093c5388100000000"
        ),
        mac: "fae8ff0b",
    },
    Eia3Set {
        key: "c8a48262d0c2e2bac4b96ef77e80ca59",
        count: 0x05097850,
        bearer: 0x10,
        direction: 1,
        bits: 2079,
        msg: concat!(
            "b546430bf87b4f1ee834704cd6951c36e26f108cf731788f48dc34f1678c05221c8fa7ff2f39f477e7e49ef60a4ec2c3de24312a96aa26e1",
            "cfba57563838b297f47e8510c779fd6654b143386fa639d31edbd6c06e47d159d94362f26aeeedee0e4f49d9bf8412995415bfad56ee82d1",
            "ca7463abf085b082b09904d6d990d43cf2e062f40839d93248b1eb92cdfed5300bc148280430b6d0caa094b6ec8911ab7dc36824b824dc0a",
            "f6682b0935fde7b492a14dc2f43648038da2cf79170d2d50133fd49416cb6e33bea90b8bf4559b03732a01ea290e6d074f79bb83c10e5800",
            "15cc1a85b36b5501046e9c4bdcae5135690b8666bd54b7a703ea7b6f220a5469a568027e"
        ),
        mac: "004ac4d6",
    },
    Eia3Set {
        key: "6b8b08ee79e0b5982d6d128ea9f220cb",
        count: 0x561eb2dd,
        bearer: 0x1c,
        direction: 0,
        bits: 5670,
        msg: concat!(
            "5bad724710ba1c56d5a315f8d40f6e093780be8e8de07b6992432018e08ed96a5734af8bad8a575d3a1f162f85045cc770925571d9f5b94e",
            "454a77c16e72936bf016ae157499f0543b5d52caa6dbeab697d2bb73e41b8075dce79b4b86044f661d4485a543dd78606e0419e8059859d3",
            "cb2b67ce0977603f81ff839e331859544cfbc8d00fef1a4c8510fb547d6b06c611ef44f1bce107cfa45a06aab360152b28dc1ebe6f7fe09b",
            "0516f9a5b02a1bd84bb0181e2e89e19bd8125930d178682f3862dc51b636f04e720c47c3ce51ad70d94b9b2255fbae906549f499f8c6d399",
            "47ed5e5df8e2def113253e7b08d0a76b6bfc68c812f375c79b8fe5fd85976aa6d46b4a2339d8ae5147f680fbe70f978b38effd7b2f7866a2",
            "2554e193a94e98a68b74bd25bb2b3f5fb0a5fd59887f9ab68159b7178d5b7b677cb546bf41eadca216fc10850128f8bdef5c8d89f96afa4f",
            "a8b54885565ed838a950fee5f1c3b0a4f6fb71e54dfd169e82cecc7266c850e67c5ef0ba960f5214060e71eb172a75fc1486835cbea65344",
            "65b055c96a72e4105224182325d830414b40214daa8091d2e0fb010ae15c6de90850973bdf1e423be148a237b87a0c9f34d4b47605b803d7",
            "43a86a90399a4af396d3a1200a62f3d9507962e8e5bee6d3da2bb3f7237664ac7a292823900bc63503b29e80d63f6067bf8e1716ac25beba",
            "350deb62a99fe03185eb4f69937ecd387941fda544ba67db0911774938b01827bcc69c92b3f772a9d2859ef003398b1f6bbad7b574f7989a",
            "1d10b2df798e0dbf30d6587464d24878cd00c0eaee8a1a0cc753a27979e11b41db1de3d5038afaf49f5c682c3748d8a3a9ec54e6a371275f",
            "1683510f8e4f90938f9ab6e134c2cfdf4841cba88e0cff2b0bcc8e6adcb71109b5198fecf1bb7e5c531aca50a56a8a3b6de59862d41fa113",
            "d9cd957808f08571d9a4bb792af271f6cc6dbb8dc7ec36e36be1ed308164c31c7c0afc541c000000"
        ),
        mac: "0ca12792",
    },
];

/// Document 3, section 5: 128-EIA3 test sets 1-5 on every engine, one-shot and split
/// across updates.
#[test]
fn eia3_test_sets() {
    for (n, set) in EIA3_SETS.iter().enumerate() {
        for backend in Backend::available() {
            let key: [u8; 16] = h(set.key).try_into().unwrap();
            let msg = h(set.msg);
            let msg = &msg[..set.bits.div_ceil(8)];
            let iv = eia3_iv(set.count, set.bearer, set.direction).unwrap();
            let mac = Eia3::with_backend(&key.into(), &iv.into(), backend).unwrap();
            let tag = mac.clone().finalize_bits(msg, set.bits).unwrap();
            assert_eq!(hex::encode(tag), set.mac, "set {}", n + 1);
            // Whole bytes through `Mac::update`, the rest through `finalize_bits`.
            for split in [0, 1, 3, 5, 8] {
                let full = set.bits / 8;
                let split = split.min(full);
                let mut m = mac.clone();
                Mac::update(&mut m, &msg[..split]);
                let tag = m
                    .finalize_bits(&msg[split..], set.bits - 8 * split)
                    .unwrap();
                assert_eq!(
                    hex::encode(tag),
                    set.mac,
                    "set {} split {split} {backend}",
                    n + 1
                );
            }
        }
    }
}

/// "The ZUC-256 Stream Cipher", section 4: keystream for the all-zero key and IV and for the
/// all-one key and IV (IV17..IV24 are 6-bit, so 0x3f).
#[test]
fn zuc256_keystream_paper_vectors() {
    let zero: [u32; 20] = [
        0x58d03ad6, 0x2e032ce2, 0xdafc683a, 0x39bdcb03, 0x52a2bc67, 0xf1b7de74, 0x163ce3a1,
        0x01ef5558, 0x9639d75b, 0x95fa681b, 0x7f090df7, 0x56391ccc, 0x903b7612, 0x744d544c,
        0x17bc3fad, 0x8b163b08, 0x21787c0b, 0x97775bb8, 0x4943c6bb, 0xe8ad8afd,
    ];
    let ones: [u32; 20] = [
        0x3356cbae, 0xd1a1c18b, 0x6baa4ffe, 0x343f777c, 0x9e15128f, 0x251ab65b, 0x949f7b26,
        0xef7157f2, 0x96dd2fa9, 0xdf95e3ee, 0x7a5be02e, 0xc32ba585, 0x505af316, 0xc2f9ded2,
        0x7cdbd935, 0xe441ce11, 0x15fd0a80, 0xbb7aef67, 0x68989416, 0xb8fac8c2,
    ];
    let mut c = Zuc256::new(&[0u8; 32].into(), &[0u8; 25].into());
    assert_eq!(words(&mut c, 20), zero);
    let mut iv = [0xffu8; 25];
    iv[17..].fill(0x3f);
    let mut c = Zuc256::new(&[0xffu8; 32].into(), &iv.into());
    assert_eq!(words(&mut c, 20), ones);
    // The 23-byte packed IV of all ones is the same IV.
    let unpacked = shangmi_zuc::zuc256_iv_from_packed(&[0xff; 23]);
    assert_eq!(unpacked, iv);
}

/// "The ZUC-256 Stream Cipher", section 4: MAC tags of 400 zero bits and 4000 bits of 0x11
/// under the all-zero and the all-one key and IV.
#[test]
fn zuc256_mac_paper_vectors() {
    let mut ones_iv = [0xffu8; 25];
    ones_iv[17..].fill(0x3f);
    let cases: [([u8; 32], [u8; 25], u8, usize, &str, &str, &str); 4] = [
        (
            [0; 32],
            [0; 25],
            0x00,
            50,
            "9b972a74",
            "673e54990034d38c",
            "d85e54bbcb9600967084c952a1654b26",
        ),
        (
            [0; 32],
            [0; 25],
            0x11,
            500,
            "8754f5cf",
            "130dc225e72240cc",
            "df1e8307b31cc62beca1ac6f8190c22f",
        ),
        (
            [0xff; 32],
            ones_iv,
            0x00,
            50,
            "1f3079b4",
            "8c71394d39957725",
            "a35bb274b567c48b28319f111af34fbd",
        ),
        (
            [0xff; 32],
            ones_iv,
            0x11,
            500,
            "5c7c8b88",
            "ea1dee544bb6223b",
            "3a83b554be408ca5494124ed9d473205",
        ),
    ];
    for (key, iv, byte, len, t32, t64, t128) in cases {
        let msg = vec![byte; len];
        for backend in Backend::available() {
            let tag = Zuc256Mac32::with_backend(&key.into(), &iv.into(), backend).unwrap();
            assert_eq!(
                hex::encode(tag.chain_update(&msg).finalize().into_bytes()),
                t32
            );
            let tag = Zuc256Mac64::with_backend(&key.into(), &iv.into(), backend).unwrap();
            assert_eq!(
                hex::encode(tag.chain_update(&msg).finalize().into_bytes()),
                t64
            );
            let tag = Zuc256Mac128::with_backend(&key.into(), &iv.into(), backend).unwrap();
            assert_eq!(
                hex::encode(tag.chain_update(&msg).finalize().into_bytes()),
                t128,
                "{backend}"
            );
        }
        let tag = Zuc256Mac32::new(&key.into(), &iv.into())
            .chain_update(&msg)
            .finalize();
        assert_eq!(hex::encode(tag.into_bytes()), t32);
        let tag = Zuc256Mac64::new(&key.into(), &iv.into())
            .chain_update(&msg)
            .finalize();
        assert_eq!(hex::encode(tag.into_bytes()), t64);
        let tag = Zuc256Mac128::new(&key.into(), &iv.into())
            .chain_update(&msg)
            .finalize();
        assert_eq!(hex::encode(tag.into_bytes()), t128);
        // Bit-granular end: the same message as bits.
        let tag = Zuc256Mac128::new(&key.into(), &iv.into())
            .finalize_bits(&msg, 8 * len)
            .unwrap();
        assert_eq!(hex::encode(tag), t128);
        // verify() accepts the tag and refuses a changed one.
        let good: [u8; 4] = h(t32).try_into().unwrap();
        let mut bad = good;
        bad[3] ^= 1;
        let mac = Zuc256Mac32::new(&key.into(), &iv.into()).chain_update(&msg);
        assert!(mac.clone().verify(&good.into()).is_ok());
        assert!(mac.verify(&bad.into()).is_err());
    }
}

/// Tongsuo 8.5.0-pre2 (its ZUC-128-EEA3 cipher and EIA3 MAC), run by hand on 2026-11-28:
/// `openssl enc -zuc-128-eea3 -K 0f1e2d3c4b5a69788796a5b4c3d2e1f0 -iv a1b2c3d4ac` and
/// `openssl mac -macopt hexkey:… -macopt hexiv:a1b2c3d4ac EIA3` over the 75 bytes
/// (7i + 3) mod 256. Tongsuo's 5-byte IV is COUNT ‖ (BEARER << 3 | DIRECTION << 2), here
/// COUNT 0xa1b2c3d4, BEARER 21, DIRECTION 1. A third implementation beside the 3GPP data
/// and the `zuc` crate; `eea3_many` must agree too.
#[test]
fn tongsuo_eea3_eia3() {
    let ck: [u8; 16] = h("0f1e2d3c4b5a69788796a5b4c3d2e1f0").try_into().unwrap();
    let msg: Vec<u8> = (0..75u32).map(|i| ((7 * i + 3) % 256) as u8).collect();
    let ct = h(
        "aaf6d2934e569940faf26a26d95ddd910cec3c7f46a49befa0da4b7f325ada9da6164b1ff5ca0628640d2e33\
         79e2e0bb6892754dfc00bd4b3a385d9d42d943291282f0708720e433c89f8c",
    );
    let mut data = msg.clone();
    eea3(&ck, 0xa1b2_c3d4, 21, 1, &mut data, 8 * 75).unwrap();
    assert_eq!(hex::encode(&data), hex::encode(&ct));
    for engine in ManyEngine::available() {
        let mut data = msg.clone();
        let mut packets = [Eea3Packet {
            ck,
            count: 0xa1b2_c3d4,
            bearer: 21,
            direction: 1,
            data: &mut data,
            bit_len: 8 * 75,
        }];
        eea3_many_on(&mut packets, engine).unwrap();
        assert_eq!(hex::encode(&data), hex::encode(&ct), "{engine}");
    }
    let tag = Eia3::with_params(&ck, 0xa1b2_c3d4, 21, 1)
        .unwrap()
        .chain_update(&msg)
        .finalize()
        .into_bytes();
    assert_eq!(hex::encode(tag), "81626cf4");
}

#[test]
fn parameter_errors() {
    use shangmi_zuc::{Error, eea3_iv};
    assert_eq!(eea3_iv(0, 32, 0), Err(Error::Bearer));
    assert_eq!(eia3_iv(0, 0, 2), Err(Error::Direction));
    let mut data = [0u8; 3];
    assert_eq!(
        eea3(&[0; 16], 0, 0, 0, &mut data, 25),
        Err(Error::BitLength)
    );
    assert_eq!(
        eea3(&[0; 16], 0, 0, 0, &mut data, 16),
        Err(Error::BitLength)
    );
    let mac = Eia3::with_params(&[0; 16], 0, 0, 0).unwrap();
    assert_eq!(mac.finalize_bits(&data, 9), Err(Error::BitLength));
}
