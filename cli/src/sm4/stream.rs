//! The authenticated stream format of `shangmi sm4 --mode gcm|ccm`
//! ([`shangmi_sm4_modes::stream`], which documents the layout): this module feeds it files
//! through the read/transform/write pipeline and words its refusals for the command line.

use shangmi_sm4_modes::stream::{
    HEADER_LEN, StreamAead, StreamError, StreamHeader, StreamOpener, StreamSealer, TAG_LEN,
};

use crate::Failure;
use crate::files::{Input, Output, io_failure, pipeline, read_full};
use crate::progress::Progress;

/// Plaintext bytes per pipeline buffer (whole chunks).
const BUFFER: usize = 1 << 20;

/// The `--mode` that names `aead`.
fn mode(aead: StreamAead) -> &'static str {
    match aead {
        StreamAead::Gcm => "--mode gcm",
        StreamAead::Ccm => "--mode ccm",
    }
}

/// Encrypts `input` into the stream format.
pub fn encrypt(
    aead: StreamAead,
    key: &[u8; 16],
    input: Input,
    output: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let mut random = [0u8; 23];
    // In module mode the health-tested DRBG's, else the system's.
    crate::selftest::fill_random(&mut random)?;
    let header = StreamHeader::new(aead, random);
    output.write_all(header.as_bytes())?;
    let mut sealer = StreamSealer::new(key, header);
    let chunk = header.chunk_size();
    pipeline(
        input,
        output,
        BUFFER.max(chunk),
        progress,
        |data, last, out| {
            let chunks = data.len().div_ceil(chunk).max(1);
            out.reserve(data.len() + chunks * TAG_LEN);
            for j in 0..chunks {
                let plain = &data[(j * chunk).min(data.len())..((j + 1) * chunk).min(data.len())];
                let start = out.len();
                out.extend_from_slice(plain);
                let tag = sealer
                    .seal_chunk(&mut out[start..], last && j + 1 == chunks)
                    .map_err(|e| Failure::new(format!("the input: {e}")))?;
                out.extend_from_slice(&tag);
            }
            Ok(())
        },
    )
}

/// Decrypts the stream format that `--mode` says is sealed with `aead`; fails on the first
/// chunk that does not verify.
pub fn decrypt(
    aead: StreamAead,
    key: &[u8; 16],
    mut input: Input,
    output: &mut Output,
    progress: &Progress,
) -> Result<(), Failure> {
    let name = input.name.clone();
    let mut bytes = [0u8; HEADER_LEN];
    let n = read_full(&mut input.reader, &mut bytes).map_err(|e| io_failure(&name, &e))?;
    let header = StreamHeader::parse(&bytes[..n]).map_err(|e| {
        Failure::new(match e {
            StreamError::NotAStream if n < HEADER_LEN => {
                format!("{name}: not an SM4 stream (shorter than its {HEADER_LEN}-byte header)")
            }
            StreamError::NotAStream => {
                format!("{name}: not an SM4 stream (the file does not start with \"SM4STRM\")")
            }
            StreamError::UnknownAead(_) => {
                format!(
                    "{name}: this stream was sealed with an unknown AEAD, not {}",
                    mode(aead)
                )
            }
            e => format!("{name}: {e}"),
        })
    })?;
    if header.aead() != aead {
        return Err(Failure::new(format!(
            "{name}: this stream was sealed with {}, not {}",
            mode(header.aead()),
            mode(aead)
        )));
    }
    let left = if output.is_stdout() {
        "verified chunks before it may already be on standard output"
    } else {
        "no output file was written"
    };
    let mut opener = StreamOpener::new(key, header);
    let sealed = opener.sealed_chunk_size();
    let buffer = (BUFFER / header.chunk_size()).max(1) * sealed;
    pipeline(input, output, buffer, progress, |data, last, out| {
        if data.is_empty() {
            return Err(Failure::new(format!("{name}: {}", StreamError::NoChunk)));
        }
        let chunks = data.len().div_ceil(sealed);
        let mut plain_end = 0;
        for j in 0..chunks {
            let start = j * sealed;
            let end = data.len().min(start + sealed);
            let len = opener
                .open_chunk(&mut data[start..end], last && j + 1 == chunks)
                .map_err(|e| {
                    Failure::new(format!(
                        "{name}: {e}: the file was changed, truncated or reordered, or the \
                         key is wrong; {left}"
                    ))
                })?;
            data.copy_within(start..start + len, plain_end);
            plain_end += len;
        }
        data.truncate(plain_end);
        std::mem::swap(data, out);
        Ok(())
    })
}
