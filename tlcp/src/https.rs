//! HTTPS over TLCP and RFC 8998 TLS 1.3 on hyper (features `hyper-client` and
//! `hyper-server`).
//!
//! - [`HttpsConnector`] (`hyper-client`): a connector for hyper-util's client
//!   (`hyper_util::client::legacy::Client`) that opens `https://` URLs over TLCP, over TLS
//!   (a rustls configuration of the caller's, the RFC 8998 one of shangmi-rustls), or over
//!   TLCP with a fall-back to TLS when the server refuses TLCP, with a [`Policy`] per host;
//!   `http://` URLs over plain TCP. What a connection negotiated is a [`Negotiated`] in the
//!   extensions of every response it carried.
//! - [`serve`] (`hyper-server`): HTTP/1.1 on hyper over the one-port acceptor
//!   ([`crate::oneport::OnePortAcceptor`]: TLCP, TLS 1.3 SM and ordinary TLS on one
//!   listener), any tower service (an axum `Router`), a task per connection and a
//!   graceful shutdown; every request carries the connection's [`ConnectionContext`]
//!   (protocol, suite, peer certificate) as an extension.
//!
//! Both speak HTTP/1.1 only (what TLCP gateways and their clients speak): a TLS
//! configuration given to either should offer no ALPN, or `http/1.1`.

#[cfg(feature = "hyper-client")]
mod client;
#[cfg(feature = "hyper-server")]
mod server;

#[cfg(feature = "hyper-client")]
pub use client::{
    ConnectError, DEFAULT_CONNECT_TIMEOUT, HttpsConnector, HttpsConnectorBuilder, HttpsStream,
    Negotiated, Policy,
};
#[cfg(feature = "hyper-server")]
pub use server::{ConnectionContext, serve};

/// A certificate's subject as an RFC 4514 string (`CN=…,O=…`), if it parses.
fn subject(cert: &rustls_pki_types::CertificateDer<'_>) -> Option<String> {
    use der::Decode;
    x509_cert::Certificate::from_der(cert.as_ref())
        .ok()
        .map(|c| c.tbs_certificate().subject().to_string())
}
