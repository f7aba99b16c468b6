//! GHASH (NIST SP 800-38D §6.4) with a VPCLMULQDQ/AVX-512 engine that folds 16 blocks per
//! step, and the RustCrypto `ghash` crate (constant-time soft, CLMUL or PMULL) elsewhere.
//!
//! The x86 engine works in the POLYVAL domain (RFC 8452 Appendix A: GHASH(H, X) =
//! ByteReverse(POLYVAL(mulX(ByteReverse(H)), ByteReverse(X)))), which needs no bit
//! reflection, and uses aggregated reduction (Gueron & Kounavis, "Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode", 2010).

#[cfg(target_arch = "x86_64")]
mod avx512;

use ghash::universal_hash::UniversalHash as _;

#[cfg(target_arch = "x86_64")]
cpufeatures::new!(
    vpclmul_avx512,
    "avx512f",
    "avx512bw",
    "avx512vl",
    "vpclmulqdq",
    "pclmulqdq",
    "sse4.1"
);

/// Which GHASH engine a key uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GhashEngine {
    /// The `ghash` crate (soft, CLMUL or PMULL, its own choice).
    Crate,
    /// Our VPCLMULQDQ engine on 512-bit registers.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl GhashEngine {
    /// The best engine this CPU runs.
    pub(crate) fn best() -> Self {
        #[cfg(target_arch = "x86_64")]
        if vpclmul_avx512::get() {
            return GhashEngine::Avx512;
        }
        GhashEngine::Crate
    }

    /// Every engine this CPU runs (for tests).
    #[cfg(test)]
    pub(crate) fn available() -> impl Iterator<Item = Self> {
        #[cfg(target_arch = "x86_64")]
        let wide = vpclmul_avx512::get().then_some(GhashEngine::Avx512);
        #[cfg(not(target_arch = "x86_64"))]
        let wide = None;
        [Some(GhashEngine::Crate), wide].into_iter().flatten()
    }
}

/// A GHASH key H with whatever the engine precomputes from it.
#[derive(Clone)]
pub(crate) enum GhashKey {
    Crate(ghash::GHash),
    #[cfg(target_arch = "x86_64")]
    Avx512(avx512::Powers),
}

impl GhashKey {
    /// The key for H = `h` on `engine`.
    pub(crate) fn new(h: &[u8; 16], engine: GhashEngine) -> Self {
        match engine {
            GhashEngine::Crate => GhashKey::Crate(ghash::GHash::new(&(*h).into())),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `GhashEngine::Avx512` comes only from `best`/`available`, after the
            // probe found VPCLMULQDQ, PCLMULQDQ and SSE4.1 among the rest.
            GhashEngine::Avx512 => GhashKey::Avx512(unsafe { avx512::Powers::new(h) }),
        }
    }

    /// A running hash with an all-zero state.
    pub(crate) fn start(&self) -> Ghash<'_> {
        match self {
            GhashKey::Crate(g) => Ghash::Crate(g.clone(), core::marker::PhantomData),
            #[cfg(target_arch = "x86_64")]
            GhashKey::Avx512(p) => Ghash::Avx512(p, 0),
        }
    }
}

/// A running GHASH computation.
pub(crate) enum Ghash<'k> {
    Crate(ghash::GHash, core::marker::PhantomData<&'k ()>),
    /// Powers and the accumulator in the POLYVAL domain.
    #[cfg(target_arch = "x86_64")]
    Avx512(&'k avx512::Powers, u128),
}

impl Ghash<'_> {
    /// Absorbs `data`, zero-padding a final partial block (GCM pads AAD and text apart).
    pub(crate) fn update_padded(&mut self, data: &[u8]) {
        match self {
            Ghash::Crate(g, _) => g.update_padded(data),
            #[cfg(target_arch = "x86_64")]
            Ghash::Avx512(p, acc) => {
                let full = data.len() & !15;
                if full > 0 {
                    // SAFETY: a `Powers` exists only after `vpclmul_avx512::get()` said the
                    // CPU has AVX-512F/BW/VL, VPCLMULQDQ, PCLMULQDQ and SSE4.1.
                    *acc = unsafe { avx512::update(p, *acc, &data[..full]) };
                }
                if full < data.len() {
                    let mut last = [0u8; 16];
                    last[..data.len() - full].copy_from_slice(&data[full..]);
                    // SAFETY: as above.
                    *acc = unsafe { avx512::update(p, *acc, &last) };
                }
            }
        }
    }

    /// The GHASH value.
    pub(crate) fn finalize(self) -> [u8; 16] {
        match self {
            Ghash::Crate(g, _) => g.finalize().into(),
            #[cfg(target_arch = "x86_64")]
            Ghash::Avx512(_, acc) => acc.to_be_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn engines_agree(h in any::<[u8; 16]>(), a in proptest::collection::vec(any::<u8>(), 0..700), b in proptest::collection::vec(any::<u8>(), 0..300)) {
            let reference = {
                let k = GhashKey::new(&h, GhashEngine::Crate);
                let mut g = k.start();
                g.update_padded(&a);
                g.update_padded(&b);
                g.finalize()
            };
            for e in GhashEngine::available() {
                let k = GhashKey::new(&h, e);
                let mut g = k.start();
                g.update_padded(&a);
                g.update_padded(&b);
                prop_assert_eq!(g.finalize(), reference, "{:?}", e);
            }
        }
    }
}
