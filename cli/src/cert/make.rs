//! `cert ca`, `cert req`, `cert issue`, `cert tlcp-pair`.

use std::path::PathBuf;
use std::process::ExitCode;

use der::Encode;
use shangmi_pki::issue::{self, CertParams, Profile, San};
use shangmi_pki::name::parse_dn;
use shangmi_pki::{SecretKey, envelope, req};
use shangmi_sm2::keys;
use shangmi_sm2::pkcs8::LineEnding;
use zeroize::Zeroizing;

use super::{cert_pem, load_cert, named};
use crate::Failure;
use crate::files::{Output, read_path};
use crate::keyuri::{AnyKey, KeyUri};
use crate::sm2::KeyIn;
use crate::sm2::keyfile::KeygenScheme;
use crate::sm2::keyread::read_passphrase;
use shangmi_sdf::KeyUsage;

/// Options of `cert ca`.
#[derive(clap::Args)]
#[command(after_help = "\
Example: shangmi cert ca --subject '/C=CN/O=Example/CN=Example Root' --key-out ca.key --out ca.crt
The certificate has basicConstraints critical CA:true and keyUsage critical \
digitalSignature, keyCertSign, cRLSign; it is signed with SM2-with-SM3 under the default \
ID 1234567812345678 (`openssl verify` needs -vfyopt distid:1234567812345678).")]
pub struct CaArgs {
    /// The CA's name, as /C=CN/O=…/CN=….
    #[arg(long, value_name = "DN")]
    subject: String,
    /// Where to write the new private key (PKCS#8 PEM, mode 0600).
    #[arg(long, value_name = "FILE", required_unless_present = "key")]
    key_out: Option<PathBuf>,
    /// Make the certificate for this existing key instead of a new one: a key file, or a
    /// sign key in a device (sdf:LIBRARY?index=N&pin-env=VAR, skf:…, pkcs11:…), which signs it.
    #[arg(long, value_name = "KEY", conflicts_with = "key_out")]
    key: Option<PathBuf>,
    /// Where to write the certificate (PEM).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Days of validity.
    #[arg(long, value_name = "N", default_value_t = 3650)]
    days: u32,
    /// pathLenConstraint of the CA.
    #[arg(long, value_name = "N")]
    path_len: Option<u8>,
}

/// Options of `cert req`.
#[derive(clap::Args)]
pub struct ReqArgs {
    #[command(flatten)]
    key: KeyIn,
    /// The subject, as /C=CN/O=…/CN=….
    #[arg(long, value_name = "DN")]
    subject: String,
    /// A subject alternative name: DNS:NAME, IP:ADDRESS or email:ADDRESS (repeatable).
    #[arg(long, value_name = "SAN")]
    san: Vec<String>,
    /// Where to write the request (PEM).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
}

/// Certificate profiles.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ProfileName {
    /// A CA certificate.
    Ca,
    /// TLS server: digitalSignature, serverAuth.
    TlsServer,
    /// TLS client: digitalSignature, clientAuth.
    TlsClient,
    /// TLCP signing certificate: digitalSignature, nonRepudiation.
    TlcpSign,
    /// TLCP encryption certificate: keyAgreement, keyEncipherment, dataEncipherment.
    TlcpEnc,
}

impl ProfileName {
    fn profile(self, path_len: Option<u8>) -> Profile {
        match self {
            ProfileName::Ca => Profile::Ca { path_len },
            ProfileName::TlsServer => Profile::TlsServer,
            ProfileName::TlsClient => Profile::TlsClient,
            ProfileName::TlcpSign => Profile::TlcpSign,
            ProfileName::TlcpEnc => Profile::TlcpEnc,
        }
    }
}

/// The issuing CA's certificate and key.
#[derive(clap::Args)]
pub(super) struct CaIn {
    /// The CA certificate.
    #[arg(long, value_name = "FILE")]
    ca: PathBuf,
    /// The CA's private key: a key file, or its sign key in a device
    /// (sdf:LIBRARY?index=N&pin-env=VAR, skf:…, pkcs11:…).
    #[arg(long, value_name = "KEY")]
    pub(super) ca_key: PathBuf,
    /// Passphrase of an encrypted CA key (pass:, env:, file:, stdin).
    #[arg(long, value_name = "SPEC")]
    ca_passin: Option<String>,
}

impl CaIn {
    pub(super) fn load(&self) -> Result<(shangmi_pki::Certificate, AnyKey), Failure> {
        let cert = load_cert(&self.ca)?;
        let key = KeyIn {
            key: self.ca_key.clone(),
            passin: self.ca_passin.clone(),
        }
        .open(Some(KeyUsage::Sign))?;
        Ok((cert, key))
    }
}

/// Options of `cert issue`.
#[derive(clap::Args)]
#[command(after_help = "\
The request's signature must verify (default ID); the subject and SANs come from it \
(--san replaces its SANs).")]
pub struct IssueArgs {
    #[command(flatten)]
    ca: CaIn,
    /// The certificate request (PEM or DER).
    #[arg(long, value_name = "FILE")]
    csr: PathBuf,
    /// The certificate profile.
    #[arg(long, value_enum)]
    profile: ProfileName,
    /// Subject alternative names instead of the request's (repeatable).
    #[arg(long, value_name = "SAN")]
    san: Vec<String>,
    /// Where to write the certificate (PEM).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Days of validity.
    #[arg(long, value_name = "N", default_value_t = 365)]
    days: u32,
    /// pathLenConstraint with --profile ca.
    #[arg(long, value_name = "N")]
    path_len: Option<u8>,
}

/// Options of `cert tlcp-pair`.
#[derive(clap::Args)]
#[command(after_help = "\
Writes DIR/sign.key, DIR/sign.crt (digitalSignature, nonRepudiation), DIR/enc.key and \
DIR/enc.crt (keyAgreement, keyEncipherment, dataEncipherment); with --envelope also \
DIR/enc.env, the encryption key as a GB/T 35276 SM2EnvelopedKey (DER) to the sign key. \
With --passout both keys are encrypted PKCS#8 under that passphrase (PBKDF2-HMAC-SM3 under \
GmSSL's PRF OID and SM4-CBC by default, as GmSSL's tlcp_server needs them: it takes the \
chain as one PEM, sign.crt then enc.crt, and the keys as one PEM, sign.key then enc.key, \
with -pass; --scheme sm4 for OpenSSL 3.x, aes for every OpenSSL 3 and Tongsuo). \
With --sign-key/--enc-key the keys that exist (files, or the pairs in a device: \
--sign-key 'sdf:LIB?index=1' --enc-key 'sdf:LIB?index=1') are certified instead, and their \
.key files are not written. Nothing is written unless everything succeeds.")]
pub struct TlcpPairArgs {
    #[command(flatten)]
    ca: CaIn,
    /// The subject of both certificates, as /C=CN/O=…/CN=….
    #[arg(long, value_name = "DN")]
    subject: String,
    /// A subject alternative name for both (repeatable).
    #[arg(long, value_name = "SAN")]
    san: Vec<String>,
    /// The directory to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out_dir: PathBuf,
    /// Also write the encryption key enveloped to the sign key (DIR/enc.env).
    #[arg(long)]
    envelope: bool,
    /// Days of validity.
    #[arg(long, value_name = "N", default_value_t = 365)]
    days: u32,
    /// Encrypt both private keys under this passphrase: pass:TEXT, env:VAR, file:PATH
    /// (first line) or stdin.
    #[arg(long, value_name = "SPEC")]
    passout: Option<String>,
    /// Key encryption scheme with --passout.
    #[arg(long, value_enum, default_value_t = KeygenScheme::Sm4Gmssl, requires = "passout")]
    scheme: KeygenScheme,
    /// Certify this existing sign key instead of making one (a key file, or a key in a
    /// device: sdf:LIBRARY?index=N, skf:…, pkcs11:…; only its public key is read); DIR/sign.key
    /// is not written.
    #[arg(long, value_name = "KEY", conflicts_with = "envelope")]
    sign_key: Option<PathBuf>,
    /// Certify this existing encryption key instead of making one (as --sign-key);
    /// DIR/enc.key is not written.
    #[arg(long, value_name = "KEY", conflicts_with = "envelope")]
    enc_key: Option<PathBuf>,
}

fn dn(s: &str) -> Result<x509_cert::name::Name, Failure> {
    parse_dn(s).map_err(|e| Failure::usage(format!("--subject {s}: {e}")))
}

fn sans(list: &[String]) -> Result<Vec<San>, Failure> {
    list.iter()
        .map(|s| San::parse(s).map_err(|e| Failure::usage(format!("--san {s}: {e}"))))
        .collect()
}

fn new_key() -> Result<SecretKey, Failure> {
    crate::selftest::new_sm2_key()
}

/// A certificate's parameters, valid from now for `days`, its serial drawn from the
/// command's generator (in module mode the module's DRBG).
fn cert_params(
    subject: x509_cert::name::Name,
    profile: Profile,
    days: u32,
) -> Result<CertParams, Failure> {
    let mut params = CertParams::new(subject, profile, days);
    params.serial = Some(
        issue::random_serial(&mut crate::selftest::rng()?)
            .map_err(|e| Failure::new(format!("the serial number: {e}")))?,
    );
    Ok(params)
}

fn key_pem(key: &SecretKey) -> Result<Zeroizing<String>, Failure> {
    keys::secret_key_to_pkcs8_pem(key, keys::AlgorithmForm::EcPublicKey, LineEnding::LF)
        .map_err(|e| Failure::new(format!("encoding the key: {e}")))
}

/// The key as encrypted PKCS#8 PEM under `password` (65,536 PBKDF2 iterations, as
/// `sm2 keygen` writes by default).
fn encrypted_key_pem(
    key: &SecretKey,
    password: &str,
    scheme: KeygenScheme,
) -> Result<Zeroizing<String>, Failure> {
    let scheme = scheme.with_iterations(65_536);
    keys::secret_key_to_encrypted_pkcs8_pem(
        key,
        password.as_bytes(),
        scheme,
        &mut crate::selftest::rng()?,
        LineEnding::LF,
    )
    .map_err(|e| Failure::new(format!("encoding the key: {e}")))
}

/// Files staged under temporary names and renamed together at the end.
struct Staged(Vec<Output>);

impl Staged {
    fn add(&mut self, path: &std::path::Path, data: &[u8]) -> Result<(), Failure> {
        let mut out = Output::create(Some(path))?;
        out.write_all(data)?;
        self.0.push(out);
        Ok(())
    }

    fn commit(self) -> Result<(), Failure> {
        for out in self.0 {
            out.commit()?;
        }
        Ok(())
    }
}

/// `cert ca`.
pub fn ca(args: &CaArgs) -> Result<ExitCode, Failure> {
    let key = match &args.key {
        Some(path) => KeyIn {
            key: path.clone(),
            passin: None,
        }
        .open(Some(KeyUsage::Sign))?,
        None => AnyKey::Memory(new_key()?),
    };
    let params = cert_params(
        dn(&args.subject)?,
        Profile::Ca {
            path_len: args.path_len,
        },
        args.days,
    )?;
    let cert = issue::self_signed(&key, &params)
        .map_err(|e| Failure::new(format!("making the certificate: {e}")))?;
    let mut staged = Staged(Vec::new());
    if let (Some(out), AnyKey::Memory(key)) = (&args.key_out, &key) {
        staged.add(out, key_pem(key)?.as_bytes())?;
    }
    staged.add(&args.out, &cert_pem(&cert)?)?;
    staged.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// `cert req`.
pub fn req(args: &ReqArgs) -> Result<ExitCode, Failure> {
    // A device's sign key signs the request itself (an encryption key cannot sign).
    let key = args.key.open(Some(KeyUsage::Sign))?;
    let csr = req::create_request(&key, &dn(&args.subject)?, &sans(&args.san)?, None)
        .map_err(|e| Failure::new(format!("making the request: {e}")))?;
    let der = csr
        .to_der()
        .map_err(|e| Failure::new(format!("encoding the request: {e}")))?;
    let pem = shangmi_pki::pem::to_pem("CERTIFICATE REQUEST", &der)
        .map_err(|e| Failure::new(format!("encoding the request: {e}")))?;
    let mut staged = Staged(Vec::new());
    staged.add(&args.out, pem.as_bytes())?;
    staged.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// `cert issue`.
pub fn issue(args: &IssueArgs) -> Result<ExitCode, Failure> {
    let (ca, ca_key) = args.ca.load()?;
    let bytes = read_path(&args.csr)?;
    let csr = shangmi_pki::pem::request(&bytes).map_err(|e| named(&args.csr, e))?;
    let mut params = cert_params(
        csr.info.subject.clone(),
        args.profile.profile(args.path_len),
        args.days,
    )?;
    params.sans = sans(&args.san)?;
    let cert = issue::issue_from_request(&ca, &ca_key, &csr, &params).map_err(|e| match e {
        shangmi_pki::Error::BadSignature => {
            named(&args.csr, "the request's signature does not verify")
        }
        shangmi_pki::Error::KeyMismatch => {
            named(&args.ca.ca_key, "not the key of the CA certificate")
        }
        e => Failure::new(format!("issuing: {e}")),
    })?;
    let mut staged = Staged(Vec::new());
    staged.add(&args.out, &cert_pem(&cert)?)?;
    staged.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// `cert tlcp-pair`.
pub fn tlcp_pair(args: &TlcpPairArgs) -> Result<ExitCode, Failure> {
    let (ca, ca_key) = args.ca.load()?;
    let subject = dn(&args.subject)?;
    let sans = sans(&args.san)?;
    // An existing key (a file or a device's pair: its public key) or a new one.
    let make = |profile,
                existing: Option<(&PathBuf, KeyUsage)>|
     -> Result<(Option<SecretKey>, shangmi_pki::Certificate), Failure> {
        let (key, public) = match existing {
            Some((path, usage)) => (None, KeyUri::of_path(path)?.public_key(Some(usage), None)?),
            None => {
                let key = new_key()?;
                let public = key.public_key();
                (Some(key), public)
            }
        };
        let mut params = cert_params(subject.clone(), profile, args.days)?;
        params.sans = sans.clone();
        let cert = issue::issue(&ca, &ca_key, &public, &params).map_err(|e| match e {
            shangmi_pki::Error::KeyMismatch => {
                named(&args.ca.ca_key, "not the key of the CA certificate")
            }
            e => Failure::new(format!("issuing: {e}")),
        })?;
        Ok((key, cert))
    };
    let password = args
        .passout
        .as_deref()
        .map(|spec| read_passphrase(spec, "--passout"))
        .transpose()?;
    let pem = |key: &SecretKey| match &password {
        Some(p) => encrypted_key_pem(key, p, args.scheme),
        None => key_pem(key),
    };
    let (sign_key, sign_cert) = make(
        Profile::TlcpSign,
        args.sign_key.as_ref().map(|p| (p, KeyUsage::Sign)),
    )?;
    let (enc_key, enc_cert) = make(
        Profile::TlcpEnc,
        args.enc_key.as_ref().map(|p| (p, KeyUsage::Encrypt)),
    )?;
    let env = match (&sign_key, &enc_key) {
        (Some(sign_key), Some(enc_key)) if args.envelope => Some(
            envelope::wrap_with_rng(
                &sign_key.public_key(),
                enc_key,
                &mut crate::selftest::rng()?,
            )
            .map_err(|e| Failure::new(format!("enveloping the encryption key: {e}")))?,
        ),
        _ => None,
    };
    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| crate::files::io_failure(&args.out_dir.display().to_string(), &e))?;
    let d = &args.out_dir;
    let mut staged = Staged(Vec::new());
    if let Some(key) = &sign_key {
        staged.add(&d.join("sign.key"), pem(key)?.as_bytes())?;
    }
    staged.add(&d.join("sign.crt"), &cert_pem(&sign_cert)?)?;
    if let Some(key) = &enc_key {
        staged.add(&d.join("enc.key"), pem(key)?.as_bytes())?;
    }
    staged.add(&d.join("enc.crt"), &cert_pem(&enc_cert)?)?;
    if let Some(env) = env {
        staged.add(&d.join("enc.env"), &env)?;
    }
    staged.commit()?;
    Ok(ExitCode::SUCCESS)
}
