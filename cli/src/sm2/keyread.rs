//! Reading private key files: PKCS#8 or SEC1, PEM or DER, encrypted PKCS#8 opened with a
//! passphrase from `--passin` (pass:, env:, file:, stdin) or asked on the terminal. Below
//! the key URIs (`crate::keyuri`), which read a file through it.

use std::io::{IsTerminal, Read};
use std::path::Path;

use shangmi_sm2::{Error, SecretKey, keys};
use zeroize::Zeroizing;

use super::KeyIn;
use crate::Failure;
use crate::files::read_path;

/// Whether `bytes` look like PEM text (rather than DER).
pub(crate) fn is_pem(bytes: &[u8]) -> bool {
    bytes.windows(11).any(|w| w == b"-----BEGIN ")
}

/// The private key in the file `key` names: PKCS#8 or SEC1, PEM or DER, an encrypted one
/// opened with the passphrase of [`passphrase`].
pub fn read_secret(key: &KeyIn) -> Result<SecretKey, Failure> {
    let bytes = read_path(&key.key)?;
    let named = |e: Error| Failure::new(format!("{}: {e}", key.key.display()));
    let pem = if is_pem(&bytes) {
        Some(std::str::from_utf8(&bytes).map_err(|_| named(Error::MalformedPem))?)
    } else {
        None
    };
    let parsed = match pem {
        Some(text) => keys::secret_key_from_pem(text),
        None => keys::secret_key_from_der(&bytes),
    };
    match parsed {
        Err(Error::EncryptedKey) => {
            let password = passphrase(key)?;
            match pem {
                Some(text) => keys::secret_key_from_pem_with_password(text, password.as_bytes()),
                None => keys::secret_key_from_encrypted_pkcs8_der(&bytes, password.as_bytes()),
            }
            .map_err(named)
        }
        other => other.map_err(named),
    }
}

/// The passphrase of an encrypted key: from `--passin`, else asked on the terminal; with
/// neither, "encrypted key: give --passin".
fn passphrase(key: &KeyIn) -> Result<Zeroizing<String>, Failure> {
    match &key.passin {
        Some(spec) => read_passphrase(spec, "--passin"),
        None if !std::io::stderr().is_terminal() => Err(Failure::new(format!(
            "{}: encrypted key: give --passin (pass:TEXT, env:VAR, file:PATH or stdin)",
            key.key.display()
        ))),
        None => prompt(&format!("Passphrase for {}: ", key.key.display())),
    }
}

/// The private key in the file at `path` for the `tls` and `tlcp` commands: every form
/// [`read_secret`] reads, an encrypted one opened with `passin` (`--passin`'s SPEC).
pub fn load_key_file(path: &Path, passin: Option<&str>) -> Result<SecretKey, Failure> {
    read_secret(&KeyIn {
        key: path.to_owned(),
        passin: passin.map(str::to_owned),
    })
}

/// A new passphrase asked twice on the terminal.
pub(crate) fn new_passphrase() -> Result<Zeroizing<String>, Failure> {
    let first = prompt("Passphrase for the new key: ")?;
    let again = prompt("The same passphrase again: ")?;
    if first != again {
        return Err(Failure::new("the passphrases differ"));
    }
    if first.is_empty() {
        return Err(Failure::new("an empty passphrase protects nothing"));
    }
    Ok(first)
}

/// A passphrase typed on the terminal (not echoed).
fn prompt(question: &str) -> Result<Zeroizing<String>, Failure> {
    if !std::io::stderr().is_terminal() {
        return Err(Failure::new(
            "the key is encrypted and there is no terminal to ask for its passphrase: give \
             it with --passin (pass:, env:, file: or stdin)",
        ));
    }
    rpassword::prompt_password(question)
        .map(Zeroizing::new)
        .map_err(|e| Failure::new(format!("reading the passphrase: {e}")))
}

/// A passphrase from an OpenSSL-style source: pass:TEXT, env:VAR, file:PATH (first line),
/// stdin (first line). `option` names the option in errors.
pub fn read_passphrase(spec: &str, option: &str) -> Result<Zeroizing<String>, Failure> {
    let first_line = |text: &str| Zeroizing::new(text.lines().next().unwrap_or("").to_owned());
    if let Some(text) = spec.strip_prefix("pass:") {
        Ok(Zeroizing::new(text.to_owned()))
    } else if let Some(var) = spec.strip_prefix("env:") {
        std::env::var(var)
            .map(Zeroizing::new)
            .map_err(|_| Failure::usage(format!("{option} env:{var}: the variable is not set")))
    } else if let Some(path) = spec.strip_prefix("file:") {
        let bytes = Zeroizing::new(read_path(Path::new(path))?);
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| Failure::new(format!("{path}: the passphrase is not UTF-8")))?;
        Ok(first_line(text))
    } else if spec == "stdin" {
        let mut text = Zeroizing::new(String::new());
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Failure::new(format!("standard input: {e}")))?;
        Ok(first_line(&text))
    } else {
        Err(Failure::usage(format!(
            "{option} {spec}: expected pass:TEXT, env:VAR, file:PATH or stdin"
        )))
    }
}
