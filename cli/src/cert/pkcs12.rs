//! `cert pkcs12 export|import`: PKCS#12 key stores (OpenSSL 3's default algorithms, or
//! `--scheme sm`: PBKDF2-HMAC-SM3, SM4-CBC and an HMAC-SM3 MAC).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use shangmi_sm2::keys;
use shangmi_sm2::pkcs8::LineEnding;
use zeroize::Zeroizing;

use super::{cert_pem, load_all, load_cert, named};
use crate::Failure;
use crate::files::{Output, read_path};
use crate::sm2::KeyIn;
use crate::sm2::keyfile::load_secret;

/// `cert pkcs12`.
pub type Args = crate::Group<Op>;

/// The subcommands of `cert pkcs12`.
#[derive(Subcommand)]
pub enum Op {
    /// Write a key, its certificate and a chain as PKCS#12 (readable by `openssl pkcs12`).
    Export(ExportArgs),
    /// Read a PKCS#12 file with an SM2 key (OpenSSL 3's, Tongsuo's SM, ours, or legacy:
    /// `openssl pkcs12 -legacy`, OpenSSL 1.1 and Windows files with PBE-SHA1-3DES/RC2 and a
    /// SHA-1 MAC) into a certificate (PEM, then the chain) and a key.
    Import(ImportArgs),
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The certificate.
    #[arg(long, value_name = "CERT")]
    cert: PathBuf,
    #[command(flatten)]
    key: KeyIn,
    /// Chain certificates to include (repeatable).
    #[arg(long, value_name = "CHAIN")]
    ca: Vec<PathBuf>,
    /// Where to write the PKCS#12 file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// The environment variable holding the password.
    #[arg(long, value_name = "VAR")]
    pass_env: String,
    /// Algorithms: openssl (PBKDF2-HMAC-SHA-256, AES-256-CBC, HMAC-SHA-256 MAC; what
    /// OpenSSL 3 and Tongsuo write and read) or sm (PBKDF2-HMAC-SM3 under the PRF OID
    /// 1.2.156.10197.1.401.3.1, SM4-CBC, HMAC-SM3 MAC; OpenSSL 3.x reads that PRF, Debian's
    /// 3.0 and Tongsuo 8.5 do not).
    #[arg(long, value_enum, default_value_t = P12Scheme::Openssl)]
    scheme: P12Scheme,
}

/// `cert pkcs12 export --scheme`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum P12Scheme {
    /// OpenSSL 3's defaults.
    Openssl,
    /// PBKDF2-HMAC-SM3 (PRF 1.2.156.10197.1.401.3.1), SM4-CBC and an HMAC-SM3 MAC.
    Sm,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The PKCS#12 file.
    #[arg(long = "in", value_name = "FILE")]
    input: PathBuf,
    /// The environment variable holding the password.
    #[arg(long, value_name = "VAR")]
    pass_env: String,
    /// Where to write the certificate (PEM; the chain follows it).
    #[arg(long, value_name = "FILE")]
    cert_out: PathBuf,
    /// Where to write the private key (PKCS#8 PEM, mode 0600).
    #[arg(long, value_name = "FILE")]
    key_out: PathBuf,
}

fn password(var: &str) -> Result<Zeroizing<String>, Failure> {
    std::env::var(var)
        .map(Zeroizing::new)
        .map_err(|_| Failure::usage(format!("--pass-env {var}: the variable is not set")))
}

/// Runs `cert pkcs12`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.op {
        Op::Export(a) => {
            let pass = password(&a.pass_env)?;
            let key = load_secret(&a.key)?;
            let cert = load_cert(&a.cert)?;
            let chain = load_all(&a.ca)?;
            let scheme = match a.scheme {
                P12Scheme::Openssl => shangmi_pki::pkcs12::Scheme::OpenSsl,
                P12Scheme::Sm => shangmi_pki::pkcs12::Scheme::Sm,
            };
            // Salts and IVs from the command's generator (in module mode the module's).
            let mut rng = crate::selftest::rng()?;
            let p12 =
                shangmi_pki::pkcs12::export_with_rng(&cert, &key, &chain, &pass, scheme, &mut rng)
                    .map_err(|e| Failure::new(format!("writing PKCS#12: {e}")))?;
            let mut out = Output::create(Some(&a.out))?;
            out.write_all(&p12)?;
            out.commit()?;
        }
        Op::Import(a) => {
            let pass = password(&a.pass_env)?;
            let bytes = read_path(&a.input)?;
            let c = shangmi_pki::pkcs12::import(&bytes, &pass).map_err(|e| match e {
                shangmi_pki::Error::Decryption => {
                    named(&a.input, "wrong password or corrupted file")
                }
                e => named(&a.input, e),
            })?;
            let mut pem = cert_pem(&c.cert)?;
            for x in &c.chain {
                pem.extend(cert_pem(x)?);
            }
            let key = keys::secret_key_to_pkcs8_pem(
                &c.key,
                keys::AlgorithmForm::EcPublicKey,
                LineEnding::LF,
            )
            .map_err(|e| Failure::new(format!("encoding the key: {e}")))?;
            let mut cert_out = Output::create(Some(&a.cert_out))?;
            cert_out.write_all(&pem)?;
            let mut key_out = Output::create(Some(&a.key_out))?;
            key_out.write_all(key.as_bytes())?;
            cert_out.commit()?;
            key_out.commit()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
