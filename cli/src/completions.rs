//! `shangmi completions SHELL`: a completion script on standard output (clap_complete).

use std::process::ExitCode;

use clap_complete::Shell;

use crate::Failure;

/// Options of `shangmi completions`.
#[derive(clap::Args)]
#[command(after_help = "Example (bash): shangmi completions bash > /etc/bash_completion.d/shangmi")]
pub struct Args {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Writes the script for `command` (the whole `shangmi` command tree).
pub fn run(args: &Args, mut command: clap::Command) -> Result<ExitCode, Failure> {
    clap_complete::generate(args.shell, &mut command, "shangmi", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}
