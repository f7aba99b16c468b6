//! Constant-time check under valgrind's memcheck (the ctgrind technique, Adam Langley,
//! 2010): keys, IVs and messages are marked *undefined*, so memcheck reports every branch
//! and every memory address that depends on them. A clean run means no secret-dependent
//! branch or index on the paths exercised (key loading, initialisation, keystream, EEA3,
//! EIA3 and the three ZUC-256 MACs, whole and partial final bytes, and many EEA3 packets at
//! once on every many-message engine).
//!
//! The test re-runs this test binary under valgrind with `SHANGMI_CT_MODE` set: `all`
//! exercises the library, `leaky` a deliberately table-based ZUC-128 (the specification's
//! S-box tables indexed by secret bytes, in this file) that memcheck must report, so the
//! check can fail. Needs `valgrind` on PATH (CI installs it); without it the test fails
//! when `CI` is set and is skipped otherwise.

#![cfg(target_arch = "x86_64")] // valgrind's client request is the amd64 form
#![allow(clippy::unwrap_used)]

#[path = "support/memcheck.rs"]
#[allow(dead_code)] // the harness's own `leaky` is replaced by the table-based ZUC here
mod memcheck;

#[path = "support/table_zuc.rs"]
mod table_zuc;

use shangmi_zuc::{
    Backend, Eea3Packet, Eia3, ManyEngine, Zuc128, Zuc128Core, Zuc256Core, Zuc256Mac32,
    Zuc256Mac64, Zuc256Mac128,
    cipher::{KeyIvInit, StreamCipher, StreamCipherCoreWrapper},
    digest::Mac,
    eea3, eea3_many_on,
};

/// Keystreams on one engine under a secret key and IV.
fn exercise_engine(backend: Backend) {
    let mut key = [0x5au8; 32];
    let mut iv = [0xc3u8; 25];
    memcheck::secret(&mut key);
    memcheck::secret(&mut iv);
    let k16: [u8; 16] = key[..16].try_into().unwrap();
    let iv16: [u8; 16] = iv[..16].try_into().unwrap();
    let mut out = [[0u8; 67]; 2];
    let core = Zuc128Core::with_backend(&k16.into(), &iv16.into(), backend).unwrap();
    StreamCipherCoreWrapper::from_core(core).apply_keystream(&mut out[0]);
    let core = Zuc256Core::with_backend(&key.into(), &iv.into(), backend).unwrap();
    StreamCipherCoreWrapper::from_core(core).apply_keystream(&mut out[1]);
    memcheck::public(&mut out);
    std::hint::black_box(&out);
    println!("checking {backend}");
}

/// EEA3 (on the best backend, `Backend::best`), EIA3 and the ZUC-256 MACs on `backend`.
fn exercise(backend: Backend) {
    let mut key = [0x5au8; 32];
    let mut iv = [0xc3u8; 25];
    let mut msg = [0x96u8; 67];
    memcheck::secret(&mut key);
    memcheck::secret(&mut iv);
    memcheck::secret(&mut msg);
    let k16: [u8; 16] = key[..16].try_into().unwrap();

    let mut out = [[0u8; 67]; 8];
    out[2] = msg;
    // COUNT, BEARER and DIRECTION are public by design (they are sent in the clear).
    eea3(&k16, 0x1234_5678, 5, 1, &mut out[2], 8 * 67 - 3).unwrap();
    let eia3_iv = shangmi_zuc::eia3_iv(0x1234_5678, 5, 1).unwrap();
    let tag = Eia3::with_backend(&k16.into(), &eia3_iv.into(), backend)
        .unwrap()
        .finalize_bits(&msg, 8 * 67 - 5)
        .unwrap();
    out[3][..4].copy_from_slice(&tag);
    let tag = Eia3::with_backend(&k16.into(), &eia3_iv.into(), backend)
        .unwrap()
        .chain_update(&msg[..64])
        .finalize()
        .into_bytes();
    out[4][..4].copy_from_slice(&tag);
    let tag = Zuc256Mac32::with_backend(&key.into(), &iv.into(), backend)
        .unwrap()
        .chain_update(msg)
        .finalize()
        .into_bytes();
    out[5][..4].copy_from_slice(&tag);
    let tag = Zuc256Mac64::with_backend(&key.into(), &iv.into(), backend)
        .unwrap()
        .finalize_bits(&msg, 8 * 67 - 1)
        .unwrap();
    out[6][..8].copy_from_slice(&tag);
    let tag = Zuc256Mac128::with_backend(&key.into(), &iv.into(), backend)
        .unwrap()
        .chain_update(msg)
        .finalize()
        .into_bytes();
    out[7][..16].copy_from_slice(&tag);
    // (Mac::verify is left out: its Ok/Err is public by design, but memcheck cannot tell.)
    // Declassify the outputs before anything looks at them.
    memcheck::public(&mut out);
    std::hint::black_box(&out);
    println!("checking modes on {backend}");
}

/// Many packets at once on `engine`: five secret keys and messages of different lengths
/// (lanes that end at different words, one mid-byte), and a full group of eight.
fn exercise_many(engine: ManyEngine) {
    let mut keys = [[0x5au8; 16]; 8];
    let mut msgs = [[0x96u8; 67]; 8];
    memcheck::secret(&mut keys);
    memcheck::secret(&mut msgs);
    for n in [5usize, 8] {
        let mut out = msgs;
        let mut packets: Vec<Eea3Packet<'_>> = out
            .iter_mut()
            .zip(&keys)
            .take(n)
            .enumerate()
            .map(|(i, (d, k))| {
                let len = 67 - 9 * i.min(5);
                Eea3Packet {
                    ck: *k,
                    count: 0x1234_5678,
                    bearer: i as u8,
                    direction: 1,
                    data: &mut d[..len],
                    bit_len: 8 * len - (i % 3),
                }
            })
            .collect();
        eea3_many_on(&mut packets, engine).unwrap();
        memcheck::public(&mut out);
        std::hint::black_box(&out);
    }
    println!("checking many on {engine}");
}

/// The negative control: ZUC-128 with the S-boxes as tables indexed by secret bytes.
fn leaky() {
    let mut key = [0x5au8; 16];
    let mut iv = [0xc3u8; 16];
    memcheck::secret(&mut key);
    memcheck::secret(&mut iv);
    let mut z = table_zuc::keystream(&key, &iv, 4);
    memcheck::public(&mut z);
    std::hint::black_box(&z);
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    match memcheck::child_mode().as_deref() {
        Some("leaky") => leaky(),
        Some("all") => {
            for backend in Backend::available() {
                exercise_engine(backend);
                exercise(backend);
            }
            for engine in ManyEngine::available() {
                exercise_many(engine);
            }
        }
        _ => {}
    }
}

#[test]
fn zuc_is_constant_time_under_memcheck() {
    if !memcheck::is_parent() {
        return;
    }
    // valgrind emulates AES-NI, SSSE3, SSE4.1 and PCLMULQDQ, so every engine of this
    // machine runs there except the AVX-512 ones: valgrind has no AVX-512, hides it from
    // CPUID, and the child's probe leaves `zuc-gfni-avx512` out (its S-boxes read
    // registers only: `vpermi2b` and the affine instructions, no data-dependent address)
    // and `zuc-avx512-x8` (the code of `zuc-avx2-x8`, which is checked, with more
    // registers).
    let mut lines: Vec<String> = Vec::new();
    for b in Backend::available().filter(|&b| b != Backend::GfniAvx512) {
        lines.push(format!("checking {b}"));
        lines.push(format!("checking modes on {b}"));
    }
    for e in ManyEngine::available().filter(|&e| e != ManyEngine::Avx512x8) {
        lines.push(format!("checking many on {e}"));
    }
    memcheck::check("memcheck_child", "all", &lines);
}

/// The leaky control is a real ZUC: it matches the library (so the check compares like
/// with like).
#[test]
fn table_control_is_zuc() {
    let (key, iv) = ([0x3du8; 16], [0x84u8; 16]);
    let z = table_zuc::keystream(&key, &iv, 8);
    let mut ours = [0u8; 32];
    Zuc128::new(&key.into(), &iv.into()).apply_keystream(&mut ours);
    let ours: Vec<u32> = ours
        .chunks(4)
        .map(|w| u32::from_be_bytes(w.try_into().unwrap()))
        .collect();
    assert_eq!(z, ours);
}
