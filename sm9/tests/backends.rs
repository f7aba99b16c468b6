//! Every SM9 field backend available here gives the portable backend's results: key
//! extraction, a signature with a fixed r and its verification, encryption with a fixed r
//! and decryption. The backend is process-wide (`use_backend`), so this file holds one test.
#![allow(clippy::unwrap_used)]

use shangmi_sm9::signature::Verifier;
use shangmi_sm9::{Backend, EncryptMasterKey, SignMasterKey, backend, use_backend};

/// Everything the field's product reaches, as bytes.
fn outputs() -> Vec<Vec<u8>> {
    let master = SignMasterKey::from_bytes(&[0x42; 32]).unwrap();
    let alice = master.extract(b"Alice").unwrap();
    let sig = alice.sign_with_fixed_r(b"message", &[0x17; 32]).unwrap();
    let verifying = master.public_key().verifying_key(b"Alice");
    assert!(verifying.verify(b"message", &sig).is_ok());
    assert!(verifying.verify(b"messagf", &sig).is_err());
    let kgc = EncryptMasterKey::from_bytes(&[0x24; 32]).unwrap();
    let bob = kgc.extract(b"Bob").unwrap();
    let mut ct = vec![0u8; 20 + shangmi_sm9::CIPHERTEXT_OVERHEAD];
    kgc.public_key()
        .encrypt_with_fixed_r(b"Bob", &[0x31; 32], b"twenty bytes of text", &mut ct)
        .unwrap();
    let plain = bob.decrypt(b"Bob", &ct).unwrap();
    vec![
        master.public_key().to_uncompressed().to_vec(),
        alice.to_uncompressed().to_vec(),
        sig.to_bytes().to_vec(),
        ct,
        plain,
    ]
}

#[test]
fn every_backend_equals_portable() {
    let best = backend();
    assert_eq!(Backend::best(), best);
    let all: Vec<Backend> = Backend::available().collect();
    assert!(all.contains(&Backend::Portable));
    use_backend(Backend::Portable).unwrap();
    assert_eq!(backend(), Backend::Portable);
    let want = outputs();
    assert_eq!(want[4], b"twenty bytes of text");
    for b in all {
        use_backend(b).unwrap();
        assert_eq!(backend(), b);
        assert_eq!(outputs(), want, "{b}");
    }
    for b in Backend::ALL {
        if !b.is_available() {
            assert!(use_backend(b).is_err(), "{b}");
        }
    }
    use_backend(best).unwrap();
}
