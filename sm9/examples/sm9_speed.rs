//! Rough operations per second of SM9 sign, verify, encrypt, decrypt (release build):
//! `cargo run --release -p shangmi-sm9 --example sm9_speed`.

use shangmi_sm9::signature::Verifier;
use shangmi_sm9::{EncryptMasterKey, SignMasterKey};
use std::time::{Duration, Instant};

#[path = "../tests/support/lcg.rs"]
mod lcg;
use lcg::Lcg;

fn rate(name: &str, mut f: impl FnMut()) {
    f();
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed() < Duration::from_secs(2) {
        f();
        n += 1;
    }
    let s = start.elapsed().as_secs_f64();
    println!(
        "{name:<10} {:>9.1} ops/s  ({:.3} ms/op)",
        n as f64 / s,
        1e3 * s / n as f64
    );
}

fn main() -> Result<(), shangmi_sm9::Error> {
    let mut rng = Lcg(42);
    let kgc = SignMasterKey::random(&mut rng)?;
    let alice = kgc.extract(b"Alice")?;
    let msg = [0x5au8; 32];
    let sig = alice.sign_with_rng(&mut rng, &msg)?;
    let vk = kgc.public_key().verifying_key(b"Alice");
    rate("sign", || {
        alice.sign_with_rng(&mut rng, &msg).expect("sign");
    });
    rate("verify", || vk.verify(&msg, &sig).expect("verify"));
    let kgce = EncryptMasterKey::random(&mut rng)?;
    let bob = kgce.extract(b"Bob")?;
    let ct = kgce.public_key().encrypt(&mut rng, b"Bob", &msg)?;
    rate("encrypt", || {
        kgce.public_key()
            .encrypt(&mut rng, b"Bob", &msg)
            .expect("encrypt");
    });
    rate("decrypt", || {
        bob.decrypt(b"Bob", &ct).expect("decrypt");
    });
    Ok(())
}
