//! The SM4 authenticated stream format that `shangmi sm4 encrypt --mode gcm|ccm` writes,
//! as a library: the STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár, "Online
//! Authenticated-Encryption and its Nonce-Reuse Misuse-Resistance", CRYPTO 2015), laid out
//! as age and Tink's streaming AEAD do.
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
//!
//! [`StreamSealer`] and [`StreamOpener`] work chunk by chunk in place (no allocation, for
//! pipelines that read, seal and write in parallel); [`encrypt`] and [`decrypt`] (feature
//! `alloc`) take and give whole byte strings.
//!
//! ```
//! use shangmi_sm4_modes::stream::{self, StreamAead, StreamHeader};
//!
//! let key = [7u8; 16];
//! // 23 fresh random bytes: the salt and the nonce prefix
//! let header = StreamHeader::new(StreamAead::Gcm, [0x42; 23]);
//! let sealed = stream::encrypt(&key, header, b"a message of any length")?;
//! assert_eq!(stream::decrypt(&key, &sealed)?, b"a message of any length");
//! # Ok::<(), stream::StreamError>(())
//! ```

use crate::{Sm4Ccm, Sm4Gcm};
use aead::consts::{U12, U16};
use aead::{AeadCore, AeadInOut, KeyInit, Tag};
use core::fmt;
use hkdf::Hkdf;
use shangmi_sm3::Sm3;
use zeroize::Zeroizing;

/// The first seven bytes of every stream.
pub const MAGIC: &[u8; 7] = b"SM4STRM";
/// The format version this code writes and reads.
pub const VERSION: u8 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 33;
/// Tag length in bytes (after every chunk).
pub const TAG_LEN: usize = 16;
/// log2 of the chunk size written (64 KiB, as age).
pub const CHUNK_LOG2: u8 = 16;
/// log2 chunk sizes accepted when reading (1 KiB to 1 MiB).
pub const CHUNK_LOG2_RANGE: core::ops::RangeInclusive<u8> = 10..=20;
/// HKDF info string of the file key.
const INFO: &[u8] = b"shangmi sm4 stream v1";

/// The AEAD sealing the chunks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StreamAead {
    /// SM4-GCM (NIST SP 800-38D, GB/T 36624), 12-byte nonces, 16-byte tags.
    Gcm = 1,
    /// SM4-CCM (NIST SP 800-38C), 12-byte nonces, 16-byte tags.
    Ccm = 2,
}

/// Why a stream cannot be written or read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum StreamError {
    /// Shorter than the header, or the header does not start with `SM4STRM`.
    NotAStream,
    /// A format version this code does not read.
    Version(u8),
    /// An AEAD byte this code does not know.
    UnknownAead(u8),
    /// A chunk size of 2^n outside [`CHUNK_LOG2_RANGE`].
    ChunkSize(u8),
    /// No chunk follows the header.
    NoChunk,
    /// Chunk `n` has the wrong length for its place (a cut stream, or a last chunk that is
    /// only a tag after others).
    ChunkLength(u64),
    /// Chunk `n` does not verify: the stream was changed, truncated or reordered, or the
    /// key is wrong.
    Authentication(u64),
    /// More than 2^32 chunks, or a chunk after the last one.
    TooLong,
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::NotAStream => f.write_str("not an SM4 stream"),
            StreamError::Version(v) => write!(f, "SM4 stream format version {v} (read: {VERSION})"),
            StreamError::UnknownAead(a) => write!(f, "SM4 stream sealed with unknown AEAD {a}"),
            StreamError::ChunkSize(n) => write!(f, "chunk size 2^{n} is outside 2^10..2^20"),
            StreamError::NoChunk => f.write_str("truncated: no chunk follows the header"),
            StreamError::ChunkLength(n) => write!(f, "chunk {n} is too short"),
            StreamError::Authentication(n) => write!(f, "chunk {n} failed authentication"),
            StreamError::TooLong => f.write_str("longer than 2^32 chunks of the stream format"),
        }
    }
}

impl core::error::Error for StreamError {}

/// A stream's 33-byte header.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct StreamHeader {
    bytes: [u8; HEADER_LEN],
}

impl StreamHeader {
    /// A header for a new stream with 64 KiB chunks; `random` must be 23 fresh random
    /// bytes (16 of salt, 7 of nonce prefix).
    pub fn new(aead: StreamAead, random: [u8; 23]) -> StreamHeader {
        let mut bytes = [0u8; HEADER_LEN];
        bytes[..7].copy_from_slice(MAGIC);
        bytes[7] = VERSION;
        bytes[8] = aead as u8;
        bytes[9] = CHUNK_LOG2;
        bytes[10..].copy_from_slice(&random);
        StreamHeader { bytes }
    }

    /// Reads the header at the start of `data` (checked in this order: magic, version,
    /// AEAD, chunk size).
    pub fn parse(data: &[u8]) -> Result<StreamHeader, StreamError> {
        let bytes: [u8; HEADER_LEN] = data
            .get(..HEADER_LEN)
            .and_then(|h| h.try_into().ok())
            .ok_or(StreamError::NotAStream)?;
        if &bytes[..7] != MAGIC {
            return Err(StreamError::NotAStream);
        }
        if bytes[7] != VERSION {
            return Err(StreamError::Version(bytes[7]));
        }
        if !matches!(bytes[8], 1 | 2) {
            return Err(StreamError::UnknownAead(bytes[8]));
        }
        if !CHUNK_LOG2_RANGE.contains(&bytes[9]) {
            return Err(StreamError::ChunkSize(bytes[9]));
        }
        Ok(StreamHeader { bytes })
    }

    /// The AEAD the chunks are sealed with.
    pub fn aead(&self) -> StreamAead {
        if self.bytes[8] == StreamAead::Ccm as u8 {
            StreamAead::Ccm
        } else {
            StreamAead::Gcm
        }
    }

    /// Plaintext bytes per chunk (all but the last).
    pub fn chunk_size(&self) -> usize {
        1 << self.bytes[9]
    }

    /// The header's bytes, as they start the stream.
    pub fn as_bytes(&self) -> &[u8; HEADER_LEN] {
        &self.bytes
    }

    /// The nonce of chunk `counter`.
    fn nonce(&self, counter: u64, last: bool) -> Result<[u8; 12], StreamError> {
        let counter = u32::try_from(counter).map_err(|_| StreamError::TooLong)?;
        let mut nonce = [0u8; 12];
        nonce[..7].copy_from_slice(&self.bytes[26..33]);
        nonce[7..11].copy_from_slice(&counter.to_be_bytes());
        nonce[11] = u8::from(last);
        Ok(nonce)
    }
}

/// The chunk AEAD under the file key (one per stream, held inline: `no_std` has no box).
#[allow(clippy::large_enum_variant)]
enum Cipher {
    Gcm(Sm4Gcm),
    Ccm(Sm4Ccm),
}

/// The position in a stream, shared by both directions.
struct Chunks {
    header: StreamHeader,
    cipher: Cipher,
    counter: u64,
    done: bool,
}

impl Chunks {
    fn new(key: &[u8; 16], header: StreamHeader) -> Chunks {
        // HKDF-SM3 of the user's key with the header's salt; a 16-byte output is always
        // within HKDF's 255 blocks.
        let mut okm = Zeroizing::new([0u8; 16]);
        let _ = Hkdf::<Sm3>::new(Some(&header.bytes[10..26]), key).expand(INFO, &mut *okm);
        let file_key = (&*okm).into();
        let cipher = match header.aead() {
            StreamAead::Gcm => Cipher::Gcm(Sm4Gcm::new(file_key)),
            StreamAead::Ccm => Cipher::Ccm(Sm4Ccm::new(file_key)),
        };
        Chunks {
            header,
            cipher,
            counter: 0,
            done: false,
        }
    }

    /// Checks a chunk of `len` plaintext bytes at the current place; its nonce.
    fn next(&mut self, len: usize, last: bool) -> Result<[u8; 12], StreamError> {
        if self.done {
            return Err(StreamError::TooLong);
        }
        let chunk = self.header.chunk_size();
        let fits = if last {
            len <= chunk && (len > 0 || self.counter == 0)
        } else {
            len == chunk
        };
        if !fits {
            return Err(StreamError::ChunkLength(self.counter));
        }
        let nonce = self.header.nonce(self.counter, last)?;
        self.counter += 1;
        self.done = last;
        Ok(nonce)
    }
}

fn seal_with<A>(a: &A, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG_LEN]>
where
    A: AeadInOut + AeadCore<NonceSize = U12, TagSize = U16>,
{
    let tag = a
        .encrypt_inout_detached(&(*nonce).into(), aad, buf.into())
        .ok()?;
    Some(tag.into())
}

fn open_with<A>(a: &A, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool
where
    A: AeadInOut + AeadCore<NonceSize = U12, TagSize = U16>,
{
    let tag = Tag::<A>::from(*tag);
    a.decrypt_inout_detached(&(*nonce).into(), aad, buf.into(), &tag)
        .is_ok()
}

/// Writes a stream chunk by chunk: the header first, then each chunk's ciphertext (in
/// place) followed by its tag.
pub struct StreamSealer(Chunks);

impl StreamSealer {
    /// A sealer under the user's `key` for the stream that `header` starts.
    pub fn new(key: &[u8; 16], header: StreamHeader) -> StreamSealer {
        StreamSealer(Chunks::new(key, header))
    }

    /// The header, to write before the first chunk.
    pub fn header(&self) -> &StreamHeader {
        &self.0.header
    }

    /// Encrypts the next chunk in place and returns its tag. Every chunk but the `last`
    /// holds exactly [`StreamHeader::chunk_size`] bytes; the last 1 to that many (0 only
    /// when it is the only one).
    pub fn seal_chunk(
        &mut self,
        chunk: &mut [u8],
        last: bool,
    ) -> Result<[u8; TAG_LEN], StreamError> {
        let counter = self.0.counter;
        let nonce = self.0.next(chunk.len(), last)?;
        let aad = &self.0.header.bytes;
        // Chunks are at most 1 MiB, far below both modes' message limits.
        match &self.0.cipher {
            Cipher::Gcm(a) => seal_with(a, &nonce, aad, chunk),
            Cipher::Ccm(a) => seal_with(a, &nonce, aad, chunk),
        }
        .ok_or(StreamError::ChunkLength(counter))
    }
}

/// Reads a stream chunk by chunk after its header; fails on the first chunk that does not
/// verify.
pub struct StreamOpener(Chunks);

impl StreamOpener {
    /// An opener under the user's `key` for the stream `header` starts.
    pub fn new(key: &[u8; 16], header: StreamHeader) -> StreamOpener {
        StreamOpener(Chunks::new(key, header))
    }

    /// Sealed bytes per chunk (all but the last): the chunk size and the tag.
    pub fn sealed_chunk_size(&self) -> usize {
        self.0.header.chunk_size() + TAG_LEN
    }

    /// Verifies and decrypts the next sealed chunk (ciphertext and tag) in place; the
    /// plaintext is the first `len` bytes, `len` returned. `last` says whether the stream
    /// ends with it.
    pub fn open_chunk(&mut self, sealed: &mut [u8], last: bool) -> Result<usize, StreamError> {
        let len = sealed
            .len()
            .checked_sub(TAG_LEN)
            .ok_or(StreamError::ChunkLength(self.0.counter))?;
        let counter = self.0.counter;
        let nonce = self.0.next(len, last)?;
        let (text, tag) = sealed.split_at_mut(len);
        let tag: &[u8; TAG_LEN] = (&*tag)
            .try_into()
            .map_err(|_| StreamError::ChunkLength(counter))?;
        let aad = &self.0.header.bytes;
        let ok = match &self.0.cipher {
            Cipher::Gcm(a) => open_with(a, &nonce, aad, text, tag),
            Cipher::Ccm(a) => open_with(a, &nonce, aad, text, tag),
        };
        if ok {
            Ok(len)
        } else {
            Err(StreamError::Authentication(counter))
        }
    }
}

/// Encrypts `plaintext` into a whole stream under `header` (from [`StreamHeader::new`]
/// with fresh random bytes).
#[cfg(feature = "alloc")]
pub fn encrypt(
    key: &[u8; 16],
    header: StreamHeader,
    plaintext: &[u8],
) -> Result<alloc::vec::Vec<u8>, StreamError> {
    let chunk = header.chunk_size();
    let mut out = alloc::vec::Vec::with_capacity(
        HEADER_LEN + plaintext.len() + (plaintext.len() / chunk + 1) * TAG_LEN,
    );
    out.extend_from_slice(header.as_bytes());
    let mut sealer = StreamSealer::new(key, header);
    let mut pieces = plaintext.chunks(chunk).peekable();
    if pieces.peek().is_none() {
        let tag = sealer.seal_chunk(&mut [], true)?;
        out.extend_from_slice(&tag);
    }
    while let Some(plain) = pieces.next() {
        let start = out.len();
        out.extend_from_slice(plain);
        let tag = sealer.seal_chunk(&mut out[start..], pieces.peek().is_none())?;
        out.extend_from_slice(&tag);
    }
    Ok(out)
}

/// Decrypts a whole stream (either AEAD, as its header says).
#[cfg(feature = "alloc")]
pub fn decrypt(key: &[u8; 16], stream: &[u8]) -> Result<alloc::vec::Vec<u8>, StreamError> {
    let header = StreamHeader::parse(stream)?;
    let mut body = alloc::vec::Vec::from(&stream[HEADER_LEN..]);
    if body.is_empty() {
        return Err(StreamError::NoChunk);
    }
    let mut opener = StreamOpener::new(key, header);
    let sealed = opener.sealed_chunk_size();
    let chunks = body.len().div_ceil(sealed);
    let mut plain_end = 0;
    for j in 0..chunks {
        let start = j * sealed;
        let end = body.len().min(start + sealed);
        let len = opener.open_chunk(&mut body[start..end], j + 1 == chunks)?;
        body.copy_within(start..start + len, plain_end);
        plain_end += len;
    }
    body.truncate(plain_end);
    Ok(body)
}
