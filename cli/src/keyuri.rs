//! Key URIs: one syntax for where a private key is, parsed here for every flag that takes
//! a key (issue 37 item 5).
//!
//! - a path: a PEM file (PKCS#8 or SEC1), as before;
//! - `sdf:<library>?index=N[&key=sign|enc][&pin-env=VAR][&sessions=N]`: the sign or
//!   encryption pair at internal index N of the GM/T 0018 device whose vendor library is
//!   `<library>` (a path, taken literally up to `?`). `key=` may be left out where the flag
//!   says the role (`--sign-key`, `--enc-key`); the PIN comes from the environment variable
//!   `pin-env` names, or is asked for on the terminal; `sessions` sizes the key's session
//!   pool (default 4);
//! - `skf:<library>?device=NAME&app=NAME&container=NAME[&key=sign|enc][&pin-env=VAR]`: the
//!   sign or encryption pair of a container in a GM/T 0016 USB key (parsed by
//!   [`SkfUri`]; `device`, `app` and `container` may be left out where there is only one);
//!   `key=` and the PIN as for `sdf:`;
//! - `pkcs11:token=…;object=…;id=%01;type=private?module-path=PATH&pin-env=VAR`: a
//!   private key object in a PKCS#11 token (RFC 7512; our extensions `pin-env`,
//!   `mechanisms=sansec|tass|luna` for the vendor's SM mechanism numbers, `sessions`),
//!   opened in `crate::pkcs11`; the object names the key, so the flag's role is checked
//!   against what the key can do rather than choosing it.
//!
//! A wrong PIN is the device's typed error ([`KeyError`]), exit code
//! [`PIN_REFUSED`](crate::failure::PIN_REFUSED) (4), with the attempts left where the
//! device reports them; the PIN itself is in no message.
//!
//! The same syntax is taken by `tlcp`, `tls`, `cert` (`--ca-key`, `req --key`, `tlcp-pair
//! --sign-key/--enc-key`, `cms sign|decrypt --key`) and `sm2` (`sign|decrypt|pubkey
//! --key`); [`AnyKey`] is such a key behind `PrivateKeyOps`.

use crate::failure::Failure;
use rand_core::TryCryptoRng;
use shangmi_device::set_once;
use shangmi_pkcs11::{Pkcs11Error, Pkcs11Key, Pkcs11Uri};
use shangmi_sdf::{KeyUsage, Pin, PoolOptions, SdfDevice, SdfError, SdfKey};
use shangmi_skf::{SkfError, SkfKey, SkfUri};
use shangmi_sm2::dsa::Signature;
use shangmi_sm2::kx::{KeyExchange, Role};
use shangmi_sm2::{KeyAgreement, Peer, PrivateKeyOps, PublicKey, SecretKey};
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
    /// A key pair in a container of an SKF USB key.
    Skf(SkfUri),
    /// A private key object in a PKCS#11 token (RFC 7512; `crate::pkcs11`).
    Pkcs11(Box<Pkcs11Uri>),
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
        if let Some((library, query)) = shangmi_device::uri_parts(s, "sdf:") {
            parse_sdf(library, query).map(KeyUri::Sdf)
        } else if s.starts_with("skf:") {
            SkfUri::parse(s).map(KeyUri::Skf).map_err(|e| e.to_string())
        } else if s.starts_with("pkcs11:") {
            crate::pkcs11::parse(s).map(|u| KeyUri::Pkcs11(Box::new(u)))
        } else if s.is_empty() {
            Err("empty key location".into())
        } else {
            Ok(KeyUri::File(PathBuf::from(s)))
        }
    }
}

/// The `sdf:` URI of `library` and the attributes `query` (its values not encoded).
fn parse_sdf(library: &str, query: &str) -> Result<SdfUri, String> {
    let err = |why: String| format!("sdf: URI {why}");
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
    for attribute in shangmi_device::uri_attributes(query, '&') {
        let (name, value) = attribute.map_err(err)?;
        let stored = match name {
            "index" => {
                let n = value
                    .parse()
                    .map_err(|_| format!("sdf: URI index `{value}` is not a number"))?;
                set_once(&mut uri.index, n, name)
            }
            "key" => {
                let usage = match value {
                    "sign" => KeyUsage::Sign,
                    "enc" => KeyUsage::Encrypt,
                    _ => return Err(format!("sdf: URI key `{value}` is neither sign nor enc")),
                };
                set_once(&mut uri.usage, usage, name)
            }
            "pin-env" if !value.is_empty() => set_once(&mut uri.pin_env, value.to_owned(), name),
            "sessions" => {
                let n = value
                    .parse()
                    .ok()
                    .filter(|&n: &usize| (1..=256).contains(&n))
                    .ok_or_else(|| format!("sdf: URI sessions `{value}` is not in 1..=256"))?;
                set_once(&mut uri.sessions, n, name)
            }
            _ => return Err(format!("sdf: URI attribute `{name}` is unknown or empty")),
        };
        stored.map_err(err)?;
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
        Ok((index, pair("sdf", self.usage, role)?))
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
            None => prompt_pin(&format!("{} key {index}", name(usage)))?,
        };
        let mut options = PoolOptions::default();
        if let Some(n) = self.sessions {
            options.sessions = n;
        }
        SdfKey::open(&device, index, usage, pin, options)
            .map(Arc::new)
            .map_err(|e| {
                key_failure(
                    format!("{} key {index} in {}", name(usage), self.library.display()),
                    e.into(),
                )
            })
    }
}

/// The PIN from the terminal (where the URI names no `pin-env`).
fn prompt_pin(what: &str) -> Result<Pin, Failure> {
    rpassword::prompt_password(format!("PIN for {what}: "))
        .map(Pin::new)
        .map_err(|e| Failure::new(format!("reading the PIN: {e}")))
}

/// The pair a URI of `scheme` names (`key=`, if given) for a flag of role `role` (`None`:
/// the URI must say); both given and different is a usage error.
fn pair(
    scheme: &str,
    named: Option<KeyUsage>,
    role: Option<KeyUsage>,
) -> Result<KeyUsage, Failure> {
    match (named, role) {
        (Some(u), Some(r)) if u != r => Err(Failure::usage(format!(
            "{scheme}: URI names the {} key where the {} key is wanted",
            name(u),
            name(r)
        ))),
        (Some(u), _) | (None, Some(u)) => Ok(u),
        (None, None) => Err(Failure::usage(format!(
            "{scheme}: URI without key=sign|enc"
        ))),
    }
}

/// Opens the pair `role` of the container `uri` names: the PIN from `pin-env`, or asked
/// for on the terminal.
fn open_skf(uri: &SkfUri, role: Option<KeyUsage>) -> Result<SkfKey, Failure> {
    let usage = pair("skf", uri.key, role)?;
    let what = format!("{} key in {}", name(usage), uri.library.display());
    let pin = match uri.pin_env {
        Some(_) => None,
        None => Some(prompt_pin(&what)?),
    };
    uri.open(Some(usage), pin)
        .map_err(|e| key_failure(what, e.into()))
}

/// A device's failure to give the key `what`: a refused PIN exits with
/// [`PIN_REFUSED`](crate::failure::PIN_REFUSED), a malformed URI as a usage error.
fn key_failure(what: String, e: KeyError) -> Failure {
    let message = format!("{what}: {e}");
    if e.is_access_denied() {
        Failure::with_code(message, crate::failure::PIN_REFUSED)
    } else if matches!(e, KeyError::Skf(SkfError::Uri(_))) {
        Failure::usage(message)
    } else {
        Failure::new(message)
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
    let secret = crate::sm2::keyread::load_key_file(path, passin)?;
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
            device => Arc::new(device.open_any(Some(KeyUsage::Sign), None)?),
        })
    }

    /// The key as a TLCP encryption key (`passin` opens an encrypted key file).
    pub fn enc_key(&self, passin: Option<&str>) -> Result<Arc<dyn Sm2EncKey>, Failure> {
        Ok(match self {
            KeyUri::File(path) => file_key(path, passin)?,
            KeyUri::Sdf(uri) => uri.open(KeyUsage::Encrypt)?,
            device => Arc::new(device.open_any(Some(KeyUsage::Encrypt), None)?),
        })
    }

    /// The location a `--key`-style flag gave as a path: a key URI if it is one, else the
    /// file.
    pub fn of_path(path: &Path) -> Result<Self, Failure> {
        match path.to_str() {
            Some(s) if SCHEMES.iter().any(|scheme| s.starts_with(scheme)) => {
                s.parse().map_err(Failure::usage)
            }
            _ => Ok(KeyUri::File(path.to_owned())),
        }
    }

    /// Whether the key is in a device (a URI, not a file).
    pub fn is_device(&self) -> bool {
        !matches!(self, KeyUri::File(_))
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
                crate::sm2::keyread::load_key_file(path, passin).map(AnyKey::Memory)
            }
            KeyUri::Sdf(uri) => {
                let (_, usage) = uri.key(role)?;
                uri.open(usage).map(AnyKey::Sdf)
            }
            KeyUri::Skf(uri) => open_skf(uri, role).map(AnyKey::Skf),
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
                crate::sm2::keyread::load_key_file(path, passin).map(|k| k.public_key())
            }
            KeyUri::Sdf(uri) => {
                let (index, usage) = uri.key(role)?;
                uri.device()?.public_key(index, usage).map_err(|e| {
                    key_failure(
                        format!("{} key {index} in {}", name(usage), uri.library.display()),
                        e.into(),
                    )
                })
            }
            KeyUri::Skf(uri) => {
                let usage = pair("skf", uri.key, role)?;
                let what = format!("{} key in {}", name(usage), uri.library.display());
                uri.open_public()
                    .and_then(|c| c.public_key(usage))
                    .map_err(|e| key_failure(what, e.into()))
            }
            KeyUri::Pkcs11(uri) => crate::pkcs11::public_key(uri),
        }
    }
}

/// The URI schemes of keys in devices: a location starting with one is never a file name.
const SCHEMES: [&str; 3] = ["sdf:", "skf:", "pkcs11:"];

/// The error of an [`AnyKey`] operation: the in-memory key's, or the device's, each typed
/// as its crate has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// An in-memory key's (or a refused input's) SM2 error.
    Sm2(shangmi_sm2::Error),
    /// An SDF device's.
    Sdf(SdfError),
    /// An SKF USB key's (a wrong PIN with the attempts left, a locked PIN, …).
    Skf(SkfError),
    /// A PKCS#11 token's (a `CKR_*` code, a wrong or locked PIN, …).
    Pkcs11(Pkcs11Error),
}

impl KeyError {
    /// Whether the device refused the PIN, or an operation for want of it.
    pub fn is_access_denied(&self) -> bool {
        match self {
            KeyError::Sm2(_) => false,
            KeyError::Sdf(e) => e.is_access_denied(),
            KeyError::Skf(e) => e.is_access_denied(),
            KeyError::Pkcs11(e) => e.is_access_denied(),
        }
    }
}

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyError::Sm2(e) => write!(f, "SM2: {e}"),
            KeyError::Sdf(e) => e.fmt(f),
            KeyError::Skf(e) => e.fmt(f),
            KeyError::Pkcs11(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for KeyError {}

impl From<shangmi_sm2::Error> for KeyError {
    fn from(e: shangmi_sm2::Error) -> Self {
        KeyError::Sm2(e)
    }
}

impl From<SdfError> for KeyError {
    fn from(e: SdfError) -> Self {
        KeyError::Sdf(e)
    }
}

impl From<SkfError> for KeyError {
    fn from(e: SkfError) -> Self {
        KeyError::Skf(e)
    }
}

impl From<Pkcs11Error> for KeyError {
    fn from(e: Pkcs11Error) -> Self {
        KeyError::Pkcs11(e)
    }
}

impl shangmi_sm2::KeyOpError for KeyError {
    fn is_refused_input(&self) -> bool {
        match self {
            KeyError::Sm2(e) => e.is_refused_input(),
            KeyError::Sdf(e) => e.is_refused_input(),
            KeyError::Skf(e) => e.is_refused_input(),
            KeyError::Pkcs11(e) => e.is_refused_input(),
        }
    }
}

/// A private key from a file (held in memory) or in a device, behind [`PrivateKeyOps`]
/// with [`KeyError`].
#[derive(Debug)]
pub enum AnyKey {
    /// Read from a file.
    Memory(SecretKey),
    /// In an SDF device.
    Sdf(Arc<SdfKey>),
    /// In an SKF USB key.
    Skf(SkfKey),
    /// In a PKCS#11 token.
    Pkcs11(Arc<Pkcs11Key>),
}

/// A key's exchange: in memory, or in an SDF device whose agreed key stays inside (the
/// other devices have none: see [`PrivateKeyOps::supports_key_exchange`]).
#[derive(Debug)]
pub enum AnyKx {
    /// An in-memory key's.
    Memory(KeyExchange),
    /// An SDF encryption key's (GM/T 0018-2023 devices).
    Sdf(shangmi_sdf::SdfKx),
}

impl KeyAgreement for AnyKx {
    type Error = KeyError;

    fn ephemeral_public(&self) -> PublicKey {
        match self {
            AnyKx::Memory(kx) => kx.ephemeral_public(),
            AnyKx::Sdf(kx) => kx.ephemeral_public(),
        }
    }

    fn finish(self, peer: Peer<'_>, key: &mut [u8]) -> Result<(), KeyError> {
        match self {
            AnyKx::Memory(kx) => KeyAgreement::finish(kx, peer, key).map_err(Into::into),
            AnyKx::Sdf(kx) => kx.finish(peer, key).map_err(Into::into),
        }
    }

    fn holds_output(&self) -> bool {
        matches!(self, AnyKx::Sdf(_))
    }

    fn finish_held<T>(
        self,
        peer: Peer<'_>,
        klen: usize,
        use_key: impl FnOnce(&mut dyn shangmi_sm2::HeldKey<KeyError>) -> Result<T, KeyError>,
    ) -> Result<T, KeyError> {
        let AnyKx::Sdf(kx) = self else {
            return Err(shangmi_sm2::Error::KeyExchange.into());
        };
        // `use_key`'s result passes beside the device's own error type.
        let mut outcome = None;
        let done = kx.finish_held(peer, klen, |key| {
            outcome = Some(use_key(&mut HeldAs(key)));
            Ok(())
        });
        match (done, outcome) {
            (_, Some(Err(e))) => Err(e),
            (Err(e), _) => Err(e.into()),
            (Ok(()), Some(out)) => out,
            (Ok(()), None) => Err(shangmi_sm2::Error::KeyExchange.into()),
        }
    }
}

/// A device's held key seen with [`KeyError`].
struct HeldAs<'a>(&'a mut dyn shangmi_sm2::HeldKey<SdfError>);

impl shangmi_sm2::HeldKey<KeyError> for HeldAs<'_> {
    fn ephemeral_public(&self) -> PublicKey {
        self.0.ephemeral_public()
    }

    fn hmac_sm3(&mut self, parts: &[&[u8]]) -> Result<[u8; 32], KeyError> {
        self.0.hmac_sm3(parts).map_err(Into::into)
    }
}

impl PrivateKeyOps for AnyKey {
    type Error = KeyError;
    type KeyExchange = AnyKx;

    fn public_key(&self) -> PublicKey {
        match self {
            AnyKey::Memory(k) => k.public_key(),
            AnyKey::Sdf(k) => k.public_key(),
            AnyKey::Skf(k) => k.public_key(),
            AnyKey::Pkcs11(k) => k.public_key(),
        }
    }

    fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature, KeyError> {
        Ok(match self {
            AnyKey::Memory(k) => PrivateKeyOps::sign_digest(k, e)?,
            AnyKey::Sdf(k) => k.sign_digest(e)?,
            AnyKey::Skf(k) => k.sign_digest(e)?,
            AnyKey::Pkcs11(k) => k.sign_digest(e)?,
        })
    }

    fn decrypt_into(&self, c1c3c2: &[u8], out: &mut [u8]) -> Result<usize, KeyError> {
        Ok(match self {
            AnyKey::Memory(k) => PrivateKeyOps::decrypt_into(k, c1c3c2, out)?,
            AnyKey::Sdf(k) => k.decrypt_into(c1c3c2, out)?,
            AnyKey::Skf(k) => k.decrypt_into(c1c3c2, out)?,
            AnyKey::Pkcs11(k) => k.decrypt_into(c1c3c2, out)?,
        })
    }

    fn supports_key_exchange(&self) -> bool {
        match self {
            AnyKey::Memory(_) => true,
            AnyKey::Sdf(k) => PrivateKeyOps::supports_key_exchange(&**k),
            AnyKey::Skf(k) => PrivateKeyOps::supports_key_exchange(k),
            AnyKey::Pkcs11(k) => PrivateKeyOps::supports_key_exchange(&**k),
        }
    }

    fn start_key_exchange<R: TryCryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        role: Role,
        id: &[u8],
    ) -> Result<AnyKx, KeyError> {
        match self {
            AnyKey::Memory(k) => Ok(AnyKx::Memory(KeyExchange::new(rng, role, k, id)?)),
            AnyKey::Sdf(k) => Ok(AnyKx::Sdf(PrivateKeyOps::start_key_exchange(
                &**k, rng, role, id,
            )?)),
            AnyKey::Skf(k) => PrivateKeyOps::start_key_exchange(k, rng, role, id)?.never(),
            AnyKey::Pkcs11(k) => PrivateKeyOps::start_key_exchange(&**k, rng, role, id)?.never(),
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
    }

    #[test]
    fn skf_uris_and_their_roles() {
        let u = match KeyUri::of_path(Path::new("skf:/l.so?app=A&container=c&pin-env=P")) {
            Ok(KeyUri::Skf(u)) => u,
            other => panic!("{other:?}"),
        };
        assert_eq!(u.container.as_deref(), Some("c"));
        assert!(KeyUri::Skf(u.clone()).is_device());
        assert_eq!(
            pair("skf", u.key, Some(KeyUsage::Encrypt)).ok(),
            Some(KeyUsage::Encrypt)
        );
        assert!(pair("skf", u.key, None).is_err());
        let u = SkfUri::parse("skf:/l.so?key=sign").unwrap();
        assert_eq!(pair("skf", u.key, None).ok(), Some(KeyUsage::Sign));
        assert!(pair("skf", u.key, Some(KeyUsage::Encrypt)).is_err());
        assert!(!KeyUri::of_path(Path::new("skf.pem")).unwrap().is_device());
        // A refused PIN exits with its own code, the device's message kept.
        let f = key_failure(
            "sign key".into(),
            SkfError::WrongPin { retries_left: 2 }.into(),
        );
        assert_eq!(
            f.to_string(),
            "sign key: wrong PIN: 2 attempts left before it locks"
        );
        assert_eq!(
            format!("{:?}", f.report()),
            format!(
                "{:?}",
                std::process::ExitCode::from(crate::failure::PIN_REFUSED)
            )
        );
    }

    #[test]
    fn pkcs11_uris() {
        match "pkcs11:token=t;object=k?module-path=/l.so&pin-env=P".parse::<KeyUri>() {
            Ok(KeyUri::Pkcs11(u)) => assert_eq!(u.object.label.as_deref(), Some("k")),
            other => panic!("{other:?}"),
        }
        let u = KeyUri::of_path(Path::new("pkcs11:object=k")).unwrap();
        assert!(matches!(u, KeyUri::Pkcs11(_)) && u.is_device());
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
            "skf:",
            "skf:lib.so?pin=12345678",
            "skf:lib.so?key=both",
            "pkcs11:token",
            "pkcs11:object=a?pin=1",
        ] {
            assert!(bad.parse::<KeyUri>().is_err(), "{bad}");
        }
    }
}
