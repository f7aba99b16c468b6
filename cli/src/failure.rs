//! The error every command returns: a message naming the file and the cause, and the exit
//! code to leave with.

use std::fmt;
use std::process::ExitCode;
use std::sync::OnceLock;

static PROGRAM: OnceLock<&'static str> = OnceLock::new();

/// Sets the name messages start with (`shangmi` unless set; `sm3sum` for that binary).
pub fn set_program_name(name: &'static str) {
    // Set once at start-up; a second call keeps the first name.
    let _ = PROGRAM.set(name);
}

/// The name messages start with.
pub fn program_name() -> &'static str {
    PROGRAM.get().copied().unwrap_or("shangmi")
}

/// Prints `PROGRAM: message` on standard error (a diagnostic that does not stop the work).
pub fn warn(message: impl fmt::Display) {
    eprintln!("{}: {message}", program_name());
}

/// Exit code 3: module mode refused service (a self-test failed; `SHANGMI_MODULE`,
/// `--module`).
pub const MODULE_ERROR: u8 = 3;

/// Exit code 4: a key's device refused the PIN (wrong, or locked): a script that retries
/// on any failure would lock the key, so this one is told apart.
pub const PIN_REFUSED: u8 = 4;

/// A command's failure: printed as `PROGRAM: MESSAGE` on standard error.
#[derive(Debug)]
pub struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    /// A failure with exit code 1 (the conventional "it did not work").
    pub fn new(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 1,
        }
    }

    /// A usage failure (exit code 2, as clap and coreutils use for bad arguments).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: 2,
        }
    }

    /// A failure with its own exit code ([`MODULE_ERROR`], [`PIN_REFUSED`]).
    pub fn with_code(message: impl Into<String>, code: u8) -> Failure {
        Failure {
            message: message.into(),
            code,
        }
    }

    /// An error writing the command's output. A closed pipe (`sm3sum * | head`) ends the
    /// command quietly, as the SIGPIPE that stops coreutils would.
    pub fn write(error: &std::io::Error) -> Failure {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            Failure {
                message: String::new(),
                code: 1,
            }
        } else {
            Failure::new(format!("write error: {}", describe_io(error)))
        }
    }

    /// Prints the failure and returns its exit code.
    pub fn report(&self) -> ExitCode {
        if !self.message.is_empty() {
            warn(&self.message);
        }
        ExitCode::from(self.code)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::new(message)
    }
}

/// An I/O error's cause in the words coreutils use (without Rust's "(os error N)").
pub fn describe_io(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::NotFound => "No such file or directory".to_owned(),
        ErrorKind::PermissionDenied => "Permission denied".to_owned(),
        ErrorKind::IsADirectory => "Is a directory".to_owned(),
        _ => {
            let text = error.to_string();
            match text.find(" (os error") {
                Some(at) => text[..at].to_owned(),
                None => text,
            }
        }
    }
}
