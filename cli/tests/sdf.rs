//! `shangmi sdf info|export` and `sdf:` key URIs on `shangmi tlcp server`, against the test
//! device (`testdevice/sdf`, a cdylib cargo builds as a dev-dependency of this crate).

mod common;

use common::{at, make_ca, make_tlcp_pair, ok, run, scratch, shangmi};
use std::path::PathBuf;

/// The test device's library, in the `deps` directory beside this test binary.
fn library() -> String {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps directory");
    let name = format!(
        "{}shangmi_testdevice_sdf{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    let path: PathBuf = [deps, deps.parent().expect("profile directory")]
        .iter()
        .map(|d| d.join(&name))
        .find(|p| p.exists())
        .expect("the test device library");
    path.to_str().expect("UTF-8 path").to_owned()
}

#[test]
fn info_and_export() {
    let lib = library();
    let mut cmd = shangmi();
    cmd.args(["sdf", "info", &lib]);
    let out = String::from_utf8(ok(cmd)).expect("UTF-8");
    assert!(out.contains("device: test device"), "{out}");
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
    let mut cmd = shangmi();
    cmd.args(["tlcp", "server", "--listen", "127.0.0.1:0", "--count", "1"])
        .args(["--sign-cert", &find("sign"), "--enc-cert", &find("enc")])
        .args([
            "--sign-key",
            &format!("sdf:{lib}?index=1&pin-env=SHANGMI_TEST_PIN"),
        ])
        .args([
            "--enc-key",
            &format!("sdf:{lib}?index=1&pin-env=SHANGMI_TEST_PIN"),
        ])
        .env("SHANGMI_TEST_PIN", "999999");
    let out = run(cmd, b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("SDR_PARDENY"), "{err}");
    assert!(!err.contains("999999"), "{err}");
    // The role comes from the flag; a URI naming the other pair is a usage error.
    let mut cmd = shangmi();
    cmd.args(["tlcp", "server", "--listen", "127.0.0.1:0", "--count", "1"])
        .args(["--sign-cert", &find("sign"), "--enc-cert", &find("enc")])
        .args([
            "--sign-key",
            &format!("sdf:{lib}?index=1&key=enc&pin-env=P"),
        ])
        .args(["--enc-key", &format!("sdf:{lib}?index=1&pin-env=P")])
        .env("P", "123456");
    assert_eq!(run(cmd, b"").status.code(), Some(2));
}
