//! `sm2 sign` and `sm2 verify`: e = SM3(Z_A ‖ message) is computed while the message
//! streams in (any size, constant memory), then signed or verified.

use std::path::PathBuf;
use std::process::ExitCode;

use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm3::{Digest, Sm3};

use super::keyfile::{load_public, write};
use super::{Id, KeyIn};
use crate::Failure;
use crate::files::{Input, io_failure, read_full, read_path};
use crate::keyuri::AnyKey;
use shangmi_sdf::KeyUsage;
use shangmi_sm2::PrivateKeyOps;

/// Options of `sm2 sign`.
#[derive(clap::Args)]
#[command(after_help = "\
Example: shangmi sm2 sign --key key.pem --out msg.sig msg
Same signature format as `openssl dgst -sm3 -sign key.pem -sigopt \
distid:1234567812345678 msg`, and as `gmssl sm2sign -key key.pem -pass P`.")]
pub struct SignArgs {
    #[command(flatten)]
    pub key: KeyIn,
    #[command(flatten)]
    pub id: Id,
    /// Write r ‖ s (64 bytes) instead of a DER SEQUENCE.
    #[arg(long)]
    pub raw: bool,
    /// Where to write the signature (default: standard output).
    #[arg(long, value_name = "SIG")]
    pub out: Option<PathBuf>,
    /// The message (default: standard input).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// Options of `sm2 verify`.
#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Public key (SPKI, PEM or DER) or a private key.
    #[arg(long, value_name = "KEY")]
    pub key: PathBuf,
    /// The signature: DER, or r ‖ s (64 bytes).
    #[arg(long, value_name = "SIG")]
    pub signature: PathBuf,
    #[command(flatten)]
    pub id: Id,
    /// The signature is r ‖ s (64 bytes); without this flag DER is tried first.
    #[arg(long)]
    pub raw: bool,
    /// The message (default: standard input).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

/// SM3(za ‖ message) with the message streamed from `file`.
fn digest_e(za: &[u8; 32], file: Option<&std::path::Path>) -> Result<[u8; 32], Failure> {
    let mut input = Input::open(file)?;
    let mut hasher = Sm3::new();
    hasher.update(za);
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = read_full(&mut input.reader, &mut buf).map_err(|e| io_failure(&input.name, &e))?;
        hasher.update(&buf[..n]);
        if n < buf.len() {
            return Ok(hasher.finalize().into());
        }
    }
}

/// `sm2 sign`.
pub fn sign(args: &SignArgs) -> Result<ExitCode, Failure> {
    let id = args.id.bytes()?;
    let named =
        |e: &dyn std::fmt::Display| Failure::new(format!("{}: {e}", args.key.key.display()));
    let signature = match args.key.open(Some(KeyUsage::Sign))? {
        AnyKey::Memory(secret) => {
            let key = SigningKey::new_with_id(&secret, &id).map_err(|e| named(&e))?;
            let e = digest_e(&key.verifying_key().za(), args.file.as_deref())?;
            // Hedged nonce: deterministic in (key, e) with 32 fresh random bytes mixed in.
            key.try_sign_e_with_rng(&mut crate::selftest::rng()?, &e)
                .map_err(|e| Failure::new(format!("signing: {e}")))?
        }
        // A device (SDF, SKF, PKCS#11) signs e = SM3(Z_A ‖ message), Z_A from its public key.
        key => {
            let vk = VerifyingKey::new_with_id(&key.public_key(), &id).map_err(|e| named(&e))?;
            let e = digest_e(&vk.za(), args.file.as_deref())?;
            key.sign_digest(&e)
                .map_err(|e| Failure::new(format!("signing: {e}")))?
        }
    };
    let bytes = if args.raw {
        signature.to_bytes().to_vec()
    } else {
        signature.to_der().as_ref().to_vec()
    };
    write(args.out.as_deref(), &bytes)?;
    Ok(ExitCode::SUCCESS)
}

/// `sm2 verify`: "Verified OK" and 0, or "Verification failure" and 1.
pub fn verify(args: &VerifyArgs) -> Result<ExitCode, Failure> {
    let public = load_public(&args.key)?;
    let id = args.id.bytes()?;
    let key =
        VerifyingKey::new_with_id(&public, &id).map_err(|e| Failure::new(format!("--id: {e}")))?;
    let bytes = read_path(&args.signature)?;
    let signature = parse_signature(&bytes, args.raw)
        .map_err(|e| Failure::new(format!("{}: {e}", args.signature.display())))?;
    let e = digest_e(&key.za(), args.file.as_deref())?;
    if key.verify_e(&e, &signature).is_ok() {
        println!("Verified OK");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("Verification failure");
        Ok(ExitCode::FAILURE)
    }
}

/// A signature as DER or, with `raw` or when it is not DER and 64 bytes long, r ‖ s.
fn parse_signature(bytes: &[u8], raw: bool) -> Result<Signature, shangmi_sm2::Error> {
    if raw {
        Signature::from_slice(bytes)
    } else {
        Signature::from_der_or_fixed(bytes)
    }
}
