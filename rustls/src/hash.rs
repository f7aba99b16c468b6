//! SM3 as rustls' transcript hash and HMAC-SM3 for HKDF-SM3 (RFC 8998 §3.1: the SM suites
//! use SM3 wherever TLS 1.3 uses the suite's hash).

use digest::{Digest, Mac as _};
use hmac::Hmac;
use rustls::crypto::hash::{self, HashAlgorithm};
use rustls::crypto::hmac as rhmac;
use shangmi_sm3::Sm3;

/// The value rustls sees as the SM3 hash algorithm. rustls only compares it for equality
/// (resumption, HelloRetryRequest), and TLS 1.2's HashAlgorithm registry has no SM3; 7 is the
/// hash byte of `sm2sig_sm3` (0x0708).
pub const SM3_HASH_ALGORITHM: HashAlgorithm = HashAlgorithm::Unknown(7);

/// SM3 for rustls' transcript hash.
#[derive(Debug)]
pub struct Sm3Hash;

/// The SM3 hash object the suites use.
pub static SM3: Sm3Hash = Sm3Hash;

impl hash::Hash for Sm3Hash {
    fn start(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context(Sm3::new()))
    }

    fn hash(&self, data: &[u8]) -> hash::Output {
        hash::Output::new(&Sm3::digest(data))
    }

    fn output_len(&self) -> usize {
        32
    }

    fn algorithm(&self) -> HashAlgorithm {
        SM3_HASH_ALGORITHM
    }
}

struct Sm3Context(Sm3);

impl hash::Context for Sm3Context {
    fn fork_finish(&self) -> hash::Output {
        hash::Output::new(&self.0.clone().finalize())
    }

    fn fork(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context(self.0.clone()))
    }

    fn finish(self: Box<Self>) -> hash::Output {
        hash::Output::new(&self.0.finalize())
    }

    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
}

/// HMAC-SM3 (RFC 2104 over SM3), from which rustls derives HKDF-SM3.
#[derive(Debug)]
pub struct HmacSm3;

/// The HMAC-SM3 object the suites use.
pub static HMAC_SM3: HmacSm3 = HmacSm3;

/// HMAC-SM3 keyed with `key`, ready for `update`/`finalize` (the `hmac` crate's type). The
/// one keyed HMAC-SM3 of both TLS crates: this provider's HKDF-SM3 and `shangmi-tlcp`'s PRF
/// and record MACs start here.
pub fn hmac_sm3(key: &[u8]) -> Hmac<Sm3> {
    // HMAC takes keys of any length (longer ones are hashed first, RFC 2104 §2).
    <Hmac<Sm3> as hmac::KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of every length"))
}

impl rhmac::Hmac for HmacSm3 {
    fn with_key(&self, key: &[u8]) -> Box<dyn rhmac::Key> {
        Box::new(HmacSm3Key(hmac_sm3(key)))
    }

    fn hash_output_len(&self) -> usize {
        32
    }
}

struct HmacSm3Key(Hmac<Sm3>);

impl rhmac::Key for HmacSm3Key {
    fn sign_concat(&self, first: &[u8], middle: &[&[u8]], last: &[u8]) -> rhmac::Tag {
        let mut mac = self.0.clone();
        mac.update(first);
        for part in middle {
            mac.update(part);
        }
        mac.update(last);
        rhmac::Tag::new(&mac.finalize().into_bytes())
    }

    fn tag_len(&self) -> usize {
        32
    }
}

/// HKDF-SM3 (RFC 5869 with HMAC-SM3), as the suites' key schedule.
pub static HKDF_SM3: rustls::crypto::tls13::HkdfUsingHmac<'static> =
    rustls::crypto::tls13::HkdfUsingHmac(&HMAC_SM3);
