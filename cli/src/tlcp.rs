//! `shangmi tlcp server|client`: TLCP (GB/T 38636-2020) over TCP with dual SM2
//! certificates, on `shangmi-tlcp` — the counterpart of Tongsuo's `s_server -enable_ntls`
//! / `s_client -ntls` and GmSSL's `tlcp_server` / `tlcp_client`.
//!
//! The server echoes what each client sends until the client closes; with a TLS 1.3
//! certificate and key it serves RFC 8998 TLS 1.3 (shangmi-rustls) on the same port, picking
//! the protocol from the version in the first record's header (01 01 is TLCP, 03 xx TLS), as
//! Tongsuo's and gotlcp's servers do. The client sends its standard input, closes its side
//! (close_notify) and prints what comes back. Both print the negotiated suite, the peer's
//! certificate subjects and whether the session was resumed, on standard error.

use crate::failure::Failure;
use shangmi_tlcp::{
    CertificateDer, CipherSuite, ClientAuth, ClientConfig, ClientConnection, NameCheck,
    RootCertStore, ServerConfig, ServerConnection, ServerName, Sm2PrivateKey, StreamOwned,
};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// TLCP with dual SM2 certificates: an echo server and a client.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Tlcp,
}

#[derive(clap::Subcommand)]
enum Tlcp {
    /// Accept TLCP (and, with --tls13-cert, TLS 1.3) connections and echo what each client
    /// sends.
    Server(ServerArgs),
    /// Connect, send standard input, print what the server returns.
    Client(ClientArgs),
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
    /// Sign certificate's SM2 private key, PEM (PKCS#8 or SEC1)
    #[arg(long)]
    sign_key: Option<PathBuf>,
    /// Encryption certificate, PEM
    #[arg(long)]
    enc_cert: Option<PathBuf>,
    /// Encryption certificate's SM2 private key, PEM (PKCS#8 or SEC1)
    #[arg(long)]
    enc_key: Option<PathBuf>,
}

/// The four files, read.
struct LoadedCerts {
    sign_chain: Vec<CertificateDer<'static>>,
    sign_key: Arc<Sm2PrivateKey>,
    enc_cert: CertificateDer<'static>,
    enc_key: Arc<Sm2PrivateKey>,
}

impl DualCerts {
    /// All four files, none, or a usage error naming what is missing.
    fn load(&self) -> Result<Option<LoadedCerts>, Failure> {
        let given = [
            &self.sign_cert,
            &self.sign_key,
            &self.enc_cert,
            &self.enc_key,
        ];
        match given.iter().filter(|p| p.is_some()).count() {
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
            sign_key: Arc::new(key(sign_key)?),
            enc_cert: enc.remove(0),
            enc_key: Arc::new(key(enc_key)?),
        }))
    }
}

#[derive(clap::Args)]
struct ServerArgs {
    /// Address to listen on, e.g. 127.0.0.1:4433
    #[arg(long)]
    listen: String,
    #[command(flatten)]
    certs: DualCerts,
    /// CA certificates sent after the sign certificate, PEM
    #[arg(long)]
    ca: Option<PathBuf>,
    /// Require client certificates (sign + encryption) chaining to these CAs, PEM
    #[arg(long)]
    client_ca: Option<PathBuf>,
    /// CRLs the client's certificates are checked against (PEM or DER, repeatable): a
    /// revoked client is refused with certificate_revoked
    #[arg(long, value_name = "FILE", requires = "client_ca")]
    crl: Vec<PathBuf>,
    /// Accept only this suite (default: all four; ECDHE only with --client-ca)
    #[arg(long, value_enum)]
    suite: Option<Suite>,
    /// Also serve RFC 8998 TLS 1.3 on the same port with this certificate chain, PEM
    #[arg(long, requires = "tls13_key")]
    tls13_cert: Option<PathBuf>,
    /// The TLS 1.3 certificate's SM2 private key, PEM
    #[arg(long, requires = "tls13_cert")]
    tls13_key: Option<PathBuf>,
    /// Issue RFC 5077 session tickets (SM4-GCM under a key made at start) besides the
    /// session-ID cache
    #[arg(long)]
    tickets: bool,
    /// Serve this many connections, then exit (default: serve forever)
    #[arg(long)]
    count: Option<u64>,
}

#[derive(clap::Args)]
struct ClientArgs {
    /// Server address, e.g. 127.0.0.1:4433
    #[arg(long)]
    connect: String,
    /// Name to check the server's sign certificate against (and to send as SNI)
    #[arg(long)]
    server_name: String,
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
    /// Speak GmSSL 3.3's dialect to its tlcp_server: a 71-byte ECDHE ClientKeyExchange and
    /// CertificateVerify over the handshake messages; implies --no-sni and no session tickets
    #[arg(long)]
    gmssl_compat: bool,
    /// How --server-name is checked: `san` (subjectAltName, the default), `cn`
    /// (commonName when the certificate has no subjectAltName: legacy SM PKIs), `none`
    /// (no check: only for a pinned private CA whose leaves name no host)
    #[arg(long, value_enum, default_value = "san")]
    name_check: NameCheckArg,
    /// Connect this many more times afterwards, resuming the session, sending the same
    /// input each time
    #[arg(long, default_value_t = 0)]
    reconnect: u32,
}

/// Runs `shangmi tlcp …`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        Tlcp::Server(a) => server(&a),
        Tlcp::Client(a) => client(&a),
    }
}

fn failure(what: &str, e: impl std::fmt::Display) -> Failure {
    Failure::new(format!("{what}: {e}"))
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

fn key(path: &Path) -> Result<Sm2PrivateKey, Failure> {
    let pem = std::fs::read_to_string(path).map_err(|e| failure(&path.display().to_string(), e))?;
    Sm2PrivateKey::from_pem(&pem).map_err(|e| failure(&path.display().to_string(), e))
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

fn server(args: &ServerArgs) -> Result<ExitCode, Failure> {
    let Some(mut loaded) = args.certs.load()? else {
        return Err(Failure::usage(
            "the server needs --sign-cert, --sign-key, --enc-cert and --enc-key",
        ));
    };
    if let Some(ca) = &args.ca {
        loaded.sign_chain.extend(certs(ca)?);
    }
    let mut builder = ServerConfig::builder();
    if let Some(suite) = args.suite {
        builder = builder.suites(&[suite.suite()]);
    }
    if let Some(ca) = &args.client_ca {
        builder = builder.client_auth(ClientAuth::Required, roots_with_crls(ca, &args.crl)?);
    }
    if args.tickets {
        builder = builder.session_tickets(true);
    }
    let config = builder
        .with_certs(
            loaded.sign_chain,
            loaded.sign_key,
            loaded.enc_cert,
            loaded.enc_key,
        )
        .map_err(|e| failure("configuration", e))?;
    let config = Arc::new(config);
    let tls13 = match (&args.tls13_cert, &args.tls13_key) {
        (Some(cert), Some(key)) => Some(crate::tls::server_config_tls13(cert, key)?),
        _ => None,
    };
    let listener = TcpListener::bind(&args.listen).map_err(|e| failure(&args.listen, e))?;
    eprintln!("listening on {}", args.listen);
    for (served, stream) in (1u64..).zip(listener.incoming()) {
        let stream = stream.map_err(|e| failure("accept", e))?;
        let result = match (&tls13, sniff(&stream)) {
            (Some(tls13), Ok(Protocol::Tls)) => crate::tls::serve_tls13(tls13.clone(), stream),
            (_, Ok(_)) => serve_one(config.clone(), stream),
            (_, Err(e)) => Err(failure("first record", e)),
        };
        if let Err(e) = result {
            eprintln!("connection failed: {e}");
        }
        if args.count.is_some_and(|n| served >= n) {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Which protocol a connection speaks.
#[derive(Debug, PartialEq, Eq)]
enum Protocol {
    /// TLCP: record version 01 01.
    Tlcp,
    /// TLS: record version 03 xx.
    Tls,
}

/// Reads, without consuming, the first record header's version bytes (type 22, then the
/// version). Anything else goes to TLCP, which answers it with its own alert.
fn sniff(stream: &TcpStream) -> std::io::Result<Protocol> {
    let mut header = [0u8; 3];
    let mut seen = 0;
    // peek returns what has arrived so far; wait (bounded by the socket) for three bytes.
    for _ in 0..64 {
        seen = stream.peek(&mut header)?;
        if seen >= 3 || seen == 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    Ok(classify(&header[..seen]))
}

/// The protocol of a connection whose first bytes are `first`.
fn classify(first: &[u8]) -> Protocol {
    match first {
        [22, 3, _, ..] => Protocol::Tls,
        _ => Protocol::Tlcp,
    }
}

fn serve_one(config: Arc<ServerConfig>, stream: TcpStream) -> Result<(), Failure> {
    let conn = ServerConnection::new(config).map_err(|e| failure("TLCP", e))?;
    let mut tlcp = StreamOwned::new(conn, stream);
    tlcp.handshake().map_err(|e| failure("handshake", e))?;
    report(
        tlcp.conn.negotiated_cipher_suite(),
        tlcp.conn.peer_certificates(),
        tlcp.conn.is_resumed(),
    );
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match tlcp.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => tlcp.write_all(&buf[..n]).map_err(|e| failure("write", e))?,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(failure("read", e)),
        }
    }
    tlcp.close().map_err(|e| failure("close", e))?;
    Ok(())
}

fn client(args: &ClientArgs) -> Result<ExitCode, Failure> {
    let mut builder = ClientConfig::builder(roots_with_crls(&args.ca, &args.crl)?);
    if let Some(suite) = args.suite {
        builder = builder.suites(&[suite.suite()]);
    }
    if let Some(loaded) = args.certs.load()? {
        builder = builder.client_certs(
            loaded.sign_chain,
            loaded.sign_key,
            loaded.enc_cert,
            loaded.enc_key,
        );
    }
    if args.no_sni || args.gmssl_compat {
        builder = builder.enable_sni(false);
    }
    if args.gmssl_compat {
        builder = builder.gmssl_compat(true);
    }
    builder = builder.name_check(match args.name_check {
        NameCheckArg::San => NameCheck::SubjectAltName,
        NameCheckArg::Cn => NameCheck::CommonNameFallback,
        NameCheckArg::None => NameCheck::DangerousNone,
    });
    let config = Arc::new(builder.build().map_err(|e| failure("configuration", e))?);
    let name = ServerName::try_from(args.server_name.clone())
        .map_err(|e| Failure::usage(format!("--server-name {}: {e}", args.server_name)))?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| failure("standard input", e))?;
    for _ in 0..=args.reconnect {
        let reply = client_once(args, &config, &name, &input)?;
        std::io::stdout()
            .write_all(&reply)
            .map_err(|e| failure("standard output", e))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One connection: handshake, report, send `input`, close our side, read the reply.
fn client_once(
    args: &ClientArgs,
    config: &Arc<ClientConfig>,
    name: &ServerName<'static>,
    input: &[u8],
) -> Result<Vec<u8>, Failure> {
    let conn =
        ClientConnection::new(config.clone(), name.clone()).map_err(|e| failure("TLCP", e))?;
    let sock = TcpStream::connect(&args.connect).map_err(|e| failure(&args.connect, e))?;
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
    let mut reply = Vec::new();
    match tlcp.read_to_end(&mut reply) {
        Ok(_) => {}
        // A peer that closes TCP without close_notify (Tongsuo's s_server does).
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {}
        Err(e) => return Err(failure("read", e)),
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_record_picks_the_protocol() {
        // A TLCP ClientHello record starts 16 01 01, a TLS one 16 03 01 (TLS 1.3 sends the
        // legacy record version 03 01, RFC 8446 §5.1).
        assert_eq!(classify(&[22, 1, 1, 0, 80]), Protocol::Tlcp);
        assert_eq!(classify(&[22, 3, 1, 0, 80]), Protocol::Tls);
        assert_eq!(classify(&[22, 3, 3]), Protocol::Tls);
        assert_eq!(classify(&[21, 3, 3]), Protocol::Tlcp);
        assert_eq!(classify(&[]), Protocol::Tlcp);
    }
}
