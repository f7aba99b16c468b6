//! Links the shangmi crates into a `no_std`, no-`alloc` static library with C entry points,
//! the way firmware would use them, so CI can check they build for microcontroller
//! targets (thumbv7em-none-eabihf, riscv32imac-unknown-none-elf) and report their code
//! size. Each crate is behind a feature of the same name.

#![no_std]

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}

/// SM4-ECB in place on `n` blocks of `buf` with `key`; `decrypt` selects the direction.
///
/// # Safety
/// `key` must point to 16 readable bytes and `buf` to `16 * n` writable bytes.
#[cfg(feature = "sm4")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_sm4_ecb(key: *const u8, buf: *mut u8, n: usize, decrypt: bool) {
    use shangmi_sm4::{
        Sm4,
        cipher::{Block, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit},
    };
    // SAFETY: the caller's contract above.
    let (key, data) = unsafe {
        (
            &*key.cast::<[u8; 16]>(),
            core::slice::from_raw_parts_mut(buf, 16 * n),
        )
    };
    let cipher = Sm4::new(&(*key).into());
    let (blocks, _) = Block::<Sm4>::slice_as_chunks_mut(data);
    if decrypt {
        cipher.decrypt_blocks(blocks);
    } else {
        cipher.encrypt_blocks(blocks);
    }
}

/// SM4-CTR (128-bit big-endian counter) in place on `len` bytes.
///
/// # Safety
/// `key` and `counter` must point to 16 bytes (`counter` writable) and `buf` to `len`
/// writable bytes.
#[cfg(feature = "sm4")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_sm4_ctr(
    key: *const u8,
    counter: *mut u8,
    buf: *mut u8,
    len: usize,
) {
    use shangmi_sm4::{CtrFlavor, Sm4, cipher::KeyInit};
    // SAFETY: the caller's contract above.
    let (key, counter, data) = unsafe {
        (
            &*key.cast::<[u8; 16]>(),
            &mut *counter.cast::<[u8; 16]>(),
            core::slice::from_raw_parts_mut(buf, len),
        )
    };
    Sm4::new(&(*key).into()).apply_ctr(CtrFlavor::Be128, counter, data);
}

/// SM3 of `len` bytes at `msg` into the 32 bytes at `out`.
///
/// # Safety
/// `msg` must point to `len` readable bytes and `out` to 32 writable bytes.
#[cfg(feature = "sm3")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_sm3(msg: *const u8, len: usize, out: *mut u8) {
    use shangmi_sm3::{Digest, Sm3};
    // SAFETY: the caller's contract above.
    let (msg, out) = unsafe {
        (
            core::slice::from_raw_parts(msg, len),
            &mut *out.cast::<[u8; 32]>(),
        )
    };
    out.copy_from_slice(&Sm3::digest(msg));
}

/// SM4-GCM seal in place (RFC 8998 shape: 12-byte nonce, 16-byte tag written to `tag`);
/// returns 0, or -1 if the message is too long for GCM.
///
/// # Safety
/// `key` must point to 16 readable bytes, `nonce` to 12, `aad` to `aad_len`, `buf` to
/// `len` writable bytes and `tag` to 16 writable bytes.
#[cfg(feature = "sm4-modes")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_sm4_gcm_seal(
    key: *const u8,
    nonce: *const u8,
    aad: *const u8,
    aad_len: usize,
    buf: *mut u8,
    len: usize,
    tag: *mut u8,
) -> i32 {
    use shangmi_sm4_modes::{
        Sm4Gcm,
        aead::{AeadInOut, KeyInit},
    };
    // SAFETY: the caller's contract above.
    let (key, nonce, aad, data, tag) = unsafe {
        (
            &*key.cast::<[u8; 16]>(),
            &*nonce.cast::<[u8; 12]>(),
            core::slice::from_raw_parts(aad, aad_len),
            core::slice::from_raw_parts_mut(buf, len),
            &mut *tag.cast::<[u8; 16]>(),
        )
    };
    match Sm4Gcm::new(&(*key).into()).encrypt_inout_detached(&(*nonce).into(), aad, data.into()) {
        Ok(t) => {
            tag.copy_from_slice(&t);
            0
        }
        Err(_) => -1,
    }
}

/// SM2 signature (GB/T 32918.2, default ID, deterministic nonce) of `len` bytes at `msg`
/// with the 32-byte secret key at `secret`, written as r ‖ s to the 64 bytes at `sig`;
/// returns 0, or -1 if the secret key is out of range.
///
/// # Safety
/// `secret` must point to 32 readable bytes, `msg` to `len` and `sig` to 64 writable bytes.
#[cfg(feature = "sm2")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_sm2_sign(
    secret: *const u8,
    msg: *const u8,
    len: usize,
    sig: *mut u8,
) -> i32 {
    use shangmi_sm2::{
        dsa::{Signature, SigningKey},
        signature::Signer,
    };
    // SAFETY: the caller's contract above.
    let (secret, msg, sig) = unsafe {
        (
            &*secret.cast::<[u8; 32]>(),
            core::slice::from_raw_parts(msg, len),
            &mut *sig.cast::<[u8; 64]>(),
        )
    };
    match SigningKey::from_bytes(&(*secret).into()) {
        Ok(key) => {
            *sig = Signer::<Signature>::sign(&key, msg).to_bytes();
            0
        }
        Err(_) => -1,
    }
}

/// Verifies the SM2 signature r ‖ s at `sig` (64 bytes) of `len` bytes at `msg` under the
/// SEC1 public key at `public` (`public_len` bytes, compressed or not, default ID);
/// returns 0 if it is valid, -1 otherwise.
///
/// # Safety
/// `public` must point to `public_len` readable bytes, `msg` to `len` and `sig` to 64.
#[cfg(feature = "sm2")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_sm2_verify(
    public: *const u8,
    public_len: usize,
    msg: *const u8,
    len: usize,
    sig: *const u8,
) -> i32 {
    use shangmi_sm2::{
        dsa::{Signature, VerifyingKey},
        signature::Verifier,
    };
    // SAFETY: the caller's contract above.
    let (public, msg, sig) = unsafe {
        (
            core::slice::from_raw_parts(public, public_len),
            core::slice::from_raw_parts(msg, len),
            &*sig.cast::<[u8; 64]>(),
        )
    };
    let valid = VerifyingKey::from_sec1_bytes(public)
        .and_then(|key| Ok(key.verify(msg, &Signature::from_bytes(sig)?).is_ok()));
    if valid == Ok(true) { 0 } else { -1 }
}

/// The GM/T 0105-2021 generators on a device timer: seeds the SM3 Hash_DRBG and the SM4
/// CTR_DRBG from the 48 bytes at `seed` (32 of entropy, 16 of nonce), reads the device's
/// seconds through `now` for the time rule, and writes one output of each (32 + 16 bytes)
/// to `out`; returns 0, or -1 if a generator refused.
///
/// # Safety
/// `seed` must point to 48 readable bytes and `out` to 48 writable bytes; `now` must be
/// safe to call.
#[cfg(feature = "drbg")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_drbg_gm(
    seed: *const u8,
    now: unsafe extern "C" fn() -> u64,
    out: *mut u8,
) -> i32 {
    use shangmi_drbg::{Clock, Drbg, Sm3HashDrbg, Sm4CtrDrbg};
    #[derive(Clone, Copy)]
    struct Timer(unsafe extern "C" fn() -> u64);
    impl Clock for Timer {
        fn now_seconds(&self) -> u64 {
            // SAFETY: the caller's contract on `now` above.
            unsafe { (self.0)() }
        }
    }
    // SAFETY: the caller's contract above.
    let (seed, out) = unsafe { (&*seed.cast::<[u8; 48]>(), &mut *out.cast::<[u8; 48]>()) };
    let (entropy, nonce) = seed.split_at(32);
    let (hash_out, ctr_out) = out.split_at_mut(32);
    let hash = Sm3HashDrbg::new(entropy, nonce, b"", Timer(now))
        .and_then(|mut d| d.generate(hash_out, b""));
    let ctr =
        Sm4CtrDrbg::new(entropy, nonce, b"", Timer(now)).and_then(|mut d| d.generate(ctr_out, b""));
    if hash.is_ok() && ctr.is_ok() { 0 } else { -1 }
}

/// 3GPP 128-EEA3 in place on a message of `bit_len` bits at `buf` (`bit_len` rounded up to
/// bytes), then its 128-EIA3 MAC with `ik` over the result, written to the 4 bytes at
/// `mac`; COUNT, BEARER and DIRECTION as 3GPP defines them. Returns 0, or -1 on a bad
/// parameter or length.
///
/// # Safety
/// `ck` and `ik` must point to 16 readable bytes, `buf` to `bit_len.div_ceil(8)` writable
/// bytes and `mac` to 4 writable bytes.
#[cfg(feature = "zuc")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn shangmi_zuc_eea3_eia3(
    ck: *const u8,
    ik: *const u8,
    count: u32,
    bearer: u8,
    direction: u8,
    buf: *mut u8,
    bit_len: usize,
    mac: *mut u8,
) -> i32 {
    use shangmi_zuc::{Eia3, eea3};
    // SAFETY: the caller's contract above.
    let (ck, ik, data, mac) = unsafe {
        (
            &*ck.cast::<[u8; 16]>(),
            &*ik.cast::<[u8; 16]>(),
            core::slice::from_raw_parts_mut(buf, bit_len.div_ceil(8)),
            &mut *mac.cast::<[u8; 4]>(),
        )
    };
    let tag = eea3(ck, count, bearer, direction, data, bit_len).and_then(|()| {
        Eia3::with_params(ik, count, bearer, direction)?.finalize_bits(data, bit_len)
    });
    match tag {
        Ok(t) => {
            mac.copy_from_slice(&t);
            0
        }
        Err(_) => -1,
    }
}
