//! `shangmi tls server` and `shangmi tls client` against each other over loopback, with the
//! rustls crate's test PKI (`tests/data/tls/`, written by
//! `cargo run -p shangmi-rustls --example test_pki -- DIR`; public test keys).

mod common;

use common::{free_port, run, shangmi, spawn_server};
use std::path::PathBuf;
use std::process::Child;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tls")
        .join(name)
}

fn server(port: u16, extra: &[&str]) -> Child {
    let mut cmd = shangmi();
    cmd.args(["tls", "server", "--listen", &format!("127.0.0.1:{port}")])
        .arg("--cert")
        .arg(data("server_chain.pem"))
        .arg("--key")
        .arg(data("server.key"))
        // One connection for the readiness probe below, one for the client.
        .args(["--count", "2"])
        .args(extra);
    spawn_server(&mut cmd, port, None)
}

#[test]
fn client_and_server_echo_on_every_suite_and_group() {
    for (suite, group, mutual) in [
        ("gcm", "sm2", false),
        ("ccm", "sm2", true),
        ("gcm", "sm2-mlkem768", true),
    ] {
        let port = free_port();
        let ca = data("ca.pem");
        let mut extra = vec!["--suite", suite, "--group", group];
        if mutual {
            extra.extend(["--client-ca", ca.to_str().expect("UTF-8 path")]);
        }
        let mut srv = server(port, &extra);
        let mut cmd = shangmi();
        cmd.args(["tls", "client", "--connect", &format!("127.0.0.1:{port}")])
            .args([
                "--server-name",
                "localhost",
                "--suite",
                suite,
                "--group",
                group,
            ])
            .arg("--ca")
            .arg(data("ca.pem"));
        if mutual {
            cmd.arg("--cert")
                .arg(data("client.pem"))
                .arg("--key")
                .arg(data("client.key"));
        }
        let out = run(cmd, b"hello over SM TLS\n");
        let _ = srv.kill();
        let _ = srv.wait();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{suite}/{group}: {stderr}");
        assert_eq!(
            out.stdout, b"hello over SM TLS\n",
            "{suite}/{group}: echoed"
        );
        let want_suite = if suite == "gcm" {
            "TLS_SM4_GCM_SM3"
        } else {
            "TLS_SM4_CCM_SM3"
        };
        assert!(stderr.contains(want_suite), "{stderr}");
        let want_group = if group == "sm2" {
            "curveSM2 (0x0029)"
        } else {
            "curveSM2MLKEM768"
        };
        assert!(stderr.contains(want_group), "{stderr}");
        assert!(
            stderr.contains("peer signature: sm2sig_sm3 (0x0708)"),
            "{stderr}"
        );
    }
}

#[test]
fn client_refuses_a_wrong_host_name() {
    let port = free_port();
    let mut srv = server(port, &[]);
    let mut cmd = shangmi();
    cmd.args(["tls", "client", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--server-name", "example.com", "--ca"])
        .arg(data("ca.pem"));
    let out = run(cmd, b"x");
    let _ = srv.kill();
    let _ = srv.wait();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("handshake"), "{stderr}");
}
