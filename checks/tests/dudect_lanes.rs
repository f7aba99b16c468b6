//! dudect checks of SM2's eight-lane k·G and k·P (the "SM2 lanes" backend `lanes-ifma`,
//! x86-64 with AVX-512 IFMA), which valgrind's memcheck cannot run (valgrind emulates no
//! AVX-512). k·G: a
//! `KeyPool` refill (32 secrets, four batches of eight lanes: the comb scans, the 52-bit
//! field, the batch inversion) on 32 secrets drawn from a fixed seed against 32 from fresh
//! seeds, with a secret-indexed load as the negative control that must be flagged. The
//! statistics and the rules are those of `tests/dudect.rs` (|t| above 10 in two runs in a
//! row flags a leak). k·P: a batch ECDH of eight (`sm2::batch::diffie_hellman_into`:
//! eight secrets against eight fixed peer points, the per-lane table scans, the 52-bit
//! field, the shared inversion), eight secrets from a fixed seed against eight from fresh
//! seeds, with the same kind of control. Where the CPU lacks IFMA both run the scalar code
//! (the output names the backend), which `dudect.rs` and the memcheck test cover as well.
//!
//! About twenty seconds; release builds only (`cargo test --release -p shangmi-checks --test
//! dudect_lanes`).

#![cfg(target_arch = "x86_64")]
#![allow(clippy::unwrap_used)] // a test

use std::hint::black_box;
use std::time::Duration;

use rand::{SeedableRng, rngs::StdRng};
use shangmi_checks::{Budget, Rng, check, timing_build};
use shangmi_sm2::keys::KeyPool;

/// A generator for one refill: a fixed seed in the fixed class (the same 32 secrets every
/// time, of typical weight), a fresh one otherwise.
fn generator(fixed: bool, rng: &mut Rng) -> u64 {
    if fixed {
        0x5EC2_E75E_ED00_0001
    } else {
        rng.next_u64()
    }
}

/// The negative controls' secret-indexed loads: 1,024 lines of `table` (64 MiB, made by
/// [`leak_table`]), each picked from the whole table by a hash of the seed and its index, so
/// the fixed class reads the same 1,024 lines every time (cache hits) and a fresh seed reads
/// lines that miss to memory. The table is larger than the last-level caches these tests
/// meet (Zen 3's is 32 MiB); picking lines by the seed's bytes alone, 256 choices a load,
/// made a 2 MiB working set that stayed in cache, and a Zen 3 without IFMA, whose batch
/// ECDH takes 1.4 million cycles, then saw the control at |t| 2.82 and 8.31; 128 lines so
/// picked, with the machine busy, left the key pool's control at 9.52 and 4.06, and 512
/// the batch ECDH's at 5.14 in one first run of four (23.52 again).
fn leak(table: &[u8], seed: u64) -> u8 {
    let lines = table.len() / 64;
    let mut acc = 0u8;
    for i in 0..1024u64 {
        let h = (seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        acc ^= table[((h >> 32) as usize % lines) * 64];
    }
    acc
}

/// The table [`leak`] reads.
fn leak_table() -> Vec<u8> {
    (0..64usize << 20).map(|i| i as u8).collect()
}

/// Runs `op` on both classes, twice if the first run disagrees with `leaky`
/// ([`shangmi_checks::flagged`]); true if the outcome is flagged.
fn flagged(name: &str, seconds: u64, seed: u64, op: &dyn Fn(&u64), leaky: bool) -> bool {
    shangmi_checks::flagged(name, seed, Some(leaky), |seed| {
        let budget = Budget {
            time: Duration::from_secs(seconds),
            batch: 200,
            max_samples: 200_000,
        };
        check(budget, seed, generator, op)
    })
}

#[test]
fn eight_lane_key_generation_shows_no_timing_leak() {
    if !timing_build() {
        return;
    }
    let backend = shangmi_dispatch::sm2_lanes::Backend::best();
    let pool = |seed: &u64| {
        let mut pool = KeyPool::new();
        pool.refill(&mut StdRng::seed_from_u64(*seed)).unwrap();
        black_box(&pool);
    };
    // The control: the same refill, then loads at lines the seed picks ([`leak`]).
    let table = leak_table();
    let leaky = |seed: &u64| {
        let mut pool = KeyPool::new();
        pool.refill(&mut StdRng::seed_from_u64(*seed)).unwrap();
        black_box((&pool, leak(&table, *seed)));
    };
    let control = flagged(
        "control: key pool refill + secret-indexed loads",
        4,
        0x1A7E_0000,
        &leaky,
        true,
    );
    let lanes = flagged(
        &format!("sm2/key pool refill, 32 k·G (SM2 lanes: {backend})"),
        6,
        0x1A7E_0010,
        &pool,
        false,
    );
    assert!(
        control,
        "the leaky control was not flagged: the check could not fail"
    );
    assert!(!lanes, "the key pool refill's time depends on the secrets");
}

#[test]
fn eight_lane_ecdh_shows_no_timing_leak() {
    if !timing_build() {
        return;
    }
    use rand::Rng as _; // fill_bytes
    use shangmi_sm2::{Error, SecretKey, batch, ecdh};
    let backend = shangmi_dispatch::sm2_lanes::Backend::best();
    // Eight public peer points, fixed.
    let shares: Vec<[u8; 65]> = (1..=8u8)
        .map(|i| ecdh::public_point_uncompressed(&SecretKey::from_bytes(&[i; 32].into()).unwrap()))
        .collect();
    let secrets = |seed: u64| -> Vec<SecretKey> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..8)
            .map(|_| {
                loop {
                    let mut d = [0u8; 32];
                    rng.fill_bytes(&mut d);
                    if let Ok(k) = SecretKey::from_bytes(&d.into()) {
                        break k;
                    }
                }
            })
            .collect()
    };
    let run = |seed: &u64| {
        let secrets = secrets(*seed);
        let pairs: Vec<(&SecretKey, &[u8])> = secrets
            .iter()
            .zip(&shares)
            .map(|(s, p)| (s, &p[..]))
            .collect();
        let mut out: [Result<ecdh::SharedSecret, Error>; 8] =
            core::array::from_fn(|_| Err(Error::InvalidPoint));
        batch::diffie_hellman_into(&pairs, &mut out).unwrap();
        black_box(&out);
    };
    // 1,024 secret-picked lines ([`leak`]): a batch ECDH takes about 400,000 cycles with
    // IFMA and 1.4 million without, and 16 misses were lost in its noise on a CI machine
    // (|t| 7.07, then 3.68, under the threshold).
    let table = leak_table();
    let leaky = |seed: &u64| {
        run(seed);
        black_box(leak(&table, *seed));
    };
    let control = flagged(
        "control: batch ECDH + secret-indexed loads",
        4,
        0x1A7E_0100,
        &leaky,
        true,
    );
    let lanes = flagged(
        &format!("sm2/batch ECDH of 8, k·P (SM2 lanes: {backend})"),
        6,
        0x1A7E_0110,
        &run,
        false,
    );
    assert!(
        control,
        "the leaky control was not flagged: the check could not fail"
    );
    assert!(!lanes, "the batch ECDH's time depends on the secrets");
}
