//! `sm3sum --check`: reads checksum lists and verifies the files they name, reporting as
//! GNU `sha256sum -c` does (`NAME: OK`, `NAME: FAILED`, `NAME: FAILED open or read`, then
//! `WARNING:` counts).

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::{Args, bytes_path, engine, line};
use crate::Failure;
use crate::failure::{describe_io, warn};
use crate::progress::Progress;

/// Checks every list in `lists`.
pub fn run(args: &Args, lists: &[PathBuf], threads: usize) -> Result<ExitCode, Failure> {
    let mut all_ok = true;
    for list in lists {
        all_ok &= check_list(args, list, threads)?;
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Checks one list; `Ok(false)` when something did not verify. `Err` only for a failed
/// write to standard output.
fn check_list(args: &Args, list: &Path, threads: usize) -> Result<bool, Failure> {
    let shown = list.display();
    let text = match read_list(list) {
        Ok(text) => text,
        Err(e) => {
            warn(format_args!("{shown}: {}", describe_io(&e)));
            return Ok(false);
        }
    };
    let mut entries = vec![];
    let mut improper = 0usize;
    for (number, raw) in text.split(|&b| b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.is_empty() || raw.starts_with(b"#") {
            continue;
        }
        match line::parse(raw) {
            Some(entry) => entries.push(entry),
            None => {
                improper += 1;
                if args.warn {
                    warn(format_args!(
                        "{shown}: {}: improperly formatted SM3 checksum line",
                        number + 1
                    ));
                }
            }
        }
    }
    if entries.is_empty() {
        warn(format_args!(
            "{shown}: no properly formatted checksum lines found"
        ));
        return Ok(false);
    }

    let paths: Vec<PathBuf> = entries.iter().map(|e| bytes_path(&e.name)).collect();
    let mut out = io::BufWriter::new(io::stdout().lock());
    let (mut verified, mut mismatched, mut unreadable) = (0usize, 0usize, 0usize);
    engine::hash_in_order(&paths, threads, &Progress::none(), |i, result| {
        let (name, _) = line::escape(&entries[i].name);
        let prefix: &[u8] = if name.len() == entries[i].name.len() {
            b""
        } else {
            b"\\"
        };
        let verdict: &[u8] = match result {
            Ok(digest) if digest == entries[i].digest => {
                verified += 1;
                if args.quiet || args.status {
                    return Ok(());
                }
                b": OK\n"
            }
            Ok(_) => {
                verified += 1;
                mismatched += 1;
                if args.status {
                    return Ok(());
                }
                b": FAILED\n"
            }
            Err(e) if args.ignore_missing && e.kind() == io::ErrorKind::NotFound => {
                return Ok(());
            }
            Err(e) => {
                unreadable += 1;
                out.flush().map_err(|e| Failure::write(&e))?;
                warn(format_args!("{}: {}", paths[i].display(), describe_io(&e)));
                if args.status {
                    return Ok(());
                }
                b": FAILED open or read\n"
            }
        };
        [prefix, &name, verdict]
            .iter()
            .try_for_each(|part| out.write_all(part))
            .map_err(|e| Failure::write(&e))
    })?;
    out.flush().map_err(|e| Failure::write(&e))?;

    if !args.status {
        if improper > 0 {
            warn(format_args!(
                "WARNING: {improper} {} improperly formatted",
                plural(improper, "line is", "lines are")
            ));
        }
        if unreadable > 0 {
            warn(format_args!(
                "WARNING: {unreadable} listed {} could not be read",
                plural(unreadable, "file", "files")
            ));
        }
        if mismatched > 0 {
            warn(format_args!(
                "WARNING: {mismatched} computed {} did NOT match",
                plural(mismatched, "checksum", "checksums")
            ));
        }
    }
    if args.ignore_missing && verified == 0 {
        warn(format_args!("{shown}: no file was verified"));
        return Ok(false);
    }
    Ok(mismatched == 0 && unreadable == 0 && !(args.strict && improper > 0))
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The whole list (`-`: standard input).
fn read_list(list: &Path) -> io::Result<Vec<u8>> {
    let mut text = vec![];
    if list == Path::new("-") {
        io::stdin().lock().read_to_end(&mut text)?;
    } else {
        std::fs::File::open(list)?.read_to_end(&mut text)?;
    }
    Ok(text)
}
