//! Differential tests against OpenSSL 3 (`openssl` crate): PKCS#8 keys from this crate load as
//! SM2 keys there, and SM2 signatures with a distinguishing identifier verify both ways.
#![cfg(target_arch = "x86_64")] // OpenSSL is linked on the development host only
#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use openssl::md::Md;
use openssl::md_ctx::MdCtx;
use openssl::pkey::{PKey, Private, Public};
use openssl::pkey_ctx::PkeyCtxRef;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::elliptic_curve::pkcs8::{EncodePrivateKey, EncodePublicKey};
use shangmi_sm2::signature::{Signer, Verifier};
use std::os::raw::{c_int, c_void};

unsafe extern "C" {
    /// OpenSSL 3: sets the SM2 distinguishing identifier on a signing/verifying context.
    fn EVP_PKEY_CTX_set1_id(ctx: *mut c_void, id: *const c_void, len: c_int) -> c_int;
}

fn set_id<T>(ctx: &mut PkeyCtxRef<T>, id: &[u8]) {
    // `PkeyCtxRef` is a foreign-types reference: its address is the `EVP_PKEY_CTX *`.
    let raw = ctx as *mut PkeyCtxRef<T> as *mut c_void;
    let len = c_int::try_from(id.len()).expect("short id");
    // SAFETY: `raw` is a live EVP_PKEY_CTX owned by the MdCtx borrowed here, `id` is valid for
    // `len` bytes, and OpenSSL copies the identifier.
    let ok = unsafe { EVP_PKEY_CTX_set1_id(raw, id.as_ptr().cast(), len) };
    assert_eq!(ok, 1, "EVP_PKEY_CTX_set1_id");
}

fn ossl_sign(key: &PKey<Private>, id: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut ctx = MdCtx::new().unwrap();
    let pctx = ctx.digest_sign_init(Some(Md::sm3()), key).unwrap();
    set_id(pctx, id);
    let mut out = Vec::new();
    ctx.digest_sign_to_vec(msg, &mut out).unwrap();
    out
}

fn ossl_verify(key: &PKey<Public>, id: &[u8], msg: &[u8], sig: &[u8]) -> bool {
    let mut ctx = MdCtx::new().unwrap();
    let pctx = ctx.digest_verify_init(Some(Md::sm3()), key).unwrap();
    set_id(pctx, id);
    ctx.digest_verify(msg, sig).unwrap_or(false)
}

fn key_pair(seed: u8) -> (SigningKey, PKey<Private>, PKey<Public>) {
    let mut d = [seed; 32];
    d[0] = 0x11;
    let sk = SigningKey::from_bytes(&d.into()).unwrap();
    let der = sk.secret_key().to_pkcs8_der().unwrap();
    let ossl_priv = PKey::private_key_from_pkcs8(der.as_bytes()).unwrap();
    let spki = sk.verifying_key().public_key().to_public_key_der().unwrap();
    let ossl_pub = PKey::public_key_from_der(spki.as_bytes()).unwrap();
    (sk, ossl_priv, ossl_pub)
}

const IDS: [&[u8]; 3] = [
    b"1234567812345678",
    b"TLSv1.3+GM+Cipher+Suite",
    b"bob@example.org",
];

#[test]
fn diff_openssl_signs_we_verify() {
    for seed in 0..8u8 {
        let (sk, priv_key, _) = key_pair(seed);
        for id in IDS {
            let msg = [seed; 100];
            let der = ossl_sign(&priv_key, id, &msg);
            let sig = Signature::from_der(&der).unwrap();
            let vk = VerifyingKey::from_sec1_bytes_with_id(
                sk.verifying_key().to_sec1_point(false).as_bytes(),
                id,
            )
            .unwrap();
            vk.verify(&msg, &sig).unwrap();
            assert!(vk.verify(&msg[1..], &sig).is_err());
            let vk = vk.precomputed();
            vk.verify(&msg, &sig).unwrap();
            assert!(vk.verify(&msg[1..], &sig).is_err());
        }
    }
}

#[test]
fn diff_openssl_verifies_our_signatures() {
    for seed in 0..8u8 {
        let (sk, _, pub_key) = key_pair(seed);
        for id in IDS {
            let sk = SigningKey::from_bytes_with_id(&sk.to_bytes(), id).unwrap();
            let msg = vec![seed ^ 0x5A; usize::from(seed) * 13];
            let sig = sk.sign(&msg);
            assert!(ossl_verify(&pub_key, id, &msg, sig.to_der().as_ref()));
            let mut other = msg.clone();
            other.push(0);
            assert!(!ossl_verify(&pub_key, id, &other, sig.to_der().as_ref()));
            // Wrong identifier: OpenSSL computes another Z_A and rejects.
            assert!(!ossl_verify(
                &pub_key,
                b"another id",
                &msg,
                sig.to_der().as_ref()
            ));
        }
    }
}
