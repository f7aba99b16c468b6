//! `shangmi sdf info|export` and `sdf:` key URIs on `shangmi tlcp server`, against the test
//! device (`testdevice/sdf`, a cdylib cargo builds as a dev-dependency of this crate).

mod common;

use common::{at, exits_with, make_ca, make_tlcp_pair, ok, run, scratch, shangmi, with_pin};

/// The test device's library.
fn library() -> String {
    common::test_device("shangmi_testdevice_sdf")
}

#[test]
fn info_and_export() {
    let lib = library();
    let mut cmd = shangmi();
    cmd.args(["sdf", "info", &lib]);
    let out = String::from_utf8(ok(cmd)).expect("UTF-8");
    assert!(out.contains("device: test device"), "{out}");
    assert!(
        out.contains(
            "functions: GM/T 0018-2023 (20 known SDF functions exported; 2023 additions: \
             SDF_HMACInit, SDF_HMACUpdate, SDF_HMACFinal)"
        ),
        "{out}"
    );
    let export = |key: &str| {
        let mut cmd = shangmi();
        cmd.args(["sdf", "export", &format!("sdf:{lib}?index=1&key={key}")]);
        String::from_utf8(ok(cmd)).expect("UTF-8")
    };
    let (sign, enc) = (export("sign"), export("enc"));
    assert!(sign.starts_with("-----BEGIN PUBLIC KEY-----"), "{sign}");
    assert_ne!(sign, enc);
    let mut cmd = shangmi();
    cmd.args(["sdf", "export", &format!("sdf:{lib}?index=5&key=sign")]);
    let out = run(cmd, b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("SDR_KEYNOTEXIST"), "{err}");
    let mut cmd = shangmi();
    cmd.args(["sdf", "export", &format!("sdf:{lib}?index=1&key=both")]);
    assert_eq!(run(cmd, b"").status.code(), Some(2));
}

#[test]
fn tlcp_server_with_a_wrong_pin_says_so() {
    let lib = library();
    let dir = scratch();
    make_ca(dir.path(), "/CN=SDF test CA", &[]);
    make_tlcp_pair(dir.path(), "server", "/CN=localhost", &[]);
    let certs = std::fs::read_dir(at(dir.path(), "server"))
        .expect("server dir")
        .map(|e| e.expect("entry").path())
        .collect::<Vec<_>>();
    let find = |part: &str| {
        certs
            .iter()
            .find(|p| {
                let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                n.contains(part) && n.ends_with(".crt")
            })
            .unwrap_or_else(|| panic!("no {part} certificate in {certs:?}"))
            .to_str()
            .expect("UTF-8 path")
            .to_owned()
    };
    // A one-connection TLCP server of the pair's certificates with these keys, the PIN
    // `pin` in the variable `pin_env`.
    let server = |sign_key: &str, enc_key: &str, (pin_env, pin): (&str, &str)| {
        let mut cmd = shangmi();
        cmd.args(["tlcp", "server", "--listen", "127.0.0.1:0", "--count", "1"])
            .args(["--sign-cert", &find("sign"), "--enc-cert", &find("enc")])
            .args(["--sign-key", sign_key, "--enc-key", enc_key])
            .env(pin_env, pin);
        run(cmd, b"")
    };
    let key = format!("sdf:{lib}?index=1&pin-env=SHANGMI_TEST_PIN");
    let out = server(&key, &key, ("SHANGMI_TEST_PIN", "999999"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("SDR_PARDENY"), "{err}");
    assert!(!err.contains("999999"), "{err}");
    // The role comes from the flag; a URI naming the other pair is a usage error.
    let out = server(
        &format!("sdf:{lib}?index=1&key=enc&pin-env=P"),
        &format!("sdf:{lib}?index=1&pin-env=P"),
        ("P", "123456"),
    );
    assert_eq!(out.status.code(), Some(2));
}

/// `sdf:` URI of the test device's index `index` (the role from the flag unless `key`
/// says), PIN from `SHANGMI_TEST_PIN`.
fn uri(lib: &str, index: u32, key: Option<&str>) -> String {
    let key = key.map(|k| format!("&key={k}")).unwrap_or_default();
    format!("sdf:{lib}?index={index}{key}&pin-env=SHANGMI_TEST_PIN")
}

/// The PIN of the test device.
const PIN: &str = "123456";

fn p(path: &std::path::Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// A CA whose key is the sign key at index 2 (`cert ca --key URI`), a request signed by
/// the sign key at index 1 (`cert req --key URI`), certificates issued by the device CA
/// (`cert issue --ca-key URI`), and a TLCP pair for index 1's two keys (`cert tlcp-pair
/// --sign-key URI --enc-key URI`): every one verifies (and with `openssl` where installed).
/// Returns the scratch directory with ca.crt, tls.crt, client.crt and pair/{sign,enc}.crt.
fn device_pki() -> tempfile::TempDir {
    let lib = library();
    let dir = scratch();
    let d = dir.path();
    let mut cmd = with_pin(PIN);
    cmd.args([
        "cert",
        "ca",
        "--subject",
        "/CN=Device CA",
        "--key",
        &uri(&lib, 2, None),
    ])
    .args(["--out", p(&at(d, "ca.crt"))]);
    ok(cmd);
    let mut cmd = with_pin(PIN);
    cmd.args([
        "cert",
        "req",
        "--key",
        &uri(&lib, 1, None),
        "--subject",
        "/CN=localhost",
    ])
    .args(["--san", "DNS:localhost", "--out", p(&at(d, "leaf.csr"))]);
    ok(cmd);
    for (profile, out) in [("tls-server", "tls.crt"), ("tls-client", "client.crt")] {
        let mut cmd = with_pin(PIN);
        cmd.args(["cert", "issue", "--ca", p(&at(d, "ca.crt"))])
            .args(["--ca-key", &uri(&lib, 2, Some("sign"))])
            .args(["--csr", p(&at(d, "leaf.csr")), "--profile", profile])
            .args(["--out", p(&at(d, out))]);
        ok(cmd);
    }
    // Only the public keys are read for the pair: no PIN in the environment.
    let mut cmd = with_pin(PIN);
    cmd.args(["cert", "tlcp-pair", "--ca", p(&at(d, "ca.crt"))])
        .args(["--ca-key", &uri(&lib, 2, None)])
        .args(["--subject", "/CN=localhost", "--san", "DNS:localhost"])
        .args(["--sign-key", &format!("sdf:{lib}?index=1")])
        .args(["--enc-key", &format!("sdf:{lib}?index=1")])
        .args(["--out-dir", p(&at(d, "pair"))]);
    ok(cmd);
    assert!(!at(d, "pair/sign.key").exists() && !at(d, "pair/enc.key").exists());
    for leaf in ["tls.crt", "client.crt", "pair/sign.crt", "pair/enc.crt"] {
        let mut cmd = shangmi();
        cmd.args([
            "cert",
            "verify",
            "--ca",
            p(&at(d, "ca.crt")),
            p(&at(d, leaf)),
        ]);
        let out = String::from_utf8(ok(cmd)).expect("UTF-8");
        assert!(out.contains("OK"), "{leaf}: {out}");
    }
    // A CRL signed by the device CA revokes the client certificate, not the others.
    let mut cmd = with_pin(PIN);
    cmd.args(["cert", "crl", "--ca", p(&at(d, "ca.crt"))])
        .args(["--ca-key", &uri(&lib, 2, None)])
        .args([
            "--revoke",
            p(&at(d, "client.crt")),
            "--out",
            p(&at(d, "ca.crl")),
        ]);
    ok(cmd);
    for (leaf, revoked) in [("client.crt", true), ("tls.crt", false)] {
        let mut cmd = shangmi();
        cmd.args(["cert", "verify", "--ca", p(&at(d, "ca.crt"))])
            .args(["--crl", p(&at(d, "ca.crl")), p(&at(d, leaf))]);
        let out = run(cmd, b"");
        assert_eq!(out.status.success(), !revoked, "{leaf}");
    }
    // The certificates hold the device's public keys.
    let export = |key: &str| {
        let mut cmd = shangmi();
        cmd.args(["sdf", "export", &format!("sdf:{lib}?index=1&key={key}")]);
        ok(cmd)
    };
    for (cert, key) in [
        ("tls.crt", "sign"),
        ("pair/sign.crt", "sign"),
        ("pair/enc.crt", "enc"),
    ] {
        let mut cmd = shangmi();
        cmd.args([
            "sm2",
            "pubkey",
            "--key",
            &format!("sdf:{lib}?index=1&key={key}"),
        ]);
        assert_eq!(ok(cmd), export(key));
        if let Some(mut o) = common::openssl("sdf_device_pki") {
            o.args(["x509", "-pubkey", "-noout", "-in"])
                .arg(at(d, cert));
            assert_eq!(ok(o), export(key), "{cert}");
        }
    }
    if let Some(mut o) = common::openssl("sdf_device_pki") {
        let distid = "distid:1234567812345678";
        let out = run(
            o.args(["req", "-verify", "-noout", "-vfyopt", distid, "-in"])
                .arg(at(d, "leaf.csr")),
            b"",
        );
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("verify OK"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for leaf in ["tls.crt", "pair/sign.crt", "pair/enc.crt"] {
            let mut o = std::process::Command::new("openssl");
            o.args(["verify", "-vfyopt", distid, "-CAfile", p(&at(d, "ca.crt"))])
                .arg(at(d, leaf));
            ok(o);
        }
    }
    dir
}

#[test]
fn certificates_cms_and_sm2_with_device_keys() {
    let lib = library();
    let dir = device_pki();
    let d = dir.path();
    let msg = at(d, "msg.txt");
    std::fs::write(&msg, b"signed and sealed by the device\n").expect("write");
    // cms sign with the device key, verify against the device CA.
    let mut cmd = with_pin(PIN);
    cmd.args(["cert", "cms", "sign", "--cert", p(&at(d, "pair/sign.crt"))])
        .args(["--key", &uri(&lib, 1, None), "--in", p(&msg)])
        .args(["--out", p(&at(d, "msg.p7"))]);
    ok(cmd);
    let mut cmd = shangmi();
    cmd.args(["cert", "cms", "verify", "--ca", p(&at(d, "ca.crt"))])
        .args(["--purpose", "any", "--in", p(&at(d, "msg.p7"))]);
    cmd.args(["--out", p(&at(d, "msg.out"))]);
    ok(cmd);
    assert_eq!(
        std::fs::read(at(d, "msg.out")).ok(),
        std::fs::read(&msg).ok()
    );
    // cms encrypt to the device's encryption certificate, decrypt in the device.
    let mut cmd = shangmi();
    cmd.args([
        "cert",
        "cms",
        "encrypt",
        "--recipient",
        p(&at(d, "pair/enc.crt")),
    ])
    .args(["--in", p(&msg), "--out", p(&at(d, "msg.env"))]);
    ok(cmd);
    let mut cmd = with_pin(PIN);
    cmd.args([
        "cert",
        "cms",
        "decrypt",
        "--cert",
        p(&at(d, "pair/enc.crt")),
    ])
    .args(["--key", &uri(&lib, 1, None), "--in", p(&at(d, "msg.env"))]);
    assert_eq!(ok(cmd), std::fs::read(&msg).expect("read"));
    // sm2 sign in the device, verify with the device's public key (a URI) and with it
    // exported to a file.
    let mut cmd = with_pin(PIN);
    cmd.args([
        "sm2",
        "sign",
        "--key",
        &uri(&lib, 1, None),
        "--out",
        p(&at(d, "msg.sig")),
    ])
    .arg(&msg);
    ok(cmd);
    let mut cmd = shangmi();
    cmd.args(["sdf", "export", &format!("sdf:{lib}?index=1&key=sign")]);
    std::fs::write(at(d, "sign.pub"), ok(cmd)).expect("write");
    for key in [
        format!("sdf:{lib}?index=1&key=sign"),
        p(&at(d, "sign.pub")).to_owned(),
    ] {
        let mut cmd = shangmi();
        cmd.args([
            "sm2",
            "verify",
            "--key",
            &key,
            "--signature",
            p(&at(d, "msg.sig")),
        ])
        .arg(&msg);
        assert_eq!(ok(cmd), b"Verified OK\n", "{key}");
    }
    // The signature is over this message: another one does not verify.
    let mut cmd = shangmi();
    cmd.args([
        "sm2",
        "verify",
        "--key",
        p(&at(d, "sign.pub")),
        "--signature",
    ])
    .arg(at(d, "msg.sig"))
    .arg(at(d, "ca.crt"));
    assert_eq!(run(cmd, b"").status.code(), Some(1));
    // sm2 encrypt to the device's encryption key, decrypt in the device (ASN.1 and raw).
    for raw in [false, true] {
        let mut cmd = shangmi();
        cmd.args([
            "sm2",
            "encrypt",
            "--key",
            &format!("sdf:{lib}?index=1&key=enc"),
        ])
        .args(["--in", p(&msg), "--out", p(&at(d, "msg.sm2"))]);
        if raw {
            cmd.args(["--layout", "c1c2c3"]);
        }
        ok(cmd);
        let mut cmd = with_pin(PIN);
        cmd.args(["sm2", "decrypt", "--key", &uri(&lib, 1, None)])
            .args(["--in", p(&at(d, "msg.sm2"))]);
        if raw {
            cmd.args(["--layout", "c1c2c3"]);
        }
        assert_eq!(ok(cmd), std::fs::read(&msg).expect("read"), "raw {raw}");
    }
}

/// `cmd` (a client) sends `msg` to the server `srv` and must get it back; then the server
/// is stopped.
fn echoes(mut srv: std::process::Child, cmd: std::process::Command, msg: &[u8]) {
    let out = run(cmd, msg);
    let _ = srv.kill();
    let _ = srv.wait();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, msg);
}

#[test]
fn tls_and_tlcp_handshakes_with_keys_in_the_device() {
    let lib = library();
    let dir = device_pki();
    let d = dir.path();
    // TLS 1.3: the server's CertificateVerify and the client's, signed in the device.
    let port = common::free_port();
    let mut srv = with_pin(PIN);
    srv.args(["tls", "server", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--cert", p(&at(d, "tls.crt")), "--key", &uri(&lib, 1, None)])
        .args(["--client-ca", p(&at(d, "ca.crt")), "--count", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let srv = srv.spawn().expect("server starts");
    common::wait_for_listener(port);
    let mut cmd = with_pin(PIN);
    cmd.args(["tls", "client", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--server-name", "localhost", "--ca", p(&at(d, "ca.crt"))])
        .args([
            "--cert",
            p(&at(d, "client.crt")),
            "--key",
            &uri(&lib, 1, None),
        ]);
    echoes(srv, cmd, b"hello from the device\n");
    // TLCP: both server keys in the device, an ECC suite.
    let port = common::free_port();
    let mut srv = with_pin(PIN);
    srv.args(["tlcp", "server", "--listen", &format!("127.0.0.1:{port}")])
        .args([
            "--sign-cert",
            p(&at(d, "pair/sign.crt")),
            "--sign-key",
            &uri(&lib, 1, None),
        ])
        .args([
            "--enc-cert",
            p(&at(d, "pair/enc.crt")),
            "--enc-key",
            &uri(&lib, 1, None),
        ])
        .args(["--count", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let srv = srv.spawn().expect("server starts");
    common::wait_for_listener(port);
    let mut cmd = shangmi();
    cmd.args(["tlcp", "client", "--connect", &format!("127.0.0.1:{port}")])
        .args(["--server-name", "localhost", "--ca", p(&at(d, "ca.crt"))]);
    echoes(srv, cmd, b"hello over TLCP\n");
}

/// A wrong PIN is the device's typed error on every command that opens a private key (exit
/// code 4), and the PIN is in no output; a command that needs the key's bytes refuses a URI.
#[test]
fn wrong_pin_on_every_command() {
    let lib = library();
    let dir = scratch();
    let d = dir.path();
    let key = uri(&lib, 1, None);
    let commands = common::commands_opening(d, &key);
    common::refuse_wrong_pin(&commands, "SHANGMI_TEST_PIN", "999999", "SDR_PARDENY");
    let cert = at(d, "ca.crt");
    // A URI where the key's bytes are needed: a usage error, no device opened.
    let mut cmd = shangmi();
    cmd.args([
        "cert",
        "pkcs12",
        "export",
        "--key",
        &key,
        "--cert",
        p(&cert),
    ])
    .args(["--out", p(&at(d, "x.p12")), "--pass-env", "P12_PASS"])
    .env("P12_PASS", "export password");
    exits_with(cmd, 2);
}
