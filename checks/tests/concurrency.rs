//! Engines are probed once per process and the answer is shared (cached CPUID probes, the
//! memoised engine choice): many threads hashing, encrypting and signing at once, starting
//! together before anything has probed, must get exactly what one thread gets afterwards.
//!
//! This file holds one test so that its process has run no cryptography before the threads
//! start: the first probe of every crate happens under contention.

#![allow(clippy::unwrap_used)] // a test

use std::sync::{Arc, Barrier};
use std::thread;

use aead::{AeadInOut, KeyInit};
use hmac::{Hmac, Mac};
use rand::{SeedableRng, rngs::StdRng};
use shangmi_sm2::dsa::{Signature, SigningKey};
use shangmi_sm2::pke::{DecryptingKey, Layout};
use shangmi_sm3::{Digest, Sm3};
use shangmi_sm4::Sm4;
use shangmi_sm4::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt};
use shangmi_sm4_modes::{Sm4Ccm, Sm4Gcm, Sm4XtsGb};
use signature::{Signer, Verifier};

const THREADS: usize = 12;
const CASES: usize = 24;

/// Everything one case computes; equal across threads or the test fails.
#[derive(Debug, PartialEq, Eq)]
struct Results {
    sm3: [u8; 32],
    sm3_many: Vec<[u8; 32]>,
    hmac: Vec<u8>,
    sm4_blocks: Vec<u8>,
    gcm: Vec<u8>,
    ccm: Vec<u8>,
    xts: Vec<u8>,
    signature: Vec<u8>,
    ciphertext: Vec<u8>,
}

/// Case `i`'s inputs: lengths cross the engines' widths (1 to 64 blocks).
fn message(i: usize) -> Vec<u8> {
    (0..(i * 97) % 1500 + 1)
        .map(|j| (j * 31 + i * 7) as u8)
        .collect()
}

fn key(i: usize) -> [u8; 16] {
    core::array::from_fn(|j| (i * 16 + j) as u8 ^ 0xA5)
}

/// Case `i`'s AEAD output: ciphertext ‖ tag under a 12-byte nonce of `i`.
fn seal<A: AeadInOut>(aead: &A, i: usize, msg: &[u8]) -> Vec<u8> {
    let nonce = aead::Nonce::<A>::try_from(&[i as u8; 12][..]).unwrap();
    let mut buf = msg.to_vec();
    let tag = aead
        .encrypt_inout_detached(&nonce, b"aad", (&mut buf[..]).into())
        .unwrap();
    buf.extend_from_slice(&tag);
    buf
}

/// Runs case `i` on the default (best) engines of every crate.
fn run(i: usize) -> Results {
    let msg = message(i);
    let key = key(i);
    let sm3: [u8; 32] = Sm3::digest(&msg).into();
    let parts: Vec<&[u8]> = msg.chunks(msg.len() / 9 + 1).collect();
    let mut sm3_many = vec![[0u8; 32]; parts.len()];
    Sm3::digest_many_into(&parts, &mut sm3_many);
    let mut mac = Hmac::<Sm3>::new_from_slice(&key).unwrap();
    mac.update(&msg);
    let hmac = mac.finalize().into_bytes().to_vec();

    // SM4 on whole blocks, both directions.
    let sm4 = Sm4::new(&Array::from(key));
    let mut blocks: Vec<Array<u8, _>> = msg
        .chunks_exact(16)
        .map(|c| Array::try_from(c).unwrap())
        .collect();
    sm4.encrypt_blocks(&mut blocks);
    let sm4_blocks: Vec<u8> = blocks.iter().flatten().copied().collect();
    sm4.decrypt_blocks(&mut blocks);
    assert!(
        blocks
            .iter()
            .flatten()
            .eq(msg[..msg.len() / 16 * 16].iter())
    );

    let gcm = seal(&Sm4Gcm::new(&key.into()), i, &msg);
    let ccm = seal(&Sm4Ccm::new(&key.into()), i, &msg);
    let mut xts_key = [0u8; 32];
    xts_key[..16].copy_from_slice(&key);
    xts_key[16..].copy_from_slice(&key.map(|b| !b));
    let mut xts = msg.clone();
    if xts.len() >= 16 {
        Sm4XtsGb::new(&xts_key)
            .unwrap()
            .encrypt(&[i as u8; 16], &mut xts)
            .unwrap();
    }

    // SM2: deterministic signature, and encryption with a seeded generator.
    let mut d = [0u8; 32];
    d[..16].copy_from_slice(&key);
    d[16..].copy_from_slice(&key);
    let signing = SigningKey::from_bytes(&d.into()).unwrap();
    let sig: Signature = signing.sign(&msg);
    signing.verifying_key().verify(&msg, &sig).unwrap();
    let dk = DecryptingKey::from_bytes(&d.into()).unwrap();
    let ciphertext = dk
        .encrypting_key()
        .encrypt(&mut StdRng::seed_from_u64(i as u64), &msg, Layout::C1C3C2)
        .unwrap();
    assert_eq!(dk.decrypt(&ciphertext, Layout::C1C3C2).unwrap(), msg);

    Results {
        sm3,
        sm3_many,
        hmac,
        sm4_blocks,
        gcm,
        ccm,
        xts,
        signature: sig.to_bytes().to_vec(),
        ciphertext,
    }
}

#[test]
fn threads_agree_with_one_thread() {
    let start = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let start = Arc::clone(&start);
            thread::spawn(move || {
                start.wait();
                // Each thread takes the cases in its own order.
                (0..CASES)
                    .map(|j| {
                        let i = (j * 5 + t * 7) % CASES;
                        (i, run(i))
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let concurrent: Vec<Vec<(usize, Results)>> =
        handles.into_iter().map(|h| h.join().unwrap()).collect();
    // The single-threaded answers, computed after every thread is done.
    let reference: Vec<Results> = (0..CASES).map(run).collect();
    for (t, results) in concurrent.iter().enumerate() {
        assert_eq!(results.len(), CASES);
        for (i, r) in results {
            assert_eq!(r, &reference[*i], "thread {t}, case {i}");
        }
    }
}
