//! `shangmi sm4 encrypt|decrypt`: files and streams with SM4 (GB/T 32907).
//!
//! CBC (PKCS#7 padding) and CTR produce the bytes of `openssl enc -sm4-cbc|-sm4-ctr -K
//! KEY -iv IV`; XTS encrypts data units (sectors) in place of each other; GCM and CCM
//! write the authenticated stream format of [`stream`].

mod plain;
mod stream;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use shangmi_sm4_modes::stream::StreamAead;
use zeroize::Zeroizing;

use crate::Failure;
use crate::files::{Input, Io, Output, read_path};
use crate::hexstr;
use crate::progress::Progress;

/// `shangmi sm4`.
pub type Args = crate::Group<Op>;

/// The subcommands of `shangmi sm4`.
#[derive(Subcommand)]
pub enum Op {
    /// Encrypt a file or standard input.
    Encrypt(Options),
    /// Decrypt a file or standard input (authenticated modes fail on any change).
    Decrypt(Options),
}

/// The options of both directions.
#[derive(clap::Args)]
#[command(after_help = "\
Modes:
  cbc  PKCS#7 padding; the bytes of `openssl enc -sm4-cbc -K KEY -iv IV`
  ctr  128-bit big-endian counter from IV; the bytes of `openssl enc -sm4-ctr -K KEY -iv IV`
  xts  data units of --sector-size bytes, tweak IV for the first unit and IV+1, IV+2, ...
       (little-endian) for the next ones; a 32-byte key; the last unit needs >= 16 bytes
  gcm  authenticated stream: 64 KiB chunks, each sealed with SM4-GCM under a per-file key
       and a nonce from a per-file random prefix, the chunk number and a last-chunk flag;
       truncation, reordering and any change are detected (see the README's format)
  ccm  the same stream format with SM4-CCM

Decrypting gcm/ccm into --out FILE writes a temporary file and renames it only once
every chunk has verified: a tampered file leaves no plaintext behind. On standard output
verified chunks are written as they come and the exit status is 1 on failure.

Examples:
  shangmi sm4 encrypt --mode gcm --key-file k.hex --in disk.img --out disk.img.sm4
  shangmi sm4 decrypt --mode cbc --key 0123456789abcdeffedcba9876543210 \\
      --iv 000102030405060708090a0b0c0d0e0f < data.enc > data")]
pub struct Options {
    /// Mode of operation.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// The key in hexadecimal (16 bytes; 32 for xts). Visible to other users in the
    /// process list: prefer --key-file.
    #[arg(long, value_name = "HEX", required_unless_present = "key_file")]
    pub key: Option<String>,
    /// A file holding the key, in hexadecimal or as raw bytes.
    #[arg(long, value_name = "FILE", conflicts_with = "key")]
    pub key_file: Option<PathBuf>,
    /// Initialisation vector / first tweak in hexadecimal (16 bytes; cbc, ctr, xts).
    #[arg(long, value_name = "HEX")]
    pub iv: Option<String>,
    #[command(flatten)]
    pub io: Io,
    /// XTS tweak arithmetic: GB/T 17964-2021 (OpenSSL's and GmSSL's default) or IEEE
    /// 1619 (Linux's xts(sm4)).
    #[arg(long, value_enum, default_value_t = XtsStandard::Gb)]
    pub xts: XtsStandard,
    /// XTS data unit size in bytes (a multiple of 16).
    #[arg(long, value_name = "BYTES", default_value_t = 4096)]
    pub sector_size: usize,
}

/// Modes of `shangmi sm4`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// CBC with PKCS#7 padding.
    Cbc,
    /// CTR, 128-bit counter.
    Ctr,
    /// The authenticated stream format with SM4-GCM.
    Gcm,
    /// The authenticated stream format with SM4-CCM.
    Ccm,
    /// XTS by data units.
    Xts,
}

/// XTS flavours.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum XtsStandard {
    /// GB/T 17964-2021.
    Gb,
    /// IEEE Std 1619.
    Ieee,
}

/// Runs `shangmi sm4`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    let (options, encrypt) = match &args.op {
        Op::Encrypt(o) => (o, true),
        Op::Decrypt(o) => (o, false),
    };
    let key = load_key(options)?;
    let iv = match (&options.iv, options.mode) {
        (Some(_), Mode::Gcm | Mode::Ccm) => {
            return Err(Failure::usage(
                "--iv: the gcm and ccm stream formats make their own nonces",
            ));
        }
        (None, Mode::Gcm | Mode::Ccm) => None,
        (Some(iv), _) => Some(
            hexstr::decode_array::<16>(iv.trim().as_bytes())
                .ok_or_else(|| Failure::usage("--iv: not 32 hexadecimal digits (16 bytes)"))?,
        ),
        (None, _) => return Err(Failure::usage("--iv is needed for cbc, ctr and xts")),
    };
    let input = Input::open(options.io.input.as_deref())?;
    let mut output = Output::create(options.io.out.as_deref())?;
    let progress = Progress::bytes(input.size, if encrypt { "encrypt" } else { "decrypt" });
    let flow = plain::Flow {
        input,
        output: &mut output,
        progress: &progress,
    };
    match (options.mode, iv) {
        (Mode::Gcm | Mode::Ccm, _) => {
            let aead = if options.mode == Mode::Gcm {
                StreamAead::Gcm
            } else {
                StreamAead::Ccm
            };
            let key = key16(&key)?;
            if encrypt {
                stream::encrypt(aead, &key, flow.input, flow.output, flow.progress)?;
            } else {
                stream::decrypt(aead, &key, flow.input, flow.output, flow.progress)?;
            }
        }
        (Mode::Cbc, Some(iv)) => plain::cbc(&key16(&key)?, &iv, encrypt, flow)?,
        (Mode::Ctr, Some(iv)) => plain::ctr(&key16(&key)?, &iv, flow)?,
        (Mode::Xts, Some(iv)) => {
            let key: [u8; 32] = key.as_slice().try_into().map_err(|_| {
                Failure::usage(format!(
                    "xts needs a 32-byte key (64 hex digits), not {} bytes",
                    key.len()
                ))
            })?;
            let unit = options.sector_size;
            if unit < 16 || !unit.is_multiple_of(16) || unit > 1 << 24 {
                return Err(Failure::usage(
                    "--sector-size: a multiple of 16 from 16 to 16 MiB",
                ));
            }
            let gb = options.xts == XtsStandard::Gb;
            plain::xts(&key, &iv, gb, unit, encrypt, flow)?;
        }
        (_, None) => return Err(Failure::usage("--iv is needed for cbc, ctr and xts")),
    }
    drop(progress);
    output.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn key16(key: &[u8]) -> Result<[u8; 16], Failure> {
    key.try_into().map_err(|_| {
        Failure::usage(format!(
            "SM4 needs a 16-byte key (32 hex digits), not {} bytes",
            key.len()
        ))
    })
}

/// The key from --key or --key-file (hexadecimal text, or raw bytes of the right length).
fn load_key(options: &Options) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let want = if options.mode == Mode::Xts { 32 } else { 16 };
    if let Some(hex) = &options.key {
        return hexstr::decode(hex.trim().as_bytes())
            .map(Zeroizing::new)
            .ok_or_else(|| Failure::usage("--key: not hexadecimal"));
    }
    let path = options.key_file.as_deref().unwrap_or(Path::new("-"));
    let bytes = Zeroizing::new(read_path(path)?);
    let text = bytes.trim_ascii();
    if let Some(key) = hexstr::decode(text).filter(|k| k.len() == want) {
        return Ok(Zeroizing::new(key));
    }
    if bytes.len() == want {
        return Ok(bytes);
    }
    Err(Failure::new(format!(
        "{}: not a key: want {want} bytes, as {} hexadecimal digits or raw",
        path.display(),
        want * 2
    )))
}
