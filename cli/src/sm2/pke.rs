//! `sm2 encrypt` and `sm2 decrypt`: SM2 public-key encryption (GB/T 32918.4) of a whole
//! message, ASN.1 (GM/T 0009: x, y, C3, C2) by default as OpenSSL and GmSSL write it, or
//! the raw concatenations.

use std::path::PathBuf;
use std::process::ExitCode;

use shangmi_sm2::pke::{DecryptingKey, EncryptingKey, Layout};

use super::KeyIn;
use super::keyfile::load_public;
use crate::Failure;
use crate::files::{Input, Io, Output};
use crate::keyuri::AnyKey;
use shangmi_sdf::KeyUsage;
use shangmi_sm2::PrivateKeyOps;
use zeroize::Zeroizing;

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
    #[command(flatten)]
    pub io: Io,
    #[command(flatten)]
    pub form: Form,
    /// With --raw: C1 compressed (02/03 ‖ x), 32 bytes shorter.
    #[arg(long)]
    pub compressed: bool,
}

/// Options of `sm2 decrypt`.
#[derive(clap::Args)]
pub struct DecryptArgs {
    #[command(flatten)]
    pub key: KeyIn,
    #[command(flatten)]
    pub io: Io,
    #[command(flatten)]
    pub form: Form,
}

/// The ciphertext's form (both directions).
#[derive(clap::Args)]
pub struct Form {
    /// Raw ciphertext in this layout instead of ASN.1 (implies --raw): c1c3c2 (GB/T
    /// 32918.4-2016), c1c2c3 (the 2010 draft's order, older toolkits), either with _raw
    /// (C1 without the 04 tag) or _compressed (C1 as 02/03 ‖ x); any case.
    #[arg(long, value_name = "LAYOUT", value_parser = |s: &str| s.parse::<Layout>())]
    pub layout: Option<Layout>,
    /// Raw ciphertext (04 ‖ x ‖ y ‖ C3 ‖ C2 by default; decryption also takes C1
    /// compressed) instead of ASN.1 (GM/T 0009).
    #[arg(long)]
    pub raw: bool,
}

impl Form {
    fn is_raw(&self) -> bool {
        self.raw || self.layout.is_some()
    }
}

/// The layout of `--layout` (C1C3C2 by default), with C1 compressed for `--compressed`.
fn pke_layout(layout: Option<Layout>, compressed: bool) -> Layout {
    match (layout.unwrap_or(Layout::C1C3C2), compressed) {
        (Layout::C1C3C2, true) => Layout::C1C3C2Compressed,
        (Layout::C1C2C3, true) => Layout::C1C2C3Compressed,
        (layout, _) => layout,
    }
}

/// `sm2 encrypt`.
pub fn encrypt(args: &EncryptArgs) -> Result<ExitCode, Failure> {
    let raw = args.form.is_raw();
    if args.compressed && !raw {
        return Err(Failure::usage(
            "--compressed applies to --raw ciphertexts (ASN.1 holds x and y)",
        ));
    }
    if args.compressed
        && matches!(
            args.form.layout,
            Some(Layout::C1C3C2Raw | Layout::C1C2C3Raw)
        )
    {
        return Err(Failure::usage(
            "--compressed and a _raw layout contradict each other",
        ));
    }
    let key = EncryptingKey::new(load_public(&args.key)?);
    let input = Input::open(args.io.input.as_deref())?;
    let name = input.name.clone();
    let message = input.read_all()?;
    let mut rng = crate::selftest::rng()?;
    let ciphertext = if raw {
        key.encrypt(
            &mut rng,
            &message,
            pke_layout(args.form.layout, args.compressed),
        )
    } else {
        key.encrypt_der(&mut rng, &message)
    }
    .map_err(|e| Failure::new(format!("{name}: {e}")))?;
    let mut out = Output::create(args.io.out.as_deref())?;
    out.write_all(&ciphertext)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// `sm2 decrypt`.
pub fn decrypt(args: &DecryptArgs) -> Result<ExitCode, Failure> {
    let key = args.key.open(Some(KeyUsage::Encrypt))?;
    let input = Input::open(args.io.input.as_deref())?;
    let name = input.name.clone();
    let ciphertext = input.read_all()?;
    let failed = |e: &dyn std::fmt::Display| Failure::new(format!("{name}: {e}"));
    let message = match key {
        AnyKey::Memory(secret) => {
            let key = DecryptingKey::new(secret);
            Zeroizing::new(
                if args.form.is_raw() {
                    key.decrypt(&ciphertext, pke_layout(args.form.layout, false))
                } else {
                    key.decrypt_der(&ciphertext)
                }
                .map_err(|e| failed(&e))?,
            )
        }
        // A device key (SDF, SKF, PKCS#11) takes C1 ‖ C3 ‖ C2.
        key => {
            let c1c3c2 = if args.form.is_raw() {
                shangmi_sm2::pke::convert(
                    &ciphertext,
                    pke_layout(args.form.layout, false),
                    Layout::C1C3C2,
                )
            } else {
                shangmi_sm2::pke::der_to_c1c3c2(&ciphertext)
            }
            .map_err(|e| failed(&e))?;
            Zeroizing::new(key.decrypt(&c1c3c2).map_err(|e| failed(&e))?)
        }
    };
    let mut out = Output::create(args.io.out.as_deref())?;
    out.write_all(&message)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
