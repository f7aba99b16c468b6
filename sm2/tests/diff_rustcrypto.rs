//! Differential tests against RustCrypto `sm2` 0.14 (`rustcrypto-sm2`): public keys, signatures
//! both ways, identifiers, tampering.

#![allow(clippy::unwrap_used)] // tests unwrap on purpose

use proptest::prelude::*;
use rustcrypto_sm2::dsa as rc;
use shangmi_sm2::dsa::{Signature, SigningKey, VerifyingKey};
use shangmi_sm2::signature::{Signer, Verifier};

const IDS: [&str; 3] = [
    "1234567812345678",
    "TLSv1.3+GM+Cipher+Suite",
    "alice@example.com",
];

fn keys(d: &[u8; 32], id: &str) -> Option<(SigningKey, rc::SigningKey)> {
    let ours = SigningKey::from_bytes_with_id(&(*d).into(), id.as_bytes()).ok()?;
    let theirs = rc::SigningKey::from_bytes(id, &(*d).into()).ok()?;
    Some((ours, theirs))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn diff_rustcrypto_same_public_key(d in any::<[u8; 32]>()) {
        if let Some((ours, theirs)) = keys(&d, IDS[0]) {
            let a = ours.verifying_key().to_sec1_point(false);
            let b = theirs.verifying_key().to_sec1_bytes();
            prop_assert_eq!(a.as_bytes(), &b[..]);
        }
    }

    #[test]
    fn diff_rustcrypto_verifies_our_signatures(d in any::<[u8; 32]>(), msg in proptest::collection::vec(any::<u8>(), 0..200), which in 0usize..3) {
        if let Some((ours, theirs)) = keys(&d, IDS[which]) {
            let sig: Signature = ours.sign(&msg);
            let rc_sig = rc::Signature::from_bytes(&sig.to_bytes().into()).unwrap();
            prop_assert!(theirs.verifying_key().verify(&msg, &rc_sig).is_ok());
            // Both make RFC 6979 nonces with HMAC-SM3: the deterministic signatures agree
            // byte for byte.
            let rc_det: rc::Signature = theirs.sign(&msg);
            prop_assert_eq!(&rc_det.to_bytes()[..], &sig.to_bytes()[..]);
            // Tampered message and signature fail in both.
            let mut bad = msg.clone();
            bad.push(1);
            prop_assert!(theirs.verifying_key().verify(&bad, &rc_sig).is_err());
            prop_assert!(ours.verifying_key().verify(&bad, &sig).is_err());
        }
    }

    #[test]
    fn diff_rustcrypto_signs_we_verify(d in any::<[u8; 32]>(), msg in proptest::collection::vec(any::<u8>(), 0..200), which in 0usize..3, flip in 0usize..512) {
        if let Some((ours, theirs)) = keys(&d, IDS[which]) {
            let rc_sig: rc::Signature = theirs.sign(&msg);
            let bytes: [u8; 64] = rc_sig.to_bytes().into();
            let sig = Signature::from_bytes(&bytes).unwrap();
            // With the per-key table (precomputed) and without (inside SigningKey).
            let enc = ours.verifying_key().to_sec1_point(true);
            let vk = VerifyingKey::from_sec1_bytes_with_id(enc.as_bytes(), IDS[which].as_bytes()).unwrap().precomputed();
            prop_assert!(vk.verify(&msg, &sig).is_ok());
            prop_assert!(ours.verifying_key().verify(&msg, &sig).is_ok());
            // DER agrees byte for byte.
            let (ours_der, rc_der) = (sig.to_der(), rc_sig.to_der());
            prop_assert_eq!(ours_der.as_ref(), rc_der.as_bytes());
            // One flipped bit in r ‖ s makes both reject (or the encoding invalid).
            let mut tampered = bytes;
            tampered[flip / 8] ^= 1 << (flip % 8);
            if let Ok(t) = Signature::from_bytes(&tampered) {
                prop_assert!(vk.verify(&msg, &t).is_err());
                prop_assert!(ours.verifying_key().verify(&msg, &t).is_err());
            }
            if let Ok(t) = rc::Signature::from_bytes(&tampered.into()) {
                prop_assert!(theirs.verifying_key().verify(&msg, &t).is_err());
            }
        }
    }

    #[test]
    fn diff_rustcrypto_batch_verify(seed in any::<[u8; 32]>(), bad in 0usize..9, flip in 0usize..512) {
        // Nine signatures by RustCrypto (a group of eight and one more), one of them with a
        // bit flipped: our batch and RustCrypto's verify agree item by item.
        let mut items = Vec::new();
        for i in 0..9u8 {
            let mut d = seed;
            d[0] ^= i;
            d[31] ^= i.wrapping_mul(91);
            let Some((ours, theirs)) = keys(&d, IDS[usize::from(i) % 3]) else { continue };
            let msg = vec![i; usize::from(i) * 5];
            let rc_sig: rc::Signature = theirs.sign(&msg);
            let mut bytes: [u8; 64] = rc_sig.to_bytes().into();
            if usize::from(i) == bad {
                bytes[flip / 8] ^= 1 << (flip % 8);
            }
            items.push((ours.verifying_key().clone(), theirs, msg, bytes));
        }
        let parsed: Vec<Option<Signature>> =
            items.iter().map(|i| Signature::from_bytes(&i.3).ok()).collect();
        let ok: Vec<(&VerifyingKey, &[u8], &Signature)> = items
            .iter()
            .zip(&parsed)
            .filter_map(|(i, s)| Some((&i.0, &i.2[..], s.as_ref()?)))
            .collect();
        let got = shangmi_sm2::batch::verify(&ok);
        let theirs: Vec<bool> = items
            .iter()
            .zip(&parsed)
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| {
                rc::Signature::from_bytes(&i.3.into())
                    .is_ok_and(|s| i.1.verifying_key().verify(&i.2, &s).is_ok())
            })
            .collect();
        prop_assert_eq!(got.iter().map(Result::is_ok).collect::<Vec<_>>(), theirs);
    }

    #[test]
    fn deterministic_and_hedged_round_trip(d in any::<[u8; 32]>(), msg in proptest::collection::vec(any::<u8>(), 0..64)) {
        use shangmi_sm2::signature::RandomizedSigner;
        if let Ok(sk) = SigningKey::from_bytes(&d.into()) {
            let a = sk.sign(&msg);
            prop_assert_eq!(a, sk.sign(&msg));
            let mut rng = XorShift(u64::from_le_bytes(d[..8].try_into().unwrap()) | 1);
            let b = sk.sign_with_rng(&mut rng, &msg);
            prop_assert_ne!(a, b);
            prop_assert!(sk.verifying_key().verify(&msg, &b).is_ok());
        }
    }
}

/// A tiny RNG for the hedged-signature test (the randomness quality is irrelevant here).
struct XorShift(u64);

impl rand_core::TryRng for XorShift {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Ok(self.0)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let v = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for XorShift {}
