//! Key files: loading private keys (PKCS#8 or SEC1, PEM or DER, encrypted PKCS#8 with a
//! passphrase) and public keys (SPKI, or the public half of a private key), and writing
//! PKCS#8 / SPKI.

use crate::keyuri::KeyUri;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use shangmi_sm2::keys::EncryptionScheme;
use shangmi_sm2::pkcs8::LineEnding;
use shangmi_sm2::{Error, PublicKey, SecretKey, keys};
use zeroize::Zeroizing;

use super::KeyIn;
use super::keyread::{is_pem, new_passphrase, read_passphrase, read_secret};
use crate::Failure;
use crate::files::{Output, read_path};

/// Options of `sm2 keygen`.
#[derive(clap::Args)]
#[command(after_help = "\
Example: shangmi sm2 keygen --out key.pem --pubout pub.pem
The key is written as `openssl genpkey -algorithm SM2` writes it (PKCS#8, id-ecPublicKey \
with the SM2 curve), readable by openssl pkey and gmssl. With --encrypt or --passout it \
is encrypted PKCS#8 (PBES2): by default PBKDF2-HMAC-SM3 and SM4-CBC with the PRF OID \
1.2.156.10197.1.401.3.1 (hmacWithSM3), as OpenSSL 3.x writes and reads it (3.6 checked; \
Debian's 3.0 and Tongsuo 8.5 know no HMAC-SM3 PRF); --scheme sm4-gmssl names the PRF \
1.2.156.10197.1.401.2 as `gmssl sm2keygen` writes it (GmSSL reads only that one, OpenSSL \
not that one); --scheme aes is PBKDF2-HMAC-SHA-256 and AES-256-CBC, OpenSSL's default, \
which every OpenSSL 3 and Tongsuo read (GmSSL does not). Every shangmi command reads all.")]
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
    /// Encrypt the private key under a passphrase asked on the terminal (twice).
    #[arg(long)]
    pub encrypt: bool,
    /// Encrypt the private key under this passphrase: pass:TEXT, env:VAR, file:PATH (first
    /// line) or stdin.
    #[arg(long, value_name = "SPEC", conflicts_with = "encrypt")]
    pub passout: Option<String>,
    /// Key encryption scheme (who reads each: see below).
    #[arg(long, value_enum, default_value_t = KeygenScheme::Sm4)]
    pub scheme: KeygenScheme,
    /// PBKDF2 iterations of an encrypted key.
    #[arg(long, value_name = "N", default_value_t = 65_536)]
    pub iter: u32,
}

/// Encrypted PKCS#8 schemes.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scheme {
    /// PBKDF2-HMAC-SM3 (PRF 1.2.156.10197.1.401.3.1) and SM4-CBC: read by OpenSSL 3.x (not
    /// 3.0, not Tongsuo 8.5, not GmSSL, which takes only 1.2.156.10197.1.401.2).
    Sm4,
    /// PBKDF2-HMAC-SHA-256 and AES-256-CBC (OpenSSL's default): read by every OpenSSL 3
    /// and Tongsuo (not GmSSL).
    Aes,
}

/// Encrypted PKCS#8 schemes of `sm2 keygen`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeygenScheme {
    /// PBKDF2-HMAC-SM3 (PRF 1.2.156.10197.1.401.3.1) and SM4-CBC: read by OpenSSL 3.x (not
    /// 3.0, not Tongsuo 8.5, not GmSSL).
    Sm4,
    /// PBKDF2-HMAC-SM3 (PRF 1.2.156.10197.1.401.2, as `gmssl sm2keygen`) and SM4-CBC: read
    /// by GmSSL and gmsm (not OpenSSL).
    Sm4Gmssl,
    /// PBKDF2-HMAC-SHA-256 and AES-256-CBC (OpenSSL's default): read by every OpenSSL 3
    /// and Tongsuo (not GmSSL).
    Aes,
}

impl KeygenScheme {
    /// The library's scheme with this PBKDF2 iteration count.
    pub fn with_iterations(self, iterations: u32) -> EncryptionScheme {
        match self {
            KeygenScheme::Sm4 => EncryptionScheme::Pbkdf2Sm3Sm4Cbc { iterations },
            KeygenScheme::Sm4Gmssl => EncryptionScheme::Pbkdf2Sm3Sm4CbcGmssl { iterations },
            KeygenScheme::Aes => EncryptionScheme::Pbkdf2Sha256Aes256Cbc { iterations },
        }
    }
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
    let secret = crate::selftest::new_sm2_key()?;
    let form = keys::AlgorithmForm::EcPublicKey;
    let password = match (&args.passout, args.encrypt) {
        (Some(spec), _) => Some(read_passphrase(spec, "--passout")?),
        (None, true) => Some(new_passphrase()?),
        (None, false) => None,
    };
    let encoded = match password {
        None if args.der => {
            keys::secret_key_to_pkcs8_der(&secret, form).map(|d| d.as_bytes().to_vec())
        }
        None => keys::secret_key_to_pkcs8_pem(&secret, form, LineEnding::LF)
            .map(|p| p.as_bytes().to_vec()),
        Some(password) => {
            let scheme = args.scheme.with_iterations(args.iter);
            let mut rng = crate::selftest::rng()?;
            if args.der {
                keys::secret_key_to_encrypted_pkcs8_der(
                    &secret,
                    password.as_bytes(),
                    scheme,
                    &mut rng,
                )
                .map(|d| d.as_bytes().to_vec())
            } else {
                keys::secret_key_to_encrypted_pkcs8_pem(
                    &secret,
                    password.as_bytes(),
                    scheme,
                    &mut rng,
                    LineEnding::LF,
                )
                .map(|p| p.as_bytes().to_vec())
            }
        }
    }
    .map(Zeroizing::new)
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
    // A key in a device: its public key, exported by the device.
    let public = KeyUri::of_path(&args.key.key)?.public_key(None, args.key.passin.as_deref())?;
    write(args.out.as_deref(), &encode_public(&public, args.der)?)?;
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

/// The private key of `key` (asking for the passphrase of an encrypted one); a key in a
/// device is refused with a usage error (it never leaves the device).
pub fn load_secret(key: &KeyIn) -> Result<SecretKey, Failure> {
    if KeyUri::of_path(&key.key)?.is_device() {
        return Err(Failure::usage(format!(
            "{}: a key in a device never leaves it; this command needs a key file",
            key.key.display()
        )));
    }
    read_secret(key)
}

/// A public key from `path`: SPKI (PEM or DER), a bare point (33, 64 or 65 bytes, as
/// [`keys::public_key_from_bytes`] reads it), or the public half of a private key.
pub fn load_public(path: &Path) -> Result<PublicKey, Failure> {
    let uri = KeyUri::of_path(path)?;
    if uri.is_device() {
        return uri.public_key(None, None);
    }
    let bytes = read_path(path)?;
    let named = |e: Error| Failure::new(format!("{}: {e}", path.display()));
    let public = if is_pem(&bytes) {
        let text = std::str::from_utf8(&bytes).map_err(|_| named(Error::MalformedPem))?;
        keys::public_key_from_pem(text)
    } else {
        keys::public_key_from_spki_der(&bytes)
    };
    // A bare point as toolkits exchange it (SEC1, or x ‖ y without the 04 tag).
    match public.or_else(|e| keys::public_key_from_bytes(&bytes).map_err(|_| e)) {
        Ok(public) => Ok(public),
        Err(spki_error) => {
            // A private key serves too; report the public-key error if it is not one.
            let key = KeyIn {
                key: path.to_owned(),
                passin: None,
            };
            load_secret(&key)
                .map(|s| s.public_key())
                .map_err(|_| named(spki_error))
        }
    }
}
