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

#![cfg(target_arch = "x86_64")] // valgrind's client request is the amd64 form

#[path = "support/memcheck.rs"]
mod memcheck;

use shangmi_sm4::{
    Backend, Sm4,
    cipher::{Array, Block, BlockCipherDecrypt, BlockCipherEncrypt},
};

/// Encrypts and decrypts 1..=69 secret blocks under a secret key on `backend`, and chains
/// five of them.
fn exercise(backend: Backend) {
    let mut key = [0x5au8; 16];
    let mut data = [Block::<Sm4>::from([0xc3u8; 16]); 69];
    memcheck::secret(&mut key);
    memcheck::secret(&mut data);
    let Ok(cipher) = Sm4::with_backend(&Array::from(key), backend) else {
        return;
    };
    for n in [1, 2, 3, 5, 16, 17, 64, 69] {
        cipher.encrypt_blocks(&mut data[..n]);
        cipher.decrypt_blocks(&mut data[..n]);
    }
    cipher.encrypt_block(&mut data[0]);
    // The CBC chain (each engine's latency-first single-block path).
    let (state, rest) = data.split_at_mut(1);
    cipher.cbc_chain(&mut state[0], &rest[..5]);
    // Declassify the output before anything looks at it.
    memcheck::public(&mut data);
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    memcheck::child_engines(Backend::available(), exercise);
}

#[test]
fn engines_are_constant_time_under_memcheck() {
    if !memcheck::is_parent() {
        return;
    }
    // valgrind emulates AES-NI and AVX2 but not GFNI, VAES or AVX-512, so those two engines
    // are the ones it can see; the GFNI engines share the round code and differ only in
    // the S-box instructions, which have no memory operands.
    let engines = [Backend::Soft, Backend::AesniAvx2];
    memcheck::check_engines(engines.into_iter().filter(|b| b.is_available()));
}
