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

/// Which side we played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Role {
    Client,
    Server,
}

/// How our side was configured.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub role: Role,
    pub gcm: bool,
    pub hybrid: bool,
    pub mutual: bool,
}

/// One chunk of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Chunk {
    Ours(Vec<u8>),
    Peer(Vec<u8>),
}

/// A whole recording.
#[derive(Debug)]
pub struct Transcript {
    pub comments: Vec<String>,
    pub setup: Setup,
    pub chunks: Vec<Chunk>,
    pub plain: Vec<u8>,
}

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

impl Transcript {
    /// Writes the recording.
    pub fn to_text(&self) -> String {
        let s = &self.setup;
        let mut out = String::new();
        for c in &self.comments {
            out.push_str(&format!("# {c}\n"));
        }
        let role = if s.role == Role::Client {
            "client"
        } else {
            "server"
        };
        out.push_str(&format!("role {role}\n"));
        out.push_str(&format!("suite {}\n", if s.gcm { "gcm" } else { "ccm" }));
        out.push_str(&format!(
            "group {}\n",
            if s.hybrid { "sm2-mlkem768" } else { "sm2" }
        ));
        out.push_str(&format!(
            "auth {}\n",
            if s.mutual { "mutual" } else { "server" }
        ));
        for chunk in &self.chunks {
            match chunk {
                Chunk::Ours(b) => out.push_str(&format!("O {}\n", hex::encode(b))),
                Chunk::Peer(b) => out.push_str(&format!("P {}\n", hex::encode(b))),
            }
        }
        out.push_str(&format!("plain {}\n", hex::encode(&self.plain)));
        out
    }

    /// Reads a recording.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut t = Transcript {
            comments: Vec::new(),
            setup: Setup {
                role: Role::Client,
                gcm: true,
                hybrid: false,
                mutual: false,
            },
            chunks: Vec::new(),
            plain: Vec::new(),
        };
        for line in text.lines() {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let bytes = || hex::decode(value).map_err(|e| format!("{key}: {e}"));
            match key {
                "#" => t.comments.push(value.to_owned()),
                "role" => {
                    t.setup.role = if value == "server" {
                        Role::Server
                    } else {
                        Role::Client
                    }
                }
                "suite" => t.setup.gcm = value == "gcm",
                "group" => t.setup.hybrid = value == "sm2-mlkem768",
                "auth" => t.setup.mutual = value == "mutual",
                "O" => t.chunks.push(Chunk::Ours(bytes()?)),
                "P" => t.chunks.push(Chunk::Peer(bytes()?)),
                "plain" => t.plain = bytes()?,
                "" => {}
                other => return Err(format!("unknown line {other:?}")),
            }
        }
        Ok(t)
    }
}

/// Where a conversation's bytes go and come from: a live socket that records, or a
/// recording that checks.
pub trait Wire {
    /// Our side wrote `bytes`.
    fn send(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// The peer's next chunk; empty at the end of the stream.
    fn recv(&mut self) -> Result<Vec<u8>, String>;
}

/// What our client sends once the handshake is done.
pub const REQUEST: &[u8] = b"GET / HTTP/1.0\r\n\r\n";

/// Runs our side of a conversation over `wire`: the client sends [`REQUEST`] after the
/// handshake and reads until the server closes; the server echoes what it reads until the
/// client closes. Returns the application data our side received. The sequence of sends
/// and receives depends only on the bytes received, so a replay follows the live run.
pub fn drive(
    conn: &mut rustls::Connection,
    role: Role,
    wire: &mut dyn Wire,
) -> Result<Vec<u8>, String> {
    use std::io::{Read, Write};
    let mut plain = Vec::new();
    let mut sent_request = false;
    let mut closed = false;
    loop {
        if role == Role::Client && !conn.is_handshaking() && !sent_request {
            conn.writer()
                .write_all(REQUEST)
                .map_err(|e| e.to_string())?;
            sent_request = true;
        }
        let mut out = Vec::new();
        while conn.wants_write() {
            conn.write_tls(&mut out).map_err(|e| e.to_string())?;
        }
        if !out.is_empty() {
            wire.send(&out)?;
        }
        if closed {
            return Ok(plain);
        }
        let chunk = wire.recv()?;
        if chunk.is_empty() {
            return Ok(plain);
        }
        let mut rd = &chunk[..];
        let mut peer_closed = false;
        while !rd.is_empty() {
            conn.read_tls(&mut rd).map_err(|e| e.to_string())?;
            let state = conn
                .process_new_packets()
                .map_err(|e| format!("TLS error: {e}"))?;
            let mut got = vec![0; state.plaintext_bytes_to_read()];
            conn.reader()
                .read_exact(&mut got)
                .map_err(|e| e.to_string())?;
            if role == Role::Server {
                conn.writer().write_all(&got).map_err(|e| e.to_string())?;
            }
            plain.extend_from_slice(&got);
            peer_closed |= state.peer_has_closed();
        }
        if peer_closed {
            conn.send_close_notify();
            closed = true;
        }
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

/// Replays a recording: the peer's chunks go in, ours must come out byte for byte.
pub struct Replay<'a> {
    chunks: std::slice::Iter<'a, Chunk>,
}

impl<'a> Replay<'a> {
    pub fn new(t: &'a Transcript) -> Self {
        Self {
            chunks: t.chunks.iter(),
        }
    }
}

impl Wire for Replay<'_> {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self.chunks.next() {
            Some(Chunk::Ours(want)) if want == bytes => Ok(()),
            Some(Chunk::Ours(want)) => Err(format!(
                "our side wrote {} bytes that differ from the {} recorded ({})",
                bytes.len(),
                want.len(),
                hex::encode(&bytes[..bytes.len().min(16)])
            )),
            other => Err(format!(
                "our side wrote {} bytes, the recording has {other:?}",
                bytes.len()
            )),
        }
    }

    fn recv(&mut self) -> Result<Vec<u8>, String> {
        match self.chunks.next() {
            Some(Chunk::Peer(bytes)) => Ok(bytes.clone()),
            None => Ok(Vec::new()),
            Some(Chunk::Ours(b)) => Err(format!(
                "the recording expects our side to write {} more bytes",
                b.len()
            )),
        }
    }
}
