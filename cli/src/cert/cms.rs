//! `cert cms sign|verify|encrypt|decrypt`: GM/T 0010 SignedData and EnvelopedData.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;
use shangmi_pki::cms::{self, Oids, SignOptions, SignatureForm, Signer};
use shangmi_pki::verify::{Options, Purpose};

use super::show::purpose;
use super::{load_all, load_cert, named};
use crate::Failure;
use crate::files::{Input, Output, read_path};
use crate::sm2::KeyIn;
use shangmi_sdf::KeyUsage;

/// `cert cms`.
pub type Args = crate::Group<Op>;

/// The subcommands of `cert cms`.
#[derive(Subcommand)]
pub enum Op {
    /// Sign a file (SignedData; attached unless --detached).
    Sign(SignArgs),
    /// Verify a SignedData from any peer (GM/T 0010 or RFC 5652 content types; signatures
    /// with Z_A, over an empty ID, plain SM3 or in GmSSL's form): prints "Verification
    /// successful" and exits 0, or exits 1.
    Verify(VerifyArgs),
    /// Encrypt a file to recipients' certificates (EnvelopedData, SM4-CBC).
    Encrypt(EncryptArgs),
    /// Decrypt an EnvelopedData with a recipient's certificate and key.
    Decrypt(DecryptArgs),
}

/// Output encoding options.
#[derive(clap::Args)]
struct Format {
    /// Write PEM (`-----BEGIN CMS-----`) instead of DER.
    #[arg(long)]
    pem: bool,
    /// With --pem, the PKCS7 label instead of CMS.
    #[arg(long, requires = "pem")]
    pkcs7_label: bool,
    /// The RFC 5652 content types (1.2.840.113549.1.7.x), the only ones OpenSSL and Tongsuo
    /// read, instead of GM/T 0010's (1.2.156.10197.6.1.4.2.x), which GmSSL, gmsm and CFCA
    /// write (`shangmi cert cms` reads both).
    #[arg(long)]
    rfc5652: bool,
}

/// What `sign` and `encrypt` read and write: the content in, the message out and its
/// encoding.
#[derive(clap::Args)]
struct Making {
    #[command(flatten)]
    format: Format,
    /// The content (default: standard input).
    #[arg(long = "in", value_name = "FILE")]
    input: Option<PathBuf>,
    /// Where to write the message (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

impl Making {
    /// The content, read whole.
    fn content(&self) -> Result<Vec<u8>, Failure> {
        Input::open(self.input.as_deref())?.read_all()
    }

    /// Writes the message `der` in the chosen encoding.
    fn write(&self, der: Vec<u8>) -> Result<(), Failure> {
        write(self.out.as_deref(), &self.format.encode(der)?)
    }
}

/// `--form`: what a SignedData signature covers, named by who reads it.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormName {
    /// SM2 with Z_A over the default ID (GM/T 0010): gmsm, CFCA and this tool read it.
    Standard,
    /// Z_A over an empty ID: what OpenSSL 3's `cms -verify` checks with signed attributes.
    EmptyId,
    /// SM2 over plain SM3 of the content, no Z_A: what OpenSSL 3's and Tongsuo's
    /// `cms -verify` check without signed attributes (use with --no-attributes).
    Plain,
    /// GmSSL 3's cmssign form (SM3 of the encapsulated content, no Z_A, no signed
    /// attributes): the only one its cmsverify reads.
    Gmssl,
}

impl FormName {
    fn form(self) -> SignatureForm {
        match self {
            FormName::Standard => SignatureForm::Standard,
            FormName::EmptyId => SignatureForm::ZaEmptyId,
            FormName::Plain => SignatureForm::PlainSm3,
            FormName::Gmssl => SignatureForm::GmSsl3,
        }
    }
}

impl Format {
    fn oids(&self) -> Oids {
        if self.rfc5652 {
            Oids::Rfc5652
        } else {
            Oids::GmT0010
        }
    }

    fn encode(&self, der: Vec<u8>) -> Result<Vec<u8>, Failure> {
        if !self.pem {
            return Ok(der);
        }
        let label = if self.pkcs7_label { "PKCS7" } else { "CMS" };
        cms::to_pem(&der, label)
            .map(String::into_bytes)
            .map_err(|e| Failure::new(format!("encoding: {e}")))
    }
}

#[derive(clap::Args)]
pub struct SignArgs {
    /// The signer's certificate.
    #[arg(long, value_name = "CERT")]
    cert: PathBuf,
    #[command(flatten)]
    key: KeyIn,
    /// Intermediate certificates to include (repeatable).
    #[arg(long, value_name = "FILE")]
    chain: Vec<PathBuf>,
    /// Leave the content out of the message.
    #[arg(long)]
    detached: bool,
    /// Sign the content itself instead of signed attributes (contentType, messageDigest,
    /// signingTime).
    #[arg(long)]
    no_attributes: bool,
    /// What the signature covers, for the peer that reads it (`shangmi cert cms verify`
    /// reads every form).
    #[arg(long, value_enum, default_value_t = FormName::Standard)]
    form: FormName,
    /// The same as `--form gmssl` (which implies --no-attributes).
    #[arg(long, conflicts_with = "form")]
    gmssl_compat: bool,
    #[command(flatten)]
    io: Making,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// Trusted root certificates (repeatable).
    #[arg(long, value_name = "ROOTS", required = true)]
    ca: Vec<PathBuf>,
    /// More certificates that may identify a signer or complete a chain (repeatable).
    #[arg(long, value_name = "FILE")]
    certs: Vec<PathBuf>,
    /// The content of a detached signature.
    #[arg(long, value_name = "FILE")]
    content: Option<PathBuf>,
    /// What the signers' certificates must be good for (see `cert verify --purpose`).
    #[arg(long, value_name = "PURPOSE", default_value = "cms-sign", value_parser = purpose)]
    purpose: Purpose,
    /// Accepted and ignored: every peer's signature form is taken without it (with Z_A,
    /// with Z_A over an empty ID as OpenSSL 3 signs, plain SM3 as OpenSSL/Tongsuo `-noattr`,
    /// GmSSL 3's cmssign form), tried in that order.
    #[arg(long = "gmssl-compat", hide = true)]
    _gmssl_compat: bool,
    /// Take only signatures with Z_A over the default ID (GM/T 0010): refuse the other
    /// peers' forms, which are weaker (without Z_A, a signature the key made over anything
    /// passes for other content).
    #[arg(long)]
    strict: bool,
    /// The message (DER or PEM; default: standard input).
    #[arg(long = "in", value_name = "FILE")]
    input: Option<PathBuf>,
    /// Where to write the verified content.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct EncryptArgs {
    /// A recipient's (encryption) certificate (repeatable).
    #[arg(long, value_name = "CERT", required = true)]
    recipient: Vec<PathBuf>,
    /// Name the key transport 1.2.156.10197.1.301.2, the only one GmSSL 3's cmsdecrypt
    /// takes, instead of the default sm2-3 (1.2.156.10197.1.301.3), which gmsm and OpenSSL
    /// 3 take (`shangmi cert cms decrypt` takes both).
    #[arg(long)]
    gmssl_compat: bool,
    #[command(flatten)]
    io: Making,
}

#[derive(clap::Args)]
pub struct DecryptArgs {
    #[command(flatten)]
    key: KeyIn,
    /// The recipient's certificate.
    #[arg(long, value_name = "CERT")]
    cert: PathBuf,
    /// The message (DER or PEM; default: standard input).
    #[arg(long = "in", value_name = "FILE")]
    input: Option<PathBuf>,
    /// Where to write the content (default: standard output).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn input_name(p: &Option<PathBuf>) -> PathBuf {
    p.clone().unwrap_or_else(|| PathBuf::from("standard input"))
}

fn read_message(p: &Option<PathBuf>) -> Result<Vec<u8>, Failure> {
    let bytes = Input::open(p.as_deref())?.read_all()?;
    cms::from_der_or_pem(&bytes).map_err(|e| named(&input_name(p), e))
}

fn write(out: Option<&std::path::Path>, data: &[u8]) -> Result<(), Failure> {
    let mut o = Output::create(out)?;
    o.write_all(data)?;
    o.commit()
}

/// Runs `cert cms`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.op {
        Op::Sign(a) => {
            let cert = load_cert(&a.cert)?;
            let key = a.key.open(Some(KeyUsage::Sign))?;
            let chain = load_all(&a.chain)?;
            let content = a.io.content()?;
            let form = if a.gmssl_compat {
                SignatureForm::GmSsl3
            } else {
                a.form.form()
            };
            let opts = SignOptions {
                detached: a.detached,
                oids: a.io.format.oids(),
                include_certificates: true,
                signed_attributes: !a.no_attributes && form != SignatureForm::GmSsl3,
                form,
            };
            let der = cms::sign(
                &content,
                &[Signer {
                    cert: &cert,
                    key: &key,
                    chain: &chain,
                }],
                &opts,
            )
            .map_err(|e| match e {
                shangmi_pki::Error::KeyMismatch => {
                    named(&a.key.key, "not the key of the certificate")
                }
                e => Failure::new(format!("signing: {e}")),
            })?;
            a.io.write(der)?;
        }
        Op::Verify(a) => {
            let msg = read_message(&a.input)?;
            let roots = load_all(&a.ca)?;
            let extra = load_all(&a.certs)?;
            let detached = a.content.as_deref().map(read_path).transpose()?;
            let opts = Options::now(a.purpose);
            let v = if a.strict {
                cms::verify_with(
                    &msg,
                    detached.as_deref(),
                    &extra,
                    &roots,
                    &opts,
                    SignatureForm::Standard,
                )
            } else {
                cms::verify(&msg, detached.as_deref(), &extra, &roots, &opts)
            }
            .map_err(|e| named(&input_name(&a.input), format!("verification failed: {e}")))?;
            if let Some(out) = &a.out {
                write(Some(out), &v.content)?;
            }
            eprintln!("Verification successful");
        }
        Op::Encrypt(a) => {
            let recipients = load_all(&a.recipient)?;
            let content = a.io.content()?;
            let key_algorithm = if a.gmssl_compat {
                shangmi_pki::oid::SM2_ENCRYPT_GMSSL
            } else {
                shangmi_pki::oid::SM2_ENCRYPT
            };
            // The content key, IV and SM2 nonces from the command's generator (in module
            // mode the module's DRBG).
            let der = cms::encrypt_with_rng(
                &content,
                &recipients,
                a.io.format.oids(),
                key_algorithm,
                &mut crate::selftest::rng()?,
            )
            .map_err(|e| Failure::new(format!("encrypting: {e}")))?;
            a.io.write(der)?;
        }
        Op::Decrypt(a) => {
            let msg = read_message(&a.input)?;
            let cert = load_cert(&a.cert)?;
            let key = a.key.open(Some(KeyUsage::Encrypt))?;
            let content = cms::decrypt(&msg, &cert, &key)
                .map_err(|e| named(&input_name(&a.input), format!("decryption failed: {e}")))?;
            write(a.out.as_deref(), &content)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
