//! `shangmi`: the command-line face of the workspace.
//!
//! One clap subcommand per command family, each in its own module with an `Args` type and a
//! `run` function: `speed` (throughput table), `sm3sum` (GNU `sha256sum` conventions),
//! `sm2` (keys, signatures, encryption), `sm4` (file encryption) and `completions`.
//! Invoked under the name `sm3sum` (a link or copy of the binary), it behaves as
//! `shangmi sm3sum`.

mod failure;
mod rows;
mod speed;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use failure::Failure;

/// SM2, SM3 and SM4 at the command line.
#[derive(Parser)]
#[command(name = "shangmi", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The command families. Adding one is one variant here and one arm in [`Command::run`].
#[derive(Subcommand)]
enum Command {
    /// Throughput table of every engine on this CPU (tcrypt style, MB/s and op/s).
    Speed(speed::Args),
}

impl Command {
    fn run(self) -> Result<ExitCode, Failure> {
        match self {
            Command::Speed(args) => speed::run(&args),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}
