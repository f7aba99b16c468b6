//! `sm2::batch` against the same work one item at a time: eight signature verifications
//! (eight keys, as a gateway or a CA sees them) and eight ECDH shared secrets (eight
//! secrets and eight peer key shares), each group measured A B A B in one run (the ratios
//! hold within a run on a busy machine). On x86-64 with AVX-512 IFMA the batch runs as
//! eight lanes; elsewhere it is the single path in a loop (ratio about 1).

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::signature::{Signer, Verifier};
use shangmi_sm2::{Error, SecretKey, batch, ecdh};

/// A message of the size a TLS CertificateVerify or a certificate's TBS hash input has.
const MSG: [u8; 64] = [0x5A; 64];

fn secret(i: u8, salt: u8) -> [u8; 32] {
    let mut d = [i.wrapping_mul(29) ^ salt; 32];
    d[0] = 0x11;
    d[31] = i | 1;
    d
}

fn verify(c: &mut Criterion) {
    let signers: Vec<SigningKey> = (0..8)
        .map(|i| SigningKey::from_bytes(&secret(i, 0x3C).into()).expect("valid key"))
        .collect();
    let keys: Vec<VerifyingKey> = signers
        .iter()
        .map(|s| {
            VerifyingKey::from_sec1_bytes(s.verifying_key().to_sec1_point(false).as_bytes())
                .expect("valid")
        })
        .collect();
    let sigs: Vec<Signature> = signers.iter().map(|s| s.sign(&MSG)).collect();
    let items: Vec<(&VerifyingKey, &[u8], &Signature)> = keys
        .iter()
        .zip(&sigs)
        .map(|(k, s)| (k, &MSG[..], s))
        .collect();
    let mut out = [Ok(()); 8];
    single_then_batch(
        c,
        "sm2/batch-verify-8",
        || {
            for (k, m, s) in &items {
                k.verify(m, s).expect("valid");
            }
        },
        || {
            batch::verify_into(black_box(&items), &mut out).expect("lengths");
            assert!(out.iter().all(Result::is_ok));
        },
    );
}

fn ecdh(c: &mut Criterion) {
    let secrets: Vec<SecretKey> = (0..8)
        .map(|i| SecretKey::from_bytes(&secret(i, 0x71).into()).expect("valid key"))
        .collect();
    let shares: Vec<[u8; 65]> = (0..8)
        .map(|i| {
            let peer = SecretKey::from_bytes(&secret(i, 0x0F).into()).expect("valid key");
            ecdh::public_point_uncompressed(&peer)
        })
        .collect();
    let mut out: [Result<ecdh::SharedSecret, Error>; 8] =
        core::array::from_fn(|_| Err(Error::InvalidPoint));
    let pairs: Vec<(&SecretKey, &[u8])> = secrets
        .iter()
        .zip(&shares)
        .map(|(s, p)| (s, &p[..]))
        .collect();
    single_then_batch(
        c,
        "sm2/batch-ecdh-8",
        || {
            for (s, p) in &pairs {
                black_box(ecdh::diffie_hellman_sec1(s, p).expect("valid"));
            }
        },
        || {
            batch::diffie_hellman_into(black_box(&pairs), &mut out).expect("lengths");
            assert!(out.iter().all(Result::is_ok));
        },
    );
}

/// One group of eight items a run: `single` (one at a time) and `batch`, A B A B.
fn single_then_batch(
    c: &mut Criterion,
    name: &str,
    mut single: impl FnMut(),
    mut batch: impl FnMut(),
) {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(8))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for round in ["", "-again"] {
        g.bench_function(format!("8-single{round}"), |b| b.iter(&mut single));
        g.bench_function(format!("batch{round}"), |b| b.iter(&mut batch));
    }
    g.finish();
}

criterion_group!(benches, verify, ecdh);
criterion_main!(benches);
