//! Hash_DRBG: NIST SP 800-90A Rev. 1 section 10.1.1, and GM/T 0105-2021 Annex B's SM3
//! generator, which is the same construction with the reseed input reordered and one hash
//! output per request.

use crate::schedule::{Schedule, check_instantiate};
use crate::{Clock, Drbg, Error, Profile, sealed};
use core::{fmt, marker::PhantomData};
use digest::Digest;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The longest seedlen of SP 800-90A Table 2 (888 bits, SHA-384 and SHA-512).
const MAX_SEED_LEN: usize = 111;

/// Hash_DRBG over the hash `H` under profile `P`, reading clock `C` for the time rule.
///
/// [`Sm3HashDrbg`](crate::Sm3HashDrbg) is the GM/T 0105-2021 generator;
/// `HashDrbg<sha2::Sha256, Sp800_90a, NoClock>` is SP 800-90A's Hash_DRBG with SHA-256.
/// The state (V and C) is wiped on drop.
///
/// ```
/// use shangmi_drbg::{Drbg, NoClock, Sp800_90a, HashDrbg};
/// use shangmi_sm3::Sm3;
///
/// let mut drbg = HashDrbg::<Sm3, Sp800_90a, NoClock>::new(&[7; 32], &[9; 16], b"app", NoClock)?;
/// let mut out = [0u8; 100];
/// drbg.generate(&mut out, b"")?;
/// # Ok::<(), shangmi_drbg::Error>(())
/// ```
pub struct HashDrbg<H, P, C> {
    v: [u8; MAX_SEED_LEN],
    c: [u8; MAX_SEED_LEN],
    schedule: Schedule<P, C>,
    hash: PhantomData<H>,
}

/// seedlen of SP 800-90A Table 2 (GM/T 0105 uses 440 bits with SM3 too).
fn seed_len<H: Digest>() -> usize {
    if <H as Digest>::output_size() <= 32 {
        55
    } else {
        MAX_SEED_LEN
    }
}

/// The security strength of SP 800-90A Table 2 for a hash of this output size, in bytes.
pub(crate) fn hash_strength(output_size: usize) -> usize {
    match output_size {
        32.. => 32,
        28.. => 24,
        _ => 16,
    }
}

/// Hash_df (SP 800-90A 10.3.1): `out` from the hash of counter || bit length || pieces.
fn hash_df<H: Digest>(pieces: &[&[u8]], out: &mut [u8]) {
    let bits = ((out.len() * 8) as u32).to_be_bytes();
    for (counter, chunk) in (1u8..=u8::MAX).zip(out.chunks_mut(<H as Digest>::output_size())) {
        let mut h = H::new();
        h.update([counter]);
        h.update(bits);
        for piece in pieces {
            h.update(piece);
        }
        let mut d = h.finalize();
        chunk.copy_from_slice(&d[..chunk.len()]);
        d.as_mut_slice().zeroize();
    }
}

/// `v = (v + x) mod 2^(8 len(v))`, big-endian, `x` no longer than `v`; constant time.
fn add_be(v: &mut [u8], x: &[u8]) {
    let offset = v.len().saturating_sub(x.len());
    let mut carry = 0u16;
    for (i, byte) in v.iter_mut().enumerate().rev() {
        let addend = if i >= offset { x[i - offset] } else { 0 };
        carry += u16::from(*byte) + u16::from(addend);
        *byte = carry as u8;
        carry >>= 8;
    }
}

impl<H: Digest, P: Profile, C: Clock> HashDrbg<H, P, C> {
    /// C = Hash_df(0x00 || V, seedlen), after every instantiate and reseed.
    fn derive_c(&mut self) {
        let n = seed_len::<H>();
        hash_df::<H>(&[&[0], &self.v[..n]], &mut self.c[..n]);
    }
}

impl<H: Digest, P: Profile, C: Clock> sealed::Core for HashDrbg<H, P, C> {
    fn check_generate(&self, out_len: usize, additional: &[u8]) -> Result<(), Error> {
        self.schedule
            .check_generate(out_len, Self::max_request_len(), additional)
    }

    fn reseed_unchecked(&mut self, entropy: &[u8], additional: &[u8]) {
        let n = seed_len::<H>();
        let mut seed = [0u8; MAX_SEED_LEN];
        let v = &self.v[..n];
        if P::GM {
            hash_df::<H>(&[&[1], entropy, v, additional], &mut seed[..n]);
        } else {
            hash_df::<H>(&[&[1], v, entropy, additional], &mut seed[..n]);
        }
        self.v = seed;
        seed.zeroize();
        self.derive_c();
        self.schedule.reseeded();
    }

    fn generate_unchecked(&mut self, out: &mut [u8], additional: &[u8]) {
        let n = seed_len::<H>();
        let out_len = <H as Digest>::output_size();
        let v = &mut self.v[..n];
        if !additional.is_empty() {
            let mut w = H::new()
                .chain_update([2])
                .chain_update(&*v)
                .chain_update(additional)
                .finalize();
            add_be(v, &w);
            w.as_mut_slice().zeroize();
        }
        // Hashgen: Hash(V), Hash(V + 1), ... (GM/T 0105 takes the first only).
        let mut data = [0u8; MAX_SEED_LEN];
        data[..n].copy_from_slice(v);
        for chunk in out.chunks_mut(out_len) {
            let mut d = H::digest(&data[..n]);
            chunk.copy_from_slice(&d[..chunk.len()]);
            d.as_mut_slice().zeroize();
            add_be(&mut data[..n], &[1]);
        }
        data.zeroize();
        // V = (V + Hash(0x03 || V) + C + reseed_counter) mod 2^seedlen.
        let mut h = H::new().chain_update([3]).chain_update(&*v).finalize();
        add_be(v, &h);
        h.as_mut_slice().zeroize();
        add_be(v, &self.c[..n]);
        add_be(v, &self.schedule.reseed_counter().to_be_bytes());
        self.schedule.generated();
    }
}

impl<H: Digest, P: Profile, C: Clock> Drbg for HashDrbg<H, P, C> {
    type Clock = C;

    fn new(entropy: &[u8], nonce: &[u8], personalization: &[u8], clock: C) -> Result<Self, Error> {
        check_instantiate(entropy, nonce, personalization, Self::min_entropy_len())?;
        let mut drbg = HashDrbg {
            v: [0; MAX_SEED_LEN],
            c: [0; MAX_SEED_LEN],
            schedule: Schedule::new(clock)?,
            hash: PhantomData,
        };
        let n = seed_len::<H>();
        hash_df::<H>(&[entropy, nonce, personalization], &mut drbg.v[..n]);
        drbg.derive_c();
        Ok(drbg)
    }

    fn min_entropy_len() -> usize {
        P::min_entropy_len(hash_strength(<H as Digest>::output_size()))
    }

    fn max_request_len() -> usize {
        P::max_request_len(<H as Digest>::output_size())
    }

    fn reseed_required(&self) -> bool {
        self.schedule.reseed_required()
    }
}

impl<H, P, C> Drop for HashDrbg<H, P, C> {
    fn drop(&mut self) {
        self.v.zeroize();
        self.c.zeroize();
    }
}

impl<H, P, C> ZeroizeOnDrop for HashDrbg<H, P, C> {}

impl<H, P, C> fmt::Debug for HashDrbg<H, P, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HashDrbg").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::add_be;

    #[test]
    fn add_be_carries_through_and_wraps() {
        let mut v = [0x00, 0xff, 0xff];
        add_be(&mut v, &[1]);
        assert_eq!(v, [0x01, 0x00, 0x00]);
        let mut v = [0xff, 0xff, 0xff];
        add_be(&mut v, &[0, 2]);
        assert_eq!(v, [0x00, 0x00, 0x01]);
        let mut v = [0x12, 0x34];
        add_be(&mut v, &[]);
        assert_eq!(v, [0x12, 0x34]);
    }
}
