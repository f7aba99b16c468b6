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
use zeroize::{Zeroize, Zeroizing};

/// How long one ticket key issues tickets (seconds).
const LIFETIME: u32 = 6 * 60 * 60;
/// Bytes of a ticket key's name.
pub const NAME_LEN: usize = 16;
/// Bytes of a ticket's nonce.
pub const NONCE_LEN: usize = 12;
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
    let sealer = TicketKey::new(&key, name);
    key.zeroize();
    Ok(Box::new(Rotated(sealer)))
}

/// One ticket key: seals and opens tickets in the layout above. The one ticket format of
/// the workspace: this provider's rotating ticketer and `shangmi-tlcp`'s `Ticketer` both
/// seal through it.
pub struct TicketKey {
    /// SM4-GCM under the ticket key, expanded once (its keys are wiped on drop:
    /// sm4-modes' `zeroize` feature).
    aead: Sm4Gcm,
    name: [u8; NAME_LEN],
}

impl core::fmt::Debug for TicketKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TicketKey").finish_non_exhaustive()
    }
}

impl TicketKey {
    /// Bytes a sealed ticket adds to its contents (key name, nonce and tag).
    pub const OVERHEAD: usize = NAME_LEN + NONCE_LEN + TAG_LEN;

    /// A key from a secret SM4 key and a public key name (both random, from the caller's
    /// generator; the name tells this key's tickets from another's).
    pub fn new(key: &[u8; 16], name: [u8; NAME_LEN]) -> Self {
        TicketKey {
            aead: Sm4Gcm::new(&(*key).into()),
            name,
        }
    }

    /// Seals `plain` under a fresh random `nonce` (a nonce must never repeat under one key:
    /// draw 96 random bits per ticket and keep a key's use well under 2^32 tickets).
    /// `None` only if the message is too long for GCM.
    pub fn seal(&self, nonce: [u8; NONCE_LEN], plain: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(Self::OVERHEAD + plain.len());
        out.extend_from_slice(&self.name);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(plain);
        let body = &mut out[NAME_LEN + NONCE_LEN..];
        match self
            .aead
            .encrypt_inout_detached(&nonce.into(), &self.name, body.into())
        {
            Ok(tag) => {
                out.extend_from_slice(&tag);
                Some(out)
            }
            Err(_) => {
                out.zeroize();
                None
            }
        }
    }

    /// Opens a ticket: its contents, or `None` when it is not this key's, was changed or is
    /// too short. The contents are wiped when the returned value is dropped.
    pub fn open(&self, ticket: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
        let (name, rest) = ticket.split_at_checked(NAME_LEN)?;
        let (nonce, rest) = rest.split_at_checked(NONCE_LEN)?;
        let (body, tag) = rest.split_at_checked(rest.len().checked_sub(TAG_LEN)?)?;
        if name != self.name {
            return None;
        }
        let nonce: [u8; NONCE_LEN] = nonce.try_into().ok()?;
        let tag: [u8; TAG_LEN] = tag.try_into().ok()?;
        let mut plain = Zeroizing::new(body.to_vec());
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

/// A [`TicketKey`] as one of the rotator's keys.
struct Rotated(TicketKey);

impl core::fmt::Debug for Rotated {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Rotated").finish_non_exhaustive()
    }
}

impl ProducesTickets for Rotated {
    fn enabled(&self) -> bool {
        true
    }

    fn lifetime(&self) -> u32 {
        LIFETIME
    }

    fn encrypt(&self, plain: &[u8]) -> Option<Vec<u8>> {
        let mut nonce = [0u8; NONCE_LEN];
        crate::rand::OS_RANDOM.fill(&mut nonce).ok()?;
        self.0.seal(nonce, plain)
    }

    fn decrypt(&self, ticket: &[u8]) -> Option<Vec<u8>> {
        // rustls takes the contents as a plain Vec (and drops it itself).
        self.0.open(ticket).map(|plain| plain.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_opens_and_refuses_every_change() {
        let key = TicketKey::new(&[1; 16], [2; NAME_LEN]);
        let ticket = key.seal([3; NONCE_LEN], b"session state").expect("seals");
        assert_eq!(ticket.len(), TicketKey::OVERHEAD + 13);
        assert_eq!(&ticket[..NAME_LEN], &[2; NAME_LEN]);
        assert_eq!(
            key.open(&ticket).expect("opens").as_slice(),
            b"session state"
        );
        for i in 0..ticket.len() {
            let mut bad = ticket.clone();
            bad[i] ^= 1;
            assert!(key.open(&bad).is_none(), "byte {i}");
        }
        for cut in 0..ticket.len() {
            assert!(key.open(&ticket[..cut]).is_none(), "length {cut}");
        }
        // Same name, another secret key; another name, same secret key.
        assert!(
            TicketKey::new(&[9; 16], [2; NAME_LEN])
                .open(&ticket)
                .is_none()
        );
        assert!(
            TicketKey::new(&[1; 16], [8; NAME_LEN])
                .open(&ticket)
                .is_none()
        );
        // Through the rotator's interface.
        let rotated = Rotated(key);
        let sealed = rotated.encrypt(b"abc").expect("seals");
        assert_eq!(rotated.decrypt(&sealed).as_deref(), Some(&b"abc"[..]));
    }
}
