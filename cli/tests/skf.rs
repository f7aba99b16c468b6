//! `shangmi skf list` against the SKF test device (`testdevice/skf`, a cdylib cargo builds
//! as a dev-dependency of this crate).

mod common;

use common::{ok, run, shangmi};

/// The test device's library.
fn library() -> String {
    common::test_device("shangmi_testdevice_skf")
}

#[test]
fn list_shows_devices_containers_and_certificates() {
    let lib = library();
    let mut cmd = shangmi();
    cmd.args(["skf", "list", "--lib", &lib]);
    let out = String::from_utf8(ok(cmd)).expect("UTF-8");
    for want in [
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
    ] {
        assert!(out.contains(want), "{want:?} not in:\n{out}");
    }
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
    assert_eq!(String::from_utf8(ok(cmd)).expect("UTF-8"), out);
}

#[test]
fn list_of_a_missing_library_fails() {
    let mut cmd = shangmi();
    cmd.args(["skf", "list", "--lib", "/nonexistent/libskf.so"]);
    let out = run(cmd, b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot load the SKF library"), "{err}");
}
