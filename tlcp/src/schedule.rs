//! What the client and server handshakes share: the hello randoms, the master secret and
//! what is made from it (record keys, Finished, the key log line), and the end of a
//! handshake.

use crate::conn::{Core, derive_keys};
use crate::error::{AlertDescription, Error, bad};
use crate::events::Event;
use crate::hooks::KeyLog;
use crate::keys::{SecureRandom, TimeProvider};
use crate::msgs::{self, Codec};
use crate::suites::CipherSuite;
use rustls_pki_types::CertificateDer;
use shangmi_sm3::Sm3;
use zeroize::Zeroize;

use shangmi_dispatch::ct::eq as ct_eq;

/// A hello random: 4 bytes of time (seconds, big-endian), 28 random bytes.
pub(crate) fn hello_random(
    time: &dyn TimeProvider,
    rng: &dyn SecureRandom,
) -> Result<[u8; 32], Error> {
    let mut random = [0u8; 32];
    let now = crate::keys::now(time)?.as_secs() as u32;
    random[..4].copy_from_slice(&now.to_be_bytes());
    rng.fill(&mut random[4..])?;
    Ok(random)
}

/// The secrets of one handshake, from one side's point of view.
pub(crate) struct KeySchedule {
    is_client: bool,
    pub(crate) client_random: [u8; 32],
    pub(crate) server_random: [u8; 32],
    pub(crate) master_secret: [u8; 48],
}

impl Drop for KeySchedule {
    fn drop(&mut self) {
        self.master_secret.zeroize();
    }
}

impl KeySchedule {
    pub(crate) fn new(is_client: bool) -> Self {
        KeySchedule {
            is_client,
            client_random: [0; 32],
            server_random: [0; 32],
            master_secret: [0; 48],
        }
    }

    /// The two hello randoms, for a key exchange's master secret.
    pub(crate) fn randoms(&self) -> crate::keys::HelloRandoms<'_> {
        crate::keys::HelloRandoms {
            client: &self.client_random,
            server: &self.server_random,
        }
    }

    /// client_random ‖ server_random, the start of what ServerKeyExchange signs.
    pub(crate) fn signed_prefix(&self) -> Vec<u8> {
        let mut signed = Vec::with_capacity(200);
        signed.extend_from_slice(&self.client_random);
        signed.extend_from_slice(&self.server_random);
        signed
    }

    /// master_secret = PRF(pms, "master secret", client_random ‖ server_random); the
    /// premaster is wiped.
    pub(crate) fn set_premaster(&mut self, pms: &mut [u8; 48]) {
        self.master_secret =
            crate::prf::master_secret(pms, &self.client_random, &self.server_random);
        pms.zeroize();
    }

    /// The master secret computed from a premaster held elsewhere
    /// ([`Sm2KeyExchange::master_secret`](crate::keys::Sm2KeyExchange::master_secret)).
    pub(crate) fn set_master_secret(&mut self, ms: [u8; 48]) {
        self.master_secret = ms;
    }

    /// Hands the master secret to the key log (NSS format: CLIENT_RANDOM).
    pub(crate) fn log(&self, log: &dyn KeyLog) {
        if log.will_log("CLIENT_RANDOM") {
            log.log("CLIENT_RANDOM", &self.client_random, &self.master_secret);
        }
    }

    /// Derives the record keys of `suite` and makes them pending in `core` (they take
    /// effect at the ChangeCipherSpecs).
    pub(crate) fn install_keys(&self, suite: CipherSuite, core: &mut Core) -> Result<(), Error> {
        let (r, w) = derive_keys(
            suite,
            &self.master_secret,
            &self.client_random,
            &self.server_random,
            self.is_client,
        )?;
        core.pending_read = Some(r);
        core.pending_write = Some(w);
        Ok(())
    }

    fn label(client: bool) -> &'static [u8] {
        if client {
            b"client finished"
        } else {
            b"server finished"
        }
    }

    /// Sends ChangeCipherSpec and our Finished over the transcript so far.
    pub(crate) fn send_finished(&self, core: &mut Core) -> Result<(), Error> {
        core.send_ccs()?;
        let vd = crate::prf::verify_data(
            &self.master_secret,
            Self::label(self.is_client),
            &core.transcript_hash(),
        );
        core.send(&msgs::Finished {
            verify_data: vd.to_vec(),
        })
    }

    /// Checks the peer's Finished (`before`: the transcript without it), in constant time;
    /// decrypt_error when it differs.
    pub(crate) fn check_finished(&self, body: &[u8], before: &Sm3) -> Result<(), Error> {
        use digest::Digest;
        let hash: [u8; 32] = before.clone().finalize().into();
        let expect =
            crate::prf::verify_data(&self.master_secret, Self::label(!self.is_client), &hash);
        let received = msgs::Finished::read_bytes(body)?.verify_data;
        if !ct_eq(&received, &expect) {
            return Err(bad(
                AlertDescription::DecryptError,
                if self.is_client {
                    "bad server Finished"
                } else {
                    "bad client Finished"
                },
            ));
        }
        Ok(())
    }
}

/// Ends a handshake: application data flows, and the event handler hears of it.
pub(crate) fn complete(
    core: &mut Core,
    suite: CipherSuite,
    resumed: bool,
    peer_certificates: &[CertificateDer<'static>],
) -> Result<(), Error> {
    core.finish_handshake()?;
    core.emit(&Event::HandshakeCompleted {
        protocol: "TLCP 1.1",
        suite,
        resumed,
        peer_certificates,
    });
    Ok(())
}

/// The peer's ChangeCipherSpec: accepted only in the `waiting` state, which then becomes
/// `next` (its Finished).
pub(crate) fn take_ccs<S: PartialEq>(state: &mut S, waiting: S, next: S) -> Result<(), Error> {
    if *state != waiting {
        return Err(bad(
            AlertDescription::UnexpectedMessage,
            "unexpected ChangeCipherSpec",
        ));
    }
    *state = next;
    Ok(())
}

/// A handshake message the state machine does not expect where it stands.
pub(crate) fn unexpected_message() -> Error {
    bad(
        AlertDescription::UnexpectedMessage,
        "unexpected handshake message",
    )
}

/// A connection's `Debug`: its type and handshake state (never keys or buffers).
pub(crate) fn fmt_connection(
    f: &mut core::fmt::Formatter<'_>,
    name: &str,
    state: &dyn core::fmt::Debug,
) -> core::fmt::Result {
    f.debug_struct(name)
        .field("state", state)
        .finish_non_exhaustive()
}
