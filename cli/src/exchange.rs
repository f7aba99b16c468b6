//! What `shangmi tls client` and `shangmi tlcp client` share: the request read once from
//! standard input, one connection per round (`--reconnect`), each reply to standard output.

use crate::failure::Failure;
use rustls::pki_types::ServerName;
use std::io::{Read, Write};
use std::process::ExitCode;

/// Where a client connects, and the name it checks the server's certificate against.
#[derive(clap::Args)]
pub struct Peer {
    /// Server address, e.g. 127.0.0.1:4433
    #[arg(long)]
    pub connect: String,
    /// Name to check the server's certificate against (and to send as SNI)
    #[arg(long)]
    pub server_name: String,
}

impl Peer {
    /// `--server-name` as a server name (a usage error if it is not one).
    pub fn name(&self) -> Result<ServerName<'static>, Failure> {
        ServerName::try_from(self.server_name.clone())
            .map_err(|e| Failure::usage(format!("--server-name {}: {e}", self.server_name)))
    }
}

/// `WHAT: ERROR` as a failure (exit code 1).
pub fn failure(what: &str, e: impl std::fmt::Display) -> Failure {
    Failure::new(format!("{what}: {e}"))
}

/// Reads standard input, then `reconnect + 1` times sends it over a connection of its own
/// (`once`: handshake, send, read the reply) and writes the reply to standard output.
pub fn client_rounds(
    reconnect: u32,
    mut once: impl FnMut(&[u8]) -> Result<Vec<u8>, Failure>,
) -> Result<ExitCode, Failure> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| failure("standard input", e))?;
    for _ in 0..=reconnect {
        let reply = once(&input)?;
        std::io::stdout()
            .write_all(&reply)
            .map_err(|e| failure("standard output", e))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The peer's reply, read to its end: a peer that closes TCP without close_notify (Tongsuo's
/// `s_server` does, as do many `-www` servers) ends it too.
pub fn read_reply(conn: &mut impl Read) -> Result<Vec<u8>, Failure> {
    let mut reply = Vec::new();
    match conn.read_to_end(&mut reply) {
        Ok(_) => Ok(reply),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(reply),
        Err(e) => Err(failure("read", e)),
    }
}
