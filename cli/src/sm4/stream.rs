//! The authenticated stream format of `shangmi sm4 --mode gcm|ccm`: the STREAM
//! construction (Hoang, Reyhanitabar, Rogaway, Vizár, "Online Authenticated-Encryption
//! and its Nonce-Reuse Misuse-Resistance", CRYPTO 2015), laid out as age and Tink's
//! streaming AEAD do.
//!
//! ```text
//! header  (33 bytes) = "SM4STRM" | 0x01 (version) | AEAD (0x01 SM4-GCM, 0x02 SM4-CCM)
//!                      | log2 of the chunk size (16: 64 KiB) | salt (16 random bytes)
//!                      | nonce prefix (7 random bytes)
//! file key (16 bytes) = HKDF-SM3(salt, key, "shangmi sm4 stream v1")      (RFC 5869)
//! chunk i            = AEAD(file key, nonce_i, AAD = header, plaintext_i) | tag (16)
//! nonce_i (12 bytes) = nonce prefix | i as 32-bit big-endian | 0x01 if last else 0x00
//! ```
//!
//! Every chunk holds exactly one chunk size of plaintext but the last, which holds 1 to
//! chunk-size bytes (0 only when the whole plaintext is empty). Because the last chunk
//! alone is sealed with the flag, a stream cut at a chunk boundary fails (its new last
//! chunk was sealed as not last), as does appending, dropping or reordering chunks
//! (nonces carry the position) or changing the header (it is every chunk's AAD). A fresh
//! salt gives each file its own key, so nonces never repeat under a key even when the
//! same key encrypts many files.

use hkdf::Hkdf;
use shangmi_sm3::Sm3;
use shangmi_sm4_modes::aead::consts::{U12, U16};
use shangmi_sm4_modes::aead::{AeadCore, AeadInOut, KeyInit, Tag};
use shangmi_sm4_modes::{Sm4Ccm, Sm4Gcm};

use crate::Failure;
use crate::files::{Input, Output, io_failure, pipeline, read_full};
use crate::progress::Progress;

/// The first seven bytes of every stream.
const MAGIC: &[u8; 7] = b"SM4STRM";
/// The format version this code writes and reads.
const VERSION: u8 = 1;
/// Header length in bytes.
const HEADER: usize = 33;
/// log2 of the chunk size this code writes (64 KiB, as age).
const CHUNK_LOG2: u8 = 16;
/// log2 chunk sizes accepted when reading (1 KiB to 1 MiB).
const CHUNK_LOG2_RANGE: std::ops::RangeInclusive<u8> = 10..=20;
/// Plaintext bytes per pipeline buffer (whole chunks).
const BUFFER: usize = 1 << 20;
/// Tag length in bytes.
const TAG: usize = 16;
/// HKDF info string of the file key.
const INFO: &[u8] = b"shangmi sm4 stream v1";

/// The AEAD sealing the chunks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Aead {
    /// SM4-GCM (NIST SP 800-38D, GB/T 36624), 12-byte nonces, 16-byte tags.
    Gcm = 1,
    /// SM4-CCM (NIST SP 800-38C), 12-byte nonces, 16-byte tags.
    Ccm = 2,
}

impl Aead {
    fn name(self) -> &'static str {
        match self {
            Aead::Gcm => "gcm",
            Aead::Ccm => "ccm",
        }
    }
}

/// The parsed header.
struct Header {
    bytes: [u8; HEADER],
}

impl Header {
    fn new(aead: Aead) -> Result<Header, Failure> {
        let mut bytes = [0u8; HEADER];
        bytes[..7].copy_from_slice(MAGIC);
        bytes[7] = VERSION;
        bytes[8] = aead as u8;
        bytes[9] = CHUNK_LOG2;
        crate::selftest::fill_random(&mut bytes[10..])?;
        Ok(Header { bytes })
    }

    /// Checks a header read from `name` that `--mode` says is sealed with `aead`.
    fn parse(bytes: [u8; HEADER], aead: Aead, name: &str) -> Result<Header, Failure> {
        if &bytes[..7] != MAGIC {
            return Err(Failure::new(format!(
                "{name}: not an SM4 stream (the file does not start with \"SM4STRM\")"
            )));
        }
        if bytes[7] != VERSION {
            return Err(Failure::new(format!(
                "{name}: stream format version {} (this program reads version {VERSION})",
                bytes[7]
            )));
        }
        if bytes[8] != aead as u8 {
            let sealed = match bytes[8] {
                1 => "--mode gcm",
                2 => "--mode ccm",
                _ => "an unknown AEAD",
            };
            return Err(Failure::new(format!(
                "{name}: this stream was sealed with {sealed}, not --mode {}",
                aead.name()
            )));
        }
        if !CHUNK_LOG2_RANGE.contains(&bytes[9]) {
            return Err(Failure::new(format!(
                "{name}: chunk size 2^{} is outside 2^10..2^20",
                bytes[9]
            )));
        }
        Ok(Header { bytes })
    }

    fn chunk(&self) -> usize {
        1 << self.bytes[9]
    }

    /// The file key: HKDF-SM3 of the user's key with the header's salt.
    fn file_key(&self, key: &[u8; 16]) -> Result<[u8; 16], Failure> {
        let mut okm = [0u8; 16];
        Hkdf::<Sm3>::new(Some(&self.bytes[10..26]), key)
            .expand(INFO, &mut okm)
            .map_err(|_| Failure::new("HKDF-SM3 refused a 16-byte output"))?;
        Ok(okm)
    }

    /// The nonce of chunk `counter`.
    fn nonce(&self, counter: u32, last: bool) -> [u8; 12] {
        let mut nonce = [0u8; 12];
        nonce[..7].copy_from_slice(&self.bytes[26..33]);
        nonce[7..11].copy_from_slice(&counter.to_be_bytes());
        nonce[11] = u8::from(last);
        nonce
    }
}

/// Encrypts `input` into the stream format.
pub fn encrypt(
    aead: Aead,
    key: &[u8; 16],
    input: Input,
    output: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let header = Header::new(aead)?;
    output.write_all(&header.bytes)?;
    let file_key = header.file_key(key)?.into();
    match aead {
        Aead::Gcm => seal(&Sm4Gcm::new(&file_key), &header, input, output, progress),
        Aead::Ccm => seal(&Sm4Ccm::new(&file_key), &header, input, output, progress),
    }
}

/// Decrypts the stream format; fails on the first chunk that does not verify.
pub fn decrypt(
    aead: Aead,
    key: &[u8; 16],
    mut input: Input,
    output: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let mut bytes = [0u8; HEADER];
    let n = read_full(&mut input.reader, &mut bytes).map_err(|e| io_failure(&input.name, &e))?;
    if n < HEADER {
        return Err(Failure::new(format!(
            "{}: not an SM4 stream (shorter than its {HEADER}-byte header)",
            input.name
        )));
    }
    let header = Header::parse(bytes, aead, &input.name)?;
    let file_key = header.file_key(key)?.into();
    match aead {
        Aead::Gcm => open(&Sm4Gcm::new(&file_key), &header, input, output, progress),
        Aead::Ccm => open(&Sm4Ccm::new(&file_key), &header, input, output, progress),
    }
}

/// The chunk counter as a nonce field, or the error for a stream too long for it.
fn counter32(counter: u64) -> Result<u32, Failure> {
    u32::try_from(counter)
        .map_err(|_| Failure::new("the input is longer than 2^32 chunks of the stream format"))
}

fn seal<A>(
    cipher: &A,
    header: &Header,
    input: Input,
    output: &mut Output,
    progress: &Progress,
) -> Result<(), Failure>
where
    A: AeadInOut + AeadCore<NonceSize = U12, TagSize = U16>,
{
    let chunk = header.chunk();
    let mut counter = 0u64;
    pipeline(
        input,
        output,
        BUFFER.max(chunk),
        progress,
        |data, last, out| {
            let chunks = data.len().div_ceil(chunk).max(1);
            out.reserve(data.len() + chunks * TAG);
            for j in 0..chunks {
                let plain = &data[(j * chunk).min(data.len())..((j + 1) * chunk).min(data.len())];
                let nonce = header.nonce(counter32(counter)?, last && j + 1 == chunks);
                let start = out.len();
                out.extend_from_slice(plain);
                let tag = cipher
                    .encrypt_inout_detached(
                        &nonce.into(),
                        &header.bytes,
                        (&mut out[start..]).into(),
                    )
                    .map_err(|_| Failure::new("SM4 sealing failed (chunk too long)"))?;
                out.extend_from_slice(&tag);
                counter += 1;
            }
            Ok(())
        },
    )
}

fn open<A>(
    cipher: &A,
    header: &Header,
    input: Input,
    output: &mut Output,
    progress: &Progress,
) -> Result<(), Failure>
where
    A: AeadInOut + AeadCore<NonceSize = U12, TagSize = U16>,
{
    let name = input.name.clone();
    let left = if output.is_stdout() {
        "verified chunks before it may already be on standard output"
    } else {
        "no output file was written"
    };
    let sealed = header.chunk() + TAG;
    let mut counter = 0u64;
    let buffer = (BUFFER / header.chunk()).max(1) * sealed;
    pipeline(input, output, buffer, progress, |data, last, out| {
        if data.is_empty() {
            return Err(Failure::new(format!(
                "{name}: truncated: no chunk follows the header"
            )));
        }
        let chunks = data.len().div_ceil(sealed);
        let mut plain_end = 0;
        for j in 0..chunks {
            let start = j * sealed;
            let end = data.len().min(start + sealed);
            let is_last = last && j + 1 == chunks;
            let bad = |what: &str| {
                Failure::new(format!(
                    "{name}: chunk {counter} {what}: the file was changed, truncated or \
                     reordered, or the key is wrong; {left}"
                ))
            };
            if end - start < TAG || (is_last && end - start == TAG && counter > 0) {
                return Err(bad("is too short"));
            }
            let (text, tag) = data[start..end].split_at_mut(end - start - TAG);
            let tag = Tag::<A>::try_from(&*tag).map_err(|_| bad("has no tag"))?;
            let nonce = header.nonce(counter32(counter)?, is_last);
            cipher
                .decrypt_inout_detached(&nonce.into(), &header.bytes, text.into(), &tag)
                .map_err(|_| bad("failed authentication"))?;
            let len = text.len();
            data.copy_within(start..start + len, plain_end);
            plain_end += len;
            counter += 1;
        }
        data.truncate(plain_end);
        std::mem::swap(data, out);
        Ok(())
    })
}
