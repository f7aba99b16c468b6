//! SM4 throughput: every engine available here beside RustCrypto `sm4` (through the same
//! `cbc` / `ctr` crates) and OpenSSL, in one criterion group per mode and size, so the
//! ratios come from one run. `cargo bench -p shangmi-benches -- sm4/ctr`

use std::time::Duration;

use cbc::cipher::{BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyIvInit, StreamCipher};
use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use openssl::symm::{Cipher, Crypter, Mode};
use shangmi_sm4::{
    Backend, CtrFlavor, Sm4,
    cipher::{Block, BlockCipherEncrypt, KeyInit},
};

const KEY: [u8; 16] = [0x42; 16];
const IV: [u8; 16] = [0x24; 16];
const SIZES: [usize; 3] = [16, 1024, 8192];

fn blocks<B: Default + Clone>(n: usize) -> Vec<B> {
    vec![B::default(); n / 16]
}

fn ours() -> Vec<(String, Sm4)> {
    Backend::available()
        .map(|b| {
            (
                format!("shangmi-{b}"),
                Sm4::with_backend(&KEY.into(), b).expect("available"),
            )
        })
        .collect()
}

fn openssl(group: &mut BenchmarkGroup<'_, WallTime>, cipher: Cipher, mode: Mode, size: usize) {
    let mut c = Crypter::new(cipher, mode, &KEY, cipher.iv_len().map(|_| &IV[..]))
        .expect("OpenSSL has SM4");
    c.pad(false);
    let input = vec![0u8; size];
    let mut out = vec![0u8; size + 16];
    group.bench_function("openssl", |b| {
        b.iter(|| c.update(&input, &mut out).expect("update"))
    });
}

fn group<'a>(c: &'a mut Criterion, name: &str, size: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(format!("sm4/{name}/{size}"));
    g.throughput(Throughput::Bytes(size as u64));
    g.warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    g
}

fn ecb(c: &mut Criterion) {
    for size in SIZES {
        let mut g = group(c, "ecb", size);
        for (name, sm4) in ours() {
            let mut buf = blocks::<Block<Sm4>>(size);
            g.bench_function(name, |b| b.iter(|| sm4.encrypt_blocks(&mut buf)));
        }
        let rc = rustcrypto_sm4::Sm4::new(&KEY.into());
        let mut buf = blocks::<Block<rustcrypto_sm4::Sm4>>(size);
        g.bench_function("rustcrypto", |b| b.iter(|| rc.encrypt_blocks(&mut buf)));
        openssl(&mut g, Cipher::sm4_ecb(), Mode::Encrypt, size);
        g.finish();
    }
}

fn cbc_enc(c: &mut Criterion) {
    for size in SIZES {
        let mut g = group(c, "cbc-enc", size);
        for (name, sm4) in ours() {
            let mut buf = blocks::<Block<Sm4>>(size);
            g.bench_function(name, |b| {
                b.iter(|| {
                    cbc::Encryptor::inner_iv_init(sm4.clone(), &IV.into()).encrypt_blocks(&mut buf)
                })
            });
        }
        let mut buf = blocks::<Block<rustcrypto_sm4::Sm4>>(size);
        g.bench_function("rustcrypto", |b| {
            b.iter(|| {
                cbc::Encryptor::<rustcrypto_sm4::Sm4>::new(&KEY.into(), &IV.into())
                    .encrypt_blocks(&mut buf)
            })
        });
        openssl(&mut g, Cipher::sm4_cbc(), Mode::Encrypt, size);
        g.finish();
    }
}

fn cbc_dec(c: &mut Criterion) {
    for size in SIZES {
        let mut g = group(c, "cbc-dec", size);
        for (name, sm4) in ours() {
            let mut buf = blocks::<Block<Sm4>>(size);
            g.bench_function(name, |b| {
                b.iter(|| {
                    cbc::Decryptor::inner_iv_init(sm4.clone(), &IV.into()).decrypt_blocks(&mut buf)
                })
            });
        }
        let mut buf = blocks::<Block<rustcrypto_sm4::Sm4>>(size);
        g.bench_function("rustcrypto", |b| {
            b.iter(|| {
                cbc::Decryptor::<rustcrypto_sm4::Sm4>::new(&KEY.into(), &IV.into())
                    .decrypt_blocks(&mut buf)
            })
        });
        openssl(&mut g, Cipher::sm4_cbc(), Mode::Decrypt, size);
        g.finish();
    }
}

fn ctr(c: &mut Criterion) {
    for size in SIZES {
        let mut g = group(c, "ctr", size);
        for (name, sm4) in ours() {
            let mut buf = vec![0u8; size];
            g.bench_function(name, |b| {
                b.iter(|| {
                    let mut counter = IV;
                    sm4.apply_ctr(CtrFlavor::Be128, &mut counter, &mut buf);
                })
            });
        }
        let mut buf = vec![0u8; size];
        g.bench_function("rustcrypto", |b| {
            b.iter(|| {
                ctr::Ctr128BE::<rustcrypto_sm4::Sm4>::new(&KEY.into(), &IV.into())
                    .apply_keystream(&mut buf)
            })
        });
        openssl(&mut g, Cipher::sm4_ctr(), Mode::Encrypt, size);
        g.finish();
    }
}

criterion_group!(benches, ecb, cbc_enc, cbc_dec, ctr);
criterion_main!(benches);
