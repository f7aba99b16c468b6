//! `shangmi-pkcs11` against the test token (`testdevice/pkcs11`, a cdylib cargo builds as
//! this crate's dev-dependency): listing, signatures that verify in memory (both signing
//! mechanisms), decryption, the PIN's count flags down to lockout, a missing object, a
//! key failing mid-operation, malformed output refused, and threads sharing a key.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

mod support;

use shangmi_pkcs11::{
    BadOutput, KeyOptions, MAX_MODULE_ID_LEN, Mechanisms, ObjectKind, ObjectQuery, Pin,
    Pkcs11Error, Pkcs11Key, Pkcs11Module, Pkcs11Uri, TokenQuery,
};
use shangmi_sm2::dsa::VerifyingKey;
use shangmi_sm2::kx::Role;
use shangmi_sm2::pke::{EncryptingKey, Layout};
use shangmi_sm2::{KeyOpError, PrivateKeyOps};
use std::sync::Arc;
use std::time::Duration;
use support::{PIN, label, module, object, uri};

/// The key `l` of token slot 0 with `options`.
fn open_with(l: &str, options: KeyOptions) -> Result<Pkcs11Key, Pkcs11Error> {
    let m = Pkcs11Module::load(module()).unwrap();
    Pkcs11Key::open(object(&m, 0, &label(l), PIN), options)
}

/// The key `l` opened with the token's mechanisms named by `mechanisms`.
fn open_mechanisms(l: &str, mechanisms: Mechanisms) -> Pkcs11Key {
    open_with(
        l,
        KeyOptions {
            mechanisms,
            ..KeyOptions::default()
        },
    )
    .unwrap()
}

fn open(l: &str) -> Pkcs11Key {
    open_with(l, KeyOptions::default()).unwrap()
}

#[test]
fn lists_the_module_tokens_and_public_objects() {
    let m = Pkcs11Module::load(module()).unwrap();
    // Loading again, by another spelling of the path, shares the initialised module.
    let again = Pkcs11Module::load(
        module()
            .parent()
            .unwrap()
            .join(".")
            .join(module().file_name().unwrap()),
    )
    .unwrap();
    assert_eq!(again.info().unwrap(), m.info().unwrap());
    let info = m.info().unwrap();
    assert_eq!(info.manufacturer, "shangmi");
    assert_eq!(info.cryptoki_version, (2, 40));
    let tokens = m.tokens().unwrap();
    let labels: Vec<_> = tokens.iter().map(|t| t.label.as_str()).collect();
    assert_eq!(labels, ["shangmi-p11", "lockout"]);
    assert!(tokens[0].login_required);
    for n in [
        0x8000_8104,
        0x8000_8100,
        0x8000_8200,
        0x8000_9001,
        0x8000_0108,
        0x8000_0109,
    ] {
        assert!(m.has_mechanism(0, n).unwrap(), "{n:x}");
    }
    assert!(!m.has_mechanism(0, 0x8000_0B21).unwrap());
    assert!(matches!(
        m.has_mechanism(0, 1),
        Err(Pkcs11Error::Unsupported(_))
    ));
    // The public key objects, with their points, need no login. (Whether a session
    // without one sees the private keys depends on the other tests running: a login holds
    // for every session of the token in the process, as PKCS#11 has it.)
    let public = ObjectQuery {
        kind: Some(ObjectKind::PublicKey),
        ..ObjectQuery::default()
    };
    let objects = m.objects(0, &public, None).unwrap();
    assert_eq!(objects.len(), 6);
    assert_eq!(objects[0].label.as_deref(), Some("tlcp-sign"));
    assert_eq!(objects[0].id, [1]);
    assert_eq!(objects[0].key_type, Some(0x8000_0004));
    assert!(objects[0].sm2_public.is_some());
    // offcurve's point is left out, not an error.
    assert!(objects[5].sm2_public.is_none());
    // Logged in: the private keys too, with their usage.
    let private = ObjectQuery {
        kind: Some(ObjectKind::PrivateKey),
        ..ObjectQuery::default()
    };
    let objects = m.objects(0, &private, Some(Pin::new(PIN))).unwrap();
    assert_eq!(objects.len(), 6);
    assert_eq!(objects[1].label.as_deref(), Some("tlcp-enc"));
    assert_eq!(
        (objects[1].can_sign, objects[1].can_decrypt),
        (Some(false), Some(true))
    );
    assert!(objects[1].sm2_public.is_none());
    let token = m
        .find_token(&TokenQuery {
            serial: Some("0001".into()),
            ..TokenQuery::default()
        })
        .unwrap();
    assert_eq!(token.label, "lockout");
    assert!(matches!(
        m.find_token(&TokenQuery::default()),
        Err(Pkcs11Error::Ambiguous {
            kind: "token",
            count: 2
        })
    ));
    let (mut a, mut b) = ([0u8; 2000], [0u8; 2000]);
    m.random(0, &mut a).unwrap();
    m.random(0, &mut b).unwrap();
    assert_ne!(a, b);
    assert_ne!(a[1990..], [0; 10]);
}

#[test]
fn signs_with_both_mechanisms_and_verifies_in_memory() {
    let key = open("tlcp-sign");
    assert!(key.capabilities().sign && !key.capabilities().decrypt);
    let public = key.public_key();
    let m = Pkcs11Module::load(module()).unwrap();
    assert_eq!(m.public_key(0, &label("tlcp-sign")).unwrap(), public);
    let vk = VerifyingKey::new(&public);
    for msg in [&b""[..], b"abc", &[7u8; 1000]] {
        let sig = key.sign(msg).unwrap();
        vk.verify_e(&vk.hash_message(msg), &sig).unwrap();
    }
    let other = VerifyingKey::new_with_id(&public, b"alice@example").unwrap();
    let sig = key.sign_with_id(b"alice@example", b"msg").unwrap();
    other.verify_e(&other.hash_message(b"msg"), &sig).unwrap();
    // A module without a sign-a-digest mechanism: SM3 inside (CKM_SM3_SM2), default ID.
    let sm3_inside = Mechanisms {
        sign_digest: None,
        ..Mechanisms::SANSEC
    };
    let key2 = open_mechanisms("tlcp-sign", sm3_inside);
    let sig = key2.sign(b"inside").unwrap();
    vk.verify_e(&vk.hash_message(b"inside"), &sig).unwrap();
    // A non-default identifier through SM3 inside: its raw bytes as the parameter. The
    // signature verifies under that identifier only (1 and MAX_MODULE_ID_LEN bytes: the
    // ends of what the parameter takes).
    for id in [&b"alice@example.com"[..], b"b", &[0xA7; MAX_MODULE_ID_LEN]] {
        let sig = key2.sign_with_id(id, b"inside").unwrap();
        let with_id = VerifyingKey::new_with_id(&public, id).unwrap();
        with_id
            .verify_e(&with_id.hash_message(b"inside"), &sig)
            .unwrap();
        assert!(vk.verify_e(&vk.hash_message(b"inside"), &sig).is_err());
    }
    // Longer than the parameter takes, or empty (which modules read as the default): a
    // typed refusal, not a signature under another identifier.
    for id in [&[1u8; MAX_MODULE_ID_LEN + 1][..], b""] {
        assert!(matches!(
            key2.sign_with_id(id, b"x"),
            Err(Pkcs11Error::InvalidInput(_))
        ));
    }
    // With a sign-a-digest mechanism (the default) any identifier takes the host's Z_A,
    // also one longer than the SM3-inside parameter takes; shown without an SM3-inside
    // mechanism configured at all.
    let digest_only = open_mechanisms(
        "tlcp-sign",
        Mechanisms {
            sign_sm3: None,
            ..Mechanisms::SANSEC
        },
    );
    let long_id = [0x5C; 300];
    let sig = digest_only.sign_with_id(&long_id, b"host").unwrap();
    let with_id = VerifyingKey::new_with_id(&public, &long_id).unwrap();
    with_id
        .verify_e(&with_id.hash_message(b"host"), &sig)
        .unwrap();
    assert!(matches!(
        key2.sign_digest(&[1; 32]),
        Err(Pkcs11Error::Unsupported(_))
    ));
    // The sign key does not decrypt; no key exchanges.
    assert!(matches!(
        key.decrypt(&[0; 120]),
        Err(Pkcs11Error::Unsupported(_))
    ));
    assert!(!key.supports_key_exchange());
    assert!(matches!(
        key.start_key_exchange(&mut getrandom::SysRng, Role::Initiator, b"id"),
        Err(Pkcs11Error::Unsupported(_))
    ));
}

#[test]
fn decrypts_sm2_ciphertexts() {
    let key = open("tlcp-enc");
    assert!(key.capabilities().decrypt && !key.capabilities().sign);
    let ek = EncryptingKey::new(key.public_key());
    let mut rng = getrandom::SysRng;
    for msg in [&b"x"[..], &[0xA5; 48], &[3u8; 300]] {
        let ct = ek.encrypt(&mut rng, msg, Layout::C1C3C2).unwrap();
        assert_eq!(key.decrypt(&ct).unwrap(), msg);
    }
    // A tampered ciphertext: refused as input (the peer's fault), not a device failure.
    let mut ct = ek.encrypt(&mut rng, b"premaster", Layout::C1C3C2).unwrap();
    let last = ct.len() - 1;
    ct[last] ^= 1;
    let e = key.decrypt(&ct).unwrap_err();
    assert!(e.is_refused_input(), "{e:?}");
    assert!(matches!(key.sign(b"m"), Err(Pkcs11Error::Unsupported(_))));
    // A module whose configuration has no decryption mechanism says so.
    let luna = open_mechanisms("tlcp-enc", Mechanisms::LUNA);
    assert!(!luna.capabilities().decrypt && !luna.capabilities().sign);
    assert!(matches!(
        luna.decrypt(&ct),
        Err(Pkcs11Error::Unsupported(_))
    ));
}

#[test]
fn wrong_pin_counts_down_to_lockout() {
    let m = Pkcs11Module::load(module()).unwrap();
    let try_pin = |pin: &str| {
        Pkcs11Key::open(
            object(&m, 1, &label("tlcp-sign"), pin),
            KeyOptions::default(),
        )
    };
    let e = try_pin("000000").unwrap_err();
    assert_eq!(
        e,
        Pkcs11Error::WrongPin {
            count_low: true,
            final_try: false
        }
    );
    assert!(e.is_access_denied());
    assert!(!e.to_string().contains("000000"), "{e}");
    // A right PIN resets the counter.
    try_pin(PIN).unwrap();
    assert!(!m.tokens().unwrap()[1].pin_count_low);
    for _ in 0..3 {
        assert!(matches!(
            try_pin("1"),
            Err(Pkcs11Error::WrongPin {
                final_try: false,
                ..
            })
        ));
    }
    assert_eq!(
        try_pin("2").unwrap_err(),
        Pkcs11Error::WrongPin {
            count_low: true,
            final_try: true
        }
    );
    assert_eq!(try_pin("3").unwrap_err(), Pkcs11Error::PinLocked);
    // Locked, even for the right PIN; the other token is not.
    assert_eq!(try_pin(PIN).unwrap_err(), Pkcs11Error::PinLocked);
    assert!(m.tokens().unwrap()[1].pin_locked);
    Pkcs11Key::open(
        object(&m, 0, &label("tlcp-sign"), PIN),
        KeyOptions::default(),
    )
    .unwrap();
}

#[test]
fn missing_objects_and_tokens_are_typed_errors() {
    assert!(matches!(
        open_with("nope", KeyOptions::default()),
        Err(Pkcs11Error::NotFound { kind: "object", .. })
    ));
    let q = ObjectQuery {
        id: Some(vec![0x42]),
        ..ObjectQuery::default()
    };
    let m = Pkcs11Module::load(module()).unwrap();
    let e = Pkcs11Key::open(object(&m, 0, &q, PIN), KeyOptions::default()).unwrap_err();
    assert!(e.to_string().contains("id=%42"), "{e}");
    let u = Pkcs11Uri::parse(&uri("no-such-token", "tlcp-sign")).unwrap();
    assert!(matches!(
        u.open_key(None),
        Err(Pkcs11Error::NotFound { kind: "token", .. })
    ));
    assert!(matches!(
        Pkcs11Module::load("/nonexistent/libp11.so"),
        Err(Pkcs11Error::Load(_))
    ));
    // The URI form of a working key.
    let key = Pkcs11Uri::parse(&uri("shangmi-p11", "tlcp-sign"))
        .unwrap()
        .open_key(None)
        .unwrap();
    key.sign(b"via uri").unwrap();
}

#[test]
fn faults_and_garbage_are_typed_errors_without_panics() {
    let fault = open("fault");
    let e = fault.sign(b"m").unwrap_err();
    assert_eq!(
        e.code().and_then(|c| c.name()),
        Some("CKR_DEVICE_ERROR"),
        "{e}"
    );
    assert!(!e.is_refused_input());
    let ek = EncryptingKey::new(fault.public_key());
    let ct = ek
        .encrypt(&mut getrandom::SysRng, b"pm", Layout::C1C3C2)
        .unwrap();
    let e = fault.decrypt(&ct).unwrap_err();
    assert!(
        matches!(
            e,
            Pkcs11Error::Device {
                function: "C_Decrypt",
                ..
            }
        ),
        "{e}"
    );
    // The key still works for the next caller's session (the operation ended).
    assert!(fault.sign(b"again").is_err());
    let bad = |function, what| Pkcs11Error::BadOutput(BadOutput { function, what });
    let garbage = open("garbage");
    let not_64 = "signature is not 64 bytes (r ‖ s)";
    assert_eq!(garbage.sign(b"m").unwrap_err(), bad("C_Sign", not_64));
    let ek = EncryptingKey::new(garbage.public_key());
    let ct = ek
        .encrypt(&mut getrandom::SysRng, b"pm", Layout::C1C3C2)
        .unwrap();
    let length = "plaintext length differs from the ciphertext's";
    assert_eq!(garbage.decrypt(&ct).unwrap_err(), bad("C_Decrypt", length));
    let off_curve = "CKA_EC_POINT is not on the SM2 curve";
    assert_eq!(
        open_with("offcurve", KeyOptions::default()).unwrap_err(),
        bad("C_GetAttributeValue", off_curve)
    );
    // DER signatures expected where the module gives r ‖ s: refused, not misread.
    let der = Mechanisms {
        signature: shangmi_pkcs11::SignatureEncoding::Der,
        ..Mechanisms::SANSEC
    };
    let key = open_mechanisms("tlcp-sign", der);
    let not_der = "signature is not a valid DER SM2 signature";
    assert_eq!(key.sign(b"m").unwrap_err(), bad("C_Sign", not_der));
}

#[test]
fn threads_share_a_key_over_a_small_pool() {
    let key = Arc::new(
        open_with(
            "tlcp-sign",
            KeyOptions {
                sessions: 2,
                wait: Duration::from_secs(30),
                ..KeyOptions::default()
            },
        )
        .unwrap(),
    );
    let vk = VerifyingKey::new(&key.public_key());
    std::thread::scope(|s| {
        for t in 0..6u8 {
            let (key, vk) = (key.clone(), vk.clone());
            s.spawn(move || {
                for i in 0..10u8 {
                    let msg = [t, i];
                    let sig = key.sign(&msg).unwrap();
                    vk.verify_e(&vk.hash_message(&msg), &sig).unwrap();
                }
            });
        }
    });
}
