//! Many ZUC-128 keystreams at once, for a sender with many bearers: [`apply_keystream_many`]
//! and [`eea3_many`] run up to eight generators side by side in the 32-bit lanes of AVX2
//! registers (the LFSR, the bit reorganisation and F as lane-wise vector operations, the
//! S-boxes as on the AES-NI engine: `pshufb` nibble maps around `aesenclast`), so eight
//! messages cost little more than one. Elsewhere, or for a single message, each job runs
//! on the best single-stream backend ([`Backend::best`](crate::Backend::best)). Lengths
//! may differ: a short lane's surplus keystream is dropped.
//!
//! The many-stream backends are their own `shangmi-dispatch` family ([`ManyEngine`]) with
//! their own kernel trait and one `match` (`run`) from an `Available` backend to its kernel.

use cipher::{KeyIvInit, StreamCipher};
use shangmi_dispatch::Available;

use crate::{Error, ManyEngine, Zuc128, eea3_iv};

/// One ZUC-128 message for [`apply_keystream_many`]: `data` is XORed with the keystream
/// of `key` and `iv`.
#[derive(Debug)]
pub struct Zuc128Job<'a> {
    /// The 16-byte key.
    pub key: [u8; 16],
    /// The 16-byte IV.
    pub iv: [u8; 16],
    /// The message, encrypted or decrypted in place.
    pub data: &'a mut [u8],
}

/// One 128-EEA3 packet for [`eea3_many`], with the parameters of [`crate::eea3()`].
#[derive(Debug)]
pub struct Eea3Packet<'a> {
    /// The confidentiality key CK.
    pub ck: [u8; 16],
    /// COUNT.
    pub count: u32,
    /// BEARER (5 bits).
    pub bearer: u8,
    /// DIRECTION (1 bit).
    pub direction: u8,
    /// The message, `bit_len` bits rounded up to bytes, encrypted or decrypted in place.
    pub data: &'a mut [u8],
    /// The message length in bits.
    pub bit_len: usize,
}

/// One many-stream backend's code (a zero-sized token that proves the backend runs here).
pub(crate) trait ManyKernel: Copy {
    /// XORs every job's data with its ZUC-128 keystream.
    fn xor_keystreams(self, jobs: &mut [Zuc128Job<'_>]);
}

/// The portable kernel: each job on its own single-stream generator.
#[derive(Clone, Copy)]
pub(crate) struct OneByOne;

impl ManyKernel for OneByOne {
    #[inline]
    fn xor_keystreams(self, jobs: &mut [Zuc128Job<'_>]) {
        for job in jobs {
            Zuc128::new(&job.key.into(), &job.iv.into()).apply_keystream(job.data);
        }
    }
}

// `Call` and `run`: the one match from an `Available` many-stream backend to its kernel.
shangmi_dispatch::kernel_dispatch! {
    kernel ManyKernel, portable OneByOne, family ManyEngine;
    #[cfg(target_arch = "x86_64")]
    x86_many::{Avx512x8, Avx2x8},
}

/// [`ManyKernel::xor_keystreams`].
struct XorKeystreams<'a, 'b>(&'a mut [Zuc128Job<'b>]);
impl Call for XorKeystreams<'_, '_> {
    type Output = ();
    #[inline(always)]
    fn call<K: ManyKernel>(self, k: K) {
        k.xor_keystreams(self.0);
    }
}

/// XORs every job's data with its ZUC-128 keystream, eight at a time where the CPU allows.
///
/// ```
/// use shangmi_zuc::{Zuc128Job, apply_keystream_many};
/// let (mut a, mut b) = ([0u8; 40], [0u8; 7]);
/// let mut jobs = [
///     Zuc128Job { key: [1; 16], iv: [2; 16], data: &mut a },
///     Zuc128Job { key: [3; 16], iv: [4; 16], data: &mut b },
/// ];
/// apply_keystream_many(&mut jobs);
/// ```
pub fn apply_keystream_many(jobs: &mut [Zuc128Job<'_>]) {
    run(Available::best(), XorKeystreams(jobs));
}

/// [`apply_keystream_many`] on a chosen backend (for tests and benchmarks); a backend that
/// cannot run here runs one by one.
pub fn apply_keystream_many_on(jobs: &mut [Zuc128Job<'_>], engine: ManyEngine) {
    run(usable(engine), XorKeystreams(jobs));
}

/// 128-EEA3 on every packet (see [`crate::eea3()`]), eight at a time where the CPU allows.
/// Every packet's parameters and length are checked before any data is touched.
pub fn eea3_many(packets: &mut [Eea3Packet<'_>]) -> Result<(), Error> {
    eea3_many_with(packets, Available::best())
}

/// [`eea3_many`] on a chosen backend; a backend that cannot run here runs one by one.
pub fn eea3_many_on(packets: &mut [Eea3Packet<'_>], engine: ManyEngine) -> Result<(), Error> {
    eea3_many_with(packets, usable(engine))
}

/// [`eea3_many`] on `engine`.
fn eea3_many_with(
    packets: &mut [Eea3Packet<'_>],
    engine: Available<ManyEngine>,
) -> Result<(), Error> {
    for p in packets.iter() {
        eea3_iv(p.count, p.bearer, p.direction)?;
        if p.data.len() != p.bit_len.div_ceil(8) {
            return Err(Error::BitLength);
        }
    }
    for chunk in packets.chunks_mut(8) {
        let mut jobs: [Zuc128Job<'_>; 8] = core::array::from_fn(|_| Zuc128Job {
            key: [0; 16],
            iv: [0; 16],
            data: &mut [],
        });
        let n = chunk.len();
        let mut bits = [0usize; 8];
        for ((job, p), b) in jobs.iter_mut().zip(chunk.iter_mut()).zip(bits.iter_mut()) {
            job.key = p.ck;
            job.iv = eea3_iv(p.count, p.bearer, p.direction)?;
            job.data = &mut *p.data;
            *b = p.bit_len;
        }
        run(engine, XorKeystreams(&mut jobs[..n]));
        for (job, b) in jobs.iter_mut().zip(bits).take(n) {
            let rem = b % 8;
            if rem != 0
                && let Some(last) = job.data.last_mut()
            {
                *last &= 0xffu8 << (8 - rem);
            }
        }
    }
    Ok(())
}

/// `engine` if it can run here, else one by one.
fn usable(engine: ManyEngine) -> Available<ManyEngine> {
    Available::check(engine).unwrap_or_else(Available::portable)
}
