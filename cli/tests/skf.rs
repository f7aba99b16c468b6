//! `shangmi skf list|export` and `skf:` key URIs (`sm2 sign`, `cert req`, `tlcp client`)
//! against the SKF test device (`testdevice/skf`, a cdylib cargo builds as a
//! dev-dependency of this crate).

mod common;
#[path = "common/testskf.rs"]
mod testskf;

use common::{
    assert_contains_all, at, exits_with, issue, make_ca, make_tlcp_pair, ok, ok_text, run, scratch,
    scratch_with, shangmi, with_pin,
};
use std::path::Path;
use std::process::Stdio;

/// The test device's library.
fn library() -> String {
    common::test_device("shangmi_testdevice_skf")
}

#[test]
fn list_shows_devices_containers_and_certificates() {
    let lib = library();
    let mut cmd = shangmi();
    cmd.args(["skf", "list", "--lib", &lib]);
    let out = ok_text(cmd);
    assert_contains_all(
        &out,
        &[
            "missing functions: none",
            "device \"shangmi-skf-0\": shangmi test key (serial 0001)",
            "  application \"SHANGMI\"",
            "  application \"LOCKOUT\"",
            "    container \"tlcp-client\": SM2 (ECC)",
            "      sign certificate: CN=skf client,O=shangmi test",
            "      enc certificate: CN=skf client,O=shangmi test",
            "    container \"empty\": empty",
            "      enc certificate: none",
            "      sign key: error: SKF_ExportPublicKey returned malformed output: point not on the curve",
            "      sign certificate: error: SKF_ExportCertificate returned malformed output",
        ],
    );
    // Both applications list their four containers; the keys are compressed points.
    assert_eq!(out.matches("    container ").count(), 8, "{out}");
    let key = out
        .lines()
        .find_map(|l| l.strip_prefix("      sign key: SM2 "))
        .expect("a sign key");
    assert!(
        key.len() == 66 && (key.starts_with("02") || key.starts_with("03")),
        "{key}"
    );
    // The same through an skf: URI.
    let mut cmd = shangmi();
    cmd.args(["skf", "list", "--lib", &format!("skf:{lib}?app=SHANGMI")]);
    assert_eq!(ok_text(cmd), out);
}

#[test]
fn list_of_a_missing_library_fails() {
    let mut cmd = shangmi();
    cmd.args(["skf", "list", "--lib", "/nonexistent/libskf.so"]);
    let out = exits_with(cmd, 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot load the SKF library"), "{err}");
}

/// `skf:` URI of the test key's `tlcp-client` container in application `app` (the pair
/// from the flag unless `key` says), PIN from `SHANGMI_TEST_PIN`.
fn uri(lib: &str, app: &str, key: Option<&str>) -> String {
    let key = key.map(|k| format!("&key={k}")).unwrap_or_default();
    format!("skf:{lib}?app={app}&container=tlcp-client{key}&pin-env=SHANGMI_TEST_PIN")
}

/// The PIN of the test key (its default).
const PIN: &str = "12345678";

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// `shangmi skf export URI [--cert]` into `dir/out`.
fn export(lib: &str, key: &str, cert: bool, out: &Path) {
    let mut cmd = shangmi();
    cmd.args([
        "skf",
        "export",
        &format!("skf:{lib}?app=SHANGMI&container=tlcp-client&key={key}"),
    ]);
    if cert {
        cmd.arg("--cert");
    }
    std::fs::write(out, ok(cmd)).expect("write");
}

/// The test CA's certificate (PEM), from the device's non-standard export.
fn ca_certificate(lib: &str) -> String {
    let der = testskf::ca_certificate(Path::new(lib));
    shangmi_pki::pem::to_pem("CERTIFICATE", &der).expect("PEM")
}

/// `sm2 sign` in the USB key verifies with the public key it exports (and not with the
/// other pair's); `sm2 pubkey` of the URI is that key; `cert req --key URI` makes a request
/// a CA issues from, for the key's public key.
#[test]
fn sm2_sign_and_a_request_with_a_usb_key() {
    let lib = library();
    let (dir, msg) = scratch_with("msg.txt", b"signed in the USB key\n");
    let d = dir.path();
    let mut cmd = with_pin(PIN);
    cmd.args(["sm2", "sign", "--key", &uri(&lib, "SHANGMI", None)])
        .args(["--out", p(&at(d, "msg.sig"))])
        .arg(&msg);
    ok(cmd);
    export(&lib, "sign", false, &at(d, "sign.pub"));
    export(&lib, "enc", false, &at(d, "enc.pub"));
    // The URI's public key (no PIN needed) is the exported one.
    let mut cmd = shangmi();
    cmd.args([
        "sm2",
        "pubkey",
        "--key",
        &format!("skf:{lib}?app=SHANGMI&container=tlcp-client&key=sign"),
    ]);
    assert_eq!(ok(cmd), std::fs::read(at(d, "sign.pub")).expect("read"));
    for (key, good) in [("sign.pub", true), ("enc.pub", false)] {
        let mut cmd = shangmi();
        cmd.args(["sm2", "verify", "--key", p(&at(d, key))])
            .args(["--signature", p(&at(d, "msg.sig"))])
            .arg(&msg);
        let out = run(cmd, b"");
        assert_eq!(out.status.code(), Some(if good { 0 } else { 1 }), "{key}");
    }
    // A request signed in the key; the CA checks its signature when issuing.
    make_ca(d, "/CN=req CA", &[]);
    let mut cmd = with_pin(PIN);
    cmd.args(["cert", "req", "--key", &uri(&lib, "SHANGMI", None)])
        .args(["--subject", "/CN=usb key user", "--out", p(&at(d, "u.csr"))]);
    ok(cmd);
    let (csr, crt) = (at(d, "u.csr"), at(d, "u.crt"));
    ok(issue(d, &csr, "tls-client", &crt));
    // The enc key does not sign: the flag's role and the URI's disagree.
    let mut cmd = with_pin(PIN);
    cmd.args(["sm2", "sign", "--key", &uri(&lib, "SHANGMI", Some("enc"))])
        .arg(&msg);
    assert_eq!(run(cmd, b"").status.code(), Some(2));
}

/// `tlcp client` with the client pair of the test USB key (certificates exported from its
/// container, both private keys inside it) against our server, which requires client
/// certificates under the test key's CA: an ECC suite; ECDHE is left out (the key gives
/// no key-exchange material), so asking for it alone is refused.
#[test]
fn tlcp_client_authenticates_with_the_usb_key() {
    let lib = library();
    let dir = scratch();
    let d = dir.path();
    make_ca(d, "/CN=server CA", &[]);
    make_tlcp_pair(d, "server", "/CN=localhost", &["--san", "DNS:localhost"]);
    std::fs::write(at(d, "skf-ca.crt"), ca_certificate(&lib)).expect("write");
    export(&lib, "sign", true, &at(d, "c-sign.crt"));
    export(&lib, "enc", true, &at(d, "c-enc.crt"));
    let port = common::free_port();
    let mut srv = shangmi();
    srv.args(["tlcp", "server", "--listen", &format!("127.0.0.1:{port}")])
        .args(["--sign-cert", p(&at(d, "server/sign.crt"))])
        .args(["--sign-key", p(&at(d, "server/sign.key"))])
        .args(["--enc-cert", p(&at(d, "server/enc.crt"))])
        .args(["--enc-key", p(&at(d, "server/enc.key"))])
        .args(["--client-ca", p(&at(d, "skf-ca.crt")), "--count", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let srv = srv.spawn().expect("server starts");
    common::wait_for_listener(port);
    let client = |suite: &str| {
        let mut cmd = with_pin(PIN);
        cmd.args(["tlcp", "client", "--connect", &format!("127.0.0.1:{port}")])
            .args(["--server-name", "localhost", "--ca", p(&at(d, "ca.crt"))])
            .args(["--suite", suite])
            .args(["--sign-cert", p(&at(d, "c-sign.crt"))])
            .args(["--sign-key", &uri(&lib, "SHANGMI", None)])
            .args(["--enc-cert", p(&at(d, "c-enc.crt"))])
            .args(["--enc-key", &uri(&lib, "SHANGMI", None)]);
        run(cmd, b"hello from the USB key\n")
    };
    let out = client("ecc-gcm");
    let refused = client("ecdhe-gcm");
    let srv = srv.wait_with_output().expect("server ends");
    let log = String::from_utf8_lossy(&srv.stderr);
    assert!(
        out.status.success(),
        "{}\n{log}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"hello from the USB key\n");
    assert!(log.contains("peer=\"CN=skf client"), "{log}");
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        why.contains("ECDHE suites need an encryption key that runs the SM2 key exchange"),
        "{why}"
    );
}

/// A wrong PIN: the device's typed error naming the attempts left, exit code 4, the PIN
/// in no output; on every kind of command that opens a key (`common::commands_opening`).
#[test]
fn a_wrong_pin_names_the_attempts_left() {
    let lib = library();
    let dir = scratch();
    let d = dir.path();
    // The LOCKOUT application, so that a wrong PIN never counts against SHANGMI's; each
    // process loads the library afresh, so each sees 6 attempts before its wrong one.
    let key = uri(&lib, "LOCKOUT", None);
    let commands = common::commands_opening(d, &key);
    let want = "wrong PIN: 5 attempts left";
    common::refuse_wrong_pin(&commands, "SHANGMI_TEST_PIN", "87654321", want);
    let msg = at(d, "msg.txt");
    // No PIN variable set: a usage error, nothing sent to the device.
    let mut cmd = shangmi();
    cmd.args(["sm2", "sign", "--key", &key, p(&msg)])
        .env_remove("SHANGMI_TEST_PIN");
    assert_eq!(run(cmd, b"").status.code(), Some(2));
}
