//! `shangmi skf list|export`: what GM/T 0016 (SKF) USB keys hold, through their vendor
//! library (`shangmi-skf`): devices, applications, containers, key types and the
//! certificates' subjects; a container's public key or certificate as PEM. Needs no PIN
//! (public keys and certificates are public).

use crate::failure::Failure;
use der::Decode;
use shangmi_skf::{Application, ContainerType, KeyUsage, SkfLibrary, SkfUri};
use std::process::ExitCode;

/// SKF (GM/T 0016) USB keys.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Skf,
}

#[derive(clap::Subcommand)]
enum Skf {
    /// List the devices present, their applications and containers, each container's key
    /// type, public keys and certificates' subjects, and the optional functions the
    /// library lacks (a key needing one is refused before use).
    List {
        /// The vendor library: a path, or an `skf:<library>` URI (its attributes ignored)
        #[arg(long = "lib", value_name = "PATH")]
        library: String,
    },
    /// Print a container's public key as SPKI PEM, or with --cert its certificate (PEM):
    /// `skf:<library>?app=NAME&container=NAME&key=sign|enc` (the TLCP client pair a USB key
    /// holds, for `tlcp client --sign-cert/--enc-cert`).
    Export {
        /// The key URI (`key=` required).
        uri: String,
        /// The pair's certificate instead of its public key.
        #[arg(long)]
        cert: bool,
    },
}

/// Runs `shangmi skf …`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.command {
        Skf::List { library } => list(library),
        Skf::Export { uri, cert } => export(uri, *cert),
    }
}

fn export(uri: &str, cert: bool) -> Result<ExitCode, Failure> {
    let uri = SkfUri::parse(uri).map_err(|e| Failure::usage(e.to_string()))?;
    let usage = uri
        .key
        .ok_or_else(|| Failure::usage("skf: URI without key=sign|enc"))?;
    let fail = |e: shangmi_skf::SkfError| Failure::new(format!("{}: {e}", uri.library.display()));
    let container = uri.open_public().map_err(fail)?;
    let pem = if cert {
        let der = container.certificate(usage).map_err(fail)?.ok_or_else(|| {
            Failure::new(format!("container {}: no certificate", container.name()))
        })?;
        shangmi_pki::pem::to_pem("CERTIFICATE", &der)
            .map_err(|e| Failure::new(format!("encoding the certificate: {e}")))?
    } else {
        let public = container.public_key(usage).map_err(fail)?;
        shangmi_sm2::keys::public_key_to_spki_pem(
            &public,
            shangmi_sm2::keys::AlgorithmForm::EcPublicKey,
            shangmi_sm2::pkcs8::LineEnding::LF,
        )
        .map_err(|e| Failure::new(format!("encoding the key: {e}")))?
    };
    print!("{pem}");
    Ok(ExitCode::SUCCESS)
}

fn list(library: &str) -> Result<ExitCode, Failure> {
    let path = if library.starts_with("skf:") {
        let uri = SkfUri::parse(library).map_err(|e| Failure::usage(e.to_string()))?;
        uri.library.to_string_lossy().into_owned()
    } else {
        library.to_owned()
    };
    let fail = |e: shangmi_skf::SkfError| Failure::new(format!("{path}: {e}"));
    let lib = SkfLibrary::load(&path).map_err(fail)?;
    let caps = lib.capabilities();
    println!("library: {path}");
    if caps.missing().is_empty() {
        println!("missing functions: none");
    } else {
        println!("missing functions: {}", caps.missing().join(", "));
    }
    let devices = lib.devices().map_err(fail)?;
    if devices.is_empty() {
        println!("no device present");
    }
    for name in devices {
        let device = lib.connect(&name).map_err(fail)?;
        match device.info() {
            Ok(i) => println!(
                "device {name:?}: {} {} (serial {})",
                i.manufacturer, i.label, i.serial
            ),
            Err(e) => println!("device {name:?} ({e})"),
        }
        for app in device.applications().map_err(fail)? {
            println!("  application {app:?}");
            match device.open_application(&app) {
                Ok(app) => containers(&app),
                Err(e) => println!("    error: {e}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints each container of `app`; a container's own error is printed in its place.
fn containers(app: &Application) {
    let names = match app.containers() {
        Ok(n) => n,
        Err(e) => return println!("    error: {e}"),
    };
    for name in names {
        let c = match app.open_container(&name) {
            Ok(c) => c,
            Err(e) => {
                println!("    container {name:?}: error: {e}");
                continue;
            }
        };
        let kind = match c.container_type() {
            Ok(ContainerType::Ecc) => "SM2 (ECC)".to_owned(),
            Ok(ContainerType::Rsa) => "RSA".to_owned(),
            Ok(ContainerType::Empty) => "empty".to_owned(),
            Ok(ContainerType::Other(t)) => format!("type {t}"),
            Err(e) => format!("type unknown ({e})"),
        };
        println!("    container {name:?}: {kind}");
        if !matches!(c.container_type(), Ok(ContainerType::Ecc) | Err(_)) {
            continue;
        }
        for (usage, label) in [(KeyUsage::Sign, "sign"), (KeyUsage::Encrypt, "enc")] {
            match c.public_key(usage) {
                Ok(pk) => {
                    use shangmi_sm2::elliptic_curve::sec1::ToSec1Point;
                    let point = pk.to_sec1_point(true);
                    let hex: String = point
                        .as_bytes()
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect();
                    println!("      {label} key: SM2 {hex}");
                }
                Err(e) => println!("      {label} key: error: {e}"),
            }
            match c.certificate(usage) {
                Ok(Some(der)) => match shangmi_pki::Certificate::from_der(&der) {
                    Ok(cert) => println!(
                        "      {label} certificate: {}",
                        cert.tbs_certificate().subject()
                    ),
                    Err(e) => println!("      {label} certificate: not DER X.509 ({e})"),
                },
                Ok(None) => println!("      {label} certificate: none"),
                Err(e) => println!("      {label} certificate: error: {e}"),
            }
        }
    }
}
