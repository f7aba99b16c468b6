//! Differential fuzzing of the SM4 modes: seal/open with our GCM, CCM and GCM-SIV against
//! RustCrypto's generic compositions (`aes_gcm::AesGcm<sm4::Sm4, U12>`, `ccm::Ccm`,
//! `aes_gcm_siv::AesGcmSiv<sm4::Sm4>`; GCM and GCM-SIV on every GHASH engine), GCM's
//! keystream against OpenSSL's SM4-CTR, IEEE XTS against `xts-mode`, CMAC against OpenSSL;
//! every SM4 engine for GCM. A ciphertext or tag with one bit flipped must fail to open and
//! leave the buffer holding the ciphertext.
//!
//! Input: 16 bytes of key, 12 of nonce, one byte (AAD length), one byte (which bit to
//! flip), then the AAD and the message.

#![no_main]

use aead::{AeadInOut, KeyInit};
use libfuzzer_sys::fuzz_target;
use openssl::symm::{Cipher, Crypter, Mode};
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{GhashBackend, Sm4Ccm, Sm4Cmac, Sm4Gcm, Sm4GcmSiv, Sm4XtsGb, Sm4XtsIeee};

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
    let mut want = msg.to_vec();
    let want_tag = theirs
        .encrypt_inout_detached(&(*nonce).into(), aad, (&mut want[..]).into())
        .expect("seal");
    let mut ctr_iv = [0u8; 16];
    ctr_iv[..12].copy_from_slice(nonce);
    ctr_iv[15] = 2;
    assert_eq!(
        openssl_ctr(key, &ctr_iv, msg),
        want,
        "GCM keystream vs OpenSSL SM4-CTR"
    );
    for b in Backend::available() {
        let gcm = Sm4Gcm::from_cipher(Sm4::with_backend(&(*key).into(), b).expect("available"));
        let mut buf = msg.to_vec();
        let tag = gcm
            .encrypt_inout_detached(&(*nonce).into(), aad, (&mut buf[..]).into())
            .expect("seal");
        assert_eq!(buf, want, "GCM ciphertext on {}", b.name());
        assert_eq!(tag, want_tag, "GCM tag on {}", b.name());
        tamper(&gcm, &(*nonce).into(), aad, &buf, &tag, bit);
        gcm.decrypt_inout_detached(&(*nonce).into(), aad, (&mut buf[..]).into(), &tag)
            .expect("open");
        assert_eq!(buf, msg);
    }

    // GCM on every GHASH engine (best SM4 engine).
    for g in GhashBackend::available() {
        let gcm = Sm4Gcm::with_ghash_backend(Sm4::new(&(*key).into()), g).expect("available");
        let mut buf = msg.to_vec();
        let tag = gcm
            .encrypt_inout_detached(&(*nonce).into(), aad, (&mut buf[..]).into())
            .expect("seal");
        assert_eq!(buf, want, "GCM ciphertext with GHASH on {g}");
        assert_eq!(tag, want_tag, "GCM tag with GHASH on {g}");
    }

    // GCM-SIV against RustCrypto's generic `aes-gcm-siv` over its SM4, every POLYVAL engine.
    let theirs = aes_gcm_siv::AesGcmSiv::<rustcrypto_sm4::Sm4>::new(&(*key).into());
    let mut want = msg.to_vec();
    let want_tag = theirs
        .encrypt_inout_detached(&(*nonce).into(), aad, (&mut want[..]).into())
        .expect("seal");
    for g in GhashBackend::available() {
        let siv = Sm4GcmSiv::with_ghash_backend(Sm4::new(&(*key).into()), g).expect("available");
        let mut buf = msg.to_vec();
        let tag = siv
            .encrypt_inout_detached(&(*nonce).into(), aad, (&mut buf[..]).into())
            .expect("seal");
        assert_eq!(buf, want, "GCM-SIV ciphertext with POLYVAL on {g}");
        assert_eq!(tag, want_tag, "GCM-SIV tag with POLYVAL on {g}");
        tamper(&siv, &(*nonce).into(), aad, &buf, &tag, bit);
        siv.decrypt_inout_detached(&(*nonce).into(), aad, (&mut buf[..]).into(), &tag)
            .expect("open");
        assert_eq!(buf, msg);
    }

    // CCM against RustCrypto's `ccm`.
    let ccm = Sm4Ccm::new(&(*key).into());
    let theirs =
        ccm::Ccm::<rustcrypto_sm4::Sm4, aead::consts::U16, aead::consts::U12>::new(&(*key).into());
    let mut ours_ct = msg.to_vec();
    let tag = ccm
        .encrypt_inout_detached(&(*nonce).into(), aad, (&mut ours_ct[..]).into())
        .expect("seal");
    let mut their_ct = msg.to_vec();
    let their_tag = theirs
        .encrypt_inout_detached(&(*nonce).into(), aad, (&mut their_ct[..]).into())
        .expect("seal");
    assert_eq!(ours_ct, their_ct, "CCM ciphertext");
    assert_eq!(tag, their_tag, "CCM tag");
    tamper(&ccm, &(*nonce).into(), aad, &ours_ct, &tag, bit);

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
