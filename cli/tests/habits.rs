//! The habits every command shares: `--help` and `--version` everywhere, usage errors exit
//! 2, completion scripts for each shell name every command.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{ok, run, shangmi};

/// Every command path of the `shangmi` tree (the lead's `tls` adds its own).
const COMMANDS: &[&[&str]] = &[
    &[],
    &["speed"],
    &["sm3sum"],
    &["sm2", "keygen"],
    &["sm2", "pubkey"],
    &["sm2", "sign"],
    &["sm2", "verify"],
    &["sm2", "encrypt"],
    &["sm2", "decrypt"],
    &["sm4", "encrypt"],
    &["sm4", "decrypt"],
    &["tls", "server"],
    &["tls", "client"],
    &["completions"],
];

#[test]
fn help_and_version_on_every_command() {
    for path in COMMANDS {
        let help = String::from_utf8(ok(shangmi().args(*path).arg("--help"))).unwrap();
        assert!(help.contains("Usage: shangmi"), "{path:?}: {help}");
        let version = String::from_utf8(ok(shangmi().args(*path).arg("--version"))).unwrap();
        assert!(
            version.trim_end().ends_with(env!("CARGO_PKG_VERSION")),
            "{path:?}: {version}"
        );
        let out = run(shangmi().args(*path).arg("--no-such-option"), b"");
        assert_eq!(out.status.code(), Some(2), "{path:?}");
    }
}

#[test]
fn completion_scripts_name_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = String::from_utf8(ok(shangmi().args(["completions", shell]))).unwrap();
        for command in ["speed", "sm3sum", "sm2", "keygen", "sm4", "decrypt"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
    assert_eq!(
        run(shangmi().args(["completions", "tcsh"]), b"")
            .status
            .code(),
        Some(2)
    );
}

/// A closed pipe ends a command quietly, as SIGPIPE stops coreutils (`shangmi speed | head
/// -3`): no panic message, no panic's exit code 101. `speed` printed with `println!`, which
/// panics on a closed stdout, until it wrote through `io::Write` like the other commands.
#[test]
fn closed_pipe_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = shangmi()
        .args(["speed", "--seconds", "0.01", "sm3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("shangmi speed on "), "{first}");
    // The reader is dropped here: every later write of the child meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}
