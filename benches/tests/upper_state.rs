//! Every x86-64 kernel returns with the upper halves of the vector registers clean.
//!
//! A kernel that leaves bits 128–511 of ymm0–15/zmm0–15 in use (an `asm!` block writing them
//! with no `vzeroupper` after it) slows the code around it on some Intel cores: on an
//! Intel family 6 model 207 (PERFORMANCE.md, session 53) each switch between SSE-encoded
//! instructions — all of a program compiled for plain x86-64 — and VEX/EVEX ones then cost
//! about 500 cycles, where with clean upper halves it costs nothing. Timings never go into
//! tests, so this reads the state itself: `XGETBV` with ECX = 1 returns XINUSE, whose bit
//! 2 (the upper halves of ymm0–15) and bit 6 (the upper 256 bits of zmm0–15) are zero
//! only while those registers are in their initial state, as `vzeroupper` leaves them.
//! (Bit 7, zmm16–31, does not slow SSE code there and is not checked.) The check is shown
//! to see dirt first: one `vpcmpeqd ymm` sets bit 2, `vzeroupper` clears it. Where the CPU
//! has no AVX or no XINUSE (`XGETBV` with ECX = 1), or reports the control wrongly, the
//! test says so and checks nothing.
#![cfg(target_arch = "x86_64")]

use core::arch::asm;
use core::arch::x86_64::__cpuid_count;

use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::signature::{Signer, Verifier};
use shangmi_sm2::{Error, SecretKey, batch, ecdh};
use shangmi_sm3::Digest;
use shangmi_sm4::cipher::{BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use shangmi_sm4_modes::aead::AeadInOut;
use shangmi_zuc::cipher::KeyIvInit;

/// XINUSE bits whose dirt slows SSE code: AVX (ymm0–15 upper halves) and ZMM_Hi256.
const DIRTY: u64 = (1 << 2) | (1 << 6);

/// XINUSE (`XGETBV` with ECX = 1), if this CPU has AVX and reports it.
fn xinuse_supported() -> bool {
    // CPUID is available on every x86-64 CPU (the intrinsic is safe since Rust 1.87, and
    // `unsafe` before: hence the `allow`); leaf 0xD exists wherever OSXSAVE is set, which is
    // checked before it is read.
    #[allow(unused_unsafe)]
    // SAFETY: CPUID, which every x86-64 CPU has.
    let leaf1 = unsafe { __cpuid_count(1, 0) };
    let osxsave = leaf1.ecx & (1 << 27) != 0;
    if !osxsave || !std::arch::is_x86_feature_detected!("avx") {
        return false;
    }
    #[allow(unused_unsafe)]
    // SAFETY: CPUID leaf 0xD, present where OSXSAVE is (checked above).
    let xsave = unsafe { __cpuid_count(0xD, 1) };
    xsave.eax & (1 << 2) != 0
}

/// XINUSE now.
fn xinuse() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: `xinuse_supported` found XGETBV with ECX = 1 (CPUID.(EAX=0DH,ECX=1):EAX[2]);
    // it reads a register into eax:edx and touches no memory.
    unsafe {
        asm!("xgetbv", in("ecx") 1u32, out("eax") lo, out("edx") hi, options(nomem, nostack, preserves_flags));
    }
    u64::from(hi) << 32 | u64::from(lo)
}

/// Dirties ymm5's upper half.
fn dirty() {
    // SAFETY: AVX2 `vpcmpeqd` on ymm5, declared clobbered; the caller checked AVX2.
    unsafe { asm!("vpcmpeqd ymm5, ymm5, ymm5", out("ymm5") _, options(nomem, nostack)) };
}

/// Cleans the upper halves.
fn clean() {
    // SAFETY: AVX `vzeroupper`, which zeroes only the upper halves (ymm0–15 declared
    // clobbered); the caller checked AVX.
    unsafe {
        asm!(
            "vzeroupper",
            out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
            out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
            out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
            out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _,
            options(nomem, nostack),
        )
    };
}

fn secret(i: u8) -> [u8; 32] {
    let mut d = [i.wrapping_mul(29) ^ 0x3C; 32];
    d[0] = 0x11;
    d[31] = i | 1;
    d
}

/// The kernels to check, each a name and a call on its best backend (SM4: every backend
/// this CPU runs).
fn kernels() -> Vec<(String, Box<dyn Fn()>)> {
    let mut out: Vec<(String, Box<dyn Fn()>)> = Vec::new();
    let key = [0x17u8; 16];
    for backend in shangmi_sm4::Backend::available() {
        out.push((
            format!("sm4 {backend}: ECB, CTR, CBC chain and steps, decryption"),
            Box::new(move || {
                let c = shangmi_sm4::Sm4::with_backend(&key.into(), backend).expect("available");
                let mut blocks = vec![Default::default(); 67];
                c.encrypt_blocks(&mut blocks);
                c.decrypt_blocks(&mut blocks);
                let mut counter = [0u8; 16];
                let mut data = [0x5Au8; 1000];
                c.apply_ctr(shangmi_sm4::CtrFlavor::Be32, &mut counter, &mut data);
                let mut state = Default::default();
                c.cbc_chain(&mut state, &blocks);
                // The chain in steps of four rounds (TLCP's stitched record seal).
                let mut out = vec![Default::default(); blocks.len()];
                let (mut steps, mut at) = c.cbc_steps(state, &blocks, &mut out);
                for _ in 0..8 * blocks.len() + 1 {
                    steps.step(&mut at);
                }
                std::hint::black_box(steps.finish(at));
            }),
        ));
    }
    out.push((
        "sm4-modes: GCM seal and open".into(),
        Box::new(move || {
            let g = shangmi_sm4_modes::Sm4Gcm::new(&key.into());
            let nonce = [7u8; 12];
            let mut data = [0x5Au8; 1000];
            let tag = g
                .encrypt_inout_detached(&nonce.into(), b"aad", (&mut data[..]).into())
                .expect("length");
            g.decrypt_inout_detached(&nonce.into(), b"aad", (&mut data[..]).into(), &tag)
                .expect("authentic");
        }),
    ));
    out.push((
        "sm3: one stream".into(),
        Box::new(|| {
            let d = shangmi_sm3::Sm3::digest([0x5Au8; 8192]);
            std::hint::black_box(d);
        }),
    ));
    out.push((
        "zuc: 128-EEA3 and 128-EIA3".into(),
        Box::new(move || {
            let mut data = [0x5Au8; 1000];
            shangmi_zuc::eea3(&key, 0x398a_59b4, 0x15, 1, &mut data, 8000).expect("valid");
            let iv = shangmi_zuc::eia3_iv(0x398a_59b4, 0x15, 1).expect("valid");
            let mut mac = shangmi_zuc::Eia3::new(&key.into(), &iv.into());
            shangmi_zuc::digest::Update::update(&mut mac, &data);
            std::hint::black_box(shangmi_zuc::digest::FixedOutput::finalize_fixed(mac));
        }),
    ));
    out.push((
        "sm2: sign, verify, eight-lane batch verify and ECDH".into(),
        Box::new(|| {
            let msg = [0x5Au8; 64];
            let signers: Vec<SigningKey> = (0..8)
                .map(|i| SigningKey::from_bytes(&secret(i).into()).expect("valid key"))
                .collect();
            let keys: Vec<VerifyingKey> =
                signers.iter().map(|s| s.verifying_key().clone()).collect();
            let sigs: Vec<Signature> = signers.iter().map(|s| s.sign(&msg)).collect();
            keys[0].verify(&msg, &sigs[0]).expect("valid");
            let items: Vec<(&VerifyingKey, &[u8], &Signature)> = keys
                .iter()
                .zip(&sigs)
                .map(|(k, s)| (k, &msg[..], s))
                .collect();
            let mut results = [Ok(()); 8];
            batch::verify_into(&items, &mut results).expect("lengths");
            assert!(results.iter().all(Result::is_ok));
            let secrets: Vec<SecretKey> = (0..8)
                .map(|i| SecretKey::from_bytes(&secret(i + 8).into()).expect("valid key"))
                .collect();
            let share = ecdh::public_point_uncompressed(&secrets[1]);
            let pairs: Vec<(&SecretKey, &[u8])> = secrets.iter().map(|s| (s, &share[..])).collect();
            let mut shared: [Result<ecdh::SharedSecret, Error>; 8] =
                core::array::from_fn(|_| Err(Error::InvalidPoint));
            batch::diffie_hellman_into(&pairs, &mut shared).expect("lengths");
            assert!(shared.iter().all(Result::is_ok));
        }),
    ));
    out
}

#[test]
fn kernels_return_with_clean_upper_halves() {
    if !xinuse_supported() || !std::arch::is_x86_feature_detected!("avx2") {
        eprintln!("no AVX2 or no XINUSE here: nothing checked");
        return;
    }
    clean();
    let before = xinuse();
    dirty();
    let dirtied = xinuse();
    clean();
    let cleaned = xinuse();
    if before & DIRTY != 0 || dirtied & DIRTY == 0 || cleaned & DIRTY != 0 {
        eprintln!(
            "XINUSE does not track the upper halves here ({before:#x}, {dirtied:#x} after \
             vpcmpeqd ymm5, {cleaned:#x} after vzeroupper): nothing checked"
        );
        return;
    }
    let mut dirty_after = Vec::new();
    for (name, run) in kernels() {
        clean();
        run();
        let state = xinuse();
        if state & DIRTY != 0 {
            dirty_after.push(format!("{name} (XINUSE {state:#x})"));
        }
    }
    assert!(
        dirty_after.is_empty(),
        "upper halves left in use after: {dirty_after:?}"
    );
}
