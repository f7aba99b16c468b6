//! Differential fuzzing of SM4-GCM, SM4-CCM and SM4-XTS against OpenSSL 3.6 (built from
//! source by the `openssl` crate's `vendored` feature: Debian's 3.0 has none of the three),
//! both ways: OpenSSL opens what we seal and we open what OpenSSL seals, with nonce and tag
//! sizes other than the defaults (GCM: 12- or 16-byte nonce, 12- or 16-byte tag; CCM: 7-, 12-
//! or 13-byte nonce, 4-, 10- or 16-byte tag), every SM4 engine this CPU runs, and one flipped
//! bit that both must refuse. XTS in both standards (OpenSSL's `xts_standard` "GB" and
//! "IEEE") on every engine, any length from 16 bytes.
//!
//! Structure-aware: the input is decoded with `arbitrary` into the case below.

#![no_main]

use aead::array::typenum::Unsigned as _;
use aead::consts::{U4, U7, U10, U12, U13, U16};
use aead::{AeadCore, AeadInOut};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use openssl::{cipher::Cipher, cipher_ctx::CipherCtx};
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::CcmNonceSize;
use shangmi_sm4_modes::{Sm4CcmCustom, Sm4GcmCustom, Sm4XtsGb, Sm4XtsIeee};

/// Which mode, with its size choices.
#[derive(Arbitrary, Debug)]
enum Case {
    Gcm { long_nonce: bool, short_tag: bool },
    Ccm { nonce: CcmNonce, tag: CcmTag },
    Xts { tweak: [u8; 16], key2: [u8; 16] },
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum CcmNonce {
    N7,
    N12,
    N13,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum CcmTag {
    T4,
    T10,
    T16,
}

#[derive(Arbitrary, Debug)]
struct Input {
    key: [u8; 16],
    nonce: [u8; 16],
    case: Case,
    /// Which bit of ciphertext ‖ tag to flip in the tampering check.
    flip: u16,
    aad: Vec<u8>,
    msg: Vec<u8>,
}

#[path = "../../testsupport/openssl_xts.rs"]
mod openssl_xts;

/// An OpenSSL "SM4-GCM" or "SM4-CCM" context keyed for sealing (`tag` = `None`) or for
/// opening with `tag`, with the AAD absorbed; `len` is the text length (CCM needs it first).
fn openssl_aead(
    ccm: bool,
    key: &[u8],
    nonce: &[u8],
    tag: Result<&[u8], usize>,
    aad: &[u8],
    len: usize,
) -> CipherCtx {
    let name = if ccm { "SM4-CCM" } else { "SM4-GCM" };
    let cipher = Cipher::fetch(None, name, None).expect("OpenSSL 3.6 has SM4 AEADs");
    let mut ctx = CipherCtx::new().expect("ctx");
    let seal = tag.is_err();
    let init = |ctx: &mut CipherCtx, c, k, n| {
        if seal {
            ctx.encrypt_init(c, k, n)
        } else {
            ctx.decrypt_init(c, k, n)
        }
    };
    init(&mut ctx, Some(&cipher), None, None).expect("init");
    ctx.set_iv_length(nonce.len()).expect("nonce length");
    match tag {
        Err(tag_len) if ccm => ctx.set_tag_length(tag_len).expect("tag length"),
        Ok(tag) if ccm => ctx.set_tag(tag).expect("tag"),
        _ => {}
    }
    init(&mut ctx, None, Some(key), Some(nonce)).expect("key");
    if ccm {
        ctx.set_data_len(len).expect("data length");
    }
    if !aad.is_empty() || !ccm {
        ctx.cipher_update(aad, None).expect("aad");
    }
    ctx
}

/// Seals with OpenSSL: ciphertext ‖ tag.
fn openssl_seal(
    ccm: bool,
    key: &[u8],
    nonce: &[u8],
    tag_len: usize,
    aad: &[u8],
    pt: &[u8],
) -> Vec<u8> {
    let mut ctx = openssl_aead(ccm, key, nonce, Err(tag_len), aad, pt.len());
    let mut out = Vec::new();
    ctx.cipher_update_vec(pt, &mut out).expect("update");
    ctx.cipher_final_vec(&mut out).expect("final");
    let mut tag = vec![0u8; tag_len];
    ctx.tag(&mut tag).expect("tag");
    out.extend_from_slice(&tag);
    out
}

/// Opens with OpenSSL; `None` when it refuses.
fn openssl_open(
    ccm: bool,
    key: &[u8],
    nonce: &[u8],
    tag_len: usize,
    aad: &[u8],
    sealed: &[u8],
) -> Option<Vec<u8>> {
    let (ct, tag) = sealed.split_at(sealed.len() - tag_len);
    let mut ctx = openssl_aead(ccm, key, nonce, Ok(tag), aad, ct.len());
    let mut out = Vec::new();
    // CCM checks the tag in update; GCM in final.
    ctx.cipher_update_vec(ct, &mut out).ok()?;
    if !ccm {
        ctx.set_tag(tag).expect("tag");
        ctx.cipher_final_vec(&mut out).ok()?;
    }
    Some(out)
}

/// One XTS data unit with OpenSSL's SM4-XTS under `standard` ("GB" or "IEEE").
fn openssl_xts(
    standard: &str,
    encrypt: bool,
    key: &[u8; 32],
    tweak: &[u8; 16],
    data: &[u8],
) -> Vec<u8> {
    let cipher = Cipher::fetch(None, "SM4-XTS", None).expect("OpenSSL 3.6 has SM4-XTS");
    let mut ctx = CipherCtx::new().expect("ctx");
    if encrypt {
        ctx.encrypt_init(Some(&cipher), Some(key), Some(tweak))
            .expect("init");
    } else {
        ctx.decrypt_init(Some(&cipher), Some(key), Some(tweak))
            .expect("init");
    }
    openssl_xts::set_xts_standard(&mut ctx, standard);
    let mut out = Vec::new();
    ctx.cipher_update_vec(data, &mut out).expect("update");
    ctx.cipher_final_vec(&mut out).expect("final");
    out
}

/// Flips bit `flip` (mod the length) of ciphertext ‖ tag.
fn flipped(sealed: &[u8], flip: u16) -> Vec<u8> {
    let mut bad = sealed.to_vec();
    let bit = usize::from(flip) % (bad.len() * 8);
    bad[bit / 8] ^= 1 << (bit % 8);
    bad
}

/// Our AEAD `A` on every engine against OpenSSL, both ways, and one flipped bit.
fn aead_case<A>(make: impl Fn(Sm4) -> A, ccm: bool, input: &Input, nonce: &[u8])
where
    A: AeadInOut,
{
    let tag_len = <A as AeadCore>::TagSize::USIZE;
    let (key, aad, msg) = (&input.key, &input.aad[..], &input.msg[..]);
    let want = openssl_seal(ccm, key, nonce, tag_len, aad, msg);
    assert_eq!(
        openssl_open(ccm, key, nonce, tag_len, aad, &want).as_deref(),
        Some(msg)
    );
    let bad = flipped(&want, input.flip);
    assert_eq!(
        openssl_open(ccm, key, nonce, tag_len, aad, &bad),
        None,
        "OpenSSL opened a forgery"
    );
    let nonce = aead::Nonce::<A>::try_from(nonce).expect("nonce size");
    for b in Backend::available() {
        let ours = make(Sm4::with_backend(key.into(), b).expect("available"));
        let mut buf = msg.to_vec();
        let tag = ours
            .encrypt_inout_detached(&nonce, aad, (&mut buf[..]).into())
            .expect("seal");
        buf.extend_from_slice(&tag);
        assert_eq!(
            buf,
            want,
            "seal on {} (ccm: {ccm}, tag {tag_len})",
            b.name()
        );
        // Ours opens OpenSSL's output and refuses the forgery, leaving the buffer as it was.
        let (ct, tag) = want.split_at(msg.len());
        let mut buf = ct.to_vec();
        let tag = aead::Tag::<A>::try_from(tag).expect("tag size");
        ours.decrypt_inout_detached(&nonce, aad, (&mut buf[..]).into(), &tag)
            .expect("open OpenSSL's output");
        assert_eq!(buf, msg);
        let (ct, tag) = bad.split_at(msg.len());
        let mut buf = ct.to_vec();
        let tag = aead::Tag::<A>::try_from(tag).expect("tag size");
        assert!(
            ours.decrypt_inout_detached(&nonce, aad, (&mut buf[..]).into(), &tag)
                .is_err()
        );
        assert_eq!(buf, ct, "a failed open must leave the ciphertext");
    }
}

/// CCM with nonce size `N` and the tag size `tag` picks.
fn ccm_case<N: CcmNonceSize>(tag: CcmTag, input: &Input, nonce: &[u8]) {
    match tag {
        CcmTag::T4 => aead_case(Sm4CcmCustom::<N, U4>::from_cipher, true, input, nonce),
        CcmTag::T10 => aead_case(Sm4CcmCustom::<N, U10>::from_cipher, true, input, nonce),
        CcmTag::T16 => aead_case(Sm4CcmCustom::<N, U16>::from_cipher, true, input, nonce),
    }
}

fuzz_target!(|input: Input| {
    match input.case {
        Case::Gcm {
            long_nonce,
            short_tag,
        } => {
            let nonce = if long_nonce {
                &input.nonce[..]
            } else {
                &input.nonce[..12]
            };
            match (long_nonce, short_tag) {
                (false, false) => {
                    aead_case(Sm4GcmCustom::<U12, U16>::from_cipher, false, &input, nonce)
                }
                (false, true) => {
                    aead_case(Sm4GcmCustom::<U12, U12>::from_cipher, false, &input, nonce)
                }
                (true, false) => {
                    aead_case(Sm4GcmCustom::<U16, U16>::from_cipher, false, &input, nonce)
                }
                (true, true) => {
                    aead_case(Sm4GcmCustom::<U16, U12>::from_cipher, false, &input, nonce)
                }
            }
        }
        Case::Ccm { nonce, tag } => {
            let n = match nonce {
                CcmNonce::N7 => 7,
                CcmNonce::N12 => 12,
                CcmNonce::N13 => 13,
            };
            // CCM's length field has 15 - n bytes: a 13-byte nonce allows 64 KiB - 1.
            if input.msg.len() >= 1 << (8 * (15 - n)).min(24) {
                return;
            }
            let nb = &input.nonce[..n];
            match nonce {
                CcmNonce::N7 => ccm_case::<U7>(tag, &input, nb),
                CcmNonce::N12 => ccm_case::<U12>(tag, &input, nb),
                CcmNonce::N13 => ccm_case::<U13>(tag, &input, nb),
            }
        }
        Case::Xts { tweak, key2 } => {
            let msg = &input.msg;
            let mut key = [0u8; 32];
            key[..16].copy_from_slice(&input.key);
            key[16..].copy_from_slice(&key2);
            if input.key == key2 {
                // K1 = K2 is refused (IEEE 1619-2018 §5.1 asks for distinct halves).
                assert!(Sm4XtsIeee::new(&key).is_err() && Sm4XtsGb::new(&key).is_err());
                return;
            }
            if msg.len() < 16 {
                // A data unit shorter than a block has no XTS encryption.
                assert!(
                    Sm4XtsIeee::new(&key)
                        .is_ok_and(|x| x.encrypt(&tweak, &mut msg.clone()).is_err())
                );
                return;
            }
            for (standard, gb) in [("IEEE", false), ("GB", true)] {
                let want = openssl_xts(standard, true, &key, &tweak, msg);
                assert_eq!(openssl_xts(standard, false, &key, &tweak, &want), *msg);
                for b in Backend::available() {
                    let mut buf = msg.clone();
                    if gb {
                        let x = Sm4XtsGb::with_backend(&key, b).expect("distinct keys");
                        x.encrypt(&tweak, &mut buf).expect("encrypt");
                        assert_eq!(buf, want, "GB XTS on {}", b.name());
                        x.decrypt(&tweak, &mut buf).expect("decrypt");
                    } else {
                        let x = Sm4XtsIeee::with_backend(&key, b).expect("distinct keys");
                        x.encrypt(&tweak, &mut buf).expect("encrypt");
                        assert_eq!(buf, want, "IEEE XTS on {}", b.name());
                        x.decrypt(&tweak, &mut buf).expect("decrypt");
                    }
                    assert_eq!(buf, *msg);
                }
            }
        }
    }
});
