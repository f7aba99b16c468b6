//! ZUC throughput: every S-box engine available here beside the independent `zuc` crate
//! (v0.4.1, table-based), one criterion group per size so the ratios come from one run:
//! `zuc/keystream/{64,1024,8192}` (ZUC-128, key and IV set up per message, as a bearer
//! would), `zuc/eea3/...` (128-EEA3 whole bytes, and eight packets at once through
//! `eea3_many` on every many-message engine, counted as eight times the bytes) and
//! `zuc/eia3/...` (128-EIA3 MAC).
//! OpenSSL 3.0 has no ZUC.
//!
//! `cargo bench -p shangmi-benches --bench zuc -- zuc/eea3/8192`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use shangmi_benches::bytes_group as group;
use shangmi_zuc::{
    Backend, Eea3Packet, Eia3, ManyEngine, Zuc128Core,
    cipher::{StreamCipher, StreamCipherCoreWrapper},
    digest::Mac,
    eea3_iv, eia3_iv,
};

const SIZES: [usize; 3] = [64, 1024, 8192];
const KEY: [u8; 16] = [0x17; 16];
const COUNT: u32 = 0x398a_59b4;
const BEARER: u8 = 0x15;
const DIRECTION: u8 = 1;

fn keystream(c: &mut Criterion) {
    let iv = eea3_iv(COUNT, BEARER, DIRECTION).expect("valid parameters");
    for size in SIZES {
        let mut buf = vec![0u8; size];
        let mut g = group(c, format!("zuc/keystream/{size}"), size);
        for backend in Backend::available() {
            g.bench_function(format!("shangmi-{backend}"), |b| {
                b.iter(|| {
                    let core = Zuc128Core::with_backend(&KEY.into(), &iv.into(), backend)
                        .expect("listed as available");
                    StreamCipherCoreWrapper::from_core(core).apply_keystream(black_box(&mut buf));
                })
            });
        }
        g.bench_function("zuc-crate", |b| {
            b.iter(|| {
                let mut z = zuc::zuc128::Zuc128Keystream::new(&KEY, &iv);
                for chunk in black_box(&mut buf).chunks_mut(4) {
                    let word = z.generate().to_be_bytes();
                    for (d, k) in chunk.iter_mut().zip(word) {
                        *d ^= k;
                    }
                }
            })
        });
        g.finish();
    }
}

fn eea3_eia3(c: &mut Criterion) {
    for size in SIZES {
        let mut buf = vec![0x5au8; size];
        let mut g = group(c, format!("zuc/eea3/{size}"), size);
        g.bench_function("shangmi", |b| {
            b.iter(|| {
                shangmi_zuc::eea3(
                    &KEY,
                    COUNT,
                    BEARER,
                    DIRECTION,
                    black_box(&mut buf),
                    8 * size,
                )
                .expect("valid parameters")
            })
        });
        g.bench_function("zuc-crate", |b| {
            b.iter(|| {
                zuc::eea3::eea3_xor_inplace(
                    COUNT,
                    BEARER,
                    DIRECTION,
                    &KEY,
                    black_box(&mut buf),
                    8 * size,
                )
            })
        });
        g.finish();

        let mut many = vec![vec![0x5au8; size]; 8];
        let mut g = group(c, format!("zuc/eea3-many8/{size}"), 8 * size);
        for engine in ManyEngine::available() {
            g.bench_function(format!("shangmi-{engine}"), |b| {
                b.iter(|| {
                    let mut packets: Vec<Eea3Packet<'_>> = many
                        .iter_mut()
                        .enumerate()
                        .map(|(i, d)| Eea3Packet {
                            ck: KEY,
                            count: COUNT,
                            bearer: i as u8,
                            direction: DIRECTION,
                            data: black_box(d),
                            bit_len: 8 * size,
                        })
                        .collect();
                    shangmi_zuc::eea3_many_on(&mut packets, engine).expect("valid parameters")
                })
            });
        }
        g.finish();

        let iv = eia3_iv(COUNT, BEARER, DIRECTION).expect("valid parameters");
        let mut g = group(c, format!("zuc/eia3/{size}"), size);
        for backend in Backend::available() {
            g.bench_function(format!("shangmi-{backend}"), |b| {
                b.iter(|| {
                    let mut mac = Eia3::with_backend(&KEY.into(), &iv.into(), backend)
                        .expect("listed as available");
                    mac.update(black_box(&buf));
                    mac.finalize()
                })
            });
        }
        g.bench_function("zuc-crate", |b| {
            b.iter(|| {
                zuc::eia3::Eia3Mac::compute(
                    COUNT,
                    BEARER,
                    DIRECTION,
                    &KEY,
                    black_box(&buf),
                    8 * size,
                )
            })
        });
        g.finish();
    }
}

criterion_group!(benches, keystream, eea3_eia3);
criterion_main!(benches);
