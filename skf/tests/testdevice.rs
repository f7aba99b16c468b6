//! `shangmi-skf` against the test devices (`testdevice/skf` and `testdevice/skf-nodecrypt`,
//! cdylibs cargo builds as this crate's dev-dependencies): enumeration, the PIN's retry
//! counter down to lockout, signatures that verify in memory, decryption, the container's
//! certificates, a missing function reported before use, malformed device output refused,
//! and threads sharing a key.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use der::{Decode, Encode};
use shangmi_pki::Certificate;
use shangmi_skf::{
    Application, BadOutput, Container, ContainerType, KeyUsage, Pin, SarCode, SkfError, SkfKey,
    SkfLibrary, SkfUri,
};
use shangmi_sm2::dsa::VerifyingKey;
use shangmi_sm2::kx::Role;
use shangmi_sm2::pke::{EncryptingKey, Layout};
use shangmi_sm2::{KeyOpError, PrivateKeyOps};
use std::sync::Arc;
use support::device_keys::{decrypts_like_memory, too_long_for_devices};
use support::device_threads::signs_from_threads;
use support::{PIN, ca_certificate, library, library_named};

const DEVICE: &str = "shangmi-skf-0";

fn app(lib: &SkfLibrary, name: &str) -> Application {
    lib.connect(DEVICE).unwrap().open_application(name).unwrap()
}

/// The container `name` of application SHANGMI, the PIN verified.
fn container(name: &str) -> Container {
    let lib = SkfLibrary::load(library()).unwrap();
    let app = app(&lib, "SHANGMI");
    app.verify_pin(Pin::new(PIN)).unwrap();
    app.open_container(name).unwrap()
}

#[test]
fn enumerates_the_device() {
    let lib = SkfLibrary::load(library()).unwrap();
    assert!(lib.capabilities().missing().is_empty());
    assert!(lib.capabilities().decrypt() && lib.capabilities().sign());
    assert_eq!(lib.devices().unwrap(), [DEVICE]);
    let device = lib.connect(DEVICE).unwrap();
    let info = device.info().unwrap();
    assert_eq!(
        (info.manufacturer.as_str(), info.label.as_str()),
        ("shangmi", "test key")
    );
    assert_eq!(info.asym_algorithms, 0x0002_0100);
    assert_eq!(device.applications().unwrap(), ["SHANGMI", "LOCKOUT"]);
    let app = device.open_application("SHANGMI").unwrap();
    assert_eq!(
        app.containers().unwrap(),
        ["tlcp-client", "garbage", "offcurve", "empty"]
    );
    let types: Vec<_> = ["tlcp-client", "empty"]
        .iter()
        .map(|c| app.open_container(c).unwrap().container_type().unwrap())
        .collect();
    assert_eq!(types, [ContainerType::Ecc, ContainerType::Empty]);
    // Public keys need no PIN; the two pairs differ.
    let c = app.open_container("tlcp-client").unwrap();
    assert_ne!(
        c.public_key(KeyUsage::Sign).unwrap(),
        c.public_key(KeyUsage::Encrypt).unwrap()
    );
    let (mut a, mut b) = ([0u8; 2000], [0u8; 2000]);
    device.random(&mut a).unwrap();
    device.random(&mut b).unwrap();
    assert_ne!(a, b);
    assert_ne!(a[1990..], [0; 10]);
    // Names that are not there.
    assert!(matches!(
        lib.connect("nope"),
        Err(SkfError::NotFound { kind: "device", .. })
    ));
    assert!(matches!(
        device.open_application("NOPE"),
        Err(SkfError::NotFound {
            kind: "application",
            ..
        })
    ));
    assert!(matches!(
        app.open_container("nope"),
        Err(SkfError::NotFound {
            kind: "container",
            ..
        })
    ));
    assert_eq!(
        lib.connect("a\0b").unwrap_err(),
        SkfError::InteriorNul("device name")
    );
}

#[test]
fn wrong_pin_counts_down_then_locks() {
    // LOCKOUT is used by this test alone (its counter is the device's, shared by the
    // process).
    let lib = SkfLibrary::load(library()).unwrap();
    let app = app(&lib, "LOCKOUT");
    let secret_pins = ["000000", "99999999", "wrong-pin-xyz"];
    let wrong = |i: usize| app.verify_pin(Pin::new(secret_pins[i % 3]));
    assert_eq!(wrong(0), Err(SkfError::WrongPin { retries_left: 5 }));
    assert_eq!(wrong(1), Err(SkfError::WrongPin { retries_left: 4 }));
    // A right PIN resets the counter.
    app.verify_pin(Pin::new(PIN)).unwrap();
    let mut messages = Vec::new();
    for (i, left) in (1..=5).rev().enumerate() {
        let e = wrong(i).unwrap_err();
        assert_eq!(e, SkfError::WrongPin { retries_left: left });
        assert!(e.is_access_denied());
        messages.push(format!("{e} {e:?}"));
    }
    assert_eq!(wrong(0), Err(SkfError::PinLocked));
    // Locked: the right PIN is refused too.
    let e = app.verify_pin(Pin::new(PIN)).unwrap_err();
    assert_eq!(e, SkfError::PinLocked);
    messages.push(format!("{e} {e:?} {:?}", Pin::new(PIN)));
    for m in &messages {
        for p in secret_pins.iter().chain([&PIN]) {
            assert!(!m.contains(p), "{m}");
        }
    }
    assert!(messages[0].contains("5 attempts left"), "{}", messages[0]);
    // An interior NUL never reaches the device.
    assert_eq!(
        app.verify_pin(Pin::new("12\x0034")),
        Err(SkfError::InteriorNul("PIN"))
    );
}

#[test]
fn signatures_verify_in_memory() {
    let c = container("tlcp-client");
    let key = SkfKey::open(&c, KeyUsage::Sign).unwrap();
    assert_eq!(key.public_key(), c.public_key(KeyUsage::Sign).unwrap());
    let vk = VerifyingKey::new(&key.public_key());
    let sig = key.sign(b"signed by the USB key").unwrap();
    vk.verify_e(&vk.hash_message(b"signed by the USB key"), &sig)
        .unwrap();
    assert!(vk.verify_e(&vk.hash_message(b"other"), &sig).is_err());
    let with_id = VerifyingKey::new_with_id(&key.public_key(), b"ALICE123@YAHOO.COM").unwrap();
    let sig = key.sign_with_id(b"ALICE123@YAHOO.COM", b"m").unwrap();
    with_id.verify_e(&with_id.hash_message(b"m"), &sig).unwrap();
    // A sign key does not decrypt; no key exchanges.
    assert!(matches!(
        key.decrypt(&[4; 120]),
        Err(SkfError::Unsupported(_))
    ));
    let e = key
        .start_key_exchange(&mut getrandom::SysRng, Role::Initiator, b"id")
        .unwrap_err();
    assert!(matches!(e, SkfError::Unsupported(_)) && !e.is_refused_input());
    // Without the PIN the device refuses (its code, named).
    let lib = SkfLibrary::load(library()).unwrap();
    let logged_out = app(&lib, "SHANGMI").open_container("tlcp-client").unwrap();
    let key = SkfKey::open(&logged_out, KeyUsage::Sign).unwrap();
    let e = key.sign(b"m").unwrap_err();
    assert_eq!(
        e,
        SkfError::Device {
            function: "SKF_ECCSignData",
            code: SarCode::NotLoggedIn
        }
    );
    assert!(e.is_access_denied());
}

#[test]
fn decrypts_what_memory_encrypts() {
    let c = container("tlcp-client");
    let key = SkfKey::open(&c, KeyUsage::Encrypt).unwrap();
    // A tampered ciphertext: the device's SAR_INDATAERR, which blames the input.
    let mut ct = decrypts_like_memory(&key);
    let last = ct.len() - 1;
    ct[last] ^= 1;
    let e = key.decrypt(&ct).unwrap_err();
    assert!(e.is_refused_input(), "{e}");
    // Refused before the device: too long, empty, a short output buffer.
    let long = too_long_for_devices(&key);
    assert!(matches!(key.decrypt(&long), Err(SkfError::Unsupported(_))));
    assert!(key.decrypt(&ct[..97]).is_err());
    assert!(key.decrypt_into(&ct, &mut [0u8; 3]).is_err());
    // An encryption key does not sign.
    assert!(matches!(key.sign(b"m"), Err(SkfError::Unsupported(_))));
}

#[test]
fn certificates_match_the_keys_and_the_ca() {
    let c = container("tlcp-client");
    let ca = Certificate::from_der(&ca_certificate()).unwrap();
    let ca_key =
        shangmi_pki::verify::sm2_public_key(ca.tbs_certificate().subject_public_key_info())
            .unwrap();
    for usage in [KeyUsage::Sign, KeyUsage::Encrypt] {
        let der = c.certificate(usage).unwrap().unwrap();
        // Read back the same each time, and the same through the key.
        assert_eq!(c.certificate(usage).unwrap().unwrap(), der);
        let key = SkfKey::open(&c, usage).unwrap();
        assert_eq!(key.certificate().unwrap().unwrap(), der);
        let cert = Certificate::from_der(&der).unwrap();
        assert_eq!(cert.to_der().unwrap(), der);
        let public =
            shangmi_pki::verify::sm2_public_key(cert.tbs_certificate().subject_public_key_info())
                .unwrap();
        assert_eq!(public, c.public_key(usage).unwrap());
        shangmi_pki::verify::check_signature(
            &ca_key,
            shangmi_sm2::DEFAULT_ID,
            &cert.tbs_certificate().to_der().unwrap(),
            cert.signature_algorithm(),
            cert.signature().raw_bytes(),
        )
        .unwrap();
    }
    // No certificate: None, not an error.
    let empty = container("empty");
    assert_eq!(empty.certificate(KeyUsage::Sign).unwrap(), None);
    assert_eq!(
        container("garbage").certificate(KeyUsage::Encrypt).unwrap(),
        None
    );
}

#[test]
fn missing_decrypt_is_reported_before_use() {
    let lib = SkfLibrary::load(library_named("shangmi_testdevice_skf_nodecrypt")).unwrap();
    let caps = lib.capabilities();
    assert_eq!(caps.missing(), ["SKF_ECCDecrypt"]);
    assert!(!caps.decrypt() && caps.sign());
    let app = app(&lib, "SHANGMI");
    app.verify_pin(Pin::new(PIN)).unwrap();
    let c = app.open_container("tlcp-client").unwrap();
    assert_eq!(
        SkfKey::open(&c, KeyUsage::Encrypt).unwrap_err(),
        SkfError::MissingSymbol("SKF_ECCDecrypt")
    );
    // The sign key of the same container works.
    let key = SkfKey::open(&c, KeyUsage::Sign).unwrap();
    let vk = VerifyingKey::new(&key.public_key());
    vk.verify_e(&vk.hash_message(b"m"), &key.sign(b"m").unwrap())
        .unwrap();
    // A file that is no library.
    assert!(matches!(
        SkfLibrary::load("/nonexistent/libskf.so"),
        Err(SkfError::Load(_))
    ));
}

#[test]
fn malformed_output_is_refused() {
    let bad = |e: SkfError, function: &str| {
        assert!(
            matches!(e, SkfError::BadOutput(BadOutput { function: f, .. }) if f == function),
            "{e:?}"
        );
    };
    let garbage = container("garbage");
    let sign = SkfKey::open(&garbage, KeyUsage::Sign).unwrap();
    bad(sign.sign(b"m").unwrap_err(), "SKF_ECCSignData");
    let enc = SkfKey::open(&garbage, KeyUsage::Encrypt).unwrap();
    let ct = EncryptingKey::new(enc.public_key())
        .encrypt(&mut getrandom::SysRng, b"premaster", Layout::C1C3C2)
        .unwrap();
    let e = enc.decrypt(&ct).unwrap_err();
    assert!(!e.is_refused_input());
    bad(e, "SKF_ECCDecrypt");
    bad(
        garbage.certificate(KeyUsage::Sign).unwrap_err(),
        "SKF_ExportCertificate",
    );
    let off = container("offcurve");
    bad(
        off.public_key(KeyUsage::Sign).unwrap_err(),
        "SKF_ExportPublicKey",
    );
    bad(
        SkfKey::open(&off, KeyUsage::Sign).unwrap_err(),
        "SKF_ExportPublicKey",
    );
    // A container without SM2 keys.
    assert!(matches!(
        SkfKey::open(&container("empty"), KeyUsage::Sign),
        Err(SkfError::Unsupported(_))
    ));
}

#[test]
fn threads_share_a_key() {
    let key = Arc::new(SkfKey::open(&container("tlcp-client"), KeyUsage::Sign).unwrap());
    signs_from_threads(&key, 8, 10);
    // Libraries, devices and containers opened and dropped from several threads at once.
    let openers: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(|| container("tlcp-client").public_key(KeyUsage::Encrypt)))
        .collect();
    let first = openers.into_iter().map(|t| t.join().unwrap().unwrap());
    assert_eq!(first.collect::<std::collections::BTreeSet<_>>().len(), 1);
}

#[test]
fn uri_opens_the_key() {
    let path = library();
    let path = path.to_str().unwrap();
    // The device is the only one; the application and container are named.
    let uri = SkfUri::parse(&format!("skf:{path}?app=SHANGMI&container=tlcp-client")).unwrap();
    let key = uri.open(Some(KeyUsage::Sign), Some(Pin::new(PIN))).unwrap();
    let vk = VerifyingKey::new(&key.public_key());
    vk.verify_e(&vk.hash_message(b"m"), &key.sign(b"m").unwrap())
        .unwrap();
    let enc = SkfUri::parse(&format!(
        "skf:{path}?device={DEVICE}&app=SHANGMI&container=tlcp-client&key=enc"
    ))
    .unwrap()
    .open(None, Some(Pin::new(PIN)))
    .unwrap();
    assert_eq!(enc.usage(), KeyUsage::Encrypt);
    // Two applications: the URI must say which.
    let e = SkfUri::parse(&format!("skf:{path}?container=tlcp-client"))
        .unwrap()
        .open(Some(KeyUsage::Sign), Some(Pin::new(PIN)))
        .unwrap_err();
    assert!(e.to_string().contains("SHANGMI, LOCKOUT"), "{e}");
    // No PIN anywhere; an unset pin-env variable.
    assert!(matches!(
        uri.open(Some(KeyUsage::Sign), None),
        Err(SkfError::Uri(_))
    ));
    let unset = SkfUri::parse(&format!(
        "skf:{path}?app=SHANGMI&pin-env=SHANGMI_SKF_TEST_UNSET_VARIABLE"
    ))
    .unwrap();
    assert!(matches!(unset.pin(), Err(SkfError::Uri(_))));
}
