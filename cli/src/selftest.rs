//! `shangmi selftest`: runs the module's power-on known-answer tests (`shangmi-selftest`),
//! then, if they passed, the conditional tests through the module handle (an SM2 key
//! generated with its pairwise-consistency test, the DRBG on the operating system's
//! generator under its health tests); prints each test and its result, as text or JSON,
//! and exits 1 if any failed.
//!
//! And module mode for every command (`--module`, or `SHANGMI_MODULE=1`): the power-on
//! tests run once before the command, a failure refuses it (exit code
//! [`MODULE_ERROR`], 3), and the command's SM2 keys
//! ([`new_sm2_key`]) and random numbers ([`rng`], [`fill_random`]) come from the module:
//! keys with the pairwise-consistency test, randomness from the health-tested DRBG. Outside
//! module mode the same functions use the operating system's generator, so every command
//! takes its keys and randomness from here.
//!
//! That covers the libraries' randomness too: in module mode the TLS 1.3 provider and the
//! TLCP configurations draw theirs (randoms, ephemeral keys, CBC IVs, session IDs and
//! tickets) from the module's DRBG ([`tls_random`]), `shangmi-pki`'s `_with_rng` functions
//! get [`rng`] (CMS content keys and IVs, serials, PKCS#12 salts and IVs, enveloped keys),
//! and servers ask [`check_service`] before each connection: a module in its error state
//! refuses new connections.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};

use getrandom::SysRng;
use rand_core::{TryCryptoRng, TryRng};
use shangmi_drbg::StdClock;
use shangmi_rustls::rand::Locked;
use shangmi_selftest::{Module, ModuleRng, State, TestResult};
use shangmi_sm2::SecretKey;

use crate::Failure;
use crate::failure::MODULE_ERROR;

/// The module, once module mode is entered and the power-on tests passed.
static MODULE: OnceLock<Module> = OnceLock::new();

/// Whether module mode is asked for: the `--module` flag, or `SHANGMI_MODULE` set to `1`
/// (`0` or empty: off; anything else is a usage error rather than a guess).
pub fn wanted(flag: bool) -> Result<bool, Failure> {
    if flag {
        return Ok(true);
    }
    match std::env::var_os("SHANGMI_MODULE") {
        None => Ok(false),
        Some(v) => match v.to_str() {
            Some("1") => Ok(true),
            Some("0" | "") => Ok(false),
            _ => Err(Failure::usage(
                "SHANGMI_MODULE must be 1 (module mode) or 0",
            )),
        },
    }
}

/// Says on standard error that this build carries the self-tests' fault-injection hook
/// (a test build of `shangmi`; never a release).
fn warn_fault_injection() {
    if shangmi_selftest::FAULT_INJECTION {
        crate::failure::warn(
            "this build carries the self-tests' fault-injection hook (tests only)",
        );
    }
}

/// Enters module mode: runs the power-on self-tests once; if any failed the module is in
/// its error state and the command is refused (exit code 3).
pub fn enter_module_mode() -> Result<(), Failure> {
    warn_fault_injection();
    let report = shangmi_selftest::run();
    match report.module() {
        Ok(module) => {
            let _ = MODULE.set(module);
            Ok(())
        }
        Err(e) => {
            let failed: Vec<&str> = report
                .results()
                .iter()
                .filter(|r| !r.passed)
                .map(|r| r.name)
                .collect();
            Err(refused(&format!(
                "{e} (failed: {}); `shangmi selftest` prints the report",
                failed.join(", ")
            )))
        }
    }
}

/// The module mode's refusal.
fn refused(why: &str) -> Failure {
    Failure::with_code(format!("module mode: service refused: {why}"), MODULE_ERROR)
}

/// The module in module mode, checked operational (`None` outside module mode).
fn module() -> Result<Option<Module>, Failure> {
    match MODULE.get() {
        None => Ok(None),
        Some(m) => m
            .check()
            .map(|()| Some(*m))
            .map_err(|e| refused(&e.to_string())),
    }
}

/// A command's random number generator: the module's health-tested SM4 DRBG in module
/// mode, the operating system's generator otherwise.
#[derive(Debug)]
pub struct CommandRng(Option<Box<ModuleRng<SysRng, StdClock>>>);

/// A [`CommandRng`] failure (the generator's message).
#[derive(Debug)]
pub struct RngError(String);

impl std::fmt::Display for RngError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the random generator failed: {}", self.0)
    }
}

impl std::error::Error for RngError {}

impl TryRng for CommandRng {
    type Error = RngError;

    fn try_next_u32(&mut self) -> Result<u32, RngError> {
        rand_core::utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, RngError> {
        rand_core::utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), RngError> {
        let e = |e: &dyn std::fmt::Display| RngError(e.to_string());
        match &mut self.0 {
            Some(m) => m.try_fill_bytes(dst).map_err(|x| e(&x)),
            None => SysRng.try_fill_bytes(dst).map_err(|x| e(&x)),
        }
    }
}

impl TryCryptoRng for CommandRng {}

/// The command's random number generator ([`CommandRng`]).
pub fn rng() -> Result<CommandRng, Failure> {
    Ok(CommandRng(match module()? {
        None => None,
        Some(m) => Some(Box::new(
            m.system_rng().map_err(|e| refused(&e.to_string()))?,
        )),
    }))
}

/// The module's DRBG as the TLS libraries take a generator (rustls' `SecureRandom`, which
/// `shangmi-tlcp` shares): one instance behind a lock for the whole process, so every
/// connection of a server draws from it.
pub type TlsRandom = Locked<ModuleRng<SysRng, StdClock>>;

/// The process's [`TlsRandom`], made on first use in module mode.
static TLS_RANDOM: OnceLock<Arc<TlsRandom>> = OnceLock::new();

/// In module mode, the module's DRBG for the TLS 1.3 provider
/// (`shangmi_rustls::provider_with_random`, which takes it as `&'static`) and the TLCP
/// configurations (`rng`, as an `Arc`); `None` outside module mode (the libraries' own
/// operating-system generator).
pub fn tls_random() -> Result<Option<&'static Arc<TlsRandom>>, Failure> {
    let Some(m) = module()? else {
        return Ok(None);
    };
    if TLS_RANDOM.get().is_none() {
        let rng = m.system_rng().map_err(|e| refused(&e.to_string()))?;
        // Another thread may have set it meanwhile: either instance serves.
        let _ = TLS_RANDOM.set(Arc::new(Locked::new(rng)));
    }
    Ok(TLS_RANDOM.get())
}

/// Before each service (a server's connection, a client's): `Ok` outside module mode and
/// while the module is operational; the refusal (its reason) once it is in its error state.
pub fn check_service() -> Result<(), Failure> {
    module().map(|_| ())
}

/// A command's failure as it leaves: in module mode, once the module is in its error state
/// (a health or pairwise-consistency test failed during the command), the refusal's exit
/// code 3 whatever the command said.
pub fn exit_failure(failure: Failure) -> Failure {
    match MODULE.get().map(Module::check) {
        Some(Err(e)) => refused(&format!("{failure} ({e})")),
        _ => failure,
    }
}

/// Fills `buf` from the command's generator.
pub fn fill_random(buf: &mut [u8]) -> Result<(), Failure> {
    rng()?
        .try_fill_bytes(buf)
        .map_err(|e| Failure::new(e.to_string()))
}

/// A new SM2 key: in module mode from the module (its DRBG, then the pairwise-consistency
/// test; a failure refuses the command), otherwise from the operating system's generator.
pub fn new_sm2_key() -> Result<SecretKey, Failure> {
    match module()? {
        Some(m) => {
            let mut rng = m.system_rng().map_err(|e| refused(&e.to_string()))?;
            m.generate_sm2_key(&mut rng)
                .map_err(|e| refused(&e.to_string()))
        }
        None => shangmi_sm2::dsa::SigningKey::random(&mut SysRng)
            .map(|k| k.secret_key())
            .map_err(|e| Failure::new(format!("key generation: {e}"))),
    }
}

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
    warn_fault_injection();
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
