//! HMAC_DRBG: NIST SP 800-90A Rev. 1 section 10.1.2, generic over the hash (HMAC-SM3 for
//! the GM/T 0105 profiles, which do not define an HMAC generator of their own).

use crate::hash::hash_strength;
use crate::schedule::{Schedule, check_instantiate};
use crate::{Clock, Drbg, Error, Profile, sealed};
use core::fmt;
use digest::{KeyInit, Mac, Output, block_api::EagerHash, typenum::Unsigned};
use hmac::Hmac;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// HMAC_DRBG over the hash `H` under profile `P`, reading clock `C` for the time rule.
///
/// [`Sm3HmacDrbg`](crate::Sm3HmacDrbg) is HMAC_DRBG with SM3 under GM/T 0105-2021's
/// limits; `HmacDrbg<sha2::Sha256, Sp800_90a, NoClock>` is SP 800-90A's HMAC_DRBG with
/// SHA-256. The state (Key and V) is wiped on drop.
///
/// ```
/// use shangmi_drbg::{Drbg, GmLevel1, HmacDrbg};
/// use shangmi_sm3::Sm3;
/// # use shangmi_drbg::Clock;
/// # struct Rtc;
/// # impl Clock for Rtc { fn now_seconds(&self) -> u64 { 1_700_000_000 } }
///
/// let mut drbg = HmacDrbg::<Sm3, GmLevel1, _>::new(&[7; 32], &[9; 16], b"", Rtc)?;
/// let mut out = [0u8; 32]; // at most one SM3 output per call under GM/T 0105
/// drbg.generate(&mut out, b"request 1")?;
/// # Ok::<(), shangmi_drbg::Error>(())
/// ```
pub struct HmacDrbg<H: EagerHash, P, C> {
    key: Output<Hmac<H>>,
    v: Output<Hmac<H>>,
    schedule: Schedule<P, C>,
}

/// HMAC(key, pieces...). The key (one hash output) is zero-padded to the block size, which
/// is HMAC's own rule for short keys, so the keyed state is built without a length check.
fn hmac<H: EagerHash>(key: &[u8], pieces: &[&[u8]]) -> Output<Hmac<H>> {
    const {
        assert!(
            <H as digest::OutputSizeUser>::OutputSize::USIZE
                <= <H as digest::block_api::BlockSizeUser>::BlockSize::USIZE
        )
    };
    let mut padded = digest::Key::<Hmac<H>>::default();
    padded[..key.len()].copy_from_slice(key);
    let mut mac = <Hmac<H> as KeyInit>::new(&padded);
    padded.as_mut_slice().zeroize();
    for piece in pieces {
        mac.update(piece);
    }
    mac.finalize().into_bytes()
}

impl<H: EagerHash, P: Profile, C: Clock> HmacDrbg<H, P, C> {
    /// HMAC_DRBG_Update (SP 800-90A 10.1.2.2) with provided_data = the pieces concatenated.
    fn update(&mut self, pieces: &[&[u8]]) {
        let empty = pieces.iter().all(|p| p.is_empty());
        for round in [0u8, 1] {
            if round == 1 && empty {
                break;
            }
            let mut input: [&[u8]; 5] = [&[], &[], &[], &[], &[]];
            input[0] = &self.v;
            input[1] = if round == 0 { &[0] } else { &[1] };
            for (slot, piece) in input[2..].iter_mut().zip(pieces) {
                *slot = piece;
            }
            let key = hmac::<H>(&self.key, &input);
            self.key = key;
            let v = hmac::<H>(&self.key, &[&self.v]);
            self.v = v;
        }
    }
}

impl<H: EagerHash, P: Profile, C: Clock> sealed::Core for HmacDrbg<H, P, C> {
    fn check_generate(&self, out_len: usize, additional: &[u8]) -> Result<(), Error> {
        self.schedule
            .check_generate(out_len, Self::max_request_len(), additional)
    }

    fn reseed_unchecked(&mut self, entropy: &[u8], additional: &[u8]) {
        self.update(&[entropy, additional]);
        self.schedule.reseeded();
    }

    fn generate_unchecked(&mut self, out: &mut [u8], additional: &[u8]) {
        if !additional.is_empty() {
            self.update(&[additional]);
        }
        for chunk in out.chunks_mut(self.v.len()) {
            let v = hmac::<H>(&self.key, &[&self.v]);
            self.v = v;
            chunk.copy_from_slice(&self.v[..chunk.len()]);
        }
        self.update(&[additional]);
        self.schedule.generated();
    }
}

impl<H: EagerHash, P: Profile, C: Clock> Drbg for HmacDrbg<H, P, C> {
    type Clock = C;

    fn new(entropy: &[u8], nonce: &[u8], personalization: &[u8], clock: C) -> Result<Self, Error> {
        check_instantiate(entropy, nonce, personalization, Self::min_entropy_len())?;
        let mut drbg = HmacDrbg {
            key: Output::<Hmac<H>>::default(),
            v: Output::<Hmac<H>>::default(),
            schedule: Schedule::new(clock)?,
        };
        drbg.v.as_mut_slice().fill(1);
        drbg.update(&[entropy, nonce, personalization]);
        Ok(drbg)
    }

    fn min_entropy_len() -> usize {
        P::min_entropy_len(hash_strength(<H as digest::OutputSizeUser>::output_size()))
    }

    fn max_request_len() -> usize {
        P::max_request_len(<H as digest::OutputSizeUser>::output_size())
    }

    fn reseed_required(&self) -> bool {
        self.schedule.reseed_required()
    }
}

impl<H: EagerHash, P, C> Drop for HmacDrbg<H, P, C> {
    fn drop(&mut self) {
        self.key.as_mut_slice().zeroize();
        self.v.as_mut_slice().zeroize();
    }
}

impl<H: EagerHash, P, C> ZeroizeOnDrop for HmacDrbg<H, P, C> {}

impl<H: EagerHash, P, C> fmt::Debug for HmacDrbg<H, P, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HmacDrbg").finish_non_exhaustive()
    }
}
