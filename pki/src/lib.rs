//! SM2 certificates and messages: PKCS#10 requests, issuing with TLS/TLCP profiles, chain
//! verification, CRLs, GM/T 0010 CMS, GB/T 35276 SM2 key envelopes, and the SM3 KDF.
//!
//! Built on RustCrypto's `x509-cert`, `der`, `spki` and `cms` types; every signature is
//! SM2-with-SM3 over Z_A with the default distinguishing ID `1234567812345678` unless a
//! call takes another. Parsers are strict DER and return typed errors.
//!
//! ```
//! use shangmi_pki::{issue, name::parse_dn, verify};
//! let ca_key = shangmi_pki::generate_key().unwrap();
//! let ca = issue::self_signed(&ca_key, &issue::CertParams::new(
//!     parse_dn("/C=CN/O=Example/CN=Example CA").unwrap(), issue::Profile::Ca { path_len: None }, 365)).unwrap();
//! let key = shangmi_pki::generate_key().unwrap();
//! let mut params = issue::CertParams::new(parse_dn("/CN=example.cn").unwrap(), issue::Profile::TlsServer, 30);
//! params.sans.push(issue::San::Dns("example.cn".into()));
//! let leaf = issue::issue(&ca, &ca_key, &key.public_key(), &params).unwrap();
//! let opts = verify::Options::now(verify::Purpose::TlsServer).with_host("example.cn");
//! verify::verify_chain(&leaf, &[], &[ca], &opts).unwrap();
//! ```
#![no_std]
// The README's examples compile as doctests.
#![cfg_attr(doctest, doc = include_str!("../README.md"))]

extern crate alloc;

pub mod cms;
pub mod crl;
pub mod envelope;
mod error;
pub mod issue;
pub mod kdf;
pub mod name;
pub mod oid;
pub mod pem;
pub mod pkcs12;
pub mod pkcs8;
pub mod req;
mod san;
mod sig;
pub mod verify;

#[cfg(test)]
mod rng_tests;

pub use error::Error;
pub use shangmi_sm2::{PublicKey, SecretKey};
pub use x509_cert::Certificate;
pub use x509_cert::request::CertReq;

/// A new SM2 key from the operating system's generator.
pub fn generate_key() -> Result<SecretKey, Error> {
    generate_key_with_rng(&mut getrandom::SysRng)
}

/// A new SM2 key from `rng` (32 bytes taken as the secret, drawn again in the rare case
/// that they are not in [1, n-1]).
pub fn generate_key_with_rng<R: rand_core::TryCryptoRng + ?Sized>(
    rng: &mut R,
) -> Result<SecretKey, Error> {
    let mut seed = [0u8; 32];
    loop {
        fill(rng, &mut seed)?;
        let key = SecretKey::from_slice(&seed);
        zeroize::Zeroize::zeroize(&mut seed);
        if let Ok(key) = key {
            return Ok(key);
        }
    }
}

/// Fills `buf` from `rng`; its failure is [`Error::Rng`].
pub(crate) fn fill<R: rand_core::TryCryptoRng + ?Sized>(
    rng: &mut R,
    buf: &mut [u8],
) -> Result<(), Error> {
    rng.try_fill_bytes(buf).map_err(|_| Error::Rng)
}

/// The unix time now (seconds), from the system clock.
pub(crate) fn unix_now() -> u64 {
    extern crate std;
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
