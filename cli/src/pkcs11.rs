//! PKCS#11 tokens (`shangmi-pkcs11`): `pkcs11:` key URIs (RFC 7512, opened here for
//! `keyuri.rs`), `shangmi pkcs11 list`, which shows a module's slots, tokens and key
//! objects, and `shangmi pkcs11 sm3|sm4`, SM3 and SM4 computed inside a token.

use crate::failure::Failure;
use crate::files::{Input, Output};
use shangmi_pkcs11::{
    Mechanisms, ObjectDesc, ObjectQuery, Pin, Pkcs11Error, Pkcs11Key, Pkcs11Module, Pkcs11Uri,
    TokenQuery, encode_text,
};
use shangmi_sdf::KeyUsage;
use shangmi_sm2::PublicKey;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Parses a `pkcs11:` URI as `KeyUri` does.
pub fn parse(s: &str) -> Result<Pkcs11Uri, String> {
    Pkcs11Uri::parse(s).map_err(|e| e.to_string())
}

/// What a failure of the URI's key says: the module and the error (never the PIN).
fn failure(uri: &Pkcs11Uri, e: Pkcs11Error) -> Failure {
    let module = uri
        .module_path
        .as_ref()
        .map_or_else(|| "pkcs11:".to_owned(), |p| p.display().to_string());
    match e {
        Pkcs11Error::Uri(_) => Failure::usage(format!("{module}: {e}")),
        // A refused or locked PIN exits as the other devices' do.
        e if e.is_access_denied() => {
            Failure::with_code(format!("{module}: {e}"), crate::failure::PIN_REFUSED)
        }
        e => Failure::new(format!("{module}: {e}")),
    }
}

/// Opens the key the URI names for a flag of role `role` (`None`: any), with the PIN the
/// URI names or, if none, asked for on the terminal; a key that cannot serve the role
/// (`CKA_SIGN`/`CKA_DECRYPT`, or no configured mechanism) is refused here.
pub fn open(uri: &Pkcs11Uri, role: Option<KeyUsage>) -> Result<Arc<Pkcs11Key>, Failure> {
    let key = uri.open_key(Some(pin(uri)?)).map_err(|e| failure(uri, e))?;
    let caps = key.capabilities();
    match role {
        Some(KeyUsage::Sign) if !caps.sign => Err(Failure::usage(
            "pkcs11: the key cannot sign here (CKA_SIGN, or no signing mechanism: see mechanisms=)",
        )),
        Some(KeyUsage::Encrypt) if !caps.decrypt => Err(Failure::usage(
            "pkcs11: the key cannot decrypt here (CKA_DECRYPT, or no decryption mechanism: see mechanisms=)",
        )),
        _ => Ok(Arc::new(key)),
    }
}

/// The PIN the URI names or, if none, the one asked for on the terminal.
fn pin(uri: &Pkcs11Uri) -> Result<Pin, Failure> {
    match uri.pin().map_err(|e| failure(uri, e))? {
        Some(pin) => Ok(pin),
        None => Ok(Pin::new(
            rpassword::prompt_password("PKCS#11 user PIN: ")
                .map_err(|e| Failure::new(format!("reading the PIN: {e}")))?,
        )),
    }
}

/// The public key of the pair the URI names (no PIN).
pub fn public_key(uri: &Pkcs11Uri) -> Result<PublicKey, Failure> {
    uri.public_key().map_err(|e| failure(uri, e))
}

/// PKCS#11 modules (HSMs and tokens).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Pkcs11,
}

#[derive(clap::Subcommand)]
enum Pkcs11 {
    /// List the module's slots and tokens, which of the vendor's SM mechanisms each token
    /// has, and its key objects (label, ID, SM2 public key, the `pkcs11:` URI naming it);
    /// private keys too with --pin-env.
    List {
        /// The PKCS#11 module (a path; `--lib` as in `skf list`, since `--module` is the
        /// global module-mode switch)
        #[arg(long = "lib", value_name = "PATH")]
        lib: String,
        /// The vendor's SM mechanism numbers: sansec, tass or luna
        #[arg(long, value_name = "NAME", default_value = "sansec")]
        mechanisms: String,
        /// Log in with the user PIN in this environment variable, to list private keys
        #[arg(long, value_name = "VAR")]
        pin_env: Option<String>,
    },
    /// The SM3 digest of FILE (or standard input), computed inside a token with the
    /// vendor's SM3 mechanism (no login); printed as `HEX  NAME`.
    Sm3 {
        /// The PKCS#11 module (a path)
        #[arg(long = "lib", value_name = "PATH")]
        lib: String,
        /// The token's label (may be left out if the module has one token)
        #[arg(long, value_name = "LABEL")]
        token: Option<String>,
        /// The vendor's SM mechanism numbers: sansec, tass or luna
        #[arg(long, value_name = "NAME", default_value = "sansec")]
        mechanisms: String,
        /// The input (standard input if left out or `-`)
        file: Option<PathBuf>,
    },
    /// SM4 encryption (or decryption with --decrypt) inside a token, with an SM4 key
    /// object it holds: CBC with --iv, else ECB; PKCS#7 padding added and removed here.
    Sm4 {
        /// The key: a `pkcs11:` URI naming an SM4 secret key (`type=secret-key`), its
        /// module and PIN (`pin-env=VAR`; asked for on the terminal if it names none)
        #[arg(long, value_name = "URI")]
        key: String,
        /// Decrypt instead of encrypt
        #[arg(long)]
        decrypt: bool,
        /// The CBC IV (32 hexadecimal digits); ECB without it
        #[arg(long, value_name = "HEX")]
        iv: Option<String>,
        /// Where to write (standard output if left out)
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// The input (standard input if left out or `-`)
        file: Option<PathBuf>,
    },
}

/// Runs `shangmi pkcs11 …`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.command {
        Pkcs11::List {
            lib,
            mechanisms,
            pin_env,
        } => list(lib, mechanisms, pin_env.as_deref()),
        Pkcs11::Sm3 {
            lib,
            token,
            mechanisms,
            file,
        } => sm3(lib, token.as_deref(), mechanisms, file.as_deref()),
        Pkcs11::Sm4 {
            key,
            decrypt,
            iv,
            out,
            file,
        } => sm4(
            key,
            *decrypt,
            iv.as_deref(),
            out.as_deref(),
            file.as_deref(),
        ),
    }
}

fn preset(mechanisms: &str) -> Result<Mechanisms, Failure> {
    Mechanisms::preset(mechanisms).ok_or_else(|| {
        Failure::usage(format!(
            "--mechanisms {mechanisms}: not sansec, tass or luna"
        ))
    })
}

fn sm3(
    path: &str,
    token: Option<&str>,
    mechanisms: &str,
    file: Option<&std::path::Path>,
) -> Result<ExitCode, Failure> {
    let mechanisms = preset(mechanisms)?;
    let input = Input::open(file)?;
    let name = if file.is_none() {
        "-".to_owned()
    } else {
        input.name.clone()
    };
    let data = input.read_all()?;
    let fail = |e: Pkcs11Error| Failure::new(format!("{path}: {e}"));
    let module = Pkcs11Module::load(path).map_err(fail)?;
    let query = TokenQuery {
        label: token.map(str::to_owned),
        ..TokenQuery::default()
    };
    let t = module.find_token(&query).map_err(fail)?;
    let digest = module.sm3(t.slot_id, &mechanisms, &data).map_err(fail)?;
    println!("{}  {name}", crate::hexstr::encode(&digest));
    Ok(ExitCode::SUCCESS)
}

fn sm4(
    key: &str,
    decrypt: bool,
    iv: Option<&str>,
    out: Option<&std::path::Path>,
    file: Option<&std::path::Path>,
) -> Result<ExitCode, Failure> {
    let uri = Pkcs11Uri::parse(key).map_err(|e| Failure::usage(format!("--key: {e}")))?;
    let iv = iv
        .map(|h| {
            crate::hexstr::decode_array::<16>(h.as_bytes())
                .ok_or_else(|| Failure::usage("--iv: not 32 hexadecimal digits"))
        })
        .transpose()?;
    let mut data = Input::open(file)?.read_all()?;
    let k = uri
        .open_secret_key(Some(pin(&uri)?))
        .map_err(|e| failure(&uri, e))?;
    let result = if decrypt {
        let plain = match &iv {
            Some(iv) => k.decrypt_cbc(iv, &data),
            None => k.decrypt_ecb(&data),
        }
        .map_err(|e| failure(&uri, e))?;
        // PKCS#7: n bytes of value n, 1 ≤ n ≤ 16.
        let n = plain.last().copied().unwrap_or(0) as usize;
        if n == 0
            || n > 16
            || n > plain.len()
            || plain[plain.len() - n..].iter().any(|&b| b as usize != n)
        {
            return Err(Failure::new(
                "decryption: bad PKCS#7 padding (wrong key, IV or mode?)",
            ));
        }
        plain[..plain.len() - n].to_vec()
    } else {
        let n = 16 - data.len() % 16;
        data.resize(data.len() + n, n as u8);
        match &iv {
            Some(iv) => k.encrypt_cbc(iv, &data),
            None => k.encrypt_ecb(&data),
        }
        .map_err(|e| failure(&uri, e))?
    };
    let mut output = Output::create(out)?;
    output.write_all(&result)?;
    output.commit()?;
    Ok(ExitCode::SUCCESS)
}

fn list(path: &str, mechanisms: &str, pin_env: Option<&str>) -> Result<ExitCode, Failure> {
    let mechanisms = preset(mechanisms)?;
    let fail = |e: Pkcs11Error| Failure::new(format!("{path}: {e}"));
    let module = Pkcs11Module::load(path).map_err(fail)?;
    let info = module.info().map_err(fail)?;
    println!("module: {path}");
    println!(
        "library: {} ({}), version {}.{}, Cryptoki {}.{}",
        info.description,
        info.manufacturer,
        info.version.0,
        info.version.1,
        info.cryptoki_version.0,
        info.cryptoki_version.1
    );
    let tokens = module.tokens().map_err(fail)?;
    if tokens.is_empty() {
        println!("no token present");
    }
    for t in tokens {
        println!(
            "slot {} ({}): token {:?}, {} {} (serial {}){}",
            t.slot_id,
            t.slot_description,
            t.label,
            t.manufacturer,
            t.model,
            t.serial,
            if t.pin_locked {
                ", user PIN locked"
            } else if t.pin_final_try {
                ", user PIN: final try"
            } else {
                ""
            }
        );
        let has = |n: Option<u64>| match n {
            None => "-",
            Some(n) => match module.has_mechanism(t.slot_id, n) {
                Ok(true) => "yes",
                Ok(false) => "no",
                Err(_) => "?",
            },
        };
        println!(
            "  {} mechanisms: sign digest {}, sign with SM3 {}, decrypt {}, SM3 {}, SM4-ECB {}, SM4-CBC {}",
            mechanisms.name,
            has(mechanisms.sign_digest),
            has(mechanisms.sign_sm3),
            has(mechanisms.decrypt),
            has(mechanisms.sm3),
            has(mechanisms.sm4_ecb),
            has(mechanisms.sm4_cbc)
        );
        let pin = match pin_env {
            Some(var) => Some(Pin::from_env(var).ok_or_else(|| {
                Failure::usage(format!("--pin-env {var}: the variable is not set"))
            })?),
            None => None,
        };
        match module.objects(t.slot_id, &ObjectQuery::default(), pin) {
            Ok(objects) if objects.is_empty() => println!("  no object"),
            Ok(objects) => {
                for o in objects {
                    object(&t.label, &o, mechanisms);
                }
            }
            Err(e) => println!("  error: {e}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints one object and the URI naming it.
fn object(token: &str, o: &ObjectDesc, mechanisms: Mechanisms) {
    let kind = o.kind.map_or("object", |k| k.uri_name());
    let label = o.label.as_deref().unwrap_or("");
    let id: String = o.id.iter().map(|b| format!("%{b:02x}")).collect();
    let key_type = match o.key_type {
        Some(t) if Some(t) == mechanisms.key_type => " SM2".to_owned(),
        Some(t) => format!(" key type 0x{t:X}"),
        None => String::new(),
    };
    let usage = match (o.can_sign, o.can_decrypt) {
        (Some(true), Some(true)) => " sign+decrypt",
        (Some(true), _) => " sign",
        (_, Some(true)) => " decrypt",
        _ => "",
    };
    println!("  {kind} {label:?} id={id}{key_type}{usage}");
    if let Some(pk) = o.sm2_public {
        use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
        let hex: String = pk
            .to_sec1_point(true)
            .as_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        println!("    SM2 {hex}");
    }
    let mut uri = format!("pkcs11:token={}", encode_text(token));
    if !label.is_empty() {
        uri.push_str(&format!(";object={}", encode_text(label)));
    }
    if !id.is_empty() {
        uri.push_str(&format!(";id={id}"));
    }
    println!("    {uri};type={kind}");
}
