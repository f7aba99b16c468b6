//! Key URIs: one syntax for where a private key is, parsed here for every flag that takes
//! a key (issue 37 item 5).
//!
//! - a path: a PEM file (PKCS#8 or SEC1), as before;
//! - `sdf:<library>?index=N[&key=sign|enc][&pin-env=VAR][&sessions=N]`: the sign or
//!   encryption pair at internal index N of the GM/T 0018 device whose vendor library is
//!   `<library>` (a path, taken literally up to `?`). `key=` may be left out where the flag
//!   says the role (`--sign-key`, `--enc-key`); the PIN comes from the environment variable
//!   `pin-env` names, or is asked for on the terminal; `sessions` sizes the key's session
//!   pool (default 4).
//!
//! - `pkcs11:token=…;object=…;id=%01;type=private?module-path=PATH&pin-env=VAR`: a
//!   private key object in a PKCS#11 token (RFC 7512; our extensions `pin-env`,
//!   `mechanisms=sansec|tass|luna` for the vendor's SM mechanism numbers, `sessions`),
//!   opened in `crate::pkcs11`; the object names the key, so the flag's role is checked
//!   against what the key can do rather than choosing it.
//!
//! The same syntax is taken by `tlcp`, `tls`, `cert` (`--ca-key`, `req --key`, `tlcp-pair
//! --sign-key/--enc-key`, `cms sign|decrypt --key`) and `sm2` (`sign|decrypt|pubkey
//! --key`); [`AnyKey`] is such a key behind `PrivateKeyOps`.

use crate::failure::Failure;
use rand_core::TryCryptoRng;
use shangmi_sdf::{KeyUsage, Pin, PoolOptions, SdfDevice, SdfError, SdfKey};
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::kx::{KeyExchange, Role};
use shangmi_sm2::{KeyAgreement, PrivateKeyOps, PublicKey, SecretKey};
use shangmi_tlcp::{Sm2EncKey, Sm2PrivateKey, Sm2SignKey};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

/// Where a private key is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyUri {
    /// A PEM file.
    File(PathBuf),
    /// A key pair in an SDF device.
    Sdf(SdfUri),
    /// A private key object in a PKCS#11 token (RFC 7512; `crate::pkcs11`).
    Pkcs11(Box<shangmi_pkcs11::Pkcs11Uri>),
}

/// The parts of an `sdf:` URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdfUri {
    /// The vendor library.
    pub library: PathBuf,
    /// The internal key index (absent only where no key is meant: `shangmi sdf info`).
    pub index: Option<u32>,
    /// Which pair, if the URI says.
    pub usage: Option<KeyUsage>,
    /// The environment variable holding the PIN.
    pub pin_env: Option<String>,
    /// Sessions in the key's pool.
    pub sessions: Option<usize>,
}

impl FromStr for KeyUri {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s.starts_with("pkcs11:") {
            return crate::pkcs11::parse(s).map(|u| KeyUri::Pkcs11(Box::new(u)));
        }
        match s.strip_prefix("sdf:") {
            Some(rest) => parse_sdf(rest).map(KeyUri::Sdf),
            None if s.is_empty() => Err("empty key location".into()),
            None => Ok(KeyUri::File(PathBuf::from(s))),
        }
    }
}

fn parse_sdf(rest: &str) -> Result<SdfUri, String> {
    let (library, query) = rest.split_once('?').unwrap_or((rest, ""));
    if library.is_empty() {
        return Err("sdf: URI without a library path".into());
    }
    let mut uri = SdfUri {
        library: PathBuf::from(library),
        index: None,
        usage: None,
        pin_env: None,
        sessions: None,
    };
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("sdf: URI attribute `{pair}` has no value"))?;
        let dup = || format!("sdf: URI gives `{name}` twice");
        match name {
            "index" => {
                let n = value
                    .parse()
                    .map_err(|_| format!("sdf: URI index `{value}` is not a number"))?;
                uri.index.replace(n).map_or(Ok(()), |_| Err(dup()))?;
            }
            "key" => {
                let usage = match value {
                    "sign" => KeyUsage::Sign,
                    "enc" => KeyUsage::Encrypt,
                    _ => return Err(format!("sdf: URI key `{value}` is neither sign nor enc")),
                };
                uri.usage.replace(usage).map_or(Ok(()), |_| Err(dup()))?;
            }
            "pin-env" if !value.is_empty() => {
                uri.pin_env
                    .replace(value.to_owned())
                    .map_or(Ok(()), |_| Err(dup()))?;
            }
            "sessions" => {
                let n = value
                    .parse()
                    .ok()
                    .filter(|&n: &usize| (1..=256).contains(&n))
                    .ok_or_else(|| format!("sdf: URI sessions `{value}` is not in 1..=256"))?;
                uri.sessions.replace(n).map_or(Ok(()), |_| Err(dup()))?;
            }
            _ => return Err(format!("sdf: URI attribute `{name}` is unknown or empty")),
        }
    }
    Ok(uri)
}

impl SdfUri {
    /// The index and pair this URI names for a flag of role `role` (`None`: the URI must
    /// say).
    pub fn key(&self, role: Option<KeyUsage>) -> Result<(u32, KeyUsage), Failure> {
        let index = self
            .index
            .ok_or_else(|| Failure::usage("sdf: URI without index=N"))?;
        match (self.usage, role) {
            (Some(u), Some(r)) if u != r => Err(Failure::usage(format!(
                "sdf: URI names the {} key where the {} key is wanted",
                name(u),
                name(r)
            ))),
            (Some(u), _) | (None, Some(u)) => Ok((index, u)),
            (None, None) => Err(Failure::usage("sdf: URI without key=sign|enc")),
        }
    }

    /// Opens the device.
    pub fn device(&self) -> Result<SdfDevice, Failure> {
        SdfDevice::open(&self.library)
            .map_err(|e| Failure::new(format!("{}: {e}", self.library.display())))
    }

    /// Opens the key for `role`, with the PIN from the environment or the terminal.
    pub fn open(&self, role: KeyUsage) -> Result<Arc<SdfKey>, Failure> {
        let (index, usage) = self.key(Some(role))?;
        let device = self.device()?;
        let pin = match &self.pin_env {
            Some(var) => Pin::from_env(var)
                .ok_or_else(|| Failure::usage(format!("the PIN variable {var} is not set")))?,
            None => Pin::new(
                rpassword::prompt_password(format!("PIN for {} key {index}: ", name(usage)))
                    .map_err(|e| Failure::new(format!("reading the PIN: {e}")))?,
            ),
        };
        let mut options = PoolOptions::default();
        if let Some(n) = self.sessions {
            options.sessions = n;
        }
        SdfKey::open(&device, index, usage, pin, options)
            .map(Arc::new)
            .map_err(|e| {
                Failure::new(format!(
                    "{} key {index} in {}: {e}",
                    name(usage),
                    self.library.display()
                ))
            })
    }
}

fn name(usage: KeyUsage) -> &'static str {
    match usage {
        KeyUsage::Sign => "sign",
        KeyUsage::Encrypt => "enc",
    }
}

/// A key file in any form the key loader reads (PEM or DER, PKCS#8, SEC1, encrypted
/// PKCS#8 with `passin`).
fn file_key(path: &std::path::Path, passin: Option<&str>) -> Result<Arc<Sm2PrivateKey>, Failure> {
    let secret = crate::sm2::keyfile::load_key_file(path, passin)?;
    Sm2PrivateKey::new(secret)
        .map(Arc::new)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))
}

impl KeyUri {
    /// The key as a TLCP sign key (`passin` opens an encrypted key file).
    pub fn sign_key(&self, passin: Option<&str>) -> Result<Arc<dyn Sm2SignKey>, Failure> {
        Ok(match self {
            KeyUri::File(path) => file_key(path, passin)?,
            KeyUri::Sdf(uri) => uri.open(KeyUsage::Sign)?,
            KeyUri::Pkcs11(uri) => crate::pkcs11::open(uri, Some(KeyUsage::Sign))?,
        })
    }

    /// The key as a TLCP encryption key (`passin` opens an encrypted key file).
    pub fn enc_key(&self, passin: Option<&str>) -> Result<Arc<dyn Sm2EncKey>, Failure> {
        Ok(match self {
            KeyUri::File(path) => file_key(path, passin)?,
            KeyUri::Sdf(uri) => uri.open(KeyUsage::Encrypt)?,
            KeyUri::Pkcs11(uri) => crate::pkcs11::open(uri, Some(KeyUsage::Encrypt))?,
        })
    }
}

impl KeyUri {
    /// The location a `--key`-style flag gave as a path: a key URI if it is one, else the
    /// file.
    pub fn of_path(path: &Path) -> Result<Self, Failure> {
        match path.to_str() {
            Some(s) if s.starts_with("sdf:") || s.starts_with("pkcs11:") => {
                s.parse().map_err(Failure::usage)
            }
            _ => Ok(KeyUri::File(path.to_owned())),
        }
    }

    /// The private key for a flag of role `role` (`None`: the URI must say which pair);
    /// `passin` opens an encrypted key file.
    pub fn open_any(
        &self,
        role: Option<KeyUsage>,
        passin: Option<&str>,
    ) -> Result<AnyKey, Failure> {
        match self {
            KeyUri::File(path) => {
                crate::sm2::keyfile::load_key_file(path, passin).map(AnyKey::Memory)
            }
            KeyUri::Sdf(uri) => {
                let (_, usage) = uri.key(role)?;
                uri.open(usage).map(AnyKey::Sdf)
            }
            KeyUri::Pkcs11(uri) => crate::pkcs11::open(uri, role).map(AnyKey::Pkcs11),
        }
    }

    /// The public key of the pair `role` (`None`: the URI must say) from a key file, or
    /// exported by the device (no PIN); `passin` opens an encrypted key file.
    pub fn public_key(
        &self,
        role: Option<KeyUsage>,
        passin: Option<&str>,
    ) -> Result<PublicKey, Failure> {
        match self {
            KeyUri::File(path) => {
                crate::sm2::keyfile::load_key_file(path, passin).map(|k| k.public_key())
            }
            KeyUri::Sdf(uri) => {
                let (index, usage) = uri.key(role)?;
                uri.device()?.public_key(index, usage).map_err(|e| {
                    Failure::new(format!(
                        "{} key {index} in {}: {e}",
                        name(usage),
                        uri.library.display()
                    ))
                })
            }
            KeyUri::Pkcs11(uri) => crate::pkcs11::public_key(uri),
        }
    }
}

/// A private key from a file (held in memory) or in a device, behind [`PrivateKeyOps`]
/// (the device's errors are the error type; an in-memory key's are its `Sm2` variant).
#[derive(Debug)]
pub enum AnyKey {
    /// Read from a file.
    Memory(SecretKey),
    /// In an SDF device.
    Sdf(Arc<SdfKey>),
    /// In a PKCS#11 token.
    Pkcs11(Arc<shangmi_pkcs11::Pkcs11Key>),
}

/// An in-memory key's exchange (a device key has none: see
/// [`PrivateKeyOps::supports_key_exchange`]).
#[derive(Debug)]
pub struct AnyKx(KeyExchange);

impl KeyAgreement for AnyKx {
    type Error = SdfError;

    fn ephemeral_public(&self) -> PublicKey {
        self.0.ephemeral_public()
    }

    fn finish(
        self,
        peer_public: &PublicKey,
        peer_id: &[u8],
        peer_ephemeral: &PublicKey,
        key: &mut [u8],
    ) -> Result<(), SdfError> {
        KeyAgreement::finish(self.0, peer_public, peer_id, peer_ephemeral, key).map_err(Into::into)
    }
}

impl PrivateKeyOps for AnyKey {
    type Error = SdfError;
    type KeyExchange = AnyKx;

    fn public_key(&self) -> PublicKey {
        match self {
            AnyKey::Memory(k) => k.public_key(),
            AnyKey::Sdf(k) => k.public_key(),
            AnyKey::Pkcs11(k) => k.public_key(),
        }
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, SdfError> {
        match self {
            AnyKey::Memory(k) => Ok(PrivateKeyOps::sign_digest(k, e)?),
            AnyKey::Sdf(k) => k.sign_digest(e),
            AnyKey::Pkcs11(k) => k.sign_digest(e).map_err(crate::pkcs11::device_error),
        }
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, SdfError> {
        match self {
            AnyKey::Memory(k) => Ok(PrivateKeyOps::decrypt_into(k, c1c3c2, out)?),
            AnyKey::Sdf(k) => k.decrypt_into(c1c3c2, out),
            AnyKey::Pkcs11(k) => k
                .decrypt_into(c1c3c2, out)
                .map_err(crate::pkcs11::device_error),
        }
    }

    fn supports_key_exchange(&self) -> bool {
        match self {
            AnyKey::Memory(_) => true,
            AnyKey::Sdf(k) => PrivateKeyOps::supports_key_exchange(&**k),
            AnyKey::Pkcs11(k) => PrivateKeyOps::supports_key_exchange(&**k),
        }
    }

    fn start_key_exchange<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        role: Role,
        id: &[u8],
    ) -> Result<AnyKx, SdfError> {
        match self {
            AnyKey::Memory(k) => Ok(AnyKx(KeyExchange::new(rng, role, k, id)?)),
            AnyKey::Sdf(k) => match PrivateKeyOps::start_key_exchange(&**k, rng, role, id)? {},
            AnyKey::Pkcs11(k) => match PrivateKeyOps::start_key_exchange(&**k, rng, role, id)
                .map_err(crate::pkcs11::device_error)? {},
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sdf(s: &str) -> SdfUri {
        match s.parse::<KeyUri>() {
            Ok(KeyUri::Sdf(u)) => u,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn parses_the_forms() {
        assert_eq!(
            "key.pem".parse::<KeyUri>(),
            Ok(KeyUri::File("key.pem".into()))
        );
        let u = sdf("sdf:/opt/lib/libsdf.so?index=3&key=enc&pin-env=SDF_PIN&sessions=2");
        assert_eq!(u.library, PathBuf::from("/opt/lib/libsdf.so"));
        assert_eq!(u.index, Some(3));
        assert_eq!(u.usage, Some(KeyUsage::Encrypt));
        assert_eq!(u.pin_env.as_deref(), Some("SDF_PIN"));
        assert_eq!(u.sessions, Some(2));
        let u = sdf("sdf:libsdf.so");
        assert_eq!((u.index, u.usage), (None, None));
        assert!(u.key(Some(KeyUsage::Sign)).is_err());
        let u = sdf("sdf:libsdf.so?index=1");
        assert_eq!(u.key(Some(KeyUsage::Sign)).ok(), Some((1, KeyUsage::Sign)));
        assert!(u.key(None).is_err());
        let u = sdf("sdf:libsdf.so?index=1&key=sign");
        assert!(u.key(Some(KeyUsage::Encrypt)).is_err());
        assert_eq!(u.key(None).ok(), Some((1, KeyUsage::Sign)));
        match "pkcs11:token=t;object=k?module-path=/l.so&pin-env=P".parse::<KeyUri>() {
            Ok(KeyUri::Pkcs11(u)) => assert_eq!(u.object.label.as_deref(), Some("k")),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            KeyUri::of_path(Path::new("pkcs11:object=k")),
            Ok(KeyUri::Pkcs11(_))
        ));
    }

    #[test]
    fn refuses_malformed_uris() {
        for bad in [
            "",
            "sdf:",
            "sdf:?index=1",
            "sdf:lib.so?index=x",
            "sdf:lib.so?index=1&index=2",
            "sdf:lib.so?key=both",
            "sdf:lib.so?pin=123456",
            "sdf:lib.so?index",
            "sdf:lib.so?pin-env=",
            "sdf:lib.so?sessions=0",
            "pkcs11:token",
            "pkcs11:object=a?pin=1",
        ] {
            assert!(bad.parse::<KeyUri>().is_err(), "{bad}");
        }
    }
}
