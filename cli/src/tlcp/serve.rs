//! `shangmi tlcp server` and `shangmi tlcp proxy`: one port for TLCP, RFC 8998 TLS 1.3 and
//! ordinary TLS 1.3 on `shangmi_tlcp::oneport::OnePortAcceptor`, every connection in a
//! task of its own (a handshake deadline and a bound on handshakes in progress, so an idle
//! client holds up nobody), one log line per connection, and a graceful stop (Ctrl-C or
//! SIGTERM: stop accepting, let connections finish up to `--drain-timeout`).
//!
//! What a connection gets: an echo (the server's default), a status page for HTTP/1.x
//! requests (`--http`, like `s_server -www`), or the plain bytes forwarded to an upstream
//! TCP service (the proxy, as Tengine's NTLS module in front of a bank's service).

use super::{DualCerts, Suite, certs, failure, roots_with_crls, subject};
use crate::failure::Failure;
use rustls::pki_types::PrivateKeyDer;
use rustls::pki_types::pem::PemObject;
use rustls::server::danger::ClientCertVerifier;
use shangmi_tlcp::oneport::{ConnectionInfo, OnePortAcceptor, OnePortStream};
use shangmi_tlcp::{CertifiedKeys, ClientAuth, ServerConfig, SniResolver};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// What the one-port commands share: the address, the certificates and the bounds.
#[derive(clap::Args)]
pub(super) struct OnePortArgs {
    /// Address to listen on, e.g. 127.0.0.1:4433
    #[arg(long)]
    listen: String,
    #[command(flatten)]
    certs: DualCerts,
    /// CA certificates sent after the sign certificate, PEM
    #[arg(long)]
    ca: Option<PathBuf>,
    /// Another TLCP pair for clients asking for NAME by SNI (repeatable): DIR holds
    /// sign.crt, sign.key, enc.crt and enc.key, as `shangmi cert tlcp-pair --out-dir DIR`
    /// writes them (--ca and --passin apply). The pair of --sign-cert … is the default for
    /// other names and clients that send none; without it those are refused
    /// (unrecognized_name / handshake_failure)
    #[arg(long, value_name = "NAME=DIR")]
    sni: Vec<String>,
    /// Require client certificates chaining to these CAs, PEM: TLCP's sign + encryption
    /// pair (or, in the ECC suites, GmSSL's single sign chain), and on the TLS ports a
    /// certificate signed with SM2 (sm2sig_sm3); ordinary TLS clients without one are then
    /// refused too
    #[arg(long)]
    client_ca: Option<PathBuf>,
    /// CRLs the client's certificates are checked against (PEM or DER, repeatable): a
    /// revoked client is refused with certificate_revoked
    #[arg(long, value_name = "FILE", requires = "client_ca")]
    crl: Vec<PathBuf>,
    /// Accept only this TLCP suite (default: all four; ECDHE only with --client-ca)
    #[arg(long, value_enum)]
    suite: Option<Suite>,
    /// Also serve RFC 8998 TLS 1.3 on the same port with this SM2 certificate chain, PEM
    /// (clients offering TLS_SM4_*_SM3 and sm2sig_sm3)
    #[arg(long, requires = "tls13_key")]
    tls13_cert: Option<PathBuf>,
    /// The TLS 1.3 SM certificate's SM2 private key, PEM
    #[arg(long, requires = "tls13_cert")]
    tls13_key: Option<PathBuf>,
    /// Also serve ordinary TLS 1.3 (browsers, curl) with this ECDSA P-256/P-384 or RSA
    /// certificate chain, PEM
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The ordinary TLS certificate's private key, PEM (PKCS#8, SEC1 or PKCS#1)
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Issue RFC 5077 session tickets for TLCP (SM4-GCM under a key made at start) besides
    /// the session-ID cache
    #[arg(long)]
    tickets: bool,
    /// Seconds a client has to complete its handshake (idle and slow clients are closed)
    #[arg(long, default_value_t = 10.0)]
    handshake_timeout: f64,
    /// Handshakes in progress at once; further clients wait (within their deadline)
    #[arg(long, default_value_t = 256)]
    max_handshakes: usize,
    /// On Ctrl-C or SIGTERM, seconds to let open connections finish before closing them
    #[arg(long, default_value_t = 10.0)]
    drain_timeout: f64,
    /// Accept this many connections, let them finish, then exit (default: until stopped)
    #[arg(long)]
    count: Option<u64>,
}

/// `shangmi tlcp server`.
#[derive(clap::Args)]
pub(super) struct ServerArgs {
    #[command(flatten)]
    port: OnePortArgs,
    /// Answer HTTP/1.x requests with a status page (protocol, suite, peer) instead of
    /// echoing, as `s_server -www` does
    #[arg(long)]
    http: bool,
}

/// `shangmi tlcp proxy`.
#[derive(clap::Args)]
pub(super) struct ProxyArgs {
    #[command(flatten)]
    port: OnePortArgs,
    /// The TCP service that receives the plain bytes, HOST:PORT
    #[arg(long)]
    upstream: String,
    /// Close a connection after this many seconds without a byte either way (logged as
    /// "idle for N s"); 0: never
    #[arg(long, default_value_t = 300.0)]
    idle_timeout: f64,
}

/// What each accepted connection gets.
enum Mode {
    Echo,
    Http,
    /// The upstream's address, and the idle bound (`None`: none).
    Proxy(String, Option<Duration>),
}

fn seconds(what: &str, s: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| Failure::usage(format!("{what}: {s} is not a number of seconds")))
}

/// A pair from `dir` (the files `cert tlcp-pair` writes), its chain extended by `ca`.
fn pair_from_dir(
    dir: &std::path::Path,
    ca: &[rustls::pki_types::CertificateDer<'static>],
    passin: Option<&str>,
) -> Result<CertifiedKeys, Failure> {
    let key = |name: &str| -> Result<crate::keyuri::KeyUri, Failure> {
        let path = dir.join(name);
        path.to_str()
            .ok_or_else(|| Failure::usage(format!("{}: not UTF-8", path.display())))?
            .parse()
            .map_err(|e| failure(&path.display().to_string(), e))
    };
    let mut sign_chain = certs(&dir.join("sign.crt"))?;
    sign_chain.extend_from_slice(ca);
    let mut enc = certs(&dir.join("enc.crt"))?;
    if enc.len() != 1 {
        return Err(Failure::new(format!(
            "{}: expected one certificate, found {}",
            dir.join("enc.crt").display(),
            enc.len()
        )));
    }
    Ok(CertifiedKeys::new(
        sign_chain,
        key("sign.key")?.sign_key(passin)?,
        enc.remove(0),
        key("enc.key")?.enc_key(passin)?,
    ))
}

/// The server's pairs: by SNI (`--sni NAME=DIR`) with the four files' pair as the
/// default.
fn sni_resolver(args: &OnePortArgs) -> Result<SniResolver, Failure> {
    let ca = match &args.ca {
        Some(ca) => certs(ca)?,
        None => Vec::new(),
    };
    let passin = args.certs.passin.as_deref();
    let mut sni = SniResolver::new();
    for spec in &args.sni {
        let Some((name, dir)) = spec.split_once('=') else {
            return Err(Failure::usage(format!("--sni {spec}: expected NAME=DIR")));
        };
        let keys = pair_from_dir(std::path::Path::new(dir), &ca, passin)?;
        sni.add(name, keys)
            .map_err(|e| Failure::usage(format!("--sni {spec}: {e}")))?;
    }
    match args.certs.load()? {
        Some(mut loaded) => {
            loaded.sign_chain.extend(ca);
            sni.set_default(CertifiedKeys::new(
                loaded.sign_chain,
                loaded.sign_key,
                loaded.enc_cert,
                loaded.enc_key,
            ));
        }
        None if sni.is_empty() => {
            return Err(Failure::usage(
                "the server needs --sign-cert, --sign-key, --enc-cert and --enc-key (or --sni)",
            ));
        }
        None => {}
    }
    Ok(sni)
}

/// The TLCP configuration from the four files (and `--sni` pairs) and the options.
fn tlcp_config(args: &OnePortArgs) -> Result<Arc<ServerConfig>, Failure> {
    let resolver = sni_resolver(args)?;
    let mut builder = ServerConfig::builder();
    // In module mode every random value (randoms, session IDs, tickets and their key, the
    // ECDHE keys, CBC IVs) from the module's DRBG.
    if let Some(random) = crate::selftest::tls_random()? {
        builder = builder.rng(random.clone());
    }
    if let Some(suite) = args.suite {
        builder = builder.suites(&[suite.suite()]);
    }
    if let Some(ca) = &args.client_ca {
        builder = builder.client_auth(ClientAuth::Required, roots_with_crls(ca, &args.crl)?);
    }
    if args.tickets {
        builder = builder.session_tickets(true);
    }
    if let Some(log) = super::key_log() {
        builder = builder.key_log(log);
    }
    let config = builder
        .with_cert_resolver(Arc::new(resolver))
        .map_err(|e| failure("configuration", e))?;
    Ok(Arc::new(config))
}

/// Ordinary TLS 1.3 on rustls' ring provider (client certificates checked by `clients`).
fn ordinary_config(
    cert: &std::path::Path,
    key: &std::path::Path,
    clients: Option<Arc<dyn ClientCertVerifier>>,
) -> Result<Arc<rustls::ServerConfig>, Failure> {
    let chain = rustls::pki_types::CertificateDer::pem_file_iter(cert)
        .and_then(|iter| iter.collect::<Result<Vec<_>, _>>())
        .map_err(|e| failure(&cert.display().to_string(), e))?;
    let key_der =
        PrivateKeyDer::from_pem_file(key).map_err(|e| failure(&key.display().to_string(), e))?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_protocol_versions(&[&rustls::version::TLS13])
    .map_err(|e| failure("TLS configuration", e))?;
    let config = match clients {
        Some(v) => config.with_client_cert_verifier(v),
        None => config.with_no_client_auth(),
    };
    let mut config = config
        .with_single_cert(chain, key_der)
        .map_err(|e| failure(&key.display().to_string(), e))?;
    if std::env::var_os("SSLKEYLOGFILE").is_some() {
        config.key_log = Arc::new(rustls::KeyLogFile::new());
    }
    Ok(Arc::new(config))
}

/// The TLS ports' verifier of client certificates for `--client-ca` (and `--crl`):
/// shangmi-rustls' (SM2 chains and sm2sig_sm3 CertificateVerify, CRLs enforced).
fn tls_client_verifier(args: &OnePortArgs) -> Result<Option<Arc<dyn ClientCertVerifier>>, Failure> {
    let Some(ca) = &args.client_ca else {
        return Ok(None);
    };
    let mut roots = rustls::RootCertStore::empty();
    for cert in certs(ca)? {
        roots
            .add(cert)
            .map_err(|e| failure(&ca.display().to_string(), e))?;
    }
    let crls = crate::cert::crl::load_all_crls(&args.crl)?
        .iter()
        .map(|c| rustls::pki_types::CertificateRevocationListDer::from(c.to_der().to_vec()))
        .collect();
    shangmi_rustls::verify::client_verifier(Arc::new(roots), crls)
        .map(Some)
        .map_err(|e| failure("client verifier", e))
}

fn acceptor(args: &OnePortArgs) -> Result<Arc<OnePortAcceptor>, Failure> {
    let mut builder = OnePortAcceptor::builder()
        .tlcp(tlcp_config(args)?)
        .handshake_timeout(seconds("--handshake-timeout", args.handshake_timeout)?)
        .max_handshakes(args.max_handshakes);
    let clients = tls_client_verifier(args)?;
    if let (Some(cert), Some(key)) = (&args.tls13_cert, &args.tls13_key) {
        builder = builder.tls_sm(crate::tls::server_config_tls13(
            cert,
            key,
            args.certs.passin.as_deref(),
            clients.clone(),
        )?);
    }
    if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
        // ring makes its key shares from its own generator, which the module cannot
        // replace: no ordinary TLS in module mode.
        if crate::selftest::tls_random()?.is_some() {
            return Err(Failure::usage(
                "--tls-cert: ordinary TLS runs on ring, whose key shares do not come from \
                 the module's DRBG; not available in module mode",
            ));
        }
        builder = builder.tls(ordinary_config(cert, key, clients)?);
    }
    let acceptor = builder.build().map_err(|e| failure("configuration", e))?;
    Ok(Arc::new(acceptor))
}

/// Runs `shangmi tlcp server`.
pub(super) fn server(args: &ServerArgs) -> Result<ExitCode, Failure> {
    let mode = if args.http { Mode::Http } else { Mode::Echo };
    run(&args.port, mode)
}

/// Runs `shangmi tlcp proxy`.
pub(super) fn proxy(args: &ProxyArgs) -> Result<ExitCode, Failure> {
    let idle = seconds("--idle-timeout", args.idle_timeout)?;
    let idle = (!idle.is_zero()).then_some(idle);
    run(&args.port, Mode::Proxy(args.upstream.clone(), idle))
}

fn run(args: &OnePortArgs, mode: Mode) -> Result<ExitCode, Failure> {
    let acceptor = acceptor(args)?;
    let drain = seconds("--drain-timeout", args.drain_timeout)?;
    let mode = Arc::new(mode);
    let runtime = current_thread()?;
    // One current-thread runtime per core, each with a listener of its own on the port
    // (SO_REUSEPORT: the kernel spreads the connections): a connection's handshake and its
    // I/O run on the thread that accepted it, and no thread wakes another (on a
    // multi-thread runtime those wake-ups cost more than a resumed handshake's crypto).
    // Where the port cannot be shared (or with --count), one thread serves.
    let workers = workers(args);
    let shared = match workers {
        1 => None,
        _ => runtime.block_on(shared_listener(&args.listen)).ok(),
    };
    let Some(first) = shared else {
        return runtime.block_on(async {
            let listener = TcpListener::bind(&args.listen)
                .await
                .map_err(|e| failure(&args.listen, e))?;
            eprintln!("listening on {}", args.listen);
            serve(listener, args.count, acceptor, mode, drain, stop_signal()).await
        });
    };
    let addr = first.local_addr().map_err(|e| failure(&args.listen, e))?;
    let (stopping, stopped) = tokio::sync::watch::channel(false);
    let mut threads = Vec::new();
    for _ in 1..workers {
        let (acceptor, mode, mut stopped) = (acceptor.clone(), mode.clone(), stopped.clone());
        let (ready, is_ready) = std::sync::mpsc::channel();
        threads.push(std::thread::spawn(move || {
            let Ok(runtime) = current_thread() else {
                return;
            };
            runtime.block_on(async move {
                let listener = shared_listener(&addr.to_string()).await;
                let _ = ready.send(listener.as_ref().map(|_| ()).map_err(|e| e.to_string()));
                let Ok(listener) = listener else {
                    return;
                };
                let stop = async move {
                    let _ = stopped.wait_for(|s| *s).await;
                };
                let _ = serve(listener, None, acceptor, mode, drain, stop).await;
            });
        }));
        // A thread that could not listen leaves the others serving.
        if let Ok(Err(e)) = is_ready.recv() {
            eprintln!("{addr}: one thread fewer: {e}");
        }
    }
    eprintln!("listening on {addr} ({workers} threads)");
    let stop = async {
        stop_signal().await;
        let _ = stopping.send(true);
    };
    let result = runtime.block_on(serve(first, None, acceptor, mode, drain, stop));
    let _ = stopping.send(true);
    for thread in threads {
        let _ = thread.join();
    }
    result
}

/// A runtime on the calling thread (timers and I/O).
fn current_thread() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| failure("runtime", e))
}

/// How many threads accept and serve: one per core where listeners can share a port
/// (SO_REUSEPORT), else one; one with `--count` (so that the count is exact).
fn workers(args: &OnePortArgs) -> usize {
    if args.count.is_some() || port_sharing().is_none() {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// What lets listeners of this process share a port (SO_REUSEPORT), on the targets where
/// tokio offers it; `None` elsewhere.
#[allow(unreachable_code)] // the `None` after the targets' own return
fn port_sharing() -> Option<fn(&tokio::net::TcpSocket) -> std::io::Result<()>> {
    #[cfg(all(
        unix,
        not(any(
            target_os = "solaris",
            target_os = "illumos",
            target_os = "cygwin",
            target_os = "nuttx"
        ))
    ))]
    {
        return Some(|socket: &tokio::net::TcpSocket| socket.set_reuseport(true));
    }
    None
}

/// A listener on `addr` that other listeners of this process may share (SO_REUSEPORT).
async fn shared_listener(addr: &str) -> std::io::Result<TcpListener> {
    let mut last = None;
    for addr in tokio::net::lookup_host(addr).await? {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        if let Some(share) = port_sharing() {
            share(&socket)?;
        }
        match socket.bind(addr) {
            Ok(()) => return socket.listen(1024),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no address")))
}

/// Resolves when the process is asked to stop (Ctrl-C, or SIGTERM on Unix).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Accepts on `listener` (`count` connections, or until `stop`), each connection a task
/// on this thread; then lets them finish for up to `drain`.
async fn serve(
    listener: TcpListener,
    count: Option<u64>,
    acceptor: Arc<OnePortAcceptor>,
    mode: Arc<Mode>,
    drain: Duration,
    stop: impl std::future::Future<Output = ()>,
) -> Result<ExitCode, Failure> {
    tokio::pin!(stop);
    let mut tasks = JoinSet::new();
    let mut accepted = 0u64;
    while count.is_none_or(|n| accepted < n) {
        tokio::select! {
            _ = &mut stop => {
                eprintln!("stopping: no new connections, {} open", tasks.len());
                break;
            }
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
            incoming = listener.accept() => {
                let (sock, peer) = match incoming {
                    Ok(x) => x,
                    // Out of descriptors or a connection reset before accept: go on.
                    Err(e) => {
                        eprintln!("accept: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                accepted += 1;
                // Handshake flights go out as they are written, not after the peer's
                // delayed ACK (Nagle's algorithm held TLS 1.3's flights back by milliseconds).
                let _ = sock.set_nodelay(true);
                let (acceptor, mode) = (acceptor.clone(), mode.clone());
                tasks.spawn(async move { connection(&acceptor, sock, peer, &mode).await });
            }
        }
    }
    drop(listener);
    let finished =
        tokio::time::timeout(drain, async { while tasks.join_next().await.is_some() {} }).await;
    if finished.is_err() {
        eprintln!("closing {} connections still open", tasks.len());
        tasks.shutdown().await;
    }
    Ok(ExitCode::SUCCESS)
}

/// The first certificate's subject (TLCP: the sign certificate), or `-`.
fn peer_subject(info: &ConnectionInfo) -> String {
    info.peer_certificates
        .first()
        .map_or_else(|| "-".into(), subject)
}

/// One connection: handshake, its work, one log line.
async fn connection(acceptor: &OnePortAcceptor, sock: TcpStream, peer: SocketAddr, mode: &Mode) {
    let start = Instant::now();
    let ms = |start: Instant| start.elapsed().as_millis();
    // In module mode, no service once the module is in its error state: closed unanswered.
    if let Err(e) = crate::selftest::check_service() {
        eprintln!("{peer} refused: {e} ({} ms)", ms(start));
        return;
    }
    let mut conn = match acceptor.accept(sock).await {
        Ok(conn) => conn,
        Err(e) => {
            eprintln!("{peer} refused: {e} ({} ms)", ms(start));
            return;
        }
    };
    let info = conn.info();
    let result = match mode {
        Mode::Echo => echo(&mut conn).await,
        Mode::Http => http(&mut conn, &info, peer).await,
        Mode::Proxy(upstream, idle) => forward(&mut conn, upstream, *idle).await,
    };
    let (from_client, to_client, error) = match result {
        Ok((a, b)) => (a, b, String::new()),
        Err((a, b, e)) => (a, b, format!(" error: {e}")),
    };
    eprintln!(
        "{peer} {} {} suite={} resumed={} peer={:?} in={from_client} out={to_client} {} ms{error}",
        info.served,
        info.version,
        info.suite,
        if info.resumed { "yes" } else { "no" },
        peer_subject(&info),
        ms(start),
    );
}

/// Bytes from and to the client, or those with the error that ended the connection.
type Counted = Result<(u64, u64), (u64, u64, std::io::Error)>;

/// Reads until the client closes (close_notify, or a plain TCP close), writing back what
/// arrives; then closes our side.
async fn echo<S: AsyncRead + AsyncWrite + Unpin>(conn: &mut S) -> Counted {
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = match conn.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => return Err((total, total, e)),
        };
        if let Err(e) = conn.write_all(&buf[..n]).await {
            return Err((total + n as u64, total, e));
        }
        total += n as u64;
    }
    conn.shutdown().await.map_err(|e| (total, total, e))?;
    Ok((total, total))
}

/// The plain bytes both ways between the client and a new connection to `upstream`, until
/// either side closes or, with `idle`, no byte went either way for that long (then the
/// client gets close_notify and the upstream a close).
async fn forward(
    conn: &mut OnePortStream<TcpStream>,
    upstream: &str,
    idle: Option<Duration>,
) -> Counted {
    let mut up = match TcpStream::connect(upstream).await {
        Ok(up) => up,
        Err(e) => {
            let _ = conn.shutdown().await;
            let e = std::io::Error::new(e.kind(), format!("upstream {upstream}: {e}"));
            return Err((0, 0, e));
        }
    };
    let start = Instant::now();
    let last_active = AtomicU64::new(0);
    let mut counted = Counting {
        inner: conn,
        read: 0,
        written: 0,
        activity: (start, &last_active),
    };
    let result = tokio::select! {
        r = tokio::io::copy_bidirectional(&mut counted, &mut up) => r.map(|_| ()),
        () = idle_for(start, &last_active, idle) => Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("idle for {} s", idle.unwrap_or_default().as_secs_f64()),
        )),
    };
    let (read, written) = (counted.read, counted.written);
    if result.is_err() {
        // Best effort, bounded: a client that reads nothing cannot hold the task.
        let _ = tokio::time::timeout(Duration::from_secs(1), conn.shutdown()).await;
    }
    result
        .map(|()| (read, written))
        .map_err(|e| (read, written, e))
}

/// Resolves once no byte went either way for `idle` (the last byte at `start +
/// last_active` milliseconds); never without a bound.
async fn idle_for(start: Instant, last_active: &AtomicU64, idle: Option<Duration>) {
    let Some(idle) = idle else {
        return std::future::pending().await;
    };
    loop {
        let at = start + Duration::from_millis(last_active.load(Ordering::Relaxed)) + idle;
        if Instant::now() >= at {
            return;
        }
        tokio::time::sleep_until(at.into()).await;
    }
}

/// Counts the plain bytes through a connection, whatever ends it, and notes when the last
/// one went (milliseconds since the instant given).
struct Counting<'a, S> {
    inner: &'a mut S,
    read: u64,
    written: u64,
    activity: (Instant, &'a AtomicU64),
}

impl<S> Counting<'_, S> {
    fn active(&self) {
        let (start, last) = self.activity;
        let ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        last.store(ms, Ordering::Relaxed);
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Counting<'_, S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut *this.inner).poll_read(cx, buf);
        let n = buf.filled().len() - before;
        if n > 0 {
            this.read += n as u64;
            this.active();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counting<'_, S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut *this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled
            && n > 0
        {
            this.written += n as u64;
            this.active();
        }
        polled
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut *self.get_mut().inner).poll_shutdown(cx)
    }
}

/// Answers one HTTP/1.x request with the status page, then closes.
async fn http<S: AsyncRead + AsyncWrite + Unpin>(
    conn: &mut S,
    info: &ConnectionInfo,
    peer: SocketAddr,
) -> Counted {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    // The request head, bounded.
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        match conn.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) => return Err((head.len() as u64, 0, e)),
        }
    }
    let response = super::http::respond(&head, info, peer, &peer_subject(info));
    let counted = (head.len() as u64, response.len() as u64);
    let sent = async {
        conn.write_all(&response).await?;
        conn.shutdown().await
    };
    sent.await.map_err(|e| (counted.0, 0, e))?;
    Ok(counted)
}
