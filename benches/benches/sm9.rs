//! SM9 operations: `sm9/sign`, `sm9/verify` (a reused master public key: its pairing value
//! and prepared lines come from the key once; one two-pairing product per verification),
//! `sm9/encrypt` and `sm9/decrypt` (32 bytes, KDF/XOR mode; decryption is one pairing with
//! the key's prepared lines) and `sm9/extract-sign` (user signing key extraction). The
//! pairing itself is crate-private. gmsm v0.44's `sm9` benchmarks are the peer.
//!
//! `cargo bench -p shangmi-benches --bench sm9`

use std::{hint::black_box, time::Duration};

use criterion::{Criterion, criterion_group, criterion_main};
use rand::{SeedableRng, rngs::StdRng};
use shangmi_sm9::signature::Verifier;
use shangmi_sm9::{EncryptMasterKey, SignMasterKey};

const MSG: [u8; 32] = [0x5A; 32];

fn sm9(c: &mut Criterion) {
    let mut rng = StdRng::seed_from_u64(9);
    let kgc = SignMasterKey::from_bytes(&[0x42; 32]).expect("fixed key");
    let alice = kgc.extract(b"Alice").expect("extraction");
    let sig = alice.sign_with_rng(&mut rng, &MSG).expect("signing");
    let kgce = EncryptMasterKey::from_bytes(&[0x24; 32]).expect("fixed key");
    let bob = kgce.extract(b"Bob").expect("extraction");
    let ct = kgce
        .public_key()
        .encrypt(&mut rng, b"Bob", &MSG)
        .expect("encryption");

    let mut g = c.benchmark_group("sm9");
    g.warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("sign", |b| {
        b.iter(|| {
            alice
                .sign_with_rng(&mut rng, black_box(&MSG))
                .expect("signing")
        })
    });
    g.bench_function("verify", |b| {
        b.iter(|| {
            kgc.public_key()
                .verifying_key(b"Alice")
                .verify(black_box(&MSG), &sig)
                .expect("verifies")
        })
    });
    g.bench_function("encrypt", |b| {
        b.iter(|| {
            kgce.public_key()
                .encrypt(&mut rng, b"Bob", black_box(&MSG))
                .expect("encryption")
        })
    });
    g.bench_function("decrypt", |b| {
        b.iter(|| bob.decrypt(b"Bob", black_box(&ct)).expect("decrypts"))
    });
    g.bench_function("extract-sign", |b| {
        b.iter(|| kgc.extract(black_box(b"Alice")).expect("extraction"))
    });
    g.finish();
}

criterion_group!(benches, sm9);
criterion_main!(benches);
