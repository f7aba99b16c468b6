//! HMAC-SM3 (RFC 2104 construction over SM3) and HKDF-SM3 (RFC 5869) through the RustCrypto
//! `hmac` 0.13 and `hkdf` 0.13 crates.
//!
//! Known answers from GM/T 0042-2015 appendix D.3; beyond those, tags are checked three
//! ways: against OpenSSL's HMAC-SM3 (`openssl` crate, differential), against RustCrypto
//! `sm3` 0.5 under the same `hmac` crate, and against the RFC 2104 formula
//! H((K ^ opad) || H((K ^ ipad) || m)) written out here. HKDF-SM3 is differential against
//! OpenSSL's HKDF (no published HKDF-SM3 vectors were found).

// Test and measurement code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

use hmac::{Hmac, KeyInit, Mac};
use shangmi_sm3::hazmat::{self, KeyedHmac};
use shangmi_sm3::{Backend, Digest, Sm3};

/// RFC 4231-style key/message shapes: short key, key equal to the block size, key longer
/// than the block size (hashed first), empty message, long message.
fn cases() -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![
        (vec![0x0b; 20], b"Hi There".to_vec()),
        (b"Jefe".to_vec(), b"what do ya want for nothing?".to_vec()),
        (vec![0xaa; 20], vec![0xdd; 50]),
        ((1..=25).collect(), vec![0xcd; 50]),
        (vec![0xaa; 64], b"key of exactly one block".to_vec()),
        (
            vec![0xaa; 131],
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
        ),
        (vec![], vec![]),
        (b"k".to_vec(), vec![0x61; 10_000]),
    ]
}

fn hmac_ours(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut mac = Hmac::<Sm3>::new_from_slice(key).unwrap();
    mac.update(msg);
    mac.finalize().into_bytes().to_vec()
}

/// RFC 2104, section 2, written out with our hash.
fn hmac_formula(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sm3::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let ipad: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    let opad: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    let inner = Sm3::new().chain_update(&ipad).chain_update(msg).finalize();
    Sm3::new()
        .chain_update(&opad)
        .chain_update(inner)
        .finalize()
        .to_vec()
}

#[test]
fn diff_rustcrypto_hmac_and_the_rfc2104_formula() {
    for (key, msg) in cases() {
        let ours = hmac_ours(&key, &msg);
        assert_eq!(ours, hmac_formula(&key, &msg), "key {key:02x?}");
        let mut peer = Hmac::<rustcrypto_sm3::Sm3>::new_from_slice(&key).unwrap();
        peer.update(&msg);
        assert_eq!(ours, peer.finalize().into_bytes().to_vec());
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn diff_openssl_hmac() {
    use openssl::{hash::MessageDigest, pkey::PKey, sign::Signer};
    // OpenSSL refuses an empty HMAC key through this API, so that case is checked only
    // against the formula and RustCrypto above.
    for (key, msg) in cases().into_iter().filter(|(k, _)| !k.is_empty()) {
        let pkey = PKey::hmac(&key).unwrap();
        let mut signer = Signer::new(MessageDigest::sm3(), &pkey).unwrap();
        signer.update(&msg).unwrap();
        assert_eq!(hmac_ours(&key, &msg), signer.sign_to_vec().unwrap());
    }
}

#[test]
fn hmac_verify_rejects_a_wrong_tag() {
    let mut mac = Hmac::<Sm3>::new_from_slice(b"key").unwrap();
    mac.update(b"msg");
    let mut tag = mac.clone().finalize().into_bytes();
    assert!(mac.clone().verify_slice(&tag).is_ok());
    tag[31] ^= 1;
    assert!(mac.verify_slice(&tag).is_err());
}

#[cfg(target_arch = "x86_64")]
#[test]
fn diff_openssl_hkdf() {
    use hkdf::Hkdf;
    use openssl::{md::Md, pkey::Id, pkey_ctx::PkeyCtx};
    let ikm = [0x0bu8; 22];
    let salt: Vec<u8> = (0..13).collect();
    let info: Vec<u8> = (0xf0..=0xf9).collect();
    for len in [1usize, 32, 42, 100, 255 * 32] {
        let mut ours = vec![0u8; len];
        Hkdf::<Sm3>::new(Some(&salt), &ikm)
            .expand(&info, &mut ours)
            .unwrap();
        let mut ctx = PkeyCtx::new_id(Id::HKDF).unwrap();
        ctx.derive_init().unwrap();
        ctx.set_hkdf_md(Md::sm3()).unwrap();
        ctx.set_hkdf_key(&ikm).unwrap();
        ctx.set_hkdf_salt(&salt).unwrap();
        ctx.add_hkdf_info(&info).unwrap();
        let mut theirs = vec![0u8; len];
        ctx.derive(Some(&mut theirs)).unwrap();
        assert_eq!(ours, theirs, "length {len}");
    }
    let mut too_long = vec![0u8; 255 * 32 + 1];
    assert!(
        Hkdf::<Sm3>::new(None, &ikm)
            .expand(&info, &mut too_long)
            .is_err()
    );
}

/// HMAC-SM3 known answers: the four vectors of GM/T 0042-2015 appendix D.3 (as quoted by
/// libxcrypt's test/alg-sm3-hmac.c), plus libxcrypt's own vector with a 128-byte key
/// (longer than the block, so the key is hashed first).
#[test]
fn hmac_gmt0042_appendix_d3() {
    use hex_literal::hex;
    let key_1_32: Vec<u8> = (1..=0x20).collect();
    let key_1_37: Vec<u8> = (1..=0x25).collect();
    let cases: [(&[u8], Vec<u8>, [u8; 32]); 5] = [
        (
            &key_1_32,
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".repeat(2),
            hex!("ca05e144ed05d1857840d1f318a4a8669e559fc8391f414485bfdf7bb408963a"),
        ),
        (
            &key_1_37,
            vec![0xcd; 50],
            hex!("220bf579ded555393f0159f66c99877822a3ecf610d1552154b41d44b94db3ae"),
        ),
        (
            &[0x0b; 32],
            b"Hi There".to_vec(),
            hex!("c0ba18c68b90c88bc07de794bfc7d2c8d19ec31ed8773bc2b390c9604e0be11e"),
        ),
        (
            b"Jefe",
            b"what do ya want for nothing?".to_vec(),
            hex!("2e87f1d16862e6d964b50a5200bf2b10b764faa9680a296a2405f24bec39f882"),
        ),
        (
            b"It's complicated to explain, but we need some text that clearly exceeds \
              sixtyfour bytes of data for the key to test coverage....",
            b"What is the purpose of this test???".to_vec(),
            hex!("d3dec863e316596238090eace661e6d3c4cbae43dcf0060c71f0e4e5dc5ff7d3"),
        ),
    ];
    for (key, msg, tag) in cases {
        assert_eq!(hmac_ours(key, &msg), tag.to_vec(), "key {key:02x?}");
        assert_eq!(KeyedHmac::new(key).mac([msg.as_slice()]), tag, "keyed");
    }
}

/// The keyed form (`hazmat::KeyedHmac`, which the TLS key schedule, TLCP's records and the
/// RFC 6979 nonces use) against the `hmac` crate over RustCrypto's `sm3` 0.5, at every
/// padding case of both hashes (messages ending at each offset of a block, 55 and 56 bytes
/// being the one/two padding block boundary; keys below, at and above a block), whole and
/// in uneven parts; and its two halves (`inner`, then the message's padded blocks
/// compressed by the caller, then `outer`) against the whole.
#[test]
fn keyed_hmac_is_hmac_sm3() {
    let bytes = |len: usize, seed: u8| -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    };
    for key_len in [0usize, 1, 32, 63, 64, 65, 130] {
        let key = bytes(key_len, 5);
        let keyed = KeyedHmac::new(&key);
        for msg_len in 0..200 {
            let msg = bytes(msg_len, 6);
            let mut peer = Hmac::<rustcrypto_sm3::Sm3>::new_from_slice(&key).unwrap();
            peer.update(&msg);
            let want: [u8; 32] = peer.finalize().into_bytes().into();
            assert_eq!(
                keyed.mac([msg.as_slice()]),
                want,
                "key {key_len}, {msg_len}"
            );
            let (a, rest) = msg.split_at(msg_len / 3);
            let (b, c) = rest.split_at(rest.len() / 2);
            assert_eq!(keyed.mac([a, b, &[], c]), want, "split {msg_len}");
            // The inner hash by hand: message, 0x80, zeros, bit length of ipad ‖ message.
            let mut padded = msg.clone();
            padded.push(0x80);
            while padded.len() % 64 != 56 {
                padded.push(0);
            }
            padded.extend_from_slice(&(8 * (64 + msg_len) as u64).to_be_bytes());
            let (blocks, _) = padded.as_chunks::<64>();
            let mut inner = keyed.inner();
            hazmat::compress(keyed.backend(), &mut inner, blocks).unwrap();
            assert_eq!(keyed.outer(&inner), want, "halves {msg_len}");
            // The same blocks with a hook stepped between the rounds: the same tag, and
            // 16 steps a block (inner blocks and the outer one) where the backend steps.
            let mut count = 0;
            let tag = keyed.tag_hooked(blocks, &mut Count, &mut count);
            assert_eq!(tag, want, "hooked {msg_len}");
            let steps = if hazmat::hooks_step_on(keyed.backend()) {
                16 * (blocks.len() + 1)
            } else {
                0
            };
            assert_eq!(count, steps, "hook steps {msg_len}");
        }
    }
    // From the states after the ipad and opad blocks, as a caller with a fixed key holds
    // them (RFC 6979's all-zero K).
    let zero = KeyedHmac::new(&[0; 32]);
    let mut states = [hazmat::IV; 2];
    for (s, pad) in states.iter_mut().zip([0x36u8, 0x5c]) {
        hazmat::compress(Backend::Soft, s, &[[pad; 64]]).unwrap();
    }
    let from = KeyedHmac::from_states(states[0], states[1]);
    assert_eq!(from.inner(), zero.inner());
    assert_eq!(
        from.mac([b"sample".as_slice()]),
        zero.mac([b"sample".as_slice()])
    );
}

/// Counts its steps (a `hazmat::RoundsHook`).
struct Count;

impl hazmat::RoundsHook for Count {
    type State = usize;
    fn step(&mut self, n: &mut usize) {
        *n += 1;
    }
}
