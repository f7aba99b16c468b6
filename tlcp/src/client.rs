//! The client: its handshake state machine and `ClientConnection`.

use crate::codec::put_vec24;
use crate::config::ClientConfig;
use crate::conn::*;
use crate::error::{AlertDescription as A, Error, bad};
use crate::hooks::CertificateRequest;
use crate::keys::{CertifiedKeys, KxRole, PeerPoints, encrypt_sm2, verify_sm2};
use crate::msgs::{self, ClientExtension, Codec, HandshakeType as H, ServerExtension};
use crate::record::VERSION;
use crate::schedule::{
    KeySchedule, complete, fmt_connection, hello_random, take_ccs, unexpected_message,
};
use crate::session::Session;
use crate::suites::CipherSuite;
use rustls_pki_types::{CertificateDer, ServerName};
use shangmi_sm3::Sm3;
use std::io;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    ServerHello,
    Certificate,
    ServerKeyExchange,
    CertReqOrDone,
    ServerHelloDone,
    /// The server echoed session_ticket: a NewSessionTicket comes before its CCS.
    NewTicket,
    Ccs,
    Finished,
    Traffic,
}

pub(crate) struct ClientHs {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
    state: State,
    ks: KeySchedule,
    offered: Vec<CipherSuite>,
    offered_session: Option<Session>,
    /// The session being resumed (kept to store it again with a new ticket).
    resumed_session: Option<Session>,
    /// Whether the ClientHello carried session_ticket.
    offered_ticket: bool,
    /// Whether the ServerHello echoed it (a NewSessionTicket must follow).
    expect_ticket: bool,
    /// The NewSessionTicket's lifetime hint and ticket (not empty).
    new_ticket: Option<(u32, Vec<u8>)>,
    session_id: Vec<u8>,
    suite: Option<CipherSuite>,
    resumed: bool,
    peer_certs: Vec<CertificateDer<'static>>,
    server_sign: Vec<u8>,
    server_enc: Vec<u8>,
    ecdhe_point: Vec<u8>,
    cert_requested: bool,
    /// The pair the resolver chose on the CertificateRequest.
    client_keys: Option<Arc<CertifiedKeys>>,
    alpn: Option<Vec<u8>>,
}

fn name_key(name: &ServerName<'_>) -> String {
    match name {
        ServerName::DnsName(d) => d.as_ref().to_owned(),
        ServerName::IpAddress(ip) => format!("{:?}", std::net::IpAddr::from(*ip)),
        _ => String::new(),
    }
}

impl ClientHs {
    fn start(&mut self, core: &mut Core) -> Result<(), Error> {
        let now_secs = crate::keys::now(&*self.config.time)?.as_secs();
        self.ks.client_random = hello_random(&*self.config.time, &*self.config.rng)?;
        let has_certs = self
            .config
            .client_pair_resolver
            .as_ref()
            .is_some_and(|r| r.has_certs());
        self.offered = self
            .config
            .suites
            .iter()
            .copied()
            .filter(|s| has_certs || !s.is_ecdhe())
            .collect();
        if self.offered.is_empty() {
            return Err(Error::Config(
                "no suite can be offered (ECDHE needs client certificates)",
            ));
        }
        let session = self
            .config
            .session_store
            .get(&name_key(&self.name))
            .filter(|s| self.offered.contains(&s.suite) && s.id.len() <= 32 && !s.id.is_empty());
        let mut extensions = Vec::new();
        if let (true, ServerName::DnsName(d)) = (self.config.enable_sni, &self.name) {
            let host = d.as_ref().as_bytes().to_vec();
            extensions.push(ClientExtension::ServerName(vec![(0, host)]));
        }
        if !self.config.alpn_protocols.is_empty() {
            extensions.push(ClientExtension::Alpn(self.config.alpn_protocols.clone()));
        }
        if self.config.session_tickets && !self.config.gmssl_compat {
            // RFC 5077 §3.2: empty to ask for a ticket, or the ticket to resume with (the
            // session ID above, from the server or made from the ticket, tells us in the
            // ServerHello whether the server accepted it, §3.4).
            let ticket = session
                .as_ref()
                .filter(|s| s.ticket_usable(now_secs))
                .and_then(|s| s.ticket.clone())
                .unwrap_or_default();
            extensions.push(ClientExtension::SessionTicket(ticket));
            self.offered_ticket = true;
        }
        let hello = msgs::ClientHello {
            random: self.ks.client_random,
            session_id: session.as_ref().map(|s| s.id.clone()).unwrap_or_default(),
            cipher_suites: self.offered.iter().map(|s| s.id()).collect(),
            compression_methods: vec![0],
            extensions: (!extensions.is_empty()).then_some(extensions),
        };
        self.offered_session = session;
        core.send(&hello)
    }

    fn suite(&self) -> Result<CipherSuite, Error> {
        self.suite.ok_or(Error::Crypto("no suite"))
    }

    fn server_hello(&mut self, core: &mut Core, body: &[u8]) -> Result<(), Error> {
        let hello = msgs::ServerHello::read_bytes(body)?;
        self.ks.server_random = hello.random;
        let sid = hello.session_id;
        let suite = CipherSuite::from_id(hello.cipher_suite)
            .filter(|s| self.offered.contains(s))
            .ok_or_else(|| bad(A::IllegalParameter, "server chose a suite we did not offer"))?;
        if hello.compression_method != 0 {
            return Err(bad(A::IllegalParameter, "server chose compression"));
        }
        for ext in hello.extensions.into_iter().flatten() {
            match ext {
                ServerExtension::Alpn(proto) => {
                    if !self.config.alpn_protocols.contains(&proto) {
                        return Err(bad(
                            A::IllegalParameter,
                            "server chose an ALPN protocol we did not offer",
                        ));
                    }
                    self.alpn = Some(proto);
                }
                // An echo of an extension we did not send is ignored (and a ticket would
                // then be refused as unexpected).
                ServerExtension::SessionTicket => self.expect_ticket = self.offered_ticket,
                // Everything else (renegotiation_info, ...) is ignored.
                ServerExtension::Unknown(..) => {}
            }
        }
        self.suite = Some(suite);
        self.session_id = sid.clone();
        if let Some(s) = self.offered_session.take() {
            if !sid.is_empty() && sid == s.id {
                if s.suite != suite {
                    return Err(bad(
                        A::IllegalParameter,
                        "resumed session with another suite",
                    ));
                }
                self.ks.master_secret = s.master_secret;
                self.ks.log(&*self.config.key_log);
                self.peer_certs = s.peer_certificates.clone();
                if self.alpn.is_none() {
                    self.alpn = s.alpn.clone();
                }
                self.resumed = true;
                self.ks.install_keys(self.suite()?, core)?;
                self.resumed_session = Some(s);
                self.state = self.before_ccs();
                return Ok(());
            }
            // The server did not resume: forget the stale session.
            self.config.session_store.remove(&name_key(&self.name));
        }
        self.state = State::Certificate;
        Ok(())
    }

    fn certificate(&mut self, body: &[u8]) -> Result<(), Error> {
        let certs = msgs::Certificate::read_bytes(body)?.certificates;
        let checked = self.config.verify_server(&certs, &self.name)?;
        self.server_sign = crate::verify::leaf_public_key(checked.sign)?;
        self.server_enc = crate::verify::leaf_public_key(checked.enc)?;
        self.peer_certs = certs;
        self.state = State::ServerKeyExchange;
        Ok(())
    }

    fn server_key_exchange(&mut self, body: &[u8]) -> Result<(), Error> {
        let mut signed = self.ks.signed_prefix();
        let sig = if self.suite()?.is_ecdhe() {
            let ske = msgs::ServerKeyExchangeEcdhe::read_bytes(body)?;
            ske.params.encode(&mut signed);
            self.ecdhe_point = ske.params.point.to_vec();
            ske.signature
        } else {
            let enc = self.peer_certs.get(1).ok_or(Error::Crypto("no enc cert"))?;
            put_vec24(&mut signed, enc.as_ref());
            msgs::ServerKeyExchangeEcc::read_bytes(body)?.signature
        };
        if !verify_sm2(&self.server_sign, &signed, &sig) {
            return Err(bad(A::DecryptError, "bad ServerKeyExchange signature"));
        }
        self.state = State::CertReqOrDone;
        Ok(())
    }

    fn certificate_request(&mut self, body: &[u8]) -> Result<(), Error> {
        let req = msgs::CertificateRequest::read_bytes(body)?;
        self.cert_requested = true;
        let request = CertificateRequest {
            certificate_types: &req.certificate_types,
            ca_names: req.ca_names.iter().map(|n| &n[..]).collect(),
            suite: self.suite()?,
        };
        self.client_keys = self
            .config
            .client_pair_resolver
            .as_ref()
            .and_then(|r| r.resolve(&request));
        self.state = State::ServerHelloDone;
        Ok(())
    }

    fn server_hello_done(&mut self, core: &mut Core, body: &[u8]) -> Result<(), Error> {
        msgs::ServerHelloDone::read_bytes(body)?;
        let suite = self.suite()?;
        let keys = self.client_keys.clone();
        let send_certs = self.cert_requested && keys.is_some();
        if suite.is_ecdhe() && !send_certs {
            return Err(Error::HandshakeFailure("ECDHE needs client certificates"));
        }
        if self.cert_requested {
            let certificates = match &keys {
                // GmSSL's server reads the list as one chain in the ECC suites.
                Some(k) if self.config.gmssl_compat && !suite.is_ecdhe() => k.single_chain_list(),
                Some(k) => k.wire_list(),
                None => Vec::new(),
            };
            core.send(&msgs::Certificate::borrowed(certificates))?;
        }
        if suite.is_ecdhe() {
            let k = keys
                .as_ref()
                .ok_or(Error::HandshakeFailure("no client keys"))?;
            let kx = k
                .enc_key
                .start_key_exchange(KxRole::Responder, &*self.config.rng)?;
            // The point after the exchange: a device as the responder makes it then.
            let peer = PeerPoints {
                public: &self.server_enc,
                ephemeral: &self.ecdhe_point,
            };
            let (ms, point) = kx.master_secret(peer, self.ks.randoms())?;
            self.ks.set_master_secret(ms);
            core.send(&msgs::ClientKeyExchangeEcdhe {
                params: msgs::EcdheParams { point },
                // GmSSL 3.3's server reads the parameters as a u16-length array (71 bytes).
                length_prefixed: self.config.gmssl_compat,
            })?;
        } else {
            let mut pms = [0u8; 48];
            pms[..2].copy_from_slice(&VERSION.to_be_bytes());
            self.config.rng.fill(&mut pms[2..])?;
            let ciphertext = encrypt_sm2(&self.server_enc, &pms, &*self.config.rng);
            self.ks.set_premaster(&mut pms);
            core.send(&msgs::ClientKeyExchangeEcc {
                ciphertext: ciphertext?,
            })?;
        }
        if send_certs && let Some(k) = &keys {
            let signature = match core.raw_transcript.take() {
                // GmSSL 3.3 signs (and checks) the handshake messages themselves.
                Some(messages) if self.config.gmssl_compat => k.sign_key.sign(&messages)?,
                _ => k.sign_key.sign(&core.transcript_hash())?,
            };
            core.send(&msgs::CertificateVerify { signature })?;
        }
        self.ks.log(&*self.config.key_log);
        self.ks.install_keys(self.suite()?, core)?;
        self.ks.send_finished(core)?;
        self.state = self.before_ccs();
        Ok(())
    }

    /// The state waiting for the server's CCS: NewSessionTicket first if it was promised.
    fn before_ccs(&self) -> State {
        if self.expect_ticket {
            State::NewTicket
        } else {
            State::Ccs
        }
    }

    /// NewSessionTicket (RFC 5077 §3.3): u32 lifetime hint, u16-length ticket (empty: the
    /// server changed its mind).
    fn new_session_ticket(&mut self, body: &[u8]) -> Result<(), Error> {
        let t = msgs::NewSessionTicket::read_bytes(body)?;
        if !t.ticket.is_empty() {
            self.new_ticket = Some((t.lifetime_hint, t.ticket));
        }
        self.state = State::Ccs;
        Ok(())
    }

    /// Keeps the session for `name` (with the new ticket, if one came).
    fn store_session(&mut self) -> Result<(), Error> {
        let now = crate::keys::now(&*self.config.time)?.as_secs();
        let new_ticket = self.new_ticket.take();
        let mut session = match self.resumed_session.take() {
            Some(s) => s,
            None => Session {
                id: self.session_id.clone(),
                suite: self.suite()?,
                master_secret: self.ks.master_secret,
                peer_certificates: self.peer_certs.clone(),
                alpn: self.alpn.clone(),
                // Kept per name already: the store's key (`name_key`).
                server_name: None,
                created: now,
                ticket: None,
                ticket_lifetime: 0,
                ticket_received: 0,
            },
        };
        match new_ticket {
            Some((hint, ticket)) => {
                if session.id.is_empty() {
                    // RFC 5077 §3.4: a session ID of our own (as OpenSSL, a hash of the
                    // ticket), so the ServerHello's echo tells us the ticket was taken.
                    use digest::Digest;
                    session.id = Sm3::digest(&ticket).to_vec();
                }
                session.ticket = Some(ticket);
                session.ticket_lifetime = hint;
                session.ticket_received = now;
            }
            // Resumed without a new ticket: the stored session stays as it is.
            None if self.resumed => return Ok(()),
            None if session.id.is_empty() => return Ok(()),
            None => {}
        }
        self.config
            .session_store
            .put(&name_key(&self.name), session);
        Ok(())
    }

    fn finished(&mut self, core: &mut Core, body: &[u8], before: &Sm3) -> Result<(), Error> {
        self.ks.check_finished(body, before)?;
        if self.resumed {
            self.ks.send_finished(core)?;
        }
        self.store_session()?;
        self.state = State::Traffic;
        complete(core, self.suite()?, self.resumed, &self.peer_certs)
    }
}

impl Handshake for ClientHs {
    fn handle(&mut self, core: &mut Core, typ: H, body: &[u8], before: &Sm3) -> Result<(), Error> {
        match (self.state, typ) {
            (State::ServerHello, H::ServerHello) => self.server_hello(core, body),
            (State::Certificate, H::Certificate) => self.certificate(body),
            (State::ServerKeyExchange, H::ServerKeyExchange) => self.server_key_exchange(body),
            (State::CertReqOrDone, H::CertificateRequest) => self.certificate_request(body),
            (State::CertReqOrDone | State::ServerHelloDone, H::ServerHelloDone) => {
                self.server_hello_done(core, body)
            }
            (State::NewTicket, H::NewSessionTicket) => self.new_session_ticket(body),
            (State::Finished, H::Finished) => self.finished(core, body, before),
            _ => Err(unexpected_message()),
        }
    }

    fn on_ccs(&mut self) -> Result<(), Error> {
        take_ccs(&mut self.state, State::Ccs, State::Finished)
    }
}

/// A TLCP client connection (sans-IO: feed it with [`ClientConnection::read_tls`], drain
/// it with [`ClientConnection::write_tls`]).
pub struct ClientConnection {
    core: Core,
    hs: ClientHs,
}

impl core::fmt::Debug for ClientConnection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        fmt_connection(f, "ClientConnection", &self.hs.state)
    }
}

impl ClientConnection {
    /// Starts a connection to `server_name` (its ClientHello is queued at once).
    pub fn new(config: Arc<ClientConfig>, server_name: ServerName<'static>) -> Result<Self, Error> {
        let mut core = Core::new(true, config.rng.clone(), config.events.clone());
        if config.gmssl_compat {
            core.raw_transcript = Some(Vec::new());
        }
        let mut hs = ClientHs {
            config,
            name: server_name,
            state: State::ServerHello,
            ks: KeySchedule::new(true),
            offered: Vec::new(),
            offered_session: None,
            resumed_session: None,
            offered_ticket: false,
            expect_ticket: false,
            new_ticket: None,
            session_id: Vec::new(),
            suite: None,
            resumed: false,
            peer_certs: Vec::new(),
            server_sign: Vec::new(),
            server_enc: Vec::new(),
            ecdhe_point: Vec::new(),
            cert_requested: false,
            client_keys: None,
            alpn: None,
        };
        hs.start(&mut core)?;
        Ok(ClientConnection { core, hs })
    }

    crate::conn::connection_methods!();

    /// The suite, once the ServerHello arrived.
    pub fn negotiated_cipher_suite(&self) -> Option<CipherSuite> {
        self.hs.suite
    }

    /// The server's certificates as sent: sign certificate, encryption certificate, chain.
    pub fn peer_certificates(&self) -> Option<&[CertificateDer<'static>]> {
        (!self.hs.peer_certs.is_empty()).then_some(&self.hs.peer_certs[..])
    }

    /// Whether the session was resumed.
    pub fn is_resumed(&self) -> bool {
        self.hs.resumed
    }

    /// The ALPN protocol the server chose.
    pub fn alpn_protocol(&self) -> Option<&[u8]> {
        self.hs.alpn.as_deref()
    }

    /// Test hook: queues a raw handshake message under the current keys (used to check
    /// that a peer refuses renegotiation).
    #[doc(hidden)]
    pub fn inject_handshake_message(&mut self, typ: u8, body: &[u8]) -> Result<(), Error> {
        self.core.inject_handshake(typ, body)
    }
}
