//! Module mode covers every random value a command uses, and servers check the module per
//! connection.
//!
//! How a test tells where randomness comes from: `shangmi-selftest`'s `fault-injection`
//! feature (on in this crate's test builds only) fails the module's DRBG on its next
//! request when `SHANGMI_SELFTEST_FAIL` names `drbg-health` — with `drbg-health:PATH`, only
//! while the file PATH exists. A command that draws from the module's DRBG is then refused
//! (exit code 3); one that draws elsewhere (the operating system) would not notice; and
//! outside module mode the same variable changes nothing. So each pair below (refused in
//! module mode, fine outside it) shows that the command's draws — the TLS 1.3 and TLCP
//! handshakes', CMS content keys, PKCS#12 salts, certificate serials, enveloped keys — go
//! through the module, and the servers show that a module put in its error state mid-run
//! (a DRBG failure during a handshake: an error, never a panic) refuses the next
//! connection, saying why.

mod common;

use common::{
    at, cert, free_port, issue, make_ca, make_tlcp_pair, ok, pair_flags, run, scratch, shangmi,
    spawn_server, under_ca,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// What a module-mode refusal says.
const REFUSED: &str = "module mode: service refused";

/// `cmd` with `SHANGMI_SELFTEST_FAIL=fail`, in module mode or not (and `P12_PASS` set, for
/// `pkcs12 export --pass-env`).
fn with_fault(mut cmd: Command, fail: &str, module: bool) -> Command {
    cmd.env("SHANGMI_SELFTEST_FAIL", fail)
        .env("SHANGMI_MODULE", if module { "1" } else { "0" })
        .env("P12_PASS", "module pass");
    cmd
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Runs the command `make` makes with the module's DRBG failing: refused with exit code 3
/// in module mode, `out` not written; outside module mode it works and writes `out`.
fn draws_from_the_module(make: impl Fn() -> Command, out: &Path) {
    let args: Vec<_> = make().get_args().map(ToOwned::to_owned).collect();
    let refused = run(with_fault(make(), "drbg-health", true), b"");
    let all = text(&refused);
    assert_eq!(refused.status.code(), Some(3), "{args:?}: {all}");
    assert!(all.contains(REFUSED), "{args:?}: {all}");
    assert!(!all.contains("panicked"), "{args:?}: {all}");
    assert!(!out.exists(), "{args:?}: nothing written");
    ok(with_fault(make(), "drbg-health", false));
    assert!(out.exists(), "{args:?}");
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// CMS content keys and IVs, PKCS#12 salts and IVs, certificate serials and enveloped
/// keys come from the module's DRBG; signing a request draws nothing (SM2 nonces are
/// derived from the key and the message), so it works even with the DRBG failing.
#[test]
fn pki_randomness_comes_from_the_module() {
    let dir = scratch();
    let d = dir.path();
    // A CA made in module mode (its key pairwise-tested, its serial from the module).
    let (ca, ca_key, key, csr) = (
        at(d, "ca.crt"),
        at(d, "ca.key"),
        at(d, "k.pem"),
        at(d, "r.csr"),
    );
    let mut cmd = shangmi();
    cmd.args(["--module", "cert", "ca", "--subject", "/CN=module CA"])
        .args(["--key-out", s(&ca_key), "--out", s(&ca)]);
    ok(cmd);
    let mut cmd = shangmi();
    cmd.args(["sm2", "keygen", "--out", s(&key)]);
    ok(cmd);
    let msg = at(d, "msg.txt");
    std::fs::write(&msg, b"module mode\n").expect("write");

    let req = cert(&[
        "req",
        "--key",
        s(&key),
        "--subject",
        "/CN=r",
        "--out",
        s(&csr),
    ]);
    ok(with_fault(req, "drbg-health", true));

    let issued = at(d, "r.crt");
    draws_from_the_module(|| issue(d, &csr, "tls-client", &issued), &issued);
    let sealed = at(d, "msg.cms");
    draws_from_the_module(
        || {
            cert(&[
                "cms",
                "encrypt",
                "--recipient",
                s(&ca),
                "--in",
                s(&msg),
                "--out",
                s(&sealed),
            ])
        },
        &sealed,
    );
    let p12 = at(d, "ca.p12");
    draws_from_the_module(
        || {
            let mut cmd = cert(&["pkcs12", "export", "--cert", s(&ca), "--key", s(&ca_key)]);
            cmd.args(["--pass-env", "P12_PASS", "--out", s(&p12)]);
            cmd
        },
        &p12,
    );
    let pair = at(d, "pair");
    draws_from_the_module(
        || {
            let args = ["--subject", "/CN=pair", "--envelope", "--out-dir", s(&pair)];
            under_ca(d, "tlcp-pair", &args)
        },
        &pair.join("enc.env"),
    );
}

fn tls_data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tls")
        .join(name)
}

/// A server in module mode whose DRBG fails once `trigger` exists; `serve` is its command
/// line without the fault. Three clients (after the readiness probe): the first is served,
/// the trigger is made, the second's handshake fails on the DRBG (an error, no panic: the
/// module enters its error state), the third is refused before any handshake, and the log
/// says why. Returns the log.
fn fails_mid_run(serve: Command, port: u16, client: &dyn Fn() -> Output, dir: &Path) -> String {
    let trigger = at(dir, "fail-now");
    let mut serve = with_fault(serve, &format!("drbg-health:{}", s(&trigger)), true);
    let server = spawn_server(&mut serve, port, Some(dir));
    let first = client();
    std::fs::write(&trigger, b"").expect("trigger");
    let second = client();
    let third = client();
    let log = common::finish_server(server, dir);
    assert!(first.status.success(), "{}\n{log}", text(&first));
    assert_eq!(first.stdout, b"ping\n", "{log}");
    assert!(!second.status.success(), "{log}");
    assert!(!third.status.success(), "{log}");
    assert!(!log.contains("panicked"), "{log}");
    let refusals: Vec<&str> = log.lines().filter(|l| l.contains(REFUSED)).collect();
    assert_eq!(refusals.len(), 1, "{log}");
    assert!(refusals[0].contains("error state"), "{log}");
    log
}

/// One protocol's commands for [`handshakes_draw_from_the_module`], each given the port.
struct Handshakes<'a> {
    /// The module-mode server of [`fails_mid_run`] (its command line without the fault).
    failing_server: &'a dyn Fn(u16) -> Command,
    /// Its clients (run outside module mode).
    failing_client: &'a dyn Fn(u16) -> Command,
    /// The server's log line for the handshake that met the failure.
    met_failure: fn(&str) -> bool,
    /// A server outside module mode, for the clients' side.
    server: &'a dyn Fn(u16) -> Command,
    /// The client whose module is tested against it.
    client: &'a dyn Fn(u16) -> Command,
}

/// The server's side ([`fails_mid_run`], and the log names the failed handshake), then the
/// client's: its DRBG failing refuses it in module mode, and changes nothing outside it; in
/// module mode without the fault it works (against a server outside module mode).
fn handshakes_draw_from_the_module(h: &Handshakes<'_>, dir: &Path) {
    let port = free_port();
    let client = || run(with_fault((h.failing_client)(port), "", false), b"ping\n");
    let log = fails_mid_run((h.failing_server)(port), port, &client, dir);
    assert!(
        log.lines().any(h.met_failure),
        "the handshake that met the failure: {log}"
    );

    let port = free_port();
    let mut server = spawn_server(&mut (h.server)(port), port, None);
    let client =
        |module: bool, fail: &str| run(with_fault((h.client)(port), fail, module), b"ping\n");
    let results = [
        client(true, "drbg-health"),
        client(true, ""),
        client(false, "drbg-health"),
    ];
    let _ = server.kill();
    let _ = server.wait();
    client_side(&results);
}

/// `shangmi PROTOCOL server|client --listen|--connect 127.0.0.1:PORT`.
fn endpoint(protocol: &str, role: &str, port: u16) -> Command {
    let flag = if role == "server" {
        "--listen"
    } else {
        "--connect"
    };
    let mut cmd = shangmi();
    cmd.args([protocol, role, flag, &format!("127.0.0.1:{port}")]);
    cmd
}

/// A TLS 1.3 server with the test chain, serving `count` connections (the readiness
/// probe's among them) with the key exchange `group`.
fn tls_server(port: u16, group: &str) -> Command {
    let mut serve = endpoint("tls", "server", port);
    serve
        .arg("--cert")
        .arg(tls_data("server_chain.pem"))
        .arg("--key")
        .arg(tls_data("server.key"))
        // the readiness probe, then three clients
        .args(["--count", "4", "--group", group]);
    serve
}

/// A TLS 1.3 client of [`tls_server`] offering `group`.
fn tls_client(port: u16, group: &str) -> Command {
    let mut cmd = endpoint("tls", "client", port);
    cmd.args(["--server-name", "localhost", "--group", group, "--ca"])
        .arg(tls_data("ca.pem"));
    cmd
}

/// TLS 1.3: the server's and the client's handshake randomness come from the module.
#[test]
fn tls13_handshakes_draw_from_the_module() {
    let dir = scratch();
    // the hybrid group, taken from the module's provider
    let hybrid = |port| tls_server(port, "sm2-mlkem768");
    let hybrid_client = |port| tls_client(port, "sm2-mlkem768");
    handshakes_draw_from_the_module(
        &Handshakes {
            failing_server: &hybrid,
            failing_client: &hybrid_client,
            met_failure: |l| l.starts_with("connection failed: handshake") && l.contains("random"),
            server: &|port| tls_server(port, "sm2"),
            client: &|port| tls_client(port, "sm2"),
        },
        dir.path(),
    );
}

/// What [`tls13_handshakes_draw_from_the_module`] and its TLCP twin ask of the clients:
/// refused with the module's DRBG failing, served in module mode without the fault and
/// outside module mode with it.
fn client_side([refused, module, outside]: &[Output; 3]) {
    assert_eq!(refused.status.code(), Some(3), "{}", text(refused));
    assert!(text(refused).contains(REFUSED), "{}", text(refused));
    assert!(!text(refused).contains("panicked"), "{}", text(refused));
    for served in [module, outside] {
        assert!(served.status.success(), "{}", text(served));
        assert_eq!(served.stdout, b"ping\n");
    }
}

/// TLCP: the same for the one-port server (ECDHE with client certificates, so the
/// ephemeral keys are drawn too) and the client.
#[test]
fn tlcp_handshakes_draw_from_the_module() {
    let dir = scratch();
    let d = dir.path();
    make_ca(d, "/CN=module TLCP CA", &[]);
    for side in ["server", "client"] {
        make_tlcp_pair(d, side, "/CN=localhost", &["--san", "DNS:localhost"]);
    }
    let pair = |side: &str| pair_flags(d, side);
    let server = |port| {
        let mut serve = endpoint("tlcp", "server", port);
        serve.args(pair("server")).args(["--count", "4"]);
        serve
    };
    let client = |port, suite| {
        let mut cmd = endpoint("tlcp", "client", port);
        cmd.args(["--server-name", "localhost", "--suite", suite])
            .args(["--ca", s(&at(d, "ca.crt"))]);
        cmd
    };
    let failing_server = |port| {
        let mut serve = server(port);
        serve.args(["--client-ca", s(&at(d, "ca.crt"))]);
        serve
    };
    let failing_client = |port| {
        let mut cmd = client(port, "ecdhe-gcm");
        cmd.args(pair("client"));
        cmd
    };
    handshakes_draw_from_the_module(
        &Handshakes {
            failing_server: &failing_server,
            failing_client: &failing_client,
            met_failure: |l| l.contains(" refused: TLCP handshake") && l.contains("random"),
            server: &server,
            // ECC with CBC: the client's premaster secret and record IVs from the module too.
            client: &|port| client(port, "ecc-cbc"),
        },
        d,
    );
}

/// Ordinary TLS (on ring, whose key shares the module cannot supply) is not offered in
/// module mode.
#[test]
fn ordinary_tls_is_refused_in_module_mode() {
    let dir = scratch();
    let d = dir.path();
    make_ca(d, "/CN=module TLCP CA", &[]);
    make_tlcp_pair(d, "server", "/CN=localhost", &["--san", "DNS:localhost"]);
    let ordinary = |name: &str| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/ordinary")
            .join(name)
    };
    let mut cmd = shangmi();
    cmd.args(["--module", "tlcp", "server", "--listen", "127.0.0.1:0"])
        .args(pair_flags(d, "server"));
    cmd.arg("--tls-cert")
        .arg(ordinary("server.crt"))
        .arg("--tls-key")
        .arg(ordinary("server.key"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    // Bounded: a server that started instead would be killed after 10 s (and fail here).
    let mut child = cmd.spawn().expect("starts");
    let mut status = None;
    for _ in 0..200 {
        status = child.try_wait().expect("wait");
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if status.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().expect("output");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(status.and_then(|s| s.code()), Some(2), "{err}");
    assert!(err.contains("not available in module mode"), "{err}");
}
