//! The one definition of a backend family: from a list of backends (best first, the
//! portable one last, its probe `true`) with their names and probes, `family!` (below)
//! writes the family's module: its `Backend` enum, `ALL` in priority order, the portable
//! and the forced backend, the names both ways (`Display`, `FromStr`), the cached best one,
//! and its [`crate::Family`] implementation. `ALL` and the enum come from the same list, so
//! neither can miss a backend.

/// Writes a backend family's module; see the module documentation and `tables.rs`.
macro_rules! family {
    (
        $(#[$module_doc:meta])*
        pub mod $module:ident ($algorithm:literal, portable: $Portable:ident) {
            $(
                $(#[$doc:meta])*
                $Variant:ident = $name:tt if $probe:expr;
            )*
        }
    ) => {
        $(#[$module_doc])*
        pub mod $module {
            use core::{fmt, str::FromStr};

            #[doc = concat!("A ", $algorithm, " backend.")]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
            #[non_exhaustive]
            pub enum Backend {
                $($(#[$doc])* $Variant,)*
            }

            #[doc = concat!("Why a ", $algorithm, " backend cannot be used.")]
            pub type BackendError = $crate::BackendError<Backend>;

            impl Backend {
                /// Every backend, in priority order (best first, the portable one last).
                pub const ALL: [Backend; [$($name),*].len()] = [$(Backend::$Variant),*];

                /// The backend's name, as `--backend`, `--cfg shangmi_backend` and the
                /// speed header spell it.
                pub const fn name(self) -> &'static str {
                    match self {
                        $(Backend::$Variant => $name,)*
                    }
                }

                /// Whether this backend can run here (the CPU has its features and the
                /// build's `shangmi_backend` cfg does not force another).
                pub fn is_available(self) -> bool {
                    $crate::Available::check(self).is_some()
                }

                /// The best backend available here; the CPU is probed once per process.
                pub fn best() -> Backend {
                    $crate::Available::<Backend>::best().get()
                }

                /// The backends available here, best first.
                pub fn available() -> impl Iterator<Item = Backend> {
                    $crate::Available::<Backend>::all().map($crate::Available::get)
                }
            }

            impl fmt::Display for Backend {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str(self.name())
                }
            }

            impl FromStr for Backend {
                type Err = BackendError;

                /// Parses a backend name as [`Backend::name`] spells it.
                fn from_str(s: &str) -> Result<Self, Self::Err> {
                    $crate::parse(s)
                }
            }

            impl $crate::Family for Backend {
                const ALGORITHM: &'static str = $algorithm;
                const ALL: &'static [Self] = &Backend::ALL;
                const PORTABLE: Self = Backend::$Portable;
                const FORCED: Option<Self> = if cfg!(shangmi_backend = "soft") {
                    Some(Backend::$Portable)
                }
                $(else if cfg!(shangmi_backend = $name) {
                    Some(Backend::$Variant)
                })*
                else {
                    None
                };
                fn name(self) -> &'static str {
                    Backend::name(self)
                }
            }

            impl $crate::private::Sealed for Backend {
                #[inline]
                fn cpu_has(self) -> bool {
                    match self {
                        $(Backend::$Variant => $probe,)*
                    }
                }
                #[inline(always)]
                fn at(position: u8) -> Option<Backend> {
                    let mut i = 0u8;
                    $(
                        if position == i {
                            return Some(Backend::$Variant);
                        }
                        i += 1;
                    )*
                    let _ = i;
                    None
                }
                #[inline(always)]
                fn best_cache() -> &'static $crate::BestCache {
                    static BEST: $crate::BestCache = $crate::BestCache::new();
                    &BEST
                }
            }
        }
    };
}
