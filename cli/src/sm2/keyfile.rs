//! Key files: loading private keys (PKCS#8 or SEC1, PEM or DER, encrypted PKCS#8 with a
//! passphrase) and public keys (SPKI, or the public half of a private key), and writing
//! PKCS#8 / SPKI.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use shangmi_sm2::pkcs8::LineEnding;
use shangmi_sm2::{Error, PublicKey, SecretKey, dsa::SigningKey, keys};

use super::KeyIn;
use crate::Failure;
use crate::files::{Output, read_path};

/// Options of `sm2 keygen`.
#[derive(clap::Args)]
#[command(after_help = "\
Example: shangmi sm2 keygen --out key.pem --pubout pub.pem
The key is written as `openssl genpkey -algorithm SM2` writes it (PKCS#8, id-ecPublicKey \
with the SM2 curve), readable by openssl pkey and gmssl.")]
pub struct KeygenArgs {
    /// Where to write the private key (default: standard output). Created with mode 0600.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write the public key (SPKI) here.
    #[arg(long, value_name = "FILE")]
    pub pubout: Option<PathBuf>,
    /// DER instead of PEM.
    #[arg(long)]
    pub der: bool,
}

/// Options of `sm2 pubkey`.
#[derive(clap::Args)]
pub struct PubkeyArgs {
    #[command(flatten)]
    pub key: KeyIn,
    /// Where to write the public key (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// DER instead of PEM.
    #[arg(long)]
    pub der: bool,
}

/// `sm2 keygen`.
pub fn keygen(args: &KeygenArgs) -> Result<ExitCode, Failure> {
    let signing = SigningKey::random(&mut getrandom::SysRng)
        .map_err(|e| Failure::new(format!("key generation: {e}")))?;
    let secret = signing.secret_key();
    let encoded = if args.der {
        keys::secret_key_to_pkcs8_der(&secret, keys::AlgorithmForm::EcPublicKey)
            .map(|d| d.as_bytes().to_vec())
    } else {
        keys::secret_key_to_pkcs8_pem(&secret, keys::AlgorithmForm::EcPublicKey, LineEnding::LF)
            .map(|p| p.as_bytes().to_vec())
    }
    .map_err(|e| Failure::new(format!("encoding the key: {e}")))?;
    write(args.out.as_deref(), &encoded)?;
    if let Some(pubout) = &args.pubout {
        write(
            Some(pubout),
            &encode_public(&secret.public_key(), args.der)?,
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `sm2 pubkey`.
pub fn pubkey(args: &PubkeyArgs) -> Result<ExitCode, Failure> {
    let secret = load_secret(&args.key)?;
    write(
        args.out.as_deref(),
        &encode_public(&secret.public_key(), args.der)?,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn encode_public(public: &PublicKey, der: bool) -> Result<Vec<u8>, Failure> {
    let form = keys::AlgorithmForm::EcPublicKey;
    if der {
        keys::public_key_to_spki_der(public, form).map(|d| d.as_bytes().to_vec())
    } else {
        keys::public_key_to_spki_pem(public, form, LineEnding::LF).map(String::into_bytes)
    }
    .map_err(|e| Failure::new(format!("encoding the public key: {e}")))
}

/// Writes `data` to `path` (standard output for `None`), through a temporary file.
pub fn write(path: Option<&Path>, data: &[u8]) -> Result<(), Failure> {
    let mut out = Output::create(path)?;
    out.write_all(data)?;
    out.commit()
}

/// Whether `bytes` look like PEM text (rather than DER).
fn is_pem(bytes: &[u8]) -> bool {
    bytes.windows(11).any(|w| w == b"-----BEGIN ")
}

/// The private key of `key` (asking for the passphrase of an encrypted one).
pub fn load_secret(key: &KeyIn) -> Result<SecretKey, Failure> {
    let bytes = read_path(&key.key)?;
    let named = |e: Error| Failure::new(format!("{}: {e}", key.key.display()));
    let parsed = if is_pem(&bytes) {
        let text = std::str::from_utf8(&bytes).map_err(|_| named(Error::MalformedPem))?;
        keys::secret_key_from_pem(text)
    } else {
        keys::secret_key_from_der(&bytes)
    };
    parsed.map_err(named)
}

/// A public key from `path`: SPKI (PEM or DER), or the public half of a private key.
pub fn load_public(path: &Path) -> Result<PublicKey, Failure> {
    let bytes = read_path(path)?;
    let named = |e: Error| Failure::new(format!("{}: {e}", path.display()));
    let public = if is_pem(&bytes) {
        let text = std::str::from_utf8(&bytes).map_err(|_| named(Error::MalformedPem))?;
        keys::public_key_from_pem(text)
    } else {
        keys::public_key_from_spki_der(&bytes)
    };
    match public {
        Ok(public) => Ok(public),
        Err(spki_error) => {
            // A private key serves too; report the public-key error if it is not one.
            let key = KeyIn {
                key: path.to_owned(),
            };
            load_secret(&key)
                .map(|s| s.public_key())
                .map_err(|_| named(spki_error))
        }
    }
}
