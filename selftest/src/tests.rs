//! The self-tests tested: each known-answer test fails when any byte of any of its vectors
//! is flipped (through the tamper hook, which exists only in this build), a failure puts
//! the module in its error state and nothing takes it out, the pairwise-consistency test
//! catches a mismatched key, and the DRBG's health tests stop a stuck source.
//!
//! Each test drives a state of its own (a leaked `StateCell`), except
//! `the_process_wide_state_blocks_after_a_failure`, the only one that touches the global.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use crate::kat::{KATS, Tamper};
use crate::state::{GLOBAL, StateCell};
use crate::{Error, Module, State, run_on};
use rand_core::{TryCryptoRng, TryRng, utils};
use shangmi_drbg::Clock;

extern crate std;
use std::boxed::Box;
use std::vec::Vec;

/// A fresh module state for one test.
fn fresh() -> &'static StateCell {
    Box::leak(Box::new(StateCell::new()))
}

/// A state on which the power-on tests passed.
fn operational() -> Module {
    let state = fresh();
    assert!(run_on(state, &mut |_| Tamper::default()).passed());
    Module::on(state).unwrap()
}

/// A tamper flipping byte `byte` of vector `vector`.
fn flip(vector: usize, byte: usize) -> Tamper {
    Tamper {
        target: Some((vector, byte)),
        seen: 0,
    }
}

#[test]
fn every_power_on_test_passes_and_the_module_becomes_operational() {
    let state = fresh();
    assert_eq!(Module::on(state).unwrap_err(), Error::NotTested);
    let report = run_on(state, &mut |_| Tamper::default());
    assert!(report.passed(), "{:?}", report.first_failure());
    assert_eq!(report.results().len(), KATS.len());
    assert_eq!(state.get(), State::Operational);
    Module::on(state).unwrap().check().unwrap();
}

#[test]
fn every_vector_byte_flipped_fails_its_test() {
    for kat in KATS {
        let mut count = Tamper::default();
        assert!((kat.run)(&mut count), "{} passes untouched", kat.name);
        assert!(
            count.seen >= 2,
            "{} reads its vectors through the hook",
            kat.name
        );
        for vector in 0..count.seen {
            // The first and the last byte of each vector (the last: usize::MAX clamps).
            for byte in [0, usize::MAX] {
                assert!(
                    !(kat.run)(&mut flip(vector, byte)),
                    "{}: vector {vector} byte {byte} flipped, still passes",
                    kat.name
                );
            }
        }
    }
}

#[test]
fn one_failed_test_puts_the_module_in_its_error_state_for_good() {
    for (i, kat) in KATS.iter().enumerate() {
        let state = fresh();
        let report = run_on(state, &mut |j| {
            if j == i {
                flip(0, 0)
            } else {
                Tamper::default()
            }
        });
        assert!(!report.passed());
        assert_eq!(report.first_failure().unwrap().name, kat.name);
        assert_eq!(report.results().iter().filter(|r| !r.passed).count(), 1);
        assert_eq!(state.get(), State::Error);
        assert_eq!(Module::on(state).unwrap_err(), Error::ErrorState);
        // A clean run afterwards passes every test but the module stays in its error state.
        assert!(run_on(state, &mut |_| Tamper::default()).passed());
        assert_eq!(state.get(), State::Error, "{}", kat.name);
        assert_eq!(Module::on(state).unwrap_err(), Error::ErrorState);
    }
}

#[test]
fn a_handle_taken_before_a_failure_refuses_after_it() {
    let module = operational();
    let mut rng = module.rng(Counter(0), Frozen, b"").unwrap();
    module.generate_sm2_key(&mut rng).unwrap();
    run_on(module.state_for_tests(), &mut |_| flip(0, 0));
    assert_eq!(module.check(), Err(Error::ErrorState));
    assert_eq!(module.generate_sm2_key(&mut rng), Err(Error::ErrorState));
    assert_eq!(rng.try_next_u32(), Err(Error::ErrorState));
    assert_eq!(
        module.rng(Counter(0), Frozen, b"").err(),
        Some(Error::ErrorState)
    );
}

#[test]
fn the_pairwise_test_catches_a_mismatched_key_and_stops_the_module() {
    let module = operational();
    let mut rng = module.rng(Counter(7), Frozen, b"").unwrap();
    let a = module.generate_sm2_key(&mut rng).unwrap();
    let b = module.generate_sm2_key(&mut rng).unwrap();
    assert_ne!(a.to_bytes(), b.to_bytes());
    module.admit_pair(&a, &a.public_key()).unwrap();
    // The fault injected: the new secret paired with another key's public key.
    assert_eq!(
        module.admit_pair(&a, &b.public_key()),
        Err(Error::PairwiseConsistency)
    );
    assert_eq!(module.check(), Err(Error::ErrorState));
    assert_eq!(module.generate_sm2_key(&mut rng), Err(Error::ErrorState));
}

/// A clock that stands still.
#[derive(Clone, Copy)]
struct Frozen;

impl Clock for Frozen {
    fn now_seconds(&self) -> u64 {
        0
    }
}

/// A healthy stand-in for an entropy source: SM3 of a counter.
struct Counter(u64);

/// The same 32-bit word forever.
struct Stuck(u32);

impl TryRng for Counter {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        utils::next_word_via_fill(self)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        utils::next_word_via_fill(self)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        use digest::Digest;
        for chunk in dst.chunks_mut(32) {
            self.0 += 1;
            let block = shangmi_sm3::Sm3::digest(self.0.to_be_bytes());
            chunk.copy_from_slice(&block[..chunk.len()]);
        }
        Ok(())
    }
}

impl TryCryptoRng for Counter {}

impl TryRng for Stuck {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        utils::next_u64_via_u32(self)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        utils::fill_bytes_via_next_word(dst, || self.try_next_u32())
    }
}

impl TryCryptoRng for Stuck {}

#[test]
fn a_stuck_entropy_source_trips_the_health_tests_and_stops_the_module() {
    // 0x00000000: the repetition count test; 0x12345678: no byte repeats in a row, the
    // adaptive proportion test.
    for (word, error) in [
        (0, Error::RepetitionCount),
        (0x1234_5678, Error::AdaptiveProportion),
    ] {
        let module = operational();
        assert_eq!(module.rng(Stuck(word), Frozen, b"").err(), Some(error));
        assert_eq!(module.check(), Err(Error::ErrorState));
    }
    // A healthy source: the generator serves, keys pass their pairwise test.
    let module = operational();
    let mut rng = module.rng(Counter(0), Frozen, b"").unwrap();
    let mut out = Vec::from([0u8; 4096]);
    rng.try_fill_bytes(&mut out).unwrap();
    module.generate_sm2_key(&mut rng).unwrap();
    module.check().unwrap();
}

#[test]
fn health_failures_map_to_typed_errors_and_only_the_source_error_spares_the_module() {
    use crate::rng::health_failure;
    use shangmi_drbg::HealthError;
    let module = operational();
    assert_eq!(health_failure(&module, HealthError::Source(())), Error::Rng);
    module.check().unwrap();
    for (e, want) in [
        (HealthError::RepetitionCount, Error::RepetitionCount),
        (HealthError::AdaptiveProportion, Error::AdaptiveProportion),
        (HealthError::RepeatedOutput, Error::RepeatedOutput),
    ] {
        let module = operational();
        assert_eq!(health_failure::<()>(&module, e), want);
        assert_eq!(module.check(), Err(Error::ErrorState));
    }
}

/// The only test on the process-wide state: a failed power-on test blocks `module()` and
/// every handle, and a later clean `run()` does not lift it.
#[test]
fn the_process_wide_state_blocks_after_a_failure() {
    assert_eq!(crate::state(), State::Untested);
    assert_eq!(crate::module().unwrap_err(), Error::NotTested);
    let report = crate::run();
    assert!(report.passed());
    let module = report.module().unwrap();
    let report = run_on(&GLOBAL, &mut |i| {
        if i == 0 {
            flip(1, 3)
        } else {
            Tamper::default()
        }
    });
    assert_eq!(report.first_failure().unwrap().name, "sm3");
    assert_eq!(crate::state(), State::Error);
    assert_eq!(module.check(), Err(Error::ErrorState));
    assert_eq!(crate::module().unwrap_err(), Error::ErrorState);
    assert!(crate::run().passed());
    assert_eq!(crate::run().module().unwrap_err(), Error::ErrorState);
    assert_eq!(crate::state(), State::Error);
}
