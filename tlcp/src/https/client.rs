//! The hyper-util connector: `https://` over TLCP, TLS, or TLCP with a fall-back to TLS;
//! `http://` over TCP.

use crate::client::ClientConnection;
use crate::config::ClientConfig;
use crate::detect::Protocol;
use crate::error::{AlertDescription, Error};
use crate::tokio::{TlcpConnector, TlcpStream};
use ::tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use ::tokio::net::TcpStream;
use http::Uri;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::TokioIo;
use rustls_pki_types::{CertificateDer, ServerName};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// Default bound on one connection's set-up: TCP connect and handshake (both, after a
/// fall-back).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How `https://` URLs of a host are opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// TLCP only: a server that refuses it is an error ([`ConnectError::Tlcp`]).
    TlcpOnly,
    /// TLS only, with the connector's rustls configuration (RFC 8998 TLS 1.3 with
    /// shangmi-rustls' provider).
    TlsOnly,
    /// TLCP first; when the server refuses TLCP, a new connection over TLS.
    ///
    /// The server refuses TLCP when the handshake ends before its ServerHello arrives in
    /// one of these ways: a fatal alert from the server (a TLS-only server answers a TLCP
    /// ClientHello with protocol_version or handshake_failure), a first record that is
    /// not TLCP 1.1 (a TLS server's own record version), or the server closing or
    /// resetting the connection. Everything else fails the connection without a second
    /// try: a time-out, a refused TCP connection, a certificate the client does not
    /// accept, an alert after the ServerHello (the server refusing the client's
    /// certificate). Neither protocol is weaker than the other (both SM2, SM3 and SM4), so
    /// the fall-back is not a downgrade of the cryptography.
    PreferTlcp,
}

/// Why a connection could not be opened.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConnectError {
    /// The URL's scheme is not `http` or `https`.
    Scheme(String),
    /// The URL has no host, or one that is not a valid server name.
    Host(String),
    /// The policy of the host needs a configuration the connector was not given.
    NotConfigured(Protocol),
    /// The TCP connection failed.
    Tcp(io::Error),
    /// Set-up took longer than the connect timeout.
    Timeout,
    /// The TLCP handshake failed (under [`Policy::TlcpOnly`] a refusal of TLCP is this
    /// too, e.g. `Error::AlertReceived(ProtocolVersion)` or
    /// `Error::PeerMisbehaved(ProtocolVersion, …)`).
    Tlcp(Error),
    /// The TLS handshake failed.
    Tls(rustls::Error),
    /// The transport failed during the handshake.
    Io(io::Error),
    /// Under [`Policy::PreferTlcp`] the server refused TLCP (the first error) and the TLS
    /// connection failed too (the second).
    FallbackFailed(Box<ConnectError>, Box<ConnectError>),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Scheme(s) => write!(f, "unsupported URL scheme {s:?}"),
            ConnectError::Host(h) => write!(f, "bad host in URL: {h:?}"),
            ConnectError::NotConfigured(p) => write!(f, "no {p:?} configuration for this host"),
            ConnectError::Tcp(e) => write!(f, "TCP connect: {e}"),
            ConnectError::Timeout => write!(f, "connection set-up timed out"),
            ConnectError::Tlcp(e) => write!(f, "TLCP handshake: {e}"),
            ConnectError::Tls(e) => write!(f, "TLS handshake: {e}"),
            ConnectError::Io(e) => write!(f, "transport: {e}"),
            ConnectError::FallbackFailed(tlcp, tls) => {
                write!(f, "server refused TLCP ({tlcp}); TLS failed too ({tls})")
            }
        }
    }
}

impl std::error::Error for ConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConnectError::Tcp(e) | ConnectError::Io(e) => Some(e),
            ConnectError::Tlcp(e) => Some(e),
            ConnectError::Tls(e) => Some(e),
            ConnectError::FallbackFailed(_, tls) => Some(&**tls),
            _ => None,
        }
    }
}

impl ConnectError {
    /// Sorts a handshake driver's I/O error into the protocol error it carries.
    fn from_io(e: io::Error) -> Self {
        let inner = e.get_ref();
        if let Some(tlcp) = inner.and_then(|i| i.downcast_ref::<Error>()) {
            return ConnectError::Tlcp(tlcp.clone());
        }
        if let Some(tls) = inner.and_then(|i| i.downcast_ref::<rustls::Error>()) {
            return ConnectError::Tls(tls.clone());
        }
        ConnectError::Io(e)
    }
}

/// What a connection negotiated; hyper-util's client puts it in the extensions of every
/// response the connection carried (`response.extensions().get::<Negotiated>()`).
#[derive(Clone, Debug)]
pub struct Negotiated {
    /// TLCP or TLS.
    pub protocol: Protocol,
    /// `TLCP 1.1`, `TLS 1.3` or `TLS 1.2`.
    pub version: &'static str,
    /// The cipher suite's name (`ECC_SM4_GCM_SM3`, `TLS_SM4_GCM_SM3`, …).
    pub suite: String,
    /// The server's certificates as sent (TLCP: sign, encryption, then the chain).
    pub peer_certificates: Arc<[CertificateDer<'static>]>,
    /// Whether the session was resumed.
    pub resumed: bool,
    /// Whether this is a TLS connection made after the server refused TLCP
    /// ([`Policy::PreferTlcp`]).
    pub fell_back: bool,
}

impl Negotiated {
    /// The subject of the server's first certificate (TLCP: the sign certificate), as
    /// `CN=…,O=…`.
    pub fn peer_subject(&self) -> Option<String> {
        self.peer_certificates.first().and_then(super::subject)
    }
}

/// Builds an [`HttpsConnector`]; at least one of the TLCP and TLS configurations must be
/// given.
#[derive(Debug, Default)]
pub struct HttpsConnectorBuilder {
    tlcp: Option<Arc<ClientConfig>>,
    tls: Option<Arc<rustls::ClientConfig>>,
    policy: Option<Policy>,
    hosts: HashMap<String, Policy>,
    connect_timeout: Option<Duration>,
}

impl HttpsConnectorBuilder {
    crate::config::setters! {
        /// Opens TLCP connections with this configuration.
        fn tlcp(config: Arc<ClientConfig>) => tlcp = Some;

        /// Opens TLS connections with this configuration (for RFC 8998, a configuration on
        /// `shangmi_rustls::provider()` with TLS 1.3; no ALPN, or `http/1.1`).
        fn tls(config: Arc<rustls::ClientConfig>) => tls = Some;

        /// The policy of the hosts not named by [`host`](Self::host). Default:
        /// [`Policy::PreferTlcp`] with both configurations, else the one protocol given.
        fn policy(policy: Policy) => policy = Some;
    }

    /// The policy of one host, as it appears in URLs (compared without regard to case;
    /// an IPv6 address without brackets).
    pub fn host(mut self, host: &str, policy: Policy) -> Self {
        self.hosts.insert(host.to_ascii_lowercase(), policy);
        self
    }

    /// Bounds the TCP connect and handshake of each connection (default
    /// [`DEFAULT_CONNECT_TIMEOUT`]).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// The connector, or an error when no configuration was given or a policy needs one
    /// that was not.
    pub fn build(self) -> Result<HttpsConnector, Error> {
        let policy = match (self.policy, &self.tlcp, &self.tls) {
            (_, None, None) => {
                return Err(Error::Config("https connector without a configuration"));
            }
            (Some(p), _, _) => p,
            (None, Some(_), Some(_)) => Policy::PreferTlcp,
            (None, Some(_), None) => Policy::TlcpOnly,
            (None, None, Some(_)) => Policy::TlsOnly,
        };
        let usable = |p: &Policy| match p {
            Policy::TlcpOnly => self.tlcp.is_some(),
            Policy::TlsOnly => self.tls.is_some(),
            Policy::PreferTlcp => self.tlcp.is_some() && self.tls.is_some(),
        };
        if !usable(&policy) || !self.hosts.values().all(usable) {
            return Err(Error::Config(
                "https connector policy needs a configuration it was not given",
            ));
        }
        Ok(HttpsConnector {
            inner: Arc::new(Inner {
                tlcp: self.tlcp.map(TlcpConnector::from),
                tls: self.tls,
                policy,
                hosts: self.hosts,
                connect_timeout: self.connect_timeout.unwrap_or(DEFAULT_CONNECT_TIMEOUT),
            }),
        })
    }
}

/// A connector for hyper-util's client: `https://` URLs over TLCP and/or TLS by the
/// host's [`Policy`], `http://` URLs over TCP (TCP_NODELAY set on every socket).
///
/// ```no_run
/// # async fn get(tlcp: std::sync::Arc<shangmi_tlcp::ClientConfig>) -> Result<(), Box<dyn std::error::Error>> {
/// use shangmi_tlcp::https::{HttpsConnector, Negotiated};
/// use hyper_util::client::legacy::Client;
/// use hyper_util::rt::TokioExecutor;
/// let connector = HttpsConnector::builder().tlcp(tlcp).build()?;
/// let client: Client<_, String> = Client::builder(TokioExecutor::new()).build(connector);
/// let response = client.get("https://gateway.example/".parse()?).await?;
/// let negotiated = response.extensions().get::<Negotiated>();
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct HttpsConnector {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    tlcp: Option<TlcpConnector>,
    tls: Option<Arc<rustls::ClientConfig>>,
    policy: Policy,
    hosts: HashMap<String, Policy>,
    connect_timeout: Duration,
}

impl HttpsConnector {
    /// A builder with no configuration, the default policy and time-out.
    pub fn builder() -> HttpsConnectorBuilder {
        HttpsConnectorBuilder::default()
    }

    /// The policy for `host`.
    pub fn policy_for(&self, host: &str) -> Policy {
        self.inner
            .hosts
            .get(&host.to_ascii_lowercase())
            .copied()
            .unwrap_or(self.inner.policy)
    }

    /// Opens a connection to the URL's host and port, as hyper-util's client does.
    pub async fn connect(&self, uri: Uri) -> Result<HttpsStream, ConnectError> {
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            other => return Err(ConnectError::Scheme(other.unwrap_or("").to_owned())),
        };
        let host = uri
            .host()
            .ok_or_else(|| ConnectError::Host(String::new()))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let inner = &self.inner;
        let work = async {
            if !https {
                let tcp = tcp(host, port).await?;
                return Ok(HttpsStream {
                    io: Io::Tcp(tcp),
                    negotiated: None,
                });
            }
            let name = ServerName::try_from(host.to_owned())
                .map_err(|_| ConnectError::Host(host.to_owned()))?;
            match self.policy_for(host) {
                Policy::TlcpOnly => inner.tlcp(host, port, name).await.map_err(|(e, _)| e),
                Policy::TlsOnly => inner.tls(host, port, name, false).await,
                Policy::PreferTlcp => match inner.tlcp(host, port, name.clone()).await {
                    Ok(stream) => Ok(stream),
                    Err((e, true)) => match inner.tls(host, port, name, true).await {
                        Ok(stream) => Ok(stream),
                        Err(tls) => Err(ConnectError::FallbackFailed(Box::new(e), Box::new(tls))),
                    },
                    Err((e, false)) => Err(e),
                },
            }
        };
        ::tokio::time::timeout(inner.connect_timeout, work)
            .await
            .unwrap_or(Err(ConnectError::Timeout))
    }
}

async fn tcp(host: &str, port: u16) -> Result<TcpStream, ConnectError> {
    let tcp = TcpStream::connect((host, port))
        .await
        .map_err(ConnectError::Tcp)?;
    tcp.set_nodelay(true).map_err(ConnectError::Tcp)?;
    Ok(tcp)
}

/// Whether a failed TLCP handshake is the server refusing TLCP ([`Policy::PreferTlcp`]'s
/// definition).
fn refused_tlcp(e: &io::Error, server_hello_seen: bool) -> bool {
    if server_hello_seen {
        return false;
    }
    match e.get_ref().and_then(|i| i.downcast_ref::<Error>()) {
        Some(Error::AlertReceived(_) | Error::UnexpectedEof) => true,
        Some(Error::PeerMisbehaved(AlertDescription::ProtocolVersion, _)) => true,
        Some(_) => false,
        None => matches!(
            e.kind(),
            io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::BrokenPipe
                | io::ErrorKind::UnexpectedEof
        ),
    }
}

impl Inner {
    /// A TLCP connection, or the error with whether it is a refusal of TLCP.
    async fn tlcp(
        &self,
        host: &str,
        port: u16,
        name: ServerName<'static>,
    ) -> Result<HttpsStream, (ConnectError, bool)> {
        let connector = self
            .tlcp
            .as_ref()
            .ok_or((ConnectError::NotConfigured(Protocol::Tlcp), false))?;
        let tcp = tcp(host, port).await.map_err(|e| (e, false))?;
        match connector.connect_noting_hello(name, tcp).await {
            Ok(stream) => {
                let conn = &stream.conn;
                let negotiated = Negotiated {
                    protocol: Protocol::Tlcp,
                    version: "TLCP 1.1",
                    suite: crate::suites::tlcp_suite_name(conn.negotiated_cipher_suite()),
                    peer_certificates: conn.peer_certificates().unwrap_or_default().into(),
                    resumed: conn.is_resumed(),
                    fell_back: false,
                };
                Ok(HttpsStream {
                    io: Io::Tlcp(Box::new(stream)),
                    negotiated: Some(negotiated),
                })
            }
            Err((e, hello)) => {
                let refused = refused_tlcp(&e, hello);
                Err((ConnectError::from_io(e), refused))
            }
        }
    }

    async fn tls(
        &self,
        host: &str,
        port: u16,
        name: ServerName<'static>,
        fell_back: bool,
    ) -> Result<HttpsStream, ConnectError> {
        let connector = self
            .tls
            .clone()
            .map(tokio_rustls::TlsConnector::from)
            .ok_or(ConnectError::NotConfigured(Protocol::Tls))?;
        let tcp = tcp(host, port).await?;
        let stream = connector
            .connect(name, tcp)
            .await
            .map_err(ConnectError::from_io)?;
        let conn = stream.get_ref().1;
        let (version, suite, resumed) = crate::suites::tls_summary(conn);
        let negotiated = Negotiated {
            protocol: Protocol::Tls,
            version,
            suite,
            peer_certificates: conn.peer_certificates().unwrap_or_default().into(),
            resumed,
            fell_back,
        };
        Ok(HttpsStream {
            io: Io::Tls(Box::new(stream)),
            negotiated: Some(negotiated),
        })
    }
}

impl tower_service::Service<Uri> for HttpsConnector {
    type Response = TokioIo<HttpsStream>;
    type Error = ConnectError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, ConnectError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), ConnectError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let connector = self.clone();
        Box::pin(async move { connector.connect(uri).await.map(TokioIo::new) })
    }
}

/// A connection made by [`HttpsConnector`]: TCP, TLCP or TLS.
#[derive(Debug)]
pub struct HttpsStream {
    io: Io,
    negotiated: Option<Negotiated>,
}

#[derive(Debug)]
enum Io {
    Tcp(TcpStream),
    Tlcp(Box<TlcpStream<TcpStream, ClientConnection>>),
    Tls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl HttpsStream {
    /// What the handshake negotiated (`None` for plain `http://`).
    pub fn negotiated(&self) -> Option<&Negotiated> {
        self.negotiated.as_ref()
    }
}

impl Connection for HttpsStream {
    fn connected(&self) -> Connected {
        match &self.negotiated {
            Some(n) => Connected::new().extra(n.clone()),
            None => Connected::new(),
        }
    }
}

impl AsyncRead for HttpsStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Io::Tlcp(s) => Pin::new(&mut **s).poll_read(cx, buf),
            Io::Tls(s) => Pin::new(&mut **s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for HttpsStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Io::Tlcp(s) => Pin::new(&mut **s).poll_write(cx, buf),
            Io::Tls(s) => Pin::new(&mut **s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Io::Tlcp(s) => Pin::new(&mut **s).poll_write_vectored(cx, bufs),
            Io::Tls(s) => Pin::new(&mut **s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.io {
            Io::Tcp(s) => s.is_write_vectored(),
            Io::Tlcp(s) => s.is_write_vectored(),
            Io::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_flush(cx),
            Io::Tlcp(s) => Pin::new(&mut **s).poll_flush(cx),
            Io::Tls(s) => Pin::new(&mut **s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Io::Tlcp(s) => Pin::new(&mut **s).poll_shutdown(cx),
            Io::Tls(s) => Pin::new(&mut **s).poll_shutdown(cx),
        }
    }
}
