//! Output paths that are not plain files: a symbolic link stays a link (the file it points
//! to gets the bytes), and a FIFO or a device is written through, never replaced by a
//! regular file (as root, renaming a temporary file over `--out /dev/null` once replaced
//! the system's /dev/null).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use std::os::unix::fs::FileTypeExt;
use std::process::Command;

use common::{at, ok, scratch};

/// GB/T 32907-2016 Appendix A.1: this key encrypts itself to CIPHER; through CBC with a
/// zero IV that is the first of the two blocks (the second is the PKCS#7 padding).
const KEY: &str = "0123456789abcdeffedcba9876543210";
const CIPHER: &str = "681edf34d206965e86b3e94f536e4246";
const ZERO_IV: &str = "00000000000000000000000000000000";

/// The first block of what was written.
fn first_block(bytes: &[u8]) -> String {
    assert_eq!(bytes.len(), 32, "one block and one block of padding");
    hex::encode(&bytes[..16])
}

fn encrypt_to(input: &std::path::Path, out: &std::path::Path) -> Command {
    let mut cmd = common::sm4("encrypt", "cbc", KEY, input, out);
    cmd.args(["--iv", ZERO_IV]);
    cmd
}

/// A scratch directory holding the plaintext `p`: the key's own bytes (one block).
fn with_plaintext() -> tempfile::TempDir {
    let dir = scratch();
    std::fs::write(at(dir.path(), "p"), hex::decode(KEY).unwrap()).unwrap();
    dir
}

/// Whether `path` is a symbolic link itself.
fn is_link(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path)
        .unwrap()
        .file_type()
        .is_symlink()
}

#[test]
fn a_symbolic_link_stays_a_link_and_its_target_gets_the_bytes() {
    let dir = with_plaintext();
    let d = dir.path();
    std::fs::write(at(d, "target"), b"old contents").unwrap();
    // A relative link, as `ln -s target link` makes it, and a chain of two.
    std::os::unix::fs::symlink("target", at(d, "link")).unwrap();
    std::os::unix::fs::symlink(at(d, "link"), at(d, "link2")).unwrap();
    for link in ["link", "link2"] {
        ok(encrypt_to(&at(d, "p"), &at(d, link)));
        assert!(is_link(&at(d, link)));
        assert_eq!(
            first_block(&std::fs::read(at(d, "target")).unwrap()),
            CIPHER
        );
        std::fs::write(at(d, "target"), b"old contents").unwrap();
    }
    // A dangling link: the file it names is made, the link kept.
    std::os::unix::fs::symlink("made", at(d, "dangling")).unwrap();
    ok(encrypt_to(&at(d, "p"), &at(d, "dangling")));
    assert!(is_link(&at(d, "dangling")));
    assert_eq!(first_block(&std::fs::read(at(d, "made")).unwrap()), CIPHER);
}

#[test]
fn a_fifo_is_written_through_and_stays_a_fifo() {
    let dir = with_plaintext();
    let d = dir.path();
    let fifo = at(d, "fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("note: mkfifo is not available; skipping");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    ok(encrypt_to(&at(d, "p"), &fifo));
    // Checked before joining: a FIFO replaced by a file would leave the reader waiting.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert_eq!(first_block(&reader.join().unwrap()), CIPHER);
}

#[test]
fn a_character_device_is_written_through() {
    // /dev/null through a link in a scratch directory: the command writes to the device
    // and neither the link nor the device is replaced.
    let dir = with_plaintext();
    let d = dir.path();
    if !std::fs::metadata("/dev/null").is_ok_and(|m| m.file_type().is_char_device()) {
        eprintln!("note: no /dev/null device here; skipping");
        return;
    }
    std::os::unix::fs::symlink("/dev/null", at(d, "null")).unwrap();
    ok(encrypt_to(&at(d, "p"), &at(d, "null")));
    assert!(is_link(&at(d, "null")));
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn a_directory_is_refused_by_name() {
    let dir = with_plaintext();
    let d = dir.path();
    std::fs::create_dir(at(d, "sub")).unwrap();
    let out = common::run(encrypt_to(&at(d, "p"), &at(d, "sub")), b"");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sub") && err.contains("directory"), "{err}");
}

#[test]
fn dev_stdout_writes_to_a_pipe_and_to_a_redirected_file() {
    // `/dev/stdout` is a link to /proc/self/fd/1, whose target (`pipe:[N]`) names no file:
    // following the links by hand once failed with "No such file or directory".
    if !std::path::Path::new("/proc/self/fd/1").exists() {
        eprintln!("note: no /proc here; skipping");
        return;
    }
    let dir = with_plaintext();
    let d = dir.path();
    // Standard output a pipe (what `run` gives a command).
    let out = common::run(
        encrypt_to(&at(d, "p"), std::path::Path::new("/dev/stdout")),
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(first_block(&out.stdout), CIPHER);
    // Standard output a file the caller opened: it gets the bytes, and the file is the
    // one the caller holds (not replaced by another under its name).
    use std::os::unix::fs::MetadataExt;
    let held = std::fs::File::create(at(d, "held")).unwrap();
    let inode = held.metadata().unwrap().ino();
    let mut cmd = encrypt_to(&at(d, "p"), std::path::Path::new("/dev/stdout"));
    assert!(cmd.stdout(held).status().unwrap().success());
    assert_eq!(std::fs::metadata(at(d, "held")).unwrap().ino(), inode);
    assert_eq!(first_block(&std::fs::read(at(d, "held")).unwrap()), CIPHER);
}
