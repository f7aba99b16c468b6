//! The S-box engines and their run-time choice. Both engines compute the same function
//! (`tests/engines.rs` checks every available one against the portable one); the choice
//! only changes speed. `--cfg shangmi_backend="soft"` forces the portable engine.

use core::fmt;

/// A ZUC S-box engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Portable: the S-boxes as boolean circuits on bit planes (any target).
    Soft,
    /// x86-64 AES-NI + SSSE3 + SSE4.1 + PCLMULQDQ: S1 through `aesenclast` between two
    /// nibble-table maps, S0 as `pshufb` nibble lookups (no memory operand depends on
    /// data), the MACs' window sums as carry-less products.
    AesniSse,
}

#[cfg(all(target_arch = "x86_64", not(shangmi_backend = "soft")))]
cpufeatures::new!(aesni_sse, "aes", "ssse3", "sse4.1", "pclmulqdq");

impl Backend {
    /// Every engine, fastest first.
    pub const ALL: [Backend; 2] = [Backend::AesniSse, Backend::Soft];

    /// True if this engine can run on this CPU (and is not disabled by
    /// `--cfg shangmi_backend="soft"`).
    pub fn is_available(self) -> bool {
        match self {
            Backend::Soft => true,
            Backend::AesniSse => {
                #[cfg(all(target_arch = "x86_64", not(shangmi_backend = "soft")))]
                {
                    aesni_sse::get()
                }
                #[cfg(not(all(target_arch = "x86_64", not(shangmi_backend = "soft"))))]
                {
                    false
                }
            }
        }
    }

    /// The engines that can run here, fastest first.
    pub fn available() -> impl Iterator<Item = Backend> {
        Self::ALL.into_iter().filter(|b| b.is_available())
    }

    /// The fastest engine that can run here.
    pub fn detect() -> Backend {
        Self::available().next().unwrap_or(Backend::Soft)
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Soft => "soft",
            Backend::AesniSse => "aesni-sse",
        })
    }
}

/// The engine asked for cannot run on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unavailable(pub Backend);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ZUC engine {} is not available on this CPU", self.0)
    }
}

impl core::error::Error for Unavailable {}
