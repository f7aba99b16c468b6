//! Constant-time check under valgrind's memcheck (the ctgrind technique, Adam Langley,
//! 2010): the key and the data are marked *undefined*, so memcheck reports every branch
//! and every memory address that depends on them. A clean run means no secret-dependent
//! branch or index on the paths exercised.
//!
//! The test re-runs this test binary under valgrind with `SHANGMI_CT_MODE` set: `all`
//! exercises every engine available there (under valgrind: those its CPU model offers),
//! `leaky` a deliberately leaky table lookup that memcheck must report (the negative
//! control, so the check can fail). Needs `valgrind` on PATH (CI installs it); without
//! it the test fails when `CI` is set and is skipped otherwise.

#![cfg(target_arch = "x86_64")] // valgrind's client request below is the amd64 form

use std::process::Command;

use shangmi_sm4::{
    Backend, Sm4,
    cipher::{Array, Block, BlockCipherDecrypt, BlockCipherEncrypt},
};

/// memcheck's client requests (valgrind/memcheck.h): base `('M' << 24) | ('C' << 16)`.
const MAKE_MEM_UNDEFINED: u64 = 0x4d43_0001;
const MAKE_MEM_DEFINED: u64 = 0x4d43_0002;

/// Issues a valgrind client request; a no-op (returns 0) when not under valgrind.
fn client_request(request: u64, addr: u64, len: u64) -> u64 {
    let args: [u64; 6] = [request, addr, len, 0, 0, 0];
    let mut result: u64 = 0;
    // SAFETY: valgrind's documented "special instruction" preamble (valgrind.h, amd64):
    // the four rotates of rdi sum to 128 bits and leave it unchanged, `xchg rbx, rbx` is
    // a no-op, so natively nothing changes; under valgrind it reads `args` (a live array)
    // and writes the result to rdx.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51", "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") result,
            inout("rdi") 0u64 => _,
            options(nostack),
        );
    }
    result
}

fn mark<T>(value: &mut T, request: u64) {
    client_request(
        request,
        value as *mut T as u64,
        core::mem::size_of::<T>() as u64,
    );
}

/// Encrypts and decrypts 1..=69 secret blocks under a secret key on `backend`.
fn exercise(backend: Backend) {
    let mut key = [0x5au8; 16];
    let mut data = [Block::<Sm4>::from([0xc3u8; 16]); 69];
    mark(&mut key, MAKE_MEM_UNDEFINED);
    mark(&mut data, MAKE_MEM_UNDEFINED);
    let Ok(cipher) = Sm4::with_backend(&Array::from(key), backend) else {
        return;
    };
    for n in [1, 2, 3, 5, 16, 17, 64, 69] {
        cipher.encrypt_blocks(&mut data[..n]);
        cipher.decrypt_blocks(&mut data[..n]);
    }
    cipher.encrypt_block(&mut data[0]);
    // Declassify the output before anything looks at it.
    mark(&mut data, MAKE_MEM_DEFINED);
    std::hint::black_box(&data);
}

/// A classic leak: a table indexed by a secret byte, and a branch on it.
fn leaky() {
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
    mark(&mut secret, MAKE_MEM_UNDEFINED);
    let s = std::hint::black_box(secret);
    let x = TABLE[s[0] as usize];
    std::hint::black_box(x);
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    match std::env::var("SHANGMI_CT_MODE").as_deref() {
        Ok("leaky") => leaky(),
        Ok("all") => {
            for backend in Backend::available() {
                println!("checking {backend}");
                exercise(backend);
            }
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
            "memcheck_child",
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
fn engines_are_constant_time_under_memcheck() {
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

    let (clean, log) = memcheck("all");
    assert!(clean, "secret-dependent branch or index:\n{log}");
    // valgrind emulates AES-NI and AVX2 but not GFNI or AVX-512, so those two engines
    // are the ones it can see; the GFNI engines share the round code and differ only in
    // the S-box instructions, which have no memory operands.
    let mut expected = vec![Backend::Soft];
    if Backend::AesniAvx2.is_available() {
        expected.push(Backend::AesniAvx2);
    }
    for backend in expected {
        assert!(
            log.contains(&format!("checking {backend}")),
            "{backend} was not exercised:\n{log}"
        );
        println!("memcheck clean: {backend}");
    }
}
