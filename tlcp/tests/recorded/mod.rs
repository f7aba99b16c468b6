//! Recorded conversations with live TLCP peers (Tongsuo's `s_server`/`s_client -ntls`,
//! GmSSL's `tlcp_server`/`tlcp_client`), and their replay without the peer.
//!
//! Our side runs on the test PKI (`common`), a seeded generator and a fixed clock, so its
//! bytes depend only on what it received: a replay feeds the peer's chunks in and checks that
//! ours come out byte for byte, that the handshake finishes and that the same application
//! data is decrypted. `examples/record.rs` makes the files under `tests/data/`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use super::common::{SeededRandom, recorded_pki as pki, server_builder_for};
use shangmi_tlcp::{
    CipherSuite, ClientAuth, ClientConfig, ClientConnection, Connection, FixedTime, ServerConfig,
    ServerConnection, ServerName, Sm2PrivateKey, UnixTime,
};
use std::sync::Arc;
use std::time::Duration;

mod wire;
#[allow(unused_imports)] // the replay tests use it
pub(crate) use wire::recordings;
#[allow(unused_imports)] // each test binary and example uses a different part
pub use wire::{Chunk, Live, Peer, REQUEST, Replay, Role, Settings, Wire, drive};

/// The clock of every recording: 2026-06-01T00:00:00Z, inside the test PKI's validity.
pub const NOW: u64 = 1_780_272_000;
/// The seed of our side's generator.
pub const SEED: u64 = 0x7463_6c70;
/// How the run was set up.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Our role.
    pub role: Role,
    /// The one suite offered (client) or accepted (server).
    pub suite: CipherSuite,
    /// Whether the client authenticated with its two certificates.
    pub mutual: bool,
    /// Whether our client spoke GmSSL 3.3's dialect (no SNI, `gmssl_compat`).
    pub gmssl: bool,
}

/// A recorded conversation.
pub type Transcript = wire::Transcript<Setup>;

/// The suite's short name in the files and on the recorder's command line.
pub fn suite_name(s: CipherSuite) -> &'static str {
    match s {
        CipherSuite::EccSm4GcmSm3 => "ecc-gcm",
        CipherSuite::EccSm4CbcSm3 => "ecc-cbc",
        CipherSuite::EcdheSm4GcmSm3 => "ecdhe-gcm",
        CipherSuite::EcdheSm4CbcSm3 => "ecdhe-cbc",
    }
}

/// The suite of a short name.
pub fn suite_from_name(name: &str) -> Option<CipherSuite> {
    CipherSuite::ALL
        .into_iter()
        .find(|&s| suite_name(s) == name)
}

impl Settings for Setup {
    fn initial() -> Self {
        Setup {
            role: Role::Client,
            suite: CipherSuite::EccSm4GcmSm3,
            mutual: false,
            gmssl: false,
        }
    }

    fn lines(&self) -> Vec<(&'static str, &'static str)> {
        let mut lines = vec![
            ("role", self.role.name()),
            ("suite", suite_name(self.suite)),
            ("auth", if self.mutual { "mutual" } else { "server" }),
        ];
        if self.gmssl {
            lines.push(("dialect", "gmssl"));
        }
        lines
    }

    fn set(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "role" => self.role = Role::from_name(value)?,
            "suite" => {
                self.suite = suite_from_name(value).ok_or_else(|| format!("suite {value:?}"))?
            }
            "auth" => self.mutual = value == "mutual",
            "dialect" => self.gmssl = value == "gmssl",
            _ => return Ok(false),
        }
        Ok(true)
    }
}

fn keys(sign: &shangmi_sm2::SecretKey, enc: &shangmi_sm2::SecretKey) -> [Arc<Sm2PrivateKey>; 2] {
    [
        Arc::new(Sm2PrivateKey::new(sign.clone()).expect("sign key")),
        Arc::new(Sm2PrivateKey::new(enc.clone()).expect("enc key")),
    ]
}

/// Our client of a recorded run: the one suite, the client pair when mutual.
pub fn client_config(setup: &Setup) -> ClientConfig {
    let p = &pki().client;
    // The recordings predate session tickets: their ClientHellos carry no session_ticket
    // extension (and the peers' servers then sent no NewSessionTicket).
    let mut b = ClientConfig::builder(pki().roots())
        .suites(&[setup.suite])
        .session_tickets(false)
        .rng(SeededRandom::new(SEED))
        .time(Arc::new(FixedTime(UnixTime::since_unix_epoch(
            Duration::from_secs(NOW),
        ))));
    if setup.mutual {
        let [s, e] = keys(&p.sign_key, &p.enc_key);
        b = b.client_certs(vec![p.sign.clone()], s, p.enc.clone(), e);
    }
    if setup.gmssl {
        b = b.enable_sni(false).gmssl_compat(true);
    }
    b.build().expect("client config")
}

/// Our server of a recorded run: the one suite, client certificates required when mutual.
pub fn server_config(setup: &Setup) -> ServerConfig {
    let auth = if setup.mutual {
        ClientAuth::Required
    } else {
        ClientAuth::None
    };
    let b = ServerConfig::builder()
        .suites(&[setup.suite])
        .client_auth(auth, pki().roots())
        .rng(SeededRandom::new(SEED))
        .time(Arc::new(FixedTime(UnixTime::since_unix_epoch(
            Duration::from_secs(NOW),
        ))));
    server_builder_for(&pki().server)(b)
}

/// Our side of `setup`, run over `wire`; returns whether the handshake finished and the
/// application data.
pub fn run(setup: &Setup, wire: &mut dyn Wire) -> Result<(bool, Vec<u8>), String> {
    match setup.role {
        Role::Client => {
            let name = ServerName::try_from("localhost").expect("name");
            let mut conn = ClientConnection::new(Arc::new(client_config(setup)), name)
                .map_err(|e| e.to_string())?;
            let plain = drive(&mut conn, Role::Client, wire)?;
            Ok((!conn.is_handshaking(), plain))
        }
        Role::Server => {
            let mut conn =
                ServerConnection::new(Arc::new(server_config(setup))).map_err(|e| e.to_string())?;
            let plain = drive(&mut conn, Role::Server, wire)?;
            Ok((!conn.is_handshaking(), plain))
        }
    }
}

impl<C: Connection> Peer for C {
    fn is_handshaking(&self) -> bool {
        Connection::is_handshaking(self)
    }

    fn wants_write(&self) -> bool {
        Connection::wants_write(self)
    }

    fn write_tls(&mut self, out: &mut Vec<u8>) -> Result<usize, String> {
        Connection::write_tls(self, out).map_err(|e| e.to_string())
    }

    fn read_tls(&mut self, rd: &mut &[u8]) -> Result<usize, String> {
        Connection::read_tls(self, rd).map_err(|e| e.to_string())
    }

    fn process(&mut self) -> Result<(usize, bool), String> {
        let state = self
            .process_new_packets()
            .map_err(|e| format!("TLCP error: {e}"))?;
        Ok((state.plaintext_bytes_to_read, state.peer_has_closed))
    }

    fn read_plain(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        Connection::read_plain(self, buf).map_err(|e| e.to_string())
    }

    fn write_plain(&mut self, data: &[u8]) -> Result<(), String> {
        Connection::write_plain(self, data)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn send_close_notify(&mut self) {
        Connection::send_close_notify(self);
    }
}
