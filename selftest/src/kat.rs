//! The power-on known-answer tests: one function per test, each computing a published
//! example with fixed inputs and comparing with the published output. Every input and
//! expected value is read through [`Tamper::v`], which is a plain copy in a normal build and
//! lets this crate's own unit tests flip any byte of any vector (`tests::every_vector_byte`).

use aead::{AeadInOut, KeyInit};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyIvInit, StreamCipher};
use digest::{Digest, Mac};
use hex_literal::hex;
use shangmi_drbg::{Clock, Drbg, Sm3HashDrbg, Sm4CtrDrbg};
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm3::Sm3;
use shangmi_sm4::Sm4;
use shangmi_sm4_modes::Sm4Gcm;
use shangmi_zuc::{Eia3, Zuc128};

/// One known-answer test: its name (as `shangmi selftest` prints it), where its vector is
/// published, and the function that runs it.
pub(crate) struct Kat {
    pub(crate) name: &'static str,
    pub(crate) origin: &'static str,
    pub(crate) run: fn(&mut Tamper) -> bool,
}

/// Every power-on test, in the order they run.
pub(crate) const KATS: &[Kat] = &[
    Kat {
        name: "sm3",
        origin: "GB/T 32905-2016 Appendix A, examples 1 and 2",
        run: sm3,
    },
    Kat {
        name: "hmac-sm3",
        origin: "GM/T 0042-2015 Appendix D.3 (key 0x0b x 32, \"Hi There\")",
        run: hmac_sm3,
    },
    Kat {
        name: "sm4-encrypt",
        origin: "GB/T 32907-2016 Appendix A, example 1",
        run: sm4_encrypt,
    },
    Kat {
        name: "sm4-decrypt",
        origin: "GB/T 32907-2016 Appendix A, example 1",
        run: sm4_decrypt,
    },
    Kat {
        name: "sm4-gcm",
        origin: "RFC 8998 Appendix A.1",
        run: sm4_gcm,
    },
    Kat {
        name: "sm2-sign",
        origin: "GB/T 32918.5-2017 Annex A (signature, the published k)",
        run: sm2_sign,
    },
    Kat {
        name: "sm2-verify",
        origin: "GB/T 32918.5-2017 Annex A (signature)",
        run: sm2_verify,
    },
    #[cfg(feature = "alloc")]
    Kat {
        name: "sm2-encrypt-decrypt",
        origin: "GB/T 32918.5-2017 Annex C (encryption, the published k; \
                 GM/T 0009 ASN.1 form as in OpenSSL's sm2_internal_test.c)",
        run: sm2_encrypt_decrypt,
    },
    Kat {
        name: "zuc-128",
        origin: "3GPP TS 35.223 (ETSI/SAGE Document 3) section 3, test set 3",
        run: zuc128,
    },
    Kat {
        name: "zuc-eea3",
        origin: "3GPP TS 35.223 (ETSI/SAGE Document 3) section 4, 128-EEA3 test set 1",
        run: zuc_eea3,
    },
    Kat {
        name: "zuc-eia3",
        origin: "3GPP TS 35.223 (ETSI/SAGE Document 3) section 5, 128-EIA3 test set 2",
        run: zuc_eia3,
    },
    Kat {
        name: "sm9-sign",
        origin: "GM/T 0044-2016 part 5, Annex A (signature example, the published r)",
        run: sm9_sign,
    },
    Kat {
        name: "sm9-verify",
        origin: "GM/T 0044-2016 part 5, Annex A (signature example)",
        run: sm9_verify,
    },
    Kat {
        name: "drbg-sm3",
        origin: "GM/T 0105-2021 SM3 generator; vector of emmansun/gmsm v0.44.0 \
                 drbg/hash_drbg_test.go (the standard gives none)",
        run: drbg_sm3,
    },
    Kat {
        name: "drbg-sm4",
        origin: "GM/T 0105-2021 SM4 generator; vector of emmansun/gmsm v0.44.0 \
                 drbg/ctr_drbg_test.go (the standard gives none)",
        run: drbg_sm4,
    },
];

/// The number of power-on tests in this build.
pub const KAT_COUNT: usize = KATS.len();

/// Hands out copies of the vectors. In this crate's unit tests (and with the
/// `fault-injection` feature, for tests of programs) it can flip one byte of the n-th
/// vector a test reads; in every other build it is a zero-sized copy.
#[derive(Default)]
pub(crate) struct Tamper {
    /// (vector index, byte index) to flip.
    #[cfg(any(test, feature = "fault-injection"))]
    pub(crate) target: Option<(usize, usize)>,
    /// Vectors read so far.
    #[cfg(any(test, feature = "fault-injection"))]
    pub(crate) seen: usize,
}

impl Tamper {
    /// A copy of the vector `v`.
    #[inline(always)]
    pub(crate) fn v<const N: usize>(&mut self, v: &[u8; N]) -> [u8; N] {
        #[cfg(any(test, feature = "fault-injection"))]
        {
            let mut out = *v;
            if let Some((i, byte)) = self.target
                && i == self.seen
            {
                // The top bit: the one used even in a partial final byte (ZUC's bit lengths).
                out[byte.min(N - 1)] ^= 0x80;
            }
            self.seen += 1;
            out
        }
        #[cfg(not(any(test, feature = "fault-injection")))]
        *v
    }
}

fn sm3(t: &mut Tamper) -> bool {
    let abc = t.v(b"abc");
    let abc_md = t.v(&hex!(
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    ));
    let abcd = t.v(b"abcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabcd");
    let abcd_md = t.v(&hex!(
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
    ));
    Sm3::digest(abc)[..] == abc_md && Sm3::digest(abcd)[..] == abcd_md
}

fn hmac_sm3(t: &mut Tamper) -> bool {
    let key = t.v(&[0x0b; 32]);
    let msg = t.v(b"Hi There");
    let tag = t.v(&hex!(
        "c0ba18c68b90c88bc07de794bfc7d2c8d19ec31ed8773bc2b390c9604e0be11e"
    ));
    let Ok(mut mac) = <hmac::Hmac<Sm3> as KeyInit>::new_from_slice(&key) else {
        return false;
    };
    mac.update(&msg);
    mac.verify_slice(&tag).is_ok()
}

const SM4_KEY: [u8; 16] = hex!("0123456789abcdeffedcba9876543210");
const SM4_CT: [u8; 16] = hex!("681edf34d206965e86b3e94f536e4246");

fn sm4_encrypt(t: &mut Tamper) -> bool {
    let key = t.v(&SM4_KEY);
    let pt = t.v(&SM4_KEY); // the example encrypts its key
    let ct = t.v(&SM4_CT);
    let mut block = pt.into();
    <Sm4 as KeyInit>::new(&key.into()).encrypt_block(&mut block);
    block[..] == ct
}

fn sm4_decrypt(t: &mut Tamper) -> bool {
    let key = t.v(&SM4_KEY);
    let ct = t.v(&SM4_CT);
    let pt = t.v(&SM4_KEY);
    let mut block = ct.into();
    <Sm4 as KeyInit>::new(&key.into()).decrypt_block(&mut block);
    block[..] == pt
}

fn sm4_gcm(t: &mut Tamper) -> bool {
    let key = t.v(&hex!("0123456789abcdeffedcba9876543210"));
    let nonce = t.v(&hex!("00001234567800000000abcd"));
    let aad = t.v(&hex!("feedfacedeadbeeffeedfacedeadbeefabaddad2"));
    let pt = t.v(&hex!(
        "aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
        "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"
    ));
    let ct = t.v(&hex!(
        "17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
        "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"
    ));
    let tag = t.v(&hex!("83de3541e4c2b58177e065a9bf7b62ec"));
    let gcm = <Sm4Gcm as KeyInit>::new(&key.into());
    let mut buf = pt;
    let Ok(sealed_tag) = gcm.encrypt_inout_detached(&nonce.into(), &aad, (&mut buf[..]).into())
    else {
        return false;
    };
    if buf != ct || sealed_tag[..] != tag {
        return false;
    }
    // Opening checks the published tag and gives the plaintext back.
    gcm.decrypt_inout_detached(&nonce.into(), &aad, (&mut buf[..]).into(), &tag.into())
        .is_ok()
        && buf == pt
}

// GB/T 32918.5-2017 Annex A: the key, the public key, the message and the nonce of the
// signature example; Annex C encrypts with the same key and k.
const SM2_D: [u8; 32] = hex!("3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8");
const SM2_Q: [u8; 65] = hex!(
    "04"
    "09f9df311e5421a150dd7d161e4bc5c672179fad1833fc076bb08ff356f35020"
    "ccea490ce26775a52dc6ea718cc1aa600aed05fbf35e084a6632f6072da9ad13"
);
const SM2_K: [u8; 32] = hex!("59276e27d506861a16680f3ad9c02dccef3cc1fa3cdbe4ce6d54b80deac1bc21");
const SM2_RS: [u8; 64] = hex!(
    "f5a03b0648d2c4630eeac513e1bb81a15944da3827d5b74143ac7eaceee720b3"
    "b1b6aa29df212fd8763182bc0d421ca1bb9038fd1f7f42d4840b69c485bbc1aa"
);

fn sm2_sign(t: &mut Tamper) -> bool {
    let d = t.v(&SM2_D);
    let id = t.v(b"1234567812345678");
    let msg = t.v(b"message digest");
    let k = t.v(&SM2_K);
    let rs = t.v(&SM2_RS);
    let Ok(key) = SigningKey::from_bytes_with_id(&d.into(), &id) else {
        return false;
    };
    let e = key.verifying_key().hash_message(&msg);
    matches!(key.sign_e_with_nonce(&e, &k.into()), Ok(sig) if sig.to_bytes() == rs)
}

fn sm2_verify(t: &mut Tamper) -> bool {
    let q = t.v(&SM2_Q);
    let id = t.v(b"1234567812345678");
    let msg = t.v(b"message digest");
    let rs = t.v(&SM2_RS);
    let (Ok(key), Ok(sig)) = (
        VerifyingKey::from_sec1_bytes_with_id(&q, &id),
        Signature::from_bytes(&rs),
    ) else {
        return false;
    };
    let e = key.hash_message(&msg);
    key.verify_e(&e, &sig).is_ok()
}

#[cfg(feature = "alloc")]
fn sm2_encrypt_decrypt(t: &mut Tamper) -> bool {
    use shangmi_sm2::pke::{self, DecryptingKey, Layout};
    let d = t.v(&SM2_D);
    let msg = t.v(b"encryption standard");
    let k = t.v(&SM2_K);
    let der = t.v(&hex!(
        "307C"
        "022004EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
        "022100E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
        "042059983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
        "041321886CA989CA9C7D58087307CA93092D651EFA"
    ));
    let Ok(key) = DecryptingKey::from_bytes(&d.into()) else {
        return false;
    };
    let sealed = key
        .encrypting_key()
        .encrypt_with_nonce(&k.into(), &msg, Layout::C1C3C2)
        .and_then(|ct| pke::c1c3c2_to_der(&ct));
    matches!(sealed, Ok(ct) if ct == der) && matches!(key.decrypt_der(&der), Ok(pt) if pt == msg)
}

fn zuc128(t: &mut Tamper) -> bool {
    let key = t.v(&hex!("3d4c4be96a82fdaeb58f641db17b455b"));
    let iv = t.v(&hex!("84319aa8de6915ca1f6bda6bfbd8c766"));
    let z = t.v(&hex!("14f1c2723279c419")); // z1, z2
    let mut out = [0u8; 8];
    Zuc128::new(&key.into(), &iv.into()).apply_keystream(&mut out);
    out == z
}

fn zuc_eea3(t: &mut Tamper) -> bool {
    let key = t.v(&hex!("173d14ba5003731d7a60049470f00a29"));
    // COUNT 0x66035492, BEARER 0x0f, DIRECTION 0, LENGTH 193 bits.
    let pt = t.v(&hex!("6cf65340735552ab0c9752fa6f9025fe0bd675d9005875b200"));
    let ct = t.v(&hex!("a6c85fc66afb8533aafc2518dfe784940ee1e4b030238cc800"));
    let mut data = pt;
    shangmi_zuc::eea3(&key, 0x6603_5492, 0x0f, 0, &mut data, 193).is_ok() && data == ct
}

fn zuc_eia3(t: &mut Tamper) -> bool {
    let key = t.v(&hex!("47054125561eb2dda94059da05097850"));
    // COUNT 0x561eb2dd, BEARER 0x14, DIRECTION 0, LENGTH 90 bits.
    let msg = t.v(&[0u8; 12]);
    let mac = t.v(&hex!("6719a088"));
    let tag = Eia3::with_params(&key, 0x561e_b2dd, 0x14, 0).and_then(|m| m.finalize_bits(&msg, 90));
    matches!(tag, Ok(tag) if tag == mac)
}

// GM/T 0044-2016 part 5, Annex A: the signing master key ks (248 bits, here padded to 32
// bytes), the identity, the message, r, and the signature (h, S).
const SM9_KS: [u8; 32] = hex!("000130E78459D78545CB54C587E02CF480CE0B66340F319F348A1D5B1F2DC5F4");
const SM9_SIG: [u8; 96] = hex!(
    "823c4b21e4bd2dfe1ed92c606653e996668563152fc33f55d7bfbb9bd9705adb"
    "73bf96923ce58b6ad0e13e9643a406d8eb98417c50ef1b29cef9adb48b6d598c"
    "856712f1c2e0968ab7769f42a99586aed139d5b8b3e15891827cc2aced9baa05"
);

fn sm9_sign(t: &mut Tamper) -> bool {
    use shangmi_sm9::SignMasterKey;
    let ks = t.v(&SM9_KS);
    let id = t.v(b"Alice");
    let msg = t.v(b"Chinese IBS standard");
    let r = t.v(&hex!(
        "00033C8616B06704813203DFD00965022ED15975C662337AED648835DC4B1CBE"
    ));
    let sig = t.v(&SM9_SIG);
    let signed = SignMasterKey::from_bytes(&ks)
        .and_then(|kgc| kgc.extract(&id))
        .and_then(|alice| alice.sign_with_fixed_r(&msg, &r));
    matches!(signed, Ok(s) if s.to_bytes() == sig)
}

fn sm9_verify(t: &mut Tamper) -> bool {
    use shangmi_sm9::{SignMasterKey, Signature, hid};
    let ks = t.v(&SM9_KS);
    let id = t.v(b"Alice");
    let msg = t.v(b"Chinese IBS standard");
    let sig = t.v(&SM9_SIG);
    let (Ok(kgc), Ok(sig)) = (SignMasterKey::from_bytes(&ks), Signature::from_bytes(&sig)) else {
        return false;
    };
    kgc.public_key().verify(&id, hid::SIGN, &msg, &sig).is_ok()
}

/// The clock of the DRBG tests: the time limit is never reached within one test.
#[derive(Clone, Copy)]
struct Frozen;

impl Clock for Frozen {
    fn now_seconds(&self) -> u64 {
        0
    }
}

/// Instantiate, reseed, generate twice; whether the second output is `expect` (gmsm's flow).
fn drbg_kat<D: Drbg<Clock = Frozen>, const N: usize>(
    seed: [&[u8]; 4],
    additional: [&[u8]; 2],
    expect: &[u8; N],
) -> bool {
    let [entropy, nonce, reseed, reseed_additional] = seed;
    let mut out = [0u8; N];
    let result = D::new(entropy, nonce, b"", Frozen).and_then(|mut drbg| {
        drbg.reseed(reseed, reseed_additional)?;
        drbg.generate(&mut out, additional[0])?;
        drbg.generate(&mut out, additional[1])
    });
    result.is_ok() && out == *expect
}

fn drbg_sm3(t: &mut Tamper) -> bool {
    // The second GM case: reseed and generate additional input.
    let entropy = t.v(&hex!(
        "9cfb7ad03be487a3b42be06e9ae44f283c2b1458cec801da2ae6532fcb56cc4c"
    ));
    let nonce = t.v(&hex!("a20765538e8db31295747ec922c13a69"));
    let reseed = t.v(&hex!(
        "96bc8014f90ebdf690db0e171b59cc46c75e2e9b8e1dc699c65c03ceb2f4d7dc"
    ));
    let reseed_add = t.v(&hex!(
        "6fea0894052dab3c44d503950c7c72bd7b87de87cb81d3bb51c32a62f742286d"
    ));
    let add1 = t.v(&hex!(
        "d3467c78563b74c13db7af36c2a964820f2a9b1b167474906508fdac9b2049a6"
    ));
    let add2 = t.v(&hex!(
        "5840a11cc9ebf77b963854726a826370ffdb2fc2b3d8479e1df5dcfa3dddd10b"
    ));
    let expect = t.v(&hex!(
        "48709db5509a03d6131775fbbfe74fe52611e760d22fde61e274a295f4354d67"
    ));
    drbg_kat::<Sm3HashDrbg<Frozen>, 32>(
        [&entropy, &nonce, &reseed, &reseed_add],
        [&add1, &add2],
        &expect,
    )
}

fn drbg_sm4(t: &mut Tamper) -> bool {
    // "SM4-128, without additional input", GM mode.
    let entropy = t.v(&hex!(
        "2d4c9f46b981c6a0b2b5d8c69391e569ff13851437ebc0fc00d616340252fed5"
    ));
    let nonce = t.v(&hex!("0bf814b411f65ec4866be1abb59d3c32"));
    let reseed = t.v(&hex!(
        "93500fae4fa32b86033b7a7bac9d37e710dcc67ca266bc8607d665937766d207"
    ));
    let expect = t.v(&hex!("e732a524de8ad239aa293ac8ae588f9d"));
    drbg_kat::<Sm4CtrDrbg<Frozen>, 16>([&entropy, &nonce, &reseed, &[]], [&[], &[]], &expect)
}
