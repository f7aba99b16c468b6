//! Many ZUC-128 keystreams at once, for a sender with many bearers: [`apply_keystream_many`]
//! and [`eea3_many`] run up to eight generators side by side in the 32-bit lanes of AVX2
//! registers (the LFSR, the bit reorganisation and F as lane-wise vector operations, the
//! S-boxes as on the AES-NI engine: `pshufb` nibble maps around `aesenclast`), so eight
//! messages cost little more than one. Elsewhere, or for a single message, each job runs
//! on the single-stream engine [`Backend::detect`](crate::Backend::detect) picks. Lengths
//! may differ: a short lane's surplus keystream is dropped.

use core::fmt;

use cipher::{KeyIvInit, StreamCipher};

use crate::{Error, Zuc128, eea3_iv};

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

/// One 128-EEA3 packet for [`eea3_many`], with the parameters of [`crate::eea3`].
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

/// How [`apply_keystream_many_on`] and [`eea3_many_on`] run their jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ManyEngine {
    /// Each job on its own single-stream generator (any target).
    OneByOne,
    /// Eight generators in the lanes of AVX2 registers, S-boxes through AES-NI (x86-64
    /// with AVX2, AES-NI, SSSE3, SSE4.1 and PCLMULQDQ).
    Avx2x8,
}

#[cfg(all(target_arch = "x86_64", not(shangmi_backend = "soft")))]
cpufeatures::new!(avx2_aes, "avx2", "aes", "ssse3", "sse4.1", "pclmulqdq");

impl ManyEngine {
    /// Every engine, fastest first.
    pub const ALL: [ManyEngine; 2] = [ManyEngine::Avx2x8, ManyEngine::OneByOne];

    /// True if this engine can run on this CPU (and is not disabled by
    /// `--cfg shangmi_backend="soft"`).
    pub fn is_available(self) -> bool {
        match self {
            ManyEngine::OneByOne => true,
            ManyEngine::Avx2x8 => {
                #[cfg(all(target_arch = "x86_64", not(shangmi_backend = "soft")))]
                {
                    avx2_aes::get()
                }
                #[cfg(not(all(target_arch = "x86_64", not(shangmi_backend = "soft"))))]
                {
                    false
                }
            }
        }
    }

    /// The engines that can run here, fastest first.
    pub fn available() -> impl Iterator<Item = ManyEngine> {
        Self::ALL.into_iter().filter(|e| e.is_available())
    }

    /// The fastest engine that can run here.
    pub fn detect() -> ManyEngine {
        Self::available().next().unwrap_or(ManyEngine::OneByOne)
    }
}

impl fmt::Display for ManyEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ManyEngine::OneByOne => "one-by-one",
            ManyEngine::Avx2x8 => "avx2-x8",
        })
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
    run(jobs, ManyEngine::detect());
}

/// [`apply_keystream_many`] on a chosen engine (for tests and benchmarks); an engine that
/// cannot run here runs one by one.
pub fn apply_keystream_many_on(jobs: &mut [Zuc128Job<'_>], engine: ManyEngine) {
    run(jobs, usable(engine));
}

/// 128-EEA3 on every packet (see [`crate::eea3`]), eight at a time where the CPU allows.
/// Every packet's parameters and length are checked before any data is touched.
pub fn eea3_many(packets: &mut [Eea3Packet<'_>]) -> Result<(), Error> {
    eea3_many_on(packets, ManyEngine::detect())
}

/// [`eea3_many`] on a chosen engine; an engine that cannot run here runs one by one.
pub fn eea3_many_on(packets: &mut [Eea3Packet<'_>], engine: ManyEngine) -> Result<(), Error> {
    for p in packets.iter() {
        eea3_iv(p.count, p.bearer, p.direction)?;
        if p.data.len() != p.bit_len.div_ceil(8) {
            return Err(Error::BitLength);
        }
    }
    let engine = usable(engine);
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
        run(&mut jobs[..n], engine);
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
fn usable(engine: ManyEngine) -> ManyEngine {
    if engine.is_available() {
        engine
    } else {
        ManyEngine::OneByOne
    }
}

/// Runs `jobs` on `engine`, which must be available.
fn run(jobs: &mut [Zuc128Job<'_>], engine: ManyEngine) {
    for chunk in jobs.chunks_mut(8) {
        match engine {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: every caller passes an engine that `is_available` accepted (through
            // `detect` or `usable`), so the CPU has every feature the kernel is compiled with.
            ManyEngine::Avx2x8 if chunk.len() > 1 => unsafe { crate::x86_many::xor_x8(chunk) },
            _ => {
                for job in chunk {
                    Zuc128::new(&job.key.into(), &job.iv.into()).apply_keystream(job.data);
                }
            }
        }
    }
}
