//! Time for the reseed rule of GM/T 0105-2021 (the time since the last reseed is limited):
//! the DRBG reads a caller-supplied [`Clock`], so `no_std` targets bring their own timer
//! and `std` targets can use [`StdClock`].

/// A monotonic source of seconds, read at every reseed and every generate call of a profile
/// that limits the time between reseeds.
///
/// The epoch is arbitrary, but the count must not go backwards: a DRBG that sees the clock
/// earlier than its last reseed asks for a reseed.
///
/// ```
/// use core::cell::Cell;
/// use shangmi_drbg::Clock;
///
/// /// A firmware timer: seconds since boot, advanced by an interrupt.
/// struct Uptime<'a>(&'a Cell<u64>);
///
/// impl Clock for Uptime<'_> {
///     fn now_seconds(&self) -> u64 {
///         self.0.get()
///     }
/// }
/// ```
pub trait Clock {
    /// Whether this clock measures time. Only [`NoClock`] says no; a profile with a time
    /// limit refuses it ([`Error::ClockRequired`](crate::Error::ClockRequired)).
    const MEASURES_TIME: bool = true;

    /// Seconds since the clock's epoch.
    fn now_seconds(&self) -> u64;
}

/// No clock, for profiles without a time limit (SP 800-90A). A GM/T 0105-2021 profile
/// refuses it with [`Error::ClockRequired`](crate::Error::ClockRequired).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoClock;

impl Clock for NoClock {
    const MEASURES_TIME: bool = false;

    fn now_seconds(&self) -> u64 {
        0
    }
}

/// Seconds on the monotonic [`std::time::Instant`] since this clock was made.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug)]
pub struct StdClock {
    start: std::time::Instant,
}

#[cfg(feature = "std")]
impl StdClock {
    /// A clock that counts from now.
    pub fn new() -> Self {
        StdClock {
            start: std::time::Instant::now(),
        }
    }
}

#[cfg(feature = "std")]
impl Default for StdClock {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(feature = "std")]
impl Clock for StdClock {
    fn now_seconds(&self) -> u64 {
        self.start.elapsed().as_secs()
    }
}
