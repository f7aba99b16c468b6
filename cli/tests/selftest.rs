//! `shangmi selftest`: every power-on and conditional test is printed with its result and
//! origin, as a table and as JSON, and the command succeeds on a healthy build. (The
//! failure path, a FAIL line and exit status 1, is the unit test in `src/selftest.rs`: a
//! normal build has no way to make a known-answer test fail, by design.)

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{ok, shangmi};

const TESTS: [&str; 17] = [
    "sm3",
    "hmac-sm3",
    "sm4-encrypt",
    "sm4-decrypt",
    "sm4-gcm",
    "sm2-sign",
    "sm2-verify",
    "sm2-encrypt-decrypt",
    "zuc-128",
    "zuc-eea3",
    "zuc-eia3",
    "sm9-sign",
    "sm9-verify",
    "drbg-sm3",
    "drbg-sm4",
    "drbg-health",
    "sm2-keygen-pairwise",
];

#[test]
fn every_test_is_printed_as_passed() {
    let out = String::from_utf8(ok(shangmi().arg("selftest"))).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), TESTS.len() + 1, "{out}");
    for (line, name) in lines.iter().zip(TESTS) {
        let mut words = line.split_whitespace();
        assert_eq!(words.next(), Some(name), "{out}");
        assert_eq!(words.next(), Some("pass"), "{out}");
        assert!(words.next().is_some(), "{name} names its origin");
    }
    assert_eq!(lines[TESTS.len()], "module: operational");
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
    for name in TESTS {
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
