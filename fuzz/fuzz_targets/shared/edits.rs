//! What the two handshake targets (`tlcp_handshake`, `tls_handshake`) share: the fuzzer's
//! edits to the bytes in flight and the loop that moves flights between a client and a
//! server in memory, applying them, and the check both run over it ([`check`]). Each
//! target makes its connection types a [`Wire`] with [`wire!`].

use libfuzzer_sys::arbitrary::{self, Arbitrary};

/// A handshake target's input: which configuration (each target reads its bits its own
/// way), and the edits.
#[derive(Arbitrary, Debug)]
pub struct Input {
    pub config: u8,
    pub edits: Vec<Edit>,
}

/// One change to the bytes of flight `flight` (the n-th batch of records moved, in either
/// direction).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Edit {
    Xor { flight: u8, pos: u16, mask: u8 },
    Insert { flight: u8, pos: u16, byte: u8 },
    Drop { flight: u8, pos: u16 },
}

/// Applies the (first eight) edits of flight `flight` to `buf`.
fn edit(buf: &mut Vec<u8>, flight: usize, edits: &[Edit]) {
    for e in edits.iter().take(8) {
        match *e {
            Edit::Xor {
                flight: f,
                pos,
                mask,
            } if usize::from(f) == flight && !buf.is_empty() => {
                let i = usize::from(pos) % buf.len();
                buf[i] ^= mask;
            }
            Edit::Insert {
                flight: f,
                pos,
                byte,
            } if usize::from(f) == flight => {
                let i = usize::from(pos) % (buf.len() + 1);
                buf.insert(i, byte);
            }
            Edit::Drop { flight: f, pos } if usize::from(f) == flight && !buf.is_empty() => {
                let i = usize::from(pos) % buf.len();
                buf.remove(i);
            }
            _ => {}
        }
    }
}

/// One end of the in-memory wire.
pub trait Wire {
    /// Whether it has records to send.
    fn has_output(&self) -> bool;
    /// Appends the records it has to send to `out`.
    fn write_to(&mut self, out: &mut Vec<u8>);
    /// Reads `data` and processes it; false when it refuses it.
    fn read_from(&mut self, data: &[u8]) -> bool;
    /// Whether the handshake is still running.
    fn handshaking(&self) -> bool;
    /// Queues `data` as application data.
    fn send_plain(&mut self, data: &[u8]);
    /// The application data received so far (what reads before an error or the end).
    fn recv_plain(&mut self) -> Vec<u8>;
}

/// Makes each connection type a [`Wire`] through the methods rustls' and shangmi-tlcp's
/// connections both have (`wants_write`, `write_tls`, `read_tls`, `process_new_packets`,
/// `is_handshaking`, `writer`, `reader`; the caller brings them in scope).
macro_rules! wire {
    ($($t:ty),*) => {$(
        impl edits::Wire for $t {
            fn has_output(&self) -> bool {
                self.wants_write()
            }
            fn write_to(&mut self, out: &mut Vec<u8>) {
                while self.wants_write() {
                    self.write_tls(out).expect("write to Vec");
                }
            }
            fn read_from(&mut self, mut data: &[u8]) -> bool {
                while !data.is_empty() {
                    if self.read_tls(&mut data).is_err() || self.process_new_packets().is_err() {
                        return false;
                    }
                }
                true
            }
            fn handshaking(&self) -> bool {
                self.is_handshaking()
            }
            fn send_plain(&mut self, data: &[u8]) {
                std::io::Write::write_all(&mut self.writer(), data).expect("buffer");
            }
            fn recv_plain(&mut self) -> Vec<u8> {
                let mut got = Vec::new();
                let _ = std::io::Read::read_to_end(&mut self.reader(), &mut got);
                got
            }
        }
    )*};
}
pub(crate) use wire;

/// Moves what `from` has to send to `to`, with the edits of the next flight: `None` when
/// `to` fails, else whether anything moved.
fn transfer(
    from: &mut dyn Wire,
    to: &mut dyn Wire,
    flight: &mut usize,
    edits: &[Edit],
) -> Option<bool> {
    if !from.has_output() {
        return Some(false);
    }
    let mut buf = Vec::new();
    from.write_to(&mut buf);
    if buf.is_empty() {
        return Some(false);
    }
    edit(&mut buf, *flight, edits);
    *flight += 1;
    to.read_from(&buf).then_some(true)
}

/// Moves records both ways (with edits) until nothing moves or a side fails; returns false
/// on a failure. `flight` counts the flights moved so far.
pub fn pump(
    client: &mut dyn Wire,
    server: &mut dyn Wire,
    flight: &mut usize,
    edits: &[Edit],
) -> bool {
    for _ in 0..16 {
        let Some(to_server) = transfer(client, server, flight, edits) else {
            return false;
        };
        let Some(to_client) = transfer(server, client, flight, edits) else {
            return false;
        };
        if !to_server && !to_client {
            return true;
        }
    }
    true
}

/// The check of both handshake targets: runs the handshake with the edits, then
/// application data both ways (edited too). Nothing may panic; with no edits the handshake
/// completes and both messages arrive; with edits, each side reads the exact message sent
/// or nothing.
pub fn check(client: &mut dyn Wire, server: &mut dyn Wire, edits: &[Edit]) {
    let edited = !edits.is_empty();
    let mut flight = 0;
    let ok = pump(client, server, &mut flight, edits);
    let done = ok && !client.handshaking() && !server.handshaking();
    if !edited {
        assert!(done, "an untouched handshake must complete");
    }
    if !done {
        return;
    }
    client.send_plain(b"ping from the client");
    server.send_plain(b"pong from the server");
    let ok = pump(client, server, &mut flight, edits);
    let got = server.recv_plain();
    assert!(
        got.is_empty() || got == b"ping from the client",
        "server read {got:?}"
    );
    let got_client = client.recv_plain();
    assert!(
        got_client.is_empty() || got_client == b"pong from the server",
        "client read {got_client:?}"
    );
    if !edited {
        assert!(
            ok && !got.is_empty() && !got_client.is_empty(),
            "data must arrive"
        );
    }
}
