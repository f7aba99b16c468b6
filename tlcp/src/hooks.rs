//! Resolvers and hooks, in the shapes rustls and gotlcp users know: the server's
//! certificate pair chosen per ClientHello ([`ResolvesServerPair`], [`SniResolver`]), the
//! client's pair chosen on the CertificateRequest ([`ResolvesClientPair`]), and the NSS key
//! log ([`KeyLog`], [`KeyLogFile`]: rustls' own, so one `SSLKEYLOGFILE` writer serves TLS
//! and TLCP). A whole configuration chosen per ClientHello
//! ([`ResolvesServerConfig`](crate::ResolvesServerConfig)) stands in `config` beside the
//! configuration it returns; the operators' event callback
//! ([`EventHandler`](crate::EventHandler)) in the leaf module `events`.

use crate::error::Error;
use crate::keys::CertifiedKeys;
use crate::suites::CipherSuite;
use std::collections::HashMap;
use std::sync::Arc;

pub use rustls::{KeyLog, KeyLogFile, NoKeyLog};

/// What a server resolver learns from the ClientHello.
#[derive(Debug)]
pub struct ClientHello<'a> {
    pub(crate) server_name: Option<&'a str>,
    pub(crate) cipher_suites: &'a [u16],
    pub(crate) alpn: Option<&'a [&'a [u8]]>,
}

impl<'a> ClientHello<'a> {
    /// The host name of the server_name extension (SNI), if the client sent one.
    pub fn server_name(&self) -> Option<&'a str> {
        self.server_name
    }

    /// The suites offered, as wire values in the client's order (unknown ones included).
    pub fn cipher_suites(&self) -> &'a [u16] {
        self.cipher_suites
    }

    /// The TLCP suites of the offer this crate knows, in the client's order.
    pub fn known_cipher_suites(&self) -> impl Iterator<Item = CipherSuite> + 'a {
        self.cipher_suites
            .iter()
            .filter_map(|&id| CipherSuite::from_id(id))
    }

    /// The ALPN protocols offered, if the client sent the extension.
    pub fn alpn(&self) -> Option<&'a [&'a [u8]]> {
        self.alpn
    }
}

/// Chooses the server's sign and encryption certificates for a ClientHello (rustls'
/// `ResolvesServerCert` for TLCP's two leaves).
///
/// `None` refuses the handshake: with unrecognized_name when the client sent a server
/// name, handshake_failure otherwise. Called for full handshakes only (a resumed session
/// sends no certificates).
pub trait ResolvesServerPair: core::fmt::Debug + Send + Sync {
    /// The pair for this ClientHello.
    fn resolve(&self, client_hello: &ClientHello<'_>) -> Option<Arc<CertifiedKeys>>;
}

/// Chooses a client's sign and encryption certificates on the server's CertificateRequest
/// (rustls' `ResolvesClientCert`).
pub trait ResolvesClientPair: core::fmt::Debug + Send + Sync {
    /// The pair to send, or `None` to send an empty Certificate (the server may then
    /// refuse; ECDHE suites cannot go on without one).
    fn resolve(&self, request: &CertificateRequest<'_>) -> Option<Arc<CertifiedKeys>>;

    /// Whether this resolver may return a pair at all (a client without one does not
    /// offer the ECDHE suites, which need client certificates).
    fn has_certs(&self) -> bool;
}

/// One pair for every ClientHello and every CertificateRequest.
#[derive(Clone, Debug)]
pub struct AlwaysResolvesPair(pub Arc<CertifiedKeys>);

impl ResolvesServerPair for AlwaysResolvesPair {
    fn resolve(&self, _: &ClientHello<'_>) -> Option<Arc<CertifiedKeys>> {
        Some(self.0.clone())
    }
}

impl ResolvesClientPair for AlwaysResolvesPair {
    fn resolve(&self, _: &CertificateRequest<'_>) -> Option<Arc<CertifiedKeys>> {
        Some(self.0.clone())
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// What the server's CertificateRequest asked for.
#[derive(Debug)]
pub struct CertificateRequest<'a> {
    pub(crate) certificate_types: &'a [u8],
    pub(crate) ca_names: Vec<&'a [u8]>,
    pub(crate) suite: CipherSuite,
}

impl<'a> CertificateRequest<'a> {
    /// The certificate types (1 rsa_sign, 64 ecdsa_sign: TLCP servers send these two).
    pub fn certificate_types(&self) -> &'a [u8] {
        self.certificate_types
    }

    /// The DER distinguished names of the CAs the server accepts (may be empty: any).
    pub fn ca_names(&self) -> &[&'a [u8]] {
        &self.ca_names
    }

    /// The suite the server chose (ECDHE suites need the encryption key as well).
    pub fn suite(&self) -> CipherSuite {
        self.suite
    }
}

/// Chooses the server's pair by the name the client sent (SNI), with a default for clients
/// that send none or an unknown name (Tongsuo's `-servername`/`-sign_cert2` setups).
///
/// ```
/// # fn pair() -> shangmi_tlcp::CertifiedKeys { unimplemented!() }
/// # fn run() -> Result<(), shangmi_tlcp::Error> {
/// use shangmi_tlcp::{ServerConfig, SniResolver};
/// use std::sync::Arc;
/// let mut sni = SniResolver::new();
/// sni.add("a.example", pair())?;
/// sni.add("b.example", pair())?;
/// sni.set_default(pair()); // without one, unknown names get unrecognized_name
/// let config = ServerConfig::builder().with_cert_resolver(Arc::new(sni))?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct SniResolver {
    by_name: HashMap<String, Arc<CertifiedKeys>>,
    default: Option<Arc<CertifiedKeys>>,
}

/// A DNS name as SNI compares it: ASCII lower case, no trailing dot.
pub(crate) fn normalise(name: &str) -> String {
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

impl SniResolver {
    /// A resolver with no names and no default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `keys` to clients asking for `name` (a DNS name; ASCII case and a trailing
    /// dot are ignored). The certificate is not checked against the name: a legacy pair
    /// that names its host only in the commonName is accepted.
    pub fn add(&mut self, name: &str, keys: CertifiedKeys) -> Result<(), Error> {
        let name = normalise(name);
        if !matches!(
            rustls_pki_types::ServerName::try_from(name.as_str()),
            Ok(rustls_pki_types::ServerName::DnsName(_))
        ) {
            return Err(Error::Config("SNI name is not a DNS name"));
        }
        if keys.sign_chain.is_empty() {
            return Err(Error::Config("empty certificate chain"));
        }
        self.by_name.insert(name, Arc::new(keys));
        Ok(())
    }

    /// Serves `keys` to clients that send no name or a name not added.
    pub fn set_default(&mut self, keys: CertifiedKeys) {
        self.default = Some(Arc::new(keys));
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether no name was added.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

impl ResolvesServerPair for SniResolver {
    fn resolve(&self, client_hello: &ClientHello<'_>) -> Option<Arc<CertifiedKeys>> {
        client_hello
            .server_name()
            .and_then(|n| self.by_name.get(&normalise(n)))
            .or(self.default.as_ref())
            .cloned()
    }
}
