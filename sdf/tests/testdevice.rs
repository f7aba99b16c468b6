//! `shangmi-sdf` against the test device (`testdevice/sdf`, a cdylib cargo builds as this
//! crate's dev-dependency): signatures that verify in memory, decryption, the typed errors
//! of a wrong PIN, a missing key, a missing library or symbol and malformed device output,
//! and several threads sharing one key's session pool.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_sdf::{BadOutput, KeyUsage, Pin, PoolOptions, SdfDevice, SdfError, SdfKey, SdrCode};
use shangmi_sm2::dsa::VerifyingKey;
use shangmi_sm2::pke::{EncryptingKey, Layout};
use shangmi_sm2::{KeyOpError, PrivateKeyOps};
use std::sync::Arc;
use support::device_keys::{decrypts_like_memory, too_long_for_devices};
use support::device_threads::signs_from_threads;
use support::{PIN, library, open_key};

fn open(index: u32, usage: KeyUsage) -> Result<SdfKey, SdfError> {
    open_key(&SdfDevice::open(library())?, index, usage)
}

#[test]
fn signatures_verify_in_memory() {
    let key = open(1, KeyUsage::Sign).unwrap();
    let device = key.device().clone();
    assert_eq!(
        device.public_key(1, KeyUsage::Sign).unwrap(),
        key.public_key()
    );
    assert_ne!(
        device.public_key(1, KeyUsage::Encrypt).unwrap(),
        key.public_key()
    );
    let vk = VerifyingKey::new(&key.public_key());
    let sig = key.sign(b"signed by the device").unwrap();
    vk.verify_e(&vk.hash_message(b"signed by the device"), &sig)
        .unwrap();
    assert!(
        vk.verify_e(&vk.hash_message(b"something else"), &sig)
            .is_err()
    );
    let e = vk.hash_message(b"signed by the device");
    device.verify_digest(1, &e, &sig).unwrap();
    assert_eq!(
        device.verify_digest(1, &[0; 32], &sig),
        Err(SdfError::Device {
            function: "SDF_InternalVerify_ECC",
            code: SdrCode::VerifyFailed
        })
    );
    let with_id = VerifyingKey::new_with_id(&key.public_key(), b"ALICE123@YAHOO.COM").unwrap();
    let sig = key.sign_with_id(b"ALICE123@YAHOO.COM", b"m").unwrap();
    with_id.verify_e(&with_id.hash_message(b"m"), &sig).unwrap();
    // Index 2 is another key.
    let other = open(2, KeyUsage::Sign).unwrap();
    assert_ne!(other.public_key(), key.public_key());
    // A sign key does not decrypt.
    assert!(matches!(
        key.decrypt(&[4; 120]),
        Err(SdfError::Unsupported(_))
    ));
}

#[test]
fn decrypts_what_memory_encrypts() {
    let key = open(1, KeyUsage::Encrypt).unwrap();
    let mut bad = decrypts_like_memory(&key);
    let ct = too_long_for_devices(&key);
    assert!(matches!(key.decrypt(&ct), Err(SdfError::Unsupported(_))));
    // A forged C3: the device refuses it, and the error says it was the input.
    bad[70] ^= 1;
    let err = key.decrypt(&bad).unwrap_err();
    assert_eq!(
        err,
        SdfError::Device {
            function: "SDF_InternalDecrypt_ECC",
            code: SdrCode::EncData
        }
    );
    assert!(err.is_refused_input());
    // Malformed before the device: refused here.
    assert!(key.decrypt(&bad[..90]).unwrap_err().is_refused_input());
    assert!(matches!(key.sign(b"x"), Err(SdfError::Unsupported(_))));
    // The agreed key stays in the device, in either role: no bytes out.
    let peer = key.public_key();
    for role in [
        shangmi_sm2::kx::Role::Initiator,
        shangmi_sm2::kx::Role::Responder,
    ] {
        let started = key
            .start_key_exchange(&mut getrandom::SysRng, role, b"id")
            .unwrap();
        let mut out = [0u8; 48];
        assert!(matches!(
            shangmi_sm2::KeyAgreement::finish(
                started,
                shangmi_sm2::Peer::new(&peer, b"id", &peer),
                &mut out
            ),
            Err(SdfError::Unsupported(_))
        ));
    }
}

#[test]
fn wrong_pin_and_missing_key_are_typed() {
    let device = SdfDevice::open(library()).unwrap();
    let err = SdfKey::open(
        &device,
        1,
        KeyUsage::Sign,
        Pin::new("654321"),
        PoolOptions::default(),
    )
    .unwrap_err();
    assert!(err.is_access_denied());
    assert_eq!(
        err,
        SdfError::Device {
            function: "SDF_GetPrivateKeyAccessRight",
            code: SdrCode::PermissionDenied
        }
    );
    assert!(!format!("{err} {err:?}").contains("654321"));
    assert!(!format!("{:?}", Pin::new("654321")).contains("654321"));
    let err = open(5, KeyUsage::Sign).unwrap_err();
    assert_eq!(
        err,
        SdfError::Device {
            function: "SDF_ExportSignPublicKey_ECC",
            code: SdrCode::KeyNotExist
        }
    );
}

#[test]
fn missing_library_and_symbols_are_typed() {
    let err = SdfDevice::open("/nonexistent/libsdf.so").unwrap_err();
    assert!(matches!(err, SdfError::Load(_)));
    // A real library that is no SDF library (the C library of this process).
    #[cfg(target_os = "linux")]
    assert_eq!(
        SdfDevice::open("libc.so.6").unwrap_err(),
        SdfError::MissingSymbol("SDF_OpenDevice")
    );
}

#[test]
fn malformed_device_output_is_typed() {
    let bad = |function, what| SdfError::BadOutput(BadOutput { function, what });
    assert_eq!(
        open(7, KeyUsage::Sign).unwrap_err(),
        bad("SDF_ExportSignPublicKey_ECC", "key size is not 256 bits")
    );
    let sign = open(8, KeyUsage::Sign).unwrap();
    assert_eq!(
        sign.sign(b"x").unwrap_err(),
        bad("SDF_InternalSign_ECC", "r wider than 32 bytes")
    );
    let enc = open(8, KeyUsage::Encrypt).unwrap();
    let ct = EncryptingKey::new(enc.public_key())
        .encrypt(&mut getrandom::SysRng, b"premaster", Layout::C1C3C2)
        .unwrap();
    let length = "plaintext length differs from the ciphertext's";
    assert_eq!(
        enc.decrypt(&ct).unwrap_err(),
        bad("SDF_InternalDecrypt_ECC", length)
    );
}

#[test]
fn device_queries() {
    let device = SdfDevice::open(library()).unwrap();
    let info = device.info().unwrap();
    assert_eq!(info.issuer, "shangmi");
    assert_eq!(info.name, "test device");
    let mut buf = [0u8; 64];
    device.random(&mut buf).unwrap();
    assert_ne!(buf, [0; 64]);
}

#[test]
fn threads_share_one_pool() {
    let key = Arc::new(
        SdfKey::open(
            &SdfDevice::open(library()).unwrap(),
            1,
            KeyUsage::Sign,
            Pin::new(PIN),
            PoolOptions {
                sessions: 2,
                ..PoolOptions::default()
            },
        )
        .unwrap(),
    );
    signs_from_threads(&key, 6, 8);
}
