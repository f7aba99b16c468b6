//! The rustls provider (`shangmi-rustls`, RFC 8998) under a client and a server that talk
//! to each other in memory, with the fuzzer editing the records in flight: flipping,
//! inserting and dropping bytes in any flight of the handshake (ClientHello, the server's
//! encrypted flight, certificates, Finished, tickets) and in the application data after it.
//! Checked: nothing panics; with no edits the handshake completes and data arrives intact;
//! with edits, whatever completes still delivers exactly the bytes sent or fails (the AEAD
//! and the transcript hash must catch every change that matters).
//!
//! The test PKI and configurations are the rustls crate's test helpers (`tests/common`), in
//! eight variants: SM4-GCM or SM4-CCM, curveSM2 or the ML-KEM hybrid first, server-only or
//! mutual authentication; a fixed clock and a seeded generator.

#![no_main]

#[path = "../../rustls/tests/common/mod.rs"]
#[allow(dead_code, unused_imports)]
mod common;

use std::sync::{Arc, OnceLock};

use common::Auth;
use common::replay::SeededRandom;
#[path = "shared/edits.rs"]
mod edits;

use edits::Input;
use libfuzzer_sys::fuzz_target;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, ServerConfig, ServerConnection};
use shangmi_rustls::suites;

type Configs = Vec<(Arc<ClientConfig>, Arc<ServerConfig>)>;

fn configs() -> &'static Configs {
    static CONFIGS: OnceLock<Configs> = OnceLock::new();
    CONFIGS.get_or_init(|| {
        let pki = common::pki::Pki::new();
        (0..8)
            .map(|i| {
                let auth = if i & 4 != 0 {
                    Auth::Mutual
                } else {
                    Auth::ServerOnly
                };
                (
                    Arc::new(common::client_config_with(
                        &pki,
                        provider(i),
                        common::fixed_time(),
                        auth,
                    )),
                    Arc::new(common::server_config_with(
                        &pki,
                        provider(i),
                        common::fixed_time(),
                        auth,
                        &pki.server,
                    )),
                )
            })
            .collect()
    })
}

/// Configuration `i`'s provider: a seeded generator, SM4-GCM (even `i`) or SM4-CCM, and
/// the hybrid group first when bit 1 is set. Built once per configuration: its key-exchange
/// groups are leaked on purpose (rustls keeps them as `&'static`), and reordered rather
/// than dropped so they stay reachable (the leak checker would report dropped ones).
fn provider(i: usize) -> Arc<CryptoProvider> {
    let random: &'static SeededRandom = Box::leak(Box::new(SeededRandom::new([i as u8; 32])));
    let mut provider = shangmi_rustls::provider_with_random(random);
    provider.cipher_suites = vec![if i & 1 == 0 {
        suites::TLS13_SM4_GCM_SM3
    } else {
        suites::TLS13_SM4_CCM_SM3
    }];
    if i & 2 != 0 {
        provider.kx_groups.reverse();
    }
    Arc::new(provider)
}

edits::wire!(ClientConnection, ServerConnection);

fuzz_target!(
    // Built before the first input: the configurations keep their generator for the whole
    // process, which the leak checker would otherwise charge to that input.
    init: {
        configs();
    },
    |input: Input| {
    // Which of the eight configurations (suite, group, authentication).
    let configs = configs();
    let (client_config, server_config) = &configs[usize::from(input.config) % configs.len()];
    let name = ServerName::try_from("localhost").expect("name");
    let mut client = ClientConnection::new(client_config.clone(), name).expect("client");
    let mut server = ServerConnection::new(server_config.clone()).expect("server");
    edits::check(&mut client, &mut server, &input.edits);
}
);
