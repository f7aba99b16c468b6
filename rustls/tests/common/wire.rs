//! What the recorded-conversation tests of both TLS crates share (this file is
//! `rustls/tests/common/wire.rs`; `tlcp/tests/recorded/wire.rs` is a link to it): the
//! chunks of a conversation, where they go ([`Wire`]: a live socket that records, or a
//! [`Replay`] that checks), and the loop that runs our side over them ([`drive`]), for any
//! connection that is a [`Peer`] (each crate implements it for its own connections).

/// Which side we played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Our client against the peer's server.
    Client,
    /// Our server against the peer's client.
    Server,
}

impl Role {
    /// The role's word in a recording's `role` line.
    pub fn name(self) -> &'static str {
        match self {
            Role::Client => "client",
            Role::Server => "server",
        }
    }

    /// The role of a `role` line.
    pub fn from_name(name: &str) -> Result<Self, String> {
        match name {
            "client" => Ok(Role::Client),
            "server" => Ok(Role::Server),
            other => Err(format!("role {other:?}")),
        }
    }
}

/// One chunk of bytes on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// Written by our side.
    Ours(Vec<u8>),
    /// Read from the peer.
    Peer(Vec<u8>),
}

/// Where a conversation's bytes go and come from: a live socket that records, or a
/// recording that checks.
pub trait Wire {
    /// Our side wrote `bytes`.
    fn send(&mut self, bytes: &[u8]) -> Result<(), String>;
    /// The peer's next chunk; empty at the end of the stream.
    fn recv(&mut self) -> Result<Vec<u8>, String>;
}

/// What our client sends once the handshake is done (a peer's `-www` server answers it).
pub const REQUEST: &[u8] = b"GET / HTTP/1.0\r\n\r\n";

/// A connection as [`drive`] runs it (sans-IO: TLS bytes in and out, plaintext in and out).
pub trait Peer {
    /// Whether the handshake is still running.
    fn is_handshaking(&self) -> bool;
    /// Whether TLS bytes wait to be written.
    fn wants_write(&self) -> bool;
    /// Appends waiting TLS bytes to `out`.
    fn write_tls(&mut self, out: &mut Vec<u8>) -> Result<usize, String>;
    /// Takes TLS bytes from the front of `rd`.
    fn read_tls(&mut self, rd: &mut &[u8]) -> Result<usize, String>;
    /// Processes what was read: the plaintext bytes ready, and whether the peer closed.
    fn process(&mut self) -> Result<(usize, bool), String>;
    /// Reads plaintext (0: nothing more now).
    fn read_plain(&mut self, buf: &mut [u8]) -> Result<usize, String>;
    /// Sends all of `data` as application data.
    fn write_plain(&mut self, data: &[u8]) -> Result<(), String>;
    /// Queues close_notify.
    fn send_close_notify(&mut self);
}

/// Runs our side of a conversation over `wire`: the client sends [`REQUEST`] after the
/// handshake and reads until the server closes; the server echoes what it reads until the
/// client closes. Returns the application data our side received. The sequence of sends
/// and receives depends only on the bytes received, so a replay follows the live run.
pub fn drive<P: Peer>(conn: &mut P, role: Role, wire: &mut dyn Wire) -> Result<Vec<u8>, String> {
    let mut plain = Vec::new();
    let mut sent_request = false;
    let mut closed = false;
    loop {
        if role == Role::Client && !conn.is_handshaking() && !sent_request {
            conn.write_plain(REQUEST)?;
            sent_request = true;
        }
        let mut out = Vec::new();
        while conn.wants_write() {
            conn.write_tls(&mut out)?;
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
            conn.read_tls(&mut rd)?;
            let (ready, peer_has_closed) = conn.process()?;
            let mut got = vec![0; ready];
            let mut filled = 0;
            while filled < got.len() {
                let n = conn.read_plain(&mut got[filled..])?;
                if n == 0 {
                    break;
                }
                filled += n;
            }
            got.truncate(filled);
            if role == Role::Server && !got.is_empty() {
                conn.write_plain(&got)?;
            }
            plain.extend_from_slice(&got);
            peer_closed |= peer_has_closed;
        }
        if peer_closed {
            conn.send_close_notify();
            closed = true;
        }
    }
}

/// A crate's set-up of a recording: its `key value` lines.
pub trait Settings: Sized {
    /// The set-up before any line is read.
    fn initial() -> Self;
    /// The lines it writes, in order.
    fn lines(&self) -> Vec<(&'static str, &'static str)>;
    /// Takes one line; says whether it knew the key (an unknown key is an error).
    fn set(&mut self, key: &str, value: &str) -> Result<bool, String>;
}

/// A recorded conversation.
#[derive(Clone, Debug)]
pub struct Transcript<S> {
    /// Free text: the peer, its version and command line.
    pub comments: Vec<String>,
    /// The set-up.
    pub setup: S,
    /// The bytes, in order.
    pub chunks: Vec<Chunk>,
    /// The application data our side decrypted.
    pub plain: Vec<u8>,
}

impl<S: Settings> Transcript<S> {
    /// The text form: `# comment` lines, the set-up's `key value` lines, then `O <hex>` (our
    /// chunk), `P <hex>` (the peer's) and `plain <hex>` (all application data our side
    /// received).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in &self.comments {
            out.push_str(&format!("# {c}\n"));
        }
        for (key, value) in self.setup.lines() {
            out.push_str(&format!("{key} {value}\n"));
        }
        for chunk in &self.chunks {
            match chunk {
                Chunk::Ours(b) => out.push_str(&format!("O {}\n", hex::encode(b))),
                Chunk::Peer(b) => out.push_str(&format!("P {}\n", hex::encode(b))),
            }
        }
        out.push_str(&format!("plain {}\n", hex::encode(&self.plain)));
        out
    }

    /// Reads the text form.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut t = Transcript {
            comments: Vec::new(),
            setup: S::initial(),
            chunks: Vec::new(),
            plain: Vec::new(),
        };
        for line in text.lines() {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let bytes = || hex::decode(value).map_err(|e| format!("{key}: {e}"));
            match key {
                "#" => t.comments.push(value.to_owned()),
                "O" => t.chunks.push(Chunk::Ours(bytes()?)),
                "P" => t.chunks.push(Chunk::Peer(bytes()?)),
                "plain" => t.plain = bytes()?,
                "" => {}
                other => {
                    if !t.setup.set(other, value)? {
                        return Err(format!("unknown line {other:?}"));
                    }
                }
            }
        }
        Ok(t)
    }
}

impl<S> AsRef<[Chunk]> for Transcript<S> {
    fn as_ref(&self) -> &[Chunk] {
        &self.chunks
    }
}

/// One `#[test]` a recording: `name => "file"` replays `tests/data/file` with the test
/// file's own `replay_file(name, text)`.
#[allow(unused_macros)] // only the replay tests use it
macro_rules! recordings {
    ($($test:ident => $file:literal,)*) => {
        $(
            #[test]
            fn $test() {
                replay_file($file, include_str!(concat!("data/", $file)));
            }
        )*
    };
}
#[allow(unused_imports)]
pub(crate) use recordings;

/// A live socket that keeps what went each way (the `record` examples of both crates).
pub struct Live {
    sock: std::net::TcpStream,
    /// What each side wrote, in order.
    pub chunks: Vec<Chunk>,
}

impl Live {
    /// As client, connects to `addr`; as server, accepts one connection on it.
    pub fn open(role: Role, addr: &str) -> Result<Self, String> {
        let sock = match role {
            Role::Client => std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?,
            Role::Server => {
                let listener = std::net::TcpListener::bind(addr).map_err(|e| e.to_string())?;
                listener.accept().map_err(|e| e.to_string())?.0
            }
        };
        Ok(Live {
            sock,
            chunks: Vec::new(),
        })
    }
}

impl Wire for Live {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        use std::io::Write;
        self.chunks.push(Chunk::Ours(bytes.to_vec()));
        // A peer that already closed may refuse the last write (our close_notify): the
        // recording keeps what we wrote either way, as the replay will.
        let _ = self.sock.write_all(bytes);
        Ok(())
    }

    fn recv(&mut self) -> Result<Vec<u8>, String> {
        use std::io::Read;
        let mut buf = vec![0u8; 1 << 16];
        let n = self.sock.read(&mut buf).unwrap_or(0);
        buf.truncate(n);
        if n > 0 {
            self.chunks.push(Chunk::Peer(buf.clone()));
        }
        Ok(buf)
    }
}

/// Replays a recording: the peer's chunks go in, ours must come out byte for byte.
pub struct Replay<'a> {
    chunks: std::slice::Iter<'a, Chunk>,
}

impl<'a> Replay<'a> {
    /// Over the chunks of a recording.
    pub fn new(recording: &'a impl AsRef<[Chunk]>) -> Self {
        Replay {
            chunks: recording.as_ref().iter(),
        }
    }
}

impl Wire for Replay<'_> {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self.chunks.next() {
            Some(Chunk::Ours(expected)) if expected == bytes => Ok(()),
            Some(Chunk::Ours(expected)) => Err(format!(
                "our side wrote {} bytes that differ from the recording's {} (first difference at {})",
                bytes.len(),
                expected.len(),
                bytes
                    .iter()
                    .zip(expected)
                    .position(|(a, b)| a != b)
                    .unwrap_or(bytes.len().min(expected.len()))
            )),
            Some(Chunk::Peer(_)) => Err("our side wrote where the peer spoke".into()),
            None => Err("our side wrote past the end of the recording".into()),
        }
    }

    fn recv(&mut self) -> Result<Vec<u8>, String> {
        match self.chunks.next() {
            Some(Chunk::Peer(b)) => Ok(b.clone()),
            Some(Chunk::Ours(_)) => Err("our side waited where it spoke in the recording".into()),
            None => Ok(Vec::new()),
        }
    }
}
