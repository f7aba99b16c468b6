//! `shangmi selftest`: runs the module's power-on known-answer tests (`shangmi-selftest`),
//! then, if they passed, the conditional tests through the module handle (an SM2 key
//! generated with its pairwise-consistency test, the DRBG on the operating system's
//! generator under its health tests); prints each test and its result, as text or JSON,
//! and exits 1 if any failed.

use std::fmt::Write as _;
use std::process::ExitCode;

use rand_core::TryRng;
use shangmi_selftest::{Module, State, TestResult};

use crate::Failure;

/// Options of `shangmi selftest`.
#[derive(clap::Args)]
#[command(after_help = "\
Runs the power-on known-answer tests (SM3, HMAC-SM3, SM4, SM4-GCM, SM2, ZUC, SM9, the \
GM/T 0105 DRBGs; each names the standard its vector comes from), then the conditional \
tests of module mode: an SM2 key generated with its pairwise-consistency test and the \
DRBG's health tests on the operating system's generator. Exit status: 0 if every test \
passed, 1 otherwise (the module is then in its error state).")]
pub struct Args {
    /// Print the results as one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The conditional tests: they run only on an operational module.
fn conditional(module: Module) -> [TestResult; 2] {
    let mut rng = module.system_rng();
    let drbg = rng
        .as_mut()
        .is_ok_and(|rng| rng.try_next_u64().is_ok() && rng.try_next_u64().is_ok());
    let keygen = rng
        .as_mut()
        .is_ok_and(|rng| module.generate_sm2_key(rng).is_ok());
    [
        TestResult {
            name: "drbg-health",
            origin: "SP 800-90B 4.3/4.4 start-up, repetition count and adaptive proportion \
                     tests on the entropy source; continuous test on the DRBG's output",
            passed: drbg,
        },
        TestResult {
            name: "sm2-keygen-pairwise",
            origin: "GM/T 0028-2014 pairwise-consistency test: sign/verify and \
                     encrypt/decrypt with a new key",
            passed: keygen,
        },
    ]
}

/// The module state as printed.
fn state_name(state: State) -> &'static str {
    match state {
        State::Untested => "untested",
        State::Operational => "operational",
        State::Error => "error",
    }
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The report as printed, and whether everything passed.
fn render(results: &[TestResult], state: State, json: bool) -> (String, bool) {
    let passed = results.iter().all(|r| r.passed) && state == State::Operational;
    let mut out = String::new();
    if json {
        out.push_str("{\"passed\":");
        out.push_str(if passed { "true" } else { "false" });
        let _ = write!(
            out,
            ",\"state\":{},\"tests\":[",
            json_string(state_name(state))
        );
        for (i, r) in results.iter().enumerate() {
            let _ = write!(
                out,
                "{}{{\"name\":{},\"passed\":{},\"origin\":{}}}",
                if i == 0 { "" } else { "," },
                json_string(r.name),
                r.passed,
                json_string(r.origin)
            );
        }
        out.push_str("]}\n");
    } else {
        let width = results.iter().map(|r| r.name.len()).max().unwrap_or(0);
        for r in results {
            let verdict = if r.passed { "pass" } else { "FAIL" };
            let _ = writeln!(out, "{:<width$}  {verdict}  {}", r.name, r.origin);
        }
        let _ = writeln!(out, "module: {}", state_name(state));
    }
    (out, passed)
}

/// Runs `shangmi selftest`.
pub fn run(args: &Args) -> Result<ExitCode, Failure> {
    let report = shangmi_selftest::run();
    let mut results = report.results().to_vec();
    if let Ok(module) = report.module() {
        results.extend(conditional(module));
    }
    let (text, passed) = render(&results, shangmi_selftest::state(), args.json);
    print!("{text}");
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &'static str, passed: bool) -> TestResult {
        TestResult {
            name,
            origin: "GB/T 0000 \"example\"",
            passed,
        }
    }

    #[test]
    fn a_failed_test_is_printed_and_fails_the_command() {
        let results = [result("sm3", true), result("sm4-gcm", false)];
        let (text, passed) = render(&results, State::Error, false);
        assert!(!passed);
        assert_eq!(
            text,
            "sm3      pass  GB/T 0000 \"example\"\n\
             sm4-gcm  FAIL  GB/T 0000 \"example\"\n\
             module: error\n"
        );
        let (json, passed) = render(&results, State::Error, true);
        assert!(!passed);
        assert_eq!(
            json,
            "{\"passed\":false,\"state\":\"error\",\"tests\":[\
             {\"name\":\"sm3\",\"passed\":true,\"origin\":\"GB/T 0000 \\\"example\\\"\"},\
             {\"name\":\"sm4-gcm\",\"passed\":false,\"origin\":\"GB/T 0000 \\\"example\\\"\"}]}\n"
        );
        // All passed but the module in its error state (a failure earlier): still a failure.
        let (_, passed) = render(&[result("sm3", true)], State::Error, false);
        assert!(!passed);
        let (_, passed) = render(&[result("sm3", true)], State::Operational, false);
        assert!(passed);
    }
}
