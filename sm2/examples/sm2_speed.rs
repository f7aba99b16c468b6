//! Rough single-thread throughput of keygen, sign and verify (for development; criterion
//! numbers live in the workspace `benches/`).

use shangmi_sm2::dsa::SigningKey;
use shangmi_sm2::signature::{Signer, Verifier};
use std::time::Instant;

fn rate(name: &str, iters: u32, mut f: impl FnMut(u32)) {
    let t = Instant::now();
    for i in 0..iters {
        f(i);
    }
    let s = t.elapsed().as_secs_f64();
    println!("{name:10} {:>10.0} ops/s", f64::from(iters) / s);
}

fn main() {
    let sk = SigningKey::from_bytes(&[7u8; 32].into()).expect("valid key");
    let msg = [0u8; 32];
    let sig = sk.sign(&msg);
    let vk = shangmi_sm2::dsa::VerifyingKey::from_sec1_bytes(
        sk.verifying_key().to_sec1_point(false).as_bytes(),
    )
    .expect("valid point");
    for _ in 0..3 {
        rate("keygen", 20_000, |i| {
            let mut d = [9u8; 32];
            d[..4].copy_from_slice(&i.to_be_bytes());
            std::hint::black_box(SigningKey::from_bytes(&d.into()).expect("valid key"));
        });
        rate("sign", 20_000, |i| {
            std::hint::black_box(sk.sign(&i.to_be_bytes()));
        });
        rate("sign-e", 20_000, |i| {
            let mut e = [0x11u8; 32];
            e[..4].copy_from_slice(&i.to_be_bytes());
            std::hint::black_box(sk.sign_e(&e).to_der());
        });
        rate("verify", 20_000, |_| {
            assert!(std::hint::black_box(vk.verify(&msg, &sig)).is_ok());
        });
    }
}
