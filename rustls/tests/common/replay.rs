//! Recorded TLS conversations with real peers, and their replay.
//!
//! Our side runs on a seeded random generator and a fixed clock, so for the same peer bytes
//! it writes the same bytes every time. A recording (made by `examples/record.rs` against a
//! live Tongsuo or GmSSL) keeps every chunk each side wrote, in order, plus the plaintext our
//! side received. Replaying feeds the peer's chunks to a fresh connection of ours and checks
//! that it writes exactly what it wrote live, completes the handshake and decrypts the same
//! plaintext: a regression test of interoperability without the peer.
//!
//! File format, one item per line: `# comment`, `key value` settings (`role client|server`,
//! `suite gcm|ccm`, `group sm2|sm2-mlkem768`, `auth server|mutual`), `O <hex>` (a chunk our
//! side wrote), `P <hex>` (a chunk the peer wrote) and `plain <hex>` (all application data
//! our side received).

use super::pki::Pki;
use super::{Auth, client_config_with, fixed_time, server_config_with};
use rustls::crypto::{CryptoProvider, SupportedKxGroup};
use rustls::crypto::{GetRandomFailed, SecureRandom};
use rustls::{ClientConfig, ServerConfig, SupportedCipherSuite};
use shangmi_rustls::{kx, suites};
use std::sync::Arc;

#[allow(unused_imports)] // the replay tests use it
pub(crate) use super::wire::recordings;
#[allow(unused_imports)] // each test binary and example uses a different part
pub use super::wire::{Chunk, Live, Peer, REQUEST, Replay, Role, Settings, Wire, drive};

/// A deterministic generator: SM3 in counter mode over a seed. Predictable by design, so
/// that a replayed handshake draws the same key shares, randoms and nonces as the live one.
#[derive(Debug)]
pub struct SeededRandom {
    seed: [u8; 32],
    counter: std::sync::atomic::AtomicU64,
}

impl SeededRandom {
    /// A generator whose whole output stream is a function of `seed`.
    pub const fn new(seed: [u8; 32]) -> Self {
        Self {
            seed,
            counter: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl SecureRandom for SeededRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        use digest::Digest;
        for chunk in buf.chunks_mut(32) {
            let n = self
                .counter
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let block = shangmi_sm3::Sm3::new()
                .chain_update(self.seed)
                .chain_update(n.to_be_bytes())
                .finalize();
            chunk.copy_from_slice(&block[..chunk.len()]);
        }
        Ok(())
    }
}

/// The seed of every recorded conversation.
pub const SEED: [u8; 32] = *b"shangmi recorded interop seed 01";

/// How our side was configured.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub role: Role,
    pub gcm: bool,
    pub hybrid: bool,
    pub mutual: bool,
}

/// A whole recording.
pub type Transcript = super::wire::Transcript<Setup>;

/// The provider of a recorded run: seeded generator, the suite and group of `setup`.
pub fn provider(setup: &Setup) -> Arc<CryptoProvider> {
    let random: &'static SeededRandom = Box::leak(Box::new(SeededRandom::new(SEED)));
    let mut provider = shangmi_rustls::provider_with_random(random);
    let suite: SupportedCipherSuite = if setup.gcm {
        suites::TLS13_SM4_GCM_SM3
    } else {
        suites::TLS13_SM4_CCM_SM3
    };
    provider.cipher_suites = vec![suite];
    let [sm2, hybrid]: [&'static dyn SupportedKxGroup; 2] = kx::groups_with_random(random);
    provider.kx_groups = match (setup.hybrid, setup.role) {
        (false, _) => vec![sm2],
        (true, Role::Client) => vec![hybrid, sm2],
        (true, Role::Server) => vec![hybrid],
    };
    Arc::new(provider)
}

fn auth(setup: &Setup) -> Auth {
    if setup.mutual {
        Auth::Mutual
    } else {
        Auth::ServerOnly
    }
}

/// Our client of a recorded run.
pub fn client(pki: &Pki, setup: &Setup) -> ClientConfig {
    client_config_with(pki, provider(setup), fixed_time(), auth(setup))
}

/// Our server of a recorded run (stateful session cache, rustls' default two tickets).
pub fn server(pki: &Pki, setup: &Setup) -> ServerConfig {
    server_config_with(pki, provider(setup), fixed_time(), auth(setup), &pki.server)
}

impl Settings for Setup {
    fn initial() -> Self {
        Setup {
            role: Role::Client,
            gcm: true,
            hybrid: false,
            mutual: false,
        }
    }

    fn lines(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("role", self.role.name()),
            ("suite", if self.gcm { "gcm" } else { "ccm" }),
            ("group", if self.hybrid { "sm2-mlkem768" } else { "sm2" }),
            ("auth", if self.mutual { "mutual" } else { "server" }),
        ]
    }

    fn set(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "role" => self.role = Role::from_name(value)?,
            "suite" => self.gcm = value == "gcm",
            "group" => self.hybrid = value == "sm2-mlkem768",
            "auth" => self.mutual = value == "mutual",
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A fresh connection of ours for `setup`.
pub fn connection(pki: &Pki, setup: &Setup) -> rustls::Connection {
    match setup.role {
        Role::Client => {
            let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
            rustls::ClientConnection::new(Arc::new(client(pki, setup)), name)
                .expect("client")
                .into()
        }
        Role::Server => rustls::ServerConnection::new(Arc::new(server(pki, setup)))
            .expect("server")
            .into(),
    }
}

impl Peer for rustls::Connection {
    fn is_handshaking(&self) -> bool {
        rustls::CommonState::is_handshaking(self)
    }

    fn wants_write(&self) -> bool {
        rustls::CommonState::wants_write(self)
    }

    fn write_tls(&mut self, out: &mut Vec<u8>) -> Result<usize, String> {
        rustls::Connection::write_tls(self, out).map_err(|e| e.to_string())
    }

    fn read_tls(&mut self, rd: &mut &[u8]) -> Result<usize, String> {
        rustls::Connection::read_tls(self, rd).map_err(|e| e.to_string())
    }

    fn process(&mut self) -> Result<(usize, bool), String> {
        let state = self
            .process_new_packets()
            .map_err(|e| format!("TLS error: {e}"))?;
        Ok((state.plaintext_bytes_to_read(), state.peer_has_closed()))
    }

    fn read_plain(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        use std::io::Read;
        self.reader().read(buf).map_err(|e| e.to_string())
    }

    fn write_plain(&mut self, data: &[u8]) -> Result<(), String> {
        use std::io::Write;
        self.writer().write_all(data).map_err(|e| e.to_string())
    }

    fn send_close_notify(&mut self) {
        rustls::CommonState::send_close_notify(self);
    }
}
