//! What a resumable session keeps: the state a session store holds and a ticket seals.

use crate::suites::CipherSuite;
use rustls_pki_types::CertificateDer;
use zeroize::Zeroize;

/// What a resumable session keeps.
#[derive(Clone)]
pub struct Session {
    pub(crate) id: Vec<u8>,
    pub(crate) suite: CipherSuite,
    pub(crate) master_secret: [u8; 48],
    pub(crate) peer_certificates: Vec<CertificateDer<'static>>,
    pub(crate) alpn: Option<Vec<u8>>,
    /// Server side: the name the client asked for (SNI, ASCII lower case, no trailing
    /// dot) in the full handshake that made the session. RFC 6066 §3: a session is not
    /// resumed under another name (a full handshake follows).
    pub(crate) server_name: Option<String>,
    /// When the full handshake that made the session ended (seconds since the epoch).
    pub(crate) created: u64,
    /// The client's RFC 5077 ticket for the session, if the server issued one.
    pub(crate) ticket: Option<Vec<u8>>,
    /// The ticket's lifetime hint in seconds (0: none given).
    pub(crate) ticket_lifetime: u32,
    /// When the client received the ticket (seconds since the epoch).
    pub(crate) ticket_received: u64,
}

impl Session {
    /// The session ID.
    pub fn id(&self) -> &[u8] {
        &self.id
    }

    /// The suite.
    pub fn suite(&self) -> CipherSuite {
        self.suite
    }

    /// The server name (SNI) the session was made under (server side), if the client sent
    /// one: ASCII lower case, no trailing dot.
    pub fn server_name(&self) -> Option<&str> {
        self.server_name.as_deref()
    }

    /// The session ticket the server issued for it (client side), if any.
    pub fn ticket(&self) -> Option<&[u8]> {
        self.ticket.as_deref()
    }

    /// Whether the client may still offer its ticket at `now` (seconds since the epoch):
    /// it has one and the server's lifetime hint, counted from its arrival, has not run out.
    pub(crate) fn ticket_usable(&self, now: u64) -> bool {
        self.ticket.is_some()
            && (self.ticket_lifetime == 0
                || now
                    < self
                        .ticket_received
                        .saturating_add(u64::from(self.ticket_lifetime)))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.master_secret.zeroize();
    }
}

impl core::fmt::Debug for Session {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session")
            .field("suite", &self.suite)
            .field("ticket", &self.ticket.is_some())
            .finish_non_exhaustive()
    }
}
