//! The server: its handshake state machine and `ServerConnection`.

use crate::codec::put_vec24;
use crate::config::{ClientAuth, ServerConfig};
use crate::conn::*;
use crate::error::{AlertDescription as A, Error, bad};
use crate::hooks::{ClientHello, normalise};
use crate::keys::{CertifiedKeys, KxRole, PeerPoints, Sm2KeyExchange, verify_sm2};
use crate::msgs::{self, ClientExtension, Codec, HandshakeType as H, ServerExtension};
use crate::record::VERSION;
use crate::schedule::{
    KeySchedule, complete, fmt_connection, hello_random, take_ccs, unexpected_message,
};
use crate::session::Session;
use crate::suites::CipherSuite;
use rustls_pki_types::CertificateDer;
use shangmi_sm3::Sm3;
use std::io;
use std::sync::Arc;
use zeroize::Zeroize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    ClientHello,
    Certificate,
    ClientKeyExchange,
    CertificateVerify,
    Ccs,
    Finished,
    Traffic,
}

pub(crate) struct ServerHs {
    config: Arc<ServerConfig>,
    state: State,
    ks: KeySchedule,
    session_id: Vec<u8>,
    suite: Option<CipherSuite>,
    resumed: bool,
    sni: Option<String>,
    alpn: Option<Vec<u8>>,
    kx: Option<Box<dyn Sm2KeyExchange>>,
    /// The pair the resolver chose for this ClientHello (full handshakes).
    keys: Option<Arc<CertifiedKeys>>,
    client_certs: Vec<CertificateDer<'static>>,
    client_sign: Vec<u8>,
    client_enc: Vec<u8>,
    /// Whether a NewSessionTicket goes out in this handshake (the client sent
    /// session_ticket and the server has a ticketer).
    send_ticket: bool,
    /// When the session's full handshake ended (seconds; sealed into its tickets).
    created: u64,
}

/// What the server uses of a ClientHello.
struct Hello<'a> {
    random: &'a [u8; 32],
    session_id: &'a [u8],
    suites: &'a [u16],
    sni: Option<String>,
    alpn: Option<Vec<&'a [u8]>>,
    /// The session_ticket extension's contents (empty: asking for a ticket).
    ticket: Option<&'a [u8]>,
}

impl<'a> Hello<'a> {
    /// The fields of `ch` (each extension type comes once: [`msgs`] refuses repeats).
    fn new(ch: &'a msgs::ClientHello) -> Self {
        let mut hello = Hello {
            random: &ch.random,
            session_id: &ch.session_id,
            suites: &ch.cipher_suites,
            sni: None,
            alpn: None,
            ticket: None,
        };
        for ext in ch.extensions.iter().flatten() {
            match ext {
                ClientExtension::ServerName(names) => {
                    for (kind, name) in names {
                        if *kind == 0 {
                            hello.sni = core::str::from_utf8(name).ok().map(str::to_owned);
                        }
                    }
                }
                ClientExtension::Alpn(protos) => {
                    hello.alpn = Some(protos.iter().map(|p| &p[..]).collect());
                }
                ClientExtension::SessionTicket(t) => hello.ticket = Some(t),
                ClientExtension::Unknown(..) => {}
            }
        }
        hello
    }
}

impl ServerHs {
    fn suite(&self) -> Result<CipherSuite, Error> {
        self.suite.ok_or(Error::Crypto("no suite"))
    }

    fn wants_client_cert(&self) -> Result<bool, Error> {
        Ok(self.config.client_auth != ClientAuth::None || self.suite()?.is_ecdhe())
    }

    fn requires_client_cert(&self) -> Result<bool, Error> {
        Ok(self.config.client_auth == ClientAuth::Required || self.suite()?.is_ecdhe())
    }

    fn client_hello(&mut self, core: &mut Core, body: &[u8]) -> Result<(), Error> {
        let ch = msgs::ClientHello::read_bytes(body)?;
        let hello = Hello::new(&ch);
        self.ks.client_random = *hello.random;
        self.sni = hello.sni.clone();
        let view = ClientHello {
            server_name: hello.sni.as_deref(),
            cipher_suites: hello.suites,
            alpn: hello.alpn.as_deref(),
        };
        if let Some(resolver) = self.config.config_resolver.clone()
            && let Some(chosen) = resolver.resolve(&view)?
        {
            core.rng = chosen.rng.clone();
            core.events = chosen.events.clone();
            if !chosen.verifies_clients() {
                core.raw_transcript = None;
            }
            self.config = chosen;
        }
        let config = self.config.clone();
        let mut suite = config
            .suites
            .iter()
            .copied()
            .find(|s| hello.suites.contains(&s.id()))
            .ok_or(Error::HandshakeFailure("no cipher suite in common"))?;
        if let Some(offered) = &hello.alpn
            && !config.alpn_protocols.is_empty()
        {
            let chosen = config
                .alpn_protocols
                .iter()
                .find(|p| offered.iter().any(|o| o == &p.as_slice()))
                .ok_or_else(|| bad(A::NoApplicationProtocol, "no ALPN protocol in common"))?;
            self.alpn = Some(chosen.clone());
        }
        self.ks.server_random = hello_random(&*config.time, &*config.rng)?;

        let now_secs = crate::keys::now(&*config.time)?.as_secs();
        self.created = now_secs;
        self.send_ticket = config.ticketer.is_some() && hello.ticket.is_some();
        // A session resumes only under the name it was made under (RFC 6066 §3: "MUST NOT
        // accept the request to resume the session if the server_name extension contains
        // a different name"): else a full handshake, whose certificates match the name.
        let name = hello.sni.as_deref().map(normalise);
        let usable = |s: &Session| {
            hello.suites.contains(&s.suite.id())
                && config.suites.contains(&s.suite)
                && s.server_name == name
        };
        // Resumption by ticket (RFC 5077 §3.4: the client's session ID is echoed), else by
        // session ID. A ticket that does not open is no error: a full handshake follows.
        let from_ticket = match (&config.ticketer, hello.ticket) {
            (Some(t), Some(ticket)) if !ticket.is_empty() => t
                .open(ticket, now_secs, hello.session_id)
                .filter(|s| usable(s)),
            _ => None,
        };
        let cached = match from_ticket {
            Some(s) => Some(s),
            None if hello.session_id.is_empty() => None,
            None => config
                .session_cache
                .get(hello.session_id)
                .filter(|s| usable(s)),
        };
        if let Some(s) = cached {
            self.suite = Some(s.suite);
            self.session_id = s.id.clone();
            self.ks.master_secret = s.master_secret;
            self.ks.log(&*self.config.key_log);
            self.client_certs = s.peer_certificates.clone();
            self.created = s.created;
            self.resumed = true;
            if self.alpn.is_none() {
                self.alpn = s.alpn.clone();
            }
            self.send_server_hello(core)?;
            self.ks.install_keys(self.suite()?, core)?;
            self.issue_ticket(core)?;
            self.ks.send_finished(core)?;
            self.state = State::Ccs;
            return Ok(());
        }

        self.suite = Some(suite);
        if config.session_cache.enabled() {
            let mut id = [0u8; 32];
            config.rng.fill(&mut id)?;
            self.session_id = id.to_vec();
        }
        let keys = config
            .cert_resolver
            .resolve(&view)
            .ok_or_else(|| match &hello.sni {
                Some(_) => bad(A::UnrecognizedName, "no certificates for the server name"),
                None => Error::HandshakeFailure("no certificates for this client"),
            })?;
        // A pair whose encryption key cannot run the SM2 key exchange (a device without
        // the agreement functions) serves the first ECC suite in common instead, or none.
        if suite.is_ecdhe() && !keys.enc_key.supports_key_exchange() {
            suite = config
                .suites
                .iter()
                .copied()
                .find(|s| !s.is_ecdhe() && hello.suites.contains(&s.id()))
                .ok_or(Error::HandshakeFailure(
                    "no cipher suite in common: the server's encryption key cannot run the \
                     SM2 key exchange of the ECDHE suites",
                ))?;
            self.suite = Some(suite);
        }
        self.keys = Some(keys.clone());
        self.send_server_hello(core)?;

        core.send(&msgs::Certificate::borrowed(keys.wire_list()))?;

        let mut signed = self.ks.signed_prefix();
        if suite.is_ecdhe() {
            let kx = keys
                .enc_key
                .start_key_exchange(KxRole::Initiator, &*config.rng)?;
            let params = msgs::EcdheParams {
                point: kx.ephemeral_public(),
            };
            params.encode(&mut signed);
            self.kx = Some(kx);
            let signature = keys.sign_key.sign(&signed)?;
            core.send(&msgs::ServerKeyExchangeEcdhe { params, signature })?;
        } else {
            put_vec24(&mut signed, keys.enc_cert.as_ref());
            let signature = keys.sign_key.sign(&signed)?;
            core.send(&msgs::ServerKeyExchangeEcc { signature })?;
        }

        if self.wants_client_cert()? {
            core.send(&msgs::CertificateRequest {
                certificate_types: vec![1, 64],
                ca_names: config.client_ca_names(),
            })?;
            self.state = State::Certificate;
        } else {
            self.state = State::ClientKeyExchange;
        }
        core.send(&msgs::ServerHelloDone)
    }

    fn send_server_hello(&mut self, core: &mut Core) -> Result<(), Error> {
        let mut extensions = Vec::new();
        if let Some(p) = &self.alpn {
            extensions.push(ServerExtension::Alpn(p.clone()));
        }
        if self.send_ticket {
            extensions.push(ServerExtension::SessionTicket);
        }
        core.send(&msgs::ServerHello {
            random: self.ks.server_random,
            session_id: self.session_id.clone(),
            cipher_suite: self.suite()?.id(),
            compression_method: 0,
            extensions: (!extensions.is_empty()).then_some(extensions),
        })
    }

    /// The NewSessionTicket promised in the ServerHello (before our CCS), if any; returns
    /// whether a ticket went out (an empty one, RFC 5077 §3.3, if sealing failed). The
    /// lifetime hint is what remains of the session's lifetime.
    fn issue_ticket(&mut self, core: &mut Core) -> Result<bool, Error> {
        let Some(ticketer) = self.config.ticketer.clone().filter(|_| self.send_ticket) else {
            return Ok(false);
        };
        let now = crate::keys::now(&*self.config.time)?.as_secs();
        let ticket = ticketer
            .seal(&*self.config.rng, &self.session()?)
            .ok()
            .filter(|t| t.len() <= usize::from(u16::MAX))
            .unwrap_or_default();
        let used = now.saturating_sub(self.created);
        let hint = u64::from(ticketer.lifetime()).saturating_sub(used) as u32;
        let issued = !ticket.is_empty();
        core.send(&msgs::NewSessionTicket {
            lifetime_hint: hint,
            ticket,
        })?;
        Ok(issued)
    }

    /// The session this handshake made or resumed, as its tickets and the cache keep it.
    fn session(&self) -> Result<Session, Error> {
        Ok(Session {
            id: self.session_id.clone(),
            suite: self.suite()?,
            master_secret: self.ks.master_secret,
            peer_certificates: self.client_certs.clone(),
            alpn: self.alpn.clone(),
            server_name: self.sni.as_deref().map(normalise),
            created: self.created,
            ticket: None,
            ticket_lifetime: 0,
            ticket_received: 0,
        })
    }

    fn certificate(&mut self, body: &[u8]) -> Result<(), Error> {
        let certs = msgs::Certificate::read_bytes(body)?.certificates;
        if certs.is_empty() {
            if self.requires_client_cert()? {
                return Err(Error::HandshakeFailure("client certificate required"));
            }
            self.state = State::ClientKeyExchange;
            return Ok(());
        }
        // GmSSL's client sends one chain (sign certificate, then its CAs) in the ECC suites,
        // which use no client encryption key; ECDHE needs both leaves.
        let single_chain = !self.suite()?.is_ecdhe() && crate::verify::is_single_chain(&certs);
        let checked = self.config.verify_client(&certs, single_chain)?;
        self.client_sign = crate::verify::leaf_public_key(checked.sign)?;
        if let Some(enc) = checked.enc {
            self.client_enc = crate::verify::leaf_public_key(enc)?;
        }
        self.client_certs = certs;
        self.state = State::ClientKeyExchange;
        Ok(())
    }

    fn client_key_exchange(&mut self, core: &mut Core, body: &[u8]) -> Result<(), Error> {
        if self.suite()?.is_ecdhe() {
            // 69 bytes (Tongsuo, Kona) or a u16 length first (71, GmSSL master).
            let cke = msgs::ClientKeyExchangeEcdhe::read_bytes(body)?;
            let kx = self.kx.take().ok_or(Error::Crypto("no key exchange"))?;
            if self.client_enc.is_empty() {
                return Err(Error::HandshakeFailure("ECDHE needs client certificates"));
            }
            let peer = PeerPoints {
                public: &self.client_enc,
                ephemeral: &cke.params.point,
            };
            let (ms, _) = kx.master_secret(peer, self.ks.randoms())?;
            self.ks.set_master_secret(ms);
        } else {
            let mut pms = [0u8; 48];
            let ct = msgs::ClientKeyExchangeEcc::read_bytes(body)?.ciphertext;
            let keys = self.keys.as_ref().ok_or(Error::Crypto("no server keys"))?;
            let mut pt = keys.enc_key.decrypt(&ct)?;
            let ok = pt.len() == 48 && pt[..2] == VERSION.to_be_bytes();
            if ok {
                pms.copy_from_slice(&pt);
            }
            pt.zeroize();
            if !ok {
                return Err(bad(A::IllegalParameter, "premaster length or version"));
            }
            self.ks.set_premaster(&mut pms);
        }
        self.ks.log(&*self.config.key_log);
        self.ks.install_keys(self.suite()?, core)?;
        self.state = if self.client_certs.is_empty() {
            State::Ccs
        } else {
            State::CertificateVerify
        };
        Ok(())
    }

    /// The client's CertificateVerify: an SM2 signature (default ID) over the SM3 hash of the
    /// handshake messages (GB/T 38636, Tongsuo), or — GmSSL 3.3's client — over the messages
    /// themselves. Both bind the same transcript with the client's sign key.
    fn certificate_verify(
        &mut self,
        core: &mut Core,
        body: &[u8],
        before: &Sm3,
    ) -> Result<(), Error> {
        use digest::Digest;
        let sig = msgs::CertificateVerify::read_bytes(body)?.signature;
        let hash: [u8; 32] = before.clone().finalize().into();
        // The raw transcript ends with this CertificateVerify message.
        let raw = core.raw_transcript.take();
        let messages = raw
            .as_deref()
            .and_then(|m| m.get(..m.len().checked_sub(4 + body.len())?));
        let valid = verify_sm2(&self.client_sign, &hash, &sig)
            || messages.is_some_and(|m| verify_sm2(&self.client_sign, m, &sig));
        if !valid {
            return Err(bad(A::DecryptError, "bad CertificateVerify signature"));
        }
        self.state = State::Ccs;
        Ok(())
    }

    fn finished(&mut self, core: &mut Core, body: &[u8], before: &Sm3) -> Result<(), Error> {
        self.ks.check_finished(body, before)?;
        if !self.resumed {
            // A client with a ticket needs no cache entry.
            let ticketed = self.issue_ticket(core)?;
            self.ks.send_finished(core)?;
            if !ticketed && !self.session_id.is_empty() {
                self.config.session_cache.put(self.session()?);
            }
        }
        self.state = State::Traffic;
        complete(core, self.suite()?, self.resumed, &self.client_certs)
    }
}

impl Handshake for ServerHs {
    fn handle(&mut self, core: &mut Core, typ: H, body: &[u8], before: &Sm3) -> Result<(), Error> {
        match (self.state, typ) {
            (State::ClientHello, H::ClientHello) => self.client_hello(core, body),
            (State::Certificate, H::Certificate) => self.certificate(body),
            (State::ClientKeyExchange, H::ClientKeyExchange) => {
                self.client_key_exchange(core, body)
            }
            (State::CertificateVerify, H::CertificateVerify) => {
                self.certificate_verify(core, body, before)
            }
            (State::Finished, H::Finished) => self.finished(core, body, before),
            (State::Certificate, H::ClientKeyExchange) if !self.requires_client_cert()? => {
                Err(bad(A::UnexpectedMessage, "client skipped its Certificate"))
            }
            (State::Certificate, H::ClientKeyExchange) => {
                Err(Error::HandshakeFailure("client certificate required"))
            }
            _ => Err(unexpected_message()),
        }
    }

    fn on_ccs(&mut self) -> Result<(), Error> {
        take_ccs(&mut self.state, State::Ccs, State::Finished)
    }
}

/// A TLCP server connection (sans-IO).
pub struct ServerConnection {
    core: Core,
    hs: ServerHs,
}

impl core::fmt::Debug for ServerConnection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        fmt_connection(f, "ServerConnection", &self.hs.state)
    }
}

impl ServerConnection {
    /// A connection waiting for a ClientHello.
    pub fn new(config: Arc<ServerConfig>) -> Result<Self, Error> {
        let mut core = Core::new(false, config.rng.clone(), config.events.clone());
        // Kept for a GmSSL-form CertificateVerify when clients may authenticate.
        if config.verifies_clients() || config.config_resolver.is_some() {
            core.raw_transcript = Some(Vec::new());
        }
        Ok(ServerConnection {
            core,
            hs: ServerHs {
                config,
                state: State::ClientHello,
                ks: KeySchedule::new(false),
                session_id: Vec::new(),
                suite: None,
                resumed: false,
                sni: None,
                alpn: None,
                kx: None,
                keys: None,
                client_certs: Vec::new(),
                client_sign: Vec::new(),
                client_enc: Vec::new(),
                send_ticket: false,
                created: 0,
            },
        })
    }

    crate::conn::connection_methods!();

    /// The suite, once chosen.
    pub fn negotiated_cipher_suite(&self) -> Option<CipherSuite> {
        self.hs.suite
    }

    /// The client's certificates as sent (sign, encryption, chain; or, from a GmSSL client
    /// in the ECC suites, the sign certificate and its chain), if it authenticated.
    pub fn peer_certificates(&self) -> Option<&[CertificateDer<'static>]> {
        (!self.hs.client_certs.is_empty()).then_some(&self.hs.client_certs[..])
    }

    /// Whether the session was resumed.
    pub fn is_resumed(&self) -> bool {
        self.hs.resumed
    }

    /// The host name the client sent (SNI).
    pub fn server_name(&self) -> Option<&str> {
        self.hs.sni.as_deref()
    }

    /// The ALPN protocol chosen.
    pub fn alpn_protocol(&self) -> Option<&[u8]> {
        self.hs.alpn.as_deref()
    }

    /// Test hook: queues a raw handshake message under the current keys.
    #[doc(hidden)]
    pub fn inject_handshake_message(&mut self, typ: u8, body: &[u8]) -> Result<(), Error> {
        self.core.inject_handshake(typ, body)
    }
}
