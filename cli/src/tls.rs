//! `shangmi tls server|client`: TLS 1.3 with the RFC 8998 suites over TCP, the SM
//! counterpart of `openssl s_server` / `s_client`, on `shangmi-rustls`.
//!
//! The server answers each connection by echoing what it reads until the client closes;
//! the client sends its standard input, closes its side (close_notify) and prints what comes
//! back. Both print the negotiated suite, group and the peer's signature scheme on standard
//! error.

use crate::exchange::{Peer, client_rounds, failure, read_reply};
use crate::failure::Failure;
use crate::keyuri::KeyUri;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{
    CertificateDer, CertificateRevocationListDer, PrivateKeyDer, ServerName, UnixTime,
};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::sign::{CertifiedKey, SingleCertAndKey};
use rustls::{
    ClientConfig, ClientConnection, CommonState, ConnectionCommon, DigitallySignedStruct,
    DistinguishedName, RootCertStore, ServerConfig, ServerConnection, SignatureScheme, StreamOwned,
    SupportedCipherSuite,
};
use shangmi_rustls::sign::DeviceKey;
use shangmi_rustls::{kx, suites};
use shangmi_sdf::KeyUsage;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// TLS 1.3 with SM suites: an echo server and a client.
#[derive(clap::Args)]
#[command(after_help = "\
With SSLKEYLOGFILE=FILE in the environment, both commands append the TLS 1.3 traffic secrets \
to FILE in the NSS key-log format, for Wireshark.")]
pub struct Args {
    #[command(subcommand)]
    command: Tls,
}

#[derive(clap::Subcommand)]
enum Tls {
    /// Accept TLS connections and echo what each client sends.
    Server(ServerArgs),
    /// Connect, send standard input, print what the server returns.
    Client(ClientArgs),
}

/// Cipher suite choice.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Suite {
    /// TLS_SM4_GCM_SM3 (0x00C6)
    Gcm,
    /// TLS_SM4_CCM_SM3 (0x00C7)
    Ccm,
}

/// Key exchange group choice.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Group {
    /// curveSM2 (0x0029)
    Sm2,
    /// curveSM2MLKEM768 (0x11EE); a client also offers its SM2 half as a curveSM2 share
    #[value(name = "sm2-mlkem768")]
    Sm2Mlkem768,
}

/// Choices shared by both sides.
#[derive(clap::Args)]
struct Common {
    /// Offer only this suite (default: both, GCM first)
    #[arg(long, value_enum)]
    suite: Option<Suite>,
    /// Offer only this group (default: curveSM2, then curveSM2MLKEM768)
    #[arg(long, value_enum)]
    group: Option<Group>,
}

#[derive(clap::Args)]
struct ServerArgs {
    /// Address to listen on, e.g. 127.0.0.1:4433
    #[arg(long)]
    listen: String,
    /// Certificate chain, PEM, leaf first
    #[arg(long)]
    cert: PathBuf,
    /// SM2 private key, PEM (PKCS#8 or SEC1 `EC PRIVATE KEY`), or a sign key in a device
    /// (sdf:LIBRARY?index=N&pin-env=VAR, skf:…, pkcs11:…)
    #[arg(long)]
    key: PathBuf,
    /// Passphrase of an encrypted key (pass:TEXT, env:VAR, file:PATH or stdin)
    #[arg(long, value_name = "SPEC")]
    passin: Option<String>,
    /// Ask clients for a certificate and verify it against these CAs (PEM)
    #[arg(long)]
    client_ca: Option<PathBuf>,
    /// CRLs the client's chain is checked against (PEM or DER, repeatable): a revoked
    /// client is refused with certificate_revoked
    #[arg(long, value_name = "FILE", requires = "client_ca")]
    crl: Vec<PathBuf>,
    /// Serve this many connections, then exit (default: serve forever)
    #[arg(long)]
    count: Option<u64>,
    /// Session tickets sent after each handshake (rustls' default is 2)
    #[arg(long)]
    tickets: Option<usize>,
    #[command(flatten)]
    common: Common,
}

#[derive(clap::Args)]
struct ClientArgs {
    #[command(flatten)]
    peer: Peer,
    /// Trusted CA certificates, PEM
    #[arg(long)]
    ca: PathBuf,
    /// CRLs the server's chain is checked against (PEM or DER, repeatable): a revoked
    /// server is refused with certificate_revoked
    #[arg(long, value_name = "FILE")]
    crl: Vec<PathBuf>,
    /// Client certificate chain, PEM (with --key, for mutual authentication)
    #[arg(long, requires = "key")]
    cert: Option<PathBuf>,
    /// Client private key, PEM, or a sign key in a device (sdf:…, skf:… or pkcs11:…)
    #[arg(long, requires = "cert")]
    key: Option<PathBuf>,
    /// Passphrase of an encrypted client key (pass:TEXT, env:VAR, file:PATH or stdin)
    #[arg(long, value_name = "SPEC")]
    passin: Option<String>,
    /// Connect this many more times afterwards, resuming the session (tickets of the
    /// earlier connections), sending the same input each time
    #[arg(long, default_value_t = 0)]
    reconnect: u32,
    /// Send a KeyUpdate (update_requested) after the handshake, before the input
    #[arg(long)]
    key_update: bool,
    #[command(flatten)]
    common: Common,
}

/// Runs `shangmi tls …`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        Tls::Server(a) => server(&a),
        Tls::Client(a) => client(&a),
    }
}

/// The SM provider: in module mode every random value (randoms, key shares, session
/// identifiers, tickets) from the module's DRBG, otherwise from the operating system.
fn sm_provider() -> Result<CryptoProvider, Failure> {
    Ok(match crate::selftest::tls_random()? {
        Some(random) => shangmi_rustls::provider_with_random(&**random),
        None => shangmi_rustls::provider(),
    })
}

fn provider(common: &Common, client_side: bool) -> Result<Arc<CryptoProvider>, Failure> {
    let mut provider = sm_provider()?;
    if let Some(suite) = common.suite {
        let chosen: SupportedCipherSuite = match suite {
            Suite::Gcm => suites::TLS13_SM4_GCM_SM3,
            Suite::Ccm => suites::TLS13_SM4_CCM_SM3,
        };
        provider.cipher_suites = vec![chosen];
    }
    if let Some(group) = common.group {
        let names = match (group, client_side) {
            (Group::Sm2, _) => &[kx::CURVE_SM2_ID][..],
            (Group::Sm2Mlkem768, true) => &[kx::CURVE_SM2_MLKEM768_ID, kx::CURVE_SM2_ID],
            (Group::Sm2Mlkem768, false) => &[kx::CURVE_SM2_MLKEM768_ID],
        };
        // The provider's own groups (in module mode, those drawing from the module).
        let groups: Vec<&'static dyn SupportedKxGroup> = names
            .iter()
            .filter_map(|&name| {
                provider
                    .kx_groups
                    .iter()
                    .copied()
                    .find(|g| g.name() == name)
            })
            .collect();
        provider.kx_groups = groups;
    }
    Ok(Arc::new(provider))
}

fn certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, Failure> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|iter| iter.collect::<Result<Vec<_>, _>>())
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    if certs.is_empty() {
        return Err(Failure::new(format!(
            "{}: no CERTIFICATE block",
            path.display()
        )));
    }
    Ok(certs)
}

fn key(path: &Path, passin: Option<&str>) -> Result<PrivateKeyDer<'static>, Failure> {
    let secret = crate::sm2::keyread::load_key_file(path, passin)?;
    let form = shangmi_sm2::keys::AlgorithmForm::EcPublicKey;
    let der = shangmi_sm2::keys::secret_key_to_pkcs8_der(&secret, form)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    Ok(PrivateKeyDer::Pkcs8(der.as_bytes().to_vec().into()))
}

/// The chain with a key in a device (an `sdf:` URI) signing through the provider's
/// `DeviceKey`, checked to match the leaf as `with_single_cert` checks a key file.
fn device_key(
    chain: Vec<CertificateDer<'static>>,
    uri: &KeyUri,
    path: &Path,
) -> Result<Arc<SingleCertAndKey>, Failure> {
    let key = uri.open_any(Some(KeyUsage::Sign), None)?;
    let key = DeviceKey::new(Arc::new(key)).map_err(|e| failure(&path.display().to_string(), e))?;
    let certified = CertifiedKey::new(chain, Arc::new(key));
    certified
        .keys_match()
        .map_err(|e| failure(&path.display().to_string(), e))?;
    Ok(Arc::new(SingleCertAndKey::from(certified)))
}

/// The server's chain and key: a key file, or a key in a device.
fn with_server_key(
    builder: rustls::ConfigBuilder<ServerConfig, rustls::server::WantsServerCert>,
    chain: Vec<CertificateDer<'static>>,
    path: &Path,
    passin: Option<&str>,
) -> Result<ServerConfig, Failure> {
    match KeyUri::of_path(path)? {
        KeyUri::File(_) => builder
            .with_single_cert(chain, key(path, passin)?)
            .map_err(|e| failure(&path.display().to_string(), e)),
        uri => Ok(builder.with_cert_resolver(device_key(chain, &uri, path)?)),
    }
}

/// Every CRL of the files, for rustls' verifiers.
fn crls(paths: &[PathBuf]) -> Result<Vec<CertificateRevocationListDer<'static>>, Failure> {
    Ok(crate::cert::crl::load_all_crls(paths)?
        .iter()
        .map(|c| CertificateRevocationListDer::from(c.to_der().to_vec()))
        .collect())
}

fn roots(path: &Path) -> Result<Arc<RootCertStore>, Failure> {
    let mut roots = RootCertStore::empty();
    for cert in certs(path)? {
        roots
            .add(cert)
            .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    }
    Ok(Arc::new(roots))
}

/// The peer's handshake signature scheme, as the verifier saw it.
type SeenScheme = Arc<Mutex<Option<SignatureScheme>>>;

fn note_scheme(seen: &SeenScheme, scheme: SignatureScheme) {
    if let Ok(mut slot) = seen.lock() {
        *slot = Some(scheme);
    }
}

fn scheme_name(scheme: SignatureScheme) -> String {
    if scheme == shangmi_rustls::sign::SM2_SM3 {
        "sm2sig_sm3 (0x0708)".into()
    } else {
        format!("{scheme:?}")
    }
}

/// What was negotiated, one line each, on standard error.
fn report(conn: &CommonState, seen: &SeenScheme) {
    let suite = match conn.negotiated_cipher_suite().map(|s| s.suite()) {
        Some(s) if s == suites::TLS_SM4_GCM_SM3_ID => "TLS_SM4_GCM_SM3 (0x00C6)".into(),
        Some(s) if s == suites::TLS_SM4_CCM_SM3_ID => "TLS_SM4_CCM_SM3 (0x00C7)".into(),
        other => format!("{other:?}"),
    };
    let group = match conn.negotiated_key_exchange_group().map(|g| g.name()) {
        Some(g) if g == kx::CURVE_SM2_ID => "curveSM2 (0x0029)".into(),
        Some(g) if g == kx::CURVE_SM2_MLKEM768_ID => "curveSM2MLKEM768 (0x11EE)".into(),
        other => format!("{other:?}"),
    };
    let scheme = seen
        .lock()
        .ok()
        .and_then(|s| *s)
        .map_or_else(|| "none (peer not authenticated)".into(), scheme_name);
    eprintln!("suite: {suite}");
    eprintln!("group: {group}");
    eprintln!("peer signature: {scheme}");
    eprintln!("handshake: {:?}", conn.handshake_kind());
}

/// The handshake-signature methods both recording verifiers share: forward to `inner`,
/// noting the TLS 1.3 scheme on the way (the two traits declare them alike).
macro_rules! signature_methods {
    () => {
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.inner.verify_tls12_signature(message, cert, dss)
        }

        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            note_scheme(&self.seen, dss.scheme);
            self.inner.verify_tls13_signature(message, cert, dss)
        }

        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.inner.supported_verify_schemes()
        }
    };
}

/// A server-certificate verifier that records the scheme of the server's CertificateVerify.
#[derive(Debug)]
struct RecordingServerVerifier {
    inner: Arc<WebPkiServerVerifier>,
    seen: SeenScheme,
}

impl ServerCertVerifier for RecordingServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.inner
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    signature_methods!();
}

/// A client-certificate verifier that records the scheme of the client's CertificateVerify.
#[derive(Debug)]
struct RecordingClientVerifier {
    inner: Arc<dyn ClientCertVerifier>,
    seen: SeenScheme,
}

impl ClientCertVerifier for RecordingClientVerifier {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        self.inner.root_hint_subjects()
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.inner
            .verify_client_cert(end_entity, intermediates, now)
    }

    signature_methods!();
}

fn server(args: &ServerArgs) -> Result<ExitCode, Failure> {
    let provider = provider(&args.common, false)?;
    let chain = certs(&args.cert)?;
    let builder = ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| failure("configuration", e))?;
    let seen: SeenScheme = Arc::default();
    let builder = match &args.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let inner = shangmi_rustls::verify::client_verifier(roots(ca)?, crls(&args.crl)?)
                .map_err(|e| failure("client verifier", e))?;
            builder.with_client_cert_verifier(Arc::new(RecordingClientVerifier {
                inner,
                seen: seen.clone(),
            }))
        }
    };
    let mut config = with_server_key(builder, chain, &args.key, args.passin.as_deref())?;
    if let Some(n) = args.tickets {
        config.send_tls13_tickets = n;
    }
    set_key_log(&mut config.key_log);
    let config = Arc::new(config);
    let listener = TcpListener::bind(&args.listen).map_err(|e| failure(&args.listen, e))?;
    eprintln!("listening on {}", args.listen);
    for (served, stream) in (1u64..).zip(listener.incoming()) {
        let stream = stream.map_err(|e| failure("accept", e))?;
        // In module mode, no service once the module is in its error state: the
        // connection is closed unanswered.
        if let Err(e) = crate::selftest::check_service() {
            eprintln!("connection refused: {e}");
            drop(stream);
        } else if let Err(e) = serve_one(config.clone(), stream, &seen) {
            eprintln!("connection failed: {e}");
        }
        if args.count.is_some_and(|n| served >= n) {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A TLS 1.3 server configuration with every RFC 8998 suite and group, client
/// certificates checked by `clients` (none: no client authentication), for `shangmi tlcp
/// server --tls13-cert` (one port, both protocols).
pub(crate) fn server_config_tls13(
    cert: &Path,
    key_path: &Path,
    passin: Option<&str>,
    clients: Option<Arc<dyn ClientCertVerifier>>,
) -> Result<Arc<ServerConfig>, Failure> {
    let provider = Arc::new(sm_provider()?);
    let builder = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| failure("configuration", e))?;
    let builder = match clients {
        Some(v) => builder.with_client_cert_verifier(v),
        None => builder.with_no_client_auth(),
    };
    let mut config = with_server_key(builder, certs(cert)?, key_path, passin)?;
    set_key_log(&mut config.key_log);
    Ok(Arc::new(config))
}

/// rustls' `SSLKEYLOGFILE` writer, when that variable is set.
fn set_key_log(key_log: &mut Arc<dyn rustls::KeyLog>) {
    if std::env::var_os("SSLKEYLOGFILE").is_some() {
        *key_log = Arc::new(rustls::KeyLogFile::new());
    }
}

/// Runs the handshake of `conn` over `sock` to its end.
fn handshake<D>(conn: &mut ConnectionCommon<D>, sock: &mut TcpStream) -> Result<(), Failure> {
    while conn.is_handshaking() {
        conn.complete_io(sock)
            .map_err(|e| failure("handshake", e))?;
    }
    Ok(())
}

fn serve_one(
    config: Arc<ServerConfig>,
    stream: TcpStream,
    seen: &SeenScheme,
) -> Result<(), Failure> {
    let conn = ServerConnection::new(config).map_err(|e| failure("TLS", e))?;
    let mut tls = StreamOwned::new(conn, stream);
    handshake(&mut tls.conn, &mut tls.sock)?;
    report(&tls.conn, seen);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match tls.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => tls.write_all(&buf[..n]).map_err(|e| failure("write", e))?,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err(failure("read", e)),
        }
    }
    tls.conn.send_close_notify();
    tls.conn
        .complete_io(&mut tls.sock)
        .map_err(|e| failure("close", e))?;
    Ok(())
}

fn client(args: &ClientArgs) -> Result<ExitCode, Failure> {
    let provider = provider(&args.common, true)?;
    let seen: SeenScheme = Arc::default();
    let inner = shangmi_rustls::verify::server_verifier(roots(&args.ca)?, crls(&args.crl)?)
        .map_err(|e| failure("server verifier", e))?;
    let builder = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|e| failure("configuration", e))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(RecordingServerVerifier {
            inner,
            seen: seen.clone(),
        }));
    let mut config = match (&args.cert, &args.key) {
        (Some(cert), Some(key_path)) => match KeyUri::of_path(key_path)? {
            KeyUri::File(_) => builder
                .with_client_auth_cert(certs(cert)?, key(key_path, args.passin.as_deref())?)
                .map_err(|e| failure(&key_path.display().to_string(), e))?,
            uri => builder.with_client_cert_resolver(device_key(certs(cert)?, &uri, key_path)?),
        },
        _ => builder.with_no_client_auth(),
    };
    set_key_log(&mut config.key_log);
    let name = args.peer.name()?;
    let config = Arc::new(config);
    client_rounds(args.reconnect, |input| {
        client_once(args, &config, &name, &seen, input)
    })
}

/// One connection: handshake, report, send `input`, close our side, read the reply.
fn client_once(
    args: &ClientArgs,
    config: &Arc<ClientConfig>,
    name: &ServerName<'static>,
    seen: &SeenScheme,
    input: &[u8],
) -> Result<Vec<u8>, Failure> {
    crate::selftest::check_service()?;
    let conn =
        ClientConnection::new(config.clone(), name.clone()).map_err(|e| failure("TLS", e))?;
    let sock =
        TcpStream::connect(&args.peer.connect).map_err(|e| failure(&args.peer.connect, e))?;
    let mut tls = StreamOwned::new(conn, sock);
    handshake(&mut tls.conn, &mut tls.sock)?;
    report(&tls.conn, seen);
    if args.key_update {
        tls.conn
            .refresh_traffic_keys()
            .map_err(|e| failure("KeyUpdate", e))?;
        eprintln!("sent KeyUpdate (update_requested)");
    }
    tls.write_all(input).map_err(|e| failure("write", e))?;
    tls.conn.send_close_notify();
    tls.flush().map_err(|e| failure("write", e))?;
    read_reply(&mut tls)
}
