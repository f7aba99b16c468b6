//! What happens on connections, for operators: the [`Event`]s a configuration's
//! [`EventHandler`] receives, and (with the feature `one-port`) what the one-port acceptor
//! reports with them (`ConnectionInfo`, `AcceptError`). A leaf: it names no
//! configuration or connection type, so the connections, configurations and the acceptor
//! all stand above it.

#[cfg(feature = "one-port")]
use crate::detect::{Protocol, Refusal};
use crate::error::{AlertDescription, Error};
use crate::suites::CipherSuite;
use rustls_pki_types::CertificateDer;
#[cfg(feature = "one-port")]
use std::{fmt, io};

/// What happened on a connection, for an operator's log or metrics.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The handshake completed.
    HandshakeCompleted {
        /// The protocol, `"TLCP 1.1"`.
        protocol: &'static str,
        /// The suite.
        suite: CipherSuite,
        /// Whether the session was resumed.
        resumed: bool,
        /// The peer's certificates as sent (sign, encryption, chain; a single chain from a
        /// GmSSL client in ECC suites; empty when the peer did not authenticate).
        peer_certificates: &'a [CertificateDer<'static>],
    },
    /// We sent an alert (close_notify included).
    AlertSent(AlertDescription),
    /// The peer sent an alert (close_notify and warnings included).
    AlertReceived(AlertDescription),
    /// The connection failed (any alert it sends follows as [`Event::AlertSent`]).
    Failed(&'a Error),
    /// The one-port acceptor took a connection: its handshake completed, TLCP or TLS (SM or
    /// ordinary), with what it negotiated (protocol, suite, peer, server name). Sent to
    /// the acceptor's handler ([`OnePortBuilder::events`](crate::oneport::OnePortBuilder::events)).
    #[cfg(feature = "one-port")]
    Accepted(&'a ConnectionInfo),
    /// The one-port acceptor did not take a connection: first bytes that start no
    /// handshake, a protocol it has no configuration for, a time-out, a client that closed,
    /// or a failed TLCP or TLS handshake.
    #[cfg(feature = "one-port")]
    Refused(&'a AcceptError),
}

impl Event<'_> {
    /// The peer's first certificate's subject (TLCP: its sign certificate), RFC 4514 form,
    /// for [`Event::HandshakeCompleted`] (and the one-port acceptor's `Accepted`) with
    /// certificates.
    pub fn peer_subject(&self) -> Option<String> {
        use der::Decode;
        let first = match self {
            Event::HandshakeCompleted {
                peer_certificates, ..
            } => peer_certificates.first(),
            #[cfg(feature = "one-port")]
            Event::Accepted(info) => info.peer_certificates.first(),
            _ => None,
        };
        first.and_then(|c| {
            x509_cert::Certificate::from_der(c.as_ref())
                .ok()
                .map(|c| c.tbs_certificate().subject().to_string())
        })
    }
}

/// Receives a connection's [`Event`]s. Configurations without one do no work for events.
///
/// ```
/// use shangmi_tlcp::{Event, EventHandler};
/// /// One log line per event.
/// #[derive(Debug)]
/// struct Stderr;
/// impl EventHandler for Stderr {
///     fn event(&self, event: &Event<'_>) {
///         match event {
///             Event::HandshakeCompleted { protocol, suite, resumed, .. } => eprintln!(
///                 "{protocol} {} resumed={resumed} peer={:?}",
///                 suite.name(),
///                 event.peer_subject()
///             ),
///             Event::AlertSent(a) => eprintln!("sent {a:?}"),
///             Event::AlertReceived(a) => eprintln!("received {a:?}"),
///             Event::Failed(e) => eprintln!("failed: {e}"),
///             _ => {}
///         }
///     }
/// }
/// // ServerConfig::builder().events(Arc::new(Stderr)), ClientConfig::builder(roots).events(…)
/// ```
pub trait EventHandler: core::fmt::Debug + Send + Sync {
    /// One event; called on the thread driving the connection, so keep it short.
    fn event(&self, event: &Event<'_>);
}

#[cfg(feature = "one-port")]
/// Which configuration served a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Served {
    /// TLCP.
    Tlcp,
    /// TLS with the SM configuration.
    TlsSm,
    /// TLS with the ordinary configuration.
    Tls,
}

#[cfg(feature = "one-port")]
impl fmt::Display for Served {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Served::Tlcp => "TLCP",
            Served::TlsSm => "TLS (SM)",
            Served::Tls => "TLS",
        })
    }
}

#[cfg(feature = "one-port")]
/// Why a connection was not accepted.
#[derive(Debug)]
#[non_exhaustive]
pub enum AcceptError {
    /// The handshake (or its wait for a permit) did not finish in time: an idle, slow or
    /// half-open client. The connection was closed.
    Timeout,
    /// The first bytes cannot start a handshake; the alert was sent and the connection
    /// closed.
    Refused(Refusal),
    /// The client speaks a protocol this acceptor has no configuration for (a
    /// protocol_version alert was sent).
    NotServed(Protocol),
    /// The client closed before the acceptor could tell what it speaks (a whole record
    /// header, and for TLS the ClientHello's version), after this many bytes (a port
    /// probe, or a client that gave up).
    Closed(usize),
    /// The TLCP handshake failed (the alert named by the error was sent).
    Tlcp(Error),
    /// The TLS handshake failed (rustls sent its alert).
    Tls(rustls::Error),
    /// The transport failed.
    Io(io::Error),
}

#[cfg(feature = "one-port")]
impl fmt::Display for AcceptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AcceptError::Timeout => write!(f, "handshake timed out"),
            AcceptError::Refused(r) => write!(f, "{r}"),
            AcceptError::NotServed(p) => write!(f, "no configuration for {p:?} clients"),
            AcceptError::Closed(n) => write!(f, "client closed after {n} bytes"),
            AcceptError::Tlcp(e) => write!(f, "TLCP handshake: {e}"),
            AcceptError::Tls(e) => write!(f, "TLS handshake: {e}"),
            AcceptError::Io(e) => write!(f, "transport: {e}"),
        }
    }
}

#[cfg(feature = "one-port")]
impl std::error::Error for AcceptError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AcceptError::Refused(r) => Some(r),
            AcceptError::Tlcp(e) => Some(e),
            AcceptError::Tls(e) => Some(e),
            AcceptError::Io(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(feature = "one-port")]
impl From<AcceptError> for io::Error {
    fn from(e: AcceptError) -> Self {
        match e {
            AcceptError::Io(e) => e,
            AcceptError::Timeout => io::Error::new(io::ErrorKind::TimedOut, e),
            AcceptError::Closed(_) => io::Error::new(io::ErrorKind::UnexpectedEof, e),
            e => io::Error::new(io::ErrorKind::InvalidData, e),
        }
    }
}

#[cfg(feature = "one-port")]
/// What a connection negotiated, for logs and status pages.
#[derive(Clone, Debug)]
pub struct ConnectionInfo {
    /// Which configuration served it.
    pub served: Served,
    /// The protocol version: `TLCP 1.1`, `TLS 1.3`, `TLS 1.2`.
    pub version: &'static str,
    /// The cipher suite's name (`ECC_SM4_GCM_SM3`, `TLS_SM4_GCM_SM3`,
    /// `TLS13_AES_128_GCM_SHA256`, …).
    pub suite: String,
    /// The client's certificates (TLCP: sign, encryption, then the chain), if it sent any.
    pub peer_certificates: Vec<CertificateDer<'static>>,
    /// The server name the client asked for (SNI).
    pub server_name: Option<String>,
    /// Whether the session was resumed.
    pub resumed: bool,
}
