//! `shangmi selftest`: every power-on and conditional test is printed with its result and
//! origin, as a table and as JSON, and the command succeeds on a healthy build; a failed
//! one is a FAIL line and exit status 1. Module mode (`--module`, `SHANGMI_MODULE=1`): a
//! command works, and a failed self-test refuses it (exit code 3).
//!
//! The failures are forced through `shangmi-selftest`'s `fault-injection` feature
//! (`SHANGMI_SELFTEST_FAIL=NAME`), which this crate enables only as a dev-dependency: the
//! `shangmi` binary cargo builds for these tests carries it, a `cargo build` or `cargo
//! install` of it does not.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{at, exits_with, ok, run, scratch, scratch_with, shangmi};

/// The power-on tests of this build, as the library lists them (`selftest/tests/module.rs`
/// pins the names), then the two conditional tests the command adds.
fn tests() -> Vec<&'static str> {
    let mut names: Vec<_> = shangmi_selftest::run()
        .results()
        .iter()
        .map(|r| r.name)
        .collect();
    names.extend(["drbg-health", "sm2-keygen-pairwise"]);
    names
}

#[test]
fn every_test_is_printed_as_passed() {
    let out = String::from_utf8(ok(shangmi().arg("selftest"))).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    let tests = tests();
    assert_eq!(tests.len(), 17);
    assert_eq!(lines.len(), tests.len() + 1, "{out}");
    for (line, &name) in lines.iter().zip(&tests) {
        let mut words = line.split_whitespace();
        assert_eq!(words.next(), Some(name), "{out}");
        assert_eq!(words.next(), Some("pass"), "{out}");
        assert!(words.next().is_some(), "{name} names its origin");
    }
    assert_eq!(lines[tests.len()], "module: operational");
    assert!(out.contains("GB/T 32918.5-2017"));
    assert!(out.contains("GM/T 0044-2016"));
}

#[test]
fn json_lists_every_test() {
    let out = String::from_utf8(ok(shangmi().args(["selftest", "--json"]))).unwrap();
    assert!(
        out.starts_with("{\"passed\":true,\"state\":\"operational\",\"tests\":[{\"name\":\"sm3\",\"passed\":true,"),
        "{out}"
    );
    assert!(out.ends_with("}]}\n"));
    for name in tests() {
        assert!(
            out.contains(&format!(
                "{{\"name\":\"{name}\",\"passed\":true,\"origin\":\""
            )),
            "{name}: {out}"
        );
    }
    assert!(!out.contains("\"passed\":false"));
    // The HMAC-SM3 origin quotes its message: escaped.
    assert!(out.contains("\\\"Hi There\\\""));
}

#[test]
fn a_failed_power_on_test_is_printed_and_fails_the_command() {
    let mut cmd = shangmi();
    cmd.arg("selftest").env("SHANGMI_SELFTEST_FAIL", "sm4-gcm");
    let out = exits_with(cmd, 1);
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("sm4-gcm ")).unwrap();
    assert!(line.contains("FAIL"), "{text}");
    assert_eq!(text.matches("FAIL").count(), 1, "{text}");
    // The conditional tests do not run on a module in its error state.
    assert!(!text.contains("sm2-keygen-pairwise"), "{text}");
    assert!(text.ends_with("module: error\n"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fault-injection hook"), "{err}");
}

/// Module mode: a key made, used and checked; the flag and the variable alike.
#[test]
fn commands_work_in_module_mode() {
    let dir = scratch();
    let d = dir.path();
    let key = at(d, "k.pem");
    let mut cmd = shangmi();
    cmd.args(["--module", "sm2", "keygen", "--out"]).arg(&key);
    ok(cmd);
    let msg = at(d, "m.txt");
    std::fs::write(&msg, b"module mode\n").unwrap();
    // `sm2 OP --key KEY FLAG m.sig m.txt` with SHANGMI_MODULE=1.
    let in_module = |op: &str, flag: &str| {
        let mut cmd = shangmi();
        cmd.args(["sm2", op, "--key"])
            .arg(&key)
            .arg(flag)
            .arg(at(d, "m.sig"))
            .arg(&msg)
            .env("SHANGMI_MODULE", "1");
        cmd
    };
    ok(in_module("sign", "--out"));
    assert_eq!(ok(in_module("verify", "--signature")), b"Verified OK\n");
    let mut cmd = shangmi();
    cmd.args(["sm3sum"]).arg(&msg).env("SHANGMI_MODULE", "1");
    ok(cmd);
    let mut cmd = shangmi();
    cmd.args(["sm3sum"])
        .arg(&msg)
        .env("SHANGMI_MODULE", "maybe");
    assert_eq!(run(cmd, b"").status.code(), Some(2));
}

/// A failed power-on test refuses any command in module mode (exit code 3, the test named,
/// nothing written); a failed pairwise-consistency or DRBG health test refuses the command
/// that generated the key or drew the random numbers — which shows they come from the
/// module. Outside module mode the same variable changes nothing.
#[test]
fn a_failed_self_test_refuses_the_command() {
    let (dir, msg) = scratch_with("m.txt", b"x");
    let d = dir.path();
    let public = at(d, "p.pem");
    let mut cmd = shangmi();
    cmd.args(["sm2", "keygen", "--out"]).arg(at(d, "s.pem"));
    ok(cmd);
    let mut cmd = shangmi();
    cmd.args(["sm2", "pubkey", "--key"])
        .arg(at(d, "s.pem"))
        .arg("--out")
        .arg(&public);
    ok(cmd);
    let (key, public) = (at(d, "k.pem"), public.to_str().unwrap());
    let out = key.to_str().unwrap();
    for (fail, args) in [
        ("sm3", vec!["sm3sum", msg.to_str().unwrap()]),
        ("zuc-eea3", vec!["sm2", "keygen", "--out", out]),
        ("sm2-keygen-pairwise", vec!["sm2", "keygen", "--out", out]),
        ("drbg-health", vec!["sm2", "keygen", "--out", out]),
        // The encryption's k from the module's DRBG.
        (
            "drbg-health",
            vec![
                "sm2",
                "encrypt",
                "--key",
                public,
                "--in",
                msg.to_str().unwrap(),
                "--out",
                out,
            ],
        ),
    ] {
        let mut cmd = shangmi();
        cmd.args(&args)
            .env("SHANGMI_MODULE", "1")
            .env("SHANGMI_SELFTEST_FAIL", fail);
        let out = run(cmd, b"");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{fail}: {err}");
        assert!(
            err.contains("module mode: service refused"),
            "{fail}: {err}"
        );
        assert!(out.stdout.is_empty(), "{fail}");
        assert!(!key.exists(), "{fail}: a key was written");
        // Without module mode the hook is not consulted.
        let mut cmd = shangmi();
        cmd.args(&args).env("SHANGMI_SELFTEST_FAIL", fail);
        ok(cmd);
        let _ = std::fs::remove_file(&key);
    }
    let mut cmd = shangmi();
    cmd.args(["--module", "sm3sum"])
        .arg(&msg)
        .env("SHANGMI_SELFTEST_FAIL", "sm3");
    let out = run(cmd, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(failed: sm3)"), "{err}");
}
