//! The module handle and the operations it guards.
//!
//! What "guarded" means here: a library cannot stop its caller from calling
//! `shangmi_sm4::Sm4` directly, and a check of the module state inside every block or
//! field operation would slow the hot paths of every user, module or not. So the guard is
//! the [`Module`] value: it exists only after the power-on tests passed, and each of its
//! operations (SM2 key generation with the pairwise-consistency test, the health-tested
//! DRBG, [`Module::check`]) loads the process-wide state first — one atomic load, nothing
//! next to a key generation or a DRBG request — and refuses once any self-test has failed.
//! An application in module mode takes its keys and random numbers from the [`Module`] and
//! calls [`Module::check`] before each service it offers (a connection, a request, a file),
//! as `shangmi`'s module mode does.

use crate::Error;
use crate::rng::ModuleRng;
use crate::state::{State, StateCell};
use rand_core::TryCryptoRng;
use shangmi_drbg::Clock;
use shangmi_sm2::dsa::SigningKey;
use shangmi_sm2::elliptic_curve::Generate;
use shangmi_sm2::{PublicKey, SecretKey};

/// Proof that the power-on self-tests passed; the way to the guarded operations. Get one
/// from [`module`](crate::module()) or [`Report::module`](crate::Report::module). Copying it
/// is free; every operation re-checks the process-wide state, so a handle taken before a
/// failure refuses after it.
#[derive(Clone, Copy, Debug)]
pub struct Module {
    state: &'static StateCell,
}

impl Module {
    /// The handle on `state`, if it is operational.
    pub(crate) fn on(state: &'static StateCell) -> Result<Self, Error> {
        match state.get() {
            State::Operational => Ok(Module { state }),
            State::Untested => Err(Error::NotTested),
            State::Error => Err(Error::ErrorState),
        }
    }

    /// `Ok` while the module is operational; [`Error::ErrorState`] once any self-test has
    /// failed. Call it before each service.
    pub fn check(&self) -> Result<(), Error> {
        Self::on(self.state).map(|_| ())
    }

    /// The state this handle reads (the unit tests drive it into the error state).
    #[cfg(test)]
    pub(crate) fn state_for_tests(&self) -> &'static StateCell {
        self.state
    }

    /// Enters the error state and returns `error`.
    pub(crate) fn fail(&self, error: Error) -> Error {
        self.state.fail();
        error
    }

    /// A fresh SM2 key from the module's generator (d uniform in [1, n-2]: it can sign and
    /// decrypt) that passed the pairwise-consistency test: a signature with it verifies
    /// under its public key and, with the `alloc` feature, a message encrypted to its
    /// public key decrypts with it (`shangmi_sm2::keys::check_key_pair`). A failed test
    /// puts the module in its error state ([`Error::PairwiseConsistency`]); so does a
    /// health-test failure of the generator.
    pub fn generate_sm2_key<E: TryCryptoRng, C: Clock>(
        &self,
        rng: &mut ModuleRng<E, C>,
    ) -> Result<SecretKey, Error> {
        self.check()?;
        let secret = SigningKey::try_generate_from_rng(rng)?.secret_key();
        self.admit_pair(&secret, &secret.public_key())?;
        Ok(secret)
    }

    /// The pairwise-consistency test of a newly made key pair; a failure is a module fault.
    pub(crate) fn admit_pair(&self, secret: &SecretKey, public: &PublicKey) -> Result<(), Error> {
        if crate::fault::injected("sm2-keygen-pairwise") {
            return Err(self.fail(Error::PairwiseConsistency));
        }
        shangmi_sm2::keys::check_key_pair(secret, public)
            .map_err(|_| self.fail(Error::PairwiseConsistency))
    }

    /// The module's random number generator: GM/T 0105's SM4 generator (level 1) seeded and
    /// reseeded from `source` through SP 800-90B's health tests (start-up test now, then
    /// repetition count and adaptive proportion on every byte), its output under the
    /// continuous test. A health-test failure puts the module in its error state. `clock`
    /// measures the time between reseeds.
    pub fn rng<E: TryCryptoRng, C: Clock>(
        &self,
        source: E,
        clock: C,
        personalization: &[u8],
    ) -> Result<ModuleRng<E, C>, Error> {
        self.check()?;
        ModuleRng::new(*self, source, clock, personalization)
    }

    /// [`Module::rng`] on the operating system's generator and a monotonic clock.
    #[cfg(feature = "std")]
    pub fn system_rng(
        &self,
    ) -> Result<ModuleRng<getrandom::SysRng, shangmi_drbg::StdClock>, Error> {
        self.rng(
            getrandom::SysRng,
            shangmi_drbg::StdClock::new(),
            b"shangmi-selftest module rng",
        )
    }
}
