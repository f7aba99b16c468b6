//! `shangmi tlcp server` and `shangmi tlcp client` against each other over loopback, on a
//! PKI made by `shangmi cert ca` and `shangmi cert tlcp-pair` in a scratch directory: every
//! suite, server-only and mutual, resumption, and TLS 1.3 on the same port.

mod common;

use common::{
    at, free_port, make_ca, make_leaf, make_tlcp_pair, pair_flags, run, scratch, shangmi,
    spawn_server,
};
use std::path::Path;
use std::process::Child;

/// A scratch directory with the CA, a server pair for `localhost`, a client pair and a TLS
/// 1.3 leaf, made by the CLI.
fn with_pki() -> tempfile::TempDir {
    let tmp = scratch();
    let dir = tmp.path();
    make_ca(dir, "/C=CN/O=shangmi/CN=TLCP CLI test CA", &[]);
    for (side, subject) in [
        ("server", "/C=CN/O=shangmi/CN=localhost"),
        ("client", "/C=CN/O=shangmi/CN=tlcp client"),
    ] {
        make_tlcp_pair(dir, side, subject, &["--san", "DNS:localhost"]);
    }
    make_leaf(dir, "tls13", "/CN=localhost", "DNS:localhost", "tls-server");
    tmp
}

fn server(dir: &Path, port: u16, count: u32, extra: &[String]) -> Child {
    let mut cmd = shangmi();
    cmd.args(["tlcp", "server", "--listen", &format!("127.0.0.1:{port}")])
        .args(pair_flags(dir, "server"))
        // One more connection for the readiness probe below.
        .args(["--count", &(count + 1).to_string()])
        .args(extra);
    spawn_server(&mut cmd, port, None)
}

fn client(
    dir: &Path,
    port: u16,
    suite: &str,
    mutual: bool,
    reconnect: u32,
) -> std::process::Output {
    let mut cmd = shangmi();
    cmd.args(["tlcp", "client", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--server-name", "localhost", "--suite", suite])
        .args(["--reconnect", &reconnect.to_string()])
        .arg("--ca")
        .arg(at(dir, "ca.crt"));
    if mutual {
        cmd.args(pair_flags(dir, "client"));
    }
    run(cmd, b"hello over TLCP\n")
}

#[test]
fn every_suite_with_resumption_and_tls13_on_the_same_port() {
    let dir = with_pki();
    let dir = dir.path();
    let ca = at(dir, "ca.crt").to_str().expect("UTF-8 path").to_owned();
    let t13 = |f: &str| at(dir, f).to_str().expect("UTF-8 path").to_owned();
    let port = free_port();
    let extra = vec![
        "--client-ca".to_owned(),
        ca.clone(),
        "--tls13-cert".to_owned(),
        t13("tls13.crt"),
        "--tls13-key".to_owned(),
        t13("tls13.key"),
    ];
    // Four suites, each a full and a resumed handshake, then one TLS 1.3 client.
    let mut srv = server(dir, port, 9, &extra);
    for (suite, name) in [
        ("ecc-gcm", "ECC_SM4_GCM_SM3 (0xE053)"),
        ("ecc-cbc", "ECC_SM4_CBC_SM3 (0xE013)"),
        ("ecdhe-gcm", "ECDHE_SM4_GCM_SM3 (0xE051)"),
        ("ecdhe-cbc", "ECDHE_SM4_CBC_SM3 (0xE011)"),
    ] {
        let out = client(dir, port, suite, true, 1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{suite}: {stderr}");
        assert_eq!(
            out.stdout, b"hello over TLCP\nhello over TLCP\n",
            "{suite}: echoed twice"
        );
        assert_eq!(stderr.matches(name).count(), 2, "{suite}: {stderr}");
        assert!(stderr.contains("resumed: no"), "{suite}: {stderr}");
        assert!(stderr.contains("resumed: yes"), "{suite}: {stderr}");
        assert!(
            stderr.contains("peer encryption certificate: CN=localhost,O=shangmi,C=CN"),
            "{suite}: {stderr}"
        );
    }
    // --client-ca applies to the TLS 1.3 side too: the client's TLCP sign certificate
    // (digitalSignature, from the same CA) serves as its TLS client certificate.
    let mut cmd = shangmi();
    cmd.args(["tls", "client", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--server-name", "localhost", "--ca", &ca])
        .args(["--cert", &t13("client/sign.crt")])
        .args(["--key", &t13("client/sign.key")]);
    let out = run(cmd, b"hello over TLS 1.3\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "TLS 1.3: {stderr}");
    assert_eq!(out.stdout, b"hello over TLS 1.3\n");
    assert!(stderr.contains("TLS_SM4_GCM_SM3"), "{stderr}");
    let _ = srv.kill();
    let _ = srv.wait();
}

#[test]
fn server_only_and_refusals() {
    let dir = with_pki();
    let dir = dir.path();
    let port = free_port();
    // No --client-ca: ECC suites without client certificates; ECDHE is not offered.
    let mut srv = server(dir, port, 3, &[]);
    let out = client(dir, port, "ecc-gcm", false, 0);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"hello over TLCP\n");
    let out = client(dir, port, "ecdhe-gcm", true, 0);
    assert!(
        !out.status.success(),
        "ECDHE without client roots on the server"
    );
    // A name the sign certificate does not carry.
    let mut cmd = shangmi();
    cmd.args(["tlcp", "client", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--server-name", "elsewhere.example"])
        .arg("--ca")
        .arg(at(dir, "ca.crt"));
    let out = run(cmd, b"x");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "wrong host accepted");
    assert!(stderr.contains("handshake"), "{stderr}");
    let _ = srv.kill();
    let _ = srv.wait();
    // Half of a certificate pair is a usage error.
    let mut cmd = shangmi();
    cmd.args([
        "tlcp",
        "client",
        "--connect",
        "127.0.0.1:9",
        "--server-name",
        "localhost",
    ])
    .arg("--ca")
    .arg(at(dir, "ca.crt"))
    .arg("--sign-cert")
    .arg(at(dir, "client/sign.crt"));
    let out = run(cmd, b"");
    assert_eq!(out.status.code(), Some(2), "usage error");
}
