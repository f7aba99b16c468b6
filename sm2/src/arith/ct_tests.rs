//! Constant-time check under valgrind's memcheck (the ctgrind technique, Adam Langley, 2010),
//! as in `sm4/tests/constant_time.rs`: secret scalars and field elements are marked
//! *undefined*, so memcheck reports every branch and memory address that depends on them.
//! Covered: the fixed-base comb `mul_g` (signing, key generation, encryption's C1), the
//! variable-base `mul_ct` (ECDH, decryption, key exchange), the safegcd inversions and the
//! x86-64 field assembly, the scalar arithmetic of the signing equation. Not covered:
//! verification (public inputs only).
//!
//! The test re-runs this test binary under valgrind with `SHANGMI_CT_MODE` set: `secret`
//! runs the code above, `leaky` a branch on a secret limb that memcheck must report (the
//! negative control). Needs `valgrind` on PATH (CI installs it); without it the test fails
//! when `CI` is set and is skipped otherwise.
#![allow(unsafe_code)]

use super::field::Fe;
use super::mul::{mul_ct, mul_g};
use super::point::Affine;
use super::scalar::Sc;
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

fn mark<T>(value: &mut T, request: u64) {
    client_request(request, value as *mut T as u64, size_of::<T>() as u64);
}

/// The secret-dependent code, on secrets marked undefined; outputs declassified at the end.
fn secret() {
    let g = Affine::generator();
    let mut out = [[0u64; 4]; 6];
    for seed in [0x0123_4567_89AB_CDEFu64, 1, u64::MAX >> 1] {
        // Scalars below n (top limb below n's).
        let mut k = [
            seed,
            seed.rotate_left(17),
            !seed,
            0x7FFF_FFFF_FFFF_FFFF & seed,
        ];
        let mut x = Fe([seed ^ 0x55, seed, seed.rotate_left(5), 0x1234]);
        mark(&mut k, MAKE_MEM_UNDEFINED);
        mark(&mut x, MAKE_MEM_UNDEFINED);
        let p = mul_g(&k);
        out[0] = p.x.mul(&p.z).0;
        let q = mul_ct(&k, &g);
        out[1] = q.y.sqr().0;
        let (a, _) = p.to_affine();
        out[2] = a.x.0;
        out[3] = x.invert().0;
        out[4] = x.mul(&x.sqr()).add(&x).sub(&x.double()).0;
        out[5] = Fe::select(x.0[0] & 1, &x, &x.neg()).0;
        // The signing equation's scalar arithmetic: s = (1 + d)^-1·(k - r·d) mod n.
        let (d, r) = (Sc::from_canonical(&k), Sc::from_limbs_reduced(&x.0));
        out[0] = d.add(&Sc::ONE).invert().mul(&d.sub(&r.mul(&d))).0;
        mark(&mut out, MAKE_MEM_DEFINED);
        std::hint::black_box(&out);
    }
}

/// A branch on a secret limb, which memcheck must report.
fn leaky() {
    let mut k = [5u64; 4];
    mark(&mut k, MAKE_MEM_UNDEFINED);
    let k = std::hint::black_box(k);
    if k[0] == 5 {
        std::hint::black_box(1);
    }
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    match std::env::var("SHANGMI_CT_MODE").as_deref() {
        Ok("leaky") => leaky(),
        Ok("secret") => {
            secret();
            println!("checked sm2 secret paths");
        }
        _ => {}
    }
}

fn memcheck(mode: &str) -> (bool, String) {
    let out = Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "--error-exitcode=99",
            "--track-origins=yes",
        ])
        .arg(std::env::current_exe().expect("test binary path"))
        .args([
            "--exact",
            "arith::ct_tests::memcheck_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SHANGMI_CT_MODE", mode)
        .output()
        .expect("valgrind runs");
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    (out.status.code() == Some(0), log)
}

#[test]
fn secret_paths_are_constant_time_under_memcheck() {
    if std::env::var_os("SHANGMI_CT_MODE").is_some() {
        return; // we are the child
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "valgrind is required in CI"
        );
        eprintln!("valgrind not installed: skipped");
        return;
    }
    let (clean, log) = memcheck("leaky");
    assert!(!clean, "the negative control must be reported:\n{log}");
    assert!(log.contains("uninitialised"), "{log}");
    let (clean, log) = memcheck("secret");
    assert!(clean, "secret-dependent branch or index:\n{log}");
    assert!(log.contains("checked sm2 secret paths"), "{log}");
}
