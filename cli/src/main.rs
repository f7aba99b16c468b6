//! `shangmi`: the command-line face of the workspace.
//!
//! `shangmi speed [--backend NAME] [--seconds S] [FILTER...]` prints a throughput table in
//! the style of the Linux kernel's tcrypt: one row per algorithm and mode, one column per
//! buffer size, in MB/s (10^6 bytes per second), naming the engine that ran.

mod rows;
mod speed;

use std::process::ExitCode;

const USAGE: &str = "\
usage: shangmi speed [--backend NAME] [--seconds S] [FILTER...]

  --backend NAME   run SM4 on this engine instead of the best one
  --seconds S      time per table cell (default 0.2)
  FILTER           only rows whose name contains one of these words (e.g. ctr, sm4-cbc)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("speed") => match speed::Options::parse(&args[1..]).and_then(|o| speed::run(&o)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("shangmi speed: {e}\n\n{USAGE}");
                ExitCode::from(2)
            }
        },
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
