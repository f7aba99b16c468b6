//! The rules a DRBG runs under: GM/T 0105-2021 at its two security levels, or NIST
//! SP 800-90A Rev. 1. The constructions are the same; the limits, and the order of the
//! Hash_DRBG reseed input, differ.

mod sealed {
    pub trait Sealed {}
}

/// A set of limits for a DRBG, as a type parameter: [`GmLevel1`], [`GmLevel2`] or
/// [`Sp800_90a`]. Sealed: the crate's tests check each one against its standard.
pub trait Profile: sealed::Sealed {
    /// GM/T 0105-2021 (`true`) or SP 800-90A (`false`). GM/T 0105 orders the Hash_DRBG
    /// reseed input as `0x01 || entropy || V || additional` where SP 800-90A has
    /// `0x01 || V || entropy || additional`.
    const GM: bool;
    /// The number of generate calls allowed between reseeds.
    const RESEED_INTERVAL: u64;
    /// The longest time between reseeds, in seconds, if the profile limits it.
    const RESEED_TIME_LIMIT: Option<u64>;

    /// The shortest entropy input, in bytes, for a mechanism of `strength` bytes of
    /// security strength (the nonce must be at least half as long).
    fn min_entropy_len(strength: usize) -> usize;

    /// The most bytes one generate call may return, for a mechanism whose hash output or
    /// cipher block is `out_len` bytes.
    fn max_request_len(out_len: usize) -> usize;
}

/// GM/T 0105-2021 at security level 1 of GB/T 37092: a reseed at least every 2^20 generate
/// calls and every 600 seconds.
///
/// Entropy input of at least 256 bits and a nonce of at least 128 bits; each generate call
/// returns at most one hash output (Hash_DRBG, HMAC_DRBG) or one cipher block (CTR_DRBG).
/// These limits and the level-1 intervals follow emmansun/gmsm v0.44.0's reading of the
/// standard (its `drbg` package); the level-2 intervals (2^10 calls, 60 s) also appear in
/// published descriptions of the standard's SM3 generator. HMAC_DRBG is not in
/// GM/T 0105: with this profile it runs SP 800-90A's construction under GM/T 0105's
/// limits.
#[derive(Clone, Copy, Debug, Default)]
pub struct GmLevel1;

/// GM/T 0105-2021 at security level 2 of GB/T 37092: a reseed at least every 2^10 generate
/// calls and every 60 seconds; otherwise as [`GmLevel1`].
#[derive(Clone, Copy, Debug, Default)]
pub struct GmLevel2;

/// NIST SP 800-90A Rev. 1: a reseed at least every 2^48 generate calls, no time limit, up
/// to 2^19 bits (65,536 bytes) per generate call, entropy input of at least the
/// mechanism's security strength and a nonce of at least half of it.
#[derive(Clone, Copy, Debug, Default)]
#[allow(non_camel_case_types)]
pub struct Sp800_90a;

impl sealed::Sealed for GmLevel1 {}
impl sealed::Sealed for GmLevel2 {}
impl sealed::Sealed for Sp800_90a {}

/// GM/T 0105-2021 asks for at least 256 bits of entropy whatever the mechanism.
const GM_MIN_ENTROPY_LEN: usize = 32;

impl Profile for GmLevel1 {
    const GM: bool = true;
    const RESEED_INTERVAL: u64 = 1 << 20;
    const RESEED_TIME_LIMIT: Option<u64> = Some(600);

    fn min_entropy_len(strength: usize) -> usize {
        strength.max(GM_MIN_ENTROPY_LEN)
    }

    fn max_request_len(out_len: usize) -> usize {
        out_len
    }
}

impl Profile for GmLevel2 {
    const GM: bool = true;
    const RESEED_INTERVAL: u64 = 1 << 10;
    const RESEED_TIME_LIMIT: Option<u64> = Some(60);

    fn min_entropy_len(strength: usize) -> usize {
        GmLevel1::min_entropy_len(strength)
    }

    fn max_request_len(out_len: usize) -> usize {
        GmLevel1::max_request_len(out_len)
    }
}

impl Profile for Sp800_90a {
    const GM: bool = false;
    const RESEED_INTERVAL: u64 = 1 << 48;
    const RESEED_TIME_LIMIT: Option<u64> = None;

    fn min_entropy_len(strength: usize) -> usize {
        strength
    }

    fn max_request_len(_out_len: usize) -> usize {
        1 << 16
    }
}
