//! `skf:` key URIs, one syntax for every command that takes a key:
//! `skf:<library>?device=NAME&app=NAME&container=NAME&key=sign|enc&pin-env=VAR`.

use crate::device::{Application, Container, KeyUsage, Pin, SkfLibrary};
use crate::error::SkfError;
use crate::key::SkfKey;
use shangmi_device::set_once;
use std::path::PathBuf;

/// A parsed `skf:` URI.
///
/// `skf:<library>?device=NAME&app=NAME&container=NAME&key=sign|enc&pin-env=VAR`: the
/// library's path up to `?`, then `&`-separated attributes, each value percent-decoded
/// (`%20`, `%26`, …). `device`, `app` and `container` may be left out when the library
/// has exactly one of that level; `key` when the caller's flag gives the role
/// (`--sign-key`, `--enc-key`); `pin-env` names the environment variable holding the
/// user PIN (never the PIN itself: it would show in `ps` and shell history).
///
/// ```
/// use shangmi_skf::{KeyUsage, SkfUri};
/// let uri = SkfUri::parse("skf:/opt/ukey/libskf.so?app=SJY&container=my%20key&key=sign&pin-env=UKEY_PIN")?;
/// assert_eq!(uri.library.to_str(), Some("/opt/ukey/libskf.so"));
/// assert_eq!(uri.container.as_deref(), Some("my key"));
/// assert_eq!(uri.key, Some(KeyUsage::Sign));
/// assert_eq!(uri.device, None);
/// # Ok::<(), shangmi_skf::SkfError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkfUri {
    /// The vendor library's path.
    pub library: PathBuf,
    /// The device's name (`None`: the only device present).
    pub device: Option<String>,
    /// The application's name (`None`: the device's only application).
    pub app: Option<String>,
    /// The container's name (`None`: the application's only container).
    pub container: Option<String>,
    /// The pair (`None`: the caller says).
    pub key: Option<KeyUsage>,
    /// The environment variable holding the user PIN.
    pub pin_env: Option<String>,
}

fn uri_err(why: impl Into<String>) -> SkfError {
    SkfError::Uri(why.into())
}

/// Percent-decodes `s` (UTF-8 required after decoding).
fn decode(s: &str) -> Result<String, SkfError> {
    let out = shangmi_device::percent_decode(s).map_err(uri_err)?;
    String::from_utf8(out).map_err(|_| uri_err("a value is not UTF-8 after decoding"))
}

/// The one name in `names`, or the error naming what to choose.
fn only(kind: &'static str, attr: &str, names: Vec<String>) -> Result<String, SkfError> {
    match <[String; 1]>::try_from(names) {
        Ok([one]) => Ok(one),
        Err(names) if names.is_empty() => Err(SkfError::NotFound {
            kind,
            name: String::new(),
        }),
        Err(names) => Err(uri_err(format!(
            "{} {kind}s ({}): say which with {attr}=",
            names.len(),
            names.join(", ")
        ))),
    }
}

impl SkfUri {
    /// Parses `skf:<library>?attr=value&…` (attributes: `device`, `app`, `container`,
    /// `key` = `sign` | `enc`, `pin-env`; an unknown or repeated one is an error).
    pub fn parse(s: &str) -> Result<Self, SkfError> {
        let (path, query) = shangmi_device::uri_parts(s, "skf:")
            .ok_or_else(|| uri_err("does not start with skf:"))?;
        if path.is_empty() {
            return Err(uri_err("no library path"));
        }
        let mut uri = SkfUri {
            library: PathBuf::from(decode(path)?),
            device: None,
            app: None,
            container: None,
            key: None,
            pin_env: None,
        };
        for attribute in shangmi_device::uri_attributes(query, '&') {
            let (name, value) = attribute.map_err(uri_err)?;
            let value = decode(value)?;
            let slot = match name {
                "device" => &mut uri.device,
                "app" => &mut uri.app,
                "container" => &mut uri.container,
                "pin-env" => &mut uri.pin_env,
                "key" => {
                    let usage = match value.as_str() {
                        "sign" => KeyUsage::Sign,
                        "enc" => KeyUsage::Encrypt,
                        _ => return Err(uri_err("key must be sign or enc")),
                    };
                    set_once(&mut uri.key, usage, name).map_err(uri_err)?;
                    continue;
                }
                other => return Err(uri_err(format!("unknown attribute {other:?}"))),
            };
            set_once(slot, value, name).map_err(uri_err)?;
        }
        Ok(uri)
    }

    /// The PIN from the variable `pin-env` names: `Ok(None)` if the URI names none, an
    /// error if the variable is unset.
    pub fn pin(&self) -> Result<Option<Pin>, SkfError> {
        match &self.pin_env {
            None => Ok(None),
            Some(var) => Pin::from_env(var)
                .map(Some)
                .ok_or_else(|| uri_err(format!("pin-env names {var}, which is not set"))),
        }
    }

    /// Loads the library, connects to the device, opens the application, verifies `pin`
    /// (or, if `None`, the one [`pin`](Self::pin) reads) and opens the container.
    pub fn open_container(&self, pin: Option<Pin>) -> Result<Container, SkfError> {
        let pin = match pin {
            Some(p) => p,
            None => self
                .pin()?
                .ok_or_else(|| uri_err("no PIN: add pin-env=VAR"))?,
        };
        let app = self.application()?;
        app.verify_pin(pin)?;
        self.container_in(&app)
    }

    /// Opens the container without the PIN: enough for its public keys and certificates
    /// ([`Container::public_key`], [`Container::certificate`]), not for its private keys.
    pub fn open_public(&self) -> Result<Container, SkfError> {
        self.container_in(&self.application()?)
    }

    /// Loads the library, connects to the device and opens the application.
    fn application(&self) -> Result<Application, SkfError> {
        let lib = SkfLibrary::load(&self.library)?;
        let device = match &self.device {
            Some(d) => d.clone(),
            None => only("device", "device", lib.devices()?)?,
        };
        let device = lib.connect(&device)?;
        let app = match &self.app {
            Some(a) => a.clone(),
            None => only("application", "app", device.applications()?)?,
        };
        device.open_application(&app)
    }

    /// Opens the container in `app`.
    fn container_in(&self, app: &Application) -> Result<Container, SkfError> {
        let container = match &self.container {
            Some(c) => c.clone(),
            None => only("container", "container", app.containers()?)?,
        };
        app.open_container(&container)
    }

    /// Opens the key: the pair `key=` names, or `role` where it does not (both given and
    /// different is an error); the PIN as [`open_container`](Self::open_container).
    pub fn open(&self, role: Option<KeyUsage>, pin: Option<Pin>) -> Result<SkfKey, SkfError> {
        let usage = match (self.key, role) {
            (Some(k), Some(r)) if k != r => {
                return Err(uri_err("key= disagrees with the role the option gives"));
            }
            (Some(k), _) | (None, Some(k)) => k,
            (None, None) => return Err(uri_err("say which pair with key=sign or key=enc")),
        };
        SkfKey::open(&self.open_container(pin)?, usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        let u = SkfUri::parse("skf:lib%2Fx.so?device=d&app=a%26b&container=c&key=enc&pin-env=P")
            .unwrap();
        assert_eq!(u.library, PathBuf::from("lib/x.so"));
        assert_eq!(u.device.as_deref(), Some("d"));
        assert_eq!(u.app.as_deref(), Some("a&b"));
        assert_eq!(u.key, Some(KeyUsage::Encrypt));
        assert_eq!(u.pin_env.as_deref(), Some("P"));
        let bare = SkfUri::parse("skf:/l.so").unwrap();
        assert_eq!((bare.device, bare.key), (None, None));
        for bad in [
            "sdf:/l.so",
            "skf:",
            "skf:?app=a",
            "skf:/l.so?app",
            "skf:/l.so?app=a&app=b",
            "skf:/l.so?key=both",
            "skf:/l.so?key=sign&key=sign",
            "skf:/l.so?pin=123456",
            "skf:/l.so?app=%4",
            "skf:/l.so?app=%zz",
            "skf:/l.so?app=%ff",
        ] {
            assert!(matches!(SkfUri::parse(bad), Err(SkfError::Uri(_))), "{bad}");
        }
        // The refused attribute's value (a PIN given inline) is not repeated.
        let e = SkfUri::parse("skf:/l.so?pin=9876").unwrap_err().to_string();
        assert!(!e.contains("9876"), "{e}");
        let u = SkfUri::parse("skf:/l.so?key=sign").unwrap();
        assert!(matches!(
            u.open(Some(KeyUsage::Encrypt), Some(Pin::new("x"))),
            Err(SkfError::Uri(_))
        ));
    }
}
