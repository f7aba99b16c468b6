//! Session tickets (RFC 5077) for the server: the session state sealed under a key only the
//! server knows, so a client can resume without the server keeping a cache entry.
//!
//! A ticket is `key_name (16) ‖ nonce (12) ‖ SM4-GCM(state) ‖ tag (16)`, the key name as
//! additional data (the layout RFC 5077 §4 recommends, with SM4-GCM in place of
//! AES-CBC + HMAC-SHA-256). The state is `suite (u16) ‖ master secret (48) ‖ creation time
//! (u64, seconds) ‖ server name (u16-length, empty: none) ‖ ALPN (u8-length) ‖ peer
//! certificates (u24 list of u24)`. The server name binds the ticket to the SNI it was
//! issued under (RFC 6066 §3): offered under another name it opens, but does not resume.

use crate::codec::{Reader as R, put_u16, put_vec8, put_vec16, put_vec24};
use crate::error::Error;
use crate::keys::SecureRandom;
use crate::session::Session;
use crate::suites::CipherSuite;
use rustls_pki_types::CertificateDer;
use shangmi_rustls::ticket::{NAME_LEN, NONCE_LEN, TicketKey};
use std::sync::Arc;
use zeroize::Zeroize;

/// The server's ticket key: a random 16-byte key name and a random SM4-GCM key, with the
/// lifetime tickets get. Share one `Arc<Ticketer>` between configurations (or listeners)
/// that should accept each other's tickets; a new `Ticketer` (a restart, a rotation)
/// makes every earlier ticket fall back to a full handshake. Tickets are sealed in the
/// one format of the workspace, `shangmi_rustls::ticket::TicketKey` (the TLS 1.3
/// provider's too).
///
/// Nonces are random (96 bits): keep a key's use well under 2^32 tickets, i.e. rotate it
/// by making a new `Ticketer` from time to time.
#[derive(Debug)]
pub struct Ticketer {
    /// The sealer (its `Debug` shows no key material).
    key: TicketKey,
    lifetime: u32,
}

impl Ticketer {
    /// The lifetime [`crate::ServerConfigBuilder::session_tickets`] gives its tickets: two
    /// hours, as Tongsuo's and OpenSSL's `s_server` do.
    pub const DEFAULT_LIFETIME: u32 = 7200;

    /// A new key (name and key drawn from `rng`) for tickets valid `lifetime_secs` seconds
    /// after the full handshake that made the session (resumptions do not extend it).
    pub fn new(rng: &dyn SecureRandom, lifetime_secs: u32) -> Result<Arc<Self>, Error> {
        if lifetime_secs == 0 {
            return Err(Error::Config("ticket lifetime of zero"));
        }
        let mut key_name = [0; NAME_LEN];
        rng.fill(&mut key_name)?;
        let mut key = [0u8; 16];
        rng.fill(&mut key)?;
        let sealer = TicketKey::new(&key, key_name);
        key.zeroize();
        Ok(Arc::new(Ticketer {
            key: sealer,
            lifetime: lifetime_secs,
        }))
    }

    /// How long a session's tickets are accepted, in seconds.
    pub fn lifetime(&self) -> u32 {
        self.lifetime
    }

    /// Seals a session's state (its `created` time, in seconds, is sealed with it; the
    /// ticket's ID is the client's, so it is not).
    pub(crate) fn seal(&self, rng: &dyn SecureRandom, session: &Session) -> Result<Vec<u8>, Error> {
        let mut state = Vec::with_capacity(128);
        put_u16(&mut state, session.suite.id());
        state.extend_from_slice(&session.master_secret);
        state.extend_from_slice(&session.created.to_be_bytes());
        let name = session.server_name.as_deref().unwrap_or("");
        if name.len() > usize::from(u16::MAX) {
            return Err(Error::Crypto("server name too long for a ticket"));
        }
        put_vec16(&mut state, name.as_bytes());
        put_vec8(&mut state, session.alpn.as_deref().unwrap_or(&[]));
        let mut list = Vec::new();
        for c in &session.peer_certificates {
            put_vec24(&mut list, c.as_ref());
        }
        put_vec24(&mut state, &list);
        let mut nonce = [0u8; NONCE_LEN];
        let sealed = rng.fill(&mut nonce).map_err(Error::from).and_then(|()| {
            self.key
                .seal(nonce, &state)
                .ok_or(Error::Crypto("ticket sealing"))
        });
        state.zeroize();
        sealed
    }

    /// Opens a ticket: `None` when it is not ours, was changed, cannot be parsed or has
    /// expired at `now` (seconds). `id` becomes the session's ID (the client's, RFC 5077
    /// §3.4, echoed in the ServerHello).
    pub(crate) fn open(&self, ticket: &[u8], now: u64, id: &[u8]) -> Option<Session> {
        let state = self.key.open(ticket)?;
        self.parse(&state, now, id)
    }

    fn parse(&self, state: &[u8], now: u64, id: &[u8]) -> Option<Session> {
        let mut r = R::new(state);
        let b = r.take(2).ok()?;
        let suite = CipherSuite::from_id(u16::from_be_bytes([b[0], b[1]]))?;
        let master_secret: [u8; 48] = r.take(48).ok()?.try_into().ok()?;
        let created = u64::from_be_bytes(r.take(8).ok()?.try_into().ok()?);
        let server_name = core::str::from_utf8(r.vec16().ok()?).ok()?;
        let alpn = r.vec8().ok()?;
        let mut list = R::new(r.vec24().ok()?);
        r.finish().ok()?;
        let mut peer_certificates = Vec::new();
        while !list.is_empty() {
            peer_certificates.push(CertificateDer::from(list.vec24().ok()?.to_vec()));
        }
        // Expired, or made in the future (a clock step back): a full handshake.
        if created > now || now - created >= u64::from(self.lifetime) {
            return None;
        }
        Some(Session {
            id: id.to_vec(),
            suite,
            master_secret,
            peer_certificates,
            alpn: (!alpn.is_empty()).then(|| alpn.to_vec()),
            server_name: (!server_name.is_empty()).then(|| server_name.to_owned()),
            created,
            ticket: None,
            ticket_lifetime: 0,
            ticket_received: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::SystemRandom;

    fn session(created: u64, server_name: Option<&str>) -> Session {
        Session {
            id: Vec::new(),
            suite: CipherSuite::EccSm4GcmSm3,
            master_secret: [7; 48],
            peer_certificates: vec![CertificateDer::from(vec![0x30, 1, 2])],
            alpn: Some(b"h2".to_vec()),
            server_name: server_name.map(str::to_owned),
            created,
            ticket: None,
            ticket_lifetime: 0,
            ticket_received: 0,
        }
    }

    fn sample(t: &Ticketer, created: u64) -> Vec<u8> {
        t.seal(&SystemRandom, &session(created, Some("a.example")))
            .expect("seal")
    }

    #[test]
    fn round_trip_and_refusals() {
        let t = Ticketer::new(&SystemRandom, 100).expect("ticketer");
        let ticket = sample(&t, 1000);
        let s = t.open(&ticket, 1050, b"id").expect("opens");
        assert_eq!(s.master_secret, [7; 48]);
        assert_eq!(s.suite, CipherSuite::EccSm4GcmSm3);
        assert_eq!(s.alpn.as_deref(), Some(&b"h2"[..]));
        assert_eq!(s.peer_certificates.len(), 1);
        assert_eq!(s.id, b"id");
        assert_eq!(s.created, 1000);
        assert_eq!(s.server_name(), Some("a.example"));
        // No name in, no name out.
        let unnamed = t.seal(&SystemRandom, &session(1000, None)).unwrap();
        assert_eq!(t.open(&unnamed, 1050, b"id").unwrap().server_name(), None);
        // Expired, or from the future.
        assert!(t.open(&ticket, 1100, b"id").is_none());
        assert!(t.open(&ticket, 999, b"id").is_none());
        // Any changed byte, a cut, another key.
        for i in 0..ticket.len() {
            let mut bad = ticket.clone();
            bad[i] ^= 0x80;
            assert!(t.open(&bad, 1050, b"id").is_none(), "byte {i}");
        }
        assert!(t.open(&ticket[..ticket.len() - 1], 1050, b"id").is_none());
        assert!(t.open(&[], 1050, b"id").is_none());
        let other = Ticketer::new(&SystemRandom, 100).expect("ticketer");
        assert!(other.open(&ticket, 1050, b"id").is_none());
        assert!(Ticketer::new(&SystemRandom, 0).is_err());
    }
}
