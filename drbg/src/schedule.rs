//! The state every DRBG shares: the reseed counter, the time of the last reseed and the
//! clock, with the profile's checks on input lengths, request sizes and reseed rules.

use crate::{Clock, Error, MAX_INPUT_LEN, Profile};
use core::marker::PhantomData;

/// The reseed counter and clock of one DRBG instance under profile `P`.
pub(crate) struct Schedule<P, C> {
    reseed_counter: u64,
    last_reseed: u64,
    clock: C,
    profile: PhantomData<P>,
}

impl<P: Profile, C: Clock> Schedule<P, C> {
    /// A schedule for a freshly instantiated DRBG (counter 1, reseeded now); refuses a
    /// [`NoClock`](crate::NoClock) when the profile limits the time between reseeds.
    pub(crate) fn new(clock: C) -> Result<Self, Error> {
        if P::RESEED_TIME_LIMIT.is_some() && !C::MEASURES_TIME {
            return Err(Error::ClockRequired);
        }
        let last_reseed = clock.now_seconds();
        Ok(Schedule {
            reseed_counter: 1,
            last_reseed,
            clock,
            profile: PhantomData,
        })
    }

    /// Records a reseed.
    pub(crate) fn reseeded(&mut self) {
        self.reseed_counter = 1;
        self.last_reseed = self.clock.now_seconds();
    }

    /// The number of generate calls since the last reseed, plus one.
    pub(crate) fn reseed_counter(&self) -> u64 {
        self.reseed_counter
    }

    /// Records a generate call.
    pub(crate) fn generated(&mut self) {
        self.reseed_counter += 1;
    }

    /// Whether the next generate call must wait for a reseed: the counter passed the
    /// interval, or the time since the last reseed exceeds the limit (or the clock went
    /// backwards).
    pub(crate) fn reseed_required(&self) -> bool {
        if self.reseed_counter > P::RESEED_INTERVAL {
            return true;
        }
        match P::RESEED_TIME_LIMIT {
            Some(limit) => {
                let now = self.clock.now_seconds();
                now < self.last_reseed || now - self.last_reseed > limit
            }
            None => false,
        }
    }

    /// The checks of a generate call before it touches the state.
    pub(crate) fn check_generate(
        &self,
        out_len: usize,
        max_request_len: usize,
        additional: &[u8],
    ) -> Result<(), Error> {
        if out_len > max_request_len {
            return Err(Error::RequestTooLarge);
        }
        check_input(additional)?;
        if self.reseed_required() {
            return Err(Error::ReseedRequired);
        }
        Ok(())
    }
}

/// The checks of an instantiate call (entropy, nonce and personalization lengths).
pub(crate) fn check_instantiate(
    entropy: &[u8],
    nonce: &[u8],
    personalization: &[u8],
    min_entropy_len: usize,
) -> Result<(), Error> {
    check_entropy(entropy, min_entropy_len)?;
    check_input(nonce)?;
    if nonce.len() < min_entropy_len / 2 || nonce.is_empty() {
        return Err(Error::NonceTooShort);
    }
    check_input(personalization)
}

/// The checks of a reseed call (entropy and additional input lengths).
pub(crate) fn check_reseed(
    entropy: &[u8],
    additional: &[u8],
    min_entropy_len: usize,
) -> Result<(), Error> {
    check_entropy(entropy, min_entropy_len)?;
    check_input(additional)
}

fn check_entropy(entropy: &[u8], min_entropy_len: usize) -> Result<(), Error> {
    check_input(entropy)?;
    if entropy.len() < min_entropy_len || entropy.is_empty() {
        return Err(Error::EntropyTooShort);
    }
    Ok(())
}

fn check_input(input: &[u8]) -> Result<(), Error> {
    if input.len() > MAX_INPUT_LEN {
        return Err(Error::InputTooLong);
    }
    Ok(())
}
