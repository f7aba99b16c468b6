//! `shangmi pkcs11 list|sm3|sm4` and `pkcs11:` key URIs, against the PKCS#11 test token
//! (`testdevice/pkcs11`, a cdylib cargo builds as a dev-dependency of this crate): a
//! signature made with `--key pkcs11:…` verifies with the public key the token shows.

mod common;

use common::{
    assert_contains_all, at, exits_with, ok, ok_text, run, scratch, scratch_with, shangmi,
};

/// The test token's module.
fn module() -> String {
    common::test_device("shangmi_testdevice_pkcs11")
}

/// The URI of `object` on the test token, the PIN from SHANGMI_TEST_P11_PIN.
fn uri(object: &str) -> String {
    format!(
        "pkcs11:token=shangmi-p11;object={object};type=private?module-path={}&pin-env=SHANGMI_TEST_P11_PIN",
        module()
    )
}

#[test]
fn list_shows_tokens_mechanisms_and_keys() {
    let m = module();
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "list", "--lib", &m]);
    let out = ok_text(cmd);
    assert_contains_all(
        &out,
        &[
            "library: shangmi test PKCS#11 token (shangmi), version 1.0, Cryptoki 2.40",
            "slot 0 (shangmi test slot 0): token \"shangmi-p11\", shangmi soft p11 (serial 0000)",
            "slot 1 (shangmi test slot 1): token \"lockout\"",
            "  sansec mechanisms: sign digest yes, sign with SM3 yes, decrypt yes, SM3 yes, SM4-ECB yes, SM4-CBC yes",
            "  public \"tlcp-sign\" id=%01 SM2",
            "    pkcs11:token=shangmi-p11;object=tlcp-sign;id=%01;type=public",
        ],
    );
    // Without a login no private key shows; with one they do, with their usage.
    assert!(!out.contains("  private "), "{out}");
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "list", "--lib", &m, "--pin-env", "P11"])
        .env("P11", "12345678");
    let out = ok_text(cmd);
    assert!(
        out.contains("  private \"tlcp-enc\" id=%02 SM2 decrypt"),
        "{out}"
    );
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "list", "--lib", &m, "--mechanisms", "luna"]);
    let out = ok_text(cmd);
    assert!(out.contains("luna mechanisms: sign digest no"), "{out}");
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "list", "--lib", "/nonexistent/libp11.so"]);
    let out = exits_with(cmd, 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot load the PKCS#11 module"), "{err}");
}

#[test]
fn sign_with_a_token_key_verifies_with_its_public_key() {
    let (dir, msg) = scratch_with("msg", b"signed inside a PKCS#11 token");
    let d = dir.path();
    let p = |p: &std::path::Path| p.to_str().expect("UTF-8 path").to_owned();
    let mut cmd = shangmi();
    cmd.args([
        "sm2",
        "pubkey",
        "--key",
        &uri("tlcp-sign"),
        "--out",
        &p(&at(d, "pub.pem")),
    ]);
    ok(cmd);
    // `sm2 sign` with the token's key `object`, the PIN `pin`, into `out`.
    let sign = |object: &str, pin: &str, out: &str| {
        let mut cmd = shangmi();
        cmd.args(["sm2", "sign", "--key", &uri(object), "--out"])
            .args([p(&at(d, out)), p(&msg)])
            .env("SHANGMI_TEST_P11_PIN", pin);
        cmd
    };
    ok(sign("tlcp-sign", "12345678", "sig"));
    let verify = |message: &std::path::Path| {
        let mut cmd = shangmi();
        cmd.args([
            "sm2",
            "verify",
            "--key",
            &p(&at(d, "pub.pem")),
            "--signature",
            &p(&at(d, "sig")),
            &p(message),
        ]);
        run(cmd, b"")
    };
    let good = verify(&msg);
    assert_eq!(
        (good.status.code(), good.stdout),
        (Some(0), b"Verified OK\n".to_vec())
    );
    std::fs::write(at(d, "other"), b"another message").expect("write");
    assert_ne!(verify(&at(d, "other")).status.code(), Some(0));
    // A wrong PIN: a typed message, without the PIN.
    let out = run(sign("tlcp-sign", "99999999", "sig2"), b"");
    // Exit code 4, as a refused PIN of an SDF or SKF device.
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("wrong PIN") && !err.contains("99999999"),
        "{err}"
    );
    // The encryption key cannot sign: refused before use, as a usage error.
    exits_with(sign("tlcp-enc", "12345678", "sig3"), 2);
}

#[test]
fn sm3_and_sm4_inside_the_token() {
    let m = module();
    let dir = scratch();
    let d = dir.path();
    let p = |p: &std::path::Path| p.to_str().expect("UTF-8 path").to_owned();
    std::fs::write(at(d, "abc"), b"abc").expect("write");
    // GB/T 32905-2016 Appendix A.1.
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "sm3", "--lib", &m, "--token", "shangmi-p11"])
        .arg(at(d, "abc"));
    let out = ok_text(cmd);
    assert!(
        out.starts_with("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0  "),
        "{out}"
    );
    // Two tokens and none named: refused, naming the ambiguity.
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "sm3", "--lib", &m]).arg(at(d, "abc"));
    exits_with(cmd, 1);
    // SM4 with the token's key (GB/T 32907-2016 Appendix A.1's): ECB of the example block
    // gives the example ciphertext, then the PKCS#7 block; CBC round trips.
    let key = format!(
        "pkcs11:token=shangmi-p11;object=sm4-key;type=secret-key?module-path={m}&pin-env=SHANGMI_TEST_P11_PIN"
    );
    let block = [
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32,
        0x10,
    ];
    std::fs::write(at(d, "block"), block).expect("write");
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "sm4", "--key", &key, "--out", &p(&at(d, "ecb"))])
        .arg(at(d, "block"))
        .env("SHANGMI_TEST_P11_PIN", "12345678");
    ok(cmd);
    let ecb = std::fs::read(at(d, "ecb")).expect("read");
    assert_eq!(ecb.len(), 32);
    assert_eq!(
        ecb[..16],
        [
            0x68, 0x1e, 0xdf, 0x34, 0xd2, 0x06, 0x96, 0x5e, 0x86, 0xb3, 0xe9, 0x4f, 0x53, 0x6e,
            0x42, 0x46
        ]
    );
    let iv = "000102030405060708090a0b0c0d0e0f";
    std::fs::write(at(d, "msg"), b"encrypted inside the token").expect("write");
    let mut cmd = shangmi();
    cmd.args([
        "pkcs11",
        "sm4",
        "--key",
        &key,
        "--iv",
        iv,
        "--out",
        &p(&at(d, "cbc")),
    ])
    .arg(at(d, "msg"))
    .env("SHANGMI_TEST_P11_PIN", "12345678");
    ok(cmd);
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "sm4", "--key", &key, "--decrypt", "--iv", iv])
        .arg(at(d, "cbc"))
        .env("SHANGMI_TEST_P11_PIN", "12345678");
    assert_eq!(ok(cmd), b"encrypted inside the token");
    // Decrypting as ECB what was CBC-encrypted: the padding check refuses it.
    let mut cmd = shangmi();
    cmd.args(["pkcs11", "sm4", "--key", &key, "--decrypt"])
        .arg(at(d, "cbc"))
        .env("SHANGMI_TEST_P11_PIN", "12345678");
    let out = run(cmd, b"");
    assert_ne!(out.status.code(), Some(0));
}
