//! The module's state: untested, operational (the power-on tests passed) or the error
//! state, in one atomic byte. The error state is terminal: nothing leaves it, not even a
//! new passing run, for the life of the process (GM/T 0028 and ISO/IEC 19790: a module in
//! its error state performs no cryptographic service; only a restart, which repeats the
//! power-on tests, clears it).

use core::sync::atomic::{AtomicU8, Ordering};

const UNTESTED: u8 = 0;
const OPERATIONAL: u8 = 1;
const ERROR: u8 = 2;

/// Where the module stands ([`state`](crate::state())).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum State {
    /// [`run`](crate::run) has not passed yet: no service.
    Untested,
    /// The power-on tests passed and nothing has failed since.
    Operational,
    /// A self-test failed (power-on, pairwise consistency, or a DRBG health test): no
    /// service until the process restarts.
    Error,
}

/// One module's state. The process has one ([`GLOBAL`]); the unit tests make their own so
/// that driving one into the error state does not stop the others.
#[derive(Debug)]
pub(crate) struct StateCell(AtomicU8);

/// The process-wide module state.
pub(crate) static GLOBAL: StateCell = StateCell::new();

impl StateCell {
    pub(crate) const fn new() -> Self {
        StateCell(AtomicU8::new(UNTESTED))
    }

    pub(crate) fn get(&self) -> State {
        match self.0.load(Ordering::Acquire) {
            UNTESTED => State::Untested,
            OPERATIONAL => State::Operational,
            _ => State::Error,
        }
    }

    /// Untested becomes operational; the error state stays.
    pub(crate) fn pass(&self) {
        let _ = self
            .0
            .compare_exchange(UNTESTED, OPERATIONAL, Ordering::AcqRel, Ordering::Acquire);
    }

    /// Enters the error state, for good.
    pub(crate) fn fail(&self) {
        self.0.store(ERROR, Ordering::Release);
    }
}
