//! The error every command returns: a message naming the file and the cause, and the exit
//! code to leave with.

use std::fmt;
use std::path::Path;
use std::process::ExitCode;

/// A command's failure: printed as `shangmi: MESSAGE` on standard error.
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

    /// An I/O error on `path` (`-` or an empty path name standard input/output).
    pub fn io(path: &Path, error: &std::io::Error) -> Failure {
        Failure::new(format!("{}: {}", display_path(path), describe_io(error)))
    }

    /// Prints the failure and returns its exit code.
    pub fn report(&self) -> ExitCode {
        eprintln!("shangmi: {}", self.message);
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

/// How a path appears in messages: `-` for standard input/output.
pub fn display_path(path: &Path) -> String {
    if path.as_os_str().is_empty() || path == Path::new("-") {
        "-".to_owned()
    } else {
        path.display().to_string()
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
