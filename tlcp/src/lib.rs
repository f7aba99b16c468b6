//! TLCP (GB/T 38636-2020, formerly GM/T 0024-2014): the dual-certificate SM2 protocol of
//! China's bank and government gateways, as a sans-IO client and server with the API shape
//! of rustls.
//!
//! - Suites: ECC_SM4_GCM_SM3 (0xE053), ECC_SM4_CBC_SM3 (0xE013), ECDHE_SM4_GCM_SM3
//!   (0xE051), ECDHE_SM4_CBC_SM3 (0xE011). ECDHE needs client certificates.
//! - Each side that authenticates holds a sign certificate and key and an encryption
//!   certificate and key; key operations go through [`Sm2SignKey`] / [`Sm2EncKey`] so a key
//!   can live in a crypto card ([`Sm2PrivateKey`] is the in-memory implementation).
//! - Both server leaves are checked against the roots (rustls-webpki with SM2, default ID),
//!   for the host name (sign certificate), validity, key usages and a common issuer.
//! - Hooks in the shapes of rustls and gotlcp: the server's pair chosen per ClientHello
//!   ([`ResolvesServerPair`], [`SniResolver`]), a whole configuration per ClientHello
//!   ([`ResolvesServerConfig`]), the client's pair chosen on the CertificateRequest
//!   ([`ResolvesClientPair`]), certificate checks of the caller's ([`CertVerifier`]; the
//!   default is [`WebPkiVerifier`]), the NSS key log ([`KeyLogFile`] for `SSLKEYLOGFILE`)
//!   and operators' events ([`EventHandler`]).
//! - GmSSL's client authentication in the ECC suites (one chain instead of two leaves) is
//!   accepted; [`ClientConfig::gmssl_compat`] sends it that way.
//! - Session-ID resumption, session tickets (RFC 5077: asked for by the client by default,
//!   issued by a server given a [`Ticketer`]), a session resumed only under the server
//!   name (SNI) it was made under (RFC 6066 §3), SNI, ALPN; renegotiation refused
//!   (no_renegotiation); a hello that repeats an extension refused (illegal_parameter).
//! - One randomness and one clock trait with the TLS 1.3 provider: [`SecureRandom`] and
//!   [`TimeProvider`] are rustls' own, so a generator or clock serves both protocols.
//!
//! ```no_run
//! use shangmi_tlcp::*;
//! use std::sync::Arc;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut roots = RootCertStore::empty();
//! roots.add_pem(&std::fs::read("ca.pem")?)?;
//! let config = Arc::new(ClientConfig::builder(roots).build()?);
//! let conn = ClientConnection::new(config, "gateway.example".try_into()?)?;
//! let sock = std::net::TcpStream::connect("gateway.example:443")?;
//! let mut tls = StreamOwned::new(conn, sock);
//! use std::io::Write;
//! tls.write_all(b"GET / HTTP/1.0\r\n\r\n")?;
//! # Ok(()) }
//! ```
//!
//! One port for TLCP and TLS: [`detect`] tells the protocols apart from the first record
//! (sans-IO); with the feature `one-port`, `oneport::OnePortAcceptor` serves TLCP, RFC 8998
//! TLS 1.3 and ordinary TLS (a rustls configuration of the caller's) on one tokio listener,
//! with a handshake deadline and a bound on handshakes in progress.
//!
//! HTTPS: with the feature `hyper-client`, `https::HttpsConnector` opens `https://` URLs
//! for hyper-util's client over TLCP, RFC 8998 TLS 1.3, or TLCP with a fall-back to TLS per
//! host; with `hyper-server`, `https::serve` runs hyper (an axum `Router`, any tower
//! service) on the one-port acceptor.
//!
//! The crate needs `std` (configurations share state across threads, streams use
//! `std::io`).

// The README's examples compile as doctests.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

mod client;
mod codec;
mod config;
mod conn;
pub mod detect;
mod error;
mod events;
mod hooks;
#[cfg(any(feature = "hyper-client", feature = "hyper-server"))]
pub mod https;
mod keys;
pub mod msgs;
#[cfg(feature = "one-port")]
pub mod oneport;
pub mod prf;
pub mod record;
mod schedule;
mod server;
mod session;
mod stream;
mod suites;
mod ticket;
#[cfg(feature = "tokio")]
pub mod tokio;
mod verify;

pub use client::ClientConnection;
pub use config::{
    ClientAuth, ClientConfig, ClientConfigBuilder, ClientSessionCache, ClientSessionStore,
    ResolvesServerConfig, ServerConfig, ServerConfigBuilder, ServerSessionCache,
    ServerSessionStore,
};
pub use conn::{IoState, Reader, Writer};
pub use error::{AlertDescription, CertificateError, Error};
pub use events::{Event, EventHandler};
pub use hooks::{
    AlwaysResolvesPair, CertificateRequest, ClientHello, KeyLog, KeyLogFile, NoKeyLog,
    ResolvesClientPair, ResolvesServerPair, SniResolver,
};
pub use keys::{
    CertifiedKeys, FixedTime, HelloRandoms, KxRole, PeerPoints, SecureRandom, Sm2EncKey,
    Sm2KeyExchange, Sm2PrivateKey, Sm2SignKey, SystemRandom, SystemTime, TimeProvider,
};
pub use rustls_pki_types::{CertificateDer, ServerName, UnixTime};
pub use server::ServerConnection;
pub use session::Session;
pub use stream::{Connection, Stream, StreamOwned};
pub use suites::{CipherSuite, UnknownSuite};
pub use ticket::Ticketer;
pub use verify::{
    CertVerifier, ClientCerts, NameCheck, RootCertStore, ServerCerts, WebPkiVerifier,
};

/// Every certificate of a PEM bundle, in order.
pub fn certs_from_pem(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, Error> {
    use der::Encode;
    let certs = x509_cert::Certificate::load_pem_chain(pem)
        .map_err(|_| Error::Config("unreadable PEM certificates"))?;
    certs
        .iter()
        .map(|c| {
            c.to_der()
                .map(CertificateDer::from)
                .map_err(|_| Error::Config("certificate encoding"))
        })
        .collect()
}
