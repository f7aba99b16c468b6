//! The `_with_rng` functions draw every random value from the generator given: two runs
//! from generators seeded alike give the same bytes (anything drawn elsewhere, from the
//! operating system, would make them differ), other seeds give other bytes, the output
//! still reads back, and a generator failing at any of the draws is `Error::Rng`, not a
//! panic.

use crate::issue::{self, CertParams, Profile};
use crate::name::parse_dn;
use crate::{Certificate, Error, SecretKey, cms, envelope, pkcs12};
use alloc::vec::Vec;

/// A seeded generator (xorshift64*: the same seed, the same stream) counting its requests;
/// it fails every request after the first `fail_after`.
struct Seeded {
    state: u64,
    requests: u32,
    fail_after: u32,
}

/// The seeded generator's failure.
#[derive(Debug)]
struct Failed;

impl core::fmt::Display for Failed {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("failed")
    }
}

impl core::error::Error for Failed {}

impl Seeded {
    fn new(seed: u64) -> Self {
        Seeded {
            state: seed | 1,
            requests: 0,
            fail_after: u32::MAX,
        }
    }

    fn failing_after(requests: u32) -> Self {
        Seeded {
            fail_after: requests,
            ..Seeded::new(1)
        }
    }
}

impl rand_core::TryRng for Seeded {
    type Error = Failed;

    fn try_next_u32(&mut self) -> Result<u32, Failed> {
        rand_core::utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, Failed> {
        rand_core::utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Failed> {
        if self.requests >= self.fail_after {
            return Err(Failed);
        }
        self.requests += 1;
        for b in dst {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            *b = (self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for Seeded {}

/// A key from `seed`, and a self-signed certificate for it with the serial from the same
/// generator.
fn key_and_cert(seed: u64) -> (SecretKey, Certificate) {
    let mut rng = Seeded::new(seed);
    let key = crate::generate_key_with_rng(&mut rng).unwrap();
    let mut params = CertParams::new(parse_dn("/CN=rng").unwrap(), Profile::TlsServer, 30);
    params.serial = Some(issue::random_serial(&mut rng).unwrap());
    (key.clone(), issue::self_signed(&key, &params).unwrap())
}

/// Runs `f` with generators of seeds 1, 1 and 2: the first two outputs are equal, the
/// third differs, and each run drew from its generator. Returns the first output.
fn same_seed_same_bytes(f: impl Fn(&mut Seeded) -> Vec<u8>) -> Vec<u8> {
    let mut runs = [Seeded::new(1), Seeded::new(1), Seeded::new(2)];
    let out: Vec<Vec<u8>> = runs.iter_mut().map(&f).collect();
    assert!(runs.iter().all(|r| r.requests > 0));
    assert_eq!(out[0], out[1]);
    assert_ne!(out[0], out[2]);
    out[0].clone()
}

/// Runs `f` with a generator failing from its first request, then its second, and so on
/// until `f` succeeds: every failure is `Error::Rng`.
fn every_draw_fails_typed<T: core::fmt::Debug>(f: impl Fn(&mut Seeded) -> Result<T, Error>) {
    for n in 0.. {
        match f(&mut Seeded::failing_after(n)) {
            Ok(_) => {
                assert!(n > 0, "drew nothing");
                return;
            }
            Err(e) => assert_eq!(e, Error::Rng, "failing at draw {n}"),
        }
        assert!(n < 64, "more draws than expected");
    }
}

#[test]
fn keys_and_serials_come_from_the_generator() {
    let serial = same_seed_same_bytes(|rng| issue::random_serial(rng).unwrap());
    assert_eq!(serial.len(), 16);
    assert_eq!(serial[0] & 0xc0, 0x40, "positive, 16 significant bytes");
    let key = same_seed_same_bytes(|rng| {
        crate::generate_key_with_rng(rng)
            .unwrap()
            .to_bytes()
            .to_vec()
    });
    assert_eq!(key.len(), 32);
    // The certificate carries the serial given (drawn after the key from seed 3).
    let (_, cert) = key_and_cert(3);
    let mut rng = Seeded::new(3);
    crate::generate_key_with_rng(&mut rng).unwrap();
    let serial = issue::random_serial(&mut rng).unwrap();
    assert_eq!(
        cert.tbs_certificate().serial_number().as_bytes(),
        &serial[..]
    );
    every_draw_fails_typed(issue::random_serial);
    every_draw_fails_typed(|rng| crate::generate_key_with_rng(rng).map(|k| k.to_bytes()));
}

#[test]
fn cms_envelopes_draw_key_iv_and_sm2_nonces_from_the_generator() {
    let (key, cert) = key_and_cert(5);
    let recipients = core::slice::from_ref(&cert);
    let encrypt = |oids, rng: &mut Seeded| {
        cms::encrypt_with_rng(b"module", recipients, oids, crate::oid::SM2_ENCRYPT, rng)
    };
    let sealed = same_seed_same_bytes(|rng| encrypt(cms::Oids::GmT0010, rng).unwrap());
    assert_eq!(cms::decrypt(&sealed, &cert, &key).unwrap(), b"module");
    every_draw_fails_typed(|rng| encrypt(cms::Oids::Rfc5652, rng));

    let (wrapped, _) = key_and_cert(6);
    let env = same_seed_same_bytes(|rng| {
        envelope::wrap_with_rng(&key.public_key(), &wrapped, rng).unwrap()
    });
    assert_eq!(
        envelope::unwrap(&key, &env).unwrap().to_bytes(),
        wrapped.to_bytes()
    );
    every_draw_fails_typed(|rng| envelope::wrap_with_rng(&key.public_key(), &wrapped, rng));
}

#[test]
fn pkcs12_salts_and_ivs_come_from_the_generator() {
    let (key, cert) = key_and_cert(7);
    for scheme in [pkcs12::Scheme::OpenSsl, pkcs12::Scheme::Sm] {
        let p12 = same_seed_same_bytes(|rng| {
            pkcs12::export_with_rng(&cert, &key, &[], "pw", scheme, rng).unwrap()
        });
        let read = pkcs12::import(&p12, "pw").unwrap();
        assert_eq!(read.key.to_bytes(), key.to_bytes());
        every_draw_fails_typed(|rng| pkcs12::export_with_rng(&cert, &key, &[], "pw", scheme, rng));
    }
}
