//! `shangmi sm2`: keys, signatures and encryption interoperating with Debian's `openssl`
//! (3.0) in both directions, and the refusals (wrong key, wrong ID, changed message,
//! tampered ciphertext) with their exit codes.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::path::Path;
use std::process::Command;

use common::{at, bytes, exits_with, ok, openssl, p, run, scratch, scratch_with, shangmi};

/// The standard's default distinguishing ID (GB/T 32918.2), what `--id` defaults to.
const DEFAULT_ID: &str = "distid:1234567812345678";

fn sm2(args: &[&str]) -> Command {
    let mut cmd = shangmi();
    cmd.arg("sm2").args(args);
    cmd
}

#[test]
fn own_keys_signatures_and_ciphertexts_round_trip() {
    let dir = scratch();
    let d = dir.path();
    let (key, public, msg) = (at(d, "key.pem"), at(d, "pub.pem"), at(d, "msg"));
    ok(&mut sm2(&[
        "keygen",
        "--out",
        p(&key),
        "--pubout",
        p(&public),
    ]));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the private key is readable by others");
    }
    std::fs::write(&msg, bytes(1000, 1)).unwrap();
    // pubkey of the private key is the public key keygen wrote.
    assert_eq!(
        ok(&mut sm2(&["pubkey", "--key", p(&key)])),
        std::fs::read(&public).unwrap()
    );

    for raw in [false, true] {
        let mut sign = sm2(&["sign", "--key", p(&key), "--out", p(&at(d, "sig")), p(&msg)]);
        if raw {
            sign.arg("--raw");
        }
        ok(&mut sign);
        let sig = std::fs::read(at(d, "sig")).unwrap();
        assert!(if raw { sig.len() == 64 } else { sig[0] == 0x30 });
        let verify = |key: &Path, id: &str, message: &Path| {
            run(
                &mut sm2(&[
                    "verify",
                    "--key",
                    p(key),
                    "--signature",
                    p(&at(d, "sig")),
                    "--id",
                    id,
                    p(message),
                ]),
                b"",
            )
        };
        let good = verify(&public, "1234567812345678", &msg);
        assert_eq!(
            (good.status.code(), good.stdout),
            (Some(0), b"Verified OK\n".to_vec())
        );
        // The private key verifies too (its public half is taken).
        assert_eq!(
            verify(&key, "1234567812345678", &msg).status.code(),
            Some(0)
        );
        // Another ID, another message, another key: exit 1 and "Verification failure".
        let bad = verify(&public, "alice@example.com", &msg);
        assert_eq!(
            (bad.status.code(), bad.stdout),
            (Some(1), b"Verification failure\n".to_vec())
        );
        std::fs::write(at(d, "other"), bytes(1000, 2)).unwrap();
        assert_eq!(
            verify(&public, "1234567812345678", &at(d, "other"))
                .status
                .code(),
            Some(1)
        );
        ok(&mut sm2(&["keygen", "--out", p(&at(d, "key2.pem"))]));
        assert_eq!(
            verify(&at(d, "key2.pem"), "1234567812345678", &msg)
                .status
                .code(),
            Some(1)
        );
    }

    let ct = at(d, "ct");
    let encrypt = |key: &std::path::Path| {
        sm2(&["encrypt", "--key", p(key), "--in", p(&msg), "--out", p(&ct)])
    };
    let decrypt = || sm2(&["decrypt", "--key", p(&key), "--in", p(&ct)]);
    for extra in [
        &[][..],
        &["--raw"],
        &["--layout", "c1c2c3"],
        &["--raw", "--compressed"],
        // the library's layout names, any case
        &["--layout", "C1C2C3_RAW"],
    ] {
        ok(encrypt(&public).args(extra));
        let mut dec = decrypt();
        let layout: &[&str] = if extra.contains(&"c1c2c3") {
            &["--layout", "c1c2c3"]
        } else if extra.contains(&"C1C2C3_RAW") {
            &["--layout", "c1c2c3-raw"]
        } else if extra.is_empty() {
            &[]
        } else {
            &["--raw"]
        };
        assert_eq!(
            ok(dec.args(layout)),
            std::fs::read(&msg).unwrap(),
            "{extra:?}"
        );
    }
    // A bare point (x ‖ y, as GmSSL's Python package and sm-crypto write it) is a public
    // key too, and --compressed contradicts a _raw layout.
    let spki = std::fs::read_to_string(&public).unwrap();
    let spki = shangmi_sm2::keys::public_key_from_pem(&spki).unwrap();
    let spki = shangmi_sm2::keys::public_key_to_spki_der(&spki, Default::default()).unwrap();
    std::fs::write(
        at(d, "pub.xy"),
        &spki.as_bytes()[spki.as_bytes().len() - 64..],
    )
    .unwrap();
    ok(&mut encrypt(&at(d, "pub.xy")));
    assert_eq!(ok(&mut decrypt()), std::fs::read(&msg).unwrap());
    let mut enc = sm2(&[
        "encrypt",
        "--key",
        p(&public),
        "--in",
        p(&msg),
        "--compressed",
    ]);
    enc.args(["--layout", "c1c3c2_raw"]);
    assert_eq!(run(&mut enc, b"").status.code(), Some(2));
    // A changed ciphertext byte fails (C3 check) with exit 1 and no output file.
    ok(&mut encrypt(&public));
    let mut ct = std::fs::read(at(d, "ct")).unwrap();
    let last = ct.len() - 1;
    ct[last] ^= 1;
    std::fs::write(at(d, "ct"), ct).unwrap();
    exits_with(decrypt().args(["--out", p(&at(d, "pt"))]), 1);
    assert!(!at(d, "pt").exists());
    // An empty message is refused (GB/T 32918.4 has no key stream to check for it).
    std::fs::write(at(d, "empty"), b"").unwrap();
    exits_with(
        &mut sm2(&["encrypt", "--key", p(&public), "--in", p(&at(d, "empty"))]),
        1,
    );
}

#[test]
fn key_files_that_are_not_keys_are_named_in_the_error() {
    let dir = scratch();
    let d = dir.path();
    std::fs::write(
        at(d, "junk.pem"),
        b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    std::fs::write(at(d, "msg"), b"m").unwrap();
    for key in ["junk.pem", "msg", "nosuch"] {
        let out = run(
            &mut sm2(&["sign", "--key", p(&at(d, key)), p(&at(d, "msg"))]),
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{key}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(key), "{key}");
    }
}

/// Every direction with Debian's OpenSSL 3.0: keys either way, `openssl dgst -sm3
/// -sign/-verify -sigopt distid:…` signatures either way (and OpenSSL's empty default ID
/// with `--id ''`), `openssl pkeyutl -encrypt/-decrypt` ciphertexts either way, and a SEC1
/// key from `openssl ec`.
#[test]
fn diff_openssl_sm2_both_ways() {
    let test = "diff_openssl_sm2_both_ways";
    let Some(_) = openssl(test) else {
        return;
    };
    let openssl = |args: &[&str]| {
        let mut cmd = Command::new("openssl");
        cmd.args(args);
        ok(&mut cmd)
    };
    let (dir, msg) = scratch_with("msg", bytes(5000, 3));
    let d = dir.path();
    let (ours, ours_pub) = (at(d, "ours.pem"), at(d, "ours.pub"));
    let (theirs, theirs_pub) = (at(d, "theirs.pem"), at(d, "theirs.pub"));
    ok(&mut sm2(&[
        "keygen",
        "--out",
        p(&ours),
        "--pubout",
        p(&ours_pub),
    ]));
    openssl(&["genpkey", "-algorithm", "SM2", "-out", p(&theirs)]);
    openssl(&["pkey", "-in", p(&theirs), "-pubout", "-out", p(&theirs_pub)]);
    // Our key files read by OpenSSL: its public key equals ours.
    assert_eq!(
        openssl(&["pkey", "-in", p(&ours), "-pubout"]),
        std::fs::read(&ours_pub).unwrap()
    );
    // Their key read by us: same public key (PEM text equal).
    assert_eq!(
        ok(&mut sm2(&["pubkey", "--key", p(&theirs)])),
        std::fs::read(&theirs_pub).unwrap()
    );
    // Their key encrypted in PBES2 forms the SM2 crate does not write (PBKDF2 with
    // HMAC-SHA-1, scrypt): read through the PKI crate's reader, same public key.
    for (name, scheme) in [
        (
            "sha1.pem",
            &["-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1"][..],
        ),
        ("scrypt.pem", &["-scrypt"][..]),
    ] {
        let mut args = vec![
            "pkcs8",
            "-topk8",
            "-in",
            p(&theirs),
            "-passout",
            "pass:peer",
        ];
        args.extend_from_slice(scheme);
        let encrypted = at(d, name);
        args.extend_from_slice(&["-out", p(&encrypted)]);
        openssl(&args);
        assert_eq!(
            ok(&mut sm2(&[
                "pubkey",
                "--key",
                p(&encrypted),
                "--passin",
                "pass:peer"
            ])),
            std::fs::read(&theirs_pub).unwrap(),
            "{name}"
        );
    }
    // SEC1 (`openssl ec` writes "SM2 PRIVATE KEY" / "EC PRIVATE KEY") and DER PKCS#8.
    let sec1 = at(d, "sec1.pem");
    openssl(&["ec", "-in", p(&theirs), "-out", p(&sec1)]);
    let der = at(d, "theirs.der");
    openssl(&[
        "pkey",
        "-in",
        p(&theirs),
        "-outform",
        "DER",
        "-out",
        p(&der),
    ]);

    let sig = at(d, "sig");
    // `openssl dgst` checks `sig` over `msg` with `public` under the default ID.
    let openssl_verify = |public: &Path| {
        let mut cmd = Command::new("openssl");
        cmd.args(["dgst", "-sm3", "-verify", p(public), "-sigopt", DEFAULT_ID])
            .args(["-signature", p(&sig), p(&msg)]);
        cmd
    };
    // `shangmi sm2 verify` checks `sig` over `msg` with `public` and the `extra` options.
    let ours_verify = |public: &Path, extra: &[&str]| {
        let mut cmd = sm2(&["verify", "--key", p(public), "--signature", p(&sig)]);
        cmd.args(extra).arg(&msg);
        cmd
    };
    // Ours signs (every key form), OpenSSL verifies.
    for key in [&ours, &theirs, &sec1, &der] {
        ok(&mut sm2(&[
            "sign",
            "--key",
            p(key),
            "--out",
            p(&sig),
            p(&msg),
        ]));
        let public = if key == &ours { &ours_pub } else { &theirs_pub };
        let out = ok(openssl_verify(public));
        assert_eq!(out, b"Verified OK\n", "{key:?}");
    }
    // OpenSSL signs, ours verifies; with OpenSSL's default (empty) ID, `--id ''` does.
    for (key, public) in [(&ours, &ours_pub), (&theirs, &theirs_pub)] {
        openssl(&[
            "dgst",
            "-sm3",
            "-sign",
            p(key),
            "-sigopt",
            DEFAULT_ID,
            "-out",
            p(&sig),
            p(&msg),
        ]);
        let out = ok(ours_verify(public, &[]));
        assert_eq!(out, b"Verified OK\n");
        openssl(&["dgst", "-sm3", "-sign", p(key), "-out", p(&sig), p(&msg)]);
        let out = ok(ours_verify(public, &["--id", ""]));
        assert_eq!(out, b"Verified OK\n");
        let out = run(ours_verify(public, &[]), b"");
        assert_eq!(
            out.status.code(),
            Some(1),
            "the default ID is not OpenSSL's empty one"
        );
    }
    // A signature OpenSSL refuses: ours over another message.
    ok(&mut sm2(&[
        "sign",
        "--key",
        p(&ours),
        "--out",
        p(&sig),
        "--id",
        "someone else",
        p(&msg),
    ]));
    assert!(
        !run(openssl_verify(&ours_pub), b"").status.success(),
        "OpenSSL accepted a signature under another ID"
    );

    // Encrypted keys: OpenSSL's (PBES2, AES-256-CBC) signs with us; ours (--scheme aes)
    // opens in OpenSSL; a wrong passphrase fails with exit 1.
    let locked = at(d, "locked.pem");
    openssl(&[
        "pkey",
        "-in",
        p(&theirs),
        "-aes256",
        "-passout",
        "pass:p4ss",
        "-out",
        p(&locked),
    ]);
    ok(&mut sm2(&[
        "sign",
        "--key",
        p(&locked),
        "--passin",
        "pass:p4ss",
        "--out",
        p(&sig),
        p(&msg),
    ]));
    let out = ok(openssl_verify(&theirs_pub));
    assert_eq!(out, b"Verified OK\n");
    exits_with(
        &mut sm2(&[
            "sign",
            "--key",
            p(&locked),
            "--passin",
            "pass:wrong",
            p(&msg),
        ]),
        1,
    );
    let ours_locked = at(d, "ours-locked.pem");
    ok(&mut sm2(&[
        "keygen",
        "--scheme",
        "aes",
        "--passout",
        "pass:p4ss",
        "--out",
        p(&ours_locked),
    ]));
    let public = openssl(&[
        "pkey",
        "-in",
        p(&ours_locked),
        "-passin",
        "pass:p4ss",
        "-pubout",
    ]);
    let ours_public = ok(&mut sm2(&[
        "pubkey",
        "--key",
        p(&ours_locked),
        "--passin",
        "pass:p4ss",
    ]));
    assert_eq!(public, ours_public);

    // Encryption: ours to OpenSSL, OpenSSL to ours, short and longer messages.
    let ct = at(d, "ct");
    for size in [1, 32, 1000] {
        std::fs::write(&msg, bytes(size, size as u32)).unwrap();
        ok(&mut sm2(&[
            "encrypt",
            "--key",
            p(&theirs_pub),
            "--in",
            p(&msg),
            "--out",
            p(&ct),
        ]));
        let out = openssl(&["pkeyutl", "-decrypt", "-inkey", p(&theirs), "-in", p(&ct)]);
        assert_eq!(
            out,
            std::fs::read(&msg).unwrap(),
            "ours -> openssl, {size} bytes"
        );
        openssl(&[
            "pkeyutl",
            "-encrypt",
            "-pubin",
            "-inkey",
            p(&ours_pub),
            "-in",
            p(&msg),
            "-out",
            p(&ct),
        ]);
        let out = ok(&mut sm2(&["decrypt", "--key", p(&ours), "--in", p(&ct)]));
        assert_eq!(
            out,
            std::fs::read(&msg).unwrap(),
            "openssl -> ours, {size} bytes"
        );
    }
}

#[test]
fn encrypted_keys_round_trip_in_both_schemes() {
    let (dir, msg) = scratch_with("msg", b"firmware image");
    let d = dir.path();
    std::fs::write(at(d, "passfile"), b"from a file\nsecond line ignored\n").unwrap();
    for scheme in ["sm4", "aes"] {
        let (key, public) = (at(d, "key.pem"), at(d, "pub.pem"));
        ok(&mut sm2(&[
            "keygen",
            "--scheme",
            scheme,
            "--iter",
            "1000",
            "--passout",
            &format!("file:{}", p(&at(d, "passfile"))),
            "--out",
            p(&key),
            "--pubout",
            p(&public),
        ]));
        assert!(
            std::fs::read_to_string(&key)
                .unwrap()
                .starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        );
        let sig = at(d, "sig");
        ok(&mut sm2(&[
            "sign",
            "--key",
            p(&key),
            "--passin",
            "pass:from a file",
            "--out",
            p(&sig),
            p(&msg),
        ]));
        ok(&mut sm2(&[
            "verify",
            "--key",
            p(&public),
            "--signature",
            p(&sig),
            p(&msg),
        ]));
        // Wrong passphrase, and none without a terminal to ask on: exit 1, named.
        for passin in [&["--passin", "pass:nope"][..], &[]] {
            let out = run(sm2(&["sign", "--key", p(&key), p(&msg)]).args(passin), b"");
            assert_eq!(out.status.code(), Some(1), "{scheme} {passin:?}");
            let said = String::from_utf8_lossy(&out.stderr).into_owned();
            let expected = if passin.is_empty() {
                "--passin"
            } else {
                "wrong password"
            };
            assert!(said.contains(expected), "{scheme} {passin:?}: {said}");
        }
    }
}
