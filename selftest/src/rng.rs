//! The module's DRBG: GM/T 0105's SM4 generator on a health-tested entropy source, its
//! output under the continuous test, every request checked against the module state.

use crate::{Error, Module};
use core::fmt;
use rand_core::{TryCryptoRng, TryRng};
use shangmi_drbg::{
    AutoReseed, AutoReseedError, Clock, HealthError, HealthTested, OutputTested, Sm4CtrDrbg,
};

/// The module's random number generator ([`Module::rng`]): a `rand_core` `TryCryptoRng`
/// whose every request first checks that the module is operational, and whose health-test
/// failures put the module in its error state.
pub struct ModuleRng<E, C: Clock> {
    inner: OutputTested<AutoReseed<Sm4CtrDrbg<C>, HealthTested<E>>>,
    module: Module,
}

/// A health test's failure as the module's error; every one but the source's own error
/// enters the error state.
pub(crate) fn health_failure<E>(module: &Module, e: HealthError<E>) -> Error {
    match e {
        HealthError::Source(_) => Error::Rng,
        HealthError::RepetitionCount => module.fail(Error::RepetitionCount),
        HealthError::AdaptiveProportion => module.fail(Error::AdaptiveProportion),
        HealthError::RepeatedOutput => module.fail(Error::RepeatedOutput),
    }
}

impl<E: TryCryptoRng, C: Clock> ModuleRng<E, C> {
    pub(crate) fn new(
        module: Module,
        source: E,
        clock: C,
        personalization: &[u8],
    ) -> Result<Self, Error> {
        let mut source = HealthTested::new(source);
        source.startup().map_err(|e| health_failure(&module, e))?;
        let drbg = AutoReseed::new(source, personalization, clock).map_err(|e| match e {
            AutoReseedError::Source(e) => health_failure(&module, e),
            AutoReseedError::Drbg(_) => Error::Rng,
        })?;
        Ok(ModuleRng {
            inner: OutputTested::new(drbg),
            module,
        })
    }
}

shangmi_drbg::try_rng_via_fill!(impl[E: TryCryptoRng, C: Clock] ModuleRng<E, C>, Error, ModuleRng::fill);

impl<E: TryCryptoRng, C: Clock> ModuleRng<E, C> {
    /// One request: the module must be operational, and a health failure fails it.
    fn fill(&mut self, dst: &mut [u8]) -> Result<(), Error> {
        self.module.check()?;
        if crate::fault::injected("drbg-health") {
            return Err(self.module.fail(Error::RepeatedOutput));
        }
        self.inner
            .try_fill_bytes(dst)
            .map_err(|e| health_failure(&self.module, e))
    }
}

impl<E: TryCryptoRng, C: Clock> TryCryptoRng for ModuleRng<E, C> {}

impl<E, C: Clock> fmt::Debug for ModuleRng<E, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModuleRng").finish_non_exhaustive()
    }
}
