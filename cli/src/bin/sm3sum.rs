//! The `sm3sum` binary: `shangmi sm3sum` under the name coreutils users expect.

fn main() -> std::process::ExitCode {
    shangmi_cli::sm3sum_main()
}
