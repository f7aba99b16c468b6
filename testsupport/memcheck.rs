//! The ctgrind harness (Adam Langley, 2010) shared by the constant-time tests of the crates
//! (each includes it by `#[path]` through its `tests/support/memcheck.rs`, a symlink to this
//! file that `cargo package` turns into a copy, so the published crates' tests compile):
//! mark secrets *undefined* for valgrind's memcheck, which then reports every branch and
//! memory address that depends on them, and re-run the calling test binary under valgrind
//! with `SHANGMI_CT_MODE` set so that a child test does the secret work. x86-64 only: the
//! client request is the amd64 form.

use std::process::Command;

/// memcheck's client requests (valgrind/memcheck.h): base `('M' << 24) | ('C' << 16)`.
const MAKE_MEM_UNDEFINED: u64 = 0x4d43_0001;
const MAKE_MEM_DEFINED: u64 = 0x4d43_0002;

/// Issues a valgrind client request; a no-op when not under valgrind.
fn client_request(request: u64, addr: u64, len: u64) {
    let args: [u64; 6] = [request, addr, len, 0, 0, 0];
    // SAFETY: valgrind's documented "special instruction" preamble (valgrind.h, amd64): the
    // four rotates of rdi sum to 128 bits and leave it unchanged, `xchg rbx, rbx` is a no-op,
    // so natively nothing changes; under valgrind it reads `args` (a live array) and writes
    // its result to rdx.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51", "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") 0u64 => _,
            inout("rdi") 0u64 => _,
            options(nostack),
        );
    }
}

/// Marks `value` secret: memcheck reports any branch or address that depends on it.
pub fn secret<T>(value: &mut T) {
    client_request(
        MAKE_MEM_UNDEFINED,
        value as *mut T as u64,
        size_of::<T>() as u64,
    );
}

/// Declassifies `value` (an output that is public by design) and keeps it (a
/// `black_box`, so the secret work that made it is not optimised away).
pub fn public<T>(value: &mut T) {
    client_request(
        MAKE_MEM_DEFINED,
        value as *mut T as u64,
        size_of::<T>() as u64,
    );
    std::hint::black_box(&*value);
}

/// The mode the parent set, when this process is the child run under valgrind.
pub fn child_mode() -> Option<String> {
    std::env::var("SHANGMI_CT_MODE").ok()
}

/// True if valgrind can run here; without it the check fails when `CI` is set (CI installs
/// valgrind) and is skipped otherwise.
pub fn available() -> bool {
    if Command::new("valgrind").arg("--version").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "valgrind is required in CI"
    );
    eprintln!("valgrind not installed: skipped");
    false
}

/// Runs the test `child` of this test binary under memcheck with `SHANGMI_CT_MODE = mode`:
/// (clean, the combined output).
pub fn run(child: &str, mode: &str) -> (bool, String) {
    let out = Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "--error-exitcode=99",
            "--track-origins=yes",
        ])
        .arg(std::env::current_exe().expect("test binary path"))
        .args(["--exact", child, "--nocapture", "--test-threads=1"])
        .env("SHANGMI_CT_MODE", mode)
        .output()
        .expect("valgrind runs");
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    (out.status.code() == Some(0), log)
}

/// The negative control: a table lookup indexed by a secret byte, which memcheck must
/// report (so a clean run means something).
pub fn leaky() {
    static TABLE: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u8).wrapping_mul(29);
            i += 1;
        }
        t
    };
    let mut secret = [7u8; 4];
    self::secret(&mut secret);
    let s = std::hint::black_box(secret);
    std::hint::black_box(TABLE[s[0] as usize]);
}

/// The child side of a check: in mode `leaky` the negative control ([`leaky`]), in any
/// other mode the parent set `secret(mode)`, the secret work; nothing in the parent.
#[allow(dead_code)] // the crates whose checks are per engine call `child_engines` instead
pub fn child(secret: impl FnOnce(&str)) {
    match child_mode().as_deref() {
        Some("leaky") => leaky(),
        Some(mode) => secret(mode),
        None => {}
    }
}

/// The child side of an engine-by-engine check: in mode `leaky` the negative control
/// ([`leaky`]); in mode `all`, `exercise` on each of `engines`, announced as `checking
/// {engine}` (the lines the parent expects). True when it ran the engines.
#[allow(dead_code)] // the crates whose checks are not per engine (sm2, sm9, zuc) do not call it
pub fn child_engines<E: std::fmt::Display>(
    engines: impl IntoIterator<Item = E>,
    mut exercise: impl FnMut(E),
) -> bool {
    match child_mode().as_deref() {
        Some("leaky") => leaky(),
        Some("all") => {
            for engine in engines {
                println!("checking {engine}");
                exercise(engine);
            }
            return true;
        }
        _ => {}
    }
    false
}

/// True in the parent test process when valgrind can run (see [`available`]); false in the
/// child that the parent starts under valgrind.
pub fn is_parent() -> bool {
    child_mode().is_none() && available()
}

/// The parent side of a check: runs the test `child` under memcheck in mode `leaky` (which
/// must call [`leaky`] and be reported) and in `mode` (which must be clean and print every
/// line of `expected`, each reported here); returns the clean run's output.
pub fn check(child: &str, mode: &str, expected: &[String]) -> String {
    let (clean, log) = run(child, "leaky");
    assert!(!clean, "the negative control must be reported:\n{log}");
    assert!(log.contains("uninitialised"), "{log}");
    let (clean, log) = run(child, mode);
    assert!(clean, "secret-dependent branch or index:\n{log}");
    for line in expected {
        assert!(log.contains(line.as_str()), "`{line}` missing:\n{log}");
        println!("memcheck clean: {line}");
    }
    log
}

/// The parent side of an engine-by-engine check ([`child_engines`] in the test
/// `memcheck_child`): [`check`] in mode `all`, expecting each of `engines` clean.
#[allow(dead_code)] // the crates whose checks are not per engine (sm2, sm9, zuc) do not call it
pub fn check_engines<E: std::fmt::Display>(engines: impl IntoIterator<Item = E>) -> String {
    let lines: Vec<String> = engines
        .into_iter()
        .map(|e| format!("checking {e}"))
        .collect();
    check("memcheck_child", "all", &lines)
}
