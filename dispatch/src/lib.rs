#![doc = include_str!("../README.md")]
#![no_std]

use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering};

/// A family of interchangeable engines of one algorithm.
pub trait Engine: Copy + Eq + fmt::Debug + 'static {
    /// The algorithm's name, for error messages (`"SM4"`).
    const ALGORITHM: &'static str;
    /// Every engine, best first.
    const ALL: &'static [Self];
    /// The portable engine: runs on every CPU.
    const PORTABLE: Self;
    /// The engine that `--cfg shangmi_backend` forces in this build, if any.
    const FORCED: Option<Self>;
    /// The engine's name, as `--cfg shangmi_backend` and the speed command spell it.
    fn name(self) -> &'static str;
    /// Whether the CPU (or, where there is no run-time probe, the compilation target) has
    /// what this engine needs; probed once per process and cached by the implementation.
    fn cpu_has(self) -> bool;
}

/// Whether `engine` can run here: the CPU has it and the build does not force another.
pub fn is_available<E: Engine>(engine: E) -> bool {
    match E::FORCED {
        Some(forced) if forced != engine => false,
        _ => engine == E::PORTABLE || engine.cpu_has(),
    }
}

/// The best engine available here.
pub fn best<E: Engine>() -> E {
    available().next().unwrap_or(E::PORTABLE)
}

/// [`best`], worked out once per process: for the crates that pick an engine each time an
/// object is made (an SM3 hasher, of which an HMAC makes several), where asking every engine
/// in turn cost more than hashing a short message's padding. A relaxed atomic byte holds the
/// engine's position in [`Engine::ALL`]; threads that race at the start both compute the
/// same answer.
pub struct BestCache(AtomicU8);

impl BestCache {
    /// Nothing worked out yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        BestCache(AtomicU8::new(u8::MAX))
    }

    /// The best engine available here.
    #[inline]
    pub fn get<E: Engine>(&self) -> E {
        match E::ALL.get(usize::from(self.0.load(Ordering::Relaxed))) {
            Some(&e) => e,
            None => {
                let e = best::<E>();
                if let Some(i) = E::ALL.iter().position(|&x| x == e) {
                    self.0.store(i as u8, Ordering::Relaxed);
                }
                e
            }
        }
    }
}

/// The engines available here, best first.
pub fn available<E: Engine>() -> impl Iterator<Item = E> {
    E::ALL.iter().copied().filter(|&e| is_available(e))
}

/// The engine called `name`.
pub fn parse<E: Engine>(name: &str) -> Result<E, BackendError<E>> {
    E::ALL
        .iter()
        .copied()
        .find(|e| e.name() == name)
        .ok_or(BackendError::UnknownName)
}

/// The engine named `engine` if it can run here.
pub fn require<E: Engine>(engine: E) -> Result<E, BackendError<E>> {
    if is_available(engine) {
        Ok(engine)
    } else {
        Err(BackendError::Unavailable(engine))
    }
}

/// Why an engine cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendError<E> {
    /// The engine exists but this CPU (or this build's `shangmi_backend` cfg) lacks it.
    Unavailable(E),
    /// No engine has this name.
    UnknownName,
}

impl<E: Engine> fmt::Display for BackendError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unavailable(e) => write!(
                f,
                "{} engine `{}` is not available on this CPU or build",
                E::ALGORITHM,
                e.name()
            ),
            Self::UnknownName => write!(f, "unknown {} engine name", E::ALGORITHM),
        }
    }
}

impl<E: Engine> core::error::Error for BackendError<E> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Toy {
        Wide,
        Narrow,
        Portable,
    }

    impl Engine for Toy {
        const ALGORITHM: &'static str = "toy";
        const ALL: &'static [Self] = &[Toy::Wide, Toy::Narrow, Toy::Portable];
        const PORTABLE: Self = Toy::Portable;
        const FORCED: Option<Self> = None;
        fn name(self) -> &'static str {
            match self {
                Toy::Wide => "wide",
                Toy::Narrow => "narrow",
                Toy::Portable => "portable",
            }
        }
        fn cpu_has(self) -> bool {
            self == Toy::Narrow
        }
    }

    #[test]
    fn best_is_first_available_and_portable_always_runs() {
        assert_eq!(best::<Toy>(), Toy::Narrow);
        let mut it = available::<Toy>();
        assert_eq!(
            (it.next(), it.next(), it.next()),
            (Some(Toy::Narrow), Some(Toy::Portable), None)
        );
        assert_eq!(
            require(Toy::Wide),
            Err(BackendError::Unavailable(Toy::Wide))
        );
        assert_eq!(require(Toy::Portable), Ok(Toy::Portable));
    }

    #[test]
    fn best_cache_answers_best_first_time_and_after() {
        let cache = BestCache::new();
        assert_eq!(cache.0.load(Ordering::Relaxed), u8::MAX);
        assert_eq!(cache.get::<Toy>(), Toy::Narrow);
        assert_eq!(
            cache.0.load(Ordering::Relaxed),
            1,
            "position of Narrow in ALL"
        );
        assert_eq!(cache.get::<Toy>(), Toy::Narrow);
    }

    #[test]
    fn names_parse_and_errors_say_what() {
        assert_eq!(parse::<Toy>("wide"), Ok(Toy::Wide));
        assert_eq!(parse::<Toy>("Wide"), Err(BackendError::UnknownName));
        extern crate std;
        use std::string::ToString;
        assert_eq!(
            BackendError::Unavailable(Toy::Wide).to_string(),
            "toy engine `wide` is not available on this CPU or build"
        );
        assert_eq!(
            BackendError::<Toy>::UnknownName.to_string(),
            "unknown toy engine name"
        );
    }
}
