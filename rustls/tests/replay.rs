//! Interoperability as a regression test without the peers: conversations recorded live
//! with Tongsuo and GmSSL (`examples/record.rs`, our side on a seeded generator and a fixed
//! clock) are replayed against a fresh connection of ours, which must write the same bytes,
//! finish the handshake and decrypt the same application data.

mod common;

use common::replay::{self, Transcript};

fn replay_file(name: &str, text: &str) {
    let t = Transcript::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        t.to_text() == text,
        "{name}: the text form reads and writes back"
    );
    let pki = common::pki::Pki::recorded();
    let mut conn = replay::connection(&pki, &t.setup);
    let mut wire = replay::Replay::new(&t);
    let plain =
        replay::drive(&mut conn, t.setup.role, &mut wire).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(!conn.is_handshaking(), "{name}: handshake finished");
    assert!(plain == t.plain, "{name}: same application data");
    assert!(!plain.is_empty(), "{name}: some application data");
}

common::replay::recordings! {
    tongsuo_client_ccm_sm2_mlkem768_mutual => "tongsuo-client_ccm_sm2-mlkem768_mutual.txt",
    tongsuo_client_ccm_sm2_mlkem768_server => "tongsuo-client_ccm_sm2-mlkem768_server.txt",
    tongsuo_client_ccm_sm2_mutual => "tongsuo-client_ccm_sm2_mutual.txt",
    tongsuo_client_ccm_sm2_server => "tongsuo-client_ccm_sm2_server.txt",
    tongsuo_client_gcm_sm2_mlkem768_mutual => "tongsuo-client_gcm_sm2-mlkem768_mutual.txt",
    tongsuo_client_gcm_sm2_mlkem768_server => "tongsuo-client_gcm_sm2-mlkem768_server.txt",
    tongsuo_client_gcm_sm2_mutual => "tongsuo-client_gcm_sm2_mutual.txt",
    tongsuo_client_gcm_sm2_server => "tongsuo-client_gcm_sm2_server.txt",
    tongsuo_client_gcm_sm2_server_hrr => "tongsuo-client_gcm_sm2_server_hrr.txt",
    tongsuo_client_gcm_sm2_server_keyupdate => "tongsuo-client_gcm_sm2_server_keyupdate.txt",
    tongsuo_server_ccm_sm2_mlkem768_mutual => "tongsuo-server_ccm_sm2-mlkem768_mutual.txt",
    tongsuo_server_ccm_sm2_mlkem768_server => "tongsuo-server_ccm_sm2-mlkem768_server.txt",
    tongsuo_server_ccm_sm2_mutual => "tongsuo-server_ccm_sm2_mutual.txt",
    tongsuo_server_ccm_sm2_server => "tongsuo-server_ccm_sm2_server.txt",
    tongsuo_server_gcm_sm2_mlkem768_mutual => "tongsuo-server_gcm_sm2-mlkem768_mutual.txt",
    tongsuo_server_gcm_sm2_mlkem768_server => "tongsuo-server_gcm_sm2-mlkem768_server.txt",
    tongsuo_server_gcm_sm2_mutual => "tongsuo-server_gcm_sm2_mutual.txt",
    tongsuo_server_gcm_sm2_server => "tongsuo-server_gcm_sm2_server.txt",
}
