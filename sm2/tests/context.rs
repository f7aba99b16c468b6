//! The signing context (`SigningContext`): batched hedged nonces with one shared inversion.
//!
//! The nonces are checked against a plain transcription of RFC 6979 §3.2 (steps b–h, with
//! §3.6 additional data) over RustCrypto's `sm3` and `hmac`, independent of our SM3, our
//! keyed-MAC caching and our batch inversion: the context's signatures must equal the ones
//! `sign_e_with_nonce` makes with the transcription's k (GB/T 32918.2 §6.1 on a known k).
//! Signatures are verified by our `VerifyingKey` and by RustCrypto's `sm2` crate.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests unwrap on purpose

#[path = "support/rfc6979.rs"]
mod rfc6979;
#[path = "support/rngs.rs"]
mod rngs;

use rand::{SeedableRng, rngs::StdRng};
use rfc6979::{reduce, rfc6979_stream};
use rngs::{Failing, Filler};
use rustcrypto_sm2::dsa as rc;
use shangmi_sm2::dsa::{Signature, SigningContext, SigningKey};
use shangmi_sm2::signature::{RandomizedMultipartSignerMut, RandomizedSignerMut, Verifier};
use std::collections::HashSet;

const BATCH: usize = SigningContext::BATCH;

/// The nonces of batch `b` of a context whose generator gave `rho` for it: x = d, h = b as
/// 32 bytes big-endian, additional data rho ‖ "sm2-sign-context".
fn batch_nonces(d: &[u8; 32], b: u64, rho: &[u8; 32]) -> Vec<[u8; 32]> {
    let mut h = [0u8; 32];
    h[24..].copy_from_slice(&b.to_be_bytes());
    let extra = [&rho[..], b"sm2-sign-context"].concat();
    rfc6979_stream(d, &h, &extra, BATCH)
}

/// A generator whose `i`-th fill is all bytes `start + i` (so the test knows every ρ).
fn counting(start: u8) -> Filler<impl FnMut(&mut [u8])> {
    let mut next = start;
    Filler(move |dst: &mut [u8]| {
        dst.fill(next);
        next = next.wrapping_add(1);
    })
}

fn key(seed: u8, id: &[u8]) -> ([u8; 32], SigningKey) {
    let d: [u8; 32] = core::array::from_fn(|i| {
        seed.wrapping_mul(97)
            .wrapping_add((i as u8).wrapping_mul(13))
    });
    (d, SigningKey::from_bytes_with_id(&d.into(), id).unwrap())
}

/// Three batches and a bit: every signature equals the one the hazmat API makes with the
/// transcription's nonce, so the batch inversion, the pool order and the refills are right.
#[test]
fn nonces_are_the_rfc6979_stream_across_refills() {
    for (seed, id) in [(1u8, &b"1234567812345678"[..]), (2, b"alice@example.com")] {
        let (d, sk) = key(seed, id);
        let mut ctx = SigningContext::new(sk.clone());
        let mut rng = counting(seed);
        let mut expected = Vec::new();
        for b in 0..4u64 {
            expected.extend(batch_nonces(&d, b, &[seed + b as u8; 32]));
        }
        for (i, k) in expected.iter().take(3 * BATCH + 5).enumerate() {
            let msg = format!("message {i}");
            let sig = ctx.try_sign_with_rng(&mut rng, msg.as_bytes()).unwrap();
            let e = sk.verifying_key().hash_message(msg.as_bytes());
            assert_eq!(sig, sk.sign_e_with_nonce(&e, &(*k).into()).unwrap(), "{i}");
            assert_eq!(ctx.available(), BATCH - 1 - i % BATCH);
        }
    }
}

/// Many signatures over several refills verify with our key and RustCrypto's `sm2`.
#[test]
fn signatures_verify_here_and_in_rustcrypto() {
    let mut rng = StdRng::seed_from_u64(27);
    for (seed, id) in [
        (3u8, "1234567812345678"),
        (4, "TLSv1.3+GM+Cipher+Suite"),
        (5, "alice@example.com"),
    ] {
        let (d, sk) = key(seed, id.as_bytes());
        let theirs = rc::SigningKey::from_bytes(id, &d.into()).unwrap();
        let mut ctx = SigningContext::new(sk.clone());
        for i in 0..(2 * BATCH + 7) {
            let msg = vec![i as u8; i];
            let sig: Signature = ctx.sign_with_rng(&mut rng, &msg);
            sk.verifying_key().verify(&msg, &sig).unwrap();
            let rc_sig = rc::Signature::from_bytes(&sig.to_bytes().into()).unwrap();
            theirs.verifying_key().verify(&msg, &rc_sig).unwrap();
            let mut bad = msg.clone();
            bad.push(1);
            assert!(sk.verifying_key().verify(&bad, &sig).is_err());
            assert!(theirs.verifying_key().verify(&bad, &rc_sig).is_err());
        }
        // The multipart form hashes the concatenation.
        let sig = ctx.multipart_sign_with_rng(&mut rng, &[b"multi", b"part"]);
        sk.verifying_key().verify(b"multipart", &sig).unwrap();
    }
}

/// The same key and the same seeded generator give the same signatures; another seed does
/// not.
#[test]
fn same_seed_same_signatures() {
    let (_, sk) = key(6, b"1234567812345678");
    let run = |seed: u64| {
        let mut ctx = SigningContext::new(sk.clone());
        let mut rng = StdRng::seed_from_u64(seed);
        (0..BATCH + 3)
            .map(|i| ctx.sign_with_rng(&mut rng, &[i as u8]))
            .collect::<Vec<Signature>>()
    };
    let a = run(1);
    assert_eq!(a, run(1));
    let b = run(2);
    assert!(a.iter().zip(&b).all(|(x, y)| x != y));
}

/// An all-zero generator: the nonces still depend on the key and the counter, so different
/// keys and successive messages get distinct, valid signatures with distinct r.
#[test]
fn zero_generator_still_gives_distinct_nonces() {
    let mut rs = HashSet::new();
    for seed in 7u8..11 {
        let (_, sk) = key(seed, b"1234567812345678");
        let mut ctx = SigningContext::new(sk.clone());
        for i in 0..(BATCH + 4) {
            let msg = [i as u8; 3];
            let sig = ctx.sign_with_rng(&mut Zeros, &msg);
            sk.verifying_key().verify(&msg, &sig).unwrap();
            // r - e = x1 of k·G: distinct x1 means distinct k.
            let e = sk.verifying_key().hash_message(&msg);
            assert!(rs.insert(x1_of(&sig, &e)), "nonce repeated");
        }
    }
    assert_eq!(rs.len(), 4 * (BATCH + 4));
}

/// r - e mod n (big-endian, values below n): the x1 the signature used.
fn x1_of(sig: &Signature, e: &[u8; 32]) -> [u8; 32] {
    use shangmi_sm2::elliptic_curve::ff::PrimeField;
    let r = shangmi_sm2::Scalar::from_repr((*sig.r()).into()).unwrap();
    let e = reduce(e);
    let e = shangmi_sm2::Scalar::from_repr(e.into()).unwrap();
    (r - e).to_repr().into()
}

/// The broken generator: all zeros.
struct Zeros;

impl rand_core::TryRng for Zeros {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(0)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(0)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        dst.fill(0);
        Ok(())
    }
}

impl rand_core::TryCryptoRng for Zeros {}

/// A failing generator fails the refill with `Error::Rng`; a pool already full signs on.
#[test]
fn failing_generator() {
    let (_, sk) = key(11, b"1234567812345678");
    let mut ctx = SigningContext::new(sk.clone());
    assert_eq!(
        ctx.try_sign_e_with_rng(&mut Failing, &[1; 32]),
        Err(shangmi_sm2::Error::Rng)
    );
    assert!(ctx.try_sign_with_rng(&mut Failing, b"m").is_err());
    ctx.refill(&mut counting(0)).unwrap();
    assert_eq!(ctx.available(), BATCH);
    for _ in 0..BATCH {
        let sig = ctx.try_sign_with_rng(&mut Failing, b"m").unwrap();
        sk.verifying_key().verify(b"m", &sig).unwrap();
    }
    assert!(ctx.try_sign_with_rng(&mut Failing, b"m").is_err());
}

/// Timing (release builds only; `cargo test --release --test context -- --ignored
/// --nocapture`): the one-shot deterministic `sign` against the context's, alternated rounds
/// in one process, op/s per round and the ratio.
#[test]
#[ignore = "timing, not a test"]
fn timing_context_against_one_shot() {
    use shangmi_sm2::signature::Signer;
    use std::time::Instant;
    let (_, sk) = key(12, b"1234567812345678");
    let mut ctx = SigningContext::new(sk.clone());
    let mut rng = StdRng::seed_from_u64(1);
    let msg = [0x5Au8; 32];
    let iters = 20_000u32;
    let rate = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        f64::from(iters) / t.elapsed().as_secs_f64()
    };
    for round in 0..5 {
        let one = rate(&mut || {
            std::hint::black_box(sk.sign(std::hint::black_box(&msg)));
        });
        let with_ctx = rate(&mut || {
            std::hint::black_box(ctx.sign_with_rng(&mut rng, std::hint::black_box(&msg)));
        });
        println!(
            "round {round}: sign {one:.0} op/s, context sign {with_ctx:.0} op/s, ratio {:.2}",
            with_ctx / one
        );
    }
}
