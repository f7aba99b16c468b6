//! SM2 speed: ours beside RustCrypto `sm2` 0.14 and OpenSSL, one criterion group per
//! operation (`sm2/{keygen,sign,verify,encrypt-32,decrypt-32,ecdh}`), so ratios come from one
//! run. Signing includes e = SM3(Z_A ‖ M) in every library (Z_A cached where the API allows:
//! ours and RustCrypto keep it in the key, OpenSSL recomputes it per signature). Verification
//! uses a key parsed once (ours then carries its per-key table).
//!
//! `cargo bench -p shangmi-benches --bench sm2`

use std::time::Duration;

use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use openssl::{
    derive::Deriver,
    ec::{EcGroup, EcKey},
    md::Md,
    md_ctx::MdCtx,
    nid::Nid,
    pkey::{PKey, Private, Public},
    pkey_ctx::PkeyCtx,
};
use rand::{SeedableRng, rngs::StdRng};
use shangmi_sm2::elliptic_curve::pkcs8::{EncodePrivateKey, EncodePublicKey};
use shangmi_sm2::pke::{DecryptingKey, Layout};
use shangmi_sm2::signature::{Signer, Verifier};

type Group<'a> = BenchmarkGroup<'a, WallTime>;

unsafe extern "C" {
    /// OpenSSL 3: sets the SM2 distinguishing identifier on a signing/verifying context.
    fn EVP_PKEY_CTX_set1_id(
        ctx: *mut std::os::raw::c_void,
        id: *const std::os::raw::c_void,
        len: std::os::raw::c_int,
    ) -> std::os::raw::c_int;
}

/// Gives OpenSSL the same identifier as the others ("1234567812345678").
fn set_default_id<T>(ctx: &mut openssl::pkey_ctx::PkeyCtxRef<T>) {
    const ID: &[u8] = b"1234567812345678";
    // `PkeyCtxRef` is a foreign-types reference: its address is the `EVP_PKEY_CTX *`.
    let raw = ctx as *mut openssl::pkey_ctx::PkeyCtxRef<T> as *mut std::os::raw::c_void;
    // SAFETY: `raw` is the live EVP_PKEY_CTX of the MdCtx being initialised, ID is valid for
    // its 16 bytes, and OpenSSL copies it.
    let ok = unsafe { EVP_PKEY_CTX_set1_id(raw, ID.as_ptr().cast(), 16) };
    assert_eq!(ok, 1, "EVP_PKEY_CTX_set1_id");
}

const D: [u8; 32] = [0x42; 32];
const PEER: [u8; 32] = [0x24; 32];
const MSG: [u8; 32] = [0x5A; 32];

/// A seeded generator (the benches need speed and repeatability, not secrecy).
fn seeded(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

fn group<'a>(c: &'a mut Criterion, name: &str) -> Group<'a> {
    let mut g = c.benchmark_group(format!("sm2/{name}"));
    g.throughput(Throughput::Elements(1))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g
}

fn ossl_private() -> PKey<Private> {
    let sk = shangmi_sm2::SecretKey::from_bytes(&D.into()).expect("valid key");
    let der = sk.to_pkcs8_der().expect("PKCS#8");
    PKey::private_key_from_pkcs8(der.as_bytes()).expect("OpenSSL loads SM2 PKCS#8")
}

fn ossl_public(d: &[u8; 32]) -> PKey<Public> {
    let sk = shangmi_sm2::SecretKey::from_bytes(&(*d).into()).expect("valid key");
    let der = sk.public_key().to_public_key_der().expect("SPKI");
    PKey::public_key_from_der(der.as_bytes()).expect("OpenSSL loads SM2 SPKI")
}

fn keygen(c: &mut Criterion) {
    let mut g = group(c, "keygen");
    let mut rng = seeded(1);
    g.bench_function("shangmi", |b| {
        b.iter(|| shangmi_sm2::dsa::SigningKey::random(&mut rng))
    });
    let mut rng = seeded(1);
    g.bench_function("rustcrypto", |b| {
        b.iter(|| {
            let mut d = [0u8; 32];
            rand_core::TryRng::try_fill_bytes(&mut rng, &mut d).expect("infallible");
            d[0] &= 0x7F;
            rustcrypto_sm2::dsa::SigningKey::from_bytes("1234567812345678", &d.into())
                .expect("valid key")
        })
    });
    let ec = EcGroup::from_curve_name(Nid::SM2).expect("SM2 group");
    g.bench_function("openssl", |b| {
        b.iter(|| EcKey::generate(&ec).expect("keygen"))
    });
    g.finish();
}

fn sign(c: &mut Criterion) {
    let mut g = group(c, "sign");
    let ours = shangmi_sm2::dsa::SigningKey::from_bytes(&D.into()).expect("valid key");
    g.bench_function("shangmi", |b| {
        b.iter(|| -> shangmi_sm2::dsa::Signature { ours.sign(&MSG) })
    });
    let theirs = rustcrypto_sm2::dsa::SigningKey::from_bytes("1234567812345678", &D.into())
        .expect("valid key");
    g.bench_function("rustcrypto", |b| {
        b.iter(|| -> rustcrypto_sm2::dsa::Signature { theirs.sign(&MSG) })
    });
    let key = ossl_private();
    g.bench_function("openssl", |b| {
        b.iter(|| {
            let mut ctx = MdCtx::new().expect("ctx");
            set_default_id(ctx.digest_sign_init(Some(Md::sm3()), &key).expect("init"));
            let mut out = Vec::new();
            ctx.digest_sign_to_vec(&MSG, &mut out).expect("sign");
            out
        })
    });
    g.finish();
}

fn verify(c: &mut Criterion) {
    let mut g = group(c, "verify");
    let sk = shangmi_sm2::dsa::SigningKey::from_bytes(&D.into()).expect("valid key");
    let sig = sk.sign(&MSG);
    let point = sk.verifying_key().to_sec1_point(false);
    let vk = shangmi_sm2::dsa::VerifyingKey::from_sec1_bytes(point.as_bytes()).expect("valid");
    g.bench_function("shangmi", |b| {
        b.iter(|| vk.verify(&MSG, &sig).expect("valid"))
    });
    let pre = vk.clone().precomputed();
    g.bench_function("shangmi-precomputed", |b| {
        b.iter(|| pre.verify(&MSG, &sig).expect("valid"))
    });
    g.bench_function("shangmi-fresh-key", |b| {
        b.iter(|| {
            shangmi_sm2::dsa::VerifyingKey::from_sec1_bytes(point.as_bytes())
                .expect("valid")
                .verify(&MSG, &sig)
                .expect("valid")
        })
    });
    let rc_vk =
        rustcrypto_sm2::dsa::VerifyingKey::from_sec1_bytes("1234567812345678", point.as_bytes())
            .expect("valid");
    let rc_sig = rustcrypto_sm2::dsa::Signature::from_slice(&sig.to_bytes()).expect("valid");
    g.bench_function("rustcrypto", |b| {
        b.iter(|| rc_vk.verify(&MSG, &rc_sig).expect("valid"))
    });
    let key = ossl_public(&D);
    let der = sig.to_der();
    g.bench_function("openssl", |b| {
        b.iter(|| {
            let mut ctx = MdCtx::new().expect("ctx");
            set_default_id(ctx.digest_verify_init(Some(Md::sm3()), &key).expect("init"));
            assert!(ctx.digest_verify(&MSG, der.as_ref()).expect("verify"));
        })
    });
    g.finish();
}

/// OpenSSL's SM2 encryption of `input` (DER ciphertext), or with `decrypt` its decryption.
fn ossl_pke(key: &PKey<Private>, input: &[u8], decrypt: bool) -> Vec<u8> {
    let mut ctx = PkeyCtx::new(key).expect("ctx");
    let mut out = Vec::new();
    if decrypt {
        ctx.decrypt_init().expect("init");
        ctx.decrypt_to_vec(input, &mut out).expect("decrypt");
    } else {
        ctx.encrypt_init().expect("init");
        ctx.encrypt_to_vec(input, &mut out).expect("encrypt");
    }
    out
}

fn encrypt(c: &mut Criterion) {
    let mut g = group(c, "encrypt-32");
    let dk = DecryptingKey::from_bytes(&D.into()).expect("valid key");
    let mut rng = seeded(3);
    g.bench_function("shangmi", |b| {
        b.iter(|| {
            dk.encrypting_key()
                .encrypt(&mut rng, &MSG, Layout::C1C3C2)
                .expect("encrypt")
        })
    });
    let rc_dk = rustcrypto_sm2::pke::DecryptingKey::from_bytes(&D.into()).expect("valid key");
    let mut rng = seeded(3);
    g.bench_function("rustcrypto", |b| {
        b.iter(|| {
            rc_dk
                .encrypting_key()
                .encrypt(&mut rng, &MSG)
                .expect("encrypt")
        })
    });
    let key = ossl_private();
    g.bench_function("openssl", |b| b.iter(|| ossl_pke(&key, &MSG, false)));
    g.finish();

    let mut g = group(c, "decrypt-32");
    let mut rng = seeded(5);
    let ct = dk
        .encrypting_key()
        .encrypt(&mut rng, &MSG, Layout::C1C3C2)
        .expect("encrypt");
    let ct_der = shangmi_sm2::pke::c1c3c2_to_der(&ct).expect("DER");
    g.bench_function("shangmi", |b| {
        b.iter(|| dk.decrypt(&ct, Layout::C1C3C2).expect("decrypt"))
    });
    g.bench_function("rustcrypto", |b| {
        b.iter(|| rc_dk.decrypt(&ct).expect("decrypt"))
    });
    g.bench_function("openssl", |b| b.iter(|| ossl_pke(&key, &ct_der, true)));
    g.finish();
}

fn ecdh(c: &mut Criterion) {
    let mut g = group(c, "ecdh");
    let sk = shangmi_sm2::SecretKey::from_bytes(&D.into()).expect("valid key");
    let peer = shangmi_sm2::SecretKey::from_bytes(&PEER.into())
        .expect("valid key")
        .public_key();
    g.bench_function("shangmi", |b| {
        b.iter(|| shangmi_sm2::ecdh::diffie_hellman(&sk, &peer))
    });
    let rc_sk = rustcrypto_sm2::SecretKey::from_bytes(&D.into()).expect("valid key");
    let rc_peer = rustcrypto_sm2::SecretKey::from_bytes(&PEER.into())
        .expect("valid key")
        .public_key();
    g.bench_function("rustcrypto", |b| {
        b.iter(|| {
            (rustcrypto_sm2::ProjectivePoint::from(*rc_peer.as_affine())
                * *rc_sk.to_nonzero_scalar())
            .to_affine()
        })
    });
    let key = ossl_private();
    let peer_key = ossl_public(&PEER);
    let can_derive = Deriver::new(&key)
        .and_then(|mut d| {
            d.set_peer(&peer_key)?;
            d.derive_to_vec()
        })
        .is_ok();
    if can_derive {
        g.bench_function("openssl", |b| {
            b.iter(|| {
                let mut d = Deriver::new(&key).expect("deriver");
                d.set_peer(&peer_key).expect("peer");
                d.derive_to_vec().expect("derive")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, keygen, sign, verify, encrypt, ecdh);
criterion_main!(benches);
