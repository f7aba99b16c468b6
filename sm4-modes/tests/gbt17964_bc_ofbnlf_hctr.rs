//! The GB/T 17964-2021 modes BC (chapter 12), OFBNLF (chapter 13) and HCTR (chapter 11) on
//! every SM4 engine the machine has: published values (emmansun/gmsm v0.44.0, files
//! `cipher/bc_test.go`, `cipher/ofbnlf_test.go`, `cipher/hctr_test.go`, SM4 with the
//! GB/T 17964 example inputs), a differential against outputs gmsm v0.44.0 itself produced
//! for random inputs (`tests/data/gmsm_17964_modes.txt`, made by
//! `benches/peers/gmsm17964/main.go`), an independent textbook model of each mode over
//! RustCrypto's `sm4` crate, and properties (decrypt ∘ encrypt = id for every length,
//! in place = buffer to buffer, split calls = one call).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use cipher::{
    Block, BlockCipherDecrypt as _, BlockCipherEncrypt as _, BlockModeDecrypt, BlockModeEncrypt,
    InnerIvInit, KeyInit, consts::U16, inout::InOutBuf,
};
use hex_literal::hex;
use proptest::prelude::*;
use shangmi_sm4::Sm4;
use shangmi_sm4_modes::{
    GhashBackend, HctrError, Sm4BcDec, Sm4BcEnc, Sm4Hctr, Sm4OfbnlfDec, Sm4OfbnlfEnc,
};

type Theirs = rustcrypto_sm4::Sm4;

#[path = "support/engines.rs"]
mod engines;
use engines::{ciphers, flat, to_blocks};
#[path = "support/sp800_38a.rs"]
mod sp800_38a;
use sp800_38a::{IV, KEY, PT};

#[derive(Clone, Copy, Debug)]
enum Mode {
    Bc,
    Ofbnlf,
}

/// `data` through a fresh `M` in two calls cut at `cut` blocks, in place and buffer to
/// buffer (checked equal).
fn run<M: InnerIvInit<Inner = Sm4, IvSize = U16>>(
    c: &Sm4,
    iv: &[u8; 16],
    data: &[u8],
    cut: usize,
    call: impl Fn(&mut M, InOutBuf<'_, '_, Block<Sm4>>),
) -> Vec<u8> {
    let input = to_blocks(data);
    let k = cut.min(input.len());
    let mut b = input.clone();
    let mut m = M::inner_iv_init(c.clone(), &(*iv).into());
    let (x, y) = b.split_at_mut(k);
    call(&mut m, x.into());
    call(&mut m, y.into());
    let mut out = vec![Block::<Sm4>::default(); input.len()];
    let mut m = M::inner_iv_init(c.clone(), &(*iv).into());
    let ((ix, iy), (ox, oy)) = (input.split_at(k), out.split_at_mut(k));
    call(&mut m, InOutBuf::new(ix, ox).unwrap());
    call(&mut m, InOutBuf::new(iy, oy).unwrap());
    assert_eq!(out, b, "in place = buffer to buffer");
    flat(&b)
}

fn encrypt(mode: Mode, c: &Sm4, iv: &[u8; 16], data: &[u8], cut: usize) -> Vec<u8> {
    match mode {
        Mode::Bc => run(c, iv, data, cut, Sm4BcEnc::encrypt_blocks_inout),
        Mode::Ofbnlf => run(c, iv, data, cut, Sm4OfbnlfEnc::encrypt_blocks_inout),
    }
}

fn decrypt(mode: Mode, c: &Sm4, iv: &[u8; 16], data: &[u8], cut: usize) -> Vec<u8> {
    match mode {
        Mode::Bc => run(c, iv, data, cut, Sm4BcDec::decrypt_blocks_inout),
        Mode::Ofbnlf => run(c, iv, data, cut, Sm4OfbnlfDec::decrypt_blocks_inout),
    }
}

// GB/T 17964-2021 example inputs (the key, IV and plaintext of NIST SP 800-38A's examples)
// with SM4; the ciphertexts as gmsm v0.44.0 `cipher/bc_test.go` and `cipher/ofbnlf_test.go`
// give them, by mode.
const BC_OFBNLF_VECTORS: [(Mode, [u8; 64]); 2] = [
    (
        Mode::Bc,
        hex!(
            "AC529AF989A62FCE9CDDC5FFB84125CAFB8CDE77339FFE481D113C40BBD5B678"
            "6FFC9916F98F94FF12D78319707E240428718707605BC1EAC503153EBAA0FB1D"
        ),
    ),
    (
        Mode::Ofbnlf,
        hex!(
            "00A5B5C9E645557C20CE7F267736F308A18037828850B9D78883CA622851F86C"
            "B7CAEFDFB6D4CABA6AE2D2FCE369CEB31001DD71FDDA9341F8D221CB720FF27B"
        ),
    ),
];

#[test]
fn bc_and_ofbnlf_vectors_on_every_engine() {
    for (name, c) in ciphers(&KEY) {
        for (mode, ct) in BC_OFBNLF_VECTORS {
            assert_eq!(encrypt(mode, &c, &IV, &PT, 0), ct, "{name} {mode:?}");
            assert_eq!(decrypt(mode, &c, &IV, &ct, 0), PT, "{name} {mode:?}");
        }
    }
}

/// gmsm v0.44.0 `cipher/hctr_test.go` (SM4 key [`KEY`], hash key [`HCTR_HASH_KEY`], tweak
/// [`HCTR_TWEAK`]): plaintext, ciphertext. Sectors of whole blocks only: for a partial last
/// block gmsm hashes other bytes than M ‖ T (see [`model_uhash`]), so its fourth value, a
/// 60-byte sector, is [`GMSM_HCTR_PARTIAL`], reproduced by the model with gmsm's quirk.
const HCTR_VECTORS: [(&str, &str); 3] = [
    (
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c37106bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c37106bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
        "8858dda3034233e377936b76ce7edeb6a245075a37800b0b996e8e974c9032ac8de40d90ee4ee5fb58bc10cbc95779485ab38ffb0b4f961d85f086db705ff723edbeaec649b3b406b11b96a418a9c2c51ef41cdd24e472c18336e9efcd07b7e264a1e2d46615198eb74938d72104fa89294a6360cdb6b032a704cf07a087bb2283598552701b2f710d6528d9c3f4dab529afef4413f25169b6cbf8168ccbfa02a2f507513d0cb3802da34dbd928b67e6afc30ca91011070cfd40c2ef3d4ac041",
    ),
    (
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710",
        "9cd7481d3b7ca904b14b4084d9d4c83ed39eac8e16747895fc2ae1eecd220276af3d0d2f21cb3807561347c81ad138117dd85c652afe16a47dc68eb884068ae3",
    ),
    (
        "6bc1bee22e409f96e93d7e117393172a",
        "b7b1dd75f608012dc69621d4ea720a60",
    ),
];
/// gmsm v0.44.0 `cipher/hctr_test.go`, its third case: a 60-byte sector (44 bytes after
/// the first block, a 12-byte partial block), plaintext and gmsm's ciphertext.
const GMSM_HCTR_PARTIAL: (&str, &str) = (
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417b",
    "f7505aff357ac13107cdb2848c6bb2dcdda473f7a6ea939d44f52c986c11ca9341042f2b0091a1ca5c8f708cae8ca6a5c59e2228b3616c4455627722",
);
const HCTR_HASH_KEY: [u8; 16] = hex!("000102030405060708090A0B0C0D0E0F");
const HCTR_TWEAK: [u8; 16] = hex!("F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF");

#[test]
fn hctr_vectors_on_every_engine() {
    for (name, c) in ciphers(&KEY) {
        let hctr = Sm4Hctr::from_cipher(c, &HCTR_HASH_KEY);
        for (i, (pt, ct)) in HCTR_VECTORS.iter().enumerate() {
            let (pt, ct) = (hex::decode(pt).unwrap(), hex::decode(ct).unwrap());
            let mut buf = pt.clone();
            hctr.encrypt(&HCTR_TWEAK, &mut buf).unwrap();
            assert_eq!(buf, ct, "{name} #{i}");
            hctr.decrypt(&HCTR_TWEAK, &mut buf).unwrap();
            assert_eq!(buf, pt, "{name} #{i}");
        }
    }
}

#[test]
fn hctr_vectors_on_every_ghash_engine() {
    let mut engines = 0;
    for g in GhashBackend::available() {
        let hctr = Sm4Hctr::with_ghash_backend(Sm4::new(&KEY.into()), &HCTR_HASH_KEY, g).unwrap();
        for (pt, ct) in HCTR_VECTORS {
            let mut buf = hex::decode(pt).unwrap();
            hctr.encrypt(&HCTR_TWEAK, &mut buf).unwrap();
            assert_eq!(hex::encode(&buf), ct, "{g:?}");
        }
        // A partial last block (the hash's padded tail) against the model.
        let pt: Vec<u8> = (0..93u8).collect();
        let mut buf = pt.clone();
        hctr.encrypt(&HCTR_TWEAK, &mut buf).unwrap();
        let want = model_hctr(&KEY, &HCTR_HASH_KEY, &HCTR_TWEAK, &pt, true, false);
        assert_eq!(buf, want, "{g:?}");
        engines += 1;
    }
    assert!(engines >= 1);
}

#[test]
fn hctr_key_init_is_cipher_key_then_hash_key() {
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(&KEY);
    key[16..].copy_from_slice(&HCTR_HASH_KEY);
    let hctr = Sm4Hctr::new(&key.into());
    let (pt, ct) = HCTR_VECTORS[1];
    let mut buf = hex::decode(pt).unwrap();
    hctr.encrypt(&HCTR_TWEAK, &mut buf).unwrap();
    assert_eq!(hex::encode(buf), ct);
}

#[test]
fn hctr_refuses_short_sectors_and_unequal_buffers() {
    let hctr = Sm4Hctr::new_from_keys(&KEY, &HCTR_HASH_KEY);
    for len in 0..16 {
        let mut buf = vec![0x5a; len];
        assert_eq!(
            hctr.encrypt(&HCTR_TWEAK, &mut buf),
            Err(HctrError::SectorTooShort)
        );
        assert_eq!(
            hctr.decrypt(&HCTR_TWEAK, &mut buf),
            Err(HctrError::SectorTooShort)
        );
        assert_eq!(buf, vec![0x5a; len], "untouched");
    }
    let mut out = [0u8; 31];
    assert_eq!(
        hctr.encrypt_b2b(&HCTR_TWEAK, &[0u8; 32], &mut out),
        Err(HctrError::LengthMismatch)
    );
    assert_eq!(
        hctr.decrypt_b2b(&HCTR_TWEAK, &[0u8; 32], &mut out),
        Err(HctrError::LengthMismatch)
    );
}

// ---- an independent textbook model of each mode, over RustCrypto's `sm4` ----

fn xor16(a: &mut [u8], b: &[u8]) {
    for (a, b) in a.iter_mut().zip(b) {
        *a ^= b;
    }
}

fn model_bc(key: &[u8; 16], iv: &[u8; 16], data: &[u8], enc: bool) -> Vec<u8> {
    let c = Theirs::new(&(*key).into());
    let mut f = *iv;
    let mut out = Vec::new();
    for b in data.chunks_exact(16) {
        let mut x = rustcrypto_sm4::cipher::Block::<Theirs>::try_from(b).unwrap();
        if enc {
            xor16(&mut x, &f);
            c.encrypt_block(&mut x);
            xor16(&mut f, &x);
        } else {
            c.decrypt_block(&mut x);
            xor16(&mut x, &f);
            xor16(&mut f, b);
        }
        out.extend_from_slice(&x);
    }
    out
}

fn model_ofbnlf(key: &[u8; 16], iv: &[u8; 16], data: &[u8], enc: bool) -> Vec<u8> {
    let c = Theirs::new(&(*key).into());
    let mut k = rustcrypto_sm4::cipher::Block::<Theirs>::from(*iv);
    let mut out = Vec::new();
    for b in data.chunks_exact(16) {
        c.encrypt_block(&mut k);
        let ck = Theirs::new(&k);
        let mut x = rustcrypto_sm4::cipher::Block::<Theirs>::try_from(b).unwrap();
        if enc {
            ck.encrypt_block(&mut x);
        } else {
            ck.decrypt_block(&mut x);
        }
        out.extend_from_slice(&x);
    }
    out
}

/// GF(2^128) multiplication in GCM's bit order (NIST SP 800-38D Algorithm 1), bit by bit.
fn gf_mul(x: u128, y: u128) -> u128 {
    let (mut z, mut v) = (0u128, y);
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 {
            (v >> 1) ^ (0xe1 << 120)
        } else {
            v >> 1
        };
    }
    z
}

/// U(M) = GHASH_h(pad(M ‖ T) ‖ [0]64 ‖ [|M ‖ T|]64) (the HCTR paper, §3: the hash of the
/// concatenation M ‖ T, zero-padded). With `gmsm_quirk`, the second block of a partial
/// tail is built as gmsm v0.44.0 builds it (`cipher/hctr.go`, `uhash`): from the buffer
/// that held r message bytes ‖ T[..16−r], it copies T[r..] to the front and zeroes bytes
/// r..16, leaving message bytes in place when r > 8 and dropping tweak bytes when r < 8;
/// it agrees with M ‖ T only for r = 0 and r = 8.
fn model_uhash(h: &[u8; 16], tweak: &[u8; 16], m: &[u8], gmsm_quirk: bool) -> [u8; 16] {
    let h = u128::from_be_bytes(*h);
    let mut x = m.to_vec();
    let r = m.len() % 16;
    if gmsm_quirk && r != 0 {
        let mut block = [0u8; 16];
        block[..r].copy_from_slice(&m[m.len() - r..]);
        block[r..].copy_from_slice(&tweak[..16 - r]);
        x.extend_from_slice(&block[r..]);
        block[..16 - r].copy_from_slice(&tweak[r..]);
        block[r..].fill(0);
        x.extend_from_slice(&block);
    } else {
        x.extend_from_slice(tweak);
    }
    let bits = (m.len() as u128 + 16) * 8;
    x.resize(x.len().div_ceil(16) * 16, 0);
    x.extend_from_slice(&bits.to_be_bytes());
    let mut y = 0u128;
    for b in x.chunks_exact(16) {
        y = gf_mul(y ^ u128::from_be_bytes(b.try_into().unwrap()), h);
    }
    y.to_be_bytes()
}

fn model_hctr(
    key: &[u8; 16],
    h: &[u8; 16],
    tweak: &[u8; 16],
    data: &[u8],
    enc: bool,
    gmsm_quirk: bool,
) -> Vec<u8> {
    let c = Theirs::new(&(*key).into());
    let (first, rest) = data.split_at(16);
    let mut z1 = model_uhash(h, tweak, rest, gmsm_quirk);
    xor16(&mut z1, first);
    let mut z2 = rustcrypto_sm4::cipher::Block::<Theirs>::from(z1);
    if enc {
        c.encrypt_block(&mut z2);
    } else {
        c.decrypt_block(&mut z2);
    }
    let s = u128::from_be_bytes(z1) ^ u128::from_be_bytes(z2.into());
    let mut out_rest = rest.to_vec();
    for (i, chunk) in out_rest.chunks_mut(16).enumerate() {
        let mut k =
            rustcrypto_sm4::cipher::Block::<Theirs>::from((s ^ (i as u128 + 1)).to_be_bytes());
        c.encrypt_block(&mut k);
        xor16(chunk, &k);
    }
    let mut first_out = model_uhash(h, tweak, &out_rest, gmsm_quirk);
    xor16(&mut first_out, &z2);
    let mut out = first_out.to_vec();
    out.extend_from_slice(&out_rest);
    out
}

#[test]
fn models_reproduce_the_published_values() {
    // The models are themselves checked against gmsm's values, so a wrong model cannot
    // make the property tests below pass silently.
    for (mode, ct) in BC_OFBNLF_VECTORS {
        let model = match mode {
            Mode::Bc => model_bc,
            Mode::Ofbnlf => model_ofbnlf,
        };
        assert_eq!(model(&KEY, &IV, &PT, true), ct, "{mode:?}");
    }
    for (pt, ct) in HCTR_VECTORS {
        let pt = hex::decode(pt).unwrap();
        assert_eq!(
            hex::encode(model_hctr(
                &KEY,
                &HCTR_HASH_KEY,
                &HCTR_TWEAK,
                &pt,
                true,
                false
            )),
            ct
        );
    }
    // gmsm's partial-block value comes out of the model only with gmsm's quirk (negative
    // control: without it, and from our code, the value differs).
    let (pt, ct) = GMSM_HCTR_PARTIAL;
    let pt = hex::decode(pt).unwrap();
    let quirky = model_hctr(&KEY, &HCTR_HASH_KEY, &HCTR_TWEAK, &pt, true, true);
    assert_eq!(hex::encode(&quirky), ct);
    let straight = model_hctr(&KEY, &HCTR_HASH_KEY, &HCTR_TWEAK, &pt, true, false);
    assert_ne!(hex::encode(&straight), ct);
    let mut ours = pt.clone();
    Sm4Hctr::new_from_keys(&KEY, &HCTR_HASH_KEY)
        .encrypt(&HCTR_TWEAK, &mut ours)
        .unwrap();
    assert_eq!(ours, straight);
}

/// The differential data gmsm v0.44.0 produced for random inputs: one line per case,
/// `mode key hashkey-or-iv tweak plaintext ciphertext` in hex (`-` where unused).
const GMSM_OUTPUTS: &str = include_str!("data/gmsm_17964_modes.txt");

#[test]
fn diff_gmsm_random_inputs() {
    let mut counts = [0usize; 3];
    let mut quirk_cases = 0;
    for line in GMSM_OUTPUTS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split(' ').collect();
        let key: [u8; 16] = hex::decode(f[1]).unwrap().try_into().unwrap();
        let second: [u8; 16] = hex::decode(f[2]).unwrap().try_into().unwrap();
        let pt = hex::decode(f[4]).unwrap();
        let ct = hex::decode(f[5]).unwrap();
        for (name, c) in ciphers(&key) {
            match f[0] {
                "bc" | "ofbnlf" => {
                    let mode = if f[0] == "bc" { Mode::Bc } else { Mode::Ofbnlf };
                    assert_eq!(encrypt(mode, &c, &second, &pt, 0), ct, "{name} {line}");
                    assert_eq!(decrypt(mode, &c, &second, &ct, 0), pt, "{name} {line}");
                }
                "hctr" => {
                    let tweak: [u8; 16] = hex::decode(f[3]).unwrap().try_into().unwrap();
                    let hctr = Sm4Hctr::from_cipher(c, &second);
                    let mut buf = pt.clone();
                    hctr.encrypt(&tweak, &mut buf).unwrap();
                    if matches!((pt.len() - 16) % 16, 0 | 8) {
                        // Where gmsm hashes M ‖ T, its output is ours.
                        assert_eq!(buf, ct, "{name} {line}");
                    } else {
                        // Elsewhere gmsm's output is the model's with gmsm's quirk, and
                        // ours the model's without it.
                        let quirky = model_hctr(&key, &second, &tweak, &pt, true, true);
                        assert_eq!(quirky, ct, "{line}");
                        let straight = model_hctr(&key, &second, &tweak, &pt, true, false);
                        assert_eq!(buf, straight, "{name} {line}");
                    }
                    hctr.decrypt(&tweak, &mut buf).unwrap();
                    assert_eq!(buf, pt, "{name} {line}");
                }
                other => panic!("unknown mode {other}"),
            }
        }
        if f[0] == "hctr" && !matches!((pt.len() - 16) % 16, 0 | 8) {
            quirk_cases += 1;
        }
        counts[match f[0] {
            "bc" => 0,
            "ofbnlf" => 1,
            _ => 2,
        }] += 1;
    }
    assert!(
        counts.iter().all(|&n| n >= 20),
        "cases per mode: {counts:?}"
    );
    assert!(
        quirk_cases >= 10 && quirk_cases < counts[2] - 5,
        "{quirk_cases} of {counts:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn diff_model_bc_ofbnlf_and_inverse(
        key in any::<[u8; 16]>(),
        iv in any::<[u8; 16]>(),
        blocks in 0usize..140,
        seed in any::<u8>(),
        cut in 0usize..140,
    ) {
        let data: Vec<u8> = (0..blocks * 16).map(|i| (i as u8).wrapping_mul(31) ^ seed).collect();
        for (name, c) in ciphers(&key) {
            for (mode, model) in [(Mode::Bc, model_bc as fn(&[u8; 16], &[u8; 16], &[u8], bool) -> Vec<u8>), (Mode::Ofbnlf, model_ofbnlf)] {
                let ct = encrypt(mode, &c, &iv, &data, 0);
                prop_assert_eq!(&ct, &model(&key, &iv, &data, true), "{} {:?}", name, mode);
                prop_assert_eq!(decrypt(mode, &c, &iv, &ct, 0), data.clone(), "{} {:?}", name, mode);

                // Two calls on one mode object, cut at `cut` blocks, equal one call.
                prop_assert_eq!(encrypt(mode, &c, &iv, &data, cut), ct.clone(), "{} {:?} split", name, mode);
                prop_assert_eq!(decrypt(mode, &c, &iv, &ct, cut), data.clone(), "{} {:?} split", name, mode);

            }
        }
    }

    #[test]
    fn diff_model_hctr_inverse_and_in_place(
        key in any::<[u8; 16]>(),
        h in any::<[u8; 16]>(),
        tweak in any::<[u8; 16]>(),
        len in 16usize..2200,
        seed in any::<u8>(),
    ) {
        let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(73) ^ seed).collect();
        let expect = model_hctr(&key, &h, &tweak, &data, true, false);
        prop_assert_eq!(&model_hctr(&key, &h, &tweak, &expect, false, false), &data);
        for (name, c) in ciphers(&key) {
            let hctr = Sm4Hctr::from_cipher(c, &h);
            let mut buf = data.clone();
            hctr.encrypt(&tweak, &mut buf).unwrap();
            prop_assert_eq!(&buf, &expect, "{} in place", name);
            let mut out = vec![0u8; len];
            hctr.encrypt_b2b(&tweak, &data, &mut out).unwrap();
            prop_assert_eq!(&out, &expect, "{} b2b", name);
            hctr.decrypt(&tweak, &mut buf).unwrap();
            prop_assert_eq!(&buf, &data, "{} decrypt in place", name);
            hctr.decrypt_b2b(&tweak, &expect, &mut out).unwrap();
            prop_assert_eq!(&out, &data, "{} decrypt b2b", name);
        }
    }
}
