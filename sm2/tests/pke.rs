//! SM2 public-key encryption: the GB/T 32918.5 / GM/T 0003.5 Annex vector on the recommended
//! curve, layouts (C1 uncompressed, compressed and bare), ASN.1, tampering, the empty message,
//! ciphertexts written by gmsm, and differential tests against RustCrypto `sm2` 0.14 and
//! OpenSSL 3.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use hex_literal::hex;
use proptest::prelude::*;
use rand::{SeedableRng, rngs::StdRng};
use shangmi_sm2::Error;
use shangmi_sm2::pke::{self, DecryptingKey, EncryptingKey, Layout};

// GB/T 32918.5-2017 / GM/T 0003.5-2012 Annex (recommended curve), message
// "encryption standard", the same key and k as the signature example; the ASN.1 ciphertext is
// the one in OpenSSL's test/sm2_internal_test.c.
const D: [u8; 32] = hex!("3945208F7B2144B13F36E38AC6D39F95889393692860B51A42FB81EF4DF7C5B8");
const K: [u8; 32] = hex!("59276E27D506861A16680F3AD9C02DCCEF3CC1FA3CDBE4CE6D54B80DEAC1BC21");
const MSG: &[u8] = b"encryption standard";
const CT_DER: [u8; 126] = hex!(
    "307C"
    "022004EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73"
    "022100E858F9D81E5430A57B36DAAB8F950A3C64E6EE6A63094D99283AFF767E124DF0"
    "042059983C18F809E262923C53AEC295D30383B54E39D609D160AFCB1908D0BD8766"
    "041321886CA989CA9C7D58087307CA93092D651EFA"
);

const LAYOUTS: [Layout; 6] = Layout::ALL;

/// Whether two layouts put C3 and C2 in the same order and agree on whether C1 has a tag
/// (decryption reads a tagged C1's form from the tag, so those decrypt each other's output).
fn same_parse(a: Layout, b: Layout) -> bool {
    let c3_first = |l| {
        matches!(
            l,
            Layout::C1C3C2 | Layout::C1C3C2Raw | Layout::C1C3C2Compressed
        )
    };
    let raw = |l| matches!(l, Layout::C1C3C2Raw | Layout::C1C2C3Raw);
    c3_first(a) == c3_first(b) && raw(a) == raw(b)
}

/// A seeded generator: the tests need repeatable randomness, not secrecy.
fn seeded(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// The GB/T 32918.5 vector's key and its ciphertext of `MSG` with the nonce `K` (C1C3C2).
fn vector_ciphertext() -> (DecryptingKey, Vec<u8>) {
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let ct = dk
        .encrypting_key()
        .encrypt_with_nonce(&K.into(), MSG, Layout::C1C3C2)
        .unwrap();
    (dk, ct)
}

#[test]
fn gbt32918_5_encryption_vector() {
    let (dk, ct) = vector_ciphertext();
    assert_eq!(pke::c1c3c2_to_der(&ct).unwrap(), CT_DER);
    assert_eq!(pke::der_to_c1c3c2(&CT_DER).unwrap(), ct);
    assert_eq!(dk.decrypt_der(&CT_DER).unwrap(), MSG);
    assert_eq!(dk.decrypt(&ct, Layout::C1C3C2).unwrap(), MSG);
}

#[test]
fn all_layouts_round_trip_and_convert() {
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let mut rng = seeded(7);
    for msg in [
        &b"a"[..],
        &[0x5Au8; 32][..],
        &[1u8; 33][..],
        &[9u8; 1000][..],
    ] {
        for layout in LAYOUTS {
            let ct = dk.encrypting_key().encrypt(&mut rng, msg, layout).unwrap();
            let c1_len = match layout {
                Layout::C1C3C2 | Layout::C1C2C3 => 65,
                Layout::C1C3C2Raw | Layout::C1C2C3Raw => 64,
                Layout::C1C3C2Compressed | Layout::C1C2C3Compressed => 33,
            };
            assert_eq!(ct.len(), c1_len + 32 + msg.len(), "{layout:?}");
            assert_eq!(dk.decrypt(&ct, layout).unwrap(), msg);
            for other in LAYOUTS {
                let conv = pke::convert(&ct, layout, other).unwrap();
                assert_eq!(dk.decrypt(&conv, other).unwrap(), msg);
                if same_parse(layout, other) {
                    assert_eq!(dk.decrypt(&conv, layout).unwrap(), msg, "{other:?}");
                } else if msg.len() > 1 {
                    assert!(dk.decrypt(&conv, layout).is_err(), "{other:?}");
                }
            }
        }
        let der = dk.encrypting_key().encrypt_der(&mut rng, msg).unwrap();
        assert_eq!(dk.decrypt_der(&der).unwrap(), msg);
    }
}

#[test]
fn rejects_bad_ciphertexts() {
    let (dk, ct) = vector_ciphertext();
    for i in 0..ct.len() {
        let mut bad = ct.clone();
        bad[i] ^= 0x01;
        assert!(dk.decrypt(&bad, Layout::C1C3C2).is_err(), "byte {i}");
    }
    assert!(dk.decrypt(&ct[..96], Layout::C1C3C2).is_err());
    assert!(dk.decrypt(&[], Layout::C1C2C3Raw).is_err());
    // Another key cannot decrypt.
    let other = DecryptingKey::from_bytes(&[3u8; 32].into()).unwrap();
    assert!(other.decrypt(&ct, Layout::C1C3C2).is_err());
    // Non-minimal DER lengths and trailing bytes.
    let mut trailing = CT_DER.to_vec();
    trailing.push(0);
    assert!(dk.decrypt_der(&trailing).is_err());
    let mut long_form = vec![0x30, 0x81, 0x7C];
    long_form.extend_from_slice(&CT_DER[2..]);
    assert!(dk.decrypt_der(&long_form).is_err());
}

#[test]
fn diff_rustcrypto_encrypt_decrypt() {
    use rustcrypto_sm2::pke as rc;
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let rc_dk = rc::DecryptingKey::from_bytes(&D.into()).unwrap();
    let rc_dk_old = rc::DecryptingKey::new_with_mode(*rc_dk.as_nonzero_scalar(), rc::Mode::C1C2C3);
    let mut rng = seeded(11);
    for len in [1usize, 31, 32, 33, 200] {
        let msg = vec![len as u8; len];
        let ours = dk
            .encrypting_key()
            .encrypt(&mut rng, &msg, Layout::C1C3C2)
            .unwrap();
        assert_eq!(rc_dk.decrypt(&ours).unwrap(), msg);
        let ours_old = dk
            .encrypting_key()
            .encrypt(&mut rng, &msg, Layout::C1C2C3)
            .unwrap();
        assert_eq!(rc_dk_old.decrypt(&ours_old).unwrap(), msg);
        let theirs = rc_dk.encrypting_key().encrypt(&mut rng, &msg).unwrap();
        assert_eq!(dk.decrypt(&theirs, Layout::C1C3C2).unwrap(), msg);
        let theirs_der = rc_dk.encrypting_key().encrypt_der(&mut rng, &msg).unwrap();
        assert_eq!(dk.decrypt_der(&theirs_der).unwrap(), msg);
    }
}

#[test]
#[cfg(target_arch = "x86_64")] // OpenSSL is linked on the development host only
fn diff_openssl_encrypt_decrypt() {
    use openssl::pkey::PKey;
    use openssl::pkey_ctx::PkeyCtx;
    use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let secret = shangmi_sm2::SecretKey::from_bytes(&D.into()).unwrap();
    let key = PKey::private_key_from_pkcs8(secret.to_pkcs8_der().unwrap().as_bytes()).unwrap();
    let mut rng = seeded(13);
    for len in [1usize, 32, 77] {
        let msg = vec![0xA5 ^ len as u8; len];
        // OpenSSL encrypts (ASN.1 form), we decrypt.
        let mut ctx = PkeyCtx::new(&key).unwrap();
        ctx.encrypt_init().unwrap();
        let mut ct = Vec::new();
        ctx.encrypt_to_vec(&msg, &mut ct).unwrap();
        assert_eq!(dk.decrypt_der(&ct).unwrap(), msg);
        // We encrypt, OpenSSL decrypts.
        let ours = dk.encrypting_key().encrypt_der(&mut rng, &msg).unwrap();
        let mut ctx = PkeyCtx::new(&key).unwrap();
        ctx.decrypt_init().unwrap();
        let mut pt = Vec::new();
        ctx.decrypt_to_vec(&ours, &mut pt).unwrap();
        assert_eq!(pt, msg);
    }
    // The empty message: OpenSSL 3 refuses to encrypt it, and refuses the ASN.1 ciphertext
    // whose C2 is empty (the one `empty_message_is_refused_both_ways` builds), as we do.
    let mut ctx = PkeyCtx::new(&key).unwrap();
    ctx.encrypt_init().unwrap();
    let mut ct = Vec::new();
    assert!(ctx.encrypt_to_vec(b"", &mut ct).is_err());
    let (c1, hash) = empty_message_parts();
    let mut raw = vec![0x04];
    raw.extend_from_slice(&c1);
    raw.extend_from_slice(&hash);
    let der = pke::c1c3c2_to_der(&raw).unwrap();
    let mut ctx = PkeyCtx::new(&key).unwrap();
    ctx.decrypt_init().unwrap();
    let mut pt = Vec::new();
    assert!(ctx.decrypt_to_vec(&der, &mut pt).is_err());
}

/// C1 and C3 of a ciphertext of the empty message under the GB/T 32918.5 Annex C key and k:
/// C1 = k·G, C3 = SM3(x2 ‖ y2) with (x2, y2) = k·P_B, computed with RustCrypto's `sm2`
/// arithmetic and `sm3` (independent of ours). This is what the code before the empty-message
/// rule produced for `encrypt_with_nonce(K, b"")` and decrypted to the empty message.
fn empty_message_parts() -> ([u8; 64], [u8; 32]) {
    use rustcrypto_sm2::elliptic_curve::sec1::ToSec1Point;
    use rustcrypto_sm3::Digest;
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let public = dk.encrypting_key().public_key().to_sec1_point(false);
    let public = rustcrypto_sm2::PublicKey::from_sec1_bytes(public.as_bytes()).unwrap();
    let k = rustcrypto_sm2::NonZeroScalar::try_from(&K[..]).unwrap();
    let c1 = rustcrypto_sm2::PublicKey::from_secret_scalar(&k).to_sec1_point(false);
    let shared = (public.to_projective() * *k)
        .to_affine()
        .to_sec1_point(false);
    let mut xy = [0u8; 64];
    xy.copy_from_slice(&c1.as_bytes()[1..]);
    let hash = rustcrypto_sm3::Sm3::digest(&shared.as_bytes()[1..]);
    (xy, hash.into())
}

/// GB/T 32918.4-2016 checks that the key stream t is not all zero (A5 when encrypting, B4
/// when decrypting); for an empty message t is empty, so there is nothing the check could
/// accept, and the ciphertext would be C1 ‖ C3 alone. OpenSSL 3 refuses to encrypt an empty
/// message (checked below in `diff_openssl_encrypt_decrypt`), and gmsm (v0.44) returns no ciphertext for
/// it and refuses to decrypt a ciphertext whose C2 is empty (its all-zero test of t is true
/// for an empty t). We refuse both with `Error::EmptyMessage`.
#[test]
fn empty_message_is_refused_both_ways() {
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let ek = dk.encrypting_key();
    let mut rng = seeded(17);
    for layout in LAYOUTS {
        assert_eq!(ek.encrypt(&mut rng, b"", layout), Err(Error::EmptyMessage));
        assert_eq!(
            ek.encrypt_with_nonce(&K.into(), b"", layout),
            Err(Error::EmptyMessage)
        );
    }
    assert_eq!(ek.encrypt_der(&mut rng, b""), Err(Error::EmptyMessage));

    // Hand-built ciphertexts of the empty message (97 bytes in C1C3C2), with the C3 a
    // decryptor would accept: each layout refuses them with the typed error.
    let (c1, hash) = empty_message_parts();
    let mut uncompressed = vec![0x04];
    uncompressed.extend_from_slice(&c1);
    uncompressed.extend_from_slice(&hash);
    assert_eq!(uncompressed.len(), 97);
    let mut compressed = vec![0x02 | (c1[63] & 1)];
    compressed.extend_from_slice(&c1[..32]);
    compressed.extend_from_slice(&hash);
    let mut raw = c1.to_vec();
    raw.extend_from_slice(&hash);
    for (ct, layouts) in [
        (&uncompressed, [Layout::C1C3C2, Layout::C1C2C3]),
        (
            &compressed,
            [Layout::C1C3C2Compressed, Layout::C1C2C3Compressed],
        ),
        (&raw, [Layout::C1C3C2Raw, Layout::C1C2C3Raw]),
    ] {
        for layout in layouts {
            assert_eq!(
                dk.decrypt(ct, layout),
                Err(Error::EmptyMessage),
                "{layout:?}"
            );
        }
    }
    // The ASN.1 form with an empty ciphertext OCTET STRING.
    let der = pke::c1c3c2_to_der(&uncompressed).unwrap();
    assert_eq!(&der[der.len() - 2..], [0x04, 0x00]);
    assert_eq!(dk.decrypt_der(&der), Err(Error::EmptyMessage));
    // One byte more is an ordinary ciphertext again: it fails its hash check.
    let mut longer = uncompressed.clone();
    longer.push(0);
    assert_eq!(dk.decrypt(&longer, Layout::C1C3C2), Err(Error::Decryption));
}

// Ciphertexts written by gmsm v0.44.0 (emmansun/gmsm, `sm2.Encrypt` with
// `NewPlainEncrypterOpts(MarshalCompressed, C1C3C2 / C1C2C3)`) to the GB/T 32918.5 key D,
// generated in this project's review session: C1 compressed, both tags, both orders.
const GMSM_COMPRESSED: [(&str, Layout, &[u8]); 4] = [
    (
        "028bf8bd892607fb6a7e39bf29365815a3aa4dee567328d10889ca0d3b9f9947bfb5a37978c1ead07469e563c0a95cbd13f7646747378fb12d4a7331a8693dd3816d1b8d38b3a8b2db395849caa24ac6bf1809c9",
        Layout::C1C3C2,
        MSG,
    ),
    (
        "038ccccd73798c32a70aee17f38c2f736636b431f262d299dfa64ec3cf7f1cb08969f0b113616e6585cee109f61db360333b4d05d4c6b33d97279f36076ac43ba52351cebe2615ef027ec7f4f9a9004726d9ec59",
        Layout::C1C2C3,
        MSG,
    ),
    (
        "03262995b3361a39e83ba3f3b36ef674909fb3ef15f807655505bf60d189e73e6be62aff5d3b09db6ef4ae1e0d6f44451a1bbaf0ab0ef86f1a23d4eb3918705da237397718a4817307e10e770668e8dbf74616ad6b222f72814911d7bdb41249ed76e793d720cf5be5015b146ccf01608515a28ac77438f6881336985338c63ba357dafdd8b24ad32480e5bf5b496e03c3d59bf68f328069c8a196c9f10d64e1ad822469f7",
        Layout::C1C3C2,
        &GMSM_MSG100,
    ),
    (
        "03b849c0a41a2b1c7eb508f17aa6653961bb11cb9382f032f418dba76333f760caeb431f05b8f09ac824abbe48241dc367de38bd93ec3af8f6d8e9cab82e9d18bdeba9dd803f4fddbaa21cf59c5a627d367c98ae99404015408f40be2288100b7ba6f34f112329b2daa0ae28c65307fb46b4887ead410290da6f9654747b788c7553d1c14f79f8ec2872f94f899a53a00c7a6903d440c220f84cec86f1a0d35d5bbbf5565b",
        Layout::C1C2C3,
        &GMSM_MSG100,
    ),
];

/// The second gmsm message: bytes 0, 1, …, 99.
const GMSM_MSG100: [u8; 100] = {
    let mut m = [0u8; 100];
    let mut i = 0;
    while i < 100 {
        m[i] = i as u8;
        i += 1;
    }
    m
};

#[test]
fn compressed_c1_from_gmsm_decrypts_in_every_layout() {
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    for (hex_ct, layout, msg) in GMSM_COMPRESSED {
        let ct = hex::decode(hex_ct).unwrap();
        assert_eq!(ct.len(), 33 + 32 + msg.len());
        let compressed_layout = match layout {
            Layout::C1C3C2 => Layout::C1C3C2Compressed,
            _ => Layout::C1C2C3Compressed,
        };
        // Either name of the order reads C1's form from the tag.
        assert_eq!(dk.decrypt(&ct, layout).unwrap(), msg);
        assert_eq!(dk.decrypt(&ct, compressed_layout).unwrap(), msg);
        // Converted to every other layout (decompressed where it must), and to ASN.1.
        for other in LAYOUTS {
            let conv = pke::convert(&ct, layout, other).unwrap();
            assert_eq!(dk.decrypt(&conv, other).unwrap(), msg, "{other:?}");
        }
        let c1c3c2 = pke::convert(&ct, layout, Layout::C1C3C2Compressed).unwrap();
        let der = pke::c1c3c2_to_der(&c1c3c2).unwrap();
        assert_eq!(dk.decrypt_der(&der).unwrap(), msg);
        // Re-compressing gives gmsm's bytes back.
        let round = pke::convert(
            &pke::convert(&ct, layout, Layout::C1C2C3Raw).unwrap(),
            Layout::C1C2C3Raw,
            compressed_layout,
        )
        .unwrap();
        assert_eq!(round, ct);
        // The other parity names the other point with this x: the hash check fails.
        let mut flipped = ct.clone();
        flipped[0] ^= 1;
        assert_eq!(dk.decrypt(&flipped, layout), Err(Error::Decryption));
    }
}

#[test]
fn compressed_c1_rejects_bad_points_and_tags() {
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let ct = dk
        .encrypting_key()
        .encrypt_with_nonce(&K.into(), MSG, Layout::C1C3C2Compressed)
        .unwrap();
    assert_eq!(ct.len(), 33 + 32 + MSG.len());
    // GB/T 32918.5 Annex C's C1 has an even y (C1y ends in f0): tag 0x02.
    assert_eq!(ct[0], 0x02);
    assert_eq!(
        ct[1..33],
        hex!("04EBFC718E8D1798620432268E77FEB6415E2EDE0E073C0F4F640ECD2E149A73")
    );
    assert_eq!(dk.decrypt(&ct, Layout::C1C3C2).unwrap(), MSG);
    // Tags that are not a ciphertext's C1: identity, compact, hybrid, garbage.
    for tag in [0x00, 0x01, 0x05, 0x06, 0x07, 0x30, 0xFF] {
        let mut bad = ct.clone();
        bad[0] = tag;
        assert_eq!(
            dk.decrypt(&bad, Layout::C1C3C2),
            Err(Error::Decryption),
            "{tag:#x}"
        );
        assert!(pke::convert(&bad, Layout::C1C3C2, Layout::C1C3C2Raw).is_err());
    }
    // An x with no point on the curve: x = 2 (2³ - 3·2 + b is not a square mod p; RustCrypto's
    // `sm2` refuses the same encoding).
    let mut no_point = ct.clone();
    no_point[1..33].fill(0);
    no_point[32] = 2;
    assert!(rustcrypto_sm2::PublicKey::from_sec1_bytes(&no_point[..33]).is_err());
    assert_eq!(
        dk.decrypt(&no_point, Layout::C1C3C2),
        Err(Error::Decryption)
    );
    // x = p (not canonical).
    let mut x_is_p = ct.clone();
    x_is_p[1..33].copy_from_slice(&hex!(
        "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF"
    ));
    assert_eq!(dk.decrypt(&x_is_p, Layout::C1C3C2), Err(Error::Decryption));
    // Too short to hold C1 and C3.
    assert_eq!(
        dk.decrypt(&ct[..64], Layout::C1C3C2),
        Err(Error::Decryption)
    );
    // Every single-bit change is refused.
    for i in 0..ct.len() {
        let mut bad = ct.clone();
        bad[i] ^= 0x10;
        assert!(
            dk.decrypt(&bad, Layout::C1C3C2Compressed).is_err(),
            "byte {i}"
        );
    }
}

/// Differential against RustCrypto `sm2` 0.14, which writes C1 compressed through
/// `Cipher::to_vec(mode, true)` and reads either form: its compressed ciphertexts decrypt
/// here and ours decrypt there, in both orders.
#[test]
fn diff_rustcrypto_compressed_c1() {
    use rustcrypto_sm2::pke::{self as rc, Cipher, Mode};
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    let rc_dk = rc::DecryptingKey::from_bytes(&D.into()).unwrap();
    let mut rng = seeded(19);
    for len in [1usize, 19, 32, 33, 200] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        for (mode, ours, tagged) in [
            (Mode::C1C3C2, Layout::C1C3C2Compressed, Layout::C1C3C2),
            (Mode::C1C2C3, Layout::C1C2C3Compressed, Layout::C1C2C3),
        ] {
            let rc_mode_dk = rc::DecryptingKey::new_with_mode(*rc_dk.as_nonzero_scalar(), mode);
            // Theirs, re-encoded with C1 compressed, decrypts here.
            let theirs = rc_mode_dk.encrypting_key().encrypt(&mut rng, &msg).unwrap();
            let theirs =
                Cipher::<rustcrypto_sm2::Sm2, rustcrypto_sm3::Sm3>::from_slice(&theirs, mode)
                    .unwrap()
                    .to_vec(mode, true)
                    .unwrap();
            assert_eq!(theirs.len(), 33 + 32 + len);
            assert_eq!(dk.decrypt(&theirs, ours).unwrap(), msg);
            assert_eq!(dk.decrypt(&theirs, tagged).unwrap(), msg);
            // Ours decrypts there.
            let ct = dk.encrypting_key().encrypt(&mut rng, &msg, ours).unwrap();
            assert_eq!(rc_mode_dk.decrypt(&ct).unwrap(), msg);
            // And both write the same C1 for the same point: RustCrypto's parse of our
            // ciphertext, re-encoded compressed, is our ciphertext.
            let again = Cipher::<rustcrypto_sm2::Sm2, rustcrypto_sm3::Sm3>::from_slice(&ct, mode)
                .unwrap()
                .to_vec(mode, true)
                .unwrap();
            assert_eq!(again, ct);
        }
    }
}

#[test]
fn encrypting_key_from_sec1() {
    let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
    use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
    let enc = dk.encrypting_key().public_key().to_sec1_point(true);
    let ek = EncryptingKey::from_sec1_bytes(enc.as_bytes()).unwrap();
    let ct = ek
        .encrypt_with_nonce(&K.into(), MSG, Layout::C1C3C2)
        .unwrap();
    assert_eq!(dk.decrypt(&ct, Layout::C1C3C2).unwrap(), MSG);
    assert!(EncryptingKey::from_sec1_bytes(&[4u8; 65]).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn encrypt_decrypt_round_trip(seed in any::<u64>(), msg in proptest::collection::vec(any::<u8>(), 1..300), flip in any::<usize>()) {
        let mut d = [0u8; 32];
        d[..8].copy_from_slice(&seed.to_be_bytes());
        d[31] |= 1;
        let dk = DecryptingKey::from_bytes(&d.into()).unwrap();
        let mut rng = seeded(seed);
        let ct = dk.encrypting_key().encrypt(&mut rng, &msg, Layout::C1C3C2).unwrap();
        prop_assert_eq!(&dk.decrypt(&ct, Layout::C1C3C2).unwrap(), &msg);
        let mut bad = ct.clone();
        let i = flip % bad.len();
        bad[i] ^= 0x80;
        prop_assert!(dk.decrypt(&bad, Layout::C1C3C2).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// What the ASN.1 parser accepts re-encodes to the same bytes (it is strict DER).
    #[test]
    fn der_ciphertext_parser_round_trips(len in 1usize..300, seed in any::<u64>(), cut in any::<usize>()) {
        let dk = DecryptingKey::from_bytes(&D.into()).unwrap();
        let mut rng = seeded(seed);
        let msg = vec![0x42u8; len];
        let der = dk.encrypting_key().encrypt_der(&mut rng, &msg).unwrap();
        let raw = pke::der_to_c1c3c2(&der).unwrap();
        prop_assert_eq!(pke::c1c3c2_to_der(&raw).unwrap(), der.clone());
        let truncated = &der[..cut % der.len()];
        prop_assert!(pke::der_to_c1c3c2(truncated).is_err());
    }
}

#[test]
fn layout_names_round_trip_in_any_case_and_refuse_others() {
    for layout in Layout::ALL {
        assert_eq!(layout.name().parse::<Layout>(), Ok(layout));
        assert_eq!(layout.to_string(), layout.name());
        assert_eq!(
            layout.name().to_ascii_lowercase().parse::<Layout>(),
            Ok(layout)
        );
        let dashed = layout.name().replace('_', "-");
        assert_eq!(dashed.parse::<Layout>(), Ok(layout));
    }
    for bad in [
        "",
        "C1C3",
        "C1C3C2_",
        "C1C3C2 ",
        "ASN1",
        "DER",
        "C1C3C2-RAWX",
        "C1C3C2_RAW_",
    ] {
        assert_eq!(bad.parse::<Layout>(), Err(pke::UnknownLayout), "{bad:?}");
    }
    // '-' stands only for '_': "C1-3C2" is no name.
    assert!("C1-3C2".parse::<Layout>().is_err());
}
