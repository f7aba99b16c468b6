//! `shangmi`: the command-line face of the workspace.
//!
//! One clap subcommand per command family, each in its own module with an `Args` type and
//! a `run` function returning `Result<ExitCode, Failure>`: `speed` (throughput table),
//! `sm3sum` (GNU `sha256sum` conventions), `sm2` (keys, signatures, encryption), `sm4`
//! (file encryption) and `completions`. Invoked under the name `sm3sum` (a link or copy
//! of the binary, or the second binary target), it behaves as `shangmi sm3sum`.
//!
//! The library exists so both binaries share one code base; its only public items are the
//! two entry points.

mod cert;
mod completions;
mod exchange;
mod failure;
mod files;
mod hexstr;
mod keyuri;
mod pkcs11;
mod progress;
mod rows;
mod sdf;
mod selftest;
mod skf;
mod sm2;
mod sm3sum;
mod sm4;
mod speed;
mod tlcp;
mod tls;

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use failure::Failure;

/// The shangmi command (its `about` is the first line of `shangmi --help`).
#[derive(Parser)]
#[command(
    name = "shangmi",
    version,
    about = "China's SM algorithms at the command line: throughput of every engine (speed), \
             SM3 checksums (sm3sum), SM2 keys, signatures and encryption (sm2), SM4 file \
             encryption (sm4), TLS 1.3 and TLCP clients and servers (tls, tlcp), SM2 \
             certificates, chains and CMS (cert)",
    propagate_version = true
)]
struct Cli {
    /// Module mode (also SHANGMI_MODULE=1): run the power-on self-tests first and refuse
    /// service (exit code 3) if any fails; SM2 keys with the pairwise-consistency test,
    /// every random number (TLS/TLCP handshakes, CMS, PKCS#12, serials included) from the
    /// health-tested DRBG; servers refuse new connections once a self-test has failed
    #[arg(long, global = true)]
    module: bool,
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    /// Runs the command, in module mode if asked (`selftest` runs the tests itself and
    /// `completions` uses no cryptography).
    fn run(self) -> Result<ExitCode, Failure> {
        if selftest::wanted(self.module)?
            && !matches!(self.command, Command::Selftest(_) | Command::Completions(_))
        {
            selftest::enter_module_mode()?;
        }
        self.command.run()
    }
}

/// A command family's arguments: one of its subcommands, `Op`.
#[derive(clap::Args)]
pub(crate) struct Group<Op: Subcommand> {
    #[command(subcommand)]
    op: Op,
}

/// The command families. Adding one is a `mod` line above, one variant here and one arm
/// in [`Command::run`].
#[derive(Subcommand)]
enum Command {
    /// Throughput table of every engine on this CPU (tcrypt style, MB/s and op/s).
    Speed(speed::Args),
    /// SM2 keys, signatures and encryption (keygen, pubkey, sign, verify, encrypt, decrypt).
    Sm2(sm2::Args),
    /// Print or check SM3 checksums (the conventions of GNU sha256sum).
    Sm3sum(sm3sum::Args),
    /// Encrypt or decrypt with SM4 (cbc/ctr as `openssl enc`, xts, authenticated gcm/ccm).
    Sm4(sm4::Args),
    /// TLS 1.3 with the RFC 8998 SM suites: an echo server and a client (s_server/s_client).
    Tls(tls::Args),
    /// TLCP (GB/T 38636) with dual SM2 certificates: a one-port server (echo or --http; RFC
    /// 8998 and ordinary TLS 1.3 beside it), a terminating proxy, a client and `get URL`.
    Tlcp(Box<tlcp::Args>),
    /// SM2 certificates, requests, chains, CRLs, GM/T 0010 CMS and PKCS#12 (ca, req, issue,
    /// tlcp-pair, crl, verify, show, cms, pkcs12).
    Cert(cert::Args),
    /// SDF (GM/T 0018) crypto cards and HSMs: what a device holds (info, export).
    Sdf(sdf::Args),
    /// SKF (GM/T 0016) USB keys: devices, applications, containers, keys, certificates.
    Skf(skf::Args),
    /// PKCS#11 HSMs and tokens: slots, tokens, the vendor's SM mechanisms, key objects.
    Pkcs11(pkcs11::Args),
    /// Module mode's self-tests: the power-on known-answer tests, the pairwise-consistency
    /// and DRBG health tests; prints each and its result (--json), exits 1 on a failure.
    Selftest(selftest::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
}

impl Command {
    fn run(self) -> Result<ExitCode, Failure> {
        match self {
            Command::Speed(args) => speed::run(&args),
            Command::Sm2(args) => sm2::run(&args),
            Command::Sm3sum(args) => sm3sum::run(&args),
            Command::Sm4(args) => sm4::run(&args),
            Command::Tls(args) => tls::run(args),
            Command::Tlcp(args) => tlcp::run(*args),
            Command::Cert(args) => cert::run(&args),
            Command::Sdf(args) => sdf::run(&args),
            Command::Skf(args) => skf::run(&args),
            Command::Pkcs11(args) => pkcs11::run(&args),
            Command::Selftest(args) => selftest::run(&args),
            Command::Completions(args) => completions::run(&args, Cli::command()),
        }
    }
}

/// The `shangmi` entry point; behaves as `sm3sum` when the program is called `sm3sum`.
pub fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let called = args
        .first()
        .and_then(|a| Path::new(a).file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or("");
    if called == "sm3sum" {
        return sm3sum_main();
    }
    if args.is_empty() {
        args.push("shangmi".into());
    }
    finish(Cli::parse_from(args).run())
}

/// The `sm3sum` entry point.
pub fn sm3sum_main() -> ExitCode {
    failure::set_program_name("sm3sum");
    let command = <sm3sum::Args as clap::Args>::augment_args(
        clap::Command::new("sm3sum")
            .version(env!("CARGO_PKG_VERSION"))
            .about("Print or check SM3 (GB/T 32905) checksums."),
    );
    let matches = command.get_matches();
    match sm3sum::Args::from_arg_matches(&matches) {
        Ok(args) => finish(
            selftest::wanted(false)
                .and_then(|module| match module {
                    true => selftest::enter_module_mode(),
                    false => Ok(()),
                })
                .and_then(|()| sm3sum::run(&args)),
        ),
        Err(e) => e.exit(),
    }
}

fn finish(result: Result<ExitCode, Failure>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(failure) => selftest::exit_failure(failure).report(),
    }
}
