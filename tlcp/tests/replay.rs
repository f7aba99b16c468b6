//! Interoperability as a regression test without the peers: TLCP conversations recorded
//! live with Tongsuo 8.5 (`s_server`/`s_client -enable_ntls -ntls`; four suites, server-only
//! and mutual, both roles) and GmSSL 3.3 (`tlcp_server`/`tlcp_client`; ECC server-only,
//! ECC mutual with GmSSL's single client chain, and ECDHE mutual, both roles, our client in
//! GmSSL's dialect) by `examples/record.rs`, our side
//! on a seeded generator and a fixed clock,
//! replayed against a fresh connection of ours, which must write the same bytes, finish the
//! handshake and decrypt the same application data. The files name the peer and command.

mod common;
mod recorded;

use recorded::{Replay, Transcript};

fn replay_file(name: &str, text: &str) {
    let t = Transcript::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        t.to_text() == text,
        "{name}: the text form reads and writes back"
    );
    let mut wire = Replay::new(&t);
    let (finished, plain) =
        recorded::run(&t.setup, &mut wire).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(finished, "{name}: handshake finished");
    assert!(plain == t.plain, "{name}: same application data");
    assert!(!plain.is_empty(), "{name}: some application data");
}

/// A recording with one byte of the peer's Finished record changed must fail: the replay
/// really checks what the peer sent.
#[test]
fn tampered_recording_fails() {
    let text = include_str!("data/tongsuo-server_ecc-gcm_server.txt");
    let mut t = Transcript::parse(text).expect("parse");
    let last_peer = t
        .chunks
        .iter_mut()
        .filter_map(|c| match c {
            recorded::Chunk::Peer(b) => Some(b),
            recorded::Chunk::Ours(_) => None,
        })
        .nth(1)
        .expect("a second peer chunk");
    let at = last_peer.len() - 1;
    last_peer[at] ^= 1;
    let mut wire = Replay::new(&t);
    let outcome = recorded::run(&t.setup, &mut wire);
    assert!(
        !matches!(outcome, Ok((true, ref p)) if *p == t.plain),
        "a changed byte went unnoticed"
    );
}

recorded::recordings! {
    gmssl_client_ecc_cbc_server => "gmssl-client_ecc-cbc_server.txt",
    gmssl_client_ecc_gcm_server => "gmssl-client_ecc-gcm_server.txt",
    gmssl_client_ecc_cbc_mutual => "gmssl-client_ecc-cbc_mutual.txt",
    gmssl_client_ecc_gcm_mutual => "gmssl-client_ecc-gcm_mutual.txt",
    gmssl_client_ecdhe_cbc_mutual => "gmssl-client_ecdhe-cbc_mutual.txt",
    gmssl_client_ecdhe_gcm_mutual => "gmssl-client_ecdhe-gcm_mutual.txt",
    gmssl_server_ecc_cbc_server => "gmssl-server_ecc-cbc_server.txt",
    gmssl_server_ecc_gcm_server => "gmssl-server_ecc-gcm_server.txt",
    gmssl_server_ecc_cbc_mutual => "gmssl-server_ecc-cbc_mutual.txt",
    gmssl_server_ecc_gcm_mutual => "gmssl-server_ecc-gcm_mutual.txt",
    gmssl_server_ecdhe_cbc_mutual => "gmssl-server_ecdhe-cbc_mutual.txt",
    gmssl_server_ecdhe_gcm_mutual => "gmssl-server_ecdhe-gcm_mutual.txt",
    tongsuo_client_ecc_cbc_mutual => "tongsuo-client_ecc-cbc_mutual.txt",
    tongsuo_client_ecc_cbc_server => "tongsuo-client_ecc-cbc_server.txt",
    tongsuo_client_ecc_gcm_mutual => "tongsuo-client_ecc-gcm_mutual.txt",
    tongsuo_client_ecc_gcm_server => "tongsuo-client_ecc-gcm_server.txt",
    tongsuo_client_ecdhe_cbc_mutual => "tongsuo-client_ecdhe-cbc_mutual.txt",
    tongsuo_client_ecdhe_gcm_mutual => "tongsuo-client_ecdhe-gcm_mutual.txt",
    tongsuo_server_ecc_cbc_mutual => "tongsuo-server_ecc-cbc_mutual.txt",
    tongsuo_server_ecc_cbc_server => "tongsuo-server_ecc-cbc_server.txt",
    tongsuo_server_ecc_gcm_mutual => "tongsuo-server_ecc-gcm_mutual.txt",
    tongsuo_server_ecc_gcm_server => "tongsuo-server_ecc-gcm_server.txt",
    tongsuo_server_ecdhe_cbc_mutual => "tongsuo-server_ecdhe-cbc_mutual.txt",
    tongsuo_server_ecdhe_gcm_mutual => "tongsuo-server_ecdhe-gcm_mutual.txt",
}
