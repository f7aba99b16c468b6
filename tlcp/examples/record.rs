//! Records a TLCP conversation between our side (seeded generator, fixed clock, the test
//! PKI) and a live peer, for `tests/replay.rs`:
//!
//! ```text
//! cargo run -p shangmi-tlcp --example record -- pki DIR
//! cargo run -p shangmi-tlcp --example record -- client ADDR OUT SUITE server|mutual [NOTE...]
//! cargo run -p shangmi-tlcp --example record -- server ADDR OUT SUITE server|mutual [NOTE...]
//! ```
//!
//! `pki` writes the test PKI as PEM files for the peer (`ca.crt`, `server_sign.crt`,
//! `server_sign.key`, `server_enc.crt`, `server_enc.key`, and the same for `client_`), and
//! in the forms GmSSL's `tlcp_server`/`tlcp_client` take: `*_chain.pem` (sign then
//! encryption certificate), `*_keys.pem` (both keys, encrypted under `1234` with GmSSL's
//! PBKDF2 PRF OID), and for its client's single chain in the ECC suites
//! `client_sign_chain.pem` (sign certificate, then the CA) with `client_sign_gmssl.key`.
//! SUITE is ecc-gcm, ecc-cbc, ecdhe-gcm or ecdhe-cbc. As client it connects, sends
//! `GET / HTTP/1.0` and reads until the server closes (run the peer's server with `-www`);
//! as server it accepts one connection and echoes until the client closes. NOTE words go
//! into the file as comments (say which peer, version and command); a first NOTE word
//! `--gmssl` makes our client speak GmSSL 3.3's dialect (no SNI, `gmssl_compat`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/recorded/mod.rs"]
mod recorded;

use recorded::{Live, Role, Setup, Transcript};
use std::path::Path;

fn write_pki(dir: &Path) -> Result<(), String> {
    use shangmi_sm2::keys::{AlgorithmForm, secret_key_to_pkcs8_pem};
    let pki = common::recorded_pki();
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let cert = |name: &str, der: &[u8]| {
        let pem = der::pem::encode_string("CERTIFICATE", der::pem::LineEnding::LF, der)
            .map_err(|e| e.to_string())?;
        std::fs::write(dir.join(name), pem).map_err(|e| e.to_string())
    };
    let key = |name: &str, k: &shangmi_sm2::SecretKey| {
        let pem = secret_key_to_pkcs8_pem(k, AlgorithmForm::EcPublicKey, der::pem::LineEnding::LF)
            .map_err(|e| e.to_string())?;
        std::fs::write(dir.join(name), pem.as_bytes()).map_err(|e| e.to_string())
    };
    let gmssl_key = |k: &shangmi_sm2::SecretKey| {
        use shangmi_sm2::keys::{EncryptionScheme, secret_key_to_encrypted_pkcs8_pem};
        let scheme = EncryptionScheme::Pbkdf2Sm3Sm4CbcGmssl { iterations: 65_536 };
        secret_key_to_encrypted_pkcs8_pem(
            k,
            b"1234",
            scheme,
            &mut getrandom::SysRng,
            der::pem::LineEnding::LF,
        )
        .map(|pem| pem.as_str().to_owned())
        .map_err(|e| e.to_string())
    };
    let pem = |der: &[u8]| {
        der::pem::encode_string("CERTIFICATE", der::pem::LineEnding::LF, der)
            .map_err(|e| e.to_string())
    };
    let write =
        |name: &str, text: String| std::fs::write(dir.join(name), text).map_err(|e| e.to_string());
    cert("ca.crt", &pki.ca)?;
    for (side, pair) in [("server", &pki.server), ("client", &pki.client)] {
        cert(&format!("{side}_sign.crt"), &pair.sign)?;
        key(&format!("{side}_sign.key"), &pair.sign_key)?;
        cert(&format!("{side}_enc.crt"), &pair.enc)?;
        key(&format!("{side}_enc.key"), &pair.enc_key)?;
        write(
            &format!("{side}_chain.pem"),
            pem(&pair.sign)? + &pem(&pair.enc)?,
        )?;
        write(
            &format!("{side}_keys.pem"),
            gmssl_key(&pair.sign_key)? + &gmssl_key(&pair.enc_key)?,
        )?;
    }
    write(
        "client_sign_chain.pem",
        pem(&pki.client.sign)? + &pem(&pki.ca)?,
    )?;
    write("client_sign_gmssl.key", gmssl_key(&pki.client.sign_key)?)?;
    Ok(())
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [cmd, dir] = &args[..]
        && cmd == "pki"
    {
        return write_pki(Path::new(dir));
    }
    let [role, addr, out, suite, auth, note @ ..] = &args[..] else {
        return Err(
            "usage: record pki DIR | record client|server ADDR OUT SUITE server|mutual [NOTE...]"
                .into(),
        );
    };
    let setup = Setup {
        role: Role::from_name(role)?,
        suite: recorded::suite_from_name(suite).ok_or_else(|| format!("suite {suite:?}"))?,
        mutual: auth == "mutual",
        gmssl: note.first().is_some_and(|n| n == "--gmssl"),
    };
    let note = if setup.gmssl { &note[1..] } else { note };
    let mut live = Live::open(setup.role, addr)?;
    let (finished, plain) = recorded::run(&setup, &mut live)?;
    if !finished {
        return Err("the handshake did not finish".into());
    }
    let mut comments = vec![note.join(" ")];
    comments.retain(|c| !c.is_empty());
    let t = Transcript {
        comments,
        setup,
        chunks: live.chunks,
        plain,
    };
    std::fs::write(out, t.to_text()).map_err(|e| e.to_string())?;
    eprintln!(
        "recorded {} chunks, {} bytes of application data",
        t.chunks.len(),
        t.plain.len()
    );
    Ok(())
}
