//! `shangmi sm3sum` / `sm3sum`: print or check SM3 checksums with the options and output of
//! GNU coreutils' `sha256sum`.

mod check;
mod engine;
mod line;

use std::io::{self, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::Failure;
use crate::failure::{describe_io, warn};
use crate::progress::Progress;

/// Options of `sm3sum` (those of GNU `sha256sum`).
#[derive(clap::Args)]
#[command(after_help = "\
With no FILE, or when FILE is -, read standard input. The checksum lines are \
`HASH  NAME` (`HASH *NAME` with -b, `SM3 (NAME) = HASH` with --tag), as sha256sum's; \
-c reads either form back. Exit status: 0 if every file was read (and, with -c, \
matched), 1 otherwise, 2 for bad options.")]
pub struct Args {
    /// Files to hash, or with --check the checksum lists to read.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Read in binary mode (marks lines with `*`; SM3 reads every file as bytes anyway).
    #[arg(short = 'b', long, overrides_with = "text")]
    pub binary: bool,
    /// Read SM3 sums from the FILEs and check them.
    #[arg(short = 'c', long)]
    pub check: bool,
    /// Create a BSD-style checksum (`SM3 (NAME) = HASH`).
    #[arg(long)]
    pub tag: bool,
    /// Read in text mode (the default; the same bytes as binary mode).
    #[arg(short = 't', long, overrides_with = "binary")]
    pub text: bool,
    /// End each output line with NUL, not newline, and do not escape file names.
    #[arg(short = 'z', long)]
    pub zero: bool,
    /// With --check: don't fail or report status for missing files.
    #[arg(long, help_heading = "Options for --check")]
    pub ignore_missing: bool,
    /// With --check: don't print OK for each successfully verified file.
    #[arg(long, help_heading = "Options for --check")]
    pub quiet: bool,
    /// With --check: don't output anything, the exit status shows success.
    #[arg(long, help_heading = "Options for --check")]
    pub status: bool,
    /// With --check: exit non-zero for improperly formatted checksum lines.
    #[arg(long, help_heading = "Options for --check")]
    pub strict: bool,
    /// With --check: warn about improperly formatted checksum lines.
    #[arg(short = 'w', long, help_heading = "Options for --check")]
    pub warn: bool,
    /// Worker threads (default: one per CPU).
    #[arg(long, value_name = "N")]
    pub threads: Option<NonZeroUsize>,
}

/// Runs `sm3sum`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    check_options(args)?;
    let files = if args.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        args.files.clone()
    };
    let threads = args
        .threads
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get);
    if args.check {
        check::run(args, &files, threads)
    } else {
        print(args, &files, threads)
    }
}

/// The option combinations GNU refuses, with its words.
fn check_options(args: &Args) -> Result<(), Failure> {
    if !args.check {
        for (set, name) in [
            (args.ignore_missing, "--ignore-missing"),
            (args.quiet, "--quiet"),
            (args.status, "--status"),
            (args.strict, "--strict"),
            (args.warn, "--warn"),
        ] {
            if set {
                return Err(Failure::usage(format!(
                    "the {name} option is meaningful only when verifying checksums"
                )));
            }
        }
    } else if args.tag {
        return Err(Failure::usage(
            "the --tag option is meaningless when verifying checksums",
        ));
    } else if args.binary || args.text {
        return Err(Failure::usage(
            "the --binary and --text options are meaningless when verifying checksums",
        ));
    }
    if args.tag && args.text {
        return Err(Failure::usage("--tag does not support --text mode"));
    }
    Ok(())
}

/// Prints one checksum line per file.
fn print(args: &Args, files: &[PathBuf], threads: usize) -> Result<ExitCode, Failure> {
    let style = line::Style {
        tag: args.tag,
        binary: args.binary,
        zero: args.zero,
    };
    let progress = progress_for(files);
    let same_screen = progress.is_active() && io::stdout().is_terminal();
    let mut out = io::BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut text = Vec::with_capacity(256);
    let mut failed = false;
    engine::hash_in_order(files, threads, &progress, |i, result| {
        match result {
            Ok(digest) => {
                text.clear();
                line::format(&mut text, style, &digest, &path_bytes(&files[i]));
                if same_screen {
                    // Line by line, with the bar out of the way.
                    progress.suspend(|| out.write_all(&text).and_then(|()| out.flush()))
                } else {
                    out.write_all(&text)
                }
                .map_err(|e| Failure::write(&e))?;
            }
            Err(e) => {
                out.flush().map_err(|e| Failure::write(&e))?;
                warn(format_args!("{}: {}", files[i].display(), describe_io(&e)));
                failed = true;
            }
        }
        Ok(())
    })?;
    out.flush().map_err(|e| Failure::write(&e))?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// A bar over the files' total size when standard error is a terminal (and the sizes are
/// worth asking for).
fn progress_for(files: &[PathBuf]) -> Progress {
    if !io::stderr().is_terminal() {
        return Progress::none();
    }
    let total = files
        .iter()
        .filter(|f| f.as_path() != Path::new("-"))
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    Progress::bytes(Some(total), "sm3sum")
}

/// A path's bytes (as the operating system holds them, on Unix).
fn path_bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

/// The path with these bytes (lossy outside Unix).
fn bytes_path(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}
