//! SM4 modes: ours beside RustCrypto's generic compositions over `sm4` 0.6 (`aes-gcm`'s
//! `AesGcm<Sm4, U12>`, `ccm`, `xts-mode`, `cmac`) and OpenSSL where it has the mode, one
//! criterion group per mode and size: `sm4/{gcm-seal,gcm-open,ccm-seal,xts-enc,cmac}/{16,1024,8192}`
//! (GCM also at 64 B and 16 KiB, TLS record sizes), and `sm4/gcm-siv-seal/…` beside RustCrypto's
//! `aes-gcm-siv` over its `sm4`.
//! OpenSSL 3.0 (Debian 12) has no SM4-GCM, SM4-CCM or SM4-XTS, so it appears in `cmac` only.
//!
//! `sm4/{cbc-many,cmac-many}/16x1024`: 16 messages of 1 KiB at once against one at a time.
//!
//! `cargo bench -p shangmi-benches --bench sm4_modes -- sm4/gcm`

use std::time::Duration;

use aead::{AeadInOut, KeyInit};
use cmac::digest::Mac;
use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use shangmi_sm4_modes::{Sm4Ccm, Sm4Cmac, Sm4Gcm, Sm4GcmSiv, Sm4XtsGb, Sm4XtsIeee};

type Group<'a> = BenchmarkGroup<'a, WallTime>;

const KEY: [u8; 16] = [0x42; 16];
const NONCE: [u8; 12] = [0x24; 12];
const AAD: [u8; 13] = [0x17; 13];
const SIZES: [usize; 3] = [16, 1024, 8192];
/// GCM's sizes: TLS records from tiny to full.
const GCM_SIZES: [usize; 5] = [16, 64, 1024, 8192, 16384];

fn group<'a>(c: &'a mut Criterion, mode: &str, size: usize) -> Group<'a> {
    let mut g = c.benchmark_group(format!("sm4/{mode}/{size}"));
    g.throughput(Throughput::Bytes(size as u64))
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    g
}

/// Seals `size` bytes in place, or with `open` opens a valid `size`-byte message
/// (decrypting the same ciphertext each time), with any `aead` 0.6 AEAD with a 12-byte
/// nonce.
fn aead_with<A: AeadInOut<NonceSize = aead::consts::U12>>(
    g: &mut Group,
    name: &str,
    a: &A,
    size: usize,
    open: bool,
) {
    let mut buf = vec![0u8; size];
    let nonce = NONCE.into();
    if !open {
        g.bench_function(name, |b| {
            b.iter(|| a.encrypt_inout_detached(&nonce, &AAD, (&mut buf[..]).into()))
        });
        return;
    }
    let tag = a
        .encrypt_inout_detached(&nonce, &AAD, (&mut buf[..]).into())
        .expect("seal");
    let mut out = vec![0u8; size];
    g.bench_function(name, |b| {
        b.iter(|| {
            let io = aead::inout::InOutBuf::new(&buf, &mut out).expect("same length");
            a.decrypt_inout_detached(&nonce, &AAD, io, &tag)
                .expect("valid tag")
        })
    });
}

/// One group per size of `mode`: ours (named by its engine) and RustCrypto's composition
/// seal, or with `open` open, `size` bytes.
#[allow(clippy::too_many_arguments)]
fn aead_rows<A, T>(
    c: &mut Criterion,
    mode: &str,
    sizes: &[usize],
    engine: &str,
    ours: &A,
    theirs: &T,
    open: bool,
) where
    A: AeadInOut<NonceSize = aead::consts::U12>,
    T: AeadInOut<NonceSize = aead::consts::U12>,
{
    let name = format!("shangmi-{engine}");
    for &size in sizes {
        let mut g = group(c, mode, size);
        aead_with(&mut g, &name, ours, size, open);
        aead_with(&mut g, "rustcrypto", theirs, size, open);
        g.finish();
    }
}

fn gcm(c: &mut Criterion) {
    let ours = Sm4Gcm::new(&KEY.into());
    let theirs = aes_gcm::AesGcm::<rustcrypto_sm4::Sm4, aead::consts::U12>::new(&KEY.into());
    let engine = ours.backend().to_string();
    aead_rows(c, "gcm-seal", &GCM_SIZES, &engine, &ours, &theirs, false);
    aead_rows(c, "gcm-open", &GCM_SIZES, &engine, &ours, &theirs, true);
}

fn gcm_siv(c: &mut Criterion) {
    let ours = Sm4GcmSiv::new(&KEY.into());
    let theirs = aes_gcm_siv::AesGcmSiv::<rustcrypto_sm4::Sm4>::new(&KEY.into());
    let engine = ours.backend().to_string();
    aead_rows(c, "gcm-siv-seal", &SIZES, &engine, &ours, &theirs, false);
}

fn ccm(c: &mut Criterion) {
    let ours = Sm4Ccm::new(&KEY.into());
    let theirs =
        ccm::Ccm::<rustcrypto_sm4::Sm4, aead::consts::U16, aead::consts::U12>::new(&KEY.into());
    let engine = ours.backend().to_string();
    aead_rows(c, "ccm-seal", &SIZES, &engine, &ours, &theirs, false);
}

fn xts(c: &mut Criterion) {
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let ieee = Sm4XtsIeee::new(&key).expect("distinct halves");
    let gb = Sm4XtsGb::new(&key).expect("distinct halves");
    let theirs = {
        use rustcrypto_sm4::cipher::KeyInit as _;
        let k1: [u8; 16] = key[..16].try_into().expect("16 bytes");
        let k2: [u8; 16] = key[16..].try_into().expect("16 bytes");
        xts_mode::Xts128::new(
            rustcrypto_sm4::Sm4::new(&k1.into()),
            rustcrypto_sm4::Sm4::new(&k2.into()),
        )
    };
    for size in SIZES {
        let mut g = group(c, "xts-enc", size);
        let mut buf = vec![0u8; size];
        let tweak = Sm4XtsIeee::sector_tweak(7);
        g.bench_function(format!("shangmi-ieee-{}", ieee.backend()), |b| {
            b.iter(|| ieee.encrypt(&tweak, &mut buf).expect("valid length"))
        });
        g.bench_function(format!("shangmi-gb-{}", gb.backend()), |b| {
            b.iter(|| gb.encrypt(&tweak, &mut buf).expect("valid length"))
        });
        g.bench_function("rustcrypto-ieee", |b| {
            b.iter(|| theirs.encrypt_sector(&mut buf, tweak.into()))
        });
        g.finish();
    }
}

fn cmac(c: &mut Criterion) {
    let ours = <Sm4Cmac as KeyInit>::new(&KEY.into());
    let theirs =
        <cmac::Cmac<rustcrypto_sm4::Sm4> as rustcrypto_sm4::cipher::KeyInit>::new(&KEY.into());
    let pkey =
        openssl::pkey::PKey::cmac(&openssl::symm::Cipher::sm4_cbc(), &KEY).expect("CMAC key");
    for size in SIZES {
        let mut g = group(c, "cmac", size);
        let data = vec![0u8; size];
        g.bench_function("shangmi", |b| {
            b.iter(|| {
                let mut m = ours.clone();
                m.update(&data);
                m.finalize().into_bytes()
            })
        });
        g.bench_function("rustcrypto", |b| {
            b.iter(|| {
                let mut m = theirs.clone();
                m.update(&data);
                m.finalize().into_bytes()
            })
        });
        g.bench_function("openssl", |b| {
            b.iter(|| {
                let mut s = openssl::sign::Signer::new_without_digest(&pkey).expect("signer");
                s.update(&data).expect("update");
                s.sign_to_vec().expect("sign")
            })
        });
        g.finish();
    }
}

/// A group of `count` messages of `len` bytes.
fn many_group<'a>(c: &'a mut Criterion, mode: &str, count: usize, len: usize) -> Group<'a> {
    let mut g = c.benchmark_group(format!("sm4/{mode}/{count}x{len}"));
    g.throughput(Throughput::Bytes((count * len) as u64))
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g
}

/// Many messages at once against one at a time: `sm4/{cbc-many,cmac-many}/16x1024`,
/// 16 messages of 1 KiB under one key (`cbc_encrypt_many_in_place`, `cmac_many`) beside
/// the same 16 through `Sm4CbcEnc` / `Sm4Cmac` one after another.
fn many(c: &mut Criterion) {
    use shangmi_sm4_modes::cipher::{BlockModeEncrypt, InnerIvInit, block_padding::NoPadding};
    use shangmi_sm4_modes::{Sm4, Sm4CbcEnc, cbc_encrypt_many_in_place, cmac_many};
    const COUNT: usize = 16;
    const LEN: usize = 1024;
    let cipher = <Sm4 as KeyInit>::new(&KEY.into());
    let ivs: Vec<[u8; 16]> = (0..COUNT).map(|i| [i as u8; 16]).collect();
    let mut bufs = vec![vec![0u8; LEN]; COUNT];

    let mut g = many_group(c, "cbc-many", COUNT, LEN);
    g.bench_function("many", |b| {
        b.iter(|| {
            let mut refs: Vec<&mut [u8]> = bufs.iter_mut().map(|v| v.as_mut_slice()).collect();
            cbc_encrypt_many_in_place(&cipher, &ivs, &mut refs).expect("whole blocks")
        })
    });
    g.bench_function("one-at-a-time", |b| {
        b.iter(|| {
            for (buf, iv) in bufs.iter_mut().zip(&ivs) {
                let enc = Sm4CbcEnc::inner_iv_init(cipher.clone(), &(*iv).into());
                enc.encrypt_padded::<NoPadding>(buf, LEN)
                    .expect("whole blocks");
            }
        })
    });
    g.finish();

    let msgs: Vec<Vec<u8>> = (0..COUNT).map(|i| vec![i as u8; LEN]).collect();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    let mut tags = vec![[0u8; 16]; COUNT];
    let one = <Sm4Cmac as KeyInit>::new(&KEY.into());
    let mut g = many_group(c, "cmac-many", COUNT, LEN);
    g.bench_function("many", |b| {
        b.iter(|| cmac_many(&cipher, &refs, &mut tags).expect("as many tags"))
    });
    g.bench_function("one-at-a-time", |b| {
        b.iter(|| {
            for (m, t) in refs.iter().zip(tags.iter_mut()) {
                let mut mac = one.clone();
                mac.update(m);
                *t = mac.finalize().into_bytes().into();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, gcm, gcm_siv, ccm, xts, cmac, many);
criterion_main!(benches);
