//! SM3 throughput: every engine available here beside RustCrypto `sm3` 0.5 and OpenSSL, one
//! criterion group per size (`sm3/{64,1024,8192}`), so the ratios come from one run; plus
//! the multi-buffer path (`sm3/many{8,16}/{64,1024,8192}`: that many messages of the size
//! per iteration, throughput counted over all of them, single-stream best engine beside it
//! hashing the same messages one by one).
//!
//! `cargo bench -p shangmi-benches --bench sm3 -- sm3/8192`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use openssl::hash::{MessageDigest, hash};
use shangmi_benches::bytes_group as group;
use shangmi_sm3::{Backend, Digest, Sm3, hazmat};

const SIZES: [usize; 3] = [64, 1024, 8192];

fn single(c: &mut Criterion) {
    for size in SIZES {
        let data = vec![0x5au8; size];
        let mut g = group(c, format!("sm3/{size}"), size);
        for backend in Backend::available() {
            g.bench_function(format!("shangmi-{backend}"), |b| {
                b.iter(|| {
                    let mut h = Sm3::with_backend(backend).expect("listed as available");
                    h.update(black_box(&data));
                    h.finalize()
                })
            });
        }
        g.bench_function("rustcrypto-sm3", |b| {
            b.iter(|| rustcrypto_sm3::Sm3::digest(black_box(&data)))
        });
        g.bench_function("openssl", |b| {
            b.iter(|| hash(MessageDigest::sm3(), black_box(&data)).expect("OpenSSL SM3"))
        });
        g.finish();
    }
}

fn many(c: &mut Criterion) {
    for lanes in [8usize, 16] {
        for size in SIZES {
            let msgs: Vec<Vec<u8>> = (0..lanes).map(|i| vec![i as u8; size]).collect();
            let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
            let mut out = vec![[0u8; 32]; lanes];
            let mut g = group(c, format!("sm3/many{lanes}/{size}"), size * lanes);
            for backend in Backend::available() {
                g.bench_function(format!("shangmi-{backend}"), |b| {
                    b.iter(|| {
                        hazmat::digest_many_with(backend, black_box(&refs), &mut out)
                            .expect("listed as available")
                    })
                });
            }
            g.bench_function("shangmi-one-by-one", |b| {
                b.iter(|| {
                    for (m, o) in refs.iter().zip(out.iter_mut()) {
                        *o = Sm3::digest(black_box(m)).into();
                    }
                })
            });
            g.finish();
        }
    }
}

criterion_group!(benches, single, many);
criterion_main!(benches);
