//! `shangmi cert`: a CA, requests, issuing, TLCP pairs, chain verification and CMS through
//! the command line, checked by `openssl` where it can (OpenSSL 3.0 needs
//! `-vfyopt distid:1234567812345678` for SM2 signatures under the default ID), and the
//! failures: exit codes, messages naming the file, nothing written.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::path::Path;
use std::process::Command;

use common::{
    assert_contains_all, at, bytes, cert, file_flags, ok, ok_text, openssl, p, run, scratch,
    shangmi, under_ca,
};

const DISTID: &str = "distid:1234567812345678";

/// Runs `cmd`, asserts failure with exit code 1, returns standard error.
fn fails(mut cmd: Command) -> String {
    let out = run(&mut cmd, b"");
    assert_eq!(out.status.code(), Some(1), "{cmd:?} did not fail with 1");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A scratch directory with a CA in it: ca.key, ca.crt (every test here works under it).
fn with_ca() -> tempfile::TempDir {
    let dir = scratch();
    common::make_ca(
        dir.path(),
        "/C=CN/O=shangmi test/CN=shangmi test CA",
        &["--days", "30"],
    );
    dir
}

#[test]
fn ca_req_issue_verify_show() {
    let dir = with_ca();
    let d = dir.path();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(at(d, "ca.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the CA key is readable by others");
    }
    let mut keygen = shangmi();
    keygen.args(["sm2", "keygen", "--out", p(&at(d, "leaf.key"))]);
    ok(keygen);
    ok(cert(&[
        "req",
        "--key",
        p(&at(d, "leaf.key")),
        "--subject",
        "/C=CN/O=shangmi test/CN=www.example.cn",
        "--san",
        "DNS:www.example.cn",
        "--san",
        "IP:127.0.0.1",
        "--out",
        p(&at(d, "leaf.csr")),
    ]));
    ok(common::issue(
        d,
        &at(d, "leaf.csr"),
        "tls-server",
        &at(d, "leaf.crt"),
    ));
    // `cert verify --ca CA OPTIONS… CERT`, the files in `d`.
    let verify = |ca: &str, options: &[&str], target: &str| {
        let mut c = cert(&["verify", "--ca", p(&at(d, ca))]);
        c.args(options).arg(at(d, target));
        c
    };
    let out = ok(verify(
        "ca.crt",
        &["--purpose", "tls-server", "--host", "www.example.cn"],
        "leaf.crt",
    ));
    assert!(String::from_utf8_lossy(&out).ends_with(": OK\n"));
    let err = fails(verify(
        "ca.crt",
        &["--host", "other.example.cn"],
        "leaf.crt",
    ));
    assert!(
        err.contains("leaf.crt") && err.contains("host name mismatch"),
        "{err}"
    );
    let err = fails(verify("ca.crt", &["--purpose", "tls-client"], "leaf.crt"));
    assert!(err.contains("extended key usage"), "{err}");
    // the leaf is not a trust anchor for itself
    let err = fails(verify("leaf.crt", &[], "ca.crt"));
    assert!(err.contains("issuer"), "{err}");
    let text = ok_text(cert(&["show", p(&at(d, "leaf.crt"))]));
    assert_contains_all(
        &text,
        &[
            "Subject: C=CN, O=shangmi test, CN=www.example.cn",
            "Issuer: C=CN, O=shangmi test, CN=shangmi test CA",
            "DNS:www.example.cn, IP:127.0.0.1",
            "serverAuth",
            "SM2-with-SM3",
        ],
    );
    let text = String::from_utf8(ok(cert(&["show", p(&at(d, "leaf.csr"))]))).unwrap();
    assert!(text.contains("Self-signature: OK"), "{text}");
    if let Some(mut o) = openssl("ca_req_issue_verify_show") {
        let out = run(
            o.args([
                "req",
                "-verify",
                "-noout",
                "-vfyopt",
                DISTID,
                "-in",
                p(&at(d, "leaf.csr")),
            ]),
            b"",
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("verify OK"));
        let mut o = Command::new("openssl");
        o.args([
            "verify",
            "-vfyopt",
            DISTID,
            "-purpose",
            "sslserver",
            "-CAfile",
            p(&at(d, "ca.crt")),
            p(&at(d, "leaf.crt")),
        ]);
        ok(o);
    }
}

#[test]
fn failures_name_the_file_and_write_nothing() {
    let dir = with_ca();
    let d = dir.path();
    let out = at(d, "x.crt");
    let issue = |csr: &str| fails(common::issue(d, &at(d, csr), "tls-client", &out));
    let err = issue("missing.csr");
    assert!(
        err.contains("missing.csr") && err.contains("No such file"),
        "{err}"
    );
    assert!(!out.exists());
    // a request that is not one
    std::fs::write(at(d, "junk.csr"), bytes(100, 3)).unwrap();
    let err = issue("junk.csr");
    assert!(err.contains("junk.csr"), "{err}");
    assert!(!out.exists());
    // a CA key that is not the CA certificate's: nothing of the pair is written
    let mut keygen = shangmi();
    keygen.args(["sm2", "keygen", "--out", p(&at(d, "other.key"))]);
    ok(keygen);
    let mut pair = cert(&["tlcp-pair", "--subject", "/CN=x"]);
    pair.args(file_flags(
        d,
        &[
            ("--ca", "ca.crt"),
            ("--ca-key", "other.key"),
            ("--out-dir", "pair"),
        ],
    ));
    let err = fails(pair);
    assert!(err.contains("other.key"), "{err}");
    assert!(!at(d, "pair").join("sign.crt").exists());
    // a bad name is a usage error (exit 2)
    let mut c = cert(&[
        "ca",
        "--subject",
        "CN=no slash",
        "--key-out",
        p(&at(d, "k")),
        "--out",
        p(&at(d, "c")),
    ]);
    assert_eq!(run(&mut c, b"").status.code(), Some(2));
    assert!(!at(d, "k").exists() && !at(d, "c").exists());
}

/// `tlcp-pair --passout`: both keys encrypted PKCS#8 (the SM3/SM4 scheme under GmSSL's PRF
/// OID by default, the form GmSSL's tlcp_server loads; OpenSSL 3.x's PRF OID with `--scheme
/// sm4`; OpenSSL 3's with `--scheme aes`, read back by `openssl
/// pkey`), each the key of its certificate, and refused under a wrong passphrase.
#[test]
fn tlcp_pair_encrypted_keys() {
    let dir = with_ca();
    let d = dir.path();
    // PBKDF2's PRF: hmacWithSM3 under GmSSL's OID 1.2.156.10197.1.401.2 (the default, for
    // GmSSL's tlcp_server) or OpenSSL 3's 1.2.156.10197.1.401.3.1 (`--scheme sm4`).
    let gmssl_prf: &[u8] = &[
        0x06, 0x09, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x83, 0x11, 0x02,
    ];
    let openssl_prf: &[u8] = &[
        6, 10, 0x2A, 0x81, 0x1C, 0xCF, 0x55, 0x01, 0x83, 0x11, 0x03, 0x01,
    ];
    for (scheme, pair) in [
        ("sm4-gmssl", at(d, "pair-sm4-gmssl")),
        ("sm4", at(d, "pair-sm4")),
        ("aes", at(d, "pair-aes")),
    ] {
        ok(under_ca(
            d,
            "tlcp-pair",
            &[
                "--subject",
                "/C=CN/O=shangmi test/CN=gw.example.cn",
                "--out-dir",
                p(&pair),
                "--passout",
                "pass:pair secret",
                "--scheme",
                scheme,
            ],
        ));
        for (key, crt) in [("sign.key", "sign.crt"), ("enc.key", "enc.crt")] {
            let pem = std::fs::read_to_string(pair.join(key)).unwrap();
            assert!(
                pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"),
                "{key}"
            );
            let der = shangmi_pki::pem::pem_blocks(pem.as_bytes())
                .unwrap()
                .remove(0)
                .1;
            let has = |oid: &[u8]| der.windows(oid.len()).any(|w| w == oid);
            assert_eq!(has(gmssl_prf), scheme == "sm4-gmssl", "{scheme} {key}");
            assert_eq!(has(openssl_prf), scheme == "sm4", "{scheme} {key}");
            assert!(shangmi_sm2::keys::secret_key_from_pem_with_password(&pem, "wrong").is_err());
            let secret =
                shangmi_sm2::keys::secret_key_from_pem_with_password(&pem, "pair secret").unwrap();
            let cert = <shangmi_pki::Certificate as der::DecodePem>::from_pem(
                std::fs::read(pair.join(crt)).unwrap(),
            )
            .unwrap();
            let spki =
                der::Encode::to_der(cert.tbs_certificate().subject_public_key_info()).unwrap();
            assert_eq!(
                shangmi_sm2::keys::public_key_from_spki_der(&spki).unwrap(),
                secret.public_key(),
                "{key} is not {crt}'s key"
            );
            if scheme == "aes"
                && let Some(mut o) = openssl("tlcp_pair_encrypted_keys")
            {
                o.args(["pkey", "-noout", "-passin", "pass:pair secret", "-in"])
                    .arg(pair.join(key));
                ok(o);
            }
        }
    }
}

#[test]
fn tlcp_pair_and_cms() {
    let dir = with_ca();
    let d = dir.path();
    let pair = at(d, "pair");
    ok(under_ca(
        d,
        "tlcp-pair",
        &[
            "--subject",
            "/C=CN/O=shangmi test/CN=tlcp.example.cn",
            "--san",
            "DNS:tlcp.example.cn",
            "--out-dir",
            p(&pair),
            "--envelope",
        ],
    ));
    for f in ["sign.key", "sign.crt", "enc.key", "enc.crt", "enc.env"] {
        assert!(pair.join(f).exists(), "{f}");
    }
    let verify = |purpose: &str, file: &str| {
        let mut c = cert(&["verify", "--ca", p(&at(d, "ca.crt")), "--purpose", purpose]);
        c.arg(pair.join(file));
        run(&mut c, b"").status.code()
    };
    assert_eq!(verify("tlcp-sign", "sign.crt"), Some(0));
    assert_eq!(verify("tlcp-enc", "enc.crt"), Some(0));
    assert_eq!(verify("tlcp-enc", "sign.crt"), Some(1));
    assert_eq!(verify("tlcp-sign", "enc.crt"), Some(1));
    // the envelope opens with the sign key and holds the encryption key
    let sign_key = std::fs::read_to_string(pair.join("sign.key")).unwrap();
    let enc_key = std::fs::read_to_string(pair.join("enc.key")).unwrap();
    let sign_key = shangmi_sm2::keys::secret_key_from_pem(&sign_key).unwrap();
    let enc_key = shangmi_sm2::keys::secret_key_from_pem(&enc_key).unwrap();
    let env = std::fs::read(pair.join("enc.env")).unwrap();
    let opened = shangmi_pki::envelope::unwrap(&sign_key, &env).unwrap();
    assert_eq!(opened.to_bytes(), enc_key.to_bytes());
    if let Some(mut o) = openssl("tlcp_pair_and_cms") {
        o.args(["verify", "-vfyopt", DISTID, "-CAfile", p(&at(d, "ca.crt"))])
            .arg(pair.join("sign.crt"))
            .arg(pair.join("enc.crt"));
        ok(o);
    }

    // CMS: sign attached (PEM) and detached, verify; encrypt to the enc certificate, decrypt
    let msg = at(d, "msg");
    std::fs::write(&msg, bytes(3000, 7)).unwrap();
    let (signed, detached, enc, back) =
        (at(d, "s.p7"), at(d, "d.p7"), at(d, "e.p7"), at(d, "back"));
    let sign_args = |extra: &[&str], out: &Path| {
        let mut c = cert(&["cms", "sign", "--cert"]);
        c.arg(pair.join("sign.crt"))
            .arg("--key")
            .arg(pair.join("sign.key"));
        c.args(extra).args(["--in", p(&msg), "--out", p(out)]);
        c
    };
    ok(sign_args(&["--pem"], &signed));
    assert!(
        std::fs::read_to_string(&signed)
            .unwrap()
            .starts_with("-----BEGIN CMS-----")
    );
    ok(sign_args(&["--detached"], &detached));
    // `cert cms verify` of `message` under the CA, with the `extra` options.
    let cms_verify = |message: &Path, extra: &[&str]| {
        let mut c = cert(&[
            "cms",
            "verify",
            "--ca",
            p(&at(d, "ca.crt")),
            "--in",
            p(message),
        ]);
        c.args(extra);
        c
    };
    ok(cms_verify(&signed, &["--out", p(&back)]));
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&msg).unwrap());
    ok(cms_verify(&detached, &["--content", p(&msg)]));
    let err = fails(cms_verify(&detached, &["--content", p(&at(d, "ca.crt"))]));
    assert!(err.contains("d.p7"), "{err}");
    let mut c = cert(&["cms", "encrypt", "--recipient"]);
    c.arg(pair.join("enc.crt"))
        .args(["--in", p(&msg), "--out", p(&enc)]);
    ok(c);
    std::fs::remove_file(&back).unwrap();
    // `cert cms decrypt` of `enc` into `out` with the pair's certificate and key `side`.
    let decrypt = |side: &str, out: &Path| {
        let mut c = cert(&["cms", "decrypt", "--cert"]);
        c.arg(pair.join(format!("{side}.crt")))
            .arg("--key")
            .arg(pair.join(format!("{side}.key")));
        c.args(["--in", p(&enc), "--out", p(out)]);
        c
    };
    ok(decrypt("enc", &back));
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&msg).unwrap());
    // the sign certificate is not a recipient: nothing written
    let other = at(d, "other");
    let err = fails(decrypt("sign", &other));
    assert!(err.contains("e.p7") && err.contains("recipient"), "{err}");
    assert!(!other.exists());
}

#[test]
fn pkcs12_export_import() {
    let dir = with_ca();
    let d = dir.path();
    let pair = at(d, "pair");
    ok(under_ca(
        d,
        "tlcp-pair",
        &["--subject", "/CN=p12", "--out-dir", p(&pair)],
    ));
    let p12 = at(d, "s.p12");
    let mut c = cert(&["pkcs12", "export", "--cert"]);
    c.arg(pair.join("sign.crt"))
        .arg("--key")
        .arg(pair.join("sign.key"));
    c.args([
        "--ca",
        p(&at(d, "ca.crt")),
        "--out",
        p(&p12),
        "--pass-env",
        "P12_PASS",
    ]);
    c.env("P12_PASS", "secret");
    ok(c);
    let (cert_out, key_out) = (at(d, "c.pem"), at(d, "k.pem"));
    let import = |pass: &str| {
        let mut c = cert(&[
            "pkcs12",
            "import",
            "--in",
            p(&p12),
            "--pass-env",
            "P12_PASS",
        ]);
        c.args(["--cert-out", p(&cert_out), "--key-out", p(&key_out)]);
        c.env("P12_PASS", pass);
        c
    };
    let err = fails(import("wrong"));
    assert!(err.contains("s.p12") && err.contains("password"), "{err}");
    assert!(!cert_out.exists() && !key_out.exists());
    ok(import("secret"));
    let pem = std::fs::read_to_string(&cert_out).unwrap();
    assert_eq!(pem.matches("BEGIN CERTIFICATE").count(), 2);
    assert!(pem.starts_with(&std::fs::read_to_string(pair.join("sign.crt")).unwrap()));
    assert_eq!(
        std::fs::read(&key_out).unwrap(),
        std::fs::read(pair.join("sign.key")).unwrap()
    );
    if let Some(mut o) = openssl("pkcs12_export_import") {
        o.args([
            "pkcs12",
            "-in",
            p(&p12),
            "-passin",
            "pass:secret",
            "-nodes",
            "-out",
        ]);
        o.arg(at(d, "o.pem"));
        ok(o);
    }
    // --scheme sm: SM3/SM4 inside (the HMAC-SM3 PRF OID 1.2.156.10197.1.401.3.1), read back
    let sm = at(d, "sm.p12");
    let mut c = cert(&["pkcs12", "export", "--scheme", "sm", "--cert"]);
    c.arg(pair.join("sign.crt"))
        .arg("--key")
        .arg(pair.join("sign.key"));
    c.args(["--out", p(&sm), "--pass-env", "P12_PASS"]);
    c.env("P12_PASS", "secret");
    ok(c);
    let bytes = std::fs::read(&sm).unwrap();
    let prf = [0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x83, 0x11, 0x03, 0x01];
    assert!(bytes.windows(prf.len()).any(|w| w == prf));
    let mut c = cert(&["pkcs12", "import", "--in", p(&sm), "--pass-env", "P12_PASS"]);
    c.args([
        "--cert-out",
        p(&at(d, "c2.pem")),
        "--key-out",
        p(&at(d, "k2.pem")),
    ]);
    c.env("P12_PASS", "secret");
    ok(c);
    assert_eq!(
        std::fs::read(at(d, "k2.pem")).unwrap(),
        std::fs::read(pair.join("sign.key")).unwrap()
    );
}
