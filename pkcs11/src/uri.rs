//! RFC 7512 `pkcs11:` URIs.

use crate::error::Pkcs11Error;
use crate::key::{KeyObject, KeyOptions, Pkcs11Key};
use crate::mechanisms::Mechanisms;
use crate::module::{ObjectKind, ObjectQuery, Pkcs11Module, TokenQuery};
use crate::secret::Pkcs11SecretKey;
use shangmi_device::Pin;
use shangmi_sm2::PublicKey;
use std::path::PathBuf;

/// A parsed `pkcs11:` URI (RFC 7512).
///
/// `pkcs11:token=NAME;object=LABEL;id=%01;type=private?module-path=PATH&pin-env=VAR`:
/// path attributes separated by `;`, query attributes by `&`, values percent-decoded.
///
/// - Path: `token`, `manufacturer`, `model`, `serial`, `slot-id` choose the token (any
///   left out matches every token, and exactly one must match); `object` (`CKA_LABEL`),
///   `id` (`CKA_ID`, bytes), `type` (`private`, `public`, `cert`, `secret-key`, `data`)
///   choose the object. `library-*` and `slot-description`/`slot-manufacturer` are taken
///   and ignored.
/// - Query: `module-path` (the module's file; this crate needs it), `pin-value` (the PIN
///   itself: discouraged, it shows in `ps` and shell history), `pin-source` (`file:PATH`,
///   or a bare path: the PIN is the file's first line).
/// - Our extensions (query attributes, not in RFC 7512): `pin-env=VAR`, the environment
///   variable holding the PIN, as `sdf:` URIs take it; `mechanisms=sansec|tass|luna`,
///   the vendor's SM mechanism numbers ([`Mechanisms`]; default `sansec`); `sessions=N`,
///   the key's session pool (1–256, default 4).
///
/// An unknown attribute, or one given twice, is an error.
///
/// ```
/// use shangmi_pkcs11::Pkcs11Uri;
/// let uri = Pkcs11Uri::parse(
///     "pkcs11:token=HSM%201;object=tlcp-sign;id=%01;type=private\
///      ?module-path=/opt/hsm/libpkcs11.so&pin-env=HSM_PIN&mechanisms=tass",
/// )?;
/// assert_eq!(uri.token.label.as_deref(), Some("HSM 1"));
/// assert_eq!(uri.object.id.as_deref(), Some(&[1u8][..]));
/// assert_eq!(uri.module_path.as_ref().and_then(|p| p.to_str()), Some("/opt/hsm/libpkcs11.so"));
/// assert_eq!(uri.mechanisms.name, "tass");
/// # Ok::<(), shangmi_pkcs11::Pkcs11Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pkcs11Uri {
    /// Which token.
    pub token: TokenQuery,
    /// Which object (`kind` from `type`).
    pub object: ObjectQuery,
    /// `module-path`.
    pub module_path: Option<PathBuf>,
    /// Where the PIN comes from.
    pub pin: PinSource,
    /// The vendor's mechanism numbers (`mechanisms=`, default [`Mechanisms::SANSEC`]).
    pub mechanisms: Mechanisms,
    /// The key's session pool (`sessions=`).
    pub sessions: Option<usize>,
}

/// Where a `pkcs11:` URI's PIN comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum PinSource {
    /// The URI names none.
    None,
    /// `pin-env=VAR`.
    Env(String),
    /// `pin-source=file:PATH`.
    File(PathBuf),
    /// `pin-value=…` (zeroized with the URI).
    Value(zeroize::Zeroizing<String>),
}

impl core::fmt::Debug for PinSource {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PinSource::None => f.write_str("None"),
            PinSource::Env(v) => f.debug_tuple("Env").field(v).finish(),
            PinSource::File(p) => f.debug_tuple("File").field(p).finish(),
            PinSource::Value(_) => f.write_str("Value(..)"),
        }
    }
}

fn uri_err(why: impl Into<String>) -> Pkcs11Error {
    Pkcs11Error::Uri(why.into())
}

/// Percent-decodes `s` to bytes.
fn decode_bytes(s: &str) -> Result<Vec<u8>, Pkcs11Error> {
    shangmi_device::percent_decode(s).map_err(uri_err)
}

/// Percent-decodes `s` to text.
fn decode(s: &str) -> Result<String, Pkcs11Error> {
    String::from_utf8(decode_bytes(s)?).map_err(|_| uri_err("a value is not UTF-8 after decoding"))
}

/// `text` percent-encoded where RFC 7512 requires it (keeping unreserved characters).
pub fn encode_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn set<T>(slot: &mut Option<T>, v: T, name: &str) -> Result<(), Pkcs11Error> {
    shangmi_device::set_once(slot, v, name).map_err(uri_err)
}

impl Pkcs11Uri {
    /// Parses a `pkcs11:` URI (see the type's documentation).
    pub fn parse(s: &str) -> Result<Self, Pkcs11Error> {
        let (path, query) = shangmi_device::uri_parts(s, "pkcs11:")
            .ok_or_else(|| uri_err("does not start with pkcs11:"))?;
        let mut token = TokenQuery::default();
        let mut object = ObjectQuery::default();
        let mut ignored = Vec::new();
        for attribute in shangmi_device::uri_attributes(path, ';') {
            let (name, value) = attribute.map_err(uri_err)?;
            match name {
                "token" => set(&mut token.label, decode(value)?, name)?,
                "manufacturer" => set(&mut token.manufacturer, decode(value)?, name)?,
                "model" => set(&mut token.model, decode(value)?, name)?,
                "serial" => set(&mut token.serial, decode(value)?, name)?,
                "slot-id" => {
                    let id = decode(value)?
                        .parse()
                        .map_err(|_| uri_err("slot-id is not a number"))?;
                    set(&mut token.slot_id, id, name)?
                }
                "object" => set(&mut object.label, decode(value)?, name)?,
                "id" => set(&mut object.id, decode_bytes(value)?, name)?,
                "type" => {
                    let kind = ObjectKind::from_uri_name(&decode(value)?).ok_or_else(|| {
                        uri_err("type is not private, public, cert, secret-key or data")
                    })?;
                    set(&mut object.kind, kind, name)?
                }
                "library-manufacturer"
                | "library-description"
                | "library-version"
                | "slot-description"
                | "slot-manufacturer" => {
                    if ignored.contains(&name) {
                        return Err(uri_err(format!("{name} given twice")));
                    }
                    ignored.push(name);
                }
                other => return Err(uri_err(format!("unknown path attribute {other:?}"))),
            }
        }
        let mut module_path = None;
        let mut pin = None;
        let mut mechanisms = None;
        let mut sessions = None;
        for attribute in shangmi_device::uri_attributes(query, '&') {
            let (name, value) = attribute.map_err(uri_err)?;
            match name {
                "module-path" => set(&mut module_path, PathBuf::from(decode(value)?), name)?,
                "pin-env" => set(&mut pin, PinSource::Env(decode(value)?), "the PIN source")?,
                "pin-value" => set(
                    &mut pin,
                    PinSource::Value(zeroize::Zeroizing::new(decode(value)?)),
                    "the PIN source",
                )?,
                "pin-source" => {
                    let v = decode(value)?;
                    let path = match v.strip_prefix("file:") {
                        Some(p) => p.trim_start_matches("//").to_owned(),
                        None if v.starts_with('|') => {
                            return Err(uri_err("pin-source commands (|…) are not run"));
                        }
                        None => v,
                    };
                    set(
                        &mut pin,
                        PinSource::File(PathBuf::from(path)),
                        "the PIN source",
                    )?
                }
                "mechanisms" => {
                    let m = Mechanisms::preset(&decode(value)?)
                        .ok_or_else(|| uri_err("mechanisms is not sansec, tass or luna"))?;
                    set(&mut mechanisms, m, name)?
                }
                "sessions" => {
                    let n = decode(value)?
                        .parse()
                        .ok()
                        .filter(|n: &usize| (1..=256).contains(n))
                        .ok_or_else(|| uri_err("sessions is not in 1..=256"))?;
                    set(&mut sessions, n, name)?
                }
                "module-name" => {
                    return Err(uri_err("module-name is not looked up: give module-path"));
                }
                other => return Err(uri_err(format!("unknown query attribute {other:?}"))),
            }
        }
        Ok(Pkcs11Uri {
            token,
            object,
            module_path,
            pin: pin.unwrap_or(PinSource::None),
            mechanisms: mechanisms.unwrap_or_default(),
            sessions,
        })
    }

    /// The PIN the URI names: `Ok(None)` if it names none, an error if the variable is
    /// unset or the file unreadable (its path named, not its content).
    pub fn pin(&self) -> Result<Option<Pin>, Pkcs11Error> {
        match &self.pin {
            PinSource::None => Ok(None),
            PinSource::Env(var) => Pin::from_env(var)
                .map(Some)
                .ok_or_else(|| uri_err(format!("pin-env names {var}, which is not set"))),
            PinSource::File(path) => {
                let text = zeroize::Zeroizing::new(
                    std::fs::read(path)
                        .map_err(|e| uri_err(format!("pin-source {}: {e}", path.display())))?,
                );
                let line = text.split(|&b| b == b'\n').next().unwrap_or_default();
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                Ok(Some(Pin::new(line)))
            }
            PinSource::Value(v) => Ok(Some(Pin::new(v.as_bytes()))),
        }
    }

    /// Loads the module `module-path` names.
    pub fn module(&self) -> Result<Pkcs11Module, Pkcs11Error> {
        let path = self
            .module_path
            .as_ref()
            .ok_or_else(|| uri_err("no module-path"))?;
        Pkcs11Module::load(path)
    }

    /// Loads the module, finds the token, logs in with `pin` (or, if `None`, the one
    /// [`pin`](Self::pin) reads) and opens the private key the URI names.
    pub fn open_key(&self, pin: Option<Pin>) -> Result<Pkcs11Key, Pkcs11Error> {
        if matches!(
            self.object.kind,
            Some(k) if k != ObjectKind::PrivateKey
        ) {
            return Err(uri_err("the URI names an object that is not a private key"));
        }
        self.opening(pin, Pkcs11Key::open)
    }

    /// Loads the module, finds the token, logs in with `pin` (or the one
    /// [`pin`](Self::pin) reads) and opens the SM4 secret key the URI names
    /// (`type=secret-key`, or no `type`).
    pub fn open_secret_key(&self, pin: Option<Pin>) -> Result<Pkcs11SecretKey, Pkcs11Error> {
        if matches!(self.object.kind, Some(k) if k != ObjectKind::SecretKey) {
            return Err(uri_err("the URI names an object that is not a secret key"));
        }
        self.opening(pin, Pkcs11SecretKey::open)
    }

    /// Opens the object of the URI with `open` ([`Pkcs11Key::open`],
    /// [`Pkcs11SecretKey::open`]): in the loaded module, the slot of the URI's token, with
    /// `pin` (else the one [`pin`](Self::pin) reads) and the URI's key options.
    fn opening<K>(
        &self,
        pin: Option<Pin>,
        open: impl FnOnce(KeyObject<'_>, KeyOptions) -> Result<K, Pkcs11Error>,
    ) -> Result<K, Pkcs11Error> {
        let pin = match pin {
            Some(p) => p,
            None => self
                .pin()?
                .ok_or_else(|| uri_err("no PIN: add pin-env=VAR"))?,
        };
        let module = self.module()?;
        let slot_id = module.find_token(&self.token)?.slot_id;
        let key = KeyObject {
            module: &module,
            slot_id,
            query: &self.object,
            pin,
        };
        open(key, self.key_options())
    }

    /// The key options the URI gives (`mechanisms=`, `sessions=`).
    fn key_options(&self) -> KeyOptions {
        let mut options = KeyOptions {
            mechanisms: self.mechanisms,
            ..KeyOptions::default()
        };
        if let Some(n) = self.sessions {
            options.sessions = n;
        }
        options
    }

    /// The SM2 public key of the pair the URI names, read without a login.
    pub fn public_key(&self) -> Result<PublicKey, Pkcs11Error> {
        let module = self.module()?;
        let token = module.find_token(&self.token)?;
        module.public_key(token.slot_id, &self.object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rfc7512_and_our_extensions() {
        let u = Pkcs11Uri::parse(
            "pkcs11:token=a%20b;manufacturer=m;model=x;serial=42;slot-id=3;object=k;id=%01%ff;\
             type=private;library-description=d?module-path=%2Fl%2Fp.so&pin-env=P&sessions=2",
        )
        .unwrap();
        assert_eq!(u.token.label.as_deref(), Some("a b"));
        assert_eq!(u.token.serial.as_deref(), Some("42"));
        assert_eq!(u.token.slot_id, Some(3));
        assert_eq!(u.object.id.as_deref(), Some(&[1u8, 0xff][..]));
        assert_eq!(u.object.kind, Some(ObjectKind::PrivateKey));
        assert_eq!(u.module_path, Some(PathBuf::from("/l/p.so")));
        assert_eq!(u.pin, PinSource::Env("P".into()));
        assert_eq!(u.sessions, Some(2));
        assert_eq!(u.mechanisms, Mechanisms::SANSEC);
        let u = Pkcs11Uri::parse("pkcs11:?pin-value=1234&mechanisms=LUNA").unwrap();
        assert_eq!(u.mechanisms, Mechanisms::LUNA);
        assert_eq!(
            u.pin().unwrap().map(|p| p.as_bytes().to_vec()),
            Some(b"1234".to_vec())
        );
        // The PIN is not in the debug form.
        assert!(!format!("{u:?}").contains("1234"));
        let u = Pkcs11Uri::parse("pkcs11:").unwrap();
        assert_eq!((u.token, u.object), Default::default());
        assert_eq!(
            Pkcs11Uri::parse("pkcs11:?pin-source=file:///run/pin")
                .unwrap()
                .pin,
            PinSource::File("/run/pin".into())
        );
        assert_eq!(encode_text("a b/c"), "a%20b%2Fc");
        assert_eq!(crate::module::encode_bytes(&[1, 0xab]), "%01%ab");
    }

    #[test]
    fn refuses_malformed_uris() {
        for bad in [
            "sdf:x",
            "pkcs11:token",
            "pkcs11:token=a;token=b",
            "pkcs11:type=key",
            "pkcs11:slot-id=x",
            "pkcs11:id=%0",
            "pkcs11:object=%ff",
            "pkcs11:pin=1",
            "pkcs11:?pin-env=A&pin-value=1",
            "pkcs11:?pin-source=%7Cecho",
            "pkcs11:?sessions=0",
            "pkcs11:?mechanisms=acme",
            "pkcs11:?module-name=p11",
            "pkcs11:?what=1",
        ] {
            assert!(
                matches!(Pkcs11Uri::parse(bad), Err(Pkcs11Error::Uri(_))),
                "{bad}"
            );
        }
        // A refused attribute's value (a PIN given where it does not belong) is not repeated.
        let e = Pkcs11Uri::parse("pkcs11:pin-value=9876")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("9876"), "{e}");
    }
}
