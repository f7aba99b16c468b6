//! Records a conversation between our side (seeded generator, fixed clock, the test PKI) and
//! a live peer, for `tests/replay.rs`:
//!
//! ```text
//! cargo run -p shangmi-rustls --example record -- client 127.0.0.1:4433 OUT gcm|ccm sm2|sm2-mlkem768 server|mutual [NOTE...]
//! cargo run -p shangmi-rustls --example record -- server 127.0.0.1:4433 OUT gcm|ccm sm2|sm2-mlkem768 server|mutual [NOTE...]
//! ```
//!
//! As client it connects, sends `GET / HTTP/1.0` and reads until the server closes; as server
//! it accepts one connection and echoes until the client closes. The peer must use the test
//! PKI (`examples/test_pki.rs` writes it). NOTE words go into the file as comments (say which
//! peer and command).

#[path = "../tests/common/mod.rs"]
mod common;

use common::replay::{self, Live, Role, Setup, Transcript};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [role, addr, out, suite, group, auth, note @ ..] = &args[..] else {
        return Err(
            "usage: record client|server ADDR OUT gcm|ccm sm2|sm2-mlkem768 server|mutual [NOTE...]"
                .into(),
        );
    };
    let setup = Setup {
        role: Role::from_name(role)?,
        gcm: suite == "gcm",
        hybrid: group == "sm2-mlkem768",
        mutual: auth == "mutual",
    };
    let pki = common::pki::Pki::recorded();
    let mut live = Live::open(setup.role, addr)?;
    let mut conn = replay::connection(&pki, &setup);
    let result = replay::drive(&mut conn, setup.role, &mut live);
    let plain = result.clone().unwrap_or_default();
    eprintln!("result: {:?}", result.as_ref().map(|p| p.len()));
    eprintln!(
        "suite: {:?}",
        conn.negotiated_cipher_suite().map(|s| s.suite())
    );
    eprintln!(
        "group: {:?}",
        conn.negotiated_key_exchange_group().map(|g| g.name())
    );
    eprintln!("plaintext: {}", String::from_utf8_lossy(&plain));
    result?;
    let transcript = Transcript {
        comments: vec![note.join(" ")],
        setup,
        chunks: live.chunks,
        plain,
    };
    std::fs::write(out, transcript.to_text()).map_err(|e| e.to_string())?;
    Ok(())
}
