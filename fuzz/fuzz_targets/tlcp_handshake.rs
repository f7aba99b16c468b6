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

#[path = "shared/edits.rs"]
mod edits;

use edits::{Edit, pump};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use shangmi_tlcp::{CipherSuite, ClientAuth, ClientConnection, ServerConnection, ServerName};
use std::io::{Read, Write};
use std::sync::Arc;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Suite (low two bits) and mutual authentication (bit 2; always for ECDHE).
    config: u8,
    edits: Vec<Edit>,
}

edits::wire!(ClientConnection, ServerConnection);

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
