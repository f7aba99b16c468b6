//! The DRBGs as `rand_core` 0.10 RNGs: with RustCrypto-style APIs (an SM2 key and
//! signature), through `AutoReseed` with a fallible and an infallible entropy source, and
//! properties of the generate function (a request's output is a prefix of a longer one's).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use core::convert::Infallible;
use proptest::prelude::*;
use rand_core::{Rng, TryCryptoRng, TryRng, UnwrapErr};
use shangmi_drbg::{
    AutoReseed, Clock, CtrDrbg, Drbg, Error, GmLevel2, HashDrbg, HmacDrbg, NoClock, Sm3HashDrbg,
    Sm4CtrDrbg, Sp800_90a,
};
use shangmi_sm3::Sm3;
use shangmi_sm4::Sm4;

#[derive(Clone, Copy)]
struct Fixed;

impl Clock for Fixed {
    fn now_seconds(&self) -> u64 {
        0
    }
}

/// An entropy source that counts its bytes (to see the reseeds) and can be told to fail.
struct Counting {
    next: u8,
    drawn: usize,
    fail: bool,
}

#[derive(Debug)]
struct SourceFailed;

impl core::fmt::Display for SourceFailed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("source failed")
    }
}

impl core::error::Error for SourceFailed {}

impl Counting {
    /// A source that counts up from 0 (or fails every draw, if `fail`).
    fn new(fail: bool) -> Self {
        Counting {
            next: 0,
            drawn: 0,
            fail,
        }
    }
}

impl TryRng for Counting {
    type Error = SourceFailed;

    fn try_next_u32(&mut self) -> Result<u32, SourceFailed> {
        rand_core::utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, SourceFailed> {
        rand_core::utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), SourceFailed> {
        if self.fail {
            return Err(SourceFailed);
        }
        for b in dst {
            *b = self.next;
            self.next = self.next.wrapping_add(1);
        }
        self.drawn += 1;
        Ok(())
    }
}

impl TryCryptoRng for Counting {}

fn assert_try_crypto_rng<R: TryCryptoRng>(_: &R) {}
fn assert_crypto_rng<R: rand_core::CryptoRng>(_: &R) {}

#[test]
fn sm2_key_and_signature_from_a_drbg() {
    use shangmi_sm2::dsa::SigningKey;
    use shangmi_sm2::elliptic_curve::Generate;
    use signature::RandomizedSigner;

    let e = [0x42u8; 32];
    let mut drbg = Sm4CtrDrbg::new(&e, &e[..16], b"sm2 keys", Fixed).unwrap();
    assert_try_crypto_rng(&drbg);
    // RustCrypto's `Generate` trait (elliptic-curve 0.14) takes any `TryCryptoRng`.
    let key = shangmi_sm2::SecretKey::try_generate_from_rng(&mut drbg).unwrap();
    // Deterministic: the same seed gives the same key.
    let mut twin = Sm4CtrDrbg::new(&e, &e[..16], b"sm2 keys", Fixed).unwrap();
    let again = shangmi_sm2::SecretKey::try_generate_from_rng(&mut twin).unwrap();
    assert_eq!(again.to_bytes(), key.to_bytes());
    let decrypting = shangmi_sm2::pke::DecryptingKey::random(&mut drbg).unwrap();
    assert_ne!(decrypting.secret_key().to_bytes(), key.to_bytes());

    let mut rng =
        AutoReseed::<Sm3HashDrbg<Fixed>, _>::new(UnwrapErr(getrandom::SysRng), b"", Fixed).unwrap();
    assert_crypto_rng(&rng);
    let signer = SigningKey::random(&mut rng).unwrap();
    let sig: shangmi_sm2::dsa::Signature = signer.sign_with_rng(&mut rng, b"message");
    use signature::Verifier;
    signer.verifying_key().verify(b"message", &sig).unwrap();
}

#[test]
fn fallible_drbg_stops_at_the_reseed_counter() {
    let e = [1u8; 32];
    let mut drbg = CtrDrbg::<Sm4, GmLevel2, _>::new(&e, &e[..16], b"", Fixed).unwrap();
    // 2^10 requests of one block each: 16 KiB, then ReseedRequired.
    let mut buf = vec![0u8; 16 << 10];
    drbg.try_fill_bytes(&mut buf).unwrap();
    assert_eq!(drbg.try_next_u32(), Err(Error::ReseedRequired));
    drbg.reseed(&e, b"").unwrap();
    drbg.try_next_u64().unwrap();
}

#[test]
fn auto_reseed_draws_entropy_when_the_counter_requires() {
    let source = Counting::new(false);
    let mut rng = AutoReseed::<CtrDrbg<Sm4, GmLevel2, Fixed>, _>::new(source, b"", Fixed).unwrap();
    // 2^10 blocks per seed: 3 * 2^10 + 1 blocks need the instantiate draws (entropy and
    // nonce) and 3 reseeds.
    let mut buf = vec![0u8; 16 * (3 << 10) + 16];
    rng.try_fill_bytes(&mut buf).unwrap();
    assert!(!buf.chunks(16).any(|b| b == [0u8; 16]));
    assert_eq!(rng_source_draws(&rng), 5);

    // A DRBG whose counter is spent, with a failing source: the source's error surfaces.
    let e = [9u8; 32];
    let mut drbg = CtrDrbg::<Sm4, GmLevel2, Fixed>::new(&e, &e[..16], b"", Fixed).unwrap();
    for _ in 0..1 << 10 {
        drbg.generate(&mut [0; 16], b"").unwrap();
    }
    let mut failing = AutoReseed::from_parts(drbg, Counting::new(true));
    assert!(matches!(
        failing.try_fill_bytes(&mut buf[..16]),
        Err(SourceFailed)
    ));
    assert!(failing.reseed(b"").is_err());
}

fn rng_source_draws(rng: &AutoReseed<CtrDrbg<Sm4, GmLevel2, Fixed>, Counting>) -> usize {
    rng.source().drawn
}

#[test]
fn auto_reseed_construction_errors() {
    let failing = Counting::new(true);
    assert!(matches!(
        AutoReseed::<Sm3HashDrbg<Fixed>, _>::new(failing, b"", Fixed),
        Err(shangmi_drbg::AutoReseedError::Source(SourceFailed))
    ));
    let ok = Counting::new(false);
    assert!(matches!(
        AutoReseed::<Sm3HashDrbg<NoClock>, _>::new(ok, b"", NoClock),
        Err(shangmi_drbg::AutoReseedError::Drbg(Error::ClockRequired))
    ));
}

#[test]
fn infallible_source_gives_an_infallible_rng() {
    let mut rng: AutoReseed<HmacDrbg<Sm3, Sp800_90a, NoClock>, UnwrapErr<getrandom::SysRng>> =
        AutoReseed::new(UnwrapErr(getrandom::SysRng), b"", NoClock).unwrap();
    let _: Result<(), Infallible> = rng.try_fill_bytes(&mut [0; 8]);
    let (a, b) = (rng.next_u64(), rng.next_u64());
    assert_ne!(a, b);
}

/// The output of a request is a prefix of the output of a longer request from the same
/// state (Hashgen, the HMAC chain and the CTR batches have no length-dependent step before
/// the state update), across every batch boundary.
fn prefix_property<D: Drbg<Clock = NoClock>>(seed: &[u8], short: usize, long: usize, add: &[u8]) {
    let mut a = D::new(&seed[..32], &seed[32..48], &seed[48..], NoClock).unwrap();
    let mut b = D::new(&seed[..32], &seed[32..48], &seed[48..], NoClock).unwrap();
    let mut x = vec![0u8; short];
    let mut y = vec![0u8; long];
    a.generate(&mut x, add).unwrap();
    b.generate(&mut y, add).unwrap();
    assert_eq!(x[..], y[..short]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn shorter_requests_are_prefixes(
        seed in proptest::collection::vec(any::<u8>(), 48..80),
        a in 0usize..700,
        b in 0usize..700,
        add in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        let (short, long) = (a.min(b), a.max(b));
        prefix_property::<CtrDrbg<Sm4, Sp800_90a, NoClock>>(&seed, short, long, &add);
        prefix_property::<HashDrbg<Sm3, Sp800_90a, NoClock>>(&seed, short, long, &add);
        prefix_property::<HmacDrbg<Sm3, Sp800_90a, NoClock>>(&seed, short, long, &add);
    }

    /// Any additional input changes the output; the same inputs give the same output.
    #[test]
    fn additional_input_is_mixed_in(
        seed in proptest::collection::vec(any::<u8>(), 48..60),
        add in proptest::collection::vec(any::<u8>(), 1..40),
    ) {
        let mut a = CtrDrbg::<Sm4, Sp800_90a, NoClock>::new(&seed[..32], &seed[32..48], &seed[48..], NoClock).unwrap();
        let mut b = CtrDrbg::<Sm4, Sp800_90a, NoClock>::new(&seed[..32], &seed[32..48], &seed[48..], NoClock).unwrap();
        let (mut x, mut y) = ([0u8; 48], [0u8; 48]);
        a.generate(&mut x, &add).unwrap();
        b.generate(&mut y, &[]).unwrap();
        prop_assert_ne!(x, y);
    }
}

/// A clock the test moves by hand.
#[derive(Clone, Copy)]
struct Manual<'a>(&'a core::cell::Cell<u64>);

impl Clock for Manual<'_> {
    fn now_seconds(&self) -> u64 {
        self.0.get()
    }
}

/// `AutoReseed` follows the time rule too: past the level's limit it draws fresh entropy
/// before the next output.
#[test]
fn auto_reseed_reseeds_when_the_time_limit_passes() {
    let clock = core::cell::Cell::new(5);
    let source = Counting::new(false);
    let mut rng =
        AutoReseed::<HashDrbg<Sm3, GmLevel2, _>, _>::new(source, b"", Manual(&clock)).unwrap();
    let draws = |rng: &AutoReseed<HashDrbg<Sm3, GmLevel2, Manual>, Counting>| rng.source().drawn;
    let mut buf = [0u8; 100];
    rng.try_fill_bytes(&mut buf).unwrap();
    assert_eq!(draws(&rng), 2); // entropy and nonce
    clock.set(65);
    rng.try_fill_bytes(&mut buf).unwrap();
    assert_eq!(draws(&rng), 2); // 60 s: still within the limit
    clock.set(66);
    rng.try_fill_bytes(&mut buf).unwrap();
    assert_eq!(draws(&rng), 3);
    assert!(!rng.drbg().reseed_required());
}

/// The three DRBGs wipe their state on drop.
#[test]
fn state_is_wiped_on_drop() {
    fn wiped<T: zeroize::ZeroizeOnDrop>() {}
    wiped::<HashDrbg<Sm3, Sp800_90a, NoClock>>();
    wiped::<HmacDrbg<Sm3, Sp800_90a, NoClock>>();
    wiped::<CtrDrbg<Sm4, Sp800_90a, NoClock>>();
}
