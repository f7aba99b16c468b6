//! Differential checks against Tongsuo 8.5 (`s_client -enable_ntls -ntls`), from a
//! conversation recorded live by `examples/record.rs` (our server on the test PKI, a seeded
//! generator and a fixed clock) with Tongsuo's `-keylogfile` line kept in the file: our
//! server's key log, replaying the same bytes, writes Tongsuo's line exactly.

mod common;
mod recorded;

use recorded::{Replay, Role, Transcript};
use shangmi_tlcp::{KeyLog, ServerConnection};
use std::sync::{Arc, Mutex};

/// Key-log lines in the NSS format, as `KeyLogFile` writes them.
#[derive(Debug, Default)]
struct Lines(Mutex<Vec<String>>);

impl KeyLog for Lines {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        let line = format!(
            "{label} {} {}",
            hex::encode(client_random),
            hex::encode(secret)
        );
        self.0.lock().expect("lock").push(line);
    }
}

#[test]
fn diff_tongsuo_key_log() {
    let t = Transcript::parse(include_str!("data/tongsuo-client_ecc-cbc_keylog.txt"))
        .expect("recording");
    let theirs = t
        .comments
        .iter()
        .find_map(|c| c.strip_prefix("its key log: "))
        .expect("Tongsuo's key-log line");
    assert_eq!(t.setup.role, Role::Server);
    let lines = Arc::new(Lines::default());
    let mut config = recorded::server_config(&t.setup);
    config.key_log = lines.clone();
    let mut conn = ServerConnection::new(Arc::new(config)).expect("server");
    let plain = recorded::drive(&mut conn, Role::Server, &mut Replay::new(&t)).expect("replay");
    assert!(!conn.is_handshaking());
    assert_eq!(plain, t.plain);
    assert_eq!(*lines.0.lock().expect("lock"), [theirs]);
}
