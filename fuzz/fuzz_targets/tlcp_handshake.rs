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

use edits::Input;
use libfuzzer_sys::fuzz_target;
use shangmi_tlcp::{CipherSuite, ClientAuth, ClientConnection, ServerConnection, ServerName};
use std::sync::Arc;

edits::wire!(ClientConnection, ServerConnection);

fuzz_target!(
    init: {
        common::pki();
    },
    |input: Input| {
    // The configuration: the suite (low two bits) and mutual authentication (bit 2; always
    // for ECDHE).
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
    edits::check(&mut client, &mut server, &input.edits);
});
