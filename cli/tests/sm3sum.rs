//! `shangmi sm3sum` / `sm3sum`: GNU sha256sum's conventions, published SM3 vectors, and
//! agreement with `openssl dgst -sm3` over files of many sizes.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

mod common;

use common::{at, bytes, ok, openssl, run, scratch, shangmi, sm3sum};

/// SM3("abc"), GB/T 32905-2016 Appendix A.1.
const ABC: &str = "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0";
/// SM3("abcd" × 16), GB/T 32905-2016 Appendix A.2.
const ABCD16: &str = "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732";

fn text(out: Vec<u8>) -> String {
    String::from_utf8(out).unwrap()
}

#[test]
fn published_vectors_from_files_and_standard_input() {
    let dir = scratch();
    std::fs::write(at(dir.path(), "abc"), "abc").unwrap();
    std::fs::write(at(dir.path(), "abcd16"), "abcd".repeat(16)).unwrap();
    let out = text(ok(sm3sum().current_dir(dir.path()).args(["abc", "abcd16"])));
    assert_eq!(out, format!("{ABC}  abc\n{ABCD16}  abcd16\n"));
    // Standard input, with no operand and with `-`; the same through `shangmi sm3sum`.
    for args in [&[][..], &["-"][..]] {
        let out = run(sm3sum().args(args), b"abc");
        assert_eq!(text(out.stdout), format!("{ABC}  -\n"));
    }
    let out = run(shangmi().args(["sm3sum", "--tag", "-"]), b"abc");
    assert_eq!(text(out.stdout), format!("SM3 (-) = {ABC}\n"));
    let out = run(sm3sum().args(["-b", "-"]), b"abc");
    assert_eq!(text(out.stdout), format!("{ABC} *-\n"));
}

#[test]
fn missing_files_report_and_fail_but_the_rest_is_hashed() {
    let dir = scratch();
    std::fs::write(at(dir.path(), "abc"), "abc").unwrap();
    let out = run(
        sm3sum().current_dir(dir.path()).args(["nosuch", "abc"]),
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(out.stdout), format!("{ABC}  abc\n"));
    assert_eq!(
        text(out.stderr),
        "sm3sum: nosuch: No such file or directory\n"
    );
    let out = run(sm3sum().arg(dir.path()), b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(out.stderr).ends_with(": Is a directory\n"));
}

#[test]
fn names_with_newlines_and_backslashes_are_escaped_unless_z() {
    let dir = scratch();
    std::fs::write(at(dir.path(), "a\nb"), "abc").unwrap();
    std::fs::write(at(dir.path(), "c\\d"), "abc").unwrap();
    let out = text(ok(sm3sum().current_dir(dir.path()).args(["a\nb", "c\\d"])));
    assert_eq!(out, format!("\\{ABC}  a\\nb\n\\{ABC}  c\\\\d\n"));
    let out = text(ok(sm3sum().current_dir(dir.path()).args(["-z", "a\nb"])));
    assert_eq!(out, format!("{ABC}  a\nb\0"));
    // What was written checks back.
    let list = ok(sm3sum().current_dir(dir.path()).args(["a\nb", "c\\d"]));
    std::fs::write(at(dir.path(), "list"), list).unwrap();
    let out = text(ok(sm3sum().current_dir(dir.path()).args(["-c", "list"])));
    assert_eq!(out, "\\a\\nb: OK\n\\c\\\\d: OK\n");
}

#[test]
fn check_mode_reports_as_gnu() {
    let dir = scratch();
    let d = dir.path();
    std::fs::write(at(d, "abc"), "abc").unwrap();
    std::fs::write(at(d, "changed"), "abd").unwrap();
    let list = format!(
        "# a comment\n{ABC}  abc\n{ABC} *changed\nSM3 (gone) = {ABC}\nnot a checksum line\n\n{ABC}  abc\r\n"
    );
    std::fs::write(at(d, "list"), list).unwrap();
    // `sm3sum -c ARGS…` in `d`, with nothing on standard input.
    let check = |args: &[&str]| run(sm3sum().current_dir(d).arg("-c").args(args), b"");
    let out = check(&["list"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(out.stdout),
        "abc: OK\nchanged: FAILED\ngone: FAILED open or read\nabc: OK\n"
    );
    assert_eq!(
        text(out.stderr),
        "sm3sum: gone: No such file or directory\n\
         sm3sum: WARNING: 1 line is improperly formatted\n\
         sm3sum: WARNING: 1 listed file could not be read\n\
         sm3sum: WARNING: 1 computed checksum did NOT match\n"
    );
    // --quiet drops the OK lines; --status prints nothing but the read error.
    let out = check(&["--quiet", "list"]);
    assert_eq!(
        text(out.stdout),
        "changed: FAILED\ngone: FAILED open or read\n"
    );
    let out = check(&["--status", "list"]);
    assert_eq!((out.status.code(), out.stdout.len()), (Some(1), 0));
    // --warn names the bad line.
    let out = check(&["-w", "list"]);
    assert!(text(out.stderr).contains("sm3sum: list: 5: improperly formatted SM3 checksum line\n"));

    // A list that only has good lines passes; --strict fails it for one bad line.
    std::fs::write(at(d, "good"), format!("{ABC}  abc\n")).unwrap();
    assert_eq!(
        text(ok(sm3sum().current_dir(d).args(["-c", "good"]))),
        "abc: OK\n"
    );
    std::fs::write(at(d, "bad"), format!("{ABC}  abc\nbad line\n")).unwrap();
    let out = check(&["bad"]);
    assert_eq!(out.status.code(), Some(0), "a bad line alone does not fail");
    let out = check(&["--strict", "bad"]);
    assert_eq!(out.status.code(), Some(1));
    // --ignore-missing skips absent files, but fails when nothing was verified.
    std::fs::write(at(d, "missing"), format!("{ABC}  abc\n{ABC}  gone\n")).unwrap();
    let out = check(&["--ignore-missing", "missing"]);
    assert_eq!(
        (out.status.code(), text(out.stdout)),
        (Some(0), "abc: OK\n".to_owned())
    );
    std::fs::write(at(d, "allgone"), format!("{ABC}  gone\n")).unwrap();
    let out = check(&["--ignore-missing", "allgone"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(out.stderr).contains("allgone: no file was verified"));
    // No properly formatted line at all.
    std::fs::write(at(d, "junk"), "junk\n").unwrap();
    let out = check(&["junk"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(out.stderr).contains("junk: no properly formatted checksum lines found"));
    // The list from standard input.
    let out = run(
        sm3sum().current_dir(d).args(["-c"]),
        format!("{ABC}  abc\n").as_bytes(),
    );
    assert_eq!(text(out.stdout), "abc: OK\n");
}

#[test]
fn option_misuse_is_a_usage_error() {
    for args in [
        &["--status", "x"][..],
        &["--quiet", "x"],
        &["--strict", "x"],
        &["-w", "x"],
        &["--ignore-missing", "x"],
        &["-c", "--tag", "x"],
        &["--tag", "-t", "x"],
        &["--no-such-option"],
    ] {
        let out = run(sm3sum().args(args), b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    assert!(ok(sm3sum().arg("--version")).starts_with(b"sm3sum "));
    assert!(ok(shangmi().args(["sm3sum", "--help"])).starts_with(b"Print or check SM3"));
}

/// Many files of many sizes (the multi-buffer lanes, the lane/stream boundary at 128 KiB,
/// a streamed file over several read-ahead buffers), hashed with several thread counts,
/// equal `openssl dgst -sm3`.
#[test]
fn diff_openssl_dgst_many_files_of_many_sizes() {
    let dir = scratch();
    let d = dir.path();
    let mut sizes: Vec<usize> = (0..200).map(|i| (i * 37) % 300).collect();
    sizes.extend([
        55,
        56,
        63,
        64,
        65,
        4096,
        128 * 1024 - 1,
        128 * 1024,
        128 * 1024 + 1,
    ]);
    sizes.push(3 * 256 * 1024 + 12345);
    let names: Vec<String> = (0..sizes.len()).map(|i| format!("f{i:03}")).collect();
    for (i, (name, size)) in names.iter().zip(&sizes).enumerate() {
        std::fs::write(at(d, name), bytes(*size, i as u32)).unwrap();
    }
    let one = ok(sm3sum().current_dir(d).arg("--threads=1").args(&names));
    for threads in ["--threads=2", "--threads=5"] {
        let many = ok(sm3sum().current_dir(d).arg(threads).args(&names));
        assert_eq!(text(many), text(one.clone()), "{threads}");
    }
    // Checking the list back passes.
    std::fs::write(at(d, "list"), &one).unwrap();
    ok(sm3sum().current_dir(d).args(["-c", "--quiet", "list"]));

    let Some(mut openssl) = openssl("diff_openssl_dgst_many_files_of_many_sizes") else {
        return;
    };
    // `openssl dgst -sm3 -r` prints `HASH *NAME`: ours with -b.
    let theirs = ok(openssl
        .current_dir(d)
        .args(["dgst", "-sm3", "-r"])
        .args(&names));
    let ours = ok(sm3sum().current_dir(d).arg("-b").args(&names));
    assert_eq!(text(ours), text(theirs));
}

#[test]
fn big_standard_input_streams_to_the_same_digest_as_the_file() {
    let dir = scratch();
    let data = bytes(3 * 1024 * 1024 + 7, 42);
    std::fs::write(at(dir.path(), "big"), &data).unwrap();
    let from_file = text(ok(sm3sum().current_dir(dir.path()).arg("big")));
    let from_stdin = text(run(sm3sum(), &data).stdout);
    assert_eq!(from_file.replace("  big\n", "  -\n"), from_stdin);
}
