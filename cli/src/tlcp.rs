//! `shangmi tlcp server|client`: TLCP (GB/T 38636-2020) over TCP with dual SM2
//! certificates, on `shangmi-tlcp` — the counterpart of Tongsuo's `s_server -enable_ntls`
//! / `s_client -ntls` and GmSSL's `tlcp_server` / `tlcp_client`.
//!
//! The server (and the proxy, `serve.rs`) runs the library's one-port acceptor: TLCP, and
//! with the certificates given RFC 8998 TLS 1.3 and ordinary TLS 1.3 on the same port, each
//! client in a task of its own; it echoes, answers HTTP (`--http`) or forwards to an
//! upstream service (`proxy`), with one log line per connection. The client sends its
//! standard input, closes its side (close_notify) and prints what comes back, with the
//! negotiated suite, the peer's certificate subjects and whether the session was resumed
//! on standard error.

mod get;
mod http;
mod serve;

use crate::exchange::{Peer, client_rounds, failure, read_reply};
use crate::failure::Failure;
use crate::keyuri::KeyUri;
use shangmi_tlcp::{
    CertificateDer, CipherSuite, ClientConfig, ClientConnection, NameCheck, RootCertStore,
    ServerName, Sm2EncKey, Sm2SignKey, StreamOwned,
};
use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// TLCP with dual SM2 certificates: an echo/HTTP server, a terminating proxy and a client.
#[derive(clap::Args)]
#[command(after_help = "\
With SSLKEYLOGFILE=FILE in the environment, every command appends the master secrets it \
negotiates to FILE in the NSS key-log format (TLCP: CLIENT_RANDOM lines; TLS 1.3: its traffic \
secrets), for Wireshark.")]
pub struct Args {
    #[command(subcommand)]
    command: Tlcp,
}

#[derive(clap::Subcommand)]
enum Tlcp {
    /// Accept TLCP (with --tls13-cert RFC 8998 TLS 1.3, with --tls-cert ordinary TLS 1.3, all
    /// on one port) and echo what each client sends, or answer HTTP (--http).
    Server(serve::ServerArgs),
    /// Terminate TLCP, RFC 8998 TLS 1.3 and ordinary TLS 1.3 on one port and forward the
    /// plain bytes to an upstream TCP service.
    Proxy(serve::ProxyArgs),
    /// Connect, send standard input, print what the server returns.
    Client(ClientArgs),
    /// GET an https:// URL over TLCP and print the response body (a curl for TLCP).
    Get(get::GetArgs),
}

/// Cipher suite choice.
/// `--name-check` values (see [`NameCheck`]).
#[derive(Clone, Copy, clap::ValueEnum)]
enum NameCheckArg {
    San,
    Cn,
    None,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Suite {
    /// ECC_SM4_GCM_SM3 (0xE053)
    EccGcm,
    /// ECC_SM4_CBC_SM3 (0xE013)
    EccCbc,
    /// ECDHE_SM4_GCM_SM3 (0xE051; needs client certificates)
    EcdheGcm,
    /// ECDHE_SM4_CBC_SM3 (0xE011; needs client certificates)
    EcdheCbc,
}

impl Suite {
    fn suite(self) -> CipherSuite {
        match self {
            Suite::EccGcm => CipherSuite::EccSm4GcmSm3,
            Suite::EccCbc => CipherSuite::EccSm4CbcSm3,
            Suite::EcdheGcm => CipherSuite::EcdheSm4GcmSm3,
            Suite::EcdheCbc => CipherSuite::EcdheSm4CbcSm3,
        }
    }
}

/// A side's two certificates and keys (all four, or none for a client).
#[derive(clap::Args)]
struct DualCerts {
    /// Sign certificate, PEM (then its CA chain, if any)
    #[arg(long)]
    sign_cert: Option<PathBuf>,
    /// Sign certificate's SM2 private key: a PEM file (PKCS#8 or SEC1) or a key URI
    /// (`sdf:…`, `skf:…` or `pkcs11:…`, as the README's "Keys in an HSM" writes them)
    #[arg(long)]
    sign_key: Option<KeyUri>,
    /// Encryption certificate, PEM
    #[arg(long)]
    enc_cert: Option<PathBuf>,
    /// Encryption certificate's SM2 private key: a PEM file (PKCS#8 or SEC1) or a key URI
    /// (`sdf:…`, `skf:…` or `pkcs11:…`, as the README's "Keys in an HSM" writes them)
    #[arg(long)]
    enc_key: Option<KeyUri>,
    /// Passphrase of encrypted key files (pass:TEXT, env:VAR, file:PATH or stdin)
    #[arg(long, value_name = "SPEC")]
    passin: Option<String>,
}

/// The four files, read.
struct LoadedCerts {
    sign_chain: Vec<CertificateDer<'static>>,
    sign_key: Arc<dyn Sm2SignKey>,
    enc_cert: CertificateDer<'static>,
    enc_key: Arc<dyn Sm2EncKey>,
}

impl DualCerts {
    /// All four files, none, or a usage error naming what is missing.
    fn load(&self) -> Result<Option<LoadedCerts>, Failure> {
        let given = [
            self.sign_cert.is_some(),
            self.sign_key.is_some(),
            self.enc_cert.is_some(),
            self.enc_key.is_some(),
        ];
        match given.iter().filter(|&&p| p).count() {
            0 => return Ok(None),
            4 => {}
            _ => {
                return Err(Failure::usage(
                    "--sign-cert, --sign-key, --enc-cert and --enc-key go together",
                ));
            }
        }
        let (Some(sign_cert), Some(sign_key), Some(enc_cert), Some(enc_key)) = (
            &self.sign_cert,
            &self.sign_key,
            &self.enc_cert,
            &self.enc_key,
        ) else {
            return Ok(None);
        };
        let mut enc = certs(enc_cert)?;
        if enc.len() != 1 {
            return Err(Failure::new(format!(
                "{}: expected one certificate, found {}",
                enc_cert.display(),
                enc.len()
            )));
        }
        Ok(Some(LoadedCerts {
            sign_chain: certs(sign_cert)?,
            sign_key: sign_key.sign_key(self.passin.as_deref())?,
            enc_cert: enc.remove(0),
            enc_key: enc_key.enc_key(self.passin.as_deref())?,
        }))
    }
}

/// What configures a client: the roots, the client's own pair, the suites and the dialect.
#[derive(clap::Args)]
struct ClientOptions {
    /// Trusted CA certificates, PEM
    #[arg(long)]
    ca: PathBuf,
    /// CRLs the server's certificates are checked against (PEM or DER, repeatable): a
    /// revoked server is refused with certificate_revoked
    #[arg(long, value_name = "FILE")]
    crl: Vec<PathBuf>,
    #[command(flatten)]
    certs: DualCerts,
    /// Offer only this suite (default: all four; ECDHE only with client certificates)
    #[arg(long, value_enum)]
    suite: Option<Suite>,
    /// Send no server_name extension (GmSSL's tlcp_server refuses it, and the session_ticket
    /// one: use --gmssl-compat for that server)
    #[arg(long)]
    no_sni: bool,
    /// Speak GmSSL 3.3's dialect to its tlcp_server: a 71-byte ECDHE ClientKeyExchange,
    /// CertificateVerify over the handshake messages, and in the ECC suites the client's
    /// sign certificate chain alone (no encryption certificate); implies --no-sni and no
    /// session tickets
    #[arg(long)]
    gmssl_compat: bool,
    /// How the server name is checked: `san` (subjectAltName, the default), `cn`
    /// (commonName when the certificate has no subjectAltName: legacy SM PKIs), `none`
    /// (no check: only for a pinned private CA whose leaves name no host)
    #[arg(long, value_enum, default_value = "san")]
    name_check: NameCheckArg,
}

#[derive(clap::Args)]
struct ClientArgs {
    #[command(flatten)]
    peer: Peer,
    #[command(flatten)]
    options: ClientOptions,
    /// Connect this many more times afterwards, resuming the session, sending the same
    /// input each time
    #[arg(long, default_value_t = 0)]
    reconnect: u32,
}

/// Runs `shangmi tlcp …`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        Tlcp::Server(a) => serve::server(&a),
        Tlcp::Proxy(a) => serve::proxy(&a),
        Tlcp::Client(a) => client(&a),
        Tlcp::Get(a) => get::get(&a),
    }
}

fn certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, Failure> {
    let pem = std::fs::read(path).map_err(|e| failure(&path.display().to_string(), e))?;
    let certs =
        shangmi_tlcp::certs_from_pem(&pem).map_err(|e| failure(&path.display().to_string(), e))?;
    if certs.is_empty() {
        return Err(Failure::new(format!(
            "{}: no CERTIFICATE block",
            path.display()
        )));
    }
    Ok(certs)
}

fn roots(path: &Path) -> Result<RootCertStore, Failure> {
    let mut roots = RootCertStore::empty();
    for cert in certs(path)? {
        roots
            .add(cert)
            .map_err(|e| failure(&path.display().to_string(), e))?;
    }
    Ok(roots)
}

/// [`roots`] with the CRLs of `crls` (PEM or DER files, read strictly by shangmi-pki).
fn roots_with_crls(path: &Path, crls: &[PathBuf]) -> Result<RootCertStore, Failure> {
    let mut roots = roots(path)?;
    for crl in crate::cert::crl::load_all_crls(crls)? {
        roots
            .add_crl(crl.to_der())
            .map_err(|e| failure("--crl", e))?;
    }
    Ok(roots)
}

/// The NSS key log of `SSLKEYLOGFILE`, when that is set (rustls' writer, shared with
/// the `tls` commands).
pub(crate) fn key_log() -> Option<Arc<shangmi_tlcp::KeyLogFile>> {
    std::env::var_os("SSLKEYLOGFILE").map(|_| Arc::new(shangmi_tlcp::KeyLogFile::new()))
}

/// A certificate's subject, as OpenSSL prints it one-line.
fn subject(cert: &CertificateDer<'_>) -> String {
    use der::Decode;
    x509_cert::Certificate::from_der(cert.as_ref()).map_or_else(
        |_| "(unreadable certificate)".into(),
        |c| c.tbs_certificate().subject().to_string(),
    )
}

/// What was negotiated, one line each, on standard error.
fn report(suite: Option<CipherSuite>, peer: Option<&[CertificateDer<'static>]>, resumed: bool) {
    let suite = suite.map_or_else(
        || "none".into(),
        |s| format!("{} (0x{:04X})", s.name(), s.id()),
    );
    eprintln!("protocol: TLCP 1.1 (0x0101)");
    eprintln!("suite: {suite}");
    match peer {
        Some([sign, enc, ..]) => {
            eprintln!("peer sign certificate: {}", subject(sign));
            eprintln!("peer encryption certificate: {}", subject(enc));
        }
        _ => eprintln!("peer certificates: none"),
    }
    eprintln!("resumed: {}", if resumed { "yes" } else { "no" });
}

/// The client configuration `options` describe.
fn client_config(options: &ClientOptions) -> Result<Arc<ClientConfig>, Failure> {
    let mut builder = ClientConfig::builder(roots_with_crls(&options.ca, &options.crl)?);
    // In module mode every random value of the handshakes and records from the module.
    if let Some(random) = crate::selftest::tls_random()? {
        builder = builder.rng(random.clone());
    }
    if let Some(suite) = options.suite {
        builder = builder.suites(&[suite.suite()]);
    }
    if let Some(loaded) = options.certs.load()? {
        builder = builder.client_certs(
            loaded.sign_chain,
            loaded.sign_key,
            loaded.enc_cert,
            loaded.enc_key,
        );
    }
    if options.no_sni || options.gmssl_compat {
        builder = builder.enable_sni(false);
    }
    if options.gmssl_compat {
        builder = builder.gmssl_compat(true);
    }
    if let Some(log) = key_log() {
        builder = builder.key_log(log);
    }
    builder = builder.name_check(match options.name_check {
        NameCheckArg::San => NameCheck::SubjectAltName,
        NameCheckArg::Cn => NameCheck::CommonNameFallback,
        NameCheckArg::None => NameCheck::DangerousNone,
    });
    Ok(Arc::new(
        builder.build().map_err(|e| failure("configuration", e))?,
    ))
}

fn client(args: &ClientArgs) -> Result<ExitCode, Failure> {
    let config = client_config(&args.options)?;
    let name = args.peer.name()?;
    client_rounds(args.reconnect, |input| {
        client_once(&args.peer.connect, &config, &name, input)
    })
}

/// One connection: handshake, report, send `input`, close our side, read the reply.
fn client_once(
    connect: &str,
    config: &Arc<ClientConfig>,
    name: &ServerName<'static>,
    input: &[u8],
) -> Result<Vec<u8>, Failure> {
    crate::selftest::check_service()?;
    let conn =
        ClientConnection::new(config.clone(), name.clone()).map_err(|e| failure("TLCP", e))?;
    let sock = TcpStream::connect(connect).map_err(|e| failure(connect, e))?;
    let mut tlcp = StreamOwned::new(conn, sock);
    tlcp.handshake().map_err(|e| failure("handshake", e))?;
    report(
        tlcp.conn.negotiated_cipher_suite(),
        tlcp.conn.peer_certificates(),
        tlcp.conn.is_resumed(),
    );
    tlcp.write_all(input).map_err(|e| failure("write", e))?;
    tlcp.flush().map_err(|e| failure("write", e))?;
    tlcp.close().map_err(|e| failure("close", e))?;
    read_reply(&mut tlcp)
}
