//! `sm2 encrypt` and `sm2 decrypt`: SM2 public-key encryption (GB/T 32918.4) of a whole
//! message, ASN.1 (GM/T 0009: x, y, C3, C2) by default as OpenSSL and GmSSL write it, or
//! the raw concatenations.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use shangmi_sm2::pke::{DecryptingKey, EncryptingKey, Layout as PkeLayout};

use super::KeyIn;
use super::keyfile::{load_public, load_secret};
use crate::Failure;
use crate::files::{Input, Output};

/// Order of the parts of a raw ciphertext.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Layout {
    /// C1 ‖ C3 ‖ C2 (GB/T 32918.4-2016).
    C1c3c2,
    /// C1 ‖ C2 ‖ C3 (the 2010 draft's order, older toolkits).
    C1c2c3,
}

/// Options of `sm2 encrypt`.
#[derive(clap::Args)]
#[command(after_help = "\
Example: shangmi sm2 encrypt --key pub.pem --in secret.txt --out secret.sm2
The default output is what `openssl pkeyutl -encrypt -pubin -inkey pub.pem` and \
`gmssl sm2encrypt -pubkey pub.pem` write. SM2 encryption is for short messages (keys); \
encrypt files with `shangmi sm4` under a key sent this way.")]
pub struct EncryptArgs {
    /// Public key (SPKI, PEM or DER) or a private key.
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
    /// The message (default: standard input; must not be empty).
    #[arg(long = "in", value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Where to write the ciphertext (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Raw ciphertext in this order instead of ASN.1 (implies --raw).
    #[arg(long, value_enum)]
    pub layout: Option<Layout>,
    /// Raw ciphertext (04 ‖ x ‖ y, then C3 and C2 in --layout order) instead of ASN.1.
    #[arg(long)]
    pub raw: bool,
    /// With --raw: C1 compressed (02/03 ‖ x), 32 bytes shorter.
    #[arg(long)]
    pub compressed: bool,
}

/// Options of `sm2 decrypt`.
#[derive(clap::Args)]
pub struct DecryptArgs {
    #[command(flatten)]
    pub key: KeyIn,
    /// The ciphertext (default: standard input).
    #[arg(long = "in", value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Where to write the message (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The ciphertext is raw in this order (implies --raw).
    #[arg(long, value_enum)]
    pub layout: Option<Layout>,
    /// The ciphertext is raw (C1 compressed or not) instead of ASN.1.
    #[arg(long)]
    pub raw: bool,
}

fn pke_layout(layout: Option<Layout>, compressed: bool) -> PkeLayout {
    match (layout.unwrap_or(Layout::C1c3c2), compressed) {
        (Layout::C1c3c2, false) => PkeLayout::C1C3C2,
        (Layout::C1c2c3, false) => PkeLayout::C1C2C3,
        (Layout::C1c3c2, true) => PkeLayout::C1C3C2Compressed,
        (Layout::C1c2c3, true) => PkeLayout::C1C2C3Compressed,
    }
}

/// `sm2 encrypt`.
pub fn encrypt(args: &EncryptArgs) -> Result<ExitCode, Failure> {
    let raw = args.raw || args.layout.is_some();
    if args.compressed && !raw {
        return Err(Failure::usage(
            "--compressed applies to --raw ciphertexts (ASN.1 holds x and y)",
        ));
    }
    let key = EncryptingKey::new(load_public(&args.key)?);
    let input = Input::open(args.input.as_deref())?;
    let name = input.name.clone();
    let message = input.read_all()?;
    let mut rng = getrandom::SysRng;
    let ciphertext = if raw {
        key.encrypt(&mut rng, &message, pke_layout(args.layout, args.compressed))
    } else {
        key.encrypt_der(&mut rng, &message)
    }
    .map_err(|e| Failure::new(format!("{name}: {e}")))?;
    let mut out = Output::create(args.out.as_deref())?;
    out.write_all(&ciphertext)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// `sm2 decrypt`.
pub fn decrypt(args: &DecryptArgs) -> Result<ExitCode, Failure> {
    let key = DecryptingKey::new(load_secret(&args.key)?);
    let input = Input::open(args.input.as_deref())?;
    let name = input.name.clone();
    let ciphertext = input.read_all()?;
    let message = if args.raw || args.layout.is_some() {
        key.decrypt(&ciphertext, pke_layout(args.layout, false))
    } else {
        key.decrypt_der(&ciphertext)
    }
    .map_err(|e| Failure::new(format!("{name}: {e}")))?;
    let mut out = Output::create(args.out.as_deref())?;
    out.write_all(&message)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
