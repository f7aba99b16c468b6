//! The server: its handshake state machine and `ServerConnection`.

use crate::client::parse_cert_list;
use crate::client::subtle_eq::ct_eq;
use crate::codec::{Reader as R, put_u16, put_vec8, put_vec16, put_vec24};
use crate::config::{CertifiedKeys, ClientAuth, ServerConfig, Session};
use crate::conn::*;
use crate::error::{AlertDescription as A, CertificateError, Error, bad, decode};
use crate::hooks::{ClientHello, Event};
use crate::keys::{KxRole, Sm2KeyExchange, verify_sm2};
use crate::record::VERSION;
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
    client_random: [u8; 32],
    server_random: [u8; 32],
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
    master_secret: [u8; 48],
    /// Whether a NewSessionTicket goes out in this handshake (the client sent
    /// session_ticket and the server has a ticketer).
    send_ticket: bool,
    /// When the session's full handshake ended (seconds; sealed into its tickets).
    created: u64,
}

impl Drop for ServerHs {
    fn drop(&mut self) {
        self.master_secret.zeroize();
    }
}

struct Hello<'a> {
    random: &'a [u8],
    session_id: &'a [u8],
    suites: Vec<u16>,
    sni: Option<String>,
    alpn: Option<Vec<&'a [u8]>>,
    /// The session_ticket extension's contents (empty: asking for a ticket).
    ticket: Option<&'a [u8]>,
}

fn parse_client_hello(body: &[u8]) -> Result<Hello<'_>, Error> {
    let mut r = R::new(body);
    if r.u16()? != VERSION {
        return Err(bad(A::ProtocolVersion, "client version is not TLCP 1.1"));
    }
    let random = r.take(32)?;
    let session_id = r.vec8()?;
    if session_id.len() > 32 {
        return Err(decode("session ID too long"));
    }
    let suite_bytes = r.vec16()?;
    if suite_bytes.is_empty() || suite_bytes.len() % 2 != 0 {
        return Err(decode("cipher suite list"));
    }
    let suites = suite_bytes
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    let comp = r.vec8()?;
    if !comp.contains(&0) {
        return Err(bad(A::IllegalParameter, "no null compression"));
    }
    let mut hello = Hello {
        random,
        session_id,
        suites,
        sni: None,
        alpn: None,
        ticket: None,
    };
    if !r.is_empty() {
        let mut exts = R::new(r.vec16()?);
        r.finish()?;
        while !exts.is_empty() {
            let typ = exts.u16()?;
            let data = exts.vec16()?;
            let mut d = R::new(data);
            match typ {
                0 => {
                    let mut list = R::new(d.vec16()?);
                    d.finish()?;
                    while !list.is_empty() {
                        let kind = list.u8()?;
                        let name = list.vec16()?;
                        if kind == 0 {
                            hello.sni = core::str::from_utf8(name).ok().map(str::to_owned);
                        }
                    }
                }
                16 => {
                    let mut list = R::new(d.vec16()?);
                    d.finish()?;
                    let mut protos = Vec::new();
                    while !list.is_empty() {
                        let p = list.vec8()?;
                        if p.is_empty() {
                            return Err(decode("empty ALPN protocol"));
                        }
                        protos.push(p);
                    }
                    hello.alpn = Some(protos);
                }
                35 => hello.ticket = Some(data),
                _ => {}
            }
        }
    }
    Ok(hello)
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

    fn install_keys(&mut self, core: &mut Core) -> Result<(), Error> {
        let (r, w) = derive_keys(
            self.suite()?,
            &self.master_secret,
            &self.client_random,
            &self.server_random,
            false,
        )?;
        core.pending_read = Some(r);
        core.pending_write = Some(w);
        Ok(())
    }

    /// Hands the master secret to the key log (NSS format: CLIENT_RANDOM).
    fn log_master_secret(&self) {
        let log = &self.config.key_log;
        if log.will_log("CLIENT_RANDOM") {
            log.log("CLIENT_RANDOM", &self.client_random, &self.master_secret);
        }
    }

    fn send_finished(&mut self, core: &mut Core) -> Result<(), Error> {
        core.send_ccs()?;
        let vd = crate::prf::verify_data(
            &self.master_secret,
            b"server finished",
            &core.transcript_hash(),
        );
        core.send_handshake(HS_FINISHED, &vd)
    }

    fn client_hello(&mut self, core: &mut Core, body: &[u8]) -> Result<(), Error> {
        let hello = parse_client_hello(body)?;
        self.client_random.copy_from_slice(hello.random);
        self.sni = hello.sni.clone();
        let view = ClientHello {
            server_name: hello.sni.as_deref(),
            cipher_suites: &hello.suites,
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
        let suite = config
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
        let now = config.time.now().as_secs() as u32;
        self.server_random[..4].copy_from_slice(&now.to_be_bytes());
        config.rng.fill(&mut self.server_random[4..])?;

        let now_secs = config.time.now().as_secs();
        self.created = now_secs;
        self.send_ticket = config.ticketer.is_some() && hello.ticket.is_some();
        let usable =
            |s: &Session| hello.suites.contains(&s.suite.id()) && config.suites.contains(&s.suite);
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
            self.master_secret = s.master_secret;
            self.log_master_secret();
            self.client_certs = s.peer_certificates.clone();
            self.created = s.created;
            self.resumed = true;
            if self.alpn.is_none() {
                self.alpn = s.alpn.clone();
            }
            self.send_server_hello(core)?;
            self.install_keys(core)?;
            self.issue_ticket(core)?;
            self.send_finished(core)?;
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
        self.keys = Some(keys.clone());
        self.send_server_hello(core)?;

        let mut list = Vec::new();
        for c in keys.wire_list() {
            put_vec24(&mut list, c);
        }
        let mut b = Vec::new();
        put_vec24(&mut b, &list);
        core.send_handshake(HS_CERTIFICATE, &b)?;

        let mut signed = Vec::with_capacity(200);
        signed.extend_from_slice(&self.client_random);
        signed.extend_from_slice(&self.server_random);
        let mut ske = Vec::new();
        if suite.is_ecdhe() {
            let kx = keys
                .enc_key
                .start_key_exchange(KxRole::Initiator, &*config.rng)?;
            let mut params = vec![3, 0, 0x29, 65];
            params.extend_from_slice(&kx.ephemeral_public());
            signed.extend_from_slice(&params);
            ske.extend_from_slice(&params);
            self.kx = Some(kx);
        } else {
            put_vec24(&mut signed, keys.enc_cert.as_ref());
        }
        let sig = keys.sign_key.sign(&signed)?;
        put_vec16(&mut ske, &sig);
        core.send_handshake(HS_SERVER_KEY_EXCHANGE, &ske)?;

        if self.wants_client_cert()? {
            let mut b = Vec::new();
            put_vec8(&mut b, &[1, 64]);
            let mut names = Vec::new();
            for n in config.client_ca_names() {
                put_vec16(&mut names, &n);
            }
            put_vec16(&mut b, &names);
            core.send_handshake(HS_CERTIFICATE_REQUEST, &b)?;
            self.state = State::Certificate;
        } else {
            self.state = State::ClientKeyExchange;
        }
        core.send_handshake(HS_SERVER_HELLO_DONE, &[])
    }

    fn send_server_hello(&mut self, core: &mut Core) -> Result<(), Error> {
        let mut b = Vec::new();
        put_u16(&mut b, VERSION);
        b.extend_from_slice(&self.server_random);
        put_vec8(&mut b, &self.session_id);
        put_u16(&mut b, self.suite()?.id());
        b.push(0);
        let mut ext = Vec::new();
        if let Some(p) = &self.alpn {
            let mut list = Vec::new();
            put_vec8(&mut list, p);
            let mut data = Vec::new();
            put_vec16(&mut data, &list);
            put_u16(&mut ext, 16);
            put_vec16(&mut ext, &data);
        }
        if self.send_ticket {
            put_u16(&mut ext, 35);
            put_vec16(&mut ext, &[]);
        }
        if !ext.is_empty() {
            put_vec16(&mut b, &ext);
        }
        core.send_handshake(HS_SERVER_HELLO, &b)
    }

    /// The NewSessionTicket promised in the ServerHello (before our CCS), if any; returns
    /// whether a ticket went out (an empty one, RFC 5077 §3.3, if sealing failed). The
    /// lifetime hint is what remains of the session's lifetime.
    fn issue_ticket(&mut self, core: &mut Core) -> Result<bool, Error> {
        let Some(ticketer) = self.config.ticketer.clone().filter(|_| self.send_ticket) else {
            return Ok(false);
        };
        let now = self.config.time.now().as_secs();
        let ticket = ticketer
            .seal(
                &*self.config.rng,
                self.suite()?,
                &self.master_secret,
                self.created,
                self.alpn.as_deref(),
                &self.client_certs,
            )
            .ok()
            .filter(|t| t.len() <= usize::from(u16::MAX))
            .unwrap_or_default();
        let used = now.saturating_sub(self.created);
        let hint = u64::from(ticketer.lifetime()).saturating_sub(used) as u32;
        let mut b = Vec::with_capacity(6 + ticket.len());
        b.extend_from_slice(&hint.to_be_bytes());
        put_vec16(&mut b, &ticket);
        core.send_handshake(HS_NEW_SESSION_TICKET, &b)?;
        Ok(!ticket.is_empty())
    }

    fn certificate(&mut self, body: &[u8]) -> Result<(), Error> {
        let certs = parse_cert_list(body)?;
        if certs.is_empty() {
            if self.requires_client_cert()? {
                return Err(Error::HandshakeFailure("client certificate required"));
            }
            self.state = State::ClientKeyExchange;
            return Ok(());
        }
        let config = &self.config;
        // GmSSL's client sends one chain (sign certificate, then its CAs) in the ECC suites,
        // which use no client encryption key; ECDHE needs both leaves.
        if !self.suite()?.is_ecdhe() && crate::verify::is_single_chain(&certs) {
            config.verify_client(&certs[0], None, &certs[1..])?;
            self.client_sign = crate::verify::leaf_public_key(&certs[0])?;
        } else {
            let [sign, enc, intermediates @ ..] = &certs[..] else {
                return Err(Error::InvalidCertificate(
                    CertificateError::MissingCertificates,
                ));
            };
            config.verify_client(sign, Some(enc), intermediates)?;
            self.client_sign = crate::verify::leaf_public_key(sign)?;
            self.client_enc = crate::verify::leaf_public_key(enc)?;
        }
        self.client_certs = certs;
        self.state = State::ClientKeyExchange;
        Ok(())
    }

    fn client_key_exchange(&mut self, core: &mut Core, body: &[u8]) -> Result<(), Error> {
        let mut pms = [0u8; 48];
        if self.suite()?.is_ecdhe() {
            // 69 bytes (Tongsuo, Kona) or a u16 length first (71, GmSSL master).
            let params = match body.len() {
                69 => body,
                71 if body[..2] == [0, 69] => &body[2..],
                _ => return Err(decode("ECDHE ClientKeyExchange length")),
            };
            if params[..4] != [3, 0, 0x29, 65] || params[4] != 4 {
                return Err(bad(
                    A::IllegalParameter,
                    "ECDHE parameters are not an SM2 point",
                ));
            }
            let kx = self.kx.take().ok_or(Error::Crypto("no key exchange"))?;
            if self.client_enc.is_empty() {
                return Err(Error::HandshakeFailure("ECDHE needs client certificates"));
            }
            kx.complete(&self.client_enc, &params[4..], &mut pms)?;
        } else {
            let mut r = R::new(body);
            let ct = r.vec16()?;
            r.finish()?;
            let keys = self.keys.as_ref().ok_or(Error::Crypto("no server keys"))?;
            let mut pt = keys.enc_key.decrypt(ct)?;
            let ok = pt.len() == 48 && pt[..2] == VERSION.to_be_bytes();
            if ok {
                pms.copy_from_slice(&pt);
            }
            pt.zeroize();
            if !ok {
                return Err(bad(A::IllegalParameter, "premaster length or version"));
            }
        }
        self.master_secret =
            crate::prf::master_secret(&pms, &self.client_random, &self.server_random);
        pms.zeroize();
        self.log_master_secret();
        self.install_keys(core)?;
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
        let mut r = R::new(body);
        let sig = r.vec16()?;
        r.finish()?;
        let hash: [u8; 32] = before.clone().finalize().into();
        // The raw transcript ends with this CertificateVerify message.
        let raw = core.raw_transcript.take();
        let messages = raw
            .as_deref()
            .and_then(|m| m.get(..m.len().checked_sub(4 + body.len())?));
        let valid = verify_sm2(&self.client_sign, &hash, sig)
            || messages.is_some_and(|m| verify_sm2(&self.client_sign, m, sig));
        if !valid {
            return Err(bad(A::DecryptError, "bad CertificateVerify signature"));
        }
        self.state = State::Ccs;
        Ok(())
    }

    fn finished(&mut self, core: &mut Core, body: &[u8], before: &Sm3) -> Result<(), Error> {
        use digest::Digest;
        let hash: [u8; 32] = before.clone().finalize().into();
        let expect = crate::prf::verify_data(&self.master_secret, b"client finished", &hash);
        if !ct_eq(body, &expect) {
            return Err(bad(A::DecryptError, "bad client Finished"));
        }
        if !self.resumed {
            // A client with a ticket needs no cache entry.
            let ticketed = self.issue_ticket(core)?;
            self.send_finished(core)?;
            if !ticketed && !self.session_id.is_empty() {
                self.config.session_cache.put(Session {
                    id: self.session_id.clone(),
                    suite: self.suite()?,
                    master_secret: self.master_secret,
                    peer_certificates: self.client_certs.clone(),
                    alpn: self.alpn.clone(),
                    created: self.created,
                    ticket: None,
                    ticket_lifetime: 0,
                    ticket_received: 0,
                });
            }
        }
        self.state = State::Traffic;
        core.finish_handshake()?;
        core.emit(&Event::HandshakeCompleted {
            protocol: "TLCP 1.1",
            suite: self.suite()?,
            resumed: self.resumed,
            peer_certificates: &self.client_certs,
        });
        Ok(())
    }
}

impl Handshake for ServerHs {
    fn handle(&mut self, core: &mut Core, typ: u8, body: &[u8], before: &Sm3) -> Result<(), Error> {
        match (self.state, typ) {
            (State::ClientHello, HS_CLIENT_HELLO) => self.client_hello(core, body),
            (State::Certificate, HS_CERTIFICATE) => self.certificate(body),
            (State::ClientKeyExchange, HS_CLIENT_KEY_EXCHANGE) => {
                self.client_key_exchange(core, body)
            }
            (State::CertificateVerify, HS_CERTIFICATE_VERIFY) => {
                self.certificate_verify(core, body, before)
            }
            (State::Finished, HS_FINISHED) => self.finished(core, body, before),
            (State::Certificate, HS_CLIENT_KEY_EXCHANGE) if !self.requires_client_cert()? => {
                Err(bad(A::UnexpectedMessage, "client skipped its Certificate"))
            }
            (State::Certificate, HS_CLIENT_KEY_EXCHANGE) => {
                Err(Error::HandshakeFailure("client certificate required"))
            }
            _ => Err(bad(A::UnexpectedMessage, "unexpected handshake message")),
        }
    }

    fn on_ccs(&mut self) -> Result<(), Error> {
        if self.state != State::Ccs {
            return Err(bad(A::UnexpectedMessage, "unexpected ChangeCipherSpec"));
        }
        self.state = State::Finished;
        Ok(())
    }
}

/// A TLCP server connection (sans-IO).
pub struct ServerConnection {
    core: Core,
    hs: ServerHs,
}

impl core::fmt::Debug for ServerConnection {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ServerConnection")
            .field("state", &self.hs.state)
            .finish_non_exhaustive()
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
                client_random: [0; 32],
                server_random: [0; 32],
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
                master_secret: [0; 48],
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
