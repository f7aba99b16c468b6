//! TLCP (`shangmi-tlcp`): a client and a server in memory, with the fuzzer editing the
//! bytes in flight — flipping, inserting and dropping bytes in any flight of the handshake
//! (ClientHello; the server's hello, dual certificates, ServerKeyExchange, request and
//! done; the client's certificates, key exchange, CertificateVerify, ChangeCipherSpec and
//! Finished; the server's Finished) and in the application data after it, for both roles
//! and all four suites (server-only and mutual).
//! Checked: nothing panics; with no edits the handshake completes and data arrives intact;
//! with edits, what completes still delivers exactly the bytes sent or fails.
//!
//! The PKI is the tlcp crate's test PKI (`tlcp/tests/common`), a seeded generator per input.

#![no_main]

#[path = "../../tlcp/tests/common/mod.rs"]
#[allow(dead_code, unused_imports)]
mod common;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use shangmi_tlcp::{
    CipherSuite, ClientAuth, ClientConnection, Connection, ServerConnection, ServerName,
};
use std::io::{Read, Write};
use std::sync::Arc;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Edit {
    Xor { flight: u8, pos: u16, mask: u8 },
    Insert { flight: u8, pos: u16, byte: u8 },
    Drop { flight: u8, pos: u16 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Suite (low two bits) and mutual authentication (bit 2; always for ECDHE).
    config: u8,
    edits: Vec<Edit>,
}

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

fn transfer<A: Connection, B: Connection>(
    from: &mut A,
    to: &mut B,
    flight: &mut usize,
    edits: &[Edit],
) -> Option<bool> {
    let mut buf = Vec::new();
    while from.wants_write() {
        from.write_tls(&mut buf).expect("write to Vec");
    }
    if buf.is_empty() {
        return Some(false);
    }
    edit(&mut buf, *flight, edits);
    *flight += 1;
    let mut rd = &buf[..];
    while !rd.is_empty() {
        if to.read_tls(&mut rd).is_err() || to.process_new_packets().is_err() {
            return None;
        }
    }
    Some(true)
}

fn pump(
    client: &mut ClientConnection,
    server: &mut ServerConnection,
    flight: &mut usize,
    edits: &[Edit],
) -> bool {
    for _ in 0..16 {
        let Some(a) = transfer(client, server, flight, edits) else {
            return false;
        };
        let Some(b) = transfer(server, client, flight, edits) else {
            return false;
        };
        if !a && !b {
            return true;
        }
    }
    true
}

fuzz_target!(
    init: {
        common::pki();
    },
    |input: Input| {
    let suite = CipherSuite::ALL[usize::from(input.config & 3)];
    let mutual = suite.is_ecdhe() || input.config & 4 != 0;
    let auth = if mutual { ClientAuth::Required } else { ClientAuth::None };
    let rng = common::SeededRandom::new(u64::from(input.config));
    let sc = common::server_config_with(&common::pki().server, &[suite], auth, |b| {
        b.rng(rng.clone()).session_tickets(true)
    });
    let cc = common::client_config_with(&[suite], mutual, |b| b.rng(rng));
    let name = ServerName::try_from("localhost").expect("name");
    let mut client = ClientConnection::new(Arc::new(cc), name).expect("client");
    let mut server = ServerConnection::new(Arc::new(sc)).expect("server");
    let edited = !input.edits.is_empty();
    let mut flight = 0;
    let ok = pump(&mut client, &mut server, &mut flight, &input.edits);
    let done = ok && !client.is_handshaking() && !server.is_handshaking();
    if !edited {
        assert!(done, "an untouched handshake must complete");
    }
    if !done {
        return;
    }
    client.writer().write_all(b"ping from the client").expect("write");
    server.writer().write_all(b"pong from the server").expect("write");
    if !pump(&mut client, &mut server, &mut flight, &input.edits) {
        return;
    }
    let mut got = Vec::new();
    let _ = server.reader().read_to_end(&mut got);
    assert!(got.is_empty() || got == b"ping from the client", "{got:?}");
    if !edited {
        assert_eq!(got, b"ping from the client");
    }
    let mut got = Vec::new();
    let _ = client.reader().read_to_end(&mut got);
    assert!(got.is_empty() || got == b"pong from the server", "{got:?}");
});
