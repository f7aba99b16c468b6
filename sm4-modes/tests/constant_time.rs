//! Constant-time check under valgrind's memcheck (the ctgrind technique, Adam Langley,
//! 2010), with the harness shared by the crates (`testsupport/memcheck.rs`): keys and
//! messages are marked *undefined*, so memcheck reports every branch and every memory
//! address that depends on them. Lengths, nonces and associated data are public.
//!
//! Covered, on every SM4 engine valgrind can run (`soft`, `aesni-avx2`: it emulates AES-NI,
//! PCLMULQDQ and AVX2 but not GFNI or AVX-512): GCM and CCM sealing (GHASH with both the
//! carry-less-multiply and the portable multiplier, CBC-MAC, the counters), XTS in both
//! standards and CMAC. XTS's key is left public: building the cipher branches on whether
//! K1 = K2 (rejected, as the standards require; the comparison is constant time, the
//! verdict is not secret), and its key schedule is SM4's, checked in `shangmi-sm4`; the
//! tweak input is marked secret instead, so the whole tweak chain (E_K2 and the doublings)
//! runs on secret values. Not covered: opening, whose last step branches on whether the tag
//! matched (public by design, but memcheck cannot tell). `leaky` is the negative control.

#![cfg(target_arch = "x86_64")] // valgrind's client request is the amd64 form

#[path = "support/memcheck.rs"]
mod memcheck;

use aead::{AeadInOut, KeyInit};
use shangmi_sm4::{Backend, Sm4};
use shangmi_sm4_modes::{GhashBackend, Sm4Ccm, Sm4Cmac, Sm4Gcm, Sm4XtsGb, Sm4XtsIeee};

/// Seals, encrypts and authenticates secret data under secret keys on `backend`.
fn exercise(backend: Backend) {
    let mut key = [0x5au8; 16];
    let xts_key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let mut tweaks = [[1u8; 16], [2u8; 16]];
    let mut data = [0xc3u8; 200];
    memcheck::secret(&mut key);
    memcheck::secret(&mut tweaks);
    memcheck::secret(&mut data);
    let Ok(sm4) = Sm4::with_backend(&key.into(), backend) else {
        return;
    };
    let mut tags = [[0u8; 16]; 6];
    // Every GHASH engine valgrind runs: the portable one and PCLMULQDQ.
    let gcms = [GhashBackend::Pclmulqdq, GhashBackend::Soft]
        .map(|g| Sm4Gcm::with_ghash_backend(sm4.clone(), g).ok());
    for (i, gcm) in gcms.iter().enumerate() {
        let Some(gcm) = gcm else { continue };
        for len in [0usize, 15, 16, 17, 64, 200] {
            if let Ok(t) =
                gcm.encrypt_inout_detached(&[7u8; 12].into(), b"aad", (&mut data[..len]).into())
            {
                for (a, b) in tags[i].iter_mut().zip(t.iter()) {
                    *a ^= b;
                }
            }
        }
    }
    if let Ok(ccm) = Sm4Ccm::with_backend(&key.into(), backend) {
        for len in [0usize, 16, 33, 200] {
            if let Ok(t) =
                ccm.encrypt_inout_detached(&[9u8; 12].into(), b"aad", (&mut data[..len]).into())
            {
                for (a, b) in tags[2].iter_mut().zip(t.iter()) {
                    *a ^= b;
                }
            }
        }
    }
    if let Ok(xts) = Sm4XtsIeee::with_backend(&xts_key, backend) {
        let _ = xts.encrypt(&tweaks[0], &mut data[..200]);
        let _ = xts.decrypt(&tweaks[0], &mut data[..17]);
    }
    if let Ok(xts) = Sm4XtsGb::with_backend(&xts_key, backend) {
        let _ = xts.encrypt(&tweaks[1], &mut data[..131]);
        let _ = xts.decrypt(&tweaks[1], &mut data[..64]);
    }
    let mut mac = <Sm4Cmac as KeyInit>::new(&key.into());
    cmac::digest::Update::update(&mut mac, &data[..77]);
    tags[3].copy_from_slice(&cmac::digest::FixedOutput::finalize_fixed(mac));
    memcheck::public(&mut tags);
    memcheck::public(&mut data);
    std::hint::black_box((&tags, &data));
}

/// The child: does nothing unless the parent test set `SHANGMI_CT_MODE`.
#[test]
fn memcheck_child() {
    memcheck::child_engines(Backend::available(), exercise);
}

#[test]
fn modes_are_constant_time_under_memcheck() {
    if !memcheck::is_parent() {
        return;
    }
    let engines = [Backend::Soft, Backend::AesniAvx2];
    memcheck::check_engines(engines.into_iter().filter(|b| b.is_available()));
}
