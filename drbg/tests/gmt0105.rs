//! The GM/T 0105-2021 generators: SM3 and SM4 vectors, and the standard's rules (entropy
//! and nonce lengths, reseed counter, time limit, request size) at and past each limit.
//!
//! The standard's annexes give no known-answer values that we could obtain; the vectors are
//! from emmansun/gmsm v0.44.0 (drbg/hash_drbg_test.go, drbg/ctr_drbg_test.go), a second,
//! independent implementation.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use core::cell::Cell;
use hex_literal::hex;
use shangmi_drbg::{
    Clock, CtrDrbg, Drbg, Error, GmLevel1, GmLevel2, HashDrbg, HmacDrbg, MAX_INPUT_LEN, NoClock,
    Sm3HashDrbg, Sm3HmacDrbg, Sm4CtrDrbg, Sp800_90a,
};
use shangmi_sm3::Sm3;
use shangmi_sm4::Sm4;

/// A clock the test moves by hand.
#[derive(Clone, Copy)]
struct Manual<'a>(&'a Cell<u64>);

impl Clock for Manual<'_> {
    fn now_seconds(&self) -> u64 {
        self.0.get()
    }
}

/// Instantiate, reseed, generate twice; returns the second output (gmsm's test flow).
fn two_generates<D: Drbg>(
    clock: D::Clock,
    seed: [&[u8]; 5],
    additional: [&[u8]; 2],
    out_len: usize,
) -> Result<Vec<u8>, Error> {
    let [
        entropy,
        nonce,
        personalization,
        reseed_entropy,
        reseed_additional,
    ] = seed;
    let mut drbg = D::new(entropy, nonce, personalization, clock)?;
    drbg.reseed(reseed_entropy, reseed_additional)?;
    let mut out = vec![0u8; out_len];
    drbg.generate(&mut out, additional[0])?;
    drbg.generate(&mut out, additional[1])?;
    Ok(out)
}

const GM_HASH_ENTROPY: [u8; 32] =
    hex!("9cfb7ad03be487a3b42be06e9ae44f283c2b1458cec801da2ae6532fcb56cc4c");
const GM_HASH_NONCE: [u8; 16] = hex!("a20765538e8db31295747ec922c13a69");
const GM_HASH_RESEED: [u8; 32] =
    hex!("96bc8014f90ebdf690db0e171b59cc46c75e2e9b8e1dc699c65c03ceb2f4d7dc");
const GM_HASH_RESEED_ADD: [u8; 32] =
    hex!("6fea0894052dab3c44d503950c7c72bd7b87de87cb81d3bb51c32a62f742286d");
const GM_HASH_ADD: [[u8; 32]; 2] = [
    hex!("d3467c78563b74c13db7af36c2a964820f2a9b1b167474906508fdac9b2049a6"),
    hex!("5840a11cc9ebf77b963854726a826370ffdb2fc2b3d8479e1df5dcfa3dddd10b"),
];

/// SM3 generator, no personalization or additional input (gmsm v0.44.0
/// drbg/hash_drbg_test.go, the first GM case).
#[test]
fn sm3_hash_drbg_gmsm_vector() {
    let clock = Cell::new(0);
    let out = two_generates::<HashDrbg<Sm3, GmLevel1, _>>(
        Manual(&clock),
        [
            &hex!("63363377e41e86468deb0ab4a8ed683f6a134e47e014c700454e81e95358a569"),
            &hex!("808aa38f2a72a62359915a9f8a04ca68"),
            &[],
            &hex!("e62b8a8ee8f141b6980566e3bfe3c04903dad4ac2cdf9f2280010a6739bc83d3"),
            &[],
        ],
        [&[], &[]],
        32,
    )
    .unwrap();
    assert_eq!(
        out,
        hex!("00d98d35a2fab8df23e9e1fb9aad143d62c0759eb79e15c37e8f2bc5064e68da")
    );
}

/// SM3 generator with reseed and generate additional input (gmsm v0.44.0
/// drbg/hash_drbg_test.go, the second GM case). Negative control: the same inputs under
/// SP 800-90A (which orders the reseed input `V || entropy`) give another output, so the
/// vector checks GM/T 0105's order.
#[test]
fn sm3_hash_drbg_gmsm_vector_additional_input() {
    let seed: [&[u8]; 5] = [
        &GM_HASH_ENTROPY,
        &GM_HASH_NONCE,
        &[],
        &GM_HASH_RESEED,
        &GM_HASH_RESEED_ADD,
    ];
    let additional: [&[u8]; 2] = [&GM_HASH_ADD[0], &GM_HASH_ADD[1]];
    let expected = hex!("48709db5509a03d6131775fbbfe74fe52611e760d22fde61e274a295f4354d67");
    let clock = Cell::new(0);
    let gm = two_generates::<Sm3HashDrbg<_>>(Manual(&clock), seed, additional, 32);
    assert_eq!(gm.unwrap(), expected);
    let nist = two_generates::<HashDrbg<Sm3, Sp800_90a, NoClock>>(NoClock, seed, additional, 32);
    assert_ne!(nist.unwrap(), expected);
}

/// SM4 generator, no personalization or additional input (gmsm v0.44.0
/// drbg/ctr_drbg_test.go, "SM4-128, without additional input", GM mode).
#[test]
fn sm4_ctr_drbg_gmsm_vector() {
    let clock = Cell::new(0);
    let out = two_generates::<Sm4CtrDrbg<_>>(
        Manual(&clock),
        [
            &hex!("2d4c9f46b981c6a0b2b5d8c69391e569ff13851437ebc0fc00d616340252fed5"),
            &hex!("0bf814b411f65ec4866be1abb59d3c32"),
            &[],
            &hex!("93500fae4fa32b86033b7a7bac9d37e710dcc67ca266bc8607d665937766d207"),
            &[],
        ],
        [&[], &[]],
        16,
    )
    .unwrap();
    assert_eq!(out, hex!("e732a524de8ad239aa293ac8ae588f9d"));
}

/// CTR_DRBG with SM4 in the SP 800-90A mode, with additional input (gmsm v0.44.0
/// drbg/ctr_drbg_test.go, "SM4-128, with additional input", NIST mode).
#[test]
fn sm4_ctr_drbg_sp800_90a_gmsm_vector() {
    let out = two_generates::<CtrDrbg<Sm4, Sp800_90a, NoClock>>(
        NoClock,
        [
            &hex!("6f60f0f9d486bc23e1223b934e61c0c78ae9232fa2e9a87c6dacd447c3f10e9e"),
            &hex!("401e3f87762fa8a14ab232ccb8480a2f"),
            &[],
            &hex!("350be52552a65a804a106543ebb7dd046cffae104e4e8b2f18936d564d3c1950"),
            &hex!("7a3688adb1cfb6c03264e2762ece96bfe4daf9558fabf74d7fff203c08b4dd9f"),
        ],
        [
            &hex!("67cf4a56d081c53670f257c25557014cd5e8b0e919aa58f23d6861b10b00ea80"),
            &hex!("648d4a229198b43f33dd7dd8426650be11c5656adcdf913bb3ee5eb49a2a3892"),
        ],
        16,
    )
    .unwrap();
    assert_eq!(out, hex!("b0ac91f148efbdc3570d7e434aba8d24"));
}

/// Why `D` refuses to instantiate from `entropy` and `nonce` (no personalization).
fn refusal<D: Drbg>(entropy: &[u8], nonce: &[u8], clock: D::Clock) -> Option<Error> {
    D::new(entropy, nonce, b"", clock).err()
}

/// GM/T 0105: at least 256 bits of entropy and 128 bits of nonce, for SM4 too (whose
/// security strength alone would ask for 128 bits); SP 800-90A asks for the strength.
#[test]
fn entropy_and_nonce_minimums() {
    let clock = Cell::new(0);
    let c = Manual(&clock);
    assert_eq!(Sm3HashDrbg::<Manual>::min_entropy_len(), 32);
    assert_eq!(Sm4CtrDrbg::<Manual>::min_entropy_len(), 32);
    assert_eq!(Sm3HmacDrbg::<Manual>::min_entropy_len(), 32);
    assert_eq!(Sm4CtrDrbg::<Manual>::min_nonce_len(), 16);
    assert_eq!(CtrDrbg::<Sm4, Sp800_90a, NoClock>::min_entropy_len(), 16);
    assert_eq!(
        CtrDrbg::<aes::Aes256, Sp800_90a, NoClock>::min_entropy_len(),
        32
    );
    assert_eq!(
        HashDrbg::<sha2::Sha224, Sp800_90a, NoClock>::min_entropy_len(),
        24
    );
    assert_eq!(
        HashDrbg::<sha2::Sha512, Sp800_90a, NoClock>::min_entropy_len(),
        32
    );

    let e = [1u8; 64];
    for (i, (got, want)) in [
        (
            refusal::<Sm4CtrDrbg<_>>(&e[..31], &e[..16], c),
            Error::EntropyTooShort,
        ),
        (
            refusal::<Sm4CtrDrbg<_>>(&e[..32], &e[..15], c),
            Error::NonceTooShort,
        ),
        (
            refusal::<Sm3HashDrbg<_>>(&e[..31], &e[..16], c),
            Error::EntropyTooShort,
        ),
        (
            refusal::<Sm3HashDrbg<_>>(&e[..32], &e[..8], c),
            Error::NonceTooShort,
        ),
        (
            refusal::<Sm3HmacDrbg<_>>(&[], &e[..16], c),
            Error::EntropyTooShort,
        ),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(got, Some(want), "case {i}");
    }
    let mut drbg = Sm3HashDrbg::new(&e[..32], &e[..16], b"", c).unwrap();
    assert_eq!(drbg.reseed(&e[..16], b""), Err(Error::EntropyTooShort));
    drbg.reseed(&e[..32], b"").unwrap();
    // SP 800-90A with AES-128: 128-bit entropy, 64-bit nonce.
    assert!(
        CtrDrbg::<aes::Aes128, Sp800_90a, NoClock>::new(&e[..16], &e[..8], b"", NoClock).is_ok()
    );
    assert_eq!(
        CtrDrbg::<aes::Aes128, Sp800_90a, NoClock>::new(&e[..15], &e[..8], b"", NoClock).err(),
        Some(Error::EntropyTooShort)
    );
}

#[test]
fn inputs_longer_than_the_maximum_are_refused() {
    let long = vec![0u8; MAX_INPUT_LEN + 1];
    let e = [1u8; 32];
    type D = HashDrbg<Sm3, Sp800_90a, NoClock>;
    assert_eq!(
        D::new(&long, &e[..16], b"", NoClock).err(),
        Some(Error::InputTooLong)
    );
    assert_eq!(
        D::new(&e, &long, b"", NoClock).err(),
        Some(Error::InputTooLong)
    );
    assert_eq!(
        D::new(&e, &e[..16], &long, NoClock).err(),
        Some(Error::InputTooLong)
    );
    let mut drbg = D::new(&e, &e[..16], b"", NoClock).unwrap();
    assert_eq!(drbg.reseed(&e, &long), Err(Error::InputTooLong));
    assert_eq!(drbg.generate(&mut [0; 16], &long), Err(Error::InputTooLong));
    assert_eq!(
        drbg.generate_with_prediction_resistance(&e, &long, &mut [0; 16]),
        Err(Error::InputTooLong)
    );
}

/// One hash output (32 bytes) or one SM4 block (16 bytes) per request under GM/T 0105;
/// 65,536 bytes under SP 800-90A.
#[test]
fn request_size_limits() {
    let clock = Cell::new(0);
    let c = Manual(&clock);
    let e = [1u8; 32];
    let mut big = vec![0u8; (1 << 16) + 1];
    let mut hash = Sm3HashDrbg::new(&e, &e[..16], b"", c).unwrap();
    hash.generate(&mut big[..32], b"").unwrap();
    assert_eq!(
        hash.generate(&mut big[..33], b""),
        Err(Error::RequestTooLarge)
    );
    let mut hmac = Sm3HmacDrbg::new(&e, &e[..16], b"", c).unwrap();
    hmac.generate(&mut big[..32], b"").unwrap();
    assert_eq!(
        hmac.generate(&mut big[..33], b""),
        Err(Error::RequestTooLarge)
    );
    let mut ctr = Sm4CtrDrbg::new(&e, &e[..16], b"", c).unwrap();
    ctr.generate(&mut big[..16], b"").unwrap();
    assert_eq!(
        ctr.generate(&mut big[..17], b""),
        Err(Error::RequestTooLarge)
    );
    assert_eq!(
        ctr.generate_with_prediction_resistance(&e, b"", &mut big[..17]),
        Err(Error::RequestTooLarge)
    );

    let mut nist = CtrDrbg::<Sm4, Sp800_90a, NoClock>::new(&e, &e[..16], b"", NoClock).unwrap();
    nist.generate(&mut big[..1 << 16], b"").unwrap();
    assert_eq!(nist.generate(&mut big, b""), Err(Error::RequestTooLarge));
    let mut nist = HashDrbg::<Sm3, Sp800_90a, NoClock>::new(&e, &e[..16], b"", NoClock).unwrap();
    nist.generate(&mut big[..1 << 16], b"").unwrap();
    assert_eq!(nist.generate(&mut big, b""), Err(Error::RequestTooLarge));
}

/// A refused call leaves the state as it was: the next output equals that of a twin that
/// never made the refused call.
#[test]
fn refusals_leave_the_state_unchanged() {
    let clock = Cell::new(0);
    let e = [1u8; 32];
    let mut a = Sm4CtrDrbg::new(&e, &e[..16], b"", Manual(&clock)).unwrap();
    let mut b = Sm4CtrDrbg::new(&e, &e[..16], b"", Manual(&clock)).unwrap();
    assert!(a.generate(&mut [0; 17], b"x").is_err());
    assert!(a.reseed(&e[..8], b"").is_err());
    assert!(
        a.generate_with_prediction_resistance(&e[..8], b"", &mut [0; 16])
            .is_err()
    );
    let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
    a.generate(&mut x, b"").unwrap();
    b.generate(&mut y, b"").unwrap();
    assert_eq!(x, y);
}

/// The reseed counter: level 2 allows 2^10 generate calls after each (re)seed, then refuses
/// until a reseed.
#[test]
fn reseed_counter_level_2() {
    let clock = Cell::new(100);
    let e = [7u8; 32];
    let mut drbg = CtrDrbg::<Sm4, GmLevel2, _>::new(&e, &e[..16], b"", Manual(&clock)).unwrap();
    let mut out = [0u8; 16];
    for round in 0..2 {
        for _ in 0..1 << 10 {
            assert!(!drbg.reseed_required());
            drbg.generate(&mut out, b"").unwrap();
        }
        assert!(drbg.reseed_required());
        assert_eq!(drbg.generate(&mut out, b""), Err(Error::ReseedRequired));
        assert_eq!(
            drbg.try_fill_bytes_twice(),
            Err(Error::ReseedRequired),
            "round {round}"
        );
        drbg.reseed(&e, b"").unwrap();
    }
    // Prediction resistance reseeds, so it goes on past the counter.
    for _ in 0..(1 << 10) + 5 {
        drbg.generate_with_prediction_resistance(&e, b"", &mut out)
            .unwrap();
    }
}

trait FillTwice {
    fn try_fill_bytes_twice(&mut self) -> Result<(), Error>;
}

impl<T: rand_core::TryRng<Error = Error>> FillTwice for T {
    fn try_fill_bytes_twice(&mut self) -> Result<(), Error> {
        let mut buf = [0u8; 40];
        self.try_fill_bytes(&mut buf)?;
        self.try_fill_bytes(&mut buf)
    }
}

/// The time limit: 60 s at level 2, 600 s at level 1, measured from the last reseed; a
/// clock that goes backwards also asks for a reseed.
#[test]
fn time_limit() {
    let clock = Cell::new(1_000);
    let e = [7u8; 32];
    let mut out = [0u8; 32];
    let mut l2 = HashDrbg::<Sm3, GmLevel2, _>::new(&e, &e[..16], b"", Manual(&clock)).unwrap();
    let mut l1 = Sm3HmacDrbg::new(&e, &e[..16], b"", Manual(&clock)).unwrap();
    clock.set(1_060);
    l2.generate(&mut out, b"").unwrap();
    clock.set(1_061);
    assert_eq!(l2.generate(&mut out, b""), Err(Error::ReseedRequired));
    l1.generate(&mut out, b"").unwrap();
    l2.reseed(&e, b"").unwrap();
    l2.generate(&mut out, b"").unwrap();
    clock.set(1_600);
    l1.generate(&mut out, b"").unwrap();
    clock.set(1_601);
    assert_eq!(l1.generate(&mut out, b""), Err(Error::ReseedRequired));
    l1.reseed(&e, b"").unwrap();
    l1.generate(&mut out, b"").unwrap();
    clock.set(1_500);
    assert!(l1.reseed_required());
    assert_eq!(l1.generate(&mut out, b""), Err(Error::ReseedRequired));
}

/// GM/T 0105 limits the time between reseeds, so its profiles refuse `NoClock`;
/// SP 800-90A takes it.
#[test]
fn gm_profiles_need_a_clock() {
    let e = [7u8; 32];
    assert_eq!(
        Sm3HashDrbg::new(&e, &e[..16], b"", NoClock).err(),
        Some(Error::ClockRequired)
    );
    assert_eq!(
        Sm4CtrDrbg::new(&e, &e[..16], b"", NoClock).err(),
        Some(Error::ClockRequired)
    );
    assert_eq!(
        HmacDrbg::<Sm3, GmLevel2, NoClock>::new(&e, &e[..16], b"", NoClock).err(),
        Some(Error::ClockRequired)
    );
    assert!(HmacDrbg::<Sm3, Sp800_90a, NoClock>::new(&e, &e[..16], b"", NoClock).is_ok());
}

#[cfg(feature = "std")]
#[test]
fn std_clock_runs_a_gm_profile() {
    let e = [7u8; 32];
    let mut drbg = Sm3HashDrbg::new(&e, &e[..16], b"", shangmi_drbg::StdClock::new()).unwrap();
    drbg.generate(&mut [0; 32], b"").unwrap();
}
