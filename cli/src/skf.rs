//! `shangmi skf list`: what GM/T 0016 (SKF) USB keys hold, through their vendor library
//! (`shangmi-skf`): devices, applications, containers, key types and the certificates'
//! subjects. Needs no PIN (public keys and certificates are public).

use crate::failure::Failure;
use der::Decode;
use shangmi_skf::{Application, ContainerType, KeyUsage, SkfLibrary};
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
}

/// Runs `shangmi skf …`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.command {
        Skf::List { library } => list(library),
    }
}

fn list(library: &str) -> Result<ExitCode, Failure> {
    let path = match library.strip_prefix("skf:") {
        Some(uri) => uri.split_once('?').map_or(uri, |(p, _)| p),
        None => library,
    };
    let fail = |e: shangmi_skf::SkfError| Failure::new(format!("{path}: {e}"));
    let lib = SkfLibrary::load(path).map_err(fail)?;
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
