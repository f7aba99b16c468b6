//! Writes the test PKI of `tests/common/pki.rs` as PEM files into a directory, for running
//! `shangmi tls` against other TLS stacks by hand:
//!
//! ```text
//! cargo run -p shangmi-rustls --example test_pki -- DIR
//! ```
//!
//! DIR receives `ca.pem`, `server.pem` (+ `server.key`, PKCS#8), `server_chain.pem`
//! (leaf then CA), `client.pem` (+ `client.key`), `client_chain.pem`, and `expired.pem`.
//! These keys are public test data: never use them for anything else.

#[path = "../tests/common/pki.rs"]
#[allow(dead_code)]
mod pki;

use shangmi_sm2::elliptic_curve::pkcs8::EncodePrivateKey;
use shangmi_sm2::elliptic_curve::pkcs8::der::pem::LineEnding;
use std::path::PathBuf;

fn pem(label: &str, der: &[u8]) -> String {
    der::pem::encode_string(label, LineEnding::LF, der).expect("PEM")
}

fn cert_pem(der: &[u8]) -> String {
    pem("CERTIFICATE", der)
}

fn main() -> std::io::Result<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: test_pki DIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(&dir)?;
    let pki = pki::Pki::recorded();
    let key_pem = |k: &shangmi_sm2::SecretKey| {
        pem("PRIVATE KEY", k.to_pkcs8_der().expect("PKCS#8").as_bytes())
    };
    let files = [
        ("ca.pem", cert_pem(&pki.ca)),
        ("server.pem", cert_pem(&pki.server)),
        ("server.key", key_pem(&pki.server_key)),
        (
            "server_chain.pem",
            cert_pem(&pki.server) + &cert_pem(&pki.ca),
        ),
        ("client.pem", cert_pem(&pki.client)),
        ("client.key", key_pem(&pki.client_key)),
        (
            "client_chain.pem",
            cert_pem(&pki.client) + &cert_pem(&pki.ca),
        ),
        ("expired.pem", cert_pem(&pki.server_expired)),
    ];
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents)?;
    }
    println!("wrote the test PKI to {}", dir.display());
    Ok(())
}
