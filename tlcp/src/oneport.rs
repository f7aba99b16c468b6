//! One port for every client (feature `one-port`): [`OnePortAcceptor`] reads a
//! connection's first record header ([`crate::detect`]) and completes a TLCP handshake, or
//! a rustls one with the RFC 8998 SM configuration when the ClientHello offers an SM suite
//! and sm2sig_sm3, else with the ordinary one (ECDSA/RSA on rustls' default provider).
//!
//! Operators hear of every connection through the crate's [`EventHandler`]
//! ([`OnePortBuilder::events`]; by default the TLCP configuration's): [`Event::Accepted`]
//! with what a TLCP or TLS handshake negotiated, [`Event::Refused`] with why a connection
//! was not taken.
//!
//! Every handshake, from the first byte to the last flight, runs under one deadline and
//! holds one permit of a semaphore: an idle, slow or half-open client is dropped when its
//! time is up and holds up nobody else as long as the caller runs each `accept` in its own
//! task (`tokio::spawn`), as below.
//!
//! ```no_run
//! # async fn serve(
//! #     tlcp: std::sync::Arc<shangmi_tlcp::ServerConfig>,
//! #     sm: std::sync::Arc<rustls::ServerConfig>,
//! #     ordinary: std::sync::Arc<rustls::ServerConfig>,
//! # ) -> std::io::Result<()> {
//! use shangmi_tlcp::oneport::OnePortAcceptor;
//! use std::sync::Arc;
//! use tokio::io::AsyncWriteExt;
//! let acceptor = Arc::new(
//!     OnePortAcceptor::builder()
//!         .tlcp(tlcp)
//!         .tls_sm(sm)
//!         .tls(ordinary)
//!         .build()
//!         .map_err(std::io::Error::other)?,
//! );
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:4433").await?;
//! loop {
//!     let (sock, _) = listener.accept().await?;
//!     let acceptor = acceptor.clone();
//!     tokio::spawn(async move {
//!         if let Ok(mut conn) = acceptor.accept(sock).await {
//!             let served = conn.info().served;
//!             let _ = conn.write_all(format!("hello over {served}\n").as_bytes()).await;
//!             let _ = conn.shutdown().await;
//!         }
//!     });
//! }
//! # }
//! ```

use crate::config::ServerConfig;
use crate::detect::{HELLO_VERSION_END, Protocol, check_tls_hello, detect, wants_sm};
pub use crate::events::{AcceptError, ConnectionInfo, Served};
use crate::events::{Event, EventHandler};
use crate::server::ServerConnection;
use crate::tokio::{TlcpAcceptor, TlcpStream};
use ::tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use ::tokio::sync::Semaphore;
use ::tokio::time::{Instant, timeout_at};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

/// Default bound on one handshake, first byte to last flight.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default bound on handshakes in progress at once.
pub const DEFAULT_MAX_HANDSHAKES: usize = 256;

/// Builds a [`OnePortAcceptor`]; at least one configuration must be given.
#[derive(Debug)]
pub struct OnePortBuilder {
    tlcp: Option<Arc<ServerConfig>>,
    tls_sm: Option<Arc<rustls::ServerConfig>>,
    tls: Option<Arc<rustls::ServerConfig>>,
    handshake_timeout: Duration,
    max_handshakes: usize,
    events: Option<Arc<dyn EventHandler>>,
}

impl OnePortBuilder {
    crate::config::setters! {
        /// Serves TLCP clients with this configuration.
        fn tlcp(config: Arc<ServerConfig>) => tlcp = Some;

        /// Serves TLS clients that offer an SM suite and sm2sig_sm3 with this configuration
        /// (shangmi-rustls' provider, an SM2 certificate); every TLS client when no ordinary
        /// configuration is given.
        fn tls_sm(config: Arc<rustls::ServerConfig>) => tls_sm = Some;

        /// Serves the other TLS clients (browsers, curl) with this configuration (rustls'
        /// default provider, an ECDSA or RSA certificate); every TLS client when no SM
        /// configuration is given.
        fn tls(config: Arc<rustls::ServerConfig>) => tls = Some;

        /// Bounds each handshake (and its wait for a permit), first byte to last flight
        /// (default [`DEFAULT_HANDSHAKE_TIMEOUT`]).
        fn handshake_timeout(timeout: Duration) => handshake_timeout;
    }

    /// Bounds the handshakes in progress at once (default [`DEFAULT_MAX_HANDSHAKES`];
    /// at least 1).
    pub fn max_handshakes(mut self, n: usize) -> Self {
        self.max_handshakes = n.max(1);
        self
    }

    /// Sends each connection's [`Event::Accepted`] or [`Event::Refused`] to `handler`, for
    /// TLCP and TLS alike. Without it, the TLCP configuration's handler gets them (if it
    /// has one; it hears its TLCP connections' own events as well).
    pub fn events(mut self, handler: Arc<dyn EventHandler>) -> Self {
        self.events = Some(handler);
        self
    }

    /// The acceptor, or an error when no configuration was given.
    pub fn build(self) -> Result<OnePortAcceptor, crate::Error> {
        if self.tlcp.is_none() && self.tls_sm.is_none() && self.tls.is_none() {
            return Err(crate::Error::Config(
                "one-port acceptor without a configuration",
            ));
        }
        let events = self
            .events
            .or_else(|| self.tlcp.as_ref().and_then(|c| c.events.clone()));
        Ok(OnePortAcceptor {
            events,
            tlcp: self.tlcp.map(TlcpAcceptor::from),
            tls_sm: self.tls_sm,
            tls: self.tls,
            handshake_timeout: self.handshake_timeout,
            max_handshakes: self.max_handshakes,
            handshakes: Arc::new(Semaphore::new(self.max_handshakes)),
        })
    }
}

/// Accepts TLCP, RFC 8998 TLS 1.3 and ordinary TLS connections on one port.
#[derive(Debug)]
pub struct OnePortAcceptor {
    tlcp: Option<TlcpAcceptor>,
    tls_sm: Option<Arc<rustls::ServerConfig>>,
    tls: Option<Arc<rustls::ServerConfig>>,
    handshake_timeout: Duration,
    max_handshakes: usize,
    handshakes: Arc<Semaphore>,
    events: Option<Arc<dyn EventHandler>>,
}

impl AcceptError {
    /// Sorts an I/O error from a handshake driver into the protocol error it carries.
    fn from_io(e: io::Error) -> Self {
        let inner = e.get_ref();
        if let Some(tlcp) = inner.and_then(|i| i.downcast_ref::<crate::Error>()) {
            return AcceptError::Tlcp(tlcp.clone());
        }
        if let Some(tls) = inner.and_then(|i| i.downcast_ref::<rustls::Error>()) {
            return AcceptError::Tls(tls.clone());
        }
        AcceptError::Io(e)
    }
}

impl OnePortAcceptor {
    /// A builder with the default timeout and bound and no configuration.
    pub fn builder() -> OnePortBuilder {
        OnePortBuilder {
            tlcp: None,
            tls_sm: None,
            tls: None,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_handshakes: DEFAULT_MAX_HANDSHAKES,
            events: None,
        }
    }

    /// Handshakes in progress now (for operators' metrics).
    pub fn handshakes_in_progress(&self) -> usize {
        self.max_handshakes - self.handshakes.available_permits()
    }

    /// Runs the handshake of one accepted transport under the deadline and the bound.
    /// Run it in a task of its own per connection (it waits for the client).
    pub async fn accept<IO>(&self, io: IO) -> Result<OnePortStream<IO>, AcceptError>
    where
        IO: AsyncRead + AsyncWrite + Unpin,
    {
        let deadline = Instant::now() + self.handshake_timeout;
        let work = async {
            let _permit = self
                .handshakes
                .acquire()
                .await
                .map_err(|_| AcceptError::Timeout)?;
            self.handshake(io).await
        };
        let outcome = timeout_at(deadline, work)
            .await
            .unwrap_or(Err(AcceptError::Timeout));
        if let Some(events) = &self.events {
            match &outcome {
                Ok(stream) => events.event(&Event::Accepted(&stream.info())),
                Err(e) => events.event(&Event::Refused(e)),
            }
        }
        outcome
    }

    async fn handshake<IO>(&self, mut io: IO) -> Result<OnePortStream<IO>, AcceptError>
    where
        IO: AsyncRead + AsyncWrite + Unpin,
    {
        let mut head = [0u8; HELLO_VERSION_END];
        let mut seen = 0;
        // Read at most the header and, for TLS, the ClientHello's version: what follows
        // stays in the transport for the protocol.
        let protocol = loop {
            let verdict = detect(&head[..seen]).and_then(|p| match p {
                Some(Protocol::Tls) => Ok(check_tls_hello(&head[..seen])?.then_some(Protocol::Tls)),
                other => Ok(other),
            });
            match verdict {
                Ok(Some(p)) => break p,
                Ok(None) => {}
                Err(refusal) => {
                    let spoke = (head[1..3] == [1, 1]).then_some(Protocol::Tlcp);
                    refuse(&mut io, refusal.alert_record(spoke)).await;
                    return Err(AcceptError::Refused(refusal));
                }
            }
            let n = io.read(&mut head[seen..]).await.map_err(AcceptError::Io)?;
            if n == 0 {
                return Err(AcceptError::Closed(seen));
            }
            seen += n;
        };
        let io = Prefixed {
            head,
            start: 0,
            end: seen,
            io,
        };
        match protocol {
            Protocol::Tlcp => {
                let Some(tlcp) = &self.tlcp else {
                    let mut io = io.io;
                    refuse(&mut io, [21, 1, 1, 0, 2, 2, 70]).await;
                    return Err(AcceptError::NotServed(Protocol::Tlcp));
                };
                let stream = tlcp.accept(io).await.map_err(AcceptError::from_io)?;
                Ok(OnePortStream::Tlcp(Box::new(stream)))
            }
            Protocol::Tls => {
                let lazy =
                    tokio_rustls::LazyConfigAcceptor::new(rustls::server::Acceptor::default(), io);
                let start = lazy.await.map_err(AcceptError::from_io)?;
                let hello = start.client_hello();
                let (config, served) = match (&self.tls_sm, &self.tls) {
                    (Some(sm), Some(_))
                        if wants_sm(hello.cipher_suites(), hello.signature_schemes()) =>
                    {
                        (sm.clone(), Served::TlsSm)
                    }
                    (_, Some(ordinary)) => (ordinary.clone(), Served::Tls),
                    (Some(sm), None) => (sm.clone(), Served::TlsSm),
                    (None, None) => {
                        let mut io = start.io.io;
                        refuse(&mut io, [21, 3, 3, 0, 2, 2, 70]).await;
                        return Err(AcceptError::NotServed(Protocol::Tls));
                    }
                };
                let stream = start
                    .into_stream(config)
                    .await
                    .map_err(AcceptError::from_io)?;
                Ok(OnePortStream::Tls {
                    stream: Box::new(stream),
                    sm: served == Served::TlsSm,
                })
            }
        }
    }
}

/// Best effort: the alert out, then the write side closed.
async fn refuse<IO: AsyncWrite + Unpin>(io: &mut IO, alert: [u8; 7]) {
    let _ = io.write_all(&alert).await;
    let _ = io.shutdown().await;
}

/// A transport whose first bytes (the record header the acceptor read) are replayed before
/// the rest.
#[derive(Debug)]
pub struct Prefixed<IO> {
    head: [u8; HELLO_VERSION_END],
    start: usize,
    end: usize,
    io: IO,
}

impl<IO> Prefixed<IO> {
    /// The transport.
    pub fn get_ref(&self) -> &IO {
        &self.io
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Prefixed<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.start < this.end {
            let n = (this.end - this.start).min(buf.remaining());
            buf.put_slice(&this.head[this.start..this.start + n]);
            this.start += n;
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Prefixed<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// An accepted connection: TLCP or TLS, `AsyncRead + AsyncWrite` either way.
#[derive(Debug)]
pub enum OnePortStream<IO> {
    /// A TLCP connection.
    Tlcp(Box<TlcpStream<Prefixed<IO>, ServerConnection>>),
    /// A TLS connection; `sm` says the SM configuration served it.
    Tls {
        /// The rustls stream.
        stream: Box<tokio_rustls::server::TlsStream<Prefixed<IO>>>,
        /// Whether the SM configuration served it.
        sm: bool,
    },
}

impl<IO> OnePortStream<IO> {
    /// What the connection negotiated.
    pub fn info(&self) -> ConnectionInfo {
        match self {
            OnePortStream::Tlcp(s) => {
                let conn = &s.conn;
                ConnectionInfo {
                    served: Served::Tlcp,
                    version: "TLCP 1.1",
                    suite: crate::suites::tlcp_suite_name(conn.negotiated_cipher_suite()),
                    peer_certificates: conn.peer_certificates().unwrap_or_default().to_vec(),
                    server_name: conn.server_name().map(str::to_owned),
                    resumed: conn.is_resumed(),
                }
            }
            OnePortStream::Tls { stream, sm } => {
                let conn = stream.get_ref().1;
                let (version, suite, resumed) = crate::suites::tls_summary(conn);
                ConnectionInfo {
                    served: if *sm { Served::TlsSm } else { Served::Tls },
                    version,
                    suite,
                    peer_certificates: conn.peer_certificates().unwrap_or_default().to_vec(),
                    server_name: conn.server_name().map(str::to_owned),
                    resumed,
                }
            }
        }
    }

    /// The transport.
    pub fn get_ref(&self) -> &IO {
        match self {
            OnePortStream::Tlcp(s) => s.io.get_ref(),
            OnePortStream::Tls { stream, .. } => stream.get_ref().0.get_ref(),
        }
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin> AsyncRead for OnePortStream<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            OnePortStream::Tlcp(s) => Pin::new(&mut **s).poll_read(cx, buf),
            OnePortStream::Tls { stream, .. } => Pin::new(&mut **stream).poll_read(cx, buf),
        }
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin> AsyncWrite for OnePortStream<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            OnePortStream::Tlcp(s) => Pin::new(&mut **s).poll_write(cx, buf),
            OnePortStream::Tls { stream, .. } => Pin::new(&mut **stream).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            OnePortStream::Tlcp(s) => Pin::new(&mut **s).poll_write_vectored(cx, bufs),
            OnePortStream::Tls { stream, .. } => {
                Pin::new(&mut **stream).poll_write_vectored(cx, bufs)
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            OnePortStream::Tlcp(s) => s.is_write_vectored(),
            OnePortStream::Tls { stream, .. } => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            OnePortStream::Tlcp(s) => Pin::new(&mut **s).poll_flush(cx),
            OnePortStream::Tls { stream, .. } => Pin::new(&mut **stream).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            OnePortStream::Tlcp(s) => Pin::new(&mut **s).poll_shutdown(cx),
            OnePortStream::Tls { stream, .. } => Pin::new(&mut **stream).poll_shutdown(cx),
        }
    }
}
