//! Differential fuzzing of the SM4 modes: seal/open with our GCM, CCM and GCM-SIV against
//! RustCrypto's generic compositions (`aes_gcm::AesGcm<sm4::Sm4, U12>`, `ccm::Ccm`,
//! `aes_gcm_siv::AesGcmSiv<sm4::Sm4>`; GCM and GCM-SIV on every GHASH engine), GCM's
//! keystream against OpenSSL's SM4-CTR, IEEE XTS against `xts-mode`, CMAC against OpenSSL;
//! every SM4 engine for GCM. A ciphertext or tag with one bit flipped must fail to open and
//! leave the buffer holding the ciphertext. The GB/T 17964 modes BC and OFBNLF against a
//! textbook model over RustCrypto's `sm4`, HCTR and the GB/T 15852.1 MACs on every engine
//! (HCTR inverts, in place = buffer to buffer; a MAC over two updates = over one).
//!
//! Input: 16 bytes of key, 12 of nonce, one byte (AAD length), one byte (which bit to
//! flip), then the AAD and the message.

#![no_main]

use aead::{AeadInOut, KeyInit};
use libfuzzer_sys::fuzz_target;
use openssl::symm::{Cipher, Crypter, Mode};
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{
    GhashBackend, Sm4AnsiRetailMac, Sm4BcDec, Sm4BcEnc, Sm4CbcMac, Sm4Cbcr, Sm4Ccm, Sm4Cmac,
    Sm4Emac, Sm4Gcm, Sm4GcmSiv, Sm4Hctr, Sm4Lmac, Sm4MacDes, Sm4OfbnlfDec, Sm4OfbnlfEnc, Sm4TrCbc,
    Sm4XtsGb, Sm4XtsIeee,
    cbcmac::{Padding1, Padding3},
    cipher::{Block, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit},
};

fn openssl_ctr(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let mut c = Crypter::new(Cipher::sm4_ctr(), Mode::Encrypt, key, Some(iv)).expect("SM4-CTR");
    let mut out = vec![0u8; data.len() + 16];
    let n = c.update(data, &mut out).expect("update");
    let m = c.finalize(&mut out[n..]).expect("finalize");
    out.truncate(n + m);
    out
}

fn openssl_cmac(key: &[u8; 16], data: &[u8]) -> Vec<u8> {
    let pkey = openssl::pkey::PKey::cmac(&Cipher::sm4_cbc(), key).expect("CMAC key");
    let mut s = openssl::sign::Signer::new_without_digest(&pkey).expect("signer");
    s.update(data).expect("update");
    s.sign_to_vec().expect("sign")
}

/// Flips bit `bit` of ciphertext ‖ tag and checks that opening fails and restores it.
fn tamper<A: AeadInOut>(
    a: &A,
    nonce: &aead::Nonce<A>,
    aad: &[u8],
    ct: &[u8],
    tag: &aead::Tag<A>,
    bit: u8,
) {
    let total = (ct.len() + tag.len()) * 8;
    let pos = usize::from(bit) * 7919 % total;
    let mut buf = ct.to_vec();
    let mut tag = tag.clone();
    if pos / 8 < ct.len() {
        buf[pos / 8] ^= 1 << (pos % 8);
    } else {
        tag[pos / 8 - ct.len()] ^= 1 << (pos % 8);
    }
    let before = buf.clone();
    assert!(
        a.decrypt_inout_detached(nonce, aad, (&mut buf[..]).into(), &tag)
            .is_err()
    );
    assert_eq!(buf, before, "a failed open must leave the ciphertext");
}

/// What the AEADs seal: the input's nonce, AAD and message, and which bit of ciphertext ‖
/// tag to flip.
struct Sealing<'a> {
    nonce: &'a [u8; 12],
    aad: &'a [u8],
    msg: &'a [u8],
    bit: u8,
}

/// `x.msg` sealed by `a`: the ciphertext and the tag.
fn seal<A: AeadInOut<NonceSize = aead::consts::U12>>(
    a: &A,
    x: &Sealing<'_>,
) -> (Vec<u8>, aead::Tag<A>) {
    let mut ct = x.msg.to_vec();
    let tag = a
        .encrypt_inout_detached(&(*x.nonce).into(), x.aad, (&mut ct[..]).into())
        .expect("seal");
    (ct, tag)
}

/// `a` seals `x.msg` to `want` (ciphertext and tag; `what` names the mode and engine),
/// refuses its seal with bit `x.bit` flipped, and opens it to `x.msg`.
fn sealed_as<A: AeadInOut<NonceSize = aead::consts::U12>>(
    a: &A,
    x: &Sealing<'_>,
    want: &(Vec<u8>, aead::Tag<A>),
    what: &str,
) {
    let (mut buf, tag) = seal(a, x);
    assert_eq!(buf, want.0, "{what}: ciphertext");
    assert_eq!(tag, want.1, "{what}: tag");
    let nonce = (*x.nonce).into();
    tamper(a, &nonce, x.aad, &buf, &tag, x.bit);
    a.decrypt_inout_detached(&nonce, x.aad, (&mut buf[..]).into(), &tag)
        .expect("open");
    assert_eq!(buf, x.msg, "{what}: opened");
}

fn xor16(a: &mut [u8; 16], b: &[u8]) {
    for (a, b) in a.iter_mut().zip(b) {
        *a ^= b;
    }
}

/// BC and OFBNLF (whole blocks of `msg`) by the book over RustCrypto's SM4.
fn bc_ofbnlf_model(key: &[u8; 16], iv: &[u8; 16], whole: &[u8]) -> (Vec<u8>, Vec<u8>) {
    use rustcrypto_sm4::cipher::{BlockCipherEncrypt, KeyInit as _};
    let c = rustcrypto_sm4::Sm4::new(key.into());
    let (mut bc, mut ofbnlf) = (Vec::new(), Vec::new());
    let (mut f, mut k) = (*iv, *iv);
    for p in whole.chunks_exact(16) {
        let mut x = f;
        xor16(&mut x, p);
        let mut x = x.into();
        c.encrypt_block(&mut x);
        xor16(&mut f, &x);
        bc.extend_from_slice(&x);
        let mut kb = k.into();
        c.encrypt_block(&mut kb);
        k = kb.into();
        let mut y: [u8; 16] = p.try_into().expect("16");
        let mut yb = y.into();
        rustcrypto_sm4::Sm4::new(&kb).encrypt_block(&mut yb);
        y = yb.into();
        ofbnlf.extend_from_slice(&y);
    }
    (bc, ofbnlf)
}

fn blocks(data: &[u8]) -> Vec<Block<Sm4>> {
    data.chunks_exact(16)
        .map(|c| Block::<Sm4>::try_from(c).expect("16"))
        .collect()
}

fn flat(b: &[Block<Sm4>]) -> Vec<u8> {
    b.iter().flat_map(|b| b.iter().copied()).collect()
}

/// The tag of `msg` in one update, checked equal to the tag over two updates cut at `split`.
fn mac_split<M: cmac::digest::Mac + Clone>(m: M, msg: &[u8], split: usize) -> Vec<u8> {
    let (a, b) = msg.split_at(split.min(msg.len()));
    let one = m.clone().chain_update(msg).finalize().into_bytes().to_vec();
    let two = m
        .chain_update(a)
        .chain_update(b)
        .finalize()
        .into_bytes()
        .to_vec();
    assert_eq!(one, two, "MAC over two updates");
    one
}

/// The GB/T 17964 modes BC, OFBNLF, HCTR and the GB/T 15852.1 MACs on every engine.
fn gb_modes(key: &[u8; 16], iv: &[u8; 16], msg: &[u8], split: usize) {
    let whole = &msg[..msg.len() / 16 * 16];
    let (bc, ofbnlf) = bc_ofbnlf_model(key, iv, whole);
    let mut reference: Option<(Vec<u8>, Vec<Vec<u8>>)> = None;
    let mut kk = [0u8; 32];
    kk[..16].copy_from_slice(key);
    kk[16..].copy_from_slice(iv);
    for b in Backend::available() {
        let c = Sm4::with_backend(&(*key).into(), b).expect("available");
        let mut x = blocks(whole);
        Sm4BcEnc::inner_iv_init(c.clone(), iv.into()).encrypt_blocks(&mut x);
        assert_eq!(flat(&x), bc, "BC on {}", b.name());
        Sm4BcDec::inner_iv_init(c.clone(), iv.into()).decrypt_blocks(&mut x);
        assert_eq!(flat(&x), whole, "BC decryption on {}", b.name());
        Sm4OfbnlfEnc::inner_iv_init(c.clone(), iv.into()).encrypt_blocks(&mut x);
        assert_eq!(flat(&x), ofbnlf, "OFBNLF on {}", b.name());
        Sm4OfbnlfDec::inner_iv_init(c.clone(), iv.into()).decrypt_blocks(&mut x);
        assert_eq!(flat(&x), whole, "OFBNLF decryption on {}", b.name());

        let hctr = Sm4Hctr::from_cipher(c, iv);
        let mut sector = msg.to_vec();
        let mut out = vec![0u8; msg.len()];
        let hctr_ct = match hctr.encrypt(key, &mut sector) {
            Ok(()) => {
                hctr.encrypt_b2b(key, msg, &mut out).expect("same length");
                assert_eq!(out, sector, "HCTR in place vs b2b");
                hctr.decrypt(key, &mut sector).expect("decrypt");
                assert_eq!(sector, msg, "HCTR round trip");
                out
            }
            Err(_) => {
                assert!(
                    msg.len() < 16 && sector == msg,
                    "short sector refused, untouched"
                );
                Vec::new()
            }
        };

        let tags = vec![
            mac_split(
                <Sm4CbcMac>::with_backend(key.into(), b).expect("available"),
                msg,
                split,
            ),
            mac_split(
                Sm4CbcMac::<Padding1>::with_backend(key.into(), b).expect("ok"),
                msg,
                split,
            ),
            mac_split(
                Sm4CbcMac::<Padding3>::new_with_len_on(key.into(), msg.len() as u64, b)
                    .expect("ok"),
                msg,
                split,
            ),
            mac_split(
                <Sm4Emac>::with_backend(&kk.into(), b).expect("ok"),
                msg,
                split,
            ),
            mac_split(
                <Sm4AnsiRetailMac>::with_backend(&kk.into(), b).expect("ok"),
                msg,
                split,
            ),
            mac_split(
                <Sm4MacDes>::with_backend(&kk.into(), b).expect("ok"),
                msg,
                split,
            ),
            mac_split(
                <Sm4Lmac>::with_backend(key.into(), b).expect("ok"),
                msg,
                split,
            ),
            mac_split(
                <Sm4TrCbc>::with_backend(key.into(), b).expect("ok"),
                msg,
                split,
            ),
            mac_split(
                Sm4Cbcr::with_backend(key.into(), b).expect("ok"),
                msg,
                split,
            ),
        ];
        match &reference {
            None => reference = Some((hctr_ct, tags)),
            Some((h, t)) => {
                assert_eq!(&hctr_ct, h, "HCTR on {}", b.name());
                assert_eq!(&tags, t, "MACs on {}", b.name());
            }
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((key, rest)) = input.split_first_chunk::<16>() else {
        return;
    };
    let Some((nonce, rest)) = rest.split_first_chunk::<12>() else {
        return;
    };
    let Some((&[aad_len, bit], rest)) = rest.split_first_chunk::<2>() else {
        return;
    };
    let (aad, msg) = rest.split_at(usize::from(aad_len).min(rest.len()));

    // GCM: every engine, RustCrypto, and OpenSSL's SM4-CTR from J0 + 1.
    let theirs = aes_gcm::AesGcm::<rustcrypto_sm4::Sm4, aead::consts::U12>::new(&(*key).into());
    let x = Sealing {
        nonce,
        aad,
        msg,
        bit,
    };
    let want = seal(&theirs, &x);
    let mut ctr_iv = [0u8; 16];
    ctr_iv[..12].copy_from_slice(nonce);
    ctr_iv[15] = 2;
    assert_eq!(
        openssl_ctr(key, &ctr_iv, msg),
        want.0,
        "GCM keystream vs OpenSSL SM4-CTR"
    );
    for b in Backend::available() {
        let gcm = Sm4Gcm::from_cipher(Sm4::with_backend(&(*key).into(), b).expect("available"));
        sealed_as(&gcm, &x, &want, &format!("GCM on {}", b.name()));
    }

    // GCM on every GHASH engine (best SM4 engine).
    for g in GhashBackend::available() {
        let gcm = Sm4Gcm::with_ghash_backend(Sm4::new(&(*key).into()), g).expect("available");
        sealed_as(&gcm, &x, &want, &format!("GCM with GHASH on {g}"));
    }

    // GCM-SIV against RustCrypto's generic `aes-gcm-siv` over its SM4, every POLYVAL engine.
    let theirs = aes_gcm_siv::AesGcmSiv::<rustcrypto_sm4::Sm4>::new(&(*key).into());
    let want = seal(&theirs, &x);
    for g in GhashBackend::available() {
        let siv = Sm4GcmSiv::with_ghash_backend(Sm4::new(&(*key).into()), g).expect("available");
        sealed_as(&siv, &x, &want, &format!("GCM-SIV with POLYVAL on {g}"));
    }

    // CCM against RustCrypto's `ccm`.
    let ccm = Sm4Ccm::new(&(*key).into());
    let theirs =
        ccm::Ccm::<rustcrypto_sm4::Sm4, aead::consts::U16, aead::consts::U12>::new(&(*key).into());
    sealed_as(&ccm, &x, &seal(&theirs, &x), "CCM");

    // XTS: IEEE against `xts-mode`, GB round trip.
    let mut xkey = [0u8; 32];
    xkey[..16].copy_from_slice(key);
    xkey[16..28].copy_from_slice(nonce);
    xkey[28..].copy_from_slice(&[aad_len, bit, 0x5a, 0xa5]);
    if let (Ok(ieee), Ok(gb)) = (Sm4XtsIeee::new(&xkey), Sm4XtsGb::new(&xkey)) {
        let tweak = Sm4XtsIeee::sector_tweak(u64::from(bit));
        let mut buf = msg.to_vec();
        match ieee.encrypt(&tweak, &mut buf) {
            Ok(()) => {
                use rustcrypto_sm4::cipher::KeyInit as _;
                let k1: [u8; 16] = xkey[..16].try_into().expect("16");
                let k2: [u8; 16] = xkey[16..].try_into().expect("16");
                let x = xts_mode::Xts128::new(
                    rustcrypto_sm4::Sm4::new(&k1.into()),
                    rustcrypto_sm4::Sm4::new(&k2.into()),
                );
                let mut want = msg.to_vec();
                x.encrypt_sector(&mut want, tweak.into());
                assert_eq!(buf, want, "IEEE XTS vs xts-mode");
                ieee.decrypt(&tweak, &mut buf).expect("decrypt");
                assert_eq!(buf, msg);
                gb.encrypt(&tweak, &mut buf).expect("GB encrypt");
                gb.decrypt(&tweak, &mut buf).expect("GB decrypt");
                assert_eq!(buf, msg);
            }
            Err(_) => assert!(msg.len() < 16),
        }
    }

    // GB/T 17964 BC, OFBNLF, HCTR and the GB/T 15852.1 MACs.
    let iv: [u8; 16] = xkey[16..].try_into().expect("16");
    gb_modes(key, &iv, msg, usize::from(aad_len));

    // CMAC against OpenSSL.
    use cmac::digest::Mac;
    let mut mac = <Sm4Cmac as KeyInit>::new(&(*key).into());
    mac.update(msg);
    assert_eq!(
        mac.finalize().into_bytes()[..],
        openssl_cmac(key, msg)[..],
        "CMAC"
    );
});
