//! `shangmi sdf info|export`: what a GM/T 0018 (SDF) device holds, through its vendor
//! library (`shangmi-sdf`). Neither needs a PIN.

use crate::failure::Failure;
use crate::keyuri::{KeyUri, SdfUri};
use shangmi_sm2::keys::{AlgorithmForm, public_key_to_spki_pem};
use std::process::ExitCode;

/// SDF (GM/T 0018) crypto cards and HSMs.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sdf,
}

#[derive(clap::Subcommand)]
enum Sdf {
    /// Print the device's description (SDF_GetDeviceInfo).
    Info {
        /// The vendor library: a path or an `sdf:<library>` URI
        library: String,
    },
    /// Print a public key as SPKI PEM: `sdf:<library>?index=N&key=sign|enc`.
    Export {
        /// The key URI
        uri: String,
    },
}

fn uri(s: &str) -> Result<SdfUri, Failure> {
    let full = if s.starts_with("sdf:") {
        s.to_owned()
    } else {
        format!("sdf:{s}")
    };
    match full.parse::<KeyUri>().map_err(Failure::usage)? {
        KeyUri::Sdf(u) => Ok(u),
        _ => Err(Failure::usage("expected an sdf: URI")),
    }
}

/// Runs `shangmi sdf …`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    match &args.command {
        Sdf::Info { library } => {
            let u = uri(library)?;
            let info = u
                .device()?
                .info()
                .map_err(|e| Failure::new(format!("{}: {e}", u.library.display())))?;
            println!("issuer: {}", info.issuer);
            println!("device: {}", info.name);
            println!("serial: {}", info.serial);
            println!("device version: {:#x}", info.device_version);
            println!("standard version: {:#x}", info.standard_version);
            println!("asymmetric algorithms: {:#010x}", info.asym_algorithms);
            println!("symmetric algorithms: {:#010x}", info.sym_algorithms);
            println!("hash algorithms: {:#010x}", info.hash_algorithms);
            println!("buffer size: {}", info.buffer_size);
            match shangmi_sdf::library_functions(&u.library) {
                Ok(f) => {
                    let new: Vec<_> = f.with(shangmi_sdf::Standing::New2023).collect();
                    println!(
                        "functions: {} ({} known SDF functions exported; 2023 additions: {})",
                        f.edition(),
                        f.exported.len(),
                        if new.is_empty() {
                            "none".into()
                        } else {
                            new.join(", ")
                        }
                    );
                }
                Err(e) => println!("functions: {e}"),
            }
        }
        Sdf::Export { uri: s } => {
            let u = uri(s)?;
            let (index, usage) = u.key(None)?;
            let public = u
                .device()?
                .public_key(index, usage)
                .map_err(|e| Failure::new(format!("{}: {e}", u.library.display())))?;
            let pem = public_key_to_spki_pem(
                &public,
                AlgorithmForm::EcPublicKey,
                shangmi_sm2::pkcs8::LineEnding::LF,
            )
            .map_err(|e| Failure::new(format!("encoding the key: {e}")))?;
            print!("{pem}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
