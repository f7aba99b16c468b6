//! Helpers of the command-line tests: run the built binaries, find `openssl`, scratch
//! directories.

#![allow(dead_code)] // each test file uses a different subset
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::borrow::BorrowMut;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `shangmi` binary built for this test run.
pub fn shangmi() -> Command {
    Command::new(env!("CARGO_BIN_EXE_shangmi"))
}

/// The `sm3sum` binary built for this test run.
pub fn sm3sum() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sm3sum"))
}

/// `openssl` if it is installed (CI installs Debian's); otherwise prints why the caller
/// skips and returns `None`.
pub fn openssl(test: &str) -> Option<Command> {
    let found = Command::new("openssl")
        .arg("version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("note: {test}: `openssl` is not installed; skipping the OpenSSL interop part");
        return None;
    }
    Some(Command::new("openssl"))
}

/// Runs `cmd` with `stdin` as standard input; returns its output.
pub fn run(mut cmd: impl BorrowMut<Command>, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd
        .borrow_mut()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // A command that does not read its input closes the pipe; that is fine.
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Runs `cmd` and asserts success; returns standard output.
pub fn ok(mut cmd: impl BorrowMut<Command>) -> Vec<u8> {
    let cmd = cmd.borrow_mut();
    let out = run(&mut *cmd, b"");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `cmd` and asserts success; returns standard output as text.
pub fn ok_text(cmd: impl BorrowMut<Command>) -> String {
    String::from_utf8(ok(cmd)).expect("UTF-8")
}

/// Asserts that `text` holds each of `wants`.
pub fn assert_contains_all(text: &str, wants: &[&str]) {
    for want in wants {
        assert!(text.contains(want), "{want:?} not in:\n{text}");
    }
}

/// Runs `cmd` and asserts that it exits with `code` (its standard error in the message);
/// returns its output.
pub fn exits_with(mut cmd: impl BorrowMut<Command>, code: i32) -> Output {
    let cmd = cmd.borrow_mut();
    let out = run(&mut *cmd, b"");
    assert_eq!(
        out.status.code(),
        Some(code),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A scratch directory removed at the end of the test.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A scratch directory holding one input file `name` with `contents`, and that file's path.
pub fn scratch_with(name: &str, contents: impl AsRef<[u8]>) -> (tempfile::TempDir, PathBuf) {
    let dir = scratch();
    let file = at(dir.path(), name);
    std::fs::write(&file, contents).unwrap();
    (dir, file)
}

/// `dir/name` as a path.
pub fn at(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

/// `path` as a command-line argument (the tests' scratch paths are UTF-8).
pub fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

mod test_bytes;

/// Deterministic test bytes (not random: failures reproduce).
#[allow(unused_imports)] // each test file uses a different subset (as the `dead_code` above)
pub use test_bytes::bytes;

/// A free loopback port (bound, read, released).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// Waits until a server accepts connections on the loopback `port` (at most ~5 s); the
/// probe connection counts as one the server serves.
pub fn wait_for_listener(port: u16) {
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Starts a server (standard output discarded; standard error into `dir/log` if `log` is
/// given, else a pipe) and waits until it accepts connections on `port`.
pub fn spawn_server(cmd: &mut Command, port: u16, log: Option<&Path>) -> std::process::Child {
    let stderr = match log {
        Some(dir) => Stdio::from(std::fs::File::create(at(dir, "log")).expect("log file")),
        None => Stdio::piped(),
    };
    let child = cmd
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("server starts");
    wait_for_listener(port);
    child
}

/// Waits for a server started by [`spawn_server`] with a log in `dir`: asserts that it
/// exited successfully, and returns its log.
pub fn finish_server(mut child: std::process::Child, dir: &Path) -> String {
    let exit = child.wait().expect("exits");
    let log = std::fs::read_to_string(at(dir, "log")).expect("log");
    assert!(exit.success(), "{exit}: {log}");
    log
}

/// `shangmi` with `pin` in `SHANGMI_TEST_PIN` (the variable the test devices' URIs name).
pub fn with_pin(pin: &str) -> Command {
    let mut cmd = shangmi();
    cmd.env("SHANGMI_TEST_PIN", pin);
    cmd
}

/// `shangmi sm4 OP --mode MODE --key KEY --in INPUT --out OUT`.
pub fn sm4(op: &str, mode: &str, key: &str, input: &Path, out: &Path) -> Command {
    let mut cmd = shangmi();
    cmd.args(["sm4", op, "--mode", mode, "--key", key, "--in"])
        .arg(input)
        .arg("--out")
        .arg(out);
    cmd
}

/// `shangmi cert ARGS…`.
pub fn cert(args: &[&str]) -> Command {
    let mut cmd = shangmi();
    cmd.arg("cert").args(args);
    cmd
}

/// `shangmi cert OP --ca DIR/ca.crt --ca-key DIR/ca.key ARGS…`: an operation under the CA
/// that [`make_ca`] made in `d`.
pub fn under_ca(d: &Path, op: &str, args: &[&str]) -> Command {
    let (ca, ca_key) = (at(d, "ca.crt"), at(d, "ca.key"));
    let mut c = cert(&[op, "--ca", ca.to_str().unwrap(), "--ca-key"]);
    c.arg(ca_key).args(args);
    c
}

/// `shangmi cert issue` of the request `csr` with `profile` into `out`, under the CA that
/// [`make_ca`] made in `d`.
pub fn issue(d: &Path, csr: &Path, profile: &str, out: &Path) -> Command {
    let mut c = under_ca(d, "issue", &["--profile", profile, "--csr"]);
    c.arg(csr).arg("--out").arg(out);
    c
}

/// An SM2 leaf in `dir` under the CA of [`make_ca`] there: `NAME.key`, its request
/// `NAME.csr` for `subject` with the subjectAltName `san`, and `NAME.crt` issued with
/// `profile`.
pub fn make_leaf(dir: &Path, name: &str, subject: &str, san: &str, profile: &str) {
    let file = |ext: &str| dir.join(format!("{name}.{ext}"));
    let mut keygen = shangmi();
    keygen.args(["sm2", "keygen", "--out"]).arg(file("key"));
    ok(keygen);
    let mut req = cert(&["req", "--subject", subject, "--san", san, "--key"]);
    req.arg(file("key")).arg("--out").arg(file("csr"));
    ok(req);
    ok(issue(dir, &file("csr"), profile, &file("crt")));
}

/// `shangmi cert ca` with `subject` (and `extra` options): `dir/ca.key` and `dir/ca.crt`.
pub fn make_ca(dir: &Path, subject: &str, extra: &[&str]) {
    let mut cmd = shangmi();
    cmd.args(["cert", "ca", "--subject", subject, "--key-out"])
        .arg(dir.join("ca.key"))
        .arg("--out")
        .arg(dir.join("ca.crt"))
        .args(extra);
    ok(cmd);
}

/// `shangmi cert tlcp-pair` under the CA of [`make_ca`] in `dir`, with `subject` and the
/// `extra` options: `dir/name/{sign,enc}.{crt,key}`.
pub fn make_tlcp_pair(dir: &Path, name: &str, subject: &str, extra: &[&str]) {
    let mut cmd = shangmi();
    cmd.args(["cert", "tlcp-pair", "--ca"])
        .arg(dir.join("ca.crt"))
        .arg("--ca-key")
        .arg(dir.join("ca.key"))
        .args(["--subject", subject, "--out-dir"])
        .arg(dir.join(name))
        .args(extra);
    ok(cmd);
}

/// A CA (`ca_subject`) in `dir` and under it the TLCP pair `dir/server/` for `localhost`
/// (subject `/C=CN/O=shangmi/CN=localhost`, SAN `DNS:localhost`), as the servers' tests use.
pub fn make_ca_and_localhost_pair(dir: &Path, ca_subject: &str) {
    make_ca(dir, ca_subject, &[]);
    make_tlcp_pair(
        dir,
        "server",
        "/C=CN/O=shangmi/CN=localhost",
        &["--san", "DNS:localhost"],
    );
}

/// `FLAG dir/NAME` for each `(FLAG, NAME)` of `files`: options naming files in `dir`.
pub fn file_flags(dir: &Path, files: &[(&str, &str)]) -> Vec<String> {
    files
        .iter()
        .flat_map(|(flag, name)| [flag.to_string(), at(dir, name).to_str().unwrap().to_owned()])
        .collect()
}

/// `--KIND-cert dir/STEM.crt --KIND-key dir/STEM.key` for each `(KIND, STEM)` of `kinds`.
pub fn cert_key_flags(dir: &Path, kinds: &[(&str, &str)]) -> Vec<String> {
    let path = |stem: &str, ext: &str| {
        let file = dir.join(format!("{stem}.{ext}"));
        file.to_str().unwrap().to_owned()
    };
    kinds
        .iter()
        .flat_map(|(kind, stem)| {
            [
                format!("--{kind}-cert"),
                path(stem, "crt"),
                format!("--{kind}-key"),
                path(stem, "key"),
            ]
        })
        .collect()
}

/// The options naming the pair that [`make_tlcp_pair`] made in `dir/name`: `--sign-cert`,
/// `--sign-key`, `--enc-cert` and `--enc-key`, each with its file.
pub fn pair_flags(dir: &Path, name: &str) -> Vec<String> {
    cert_key_flags(&dir.join(name), &[("sign", "sign"), ("enc", "enc")])
}

mod testdevice;

/// A test device's library (`testdevice/sdf`, `testdevice/skf`: cdylibs cargo builds as
/// dev-dependencies of this crate), named by its crate (`shangmi_testdevice_sdf`), as a
/// string for the command line.
pub fn test_device(crate_name: &str) -> String {
    let path = testdevice::library(crate_name);
    path.to_str().expect("UTF-8 path").to_owned()
}

/// Every kind of command that opens a private key (`sm2 sign|decrypt`, `cert
/// req|ca|issue`, `cert cms sign|decrypt`) with the key `key`, its files in `dir` (a CA
/// made there by [`make_ca`]).
pub fn commands_opening(dir: &Path, key: &str) -> Vec<Vec<String>> {
    let msg = dir.join("msg.txt");
    std::fs::write(&msg, b"x").unwrap();
    make_ca(dir, "/CN=x", &[]);
    let p = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    let (msg, cert) = (p("msg.txt"), p("ca.crt"));
    let v = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    vec![
        v(&["sm2", "sign", "--key", key, &msg]),
        v(&["sm2", "decrypt", "--key", key, "--in", &msg]),
        v(&["cert", "req", "--key", key, "--subject", "/CN=x"]),
        v(&["cert", "ca", "--key", key, "--subject", "/CN=x"]),
        v(&[
            "cert", "cms", "sign", "--cert", &cert, "--key", key, "--in", &msg,
        ]),
        v(&[
            "cert", "cms", "decrypt", "--cert", &cert, "--key", key, "--in", &msg,
        ]),
        v(&[
            "cert", "issue", "--ca", &cert, "--ca-key", key, "--csr", &msg,
        ]),
    ]
    .into_iter()
    .zip(["", "", "x.csr", "x.crt", "", "", "y.crt"])
    .map(|(mut args, out)| {
        if !out.is_empty() {
            args.extend(["--out".to_owned(), p(out)]);
        }
        if args[1] == "issue" {
            args.extend(["--profile".to_owned(), "tls-server".to_owned()]);
        }
        args
    })
    .collect()
}

/// Runs each of `commands` with the PIN variable `var` set to the wrong `pin`: each fails
/// with exit code 4 (the device refused the PIN), says `want`, and shows the PIN nowhere.
pub fn refuse_wrong_pin(commands: &[Vec<String>], var: &str, pin: &str, want: &str) {
    for args in commands {
        let mut cmd = shangmi();
        cmd.args(args).env(var, pin);
        let out = run(cmd, b"");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(4), "{args:?}: {all}");
        assert!(all.contains(want), "{args:?}: {all}");
        assert!(!all.contains(pin), "{args:?}: {all}");
    }
}
