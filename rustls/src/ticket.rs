//! Stateless session tickets sealed with SM4-GCM, for servers that resume without a session
//! cache: `config.ticketer = shangmi_rustls::ticket::Ticketer::new()?`.
//!
//! A ticket is key name (16 bytes) ‖ nonce (12) ‖ SM4-GCM(state) ‖ tag (16), with the key
//! name as associated data (the layout RFC 5077 §4 recommends). Keys are random, live in
//! memory only, and rotate every six hours through rustls' `TicketRotator` (a ticket stays
//! valid for one more period). Tickets are 44 bytes longer than the session state: about 150
//! bytes without client authentication, which matters for GmSSL, whose client crashes on
//! tickets above ~450 bytes.

use rustls::crypto::GetRandomFailed;
use rustls::crypto::SecureRandom;
use rustls::server::ProducesTickets;
use rustls::ticketer::TicketRotator;
use shangmi_sm4_modes::Sm4Gcm;
use shangmi_sm4_modes::aead::{AeadInOut, KeyInit};
use std::sync::Arc;
use zeroize::Zeroize;

/// How long one ticket key issues tickets (seconds).
const LIFETIME: u32 = 6 * 60 * 60;
const NAME_LEN: usize = 16;
const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;

/// Constructor of rotating SM4-GCM ticketers.
pub struct Ticketer;

impl Ticketer {
    /// A rotating ticketer whose keys come from the operating system.
    #[allow(clippy::new_ret_no_self)]
    pub fn new() -> Result<Arc<dyn ProducesTickets>, rustls::Error> {
        Ok(Arc::new(TicketRotator::new(LIFETIME, make_key)?))
    }
}

fn make_key() -> Result<Box<dyn ProducesTickets>, GetRandomFailed> {
    let mut key = [0u8; 16];
    let mut name = [0u8; NAME_LEN];
    crate::rand::OS_RANDOM.fill(&mut key)?;
    crate::rand::OS_RANDOM.fill(&mut name)?;
    let aead = Sm4Gcm::new(&key.into());
    key.zeroize();
    Ok(Box::new(TicketKey { aead, name }))
}

/// One ticket key.
struct TicketKey {
    aead: Sm4Gcm,
    name: [u8; NAME_LEN],
}

impl core::fmt::Debug for TicketKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TicketKey").finish_non_exhaustive()
    }
}

impl ProducesTickets for TicketKey {
    fn enabled(&self) -> bool {
        true
    }

    fn lifetime(&self) -> u32 {
        LIFETIME
    }

    fn encrypt(&self, plain: &[u8]) -> Option<Vec<u8>> {
        let mut nonce = [0u8; NONCE_LEN];
        crate::rand::OS_RANDOM.fill(&mut nonce).ok()?;
        let mut out = Vec::with_capacity(NAME_LEN + NONCE_LEN + plain.len() + TAG_LEN);
        out.extend_from_slice(&self.name);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(plain);
        let body = &mut out[NAME_LEN + NONCE_LEN..];
        let tag = self
            .aead
            .encrypt_inout_detached(&nonce.into(), &self.name, body.into())
            .ok()?;
        out.extend_from_slice(&tag);
        Some(out)
    }

    fn decrypt(&self, ticket: &[u8]) -> Option<Vec<u8>> {
        let (name, rest) = ticket.split_at_checked(NAME_LEN)?;
        let (nonce, rest) = rest.split_at_checked(NONCE_LEN)?;
        let (body, tag) = rest.split_at_checked(rest.len().checked_sub(TAG_LEN)?)?;
        if name != self.name {
            return None;
        }
        let nonce: [u8; NONCE_LEN] = nonce.try_into().ok()?;
        let tag: [u8; TAG_LEN] = tag.try_into().ok()?;
        let mut plain = body.to_vec();
        self.aead
            .decrypt_inout_detached(
                &nonce.into(),
                name,
                plain.as_mut_slice().into(),
                &tag.into(),
            )
            .ok()?;
        Some(plain)
    }
}
