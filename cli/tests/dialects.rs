//! Peers' dialects read with no option (issue 35 item 7): SignedData as OpenSSL 3.6 writes
//! it (`pki/tests/data/openssl_cms_*.der`: plain SM3 without signed attributes, Z_A over an
//! empty ID with them), and our writers' `--form` choices read back.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{at, ok, p, run, scratch, shangmi};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../pki/tests/data")
        .join(name)
}

fn cms(args: &[&str]) -> Command {
    let mut cmd = shangmi();
    cmd.args(["cert", "cms"]).args(args);
    cmd
}

#[test]
fn cms_verify_takes_openssl_forms_by_default() {
    let ca = data("openssl_cms_signer.pem");
    for f in ["openssl_cms_noattr.der", "openssl_cms_attr.der"] {
        let msg = data(f);
        let out = run(cms(&["verify", "--ca", p(&ca), "--in", p(&msg)]), b"");
        assert!(
            out.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // the old flag is still accepted
        let out = run(
            cms(&["verify", "--gmssl-compat", "--ca", p(&ca), "--in", p(&msg)]),
            b"",
        );
        assert!(out.status.success(), "{f} --gmssl-compat");
        let out = run(
            cms(&["verify", "--strict", "--ca", p(&ca), "--in", p(&msg)]),
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{f} --strict");
    }
}

#[test]
fn cms_sign_forms_read_back() {
    let dir = scratch();
    let d = dir.path();
    let (crt, key) = (at(d, "ca.crt"), at(d, "ca.key"));
    ok(shangmi().args([
        "cert",
        "ca",
        "--subject",
        "/CN=forms",
        "--key-out",
        p(&key),
        "--out",
        p(&crt),
    ]));
    std::fs::write(at(d, "msg"), b"forms\n").unwrap();
    for (form, extra) in [
        ("standard", None),
        ("empty-id", None),
        ("plain", Some("--no-attributes")),
        ("gmssl", None),
    ] {
        let out = at(d, form);
        let mut c = cms(&["sign", "--cert", p(&crt), "--key", p(&key), "--form", form]);
        c.args(extra)
            .args(["--in", p(&at(d, "msg")), "--out", p(&out)]);
        ok(c);
        let verify = |extra: &[&str]| {
            let mut c = cms(&[
                "verify",
                "--purpose",
                "any",
                "--ca",
                p(&crt),
                "--in",
                p(&out),
            ]);
            c.args(extra);
            c
        };
        let back = ok(verify(&["--out", "-"]));
        assert_eq!(back, b"forms\n", "{form}");
        let strict = run(verify(&["--strict"]), b"");
        assert_eq!(strict.status.success(), form == "standard", "{form}");
    }
}

/// `tlcp client` and `tls client` read encrypted keys with `--passin` (through the shared
/// key loader), and without it say "encrypted key: give --passin" before connecting.
#[test]
fn tlcp_and_tls_take_passin() {
    let dir = scratch();
    let d = dir.path();
    let (ca, ca_key, pair) = (at(d, "ca.crt"), at(d, "ca.key"), at(d, "pair"));
    ok(shangmi().args([
        "cert",
        "ca",
        "--subject",
        "/CN=passin CA",
        "--key-out",
        p(&ca_key),
        "--out",
        p(&ca),
    ]));
    ok(shangmi().args([
        "cert",
        "tlcp-pair",
        "--ca",
        p(&ca),
        "--ca-key",
        p(&ca_key),
        "--subject",
        "/CN=localhost",
        "--out-dir",
        p(&pair),
        "--passout",
        "pass:pw",
    ]));
    let f = |name: &str| pair.join(name).to_str().unwrap().to_owned();
    // A `tlcp client` (both pairs) or `tls client` (the sign pair) command to a closed port.
    let client = |proto: &str, passin: Option<&str>| {
        let mut c = shangmi();
        c.args([proto, "client", "--connect", "127.0.0.1:1"]).args([
            "--server-name",
            "localhost",
            "--ca",
            p(&ca),
        ]);
        if proto == "tlcp" {
            c.args(["--sign-cert", &f("sign.crt"), "--sign-key", &f("sign.key")])
                .args(["--enc-cert", &f("enc.crt"), "--enc-key", &f("enc.key")]);
        } else {
            c.args(["--cert", &f("sign.crt"), "--key", &f("sign.key")]);
        }
        if let Some(spec) = passin {
            c.args(["--passin", spec]);
        }
        c
    };
    let tlcp = |passin: Option<&str>| client("tlcp", passin);
    let tls = |passin: Option<&str>| client("tls", passin);
    for (name, cmd) in [("tlcp", &tlcp as &dyn Fn(_) -> Command), ("tls", &tls)] {
        let out = run(cmd(None), b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}");
        assert!(
            err.contains("encrypted key: give --passin"),
            "{name}: {err}"
        );
        assert!(err.contains("sign.key"), "{name}: {err}");
        // with the passphrase the keys load and the client gets as far as connecting
        let out = run(cmd(Some("pass:pw")), b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}");
        assert!(!err.contains("encrypted key"), "{name}: {err}");
        assert!(!err.contains("sign.key"), "{name}: {err}");
        // a wrong one names the file
        let out = run(cmd(Some("pass:wrong")), b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("sign.key"), "{name}: {err}");
    }
}
