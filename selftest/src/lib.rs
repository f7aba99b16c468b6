#![doc = include_str!("../README.md")]
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
extern crate alloc;

mod error;
mod fault;
mod kat;
mod module;
mod rng;
mod state;
#[cfg(test)]
mod tests;

pub use error::Error;
pub use fault::FAULT_INJECTION;
pub use kat::KAT_COUNT;
pub use module::Module;
pub use rng::ModuleRng;
pub use state::State;

use state::{GLOBAL, StateCell};

/// The outcome of one power-on test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestResult {
    /// The test's name (`sm3`, `sm2-sign`, `zuc-eea3`, …).
    pub name: &'static str,
    /// Where its vector is published.
    pub origin: &'static str,
    /// Whether the computed value equalled the published one.
    pub passed: bool,
}

/// The outcome of [`run`]: every power-on test in the order it ran.
#[derive(Clone, Debug)]
pub struct Report {
    results: [TestResult; KAT_COUNT],
}

impl Report {
    /// Every test's result.
    pub fn results(&self) -> &[TestResult] {
        &self.results
    }

    /// Whether every test passed.
    pub fn passed(&self) -> bool {
        self.results.iter().all(|r| r.passed)
    }

    /// The first failed test, if any.
    pub fn first_failure(&self) -> Option<&TestResult> {
        self.results.iter().find(|r| !r.passed)
    }

    /// The module handle, if every test passed and the module is not in its error state
    /// (a failure elsewhere since the run counts).
    pub fn module(&self) -> Result<Module, Error> {
        module()
    }
}

/// Runs every power-on known-answer test, once each, and records the outcome in the
/// process-wide state: all passed, the module becomes [`State::Operational`] (unless it is
/// already in its error state, which nothing leaves); any failed, it enters
/// [`State::Error`] for good. Takes a few milliseconds (the SM9 pairing dominates); call
/// it once at start-up, and again whenever an on-demand self-test is wanted.
pub fn run() -> Report {
    run_on(&GLOBAL, &mut fault::tamper)
}

/// [`run`] on `state`, each test reading its vectors through the tamper that `tamper` gives
/// for the test's index (a copy in a normal build; the unit tests and the
/// `fault-injection` feature flip bytes).
fn run_on(state: &StateCell, tamper: &mut dyn FnMut(usize) -> kat::Tamper) -> Report {
    let results = core::array::from_fn(|i| {
        let kat = &kat::KATS[i];
        TestResult {
            name: kat.name,
            origin: kat.origin,
            passed: (kat.run)(&mut tamper(i)),
        }
    });
    let report = Report { results };
    if report.passed() {
        state.pass();
    } else {
        state.fail();
    }
    report
}

/// The process-wide module state.
pub fn state() -> State {
    GLOBAL.get()
}

/// The module handle: `Ok` only after [`run`] passed and while nothing has failed since.
/// Fails with [`Error::NotTested`] before the first passing run, [`Error::ErrorState`]
/// after any failure.
pub fn module() -> Result<Module, Error> {
    Module::on(&GLOBAL)
}
