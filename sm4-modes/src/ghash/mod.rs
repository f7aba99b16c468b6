//! GHASH (NIST SP 800-38D §6.4) and POLYVAL (RFC 8452 §3) on one set of engines: portable
//! (`soft`), PCLMULQDQ, VPCLMULQDQ on AVX2 and on AVX-512 (`clmul`), and PMULL on aarch64.
//!
//! Every engine works in the POLYVAL domain, which needs no bit reflection: GHASH(H, X) =
//! ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)), ByteReverse(X))) (RFC 8452 Appendix
//! A). Keys hold H^32 … H^1 so the wide engines multiply many blocks per reduction.

#[cfg(target_arch = "x86_64")]
mod clmul;
#[cfg(target_arch = "aarch64")]
mod pmull;
mod soft;

use shangmi_dispatch::Available;

/// The GHASH/POLYVAL backends (`shangmi_dispatch`'s GHASH family).
pub use shangmi_dispatch::ghash::Backend as GhashBackend;

/// Powers of H a key holds (the most blocks an engine multiplies per reduction).
pub(crate) const POWERS: usize = 32;

/// H^32, H^31, …, H^1 in the POLYVAL domain, as little-endian 128-bit integers.
pub(crate) type Powers = [u128; POWERS];

/// A hash key (H and the powers its engine uses) of GHASH (`G = true`) or POLYVAL, with
/// the proof that its engine runs here.
#[derive(Clone)]
pub struct HashKey<const G: bool> {
    engine: Available<GhashBackend>,
    powers: Powers,
}

/// A GHASH key.
pub(crate) type GhashKey = HashKey<true>;
/// A POLYVAL key.
pub(crate) type PolyvalKey = HashKey<false>;

impl<const G: bool> HashKey<G> {
    /// The key for H = `h` (GHASH: the big-endian block E_K(0); POLYVAL: the 16 bytes of
    /// RFC 8452) on `engine`.
    pub(crate) fn new(h: &[u8; 16], engine: Available<GhashBackend>) -> Self {
        Self::with_powers(h, engine, POWERS)
    }

    /// As [`HashKey::new`] for hashing at most `blocks` blocks per update call: only the
    /// powers up to H^min(blocks, 32) are computed (the rest would be read only by longer
    /// updates).
    pub(crate) fn with_powers(
        h: &[u8; 16],
        engine: Available<GhashBackend>,
        blocks: usize,
    ) -> Self {
        let h = if G {
            // mulX_POLYVAL(ByteReverse(H)), constant-time.
            let h = u128::from_be_bytes(*h);
            (h << 1) ^ ((h >> 127).wrapping_neg() & ((0xc2 << 120) | 1))
        } else {
            u128::from_le_bytes(*h)
        };
        let mut powers = [0u128; POWERS];
        powers[POWERS - 1] = h;
        if engine.get() != GhashBackend::Soft {
            // H^(k+1) … H^2k as H^k · H^1 … H^k for k = 1, 2, 4, …: the products of one
            // round are independent (a chain of log2 rounds, not of one product per power).
            let n = blocks.clamp(1, POWERS);
            let mut k = 1;
            while k < n {
                for j in 1..=k.min(n - k) {
                    powers[POWERS - k - j] = dot(engine, powers[POWERS - k], powers[POWERS - j]);
                }
                k *= 2;
            }
        }
        HashKey { engine, powers }
    }

    /// A running hash with an all-zero state.
    pub(crate) fn start(&self) -> Hasher<'_, G> {
        Hasher { key: self, acc: 0 }
    }

    /// The engine this key runs on.
    pub(crate) fn engine(&self) -> GhashBackend {
        self.engine.get()
    }
}

#[cfg(feature = "zeroize")]
impl<const G: bool> Drop for HashKey<G> {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.powers);
    }
}

/// dot(a, b) on `engine` (key setup).
fn dot(engine: Available<GhashBackend>, a: u128, b: u128) -> u128 {
    match engine.get() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the token proves the engine's probe passed; every x86 engine but `Soft`
        // probes PCLMULQDQ, SSSE3 and SSE4.1.
        GhashBackend::Pclmulqdq | GhashBackend::VpclmulqdqAvx2 | GhashBackend::VpclmulqdqAvx512 => unsafe {
            clmul::dot(a, b)
        },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: the token proves the probe found FEAT_AES with FEAT_PMULL.
        GhashBackend::Pmull => unsafe { pmull::dot(a, b) },
        _ => soft::dot(a, b),
    }
}

/// A running GHASH or POLYVAL computation.
pub struct Hasher<'k, const G: bool> {
    key: &'k HashKey<G>,
    acc: u128,
}

impl<const G: bool> Hasher<'_, G> {
    /// Absorbs whole blocks (`data.len()` a multiple of 16; a partial tail is ignored).
    pub(crate) fn update_blocks(&mut self, data: &[u8]) {
        let p = &self.key.powers;
        self.acc = match self.key.engine.get() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the key holds the token that proves this engine's probe passed.
            GhashBackend::Pclmulqdq => unsafe { clmul::update_pclmulqdq::<G>(p, self.acc, data) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            GhashBackend::VpclmulqdqAvx2 => unsafe {
                clmul::update_vpclmulqdq_avx2::<G>(p, self.acc, data)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            GhashBackend::VpclmulqdqAvx512 => unsafe {
                clmul::update_vpclmulqdq_avx512::<G>(p, self.acc, data)
            },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: as above.
            GhashBackend::Pmull => unsafe { pmull::update::<G>(p, self.acc, data) },
            _ => soft::update::<G>(p[POWERS - 1], self.acc, data),
        };
    }

    /// Absorbs `data`, zero-padding a final partial block (GCM pads AAD and text apart).
    pub(crate) fn update_padded(&mut self, data: &[u8]) {
        let full = data.len() & !15;
        self.update_blocks(&data[..full]);
        if full < data.len() {
            let mut last = [0u8; 16];
            last[..data.len() - full].copy_from_slice(&data[full..]);
            self.update_blocks(&last);
        }
    }

    /// The hash value.
    pub(crate) fn finalize(self) -> [u8; 16] {
        if G {
            self.acc.to_be_bytes()
        } else {
            self.acc.to_le_bytes()
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl<'k> Hasher<'k, true> {
    /// The state for GHASH between SM4's rounds (`shangmi_sm4::CtrHook`), if this key's
    /// engine has it (VPCLMULQDQ on AVX-512): `seal` hashes each step's output (the
    /// previous step's blocks), otherwise each step's input. The caller hashes the last
    /// step's output itself when sealing, and puts the state back with [`Hasher::resume`].
    pub(crate) fn ctr_hook(&self, seal: bool) -> Option<CtrGhash<'k>> {
        let key: &'k GhashKey = self.key;
        if key.engine.get() != GhashBackend::VpclmulqdqAvx512 {
            return None;
        }
        Some(CtrGhash {
            // SAFETY: the key's token proves the VPCLMULQDQ-AVX512 probe passed (AVX-512F).
            fused: unsafe { clmul::Fused::new(&key.powers, self.acc) },
            seal,
            engine: self.key.engine,
        })
    }

    /// Takes the state back from a [`CtrGhash`] that ran.
    pub(crate) fn resume(&mut self, hook: &CtrGhash<'_>) {
        self.acc = hook.fused.acc();
    }
}

/// GHASH run between SM4's rounds (see [`Hasher::ctr_hook`]).
#[cfg(target_arch = "x86_64")]
pub(crate) struct CtrGhash<'k> {
    fused: clmul::Fused<'k>,
    seal: bool,
    engine: Available<GhashBackend>,
}

#[cfg(target_arch = "x86_64")]
impl shangmi_sm4::CtrHook for CtrGhash<'_> {
    #[inline(always)]
    fn step(
        &mut self,
        i: usize,
        prev: &[cipher::Block<shangmi_sm4::Sm4>],
        cur: &[cipher::Block<shangmi_sm4::Sm4>],
        between_rounds: bool,
    ) {
        let data = cipher::Block::<shangmi_sm4::Sm4>::slice_as_flattened(if self.seal {
            prev
        } else {
            cur
        });
        if between_rounds {
            // SAFETY: between the rounds the step is inlined into the cipher's entry that
            // enables the features `clmul` proved (see `shangmi_sm4::CtrHook`).
            unsafe { self.fused.step(i, data) }
        } else {
            // SAFETY: made only for the VPCLMULQDQ-AVX512 engine, whose token `engine`
            // proves its probe passed.
            unsafe { clmul::fused_step(&mut self.fused, i, data) }
        }
    }

    fn clmul(&self) -> Option<Available<GhashBackend>> {
        Some(self.engine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run<const G: bool>(h: &[u8; 16], e: Available<GhashBackend>, parts: &[&[u8]]) -> [u8; 16] {
        let k = HashKey::<G>::new(h, e);
        let mut g = k.start();
        for p in parts {
            g.update_padded(p);
        }
        g.finalize()
    }

    proptest! {
        /// Every engine available here equals the portable one, for GHASH and POLYVAL,
        /// over lengths that cross every engine's step (8, 16 and 32 blocks, the second part
        /// with a running accumulator) and partial blocks;
        /// the portable one equals RustCrypto's `ghash`/`polyval`.
        #[test]
        fn engines_equal_soft(
            h in any::<[u8; 16]>(),
            a in proptest::collection::vec(any::<u8>(), 0..700),
            b in proptest::collection::vec(any::<u8>(), 0..1100),
        ) {
            let soft = Available::portable();
            let g = run::<true>(&h, soft, &[&a, &b]);
            let p = run::<false>(&h, soft, &[&a, &b]);
            // RustCrypto's `ghash` and `polyval` crates, an independent implementation.
            let theirs_g = {
                use ghash::universal_hash::UniversalHash as _;
                let mut t = ghash::GHash::new(&h.into());
                t.update_padded(&a);
                t.update_padded(&b);
                <[u8; 16]>::from(t.finalize())
            };
            let theirs_p = {
                use polyval::universal_hash::UniversalHash as _;
                let mut t = polyval::Polyval::new(&h.into());
                t.update_padded(&a);
                t.update_padded(&b);
                <[u8; 16]>::from(t.finalize())
            };
            prop_assert_eq!(g, theirs_g);
            prop_assert_eq!(p, theirs_p);
            for e in Available::<GhashBackend>::all() {
                prop_assert_eq!(run::<true>(&h, e, &[&a, &b]), g, "GHASH {}", e);
                prop_assert_eq!(run::<false>(&h, e, &[&a, &b]), p, "POLYVAL {}", e);
            }
        }
    }

    /// RFC 8452 Appendix A: POLYVAL(H, X_1, X_2) with the appendix's values, on every
    /// engine here.
    #[test]
    fn rfc8452_appendix_a_polyval() {
        let h = hex_literal::hex!("25629347589242761d31f826ba4b757b");
        let x1 = hex_literal::hex!("4f4f95668c83dfb6401762bb2d01a262");
        let x2 = hex_literal::hex!("d1a24ddd2721d006bbe45f20d3c9f362");
        let want = hex_literal::hex!("f7a3b47b846119fae5b7866cf5e5b77e");
        for e in Available::<GhashBackend>::all() {
            assert_eq!(run::<false>(&h, e, &[&x1, &x2]), want, "{e}");
        }
    }
}
