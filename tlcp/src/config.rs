//! Client and server configurations, their builders, and the session stores.

use crate::error::Error;
use crate::events::EventHandler;
use crate::hooks::{
    AlwaysResolvesPair, ClientHello, KeyLog, NoKeyLog, ResolvesClientPair, ResolvesServerPair,
};
use crate::keys::{
    CertifiedKeys, SecureRandom, Sm2EncKey, Sm2SignKey, SystemTime, TimeProvider, default_rng,
};
use crate::session::Session;
use crate::suites::CipherSuite;
use crate::ticket::Ticketer;
use crate::verify::{
    CertVerifier, ClientCerts, NameCheck, RootCertStore, ServerCerts, WebPkiVerifier,
};
use rustls_pki_types::CertificateDer;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Builder methods that set one field to their argument (or to `Some(argument)` with
/// `= Some`) and return the builder: each written as its docs, `fn name(arg: Type) =>
/// field.path`. The configuration builders here and in `oneport` and `https` use it.
macro_rules! setters {
    ($(
        $(#[$m:meta])*
        fn $name:ident($arg:ident: $ty:ty) => $($field:ident).+ $(= $some:ident)?;
    )+) => {$(
        $(#[$m])*
        pub fn $name(mut self, $arg: $ty) -> Self {
            self.$($field).+ = $($some)?($arg);
            self
        }
    )+};
}
pub(crate) use setters;

/// Why ECDHE suites were all that was asked for and none can run.
const NO_KX: &str = "ECDHE suites need an encryption key that runs the SM2 key exchange; this \
     one cannot (a GM/T 0018 device returns the agreed key as a handle, never its bytes): \
     use ECC suites";

/// Leaves the ECDHE suites out of `suites`, for a side that cannot run them; `why` when
/// nothing is left.
fn without_ecdhe(suites: &mut Vec<CipherSuite>, why: &'static str) -> Result<(), Error> {
    suites.retain(|s| !s.is_ecdhe());
    if suites.is_empty() {
        return Err(Error::Config(why));
    }
    Ok(())
}

/// Whether a server asks for and requires client certificates. ECDHE suites always
/// require them (the key exchange needs the client's encryption key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClientAuth {
    /// No CertificateRequest (except for ECDHE suites, which need client certificates).
    #[default]
    None,
    /// Ask; accept a client that sends none.
    Optional,
    /// Ask and refuse a client without certificates (handshake_failure).
    Required,
}

/// A server's store of sessions by session ID.
pub trait ServerSessionStore: Send + Sync + core::fmt::Debug {
    /// Whether the store keeps sessions at all (if not, the server sends an empty ID).
    fn enabled(&self) -> bool;
    /// Keeps a session.
    fn put(&self, session: Session);
    /// Finds a session.
    fn get(&self, id: &[u8]) -> Option<Session>;
}

/// A client's store of sessions by server name.
pub trait ClientSessionStore: Send + Sync + core::fmt::Debug {
    /// Keeps the session for `server_name`.
    fn put(&self, server_name: &str, session: Session);
    /// The session for `server_name`.
    fn get(&self, server_name: &str) -> Option<Session>;
    /// Forgets the session for `server_name`.
    fn remove(&self, server_name: &str);
}

/// An in-memory map with at most `capacity` entries, oldest evicted first.
#[derive(Debug)]
struct Bounded<K> {
    capacity: usize,
    inner: Mutex<(HashMap<K, Session>, VecDeque<K>)>,
}

impl<K: std::hash::Hash + Eq + Clone> Bounded<K> {
    fn new(capacity: usize) -> Self {
        Bounded {
            capacity,
            inner: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    fn put(&self, k: K, s: Session) {
        if self.capacity == 0 {
            return;
        }
        let Ok(mut g) = self.inner.lock() else { return };
        let (map, order) = &mut *g;
        if map.insert(k.clone(), s).is_none() {
            order.push_back(k);
        }
        while map.len() > self.capacity {
            match order.pop_front() {
                Some(old) => {
                    map.remove(&old);
                }
                None => break,
            }
        }
    }

    fn get<Q: std::hash::Hash + Eq + ?Sized>(&self, k: &Q) -> Option<Session>
    where
        K: std::borrow::Borrow<Q>,
    {
        self.inner.lock().ok()?.0.get(k).cloned()
    }

    fn remove<Q: std::hash::Hash + Eq + ?Sized>(&self, k: &Q)
    where
        K: std::borrow::Borrow<Q>,
    {
        if let Ok(mut g) = self.inner.lock() {
            g.0.remove(k);
            g.1.retain(|x| x.borrow() != k);
        }
    }

    fn len(&self) -> usize {
        self.inner.lock().map(|g| g.0.len()).unwrap_or(0)
    }
}

/// The server's in-memory session cache with a size bound (0 disables resumption).
#[derive(Debug)]
pub struct ServerSessionCache(Bounded<Vec<u8>>);

impl ServerSessionCache {
    /// A cache keeping at most `capacity` sessions.
    pub fn new(capacity: usize) -> Arc<Self> {
        Arc::new(ServerSessionCache(Bounded::new(capacity)))
    }

    /// Sessions held.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ServerSessionStore for ServerSessionCache {
    fn enabled(&self) -> bool {
        self.0.capacity > 0
    }

    fn put(&self, session: Session) {
        self.0.put(session.id.clone(), session);
    }

    fn get(&self, id: &[u8]) -> Option<Session> {
        self.0.get(id)
    }
}

/// The client's in-memory session store by server name (0 disables resumption).
#[derive(Debug)]
pub struct ClientSessionCache(Bounded<String>);

impl ClientSessionCache {
    /// A store keeping at most `capacity` servers' sessions.
    pub fn new(capacity: usize) -> Arc<Self> {
        Arc::new(ClientSessionCache(Bounded::new(capacity)))
    }
}

impl ClientSessionStore for ClientSessionCache {
    fn put(&self, server_name: &str, session: Session) {
        self.0.put(server_name.to_owned(), session);
    }

    fn get(&self, server_name: &str) -> Option<Session> {
        self.0.get(server_name)
    }

    fn remove(&self, server_name: &str) {
        self.0.remove(server_name);
    }
}

/// A client's configuration. Make one with [`ClientConfig::builder`].
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Roots the server's two certificates must chain to, and the CRLs they are checked
    /// against ([`RootCertStore::add_crl`]; none: no revocation check).
    pub roots: RootCertStore,
    /// Suites offered, in order of preference (ECDHE suites are left out of the offer when
    /// no client certificates are configured).
    pub suites: Vec<CipherSuite>,
    /// Chooses the client's certificates when a server asks (and for ECDHE suites); `None`:
    /// the client has none.
    pub client_pair_resolver: Option<Arc<dyn ResolvesClientPair>>,
    /// Checks the server's certificates; `None` (the default): a [`WebPkiVerifier`] over
    /// [`roots`](Self::roots), [`name_check`](Self::name_check) and
    /// [`strict_key_usage`](Self::strict_key_usage).
    pub verifier: Option<Arc<dyn CertVerifier>>,
    /// Where master secrets are logged (NSS key-log format, for Wireshark); nothing by
    /// default.
    pub key_log: Arc<dyn KeyLog>,
    /// Receives the connection's events; `None` by default.
    pub events: Option<Arc<dyn EventHandler>>,
    /// Sessions for resumption by server name.
    pub session_store: Arc<dyn ClientSessionStore>,
    /// ALPN protocols offered (none: no extension).
    pub alpn_protocols: Vec<Vec<u8>>,
    /// Whether to send server_name (SNI) for DNS names (GmSSL's server refuses it).
    pub enable_sni: bool,
    /// Whether to check the certificates' key usages (off only for legacy PKIs).
    pub strict_key_usage: bool,
    /// How the server name is checked against the sign certificate.
    pub name_check: NameCheck,
    /// Whether to speak to GmSSL 3.3's `tlcp_server` in its own dialect: the ECDHE
    /// ClientKeyExchange with a u16 length (71 bytes), CertificateVerify signed over the
    /// handshake messages rather than their SM3 hash, and for client authentication in the
    /// ECC suites one certificate chain (sign certificate, then its CAs) instead of the
    /// two leaves (GmSSL's server reads a list as one chain). Tongsuo and the standard's
    /// text want none of it: off by default.
    pub gmssl_compat: bool,
    /// Whether to ask for session tickets (RFC 5077: an empty session_ticket extension in
    /// the ClientHello, or the stored ticket when resuming) — on by default, as in rustls;
    /// never sent with [`gmssl_compat`](Self::gmssl_compat) (GmSSL 3.3's server refuses
    /// the extension). Resumption by session ID works either way.
    pub session_tickets: bool,
    /// Randomness: the OS generator unless the builder's `rng` set another. Explicit CBC
    /// record IVs come from it too: from the default one 32 records' worth per call, from
    /// a generator of the caller's one call per record.
    pub rng: Arc<dyn SecureRandom>,
    /// Clock.
    pub time: Arc<dyn TimeProvider>,
}

/// Builds a [`ClientConfig`].
#[derive(Debug)]
pub struct ClientConfigBuilder {
    config: ClientConfig,
    /// The pair of [`ClientConfigBuilder::client_certs`], checked by `build`.
    client_keys: Option<CertifiedKeys>,
}

impl ClientConfig {
    /// A builder trusting `roots`, with every suite, SNI on, strict key usages, a session
    /// store of 256 servers, session tickets asked for, the system RNG and clock.
    pub fn builder(roots: RootCertStore) -> ClientConfigBuilder {
        ClientConfigBuilder {
            config: ClientConfig {
                roots,
                suites: CipherSuite::ALL.to_vec(),
                client_pair_resolver: None,
                verifier: None,
                key_log: Arc::new(NoKeyLog),
                events: None,
                session_store: ClientSessionCache::new(256),
                alpn_protocols: Vec::new(),
                enable_sni: true,
                strict_key_usage: true,
                name_check: NameCheck::SubjectAltName,
                gmssl_compat: false,
                session_tickets: true,
                rng: default_rng(),
                time: Arc::new(SystemTime),
            },
            client_keys: None,
        }
    }

    /// Checks the server's Certificate list (split by [`ServerCerts::split`]) with the
    /// custom verifier, or the default [`WebPkiVerifier`] checks over the roots (without
    /// copying them); returns the checked split.
    pub(crate) fn verify_server<'a>(
        &self,
        list: &'a [CertificateDer<'a>],
        name: &rustls_pki_types::ServerName<'_>,
    ) -> Result<ServerCerts<'a>, Error> {
        let certs = ServerCerts::split(list, crate::keys::now(&*self.time)?)?;
        match &self.verifier {
            Some(v) => v.verify_server(certs, name),
            None => WebPkiVerifier::new(&self.roots)
                .with_name_check(self.name_check)
                .with_strict_key_usage(self.strict_key_usage)
                .verify_server(certs, name),
        }?;
        Ok(certs)
    }
}

impl ClientConfigBuilder {
    /// How the server name is checked (see [`NameCheck`]; subjectAltName by default).
    pub fn name_check(mut self, check: NameCheck) -> Self {
        self.config.name_check = check;
        self
    }

    /// The suites to offer, in order.
    pub fn suites(mut self, suites: &[CipherSuite]) -> Self {
        self.config.suites = suites.to_vec();
        self
    }

    /// Client certificates: the sign certificate (then its chain) with its key, and the
    /// encryption certificate with its key.
    pub fn client_certs(
        mut self,
        sign_chain: Vec<CertificateDer<'static>>,
        sign_key: Arc<dyn Sm2SignKey>,
        enc_cert: CertificateDer<'static>,
        enc_key: Arc<dyn Sm2EncKey>,
    ) -> Self {
        self.client_keys = Some(CertifiedKeys::new(sign_chain, sign_key, enc_cert, enc_key));
        self
    }

    /// Chooses the client's certificates on each CertificateRequest (replaces
    /// [`client_certs`](Self::client_certs)).
    ///
    /// ```
    /// use shangmi_tlcp::{CertificateRequest, CertifiedKeys, ResolvesClientPair};
    /// use std::sync::Arc;
    /// /// The pair issued by the CA the server names, if we have one.
    /// #[derive(Debug)]
    /// struct ByCa(Vec<(Vec<u8>, Arc<CertifiedKeys>)>);
    /// impl ResolvesClientPair for ByCa {
    ///     fn resolve(&self, request: &CertificateRequest<'_>) -> Option<Arc<CertifiedKeys>> {
    ///         let names = request.ca_names();
    ///         self.0.iter().find(|(ca, _)| names.contains(&ca.as_slice())).map(|p| p.1.clone())
    ///     }
    ///     fn has_certs(&self) -> bool {
    ///         !self.0.is_empty()
    ///     }
    /// }
    /// ```
    pub fn client_pair_resolver(mut self, resolver: Arc<dyn ResolvesClientPair>) -> Self {
        self.client_keys = None;
        self.config.client_pair_resolver = Some(resolver);
        self
    }

    crate::config::setters! {
        /// Checks the server's certificates with `verifier` instead of the default
        /// [`WebPkiVerifier`] over the roots (which may then be empty).
        fn custom_certificate_verifier(verifier: Arc<dyn CertVerifier>) => config.verifier = Some;

        /// Logs master secrets to `key_log` (e.g. [`KeyLogFile`](crate::KeyLogFile), which
        /// appends `CLIENT_RANDOM <client random> <master secret>` lines, hex, to the file
        /// `SSLKEYLOGFILE` names — what Wireshark reads to decrypt TLCP as TLS 1.2).
        ///
        /// ```no_run
        /// # fn main() -> Result<(), shangmi_tlcp::Error> {
        /// use shangmi_tlcp::{ClientConfig, KeyLogFile, RootCertStore};
        /// use std::sync::Arc;
        /// let mut roots = RootCertStore::empty();
        /// roots.add_pem(&std::fs::read("ca.pem").expect("CA"))?;
        /// let config = ClientConfig::builder(roots)
        ///     .key_log(Arc::new(KeyLogFile::new()))
        ///     .build()?;
        /// # Ok(()) }
        /// ```
        fn key_log(key_log: Arc<dyn KeyLog>) => config.key_log;

        /// Sends the connection's events to `handler`.
        fn events(handler: Arc<dyn EventHandler>) => config.events = Some;

        /// The session store.
        fn session_store(store: Arc<dyn ClientSessionStore>) => config.session_store;

        /// ALPN protocols to offer.
        fn alpn_protocols(protocols: Vec<Vec<u8>>) => config.alpn_protocols;

        /// Whether to send SNI.
        fn enable_sni(on: bool) => config.enable_sni;
    }

    /// Accept certificates whatever their key usages say (legacy PKIs).
    pub fn relaxed_key_usage(mut self) -> Self {
        self.config.strict_key_usage = false;
        self
    }

    crate::config::setters! {
        /// Speak GmSSL 3.3's dialect (see [`ClientConfig::gmssl_compat`]).
        fn gmssl_compat(on: bool) => config.gmssl_compat;

        /// Whether to ask for and offer session tickets (see
        /// [`ClientConfig::session_tickets`]; on by default).
        fn session_tickets(on: bool) => config.session_tickets;

        /// The randomness source (by default the OS generator). Every CBC record's explicit
        /// IV is then drawn from it with a call of its own, so a device's generator sees every
        /// IV and a seeded one gives reproducible records; the default generator instead gives
        /// each connection 32 IVs per call (one system call per 32 records, each IV still fresh
        /// OS randomness, as RFC 5246 §6.2.3.2 asks).
        fn rng(rng: Arc<dyn SecureRandom>) => config.rng;

        /// The clock.
        fn time(time: Arc<dyn TimeProvider>) => config.time;
    }

    /// The configuration.
    pub fn build(mut self) -> Result<ClientConfig, Error> {
        // A client encryption key that cannot run the SM2 key exchange (a key in a GM/T 0018
        // device) cannot serve ECDHE: those suites leave the offer here, not mid-handshake.
        if let Some(k) = &self.client_keys
            && !k.enc_key.supports_key_exchange()
        {
            without_ecdhe(&mut self.config.suites, NO_KX)?;
        }
        let c = &self.config;
        if c.suites.is_empty() {
            return Err(Error::Config("no cipher suites"));
        }
        if c.roots.is_empty() && c.verifier.is_none() {
            return Err(Error::Config("no root certificates"));
        }
        if let Some(k) = self.client_keys.take() {
            if k.sign_chain.is_empty() {
                return Err(Error::Config("empty client certificate chain"));
            }
            self.config.client_pair_resolver = Some(Arc::new(AlwaysResolvesPair(Arc::new(k))));
        }
        Ok(self.config)
    }
}

/// A server's configuration. Make one with [`ServerConfig::builder`].
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Chooses the server's certificates and keys for each ClientHello.
    pub cert_resolver: Arc<dyn ResolvesServerPair>,
    /// Chooses another configuration for a ClientHello (see [`ResolvesServerConfig`]).
    pub config_resolver: Option<Arc<dyn ResolvesServerConfig>>,
    /// Checks client certificates; `None` (the default): a [`WebPkiVerifier`] over
    /// [`client_roots`](Self::client_roots) and
    /// [`strict_key_usage`](Self::strict_key_usage).
    pub client_verifier: Option<Arc<dyn CertVerifier>>,
    /// Where master secrets are logged (NSS key-log format); nothing by default.
    pub key_log: Arc<dyn KeyLog>,
    /// Receives the connection's events; `None` by default.
    pub events: Option<Arc<dyn EventHandler>>,
    /// Client authentication.
    pub client_auth: ClientAuth,
    /// Roots client certificates must chain to, and the CRLs they are checked against
    /// ([`RootCertStore::add_crl`]; none: no revocation check).
    pub client_roots: RootCertStore,
    /// Suites accepted, in the server's order of preference.
    pub suites: Vec<CipherSuite>,
    /// Session cache.
    pub session_cache: Arc<dyn ServerSessionStore>,
    /// The session ticket key (RFC 5077); `None` (the default, as in rustls): no tickets,
    /// the session_ticket extension is ignored. With a ticketer, a client that sends the
    /// extension gets a ticket (after full and resumed handshakes) instead of a cache
    /// entry, and a valid ticket resumes; an invalid, expired or foreign one only costs a
    /// full handshake.
    pub ticketer: Option<Arc<Ticketer>>,
    /// ALPN protocols, in order of preference (none: ALPN ignored).
    pub alpn_protocols: Vec<Vec<u8>>,
    /// Whether to check client certificates' key usages.
    pub strict_key_usage: bool,
    /// Randomness: the OS generator unless the builder's `rng` set another. Explicit CBC
    /// record IVs come from it too: from the default one 32 records' worth per call, from
    /// a generator of the caller's one call per record.
    pub rng: Arc<dyn SecureRandom>,
    /// Clock.
    pub time: Arc<dyn TimeProvider>,
}

/// Builds a [`ServerConfig`].
#[derive(Debug)]
pub struct ServerConfigBuilder {
    client_auth: ClientAuth,
    client_roots: RootCertStore,
    client_verifier: Option<Arc<dyn CertVerifier>>,
    config_resolver: Option<Arc<dyn ResolvesServerConfig>>,
    key_log: Arc<dyn KeyLog>,
    events: Option<Arc<dyn EventHandler>>,
    suites: Vec<CipherSuite>,
    session_cache: Arc<dyn ServerSessionStore>,
    ticketer: Option<Arc<Ticketer>>,
    session_tickets: bool,
    alpn_protocols: Vec<Vec<u8>>,
    strict_key_usage: bool,
    rng: Arc<dyn SecureRandom>,
    time: Arc<dyn TimeProvider>,
}

impl ServerConfig {
    /// A builder with every suite, no client authentication, a session cache of 1024, no
    /// session tickets, strict key usages, the system RNG and clock.
    pub fn builder() -> ServerConfigBuilder {
        ServerConfigBuilder {
            client_auth: ClientAuth::None,
            client_roots: RootCertStore::empty(),
            client_verifier: None,
            config_resolver: None,
            key_log: Arc::new(NoKeyLog),
            events: None,
            suites: CipherSuite::ALL.to_vec(),
            session_cache: ServerSessionCache::new(1024),
            ticketer: None,
            session_tickets: false,
            alpn_protocols: Vec::new(),
            strict_key_usage: true,
            rng: default_rng(),
            time: Arc::new(SystemTime),
        }
    }

    /// Whether client certificates can be checked (roots or a verifier).
    pub(crate) fn verifies_clients(&self) -> bool {
        self.client_verifier.is_some() || !self.client_roots.is_empty()
    }

    /// Checks a client's Certificate list (split by [`ClientCerts::split`]) with the
    /// custom verifier, or the default [`WebPkiVerifier`] checks over the client roots
    /// (without copying them); returns the checked split.
    pub(crate) fn verify_client<'a>(
        &self,
        list: &'a [CertificateDer<'a>],
        single_chain: bool,
    ) -> Result<ClientCerts<'a>, Error> {
        let certs = ClientCerts::split(list, single_chain, crate::keys::now(&*self.time)?)?;
        match &self.client_verifier {
            Some(v) => v.verify_client(certs),
            None => WebPkiVerifier::new(&self.client_roots)
                .with_strict_key_usage(self.strict_key_usage)
                .verify_client(certs),
        }?;
        Ok(certs)
    }

    /// The CA names of the CertificateRequest.
    pub(crate) fn client_ca_names(&self) -> Vec<Vec<u8>> {
        match &self.client_verifier {
            Some(v) => v.root_hint_subjects(),
            None => self.client_roots.subjects(),
        }
    }
}

impl ServerConfigBuilder {
    /// Client authentication with a verifier of the caller's instead of roots (the
    /// CertificateRequest names the verifier's
    /// [`root_hint_subjects`](CertVerifier::root_hint_subjects)).
    pub fn client_cert_verifier(
        mut self,
        policy: ClientAuth,
        verifier: Arc<dyn CertVerifier>,
    ) -> Self {
        self.client_auth = policy;
        self.client_verifier = Some(verifier);
        self
    }

    crate::config::setters! {
        /// Chooses a whole configuration per ClientHello (see [`ResolvesServerConfig`]).
        fn config_resolver(resolver: Arc<dyn ResolvesServerConfig>) => config_resolver = Some;

        /// Logs master secrets to `key_log` (e.g. [`KeyLogFile`](crate::KeyLogFile)).
        fn key_log(key_log: Arc<dyn KeyLog>) => key_log;

        /// Sends the connection's events to `handler`.
        fn events(handler: Arc<dyn EventHandler>) => events = Some;
    }

    /// The suites to accept, in order of preference.
    pub fn suites(mut self, suites: &[CipherSuite]) -> Self {
        self.suites = suites.to_vec();
        self
    }

    /// Client authentication and the roots client certificates must chain to.
    pub fn client_auth(mut self, policy: ClientAuth, roots: RootCertStore) -> Self {
        self.client_auth = policy;
        self.client_roots = roots;
        self
    }

    crate::config::setters! {
        /// The session cache.
        fn session_cache(cache: Arc<dyn ServerSessionStore>) => session_cache;

        /// ALPN protocols.
        fn alpn_protocols(protocols: Vec<Vec<u8>>) => alpn_protocols;
    }

    /// Session tickets (RFC 5077) with a key of this configuration's own, drawn from its
    /// generator when the configuration is built, valid [`Ticketer::DEFAULT_LIFETIME`];
    /// off by default. `false` also drops a [`ticketer`](Self::ticketer).
    pub fn session_tickets(mut self, on: bool) -> Self {
        self.session_tickets = on;
        if !on {
            self.ticketer = None;
        }
        self
    }

    /// Session tickets under `ticketer` (shared between configurations that should accept
    /// each other's tickets).
    pub fn ticketer(mut self, ticketer: Arc<Ticketer>) -> Self {
        self.ticketer = Some(ticketer);
        self.session_tickets = true;
        self
    }

    /// Accept client certificates whatever their key usages say (legacy PKIs).
    pub fn relaxed_key_usage(mut self) -> Self {
        self.strict_key_usage = false;
        self
    }

    crate::config::setters! {
        /// The randomness source (by default the OS generator). Every CBC record's explicit
        /// IV is then drawn from it with a call of its own, so a device's generator sees every
        /// IV and a seeded one gives reproducible records; the default generator instead gives
        /// each connection 32 IVs per call (one system call per 32 records, each IV still fresh
        /// OS randomness, as RFC 5246 §6.2.3.2 asks).
        fn rng(rng: Arc<dyn SecureRandom>) => rng;

        /// The clock.
        fn time(time: Arc<dyn TimeProvider>) => time;
    }

    /// Finishes with the server's certificates: the sign certificate (then its chain) with
    /// its key, and the encryption certificate with its key.
    pub fn with_certs(
        mut self,
        sign_chain: Vec<CertificateDer<'static>>,
        sign_key: Arc<dyn Sm2SignKey>,
        enc_cert: CertificateDer<'static>,
        enc_key: Arc<dyn Sm2EncKey>,
    ) -> Result<ServerConfig, Error> {
        if sign_chain.is_empty() {
            return Err(Error::Config("empty certificate chain"));
        }
        // An encryption key that cannot run the SM2 key exchange (one in a GM/T 0018
        // device) cannot serve ECDHE: those suites leave here, not mid-handshake. (A
        // resolver's pairs are the resolver's to match with the suites.)
        if !enc_key.supports_key_exchange() {
            without_ecdhe(&mut self.suites, NO_KX)?;
        }
        let keys = CertifiedKeys::new(sign_chain, sign_key, enc_cert, enc_key);
        self.with_cert_resolver(Arc::new(AlwaysResolvesPair(Arc::new(keys))))
    }

    /// Finishes with a resolver choosing the server's certificates per ClientHello (an
    /// [`SniResolver`](crate::SniResolver), or one of the caller's).
    pub fn with_cert_resolver(
        self,
        resolver: Arc<dyn ResolvesServerPair>,
    ) -> Result<ServerConfig, Error> {
        if self.suites.is_empty() {
            return Err(Error::Config("no cipher suites"));
        }
        let verifies_clients = self.client_verifier.is_some() || !self.client_roots.is_empty();
        if self.client_auth != ClientAuth::None && !verifies_clients {
            return Err(Error::Config("client authentication needs client roots"));
        }
        // ECDHE needs client certificates, which need roots to check them against.
        let mut suites = self.suites;
        if !verifies_clients {
            without_ecdhe(&mut suites, "ECDHE suites need client roots")?;
        }
        let ticketer = match (self.ticketer, self.session_tickets) {
            (Some(t), _) => Some(t),
            (None, true) => Some(Ticketer::new(&*self.rng, Ticketer::DEFAULT_LIFETIME)?),
            (None, false) => None,
        };
        Ok(ServerConfig {
            cert_resolver: resolver,
            config_resolver: self.config_resolver,
            client_verifier: self.client_verifier,
            key_log: self.key_log,
            events: self.events,
            client_auth: self.client_auth,
            client_roots: self.client_roots,
            suites,
            session_cache: self.session_cache,
            ticketer,
            alpn_protocols: self.alpn_protocols,
            strict_key_usage: self.strict_key_usage,
            rng: self.rng,
            time: self.time,
        })
    }
}

/// Chooses a whole server configuration per ClientHello (gotlcp's `GetConfigForClient`):
/// suites, certificates, client authentication, tickets, key log and events all come
/// from the configuration returned.
///
/// Set on a [`ServerConfig`] with
/// [`ServerConfigBuilder::config_resolver`](crate::ServerConfigBuilder::config_resolver);
/// the sans-IO [`ServerConnection`](crate::ServerConnection) calls it once the ClientHello
/// has arrived (so the one-port acceptor and the tokio adapter use it too). The resolver of
/// the configuration returned is not called again.
///
/// ```
/// use shangmi_tlcp::{ClientHello, Error, ResolvesServerConfig, ServerConfig};
/// use std::sync::Arc;
/// /// The strict configuration (client certificates required) for the payment host.
/// #[derive(Debug)]
/// struct PerHost {
///     payments: Arc<ServerConfig>,
/// }
/// impl ResolvesServerConfig for PerHost {
///     fn resolve(&self, hello: &ClientHello<'_>) -> Result<Option<Arc<ServerConfig>>, Error> {
///         Ok((hello.server_name() == Some("pay.example")).then(|| self.payments.clone()))
///     }
/// }
/// ```
pub trait ResolvesServerConfig: core::fmt::Debug + Send + Sync {
    /// `Ok(Some(config))` to use `config`, `Ok(None)` to go on with the configuration the
    /// connection was made with, `Err(e)` to refuse the client with `e`'s alert
    /// ([`Error::alert`]; e.g. `Error::HandshakeFailure`).
    fn resolve(&self, client_hello: &ClientHello<'_>) -> Result<Option<Arc<ServerConfig>>, Error>;
}
