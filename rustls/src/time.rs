//! Clocks: rustls' own [`TimeProvider`] trait, shared with `shangmi-tlcp` (its
//! `SystemTime` is rustls' `DefaultTimeProvider`, its `FixedTime` this one), so one clock
//! serves both protocols.

use rustls::pki_types::UnixTime;
use rustls::time_provider::TimeProvider;

/// A clock stopped at one instant: for tests and for replaying recorded handshakes, whose
/// certificates and hello randoms must see the time they were recorded at.
#[derive(Debug, Clone, Copy)]
pub struct FixedTime(pub UnixTime);

impl FixedTime {
    /// The clock stopped at `secs` seconds after the Unix epoch.
    pub fn from_secs(secs: u64) -> Self {
        FixedTime(UnixTime::since_unix_epoch(core::time::Duration::from_secs(
            secs,
        )))
    }
}

impl TimeProvider for FixedTime {
    fn current_time(&self) -> Option<UnixTime> {
        Some(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_where_it_was_set() {
        let t = FixedTime::from_secs(1_795_478_400);
        assert_eq!(t.current_time().map(|t| t.as_secs()), Some(1_795_478_400));
        assert_eq!(t.current_time(), t.current_time());
    }
}
