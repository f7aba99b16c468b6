//! `shangmi tlcp server` hooks on loopback: `--sni NAME=DIR` pairs beside the default
//! pair, `--client-ca` on the RFC 8998 TLS 1.3 side of the one port (a TLS-SM client with
//! a certificate from the CA is served, one without is refused), and `SSLKEYLOGFILE`
//! (the TLCP client's and server's key-log lines agree).

mod common;

use common::{
    at, finish_server, free_port, make_ca, make_ca_and_localhost_pair, make_leaf, make_tlcp_pair,
    pair_flags, run, scratch, shangmi, spawn_server,
};
use std::path::Path;
use std::process::Child;

fn s(dir: &Path, name: &str) -> String {
    at(dir, name).to_str().expect("UTF-8 path").to_owned()
}

/// Starts `shangmi tlcp server` with `args` (serving `count` connections), standard error
/// into `dir/log`, `SSLKEYLOGFILE` at `dir/server.keys`.
fn start(dir: &Path, port: u16, count: u32, args: &[String]) -> Child {
    let mut cmd = shangmi();
    cmd.args(["tlcp", "server", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--count", &(count + 1).to_string()])
        .args(args)
        .env("SSLKEYLOGFILE", at(dir, "server.keys"));
    spawn_server(&mut cmd, port, Some(dir))
}

/// `shangmi tlcp client` as `name`; its exit, standard output and error.
fn tlcp_client(dir: &Path, port: u16, name: &str, extra: &[&str]) -> (bool, String, String) {
    let mut cmd = shangmi();
    cmd.args(["tlcp", "client", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--server-name", name, "--ca", &s(dir, "ca.crt")])
        .args(extra)
        .env("SSLKEYLOGFILE", at(dir, "client.keys"));
    let out = run(cmd, b"ping");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sni_pairs_beside_the_default_and_key_log_lines_agree() {
    let dir = scratch();
    let dir = dir.path();
    make_ca(dir, "/C=CN/O=shangmi/CN=hooks CA", &[]);
    for name in ["a", "b", "default"] {
        let host = format!("{name}.example");
        make_tlcp_pair(
            dir,
            name,
            &format!("/C=CN/O=shangmi/CN={host}"),
            &["--san", &format!("DNS:{host}")],
        );
    }
    let port = free_port();
    let mut args = pair_flags(dir, "default");
    for name in ["a", "b"] {
        args.push("--sni".into());
        args.push(format!("{name}.example={}", s(dir, name)));
    }
    let srv = start(dir, port, 3, &args);
    for host in ["a.example", "b.example", "default.example"] {
        let (success, out, err) = tlcp_client(dir, port, host, &[]);
        assert!(success, "{host}: {err}");
        assert_eq!(out, "ping");
        let sign = err
            .lines()
            .find(|l| l.starts_with("peer sign certificate: "))
            .unwrap_or_default();
        assert!(sign.contains(&format!("CN={host}")), "{host}: {err}");
    }
    finish_server(srv, dir);

    // One CLIENT_RANDOM line per connection, the same on both sides.
    let lines = |f: &str| {
        let text = std::fs::read_to_string(at(dir, f)).expect("key log written");
        let mut v: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_owned)
            .collect();
        v.sort();
        v
    };
    let client = lines("client.keys");
    assert_eq!(client.len(), 3, "{client:?}");
    for l in &client {
        let f: Vec<&str> = l.split(' ').collect();
        assert_eq!(f.len(), 3, "{l}");
        assert_eq!(
            (f[0], f[1].len(), f[2].len()),
            ("CLIENT_RANDOM", 64, 96),
            "{l}"
        );
    }
    assert_eq!(lines("server.keys"), client);
}

#[test]
fn tls_sm_side_requires_a_client_certificate_from_the_client_ca() {
    let dir = scratch();
    let dir = dir.path();
    make_ca_and_localhost_pair(dir, "/C=CN/O=shangmi/CN=hooks CA");
    // The TLS 1.3 SM leaves: the server's and a client's, from the same CA.
    for (name, profile, san) in [
        ("tls13", "tls-server", "DNS:localhost"),
        ("client", "tls-client", "DNS:client.example"),
    ] {
        make_leaf(dir, name, &format!("/CN={name}"), san, profile);
    }
    let port = free_port();
    let mut args = pair_flags(dir, "server");
    args.extend(
        [
            "--tls13-cert",
            &s(dir, "tls13.crt"),
            "--tls13-key",
            &s(dir, "tls13.key"),
            "--client-ca",
            &s(dir, "ca.crt"),
        ]
        .map(str::to_owned),
    );
    let srv = start(dir, port, 2, &args);
    let tls_client = |with_cert: bool| {
        let mut cmd = shangmi();
        cmd.args(["tls", "client", "--connect", &format!("127.0.0.1:{port}")])
            .args(["--server-name", "localhost", "--ca", &s(dir, "ca.crt")]);
        if with_cert {
            cmd.args([
                "--cert",
                &s(dir, "client.crt"),
                "--key",
                &s(dir, "client.key"),
            ]);
        }
        run(cmd, b"ping")
    };
    let out = tls_client(true);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"ping");
    let out = tls_client(false);
    assert!(!out.status.success(), "served without a client certificate");
    let log = finish_server(srv, dir);
    assert!(log.contains("CN=client"), "{log}");
    assert!(
        log.contains("refused: TLS handshake: peer sent no certificates"),
        "{log}"
    );
}
